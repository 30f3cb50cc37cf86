use super::*;

/// The four-bar of FourBar's `MODEL.md`: crank A-B, coupler B-P, rocker
/// C-P; θ is the crank's angle (coordinate 2).
fn four_bar() -> (Mechanism<9, 1>, SVector<f64, 9>) {
    let (l1, l2, l3) = (2.0, 8.0, 5.0);
    let m = Mechanism::new(
        vec![
            Body::slender_bar(l1, 100.0),
            Body::slender_bar(l2, 400.0),
            Body::slender_bar(l3, 250.0),
        ],
        vec![
            Revolute {
                a: Anchor::ground(-2.0, 3.0),
                b: Anchor::on(0, -l1 / 2.0, 0.0),
            },
            Revolute {
                a: Anchor::on(0, l1 / 2.0, 0.0),
                b: Anchor::on(1, -l2 / 2.0, 0.0),
            },
            Revolute {
                a: Anchor::on(1, l2 / 2.0, 0.0),
                b: Anchor::on(2, l3 / 2.0, 0.0),
            },
            Revolute {
                a: Anchor::ground(8.0, 0.0),
                b: Anchor::on(2, -l3 / 2.0, 0.0),
            },
        ],
        [2],
        Vector2::new(0.0, -9.81),
    )
    .unwrap();
    // A rough upper-branch guess: crank horizontal, coupler rising to the
    // right, rocker pointing up and left.
    let (p2, p3) = (0.3f64, 2.0f64);
    let b = Vector2::new(0.0, 3.0);
    let c = Vector2::new(8.0, 0.0);
    let g2 = b + Vector2::new(p2.cos(), p2.sin()) * (l2 / 2.0);
    let g3 = c + Vector2::new(p3.cos(), p3.sin()) * (l3 / 2.0);
    let guess = SVector::from([-1.0, 3.0, 0.0, g2.x, g2.y, p2, g3.x, g3.y, p3]);
    (m, guess)
}

fn assembled(m: &Mechanism<9, 1>, guess: &SVector<f64, 9>, theta: f64) -> SVector<f64, 9> {
    m.assemble(&SVector::from([theta]), guess).unwrap().0
}

#[test]
fn the_loop_closes_to_round_off_on_the_upper_branch() {
    let (m, guess) = four_bar();
    let q = assembled(&m, &guess, 0.0);
    assert!(m.loop_residual(&q) < 1e-14, "{}", m.loop_residual(&q));
    // The rocker tip lies on both circles, above the line B-C.
    let tip = m.point(&q, &Anchor::on(2, 2.5, 0.0));
    assert!(((tip - Vector2::new(0.0, 3.0)).norm() - 8.0).abs() < 1e-13);
    assert!(((tip - Vector2::new(8.0, 0.0)).norm() - 5.0).abs() < 1e-13);
    assert!(tip.y > 3.0, "{tip:?}");
}

#[test]
fn velocity_transformation_and_its_derivative_match_finite_differences() {
    let (m, guess) = four_bar();
    for theta in [-0.4, 0.0, 0.3, 1.2] {
        let q = assembled(&m, &guess, theta);
        let k = m.kinematics(&q, &SVector::from([1.0])).unwrap();
        let h = 1e-6;
        let qp = assembled(&m, &q, theta + h);
        let qm = assembled(&m, &q, theta - h);
        let fd = (qp - qm) / (2.0 * h);
        assert!((k.r.column(0) - fd).amax() < 1e-8, "θ = {theta}");
        // dR/dθ from the quadratic terms, and a0 = dR/dθ θ'^2.
        let kp = m.kinematics(&qp, &SVector::zeros()).unwrap();
        let km = m.kinematics(&qm, &SVector::zeros()).unwrap();
        let fd_r = (kp.r.column(0) - km.r.column(0)) / (2.0 * h);
        let d = m.dr_dz(&k, 0, 0);
        assert!((d - fd_r).amax() < 1e-7, "θ = {theta}");
        assert!((k.a0 - d).amax() < 1e-12);
    }
}

#[test]
fn free_motion_under_gravity_conserves_energy() {
    let (m, guess) = four_bar();
    let cont =
        Continuation::build(&m, &assembled(&m, &guess, 0.0), std::f64::consts::PI, 0.02).unwrap();
    let energy = |th: f64, w: f64| {
        let q = m.assemble(&SVector::from([th]), &cont.guess(th)).unwrap().0;
        let k = m.kinematics(&q, &SVector::from([w])).unwrap();
        m.kinetic_energy(&k.qdot) + m.potential_energy(&q)
    };
    let accel = |th: f64, w: f64| {
        let q = m.assemble(&SVector::from([th]), &cont.guess(th)).unwrap().0;
        let k = m.kinematics(&q, &SVector::from([w])).unwrap();
        m.motion(&k, &SVector::zeros()).zddot[0]
    };
    let (mut th, mut w) = (0.2, 0.0);
    let e0 = energy(th, w);
    let h = 1e-3;
    for _ in 0..2000 {
        let (k1t, k1w) = (w, accel(th, w));
        let (k2t, k2w) = (
            w + 0.5 * h * k1w,
            accel(th + 0.5 * h * k1t, w + 0.5 * h * k1w),
        );
        let (k3t, k3w) = (
            w + 0.5 * h * k2w,
            accel(th + 0.5 * h * k2t, w + 0.5 * h * k2w),
        );
        let (k4t, k4w) = (w + h * k3w, accel(th + h * k3t, w + h * k3w));
        th += h / 6.0 * (k1t + 2.0 * k2t + 2.0 * k3t + k4t);
        w += h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w);
    }
    // It swings (the mechanism is not in equilibrium at 0.2 rad) and keeps
    // its energy to the integrator's accuracy.
    assert!((th - 0.2).abs() > 0.05, "{th}");
    assert!(
        (energy(th, w) - e0).abs() < 1e-6 * e0.abs(),
        "{} vs {e0}",
        energy(th, w)
    );
}

#[test]
fn continuation_warm_start_gives_the_cold_solution_in_fewer_iterations() {
    let (m, guess) = four_bar();
    let q0 = assembled(&m, &guess, 0.0);
    let cont = Continuation::build(&m, &q0, std::f64::consts::PI, 2f64.to_radians()).unwrap();
    // Grashof crank-rocker: the crank turns all the way round.
    let (lo, hi) = cont.range();
    assert!(hi - lo > 6.0, "{lo} .. {hi}");
    for theta in [-0.5, -0.123, 0.0, 0.4567, 1.0] {
        let (warm, iw) = m
            .assemble(&SVector::from([theta]), &cont.guess(theta))
            .unwrap();
        let (cold, ic) = m.assemble(&SVector::from([theta]), &q0).unwrap();
        assert!((warm - cold).amax() < 1e-12);
        assert!(iw <= 3 && iw < ic.max(4), "{iw} vs {ic}");
    }
}

#[test]
fn a_cylinder_force_does_virtual_work_through_its_gradient() {
    let (m, guess) = four_bar();
    let q = assembled(&m, &guess, 0.1);
    let d = Anchor::ground(-1.0, 0.0);
    let g = Anchor::on(0, 0.0, 0.0);
    let (s, grad) = m.distance(&q, &d, &g);
    let h = 1e-6;
    let sp = m.distance(&assembled(&m, &q, 0.1 + h), &d, &g).0;
    let sm = m.distance(&assembled(&m, &q, 0.1 - h), &d, &g).0;
    let k = m.kinematics(&q, &SVector::from([1.0])).unwrap();
    assert!(((sp - sm) / (2.0 * h) - grad.dot(&k.qdot)).abs() < 1e-8);
    assert!(s > 2.0 && s < 4.0);
}

#[test]
fn a_five_bar_with_two_degrees_of_freedom_is_only_another_table() {
    // Two cranks from two ground pivots joined by two bars: 4 bodies,
    // 5 joints, 2 degrees of freedom.
    let m = Mechanism::<12, 2>::new(
        vec![Body::slender_bar(1.0, 1.0); 4],
        vec![
            Revolute {
                a: Anchor::ground(0.0, 0.0),
                b: Anchor::on(0, -0.5, 0.0),
            },
            Revolute {
                a: Anchor::on(0, 0.5, 0.0),
                b: Anchor::on(1, -0.5, 0.0),
            },
            Revolute {
                a: Anchor::on(1, 0.5, 0.0),
                b: Anchor::on(2, 0.5, 0.0),
            },
            Revolute {
                a: Anchor::on(2, -0.5, 0.0),
                b: Anchor::on(3, 0.5, 0.0),
            },
            Revolute {
                a: Anchor::ground(1.0, 0.0),
                b: Anchor::on(3, -0.5, 0.0),
            },
        ],
        [2, 11],
        Vector2::new(0.0, -9.81),
    )
    .unwrap();
    let (a, b) = (1.5f64, 1.3f64);
    let guess = SVector::from([
        0.5 * a.cos(),
        0.5 * a.sin(),
        a,
        a.cos() + 0.5,
        a.sin() + 0.4,
        0.3,
        1.0 + b.cos() - 0.1,
        b.sin() + 0.4,
        -2.8,
        1.0 + 0.5 * b.cos(),
        0.5 * b.sin(),
        b,
    ]);
    let q = m.assemble(&SVector::from([a, b]), &guess).unwrap().0;
    assert!(m.loop_residual(&q) < 1e-14);
    let k = m.kinematics(&q, &SVector::from([0.3, -0.2])).unwrap();
    // Velocities satisfy the differentiated constraints.
    let h = 1e-7;
    let q2 = m
        .assemble(&SVector::from([a + 0.3 * h, b - 0.2 * h]), &q)
        .unwrap()
        .0;
    assert!(((q2 - q) / h - k.qdot).amax() < 1e-6);
    let motion = m.motion(&k, &SVector::zeros());
    assert!(motion.zddot.iter().all(|v| v.is_finite()));
}

#[test]
fn one_bar_tables_are_refused_with_a_reason() {
    let bar = Body::slender_bar(1.0, 1.0);
    let massless = Body {
        mass: 0.0,
        inertia: 1.0,
    };
    let pin = |a: Anchor, b: Anchor| Revolute { a, b };
    let cases = [
        (
            massless,
            pin(Anchor::ground(0.0, 0.0), Anchor::on(0, 0.5, 0.0)),
            2,
            "mass",
        ),
        (
            bar,
            pin(Anchor::ground(0.0, 0.0), Anchor::on(3, 0.5, 0.0)),
            2,
            "does not exist",
        ),
        // A position cannot be an independent coordinate.
        (
            bar,
            pin(Anchor::ground(0.0, 0.0), Anchor::on(0, 0.5, 0.0)),
            0,
            "only a body's angle",
        ),
        // A joint from a body to itself.
        (
            bar,
            pin(Anchor::on(0, -0.5, 0.0), Anchor::on(0, 0.5, 0.0)),
            2,
            "same body",
        ),
    ];
    for (body, joint, independent, why) in cases {
        let e = Mechanism::<3, 1>::new(vec![body], vec![joint], [independent], Vector2::zeros())
            .unwrap_err();
        assert!(e.contains(why), "{e}");
    }
}

#[test]
fn inconsistent_tables_are_refused_with_a_reason() {
    let e = Mechanism::<9, 1>::new(
        vec![Body::slender_bar(1.0, 1.0); 3],
        vec![],
        [2],
        Vector2::zeros(),
    )
    .unwrap_err();
    assert!(e.contains("degrees of freedom"), "{e}");
    let e = Mechanism::<6, 1>::new(
        vec![Body::slender_bar(1.0, 1.0); 3],
        vec![],
        [2],
        Vector2::zeros(),
    )
    .unwrap_err();
    assert!(e.contains("coordinates"), "{e}");
}

#[test]
fn a_loop_that_cannot_close_is_an_error_not_nan() {
    let (m, guess) = four_bar();
    // Independent coordinate NaN: refused, no NaN coordinates returned.
    assert!(m.assemble(&SVector::from([f64::NAN]), &guess).is_err());
}

#[test]
fn second_derivatives_match_finite_differences() {
    let (m, guess) = four_bar();
    let d = Anchor::ground(-1.0, 0.0);
    let g = Anchor::on(0, 0.0, 0.0);
    for theta in [-0.3, 0.2, 0.9] {
        let q = assembled(&m, &guess, theta);
        let k = m.kinematics(&q, &SVector::from([1.0])).unwrap();
        let dr = m.dr_dz(&k, 0, 0);
        let d2 = m.d2r_dz2(&k, &dr);
        let h = 1e-5;
        let at = |t: f64| {
            let q = assembled(&m, &q, t);
            let k = m.kinematics(&q, &SVector::from([1.0])).unwrap();
            let dr = m.dr_dz(&k, 0, 0);
            let (s, s1, _) = m.distance_derivatives(&q, &k.r.column(0).into_owned(), &dr, &d, &g);
            (dr, s, s1)
        };
        let (drp, sp, s1p) = at(theta + h);
        let (drm, sm, s1m) = at(theta - h);
        assert!((d2 - (drp - drm) / (2.0 * h)).amax() < 1e-6, "θ = {theta}");
        let (s, s1, s2) = m.distance_derivatives(&q, &k.r.column(0).into_owned(), &dr, &d, &g);
        assert!(((sp - sm) / (2.0 * h) - s1).abs() < 1e-8);
        assert!(((s1p - s1m) / (2.0 * h) - s2).abs() < 1e-6, "{s2}");
        assert!(s > 2.0);
    }
}

#[test]
fn the_loop_stays_closed_all_the_way_round() {
    let (m, guess) = four_bar();
    let q0 = assembled(&m, &guess, 0.0);
    let cont = Continuation::build(&m, &q0, std::f64::consts::PI, 1f64.to_radians()).unwrap();
    let (lo, hi) = cont.range();
    let mut worst = 0.0f64;
    for i in 0..=720 {
        let theta = lo + (hi - lo) * i as f64 / 720.0;
        let (q, iterations) = m
            .assemble(&SVector::from([theta]), &cont.guess(theta))
            .unwrap();
        assert!(iterations <= 3, "θ = {theta}: {iterations} iterations");
        worst = worst.max(m.loop_residual(&q));
    }
    // Every joint, the tree's and the cut one, in body coordinates.
    assert!(worst < 1e-12, "{worst:e} m");
}

/// Three bars hanging from the ground in a chain (a triple pendulum): no
/// loop, three degrees of freedom, every angle independent.
fn open_chain() -> Mechanism<9, 3> {
    Mechanism::new(
        vec![
            Body::slender_bar(1.0, 2.0),
            Body::slender_bar(0.8, 1.5),
            Body {
                mass: 1.0,
                inertia: 0.02,
            },
        ],
        vec![
            Revolute {
                a: Anchor::ground(0.0, 0.0),
                b: Anchor::on(0, -0.5, 0.0),
            },
            Revolute {
                a: Anchor::on(0, 0.5, 0.0),
                b: Anchor::on(1, -0.4, 0.0),
            },
            Revolute {
                a: Anchor::on(1, 0.4, 0.0),
                b: Anchor::on(2, -0.1, 0.05),
            },
        ],
        [2, 5, 8],
        Vector2::new(0.0, -9.81),
    )
    .unwrap()
}

#[test]
fn a_three_body_open_chain_is_a_table_too() {
    let m = open_chain();
    let z = SVector::from([-1.2, -0.7, 0.4]);
    let (q, iterations) = m.assemble(&z, &SVector::zeros()).unwrap();
    assert_eq!(iterations, 0, "no loop: nothing to solve");
    assert!(m.loop_residual(&q) < 1e-15, "{:e}", m.loop_residual(&q));
    // Each body's angle is its independent coordinate.
    assert_eq!(m.independent(&q), z);
    let zdot = SVector::from([0.3, -0.5, 1.1]);
    let k = m.kinematics(&q, &zdot).unwrap();
    let h = 1e-6;
    for j in 0..3 {
        let mut e = SVector::<f64, 3>::zeros();
        e[j] = h;
        let qp = m.assemble(&(z + e), &q).unwrap().0;
        let qm = m.assemble(&(z - e), &q).unwrap().0;
        assert!(
            (k.r.column(j) - (qp - qm) / (2.0 * h)).amax() < 1e-9,
            "R column {j}"
        );
        // dR_i/dz_j against central differences of R.
        let kp = m.kinematics(&qp, &zdot).unwrap();
        let km = m.kinematics(&qm, &zdot).unwrap();
        for i in 0..3 {
            let fd = (kp.r.column(i) - km.r.column(i)) / (2.0 * h);
            assert!((m.dr_dz(&k, i, j) - fd).amax() < 1e-8, "dR_{i}/dz_{j}");
        }
    }
    // a0 = sum_ij dR_i/dz_j z'_i z'_j.
    let mut a0 = SVector::<f64, 9>::zeros();
    for i in 0..3 {
        for j in 0..3 {
            a0 += m.dr_dz(&k, i, j) * (zdot[i] * zdot[j]);
        }
    }
    assert!((k.a0 - a0).amax() < 1e-12);
}

#[test]
fn a_free_open_chain_conserves_energy() {
    let m = open_chain();
    let state = |z: &SVector<f64, 3>, w: &SVector<f64, 3>| {
        let q = m.assemble(z, &SVector::zeros()).unwrap().0;
        (q, m.kinematics(&q, w).unwrap())
    };
    let energy = |z: &SVector<f64, 3>, w: &SVector<f64, 3>| {
        let (q, k) = state(z, w);
        m.kinetic_energy(&k.qdot) + m.potential_energy(&q)
    };
    let accel = |z: &SVector<f64, 3>, w: &SVector<f64, 3>| {
        let (_, k) = state(z, w);
        m.motion(&k, &SVector::zeros()).zddot
    };
    let (mut z, mut w) = (SVector::from([-0.6, 0.3, 1.0]), SVector::<f64, 3>::zeros());
    let e0 = energy(&z, &w);
    let h = 5e-4;
    for _ in 0..4000 {
        let (k1z, k1w) = (w, accel(&z, &w));
        let (k2z, k2w) = (
            w + k1w * (0.5 * h),
            accel(&(z + k1z * (0.5 * h)), &(w + k1w * (0.5 * h))),
        );
        let (k3z, k3w) = (
            w + k2w * (0.5 * h),
            accel(&(z + k2z * (0.5 * h)), &(w + k2w * (0.5 * h))),
        );
        let (k4z, k4w) = (w + k3w * h, accel(&(z + k3z * h), &(w + k3w * h)));
        z += (k1z + k2z * 2.0 + k3z * 2.0 + k4z) * (h / 6.0);
        w += (k1w + k2w * 2.0 + k3w * 2.0 + k4w) * (h / 6.0);
    }
    // A chaotic swing over 2 s that keeps its energy to the integrator's
    // accuracy (the mass matrix R^T M R depends on all three angles).
    assert!(w.amax() > 1.0, "{w:?}");
    let e = energy(&z, &w);
    assert!((e - e0).abs() < 1e-6 * e0.abs().max(1.0), "{e} vs {e0}");
}

#[test]
fn tables_outside_joint_coordinates_are_refused_with_a_reason() {
    // Two bars pinned to each other twice, neither to the ground.
    let e = Mechanism::<6, 2>::new(
        vec![Body::slender_bar(1.0, 1.0); 2],
        vec![
            Revolute {
                a: Anchor::on(0, 0.5, 0.0),
                b: Anchor::on(1, -0.5, 0.0),
            },
            Revolute {
                a: Anchor::on(0, -0.5, 0.0),
                b: Anchor::on(1, 0.5, 0.0),
            },
        ],
        [2, 5],
        Vector2::zeros(),
    )
    .unwrap_err();
    assert!(e.contains("body 1 is not joined to the ground"), "{e}");
}

#[test]
fn solve_is_assemble_then_kinematics() {
    let (m, guess) = four_bar();
    let cont = Continuation::build(&m, &assembled(&m, &guess, 0.0), 3.0, 0.01).unwrap();
    let (d, g) = (Anchor::ground(-1.0, 0.0), Anchor::on(0, 0.0, 0.0));
    for (theta, omega) in [(-0.7, 0.4), (0.05, -2.0), (1.3, 0.0)] {
        let z = SVector::from([theta]);
        let zdot = SVector::from([omega]);
        let (q, it) = m.assemble(&z, &cont.guess(theta)).unwrap();
        let k = m.kinematics(&q, &zdot).unwrap();
        let (ks, its) = m.solve(&z, &zdot, &cont.guess(theta)).unwrap();
        assert_eq!(it, its);
        assert_eq!((ks.q, ks.r, ks.qdot, ks.a0), (k.q, k.r, k.qdot, k.a0));
        assert_eq!(m.distance_at(&ks, &d, &g), m.distance(&q, &d, &g));
    }
}
