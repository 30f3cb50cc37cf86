//! Unit tests of the hose models.

use super::*;

fn values<const F: u8>(n: i32) -> Values {
    let desc = HoseModel::<F>::description();
    let mut v = Values::from_raw(
        desc.variables
            .iter()
            .map(|v| v.kind.start_as_f64().unwrap_or(0.0))
            .collect(),
    );
    v.set(vr::N, f64::from(n));
    v
}

fn check_form<const F: u8>() {
    fmu_core::checked_description::<HoseModel<F>, NX>().unwrap();
    let m1 = HoseModel::<F>::configure(&values::<F>(1)).unwrap();
    fmu_core::model::check_set_input::<HoseModel<F>, NX>(&m1.initial_state()).unwrap();
    for n in [1, 3, 7] {
        let m = HoseModel::<F>::configure(&values::<F>(n)).unwrap();
        let x0 = m.initial_state();
        // The initial state is a steady state.
        let r = m.rhs(&x0);
        let nominal = m.nominal();
        for i in 0..NX {
            assert!(
                (r[i] * 1e-3 / nominal[i]).abs() < 1e-6,
                "form {F} n {n}: rate {i} = {} at the steady state",
                r[i]
            );
        }
        // Jacobian vs central differences at a perturbed state.
        let mut x = x0;
        for i in 0..m.active_states() {
            x[i] += nominal[i] * 0.3 * ((i as f64) * 1.7).sin();
        }
        let j = m.jacobian(&x);
        for c in 0..m.active_states() {
            let h = 1e-6 * nominal[c];
            let mut up = x;
            let mut dn = x;
            up[c] += h;
            dn[c] -= h;
            let fd = (m.rhs(&up) - m.rhs(&dn)) / (2.0 * h);
            for row in 0..NX {
                let scale = (0..NX)
                    .map(|k| (j[(row, k)] * nominal[k]).abs())
                    .fold(0.0, f64::max);
                assert!(
                    ((fd[row] - j[(row, c)]) * nominal[c]).abs() <= 1e-5 * scale.max(1e-30),
                    "form {F} n {n}: J[{row},{c}] = {} vs FD {}",
                    j[(row, c)],
                    fd[row]
                );
            }
        }
        // Nothing outside the active states moves.
        for i in m.active_states()..NX {
            assert_eq!(r[i], 0.0);
            assert!((0..NX).all(|k| j[(i, k)] == 0.0 && j[(k, i)] == 0.0));
        }
    }
}

#[test]
fn form_h() {
    check_form::<0>();
}

#[test]
fn form_g() {
    check_form::<1>();
}

#[test]
fn form_y() {
    check_form::<2>();
}

#[test]
fn form_z() {
    check_form::<3>();
}

/// The oscillation frequency of the slowest lightly damped mode, Hz, from
/// the Jacobian at the steady state.
fn first_mode_hz<const F: u8>(n: i32) -> f64 {
    let m = HoseModel::<F>::configure(&values::<F>(n)).unwrap();
    let k = m.active_states();
    let j = m.jacobian(&m.initial_state());
    let mut a = fmu_core::nalgebra::DMatrix::<f64>::zeros(k, k);
    for r in 0..k {
        for c in 0..k {
            a[(r, c)] = j[(r, c)];
        }
    }
    let eig = a.complex_eigenvalues();
    eig.iter()
        .filter(|e| e.im > 1.0)
        .map(|e| e.im / (2.0 * std::f64::consts::PI))
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn first_modes_near_the_card() {
    // Card: c/(4 L_hose) = 106.0 Hz; H n = 1 resonance 105.7 Hz; H n = 7 97.5 Hz
    // (its ladder with the kn correction); Y resonates at twice H (212 Hz).
    let h1 = first_mode_hz::<0>(1);
    assert!((h1 / 106.0 - 1.0).abs() < 0.01, "H n=1: {h1} Hz");
    let h7 = first_mode_hz::<0>(7);
    assert!((h7 / 98.4 - 1.0).abs() < 0.02, "H n=7: {h7} Hz");
    let y1 = first_mode_hz::<2>(1);
    assert!((y1 / 212.0 - 1.0).abs() < 0.01, "Y n=1: {y1} Hz");
}
