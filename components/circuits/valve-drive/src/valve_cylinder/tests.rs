//! Unit tests of the ValveCylinder model.

use super::*;
use fmu_core::Record;

fn model(quasi_static: bool) -> ValveCylinder {
    let mut p = Params::defaults();
    p.hydraulics.quasi_static = quasi_static;
    ValveCylinder::configure(
        &p,
        &Context::new(&fmu_core::ResourceFolder::Unavailable(String::new())),
    )
    .unwrap()
}

#[test]
fn table_follows_core_conventions_and_validates() {
    let desc = fmu_core::checked_description::<ValveCylinder, NX>().unwrap();
    let names: Vec<&str> = desc.variables.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        &names[..13],
        &[
            "U", "x", "v", "p1", "p2", "pv", "Qv", "Q1", "Q2", "Q3", "F_mu", "Us", "QT"
        ]
    );
    // The hydraulic group, then the carriage group.
    assert_eq!(names[13], "ps");
    assert_eq!(names[13 + 33], "m");
}

#[test]
fn jacobian_matches_finite_differences() {
    let u = Inputs { U: 7.0 };
    for qs in [false, true] {
        let m = model(qs);
        let nominal = m.nominal();
        for x in [
            [6.0, 10.0, 2e-9, 6e6, 3e6, 7.2e6, 0.5, 0.03, 1e-4],
            [-5.0, -3.0, 8e-10, 4e6, 8e6, 9.1e6, 0.4, -0.02, -1e-4],
            [4.0, 2.0, 1e-9, 9e6, 2e6, 1.05e7, 1.00001, 0.001, 5e-5],
        ] {
            let x = SVector::<f64, NX>::from(x);
            let mut j = SMatrix::zeros();
            let (f, analytic) = m.rates_and_jacobian(&u, &x, &mut j);
            assert!(analytic);
            assert_eq!(f, m.rates(&u, &x));
            for c in 0..NX {
                if qs && c == state::drive.index(DriveStates::pv) {
                    continue;
                }
                let rel = if c == state::drive.index(DriveStates::K) {
                    1e-3
                } else {
                    1e-6
                };
                let h = rel * x[c].abs().max(nominal[c] * 1e-3);
                let mut up = x;
                let mut dn = x;
                up[c] += h;
                dn[c] -= h;
                let fd = (m.rates(&u, &up) - m.rates(&u, &dn)) / (2.0 * h);
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
fn initial_state_from_the_model_description() {
    let m = model(false);
    let x0 = m.initial_state(&Inputs { U: 0.0 });
    let drive = state::drive.read(&x0);
    assert_eq!(drive[DriveStates::K], 5e-11);
    assert_eq!(
        (
            drive[DriveStates::p1],
            drive[DriveStates::p2],
            drive[DriveStates::pv]
        ),
        (9e5, 9e5, 9e5)
    );
    assert_eq!(x0[state::carriage.index(CarriageStates::x)], 1.0);
    // K is scaled by its full opening Kmax (see DriveStates).
    assert_eq!(m.nominal()[state::drive.index(DriveStates::K)], 5e-8);
    // The compensator clamp bounds K for the real-time integrator.
    let clamp = fmu_core::Model::clamps(&m)[0];
    assert_eq!(
        (clamp.state, clamp.lower, clamp.upper),
        (state::drive.index(DriveStates::K), 0.0, 5e-8)
    );
}

/// The circuit as parts with ports: the drive (an actuator) on the
/// carriage's flange. The same rates, Jacobian, start and event indicators
/// as the equations written out above, bit for bit.
#[test]
fn composed_from_its_parts_it_gives_the_same_equations_bit_for_bit() {
    let (m, mut u) = fmu_core::default_model::<ValveCylinder, NX>().unwrap();
    let a = m.assembly().unwrap();
    a.check_table::<ValveCylinder>().unwrap();
    a.check_event_indicators(&ValveCylinder::event_indicators())
        .unwrap();
    assert_eq!(a.clamps(), m.clamps());
    let states = fmu_core::testing::sample_states(
        &[-10.0, -1e3, 0.0, 0.0, 0.0, 0.0, -1e-3, -0.1, -1e-4],
        &[10.0, 1e3, 6e-8, 1.4e7, 1.4e7, 1.4e7, 1.001, 0.1, 1e-4],
        200,
    );
    for command in [-7.0, 0.0, 4.5] {
        u.U = command;
        let problems = fmu_core::testing::composition_differences(&m, &u, &a, &[u.U], &states);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
