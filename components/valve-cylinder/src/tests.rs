//! Unit tests of the ValveCylinder model.

use super::*;
use fmu_core::model_description::ModelDescription;

fn defaults() -> Values {
    let desc: ModelDescription = ValveCylinder::description();
    Values::from_raw(
        desc.variables
            .iter()
            .map(|v| v.kind.start_as_f64().unwrap_or(0.0))
            .collect(),
    )
}

#[test]
fn table_follows_core_conventions_and_validates() {
    fmu_core::checked_description::<ValveCylinder, NX>().unwrap();
}

#[test]
fn jacobian_matches_finite_differences() {
    let mut v = defaults();
    v.set(vr::U, 7.0);
    for qs in [0.0, 1.0] {
        v.set(vr::HYDRAULIC + h::QUASI_STATIC, qs);
        let m = ValveCylinder::configure(&v).unwrap();
        let nominal = m.nominal();
        for x in [
            SVector::<f64, NX>::from([6.0, 10.0, 2e-9, 6e6, 3e6, 7.2e6, 0.5, 0.03, 1e-4]),
            SVector::<f64, NX>::from([-5.0, -3.0, 8e-10, 4e6, 8e6, 9.1e6, 0.4, -0.02, -1e-4]),
            SVector::<f64, NX>::from([4.0, 2.0, 1e-9, 9e6, 2e6, 1.05e7, 1.00001, 0.001, 5e-5]),
        ] {
            let j = m.jacobian(&x);
            for c in 0..NX {
                if qs == 1.0 && c == 5 {
                    continue;
                }
                let rel = if c == 2 { 1e-3 } else { 1e-6 };
                let h = rel * x[c].abs().max(nominal[c] * 1e-3);
                let mut up = x;
                let mut dn = x;
                up[c] += h;
                dn[c] -= h;
                let fd = (m.rhs(&up) - m.rhs(&dn)) / (2.0 * h);
                for r in 0..NX {
                    let scale = (0..NX)
                        .map(|k| (j[(r, k)] * nominal[k]).abs())
                        .fold(0.0, f64::max);
                    assert!(
                        ((fd[r] - j[(r, c)]) * nominal[c]).abs() <= 1e-5 * scale.max(1e-30),
                        "qs {qs} x {x:?}: J[{r},{c}] = {} vs FD {}",
                        j[(r, c)],
                        fd[r]
                    );
                }
            }
        }
    }
}

#[test]
fn initial_state_from_the_card() {
    let m = ValveCylinder::configure(&defaults()).unwrap();
    let x0 = m.initial_state();
    assert_eq!(x0[2], 5e-11);
    assert_eq!((x0[3], x0[4], x0[5]), (9e5, 9e5, 9e5));
    assert_eq!(x0[X], 1.0);
}

#[test]
fn fast_input_path_matches_configure() {
    let x = SVector::<f64, NX>::from([6.0, 10.0, 2e-9, 6e6, 3e6, 7.2e6, 0.5, 0.03, 1e-4]);
    fmu_core::model::check_set_input::<ValveCylinder, NX>(&x).unwrap();
}
