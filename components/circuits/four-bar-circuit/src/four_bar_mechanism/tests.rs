//! Unit tests of the FourBarMechanism model.

use super::*;
use fmu_core::Record;
use fmu_core::testing::TestMaster;

fn model() -> FourBarMechanism {
    FourBarMechanism::configure(
        &Params::defaults(),
        &Context::new(&fmu_core::ResourceFolder::Unavailable(String::new())),
    )
    .unwrap()
}

#[test]
fn the_holding_force_holds_it_still() {
    let m = model();
    let x0 = m.initial_state(&Inputs::defaults());
    let hold = m.all_outputs(&Inputs::defaults(), &x0).F_hold;
    assert!(
        (hold - (3.393e6 * 2e-3 - 1e6 * 1.8e-3)).abs() < 1.0,
        "{hold}"
    );
    let dx = m.rates(&Inputs { F: hold }, &x0);
    assert!(dx.amax() < 1e-12, "{dx:?}");
    // Without the cylinder it falls: the crank swings down.
    assert!(m.rates(&Inputs { F: 0.0 }, &x0)[state::omega] < 0.0);
}

#[test]
fn swinging_freely_it_keeps_its_energy_and_its_loop_closed() {
    let mut fmu = TestMaster::<FourBarMechanism, NX>::new();
    fmu.set("rtol", 1e-9).unwrap();
    fmu.enter_initialization().unwrap();
    fmu.exit_initialization().unwrap();
    let e0 = fmu.get("E_mech").unwrap();
    let mut lowest = f64::INFINITY;
    for _ in 0..2000 {
        fmu.step(1e-3).unwrap();
        let e = fmu.get("E_mech").unwrap();
        assert!((e - e0).abs() < 1e-6 * e0.abs(), "{e} vs {e0}");
        assert!(fmu.get("loop_residual").unwrap() < 1e-9);
        lowest = lowest.min(fmu.get("theta").unwrap());
    }
    assert!(lowest < -0.3, "it swung down to {lowest} rad only");
}

#[test]
fn jacobian_matches_finite_differences() {
    let m = model();
    let u = Inputs { F: 3000.0 };
    for x in [[0.1, 0.4], [-0.3, -1.0]] {
        let x = SVector::<f64, NX>::from(x);
        let mut j = SMatrix::zeros();
        assert!(m.rates_and_jacobian(&u, &x, &mut j).1);
        for c in 0..NX {
            let h = 1e-6;
            let (mut up, mut dn) = (x, x);
            up[c] += h;
            dn[c] -= h;
            let fd = (m.rates(&u, &up) - m.rates(&u, &dn)) / (2.0 * h);
            for r in 0..NX {
                assert!(
                    (fd[r] - j[(r, c)]).abs() <= 1e-5 * fd[r].abs().max(1e-6),
                    "{r} {c}"
                );
            }
        }
    }
}

#[test]
fn a_linkage_that_cannot_close_is_refused() {
    let mut p = Params::defaults();
    p.linkage.L2 = 2.0;
    let folder = fmu_core::ResourceFolder::Unavailable(String::new());
    let e = FourBarMechanism::configure(&p, &Context::new(&folder)).unwrap_err();
    assert!(e.contains("loop does not close"), "{e}");
}
