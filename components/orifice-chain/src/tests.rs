//! Unit tests of the OrificeChain equations against the model card.

use super::*;
use fmu_core::model_description::ModelDescription;

fn defaults() -> Values {
    let desc: ModelDescription = OrificeChain::description();
    let mut v = Values::from_raw(
        desc.variables
            .iter()
            .map(|v| v.kind.start_as_f64().unwrap_or(0.0))
            .collect(),
    );
    v.set(vr::PS, 1e7);
    v
}

fn model() -> OrificeChain {
    OrificeChain::configure(&defaults()).unwrap()
}

#[test]
fn table_follows_core_conventions_and_validates() {
    fmu_core::checked_description::<OrificeChain, 2>().unwrap();
}

#[test]
fn jacobian_matches_finite_differences() {
    let m = model();
    // Points on both sides of the orifice law's transition (p_tr = 1e4 Pa),
    // away from the kink of max(p, 0) in the bulk modulus at p = 0.
    for x in [
        Vector2::new(100.0, 50.0),
        Vector2::new(3.0e6, 1.5e6),
        Vector2::new(6.666e6, 3.333e6),
        Vector2::new(5.0e3, 2.0e3),
        Vector2::new(-2.0e5, 4.0e6),
    ] {
        let j = m.jacobian(&x);
        for c in 0..2 {
            let h = 1e-4 * x[c].abs().max(1e2);
            let mut xp = x;
            let mut xm = x;
            xp[c] += h;
            xm[c] -= h;
            let fd = (m.rhs(&xp) - m.rhs(&xm)) / (2.0 * h);
            for r in 0..2 {
                let scale = j.column(c).abs().max().max(1e-12);
                assert!(
                    (fd[r] - j[(r, c)]).abs() <= 1e-5 * scale,
                    "x = {x:?}, J[{r},{c}] = {} vs FD {}",
                    j[(r, c)],
                    fd[r]
                );
            }
        }
    }
}

#[test]
fn steady_state_is_two_thirds_and_one_third() {
    let m = model();
    let x = Vector2::new(2.0e7 / 3.0, 1.0e7 / 3.0);
    let f = m.rhs(&x);
    // At the card's steady state both pressure rates vanish (up to rounding).
    assert!(f.norm() < 1e-3, "rates at steady state {f:?}");
    let [q1, q2, q3] = m.flows(&x);
    assert!((q1 / 4.0557786759736e-5 - 1.0).abs() < 1e-9);
    assert!((q1 - q2).abs() < 1e-15 && (q2 - q3).abs() < 1e-15);
}

#[test]
fn eigenvalues_match_the_card() {
    let m = model();
    let eig = |x: Vector2<f64>| {
        let j = m.jacobian(&x);
        let tr = j.trace();
        let det = j.determinant();
        let disc = (tr * tr / 4.0 - det).sqrt();
        (tr / 2.0 - disc, tr / 2.0 + disc)
    };
    let (fast, slow) = eig(Vector2::new(2.0e7 / 3.0, 1.0e7 / 3.0));
    assert!((fast / -1.25e3 - 1.0).abs() < 0.01, "fast {fast}");
    assert!((slow / -11.36 - 1.0).abs() < 0.01, "slow {slow}");
    let (fast0, _) = eig(Vector2::new(0.0, 0.0));
    assert!((fast0 / -2.39e4 - 1.0).abs() < 0.01, "start-up {fast0}");
}

#[test]
fn output_partials_match_finite_differences() {
    let v = defaults();
    let m = OrificeChain::configure(&v).unwrap();
    let x = Vector2::new(4.0e6, 1.0e6);
    for of in [vr::P1, vr::P2, vr::Q1, vr::Q2, vr::Q3] {
        for i in 0..2 {
            let h = 10.0;
            let mut xp = x;
            let mut xm = x;
            xp[i] += h;
            xm[i] -= h;
            let fd = (m.output(&xp, of).unwrap() - m.output(&xm, of).unwrap()) / (2.0 * h);
            let an = m.output_partial(&x, of, Known::State(i)).unwrap();
            assert!((fd - an).abs() <= 1e-6 * fd.abs().max(1e-15), "d{of}/dx{i}");
        }
        for input in [vr::PS, vr::PT] {
            let h = 10.0;
            let eval = |dv: f64| {
                let mut w = v.clone();
                w.set(input, v.real(input) + dv);
                OrificeChain::configure(&w).unwrap().output(&x, of).unwrap()
            };
            let fd = (eval(h) - eval(-h)) / (2.0 * h);
            let an = m.output_partial(&x, of, Known::Input(input)).unwrap();
            assert!(
                (fd - an).abs() <= 1e-6 * fd.abs().max(1e-15),
                "d{of}/d{input}"
            );
        }
    }
}

#[test]
fn physical_range_checks() {
    assert!(OrificeChain::check_value(vr::D1, -1e-3).is_err());
    assert!(OrificeChain::check_value(vr::V2, 0.0).is_err());
    assert!(OrificeChain::check_value(vr::A3, 0.9).is_err());
    assert!(OrificeChain::check_value(vr::V2, 1e-6).is_ok());
    assert!(OrificeChain::check_value(vr::PS, -5e4).is_ok());
}

#[test]
fn fast_input_path_matches_configure() {
    fmu_core::model::check_set_input::<OrificeChain, 2>(&Vector2::new(3e6, 1e6)).unwrap();
}
