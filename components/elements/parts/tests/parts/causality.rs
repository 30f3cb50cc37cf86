//! The causality the parts' ports declare, as the Builder checks it.

use crate::common::{connect, oil, with_parts};
use parts::*;
use std::sync::Arc;

fn orifice() -> Arc<Orifice> {
    Arc::new(Orifice::new(2e-8, 1e4).unwrap())
}

/// Two orifices meeting at a node with nothing to set its pressure: each
/// sets the flow there, so the node needs a volume between them.
#[test]
fn two_orifices_in_series_without_a_chamber_are_a_causality_conflict() {
    let mut b = with_parts(&[
        ("supply", Arc::new(PressureSource::new(1e7).unwrap())),
        ("o1", orifice()),
        ("o2", orifice()),
        ("c", Arc::new(Chamber::new(1e-4, oil(), 0.0).unwrap())),
    ]);
    connect(
        &mut b,
        &[&["supply.P", "o1.A"], &["o1.B", "o2.A"], &["o2.B", "c.A"]],
    );
    let err = b.build().unwrap_err();
    assert!(err.contains("causality conflict"), "{err}");
    assert!(err.contains("o1.B, o2.A"), "{err}");
    assert!(err.contains("put a volume"), "{err}");
}

/// The parts that set a node's across values refuse to share it.
#[test]
fn two_volumes_or_two_masses_at_one_node_set_it_twice() {
    let mut b = with_parts(&[
        ("tank", Arc::new(Tank::vented())),
        ("c", Arc::new(Chamber::new(1e-4, oil(), 0.0).unwrap())),
    ]);
    connect(&mut b, &[&["tank.T", "c.A"]]);
    let err = b.build().unwrap_err();
    assert!(
        err.contains("set twice") && err.contains("tank.T, c.A"),
        "{err}"
    );
    let mut b = with_parts(&[
        ("m1", Arc::new(Mass::new(1.0, 0.0, 0.0, 0.0).unwrap())),
        ("m2", Arc::new(Mass::new(1.0, 0.0, 0.0, 0.0).unwrap())),
    ]);
    connect(&mut b, &[&["m1.rod", "m2.rod"]]);
    assert!(b.build().unwrap_err().contains("set twice"));
}

/// A motor's shaft needs an inertia (or inputs) to set its motion; a
/// cylinder's rod a mass; a counterbalance valve's pilot a pressure.
#[test]
fn shafts_rods_and_pilots_need_their_setters() {
    let mut b = with_parts(&[
        ("supply", Arc::new(PressureSource::new(1e7).unwrap())),
        ("tank", Arc::new(Tank::vented())),
        (
            "motor",
            Arc::new(FixedDisplacementMotor::new(1e-6, 0.0, 0.0, 0.0, 1.0).unwrap()),
        ),
        ("c", Arc::new(Chamber::new(1e-4, oil(), 0.0).unwrap())),
        (
            "spare",
            Arc::new(FixedDisplacementPump::new(1e-6, 0.0, 0.0, 0.0, 1.0).unwrap()),
        ),
    ]);
    connect(
        &mut b,
        &[
            &["supply.P", "motor.A"],
            &["motor.B", "c.A"],
            &["tank.T", "spare.T"],
            &["spare.P", "c.A"],
            &["motor.shaft", "spare.shaft"],
        ],
    );
    let err = b.build().unwrap_err();
    assert!(err.contains("nothing sets the phi and w"), "{err}");
    assert!(err.contains("an inertia"), "{err}");

    let mut b = with_parts(&[
        ("supply", Arc::new(PressureSource::new(1e7).unwrap())),
        ("tank", Arc::new(Tank::vented())),
        ("cyl", Arc::new(Cylinder::new(1e-3, 5e-4).unwrap())),
        ("c", Arc::new(Chamber::new(1e-4, oil(), 0.0).unwrap())),
    ]);
    connect(&mut b, &[&["supply.P", "cyl.A"], &["cyl.B", "tank.T"]]);
    let err = b.build().unwrap_err();
    assert!(
        err.contains("cyl.rod") && err.contains("not connected"),
        "{err}"
    );

    let k = 1e-5;
    let check = hydraulics::CheckValve::new(k, 1e4, 2e5, 2e5, 1e-13).unwrap();
    let cbv = CounterbalanceValve::new(k, 1e4, 2.5e7, 4.0, 1e6, check).unwrap();
    let mut b = with_parts(&[
        ("cbv", Arc::new(cbv)),
        ("load", Arc::new(Chamber::new(1e-3, oil(), 0.0).unwrap())),
        ("tank", Arc::new(Tank::vented())),
        ("o", orifice()),
    ]);
    connect(
        &mut b,
        &[
            &["cbv.load", "load.A"],
            &["cbv.out", "tank.T"],
            &["cbv.pilot", "o.A"],
            &["o.B", "load.A"],
        ],
    );
    let err = b.build().unwrap_err();
    assert!(
        err.contains("causality conflict") && err.contains("cbv.pilot"),
        "{err}"
    );
}
