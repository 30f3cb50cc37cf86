//! Unit tests of the FourBarActuator model.

use super::*;
use fmu_core::Record;

fn model() -> FourBarActuator {
    FourBarActuator::configure(
        &Params::defaults(),
        &Context::new(&fmu_core::ResourceFolder::Unavailable(String::new())),
    )
    .unwrap()
}

#[test]
fn at_rest_it_holds_the_linkage_and_the_relief_passes_the_pump_flow() {
    let m = model();
    let u = Inputs::defaults();
    let x0 = m.initial_state(&u);
    assert!(m.rates(&u, &x0).iter().all(|v| v.abs() < 1e-6));
    let out = m.all_outputs(&u, &x0);
    assert!((out.F_h - (3.393e6 * 2e-3 - 1e6 * 1.8e-3)).abs() < 1e-6);
    assert!((out.Q_R - 1e-3).abs() < 1e-12);
    assert_eq!(out.Qd1, 0.0);
}

#[test]
fn jacobian_and_force_partial_match_finite_differences() {
    let m = model();
    for (u, x) in [
        (
            Inputs {
                U_ref: 6.0,
                s: 3.2,
                s_dot: 0.2,
            },
            [7.2e6, 4.1e6, 2.2e6, 5.0],
        ),
        (
            Inputs {
                U_ref: -3.0,
                s: 2.9,
                s_dot: -0.3,
            },
            [7.5e6, 3.6e6, 3.1e6, -6.0],
        ),
    ] {
        let x = SVector::<f64, NX>::from(x);
        let mut j = SMatrix::zeros();
        assert!(m.rates_and_jacobian(&u, &x, &mut j).1);
        for c in 0..NX {
            let h = 1e-6 * x[c].abs();
            let (mut up, mut dn) = (x, x);
            up[c] += h;
            dn[c] -= h;
            let fd = (m.rates(&u, &up) - m.rates(&u, &dn)) / (2.0 * h);
            for r in 0..NX {
                let scale = fd[r].abs().max(j[(r, c)].abs());
                assert!((fd[r] - j[(r, c)]).abs() <= 1e-5 * scale + 1e-12, "{r} {c}");
            }
        }
        let partial = m
            .output_partial(&u, &x, output::F_h, Known::Input(input::s_dot))
            .unwrap();
        let h = 1e-7;
        let f = |v: f64| m.all_outputs(&Inputs { s_dot: v, ..u }, &x).F_h;
        let fd = (f(u.s_dot + h) - f(u.s_dot - h)) / (2.0 * h);
        assert!((partial - fd).abs() <= 1e-5 * fd.abs(), "{partial} vs {fd}");
    }
}

#[test]
fn beyond_the_stroke_the_rates_are_not_finite_so_the_step_is_refused() {
    let m = model();
    let x0 = m.initial_state(&Inputs::defaults());
    let u = Inputs {
        s: 1.5,
        ..Inputs::defaults()
    };
    assert!(m.rates(&u, &x0).iter().any(|v| !v.is_finite()));
}
