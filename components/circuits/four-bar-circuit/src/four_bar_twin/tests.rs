//! Unit tests of the FourBarTwin model.

use super::*;
use crate::CurveParams;
use fmu_core::Record;
use fmu_core::testing::TestMaster;

fn twin(points: i32) -> FourBarTwin {
    let mut p = Params::defaults();
    p.points = points;
    FourBarTwin::configure(
        &p,
        &Context::new(&fmu_core::ResourceFolder::Unavailable(String::new())),
    )
    .unwrap()
}

/// States around the working range of the scenario in `MODEL.md`.
fn states() -> Vec<SVector<f64, NX>> {
    let mut out = Vec::new();
    for k in 0..12 {
        let f = k as f64 / 11.0;
        out.push(SVector::from([
            -0.2 + 0.8 * f,
            -0.4 + 0.7 * f,
            7.0e6 + 6e5 * f,
            3.4e6 + 2e6 * (1.0 - f),
            0.9e6 + 2.8e6 * f,
            -9.0 + 18.0 * f,
            0.0,
            0.0,
        ]));
    }
    out
}

#[test]
fn inputs_at_a_preset_give_the_rates_of_that_preset() {
    // real-2 through the inputs equals FourBar's real-2 preset (the same
    // coupled equations with the preset's curve on all four edges).
    let m = twin(6);
    let mut u = Inputs::defaults();
    (u.N1, u.N2, u.N3, u.N4) = (5.0, 12.0, 30.0, 70.0);
    u.U_ref = 4.0;
    let curves = CurveParams {
        curve: 3,
        ..CurveParams::defaults()
    };
    let p = Params::defaults();
    let preset = p
        .hydraulics
        .actuator(&BulkParams::defaults(), curves.curves().unwrap())
        .unwrap();
    for x in states() {
        let want = coupled::rates(&m.linkage, &preset, u.U_ref, &x, None);
        let got = m.rates(&u, &x);
        assert_eq!(got, want, "at {x:?}");
    }
}

#[test]
fn bulk_modulus_inputs_scale_the_pressure_rates() {
    let m = twin(6);
    let u = Inputs::defaults();
    let mut stiff = u.clone();
    stiff.kp = 2.0 * u.kp;
    stiff.k0 = 2.0 * u.k0;
    for x in states() {
        let (a, b) = (m.rates(&u, &x), m.rates(&stiff, &x));
        for i in 2..5 {
            assert!(
                (b[i] - 2.0 * a[i]).abs() <= 1e-9 * a[i].abs(),
                "{i}: {a} {b}"
            );
        }
        assert_eq!(a[0], b[0]);
    }
}

#[test]
fn only_the_interior_points_in_use_matter() {
    let m = twin(3);
    let mut u = Inputs::defaults();
    u.N1 = 47.5;
    u.U_ref = 6.0;
    let mut other = u.clone();
    (other.N2, other.N3, other.N4) = (1.0, 2.0, 3.0);
    let mut moved = u.clone();
    moved.N1 = 30.0;
    for x in states().into_iter().filter(|x| x[5].abs() > 0.5) {
        assert_eq!(m.rates(&u, &x), m.rates(&other, &x));
        assert_ne!(m.rates(&u, &x), m.rates(&moved, &x));
    }
}

#[test]
fn a_different_start_length_starts_there_at_rest() {
    let mut m = TestMaster::<FourBarTwin, NX>::new();
    m.set("s0", 3.2).unwrap();
    m.enter_initialization().unwrap();
    m.exit_initialization().unwrap();
    assert!((m.get("s").unwrap() - 3.2).abs() < 1e-9);
    assert_eq!(m.get("omega").unwrap(), 0.0);
    // Held: the linkage does not move off at the start.
    m.step(1e-3).unwrap();
    assert!(
        m.get("s_dot").unwrap().abs() < 1e-3,
        "{}",
        m.get("s_dot").unwrap()
    );
}

#[test]
fn jacobian_matches_finite_differences() {
    let m = twin(5);
    let mut u = Inputs::defaults();
    (u.N1, u.N2, u.N3) = (12.0, 35.0, 65.0);
    u.U_ref = -3.0;
    for x in states() {
        let mut j = SMatrix::<f64, NX, NX>::zeros();
        assert!(m.rates_and_jacobian(&u, &x, &mut j).1);
        for c in 0..NX {
            let h = 1e-6 * x[c].abs().max(1e-3);
            let (mut xp, mut xm) = (x, x);
            xp[c] += h;
            xm[c] -= h;
            let fd = (m.rates(&u, &xp) - m.rates(&u, &xm)) / (2.0 * h);
            for r in 0..NX {
                let scale = fd[r].abs().max(j[(r, c)].abs()).max(1e-6);
                assert!(
                    (fd[r] - j[(r, c)]).abs() <= 1e-4 * scale,
                    "d{r}/d{c}: {} vs {}",
                    j[(r, c)],
                    fd[r]
                );
            }
        }
    }
}

#[test]
fn input_derivatives_match_finite_differences() {
    for points in 3..=6 {
        let m = twin(points);
        let mut u = Inputs::defaults();
        (u.N1, u.N2, u.N3, u.N4) = (8.0, 20.0, 40.0, 70.0);
        for (k, x) in states().into_iter().enumerate() {
            u.U_ref = if k % 2 == 0 { 5.0 } else { -4.0 };
            let mut columns = vec![SVector::<f64, NX>::zeros(); 7];
            assert!(m.rate_input_jacobian(&u, &x, &mut columns));
            for (i, column) in columns.iter().enumerate() {
                let mut raw = vec![u.U_ref, u.kp, u.k0, u.N1, u.N2, u.N3, u.N4];
                let h = 1e-6 * raw[i].abs().max(1.0);
                raw[i] += h;
                let up = m.rates(&Inputs::from_values(&raw), &x);
                raw[i] -= 2.0 * h;
                let down = m.rates(&Inputs::from_values(&raw), &x);
                let fd = (up - down) / (2.0 * h);
                for r in 0..NX {
                    let scale = fd[r].abs().max(column[r].abs()).max(1e-9);
                    assert!(
                        (fd[r] - column[r]).abs() <= 1e-5 * scale,
                        "{points} points, input {i}, rate {r}: {} vs {}",
                        column[r],
                        fd[r]
                    );
                }
            }
        }
    }
}

#[test]
fn cylinder_output_derivatives_match_finite_differences() {
    let m = twin(6);
    let u = Inputs::defaults();
    for x in states() {
        for (out, name) in [(output::s, "s"), (output::s_dot, "s_dot")] {
            for c in 0..NX {
                let d = m.output_partial(&u, &x, out, Known::State(c)).unwrap();
                let h = 1e-6 * x[c].abs().max(1e-3);
                let (mut xp, mut xm) = (x, x);
                xp[c] += h;
                xm[c] -= h;
                let get = |x: &SVector<f64, NX>| {
                    let o = m.all_outputs(&u, x);
                    if name == "s" { o.s } else { o.s_dot }
                };
                let fd = (get(&xp) - get(&xm)) / (2.0 * h);
                assert!(
                    (d - fd).abs() <= 1e-6 * fd.abs().max(1e-6),
                    "{name} by {c}: {d} vs {fd}"
                );
            }
        }
    }
}

#[test]
#[ignore]
fn timing_probe() {
    let m = twin(6);
    let u = Inputs::defaults();
    let xs = states();
    let n = 20000;
    let t = std::time::Instant::now();
    let mut acc = 0.0;
    for k in 0..n {
        acc += m.rates(&u, &xs[k % xs.len()])[3];
    }
    eprintln!("rates {:.3} us", t.elapsed().as_secs_f64() / n as f64 * 1e6);
    let t = std::time::Instant::now();
    for k in 0..n {
        let mut j = SMatrix::<f64, NX, NX>::zeros();
        acc += m.rates_and_jacobian(&u, &xs[k % xs.len()], &mut j).0[3];
    }
    eprintln!(
        "rates+jac {:.3} us",
        t.elapsed().as_secs_f64() / n as f64 * 1e6
    );
    let t = std::time::Instant::now();
    for k in 0..n {
        acc += m.all_outputs(&u, &xs[k % xs.len()]).s;
    }
    eprintln!(
        "outputs {:.3} us",
        t.elapsed().as_secs_f64() / n as f64 * 1e6
    );
    let t = std::time::Instant::now();
    for k in 0..n {
        acc += m.linkage.eval(xs[k % xs.len()][0], 0.1).unwrap().s;
    }
    eprintln!(
        "linkage {:.3} us {acc}",
        t.elapsed().as_secs_f64() / n as f64 * 1e6
    );
}
