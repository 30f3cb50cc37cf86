//! Circuits of several parts against the steady states their laws give
//! in closed form, found by Newton's method on the assembled rates.

use crate::common::{connect, oil, steady, with_parts};
use fmu_core::compose::Assembly;
use fmu_core::nalgebra::SVector;
use parts::*;
use std::sync::Arc;

/// Supply -> o1 -> chamber -> o2 -> tank: in the turbulent regime
/// `k1 sqrt(p_s - p) = k2 sqrt(p - p_t)`, so
/// `p = p_t + (p_s - p_t) k1^2 / (k1^2 + k2^2)`.
#[test]
fn series_orifices_share_the_pressure_drop_by_their_coefficients_squared() {
    let (ps, pt) = (1e7, 2e5);
    let o1 = Orifice::circular(0.6, 1.0e-3, 870.0, 1e4).unwrap();
    let o2 = Orifice::circular(0.6, 1.2e-3, 870.0, 1e4).unwrap();
    let (k1, k2) = (o1.law().k, o2.law().k);
    let expected = pt + (ps - pt) * k1 * k1 / (k1 * k1 + k2 * k2);
    let circuit = |supply_from_input: bool| -> Assembly {
        let mut b = with_parts(&[
            ("o1", Arc::new(o1)),
            ("c", Arc::new(Chamber::new(1e-4, oil(), 0.0).unwrap())),
            ("o2", Arc::new(o2)),
            ("tank", Arc::new(Tank::new(pt).unwrap())),
        ]);
        connect(&mut b, &[&["o1.B", "c.A", "o2.A"], &["o2.B", "tank.T"]]);
        if supply_from_input {
            b.input("p_s", "o1.A", "p").unwrap();
        } else {
            b.part("supply", Arc::new(PressureSource::new(ps).unwrap()))
                .unwrap();
            b.connect(&["supply.P", "o1.A"]).unwrap();
        }
        b.build().unwrap()
    };
    let a = circuit(false);
    let p = steady::<1>(&a, &[], SVector::from([5e6]), &[0])[0];
    assert!((p - expected).abs() <= 1e-9 * ps, "{p} against {expected}");
    // Both drops are turbulent (p_tr = 1e4 Pa), as the formula needs.
    assert!(ps - p > 1e4 && p - pt > 1e4);
    // An FMU input setting the supply node's pressure is the same circuit.
    let with_input = circuit(true);
    assert_eq!(with_input.input_names(), ["p_s"]);
    for x in [2e6, 5e6, 9.995e6] {
        let x = SVector::from([x]);
        assert_eq!(with_input.rates(&[ps], &x), a.rates(&[], &x));
    }
}

/// A pump into a chamber with a relief valve to tank: in the steady
/// state the relief valve passes the whole pump flow, at
/// `ReliefValve::pressure_for(Q)`.
#[test]
fn a_pump_into_a_chamber_settles_at_the_relief_pressure_for_its_flow() {
    let relief = ReliefValve::new(7e6, 1.667e-9, 2e4).unwrap();
    // A constant-flow pump.
    let q = 1e-3;
    let mut b = with_parts(&[
        ("tank", Arc::new(Tank::vented())),
        ("pump", Arc::new(ConstantFlowPump::new(q).unwrap())),
        ("line", Arc::new(Chamber::new(1e-3, oil(), 0.0).unwrap())),
        ("relief", Arc::new(relief)),
    ]);
    connect(
        &mut b,
        &[
            &["tank.T", "pump.T", "relief.T"],
            &["pump.P", "line.A", "relief.P"],
        ],
    );
    let a = b.build().unwrap();
    let p = steady::<1>(&a, &[], SVector::from([7.5e6]), &[0])[0];
    let expected = relief.law().pressure_for(q);
    assert!((p - expected).abs() <= 1e-3, "{p} against {expected}");
    assert!((p - 7.6e6).abs() < 1e3, "{p}");
    // A fixed-displacement pump without leakage, its shaft turned at
    // 1500 rpm by FMU inputs: the flow is D omega.
    let d = hydraulics::displacement_per_radian(20e-6);
    let omega = 1500.0 * std::f64::consts::PI / 30.0;
    let pump = FixedDisplacementPump::new(d, 0.0, 0.01, 0.5, 1.0).unwrap();
    let mut b = with_parts(&[
        ("tank", Arc::new(Tank::vented())),
        ("pump", Arc::new(pump)),
        ("line", Arc::new(Chamber::new(1e-3, oil(), 0.0).unwrap())),
        ("relief", Arc::new(relief)),
    ]);
    connect(
        &mut b,
        &[
            &["tank.T", "pump.T", "relief.T"],
            &["pump.P", "line.A", "relief.P"],
        ],
    );
    b.input("phi", "pump.shaft", "phi")
        .unwrap()
        .input("omega", "pump.shaft", "w")
        .unwrap();
    let a = b.build().unwrap();
    let p = steady::<1>(&a, &[0.0, omega], SVector::from([7.5e6]), &[0])[0];
    let expected = relief.law().pressure_for(d * omega);
    assert!((p - expected).abs() <= 1e-3, "{p} against {expected}");
}

/// A motor between a supply and a tank turning an inertia: steady where
/// the motor's torque `D dp - b_m omega` meets the load's
/// `tau_load + b omega + tau_c` (the dry friction saturated at speed).
#[test]
fn a_motor_on_an_inertia_runs_at_the_speed_where_the_torques_balance() {
    let d = hydraulics::displacement_per_radian(10e-6);
    let (ps, b_m) = (1e7, 0.01);
    let (b_load, tau_c, tau_load) = (0.02, 1.0, 5.0);
    let motor = FixedDisplacementMotor::new(d, 1e-12, b_m, 0.0, 1.0).unwrap();
    let load = Inertia::new(0.05, b_load, tau_c, 0.1, tau_load, 0.0).unwrap();
    let mut b = with_parts(&[
        ("supply", Arc::new(PressureSource::new(ps).unwrap())),
        ("tank", Arc::new(Tank::vented())),
        ("motor", Arc::new(motor)),
        ("drum", Arc::new(load)),
    ]);
    connect(
        &mut b,
        &[
            &["supply.P", "motor.A"],
            &["motor.B", "tank.T"],
            &["motor.shaft", "drum.shaft"],
        ],
    );
    let a = b.build().unwrap();
    assert_eq!(a.state_names(), ["drum.phi", "drum.w"]);
    let expected = (d * ps - tau_load - tau_c) / (b_m + b_load);
    let x = steady::<2>(&a, &[], SVector::from([0.0, 10.0]), &[1]);
    assert!(
        (x[1] - expected).abs() <= 1e-9 * expected,
        "{} against {expected}",
        x[1]
    );
    // The angle turns at that speed.
    assert_eq!(a.rates(&[], &x)[0], x[1]);
    // Without pressure the drum runs down: the load turns it backwards.
    let still = Inertia::new(0.05, b_load, tau_c, 0.1, tau_load, 0.0).unwrap();
    assert!(
        still.law().acceleration(0.0, 0.0, tau_load).accel < 0.0,
        "the load torque opposes positive rotation"
    );
}

/// A cylinder between a supply (A) and a tank (B) lifting a damped mass
/// against gravity: steady at `v = (p_A A1 - p_B A2 - m g) / c`.
#[test]
fn a_cylinder_lifts_a_damped_mass_at_the_speed_where_the_forces_balance() {
    let (a1, a2) = (8.04e-4, 4.24e-4);
    let (pa, pb) = (1e7, 2e5);
    let (m, c, g) = (100.0, 1e4, 9.81);
    let mut b = with_parts(&[
        ("supply", Arc::new(PressureSource::new(pa).unwrap())),
        ("tank", Arc::new(Tank::new(pb).unwrap())),
        ("cyl", Arc::new(Cylinder::new(a1, a2).unwrap())),
        ("load", Arc::new(Mass::new(m, c, -m * g, 0.0).unwrap())),
    ]);
    connect(
        &mut b,
        &[
            &["supply.P", "cyl.A"],
            &["cyl.B", "tank.T"],
            &["cyl.rod", "load.rod"],
        ],
    );
    let a = b.build().unwrap();
    let x = steady::<2>(&a, &[], SVector::from([0.0, 0.0]), &[1]);
    let expected = (pa * a1 - pb * a2 - m * g) / c;
    assert!(
        (x[1] - expected).abs() <= 1e-12,
        "{} against {expected}",
        x[1]
    );
    assert!((expected - 0.6975).abs() < 1e-3);
}

/// Pumping into an accumulator at a constant flow: the pressure rises at
/// `Q / C(p)`, slowly once the gas takes the oil (above the precharge)
/// and fast below it, where only the dead volume's oil is compressed.
#[test]
fn an_accumulator_fills_slowly_above_its_precharge_and_fast_below() {
    let law = hydraulics::GasAccumulator::new(5e6, 4e-3, 1.4, 1.01325e5, 1e5, 1e-4).unwrap();
    let q = 1e-4;
    let mut b = with_parts(&[
        ("tank", Arc::new(Tank::vented())),
        ("pump", Arc::new(ConstantFlowPump::new(q).unwrap())),
        ("acc", Arc::new(Accumulator::new(law, oil(), 1e6).unwrap())),
    ]);
    connect(&mut b, &[&["tank.T", "pump.T"], &["pump.P", "acc.A"]]);
    let a = b.build().unwrap();
    let below = a.rates::<1>(&[], &SVector::from([2e6]))[0];
    assert!((below - oil().value(2e6) / 1e-4 * q).abs() <= 1e-9 * below);
    let above = a.rates::<1>(&[], &SVector::from([1e7]))[0];
    assert_eq!(above, q / law.node_capacitance(&oil(), 1e7).0);
    // Isothermal-like order of magnitude: V0 P0 / P^2 of gas compliance.
    assert!(below / above > 100.0);
}
