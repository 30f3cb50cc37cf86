//! Every part's partial derivatives, through the assembly's chain rule,
//! against central differences of the assembled rates: each part between
//! chambers (so that the partials with respect to every pressure it reads
//! reach a state), at states on both sides of and near its switches.

use crate::common::{check_jacobian, connect, oil, with_parts};
use fmu_core::compose::{Assembly, Part};
use fmu_core::nalgebra::SVector;
use hydraulics::GasAccumulator;
use parts::*;
use std::sync::Arc;

fn chamber(v: f64, p0: f64) -> Arc<dyn Part> {
    Arc::new(Chamber::new(v, oil(), p0).unwrap())
}

fn orifice() -> Arc<dyn Part> {
    Arc::new(Orifice::circular(0.6, 1e-3, 900.0, 1e4).unwrap())
}

fn states<const N: usize>(list: &[[f64; N]]) -> Vec<SVector<f64, N>> {
    list.iter().map(|x| SVector::from_column_slice(x)).collect()
}

/// Source -> orifice -> chamber -> orifice -> tank: the orifice in both
/// regimes and both directions, the chamber above and below 0 Pa (where
/// its bulk modulus stops changing), the source and the tank's constant
/// pressures.
#[test]
fn orifice_chamber_source_and_tank() {
    let mut b = with_parts(&[
        ("supply", Arc::new(PressureSource::new(1e7).unwrap())),
        ("o1", orifice()),
        ("c", chamber(1e-4, 0.0)),
        ("o2", orifice()),
        ("tank", Arc::new(Tank::new(2e5).unwrap())),
    ]);
    connect(
        &mut b,
        &[
            &["supply.P", "o1.A"],
            &["o1.B", "c.A"],
            &["c.A", "o2.A"],
            &["o2.B", "tank.T"],
        ],
    );
    let a = b.build().unwrap();
    // p_tr = 1e4 Pa: o1 switches regime at 9.99e6 Pa and 1.001e7 Pa, o2 at
    // 1.9e5 Pa and 2.1e5 Pa.
    let checked = check_jacobian::<1>(
        &a,
        &[],
        &states(&[
            [5e6],
            [1e7 - 5e3],
            [1e7 - 1.1e4],
            [1e7 - 0.9e4],
            [1e7 + 3e6],
            [2e5 + 500.0],
            [2.2e5],
            [1e5],
            [-1e5],
            [1e7],
        ]),
    );
    assert_eq!(checked, 10);
}

/// A pump fills chamber 1, the relief valve passes it on into chamber 2
/// (so both of its pressures are states), an orifice drains that to tank.
fn relief_circuit() -> Assembly {
    let mut b = with_parts(&[
        ("tank", Arc::new(Tank::vented())),
        ("pump", Arc::new(ConstantFlowPump::new(1e-3).unwrap())),
        ("c1", chamber(1e-3, 0.0)),
        (
            "relief",
            Arc::new(ReliefValve::new(7e6, 1.667e-9, 2e4).unwrap()),
        ),
        ("c2", chamber(1e-4, 0.0)),
        ("drain", orifice()),
    ]);
    connect(
        &mut b,
        &[
            &["tank.T", "pump.T", "drain.B"],
            &["pump.P", "c1.A", "relief.P"],
            &["relief.T", "c2.A", "drain.A"],
        ],
    );
    b.build().unwrap()
}

#[test]
fn relief_valve_and_constant_flow_pump() {
    let a = relief_circuit();
    assert_eq!(a.state_names(), ["c1.p", "c2.p"]);
    check_jacobian::<2>(
        &a,
        &[],
        &states(&[
            [6.5e6, 1e5],
            [7.0e6, 1e5],
            [7.1e6, 1e5],
            [7.05e6, 2e5],
            [8e6, 5e5],
            [5e6, 6e6],
        ]),
    );
}

/// Supply -> orifice -> chamber 1 -> check valve -> chamber 2 -> orifice
/// -> tank.
fn check_circuit() -> (Assembly, CheckValve) {
    let k = hydraulics::Orifice::circular(0.65, 6e-3, 870.0, 1e4).k;
    let valve = CheckValve::new(k, 1e4, 3e5, 2e5, 1e-13).unwrap();
    let mut b = with_parts(&[
        ("supply", Arc::new(PressureSource::new(1e7).unwrap())),
        ("o1", orifice()),
        ("c1", chamber(1e-4, 0.0)),
        ("check", Arc::new(valve)),
        ("c2", chamber(1e-4, 0.0)),
        ("o2", orifice()),
        ("tank", Arc::new(Tank::vented())),
    ]);
    connect(
        &mut b,
        &[
            &["supply.P", "o1.A"],
            &["o1.B", "c1.A", "check.A"],
            &["check.B", "c2.A", "o2.A"],
            &["o2.B", "tank.T"],
        ],
    );
    (b.build().unwrap(), valve)
}

#[test]
fn check_valve_seated_cracking_opening_and_open() {
    let (a, valve) = check_circuit();
    let p2 = 2e6;
    // Reverse, seated, around cracking (3e5), inside the band, around full
    // opening (5e5), fully open.
    let drops = [
        -5e6, -1e5, 0.0, 1e5, 2.99e5, 3.01e5, 4e5, 4.99e5, 5.01e5, 1e6, 2e7,
    ];
    let list: Vec<[f64; 2]> = drops.iter().map(|dp| [p2 + dp, p2]).collect();
    check_jacobian::<2>(&a, &[], &states(&list));
    // The event indicators are the element's switching functions.
    let mut z = [0.0; 2];
    a.event_indicator_values(&[], &[p2 + 4e5, p2], &mut z);
    assert_eq!(z, valve.law().switching(p2 + 4e5, p2));
    assert_eq!(z, [1e5, -1e5]);
    let names: Vec<&str> = a.event_indicators().iter().map(|e| e.1.name).collect();
    assert_eq!(names, ["crack", "open"]);
}

#[test]
fn counterbalance_valve_holding_piloted_open_and_free_flow() {
    let k = hydraulics::Orifice::circular(0.65, 8e-3, 870.0, 1e4).k;
    let check = hydraulics::CheckValve::new(k, 1e4, 2e5, 2e5, 1e-13).unwrap();
    let valve = CounterbalanceValve::new(k, 1e4, 2.5e7, 4.0, 1e6, check).unwrap();
    let mut b = with_parts(&[
        ("cbv", Arc::new(valve)),
        ("load", chamber(1e-3, 0.0)),
        ("out", chamber(1e-4, 0.0)),
        ("pilot", chamber(1e-5, 0.0)),
    ]);
    connect(
        &mut b,
        &[
            &["cbv.load", "load.A"],
            &["cbv.out", "out.A"],
            &["cbv.pilot", "pilot.A"],
        ],
    );
    let a = b.build().unwrap();
    // Holding, cracking by load alone, by pilot (3.75e6), inside the band,
    // around full opening (4e6), open and reversed through the poppet,
    // free flow through the check valve around its cracking (2e5) and
    // full opening (4e5).
    check_jacobian::<3>(
        &a,
        &[],
        &states(&[
            [1.5e7, 1e5, 0.0],
            [2.49e7, 1e5, 0.0],
            [2.501e7, 1e5, 0.0],
            [1e7, 2e5, 3.74e6],
            [1e7, 2e5, 3.76e6],
            [1e7, 2e5, 3.875e6],
            [1e7, 2e5, 3.99e6],
            [1e7, 2e5, 4.01e6],
            [8e6, 1e6, 6e6],
            [2e6, 1e7, 8e6],
            [5e6, 5e6 + 1.99e5, 0.0],
            [5e6, 5e6 + 2.01e5, 0.0],
            [5e6, 5.3e6, 0.0],
            [5e6, 5e6 + 3.99e5, 0.0],
            [5e6, 5e6 + 4.01e5, 0.0],
            [5e6, 2e7, 0.0],
        ]),
    );
    // The pilot takes no flow: its chamber's pressure stays.
    let rates = a.rates::<3>(&[], &SVector::from_column_slice(&[1e7, 2e5, 3.9e6]));
    assert_eq!(rates[2], 0.0);
    assert!(rates[0] < 0.0 && rates[1] > 0.0);
    assert_eq!(a.event_count(), 4);
}

/// 10 cm3/rev with losses of about 95 % volumetric and 90 %
/// hydro-mechanical efficiency at 1500 rpm and 200 bar (the element's
/// example), dry friction regularised over 1 rad/s.
fn machine_losses() -> (f64, f64, f64, f64, f64) {
    let d = hydraulics::displacement_per_radian(1e-5);
    let (omega, dp) = (157.0, 2e7);
    let loss = (1.0 / 0.9 - 1.0) * d * dp;
    (
        d,
        0.05 * d * omega / dp,
        0.1 * loss / omega,
        0.9 * loss,
        1.0,
    )
}

fn inertia() -> Arc<dyn Part> {
    Arc::new(Inertia::new(0.05, 0.01, 0.5, 0.1, 2.0, 0.0).unwrap())
}

/// Running, at rest and creeping (the dry friction's steep part of both
/// the machine and the inertia), back-driven, pressures reversed.
const MACHINE_STATES: [[f64; 4]; 6] = [
    [0.3, 157.0, 2e7, 1e5],
    [0.0, 0.0, 2e7, 1e5],
    [0.0, 0.03, 1e7, 1e5],
    [0.0, 0.3, 1e7, 2e4],
    [2.0, -2.0, 1e6, 2e6],
    [1.0, -157.0, 5e6, 1e5],
];

#[test]
fn fixed_displacement_pump_on_an_inertia() {
    let (d, c, b_visc, tau_c, w_reg) = machine_losses();
    let mut b = with_parts(&[
        (
            "pump",
            Arc::new(FixedDisplacementPump::new(d, c, b_visc, tau_c, w_reg).unwrap()),
        ),
        ("drive", inertia()),
        ("cp", chamber(1e-4, 0.0)),
        ("ct", chamber(1e-4, 0.0)),
    ]);
    connect(
        &mut b,
        &[
            &["pump.shaft", "drive.shaft"],
            &["pump.P", "cp.A"],
            &["pump.T", "ct.A"],
        ],
    );
    let a = b.build().unwrap();
    assert_eq!(a.state_names(), ["drive.phi", "drive.w", "cp.p", "ct.p"]);
    check_jacobian::<4>(&a, &[], &states(&MACHINE_STATES));
}

#[test]
fn fixed_displacement_motor_on_an_inertia() {
    let (d, c, b_visc, tau_c, w_reg) = machine_losses();
    let mut b = with_parts(&[
        (
            "motor",
            Arc::new(FixedDisplacementMotor::new(d, c, b_visc, tau_c, w_reg).unwrap()),
        ),
        ("load", inertia()),
        ("ca", chamber(1e-4, 0.0)),
        ("cb", chamber(1e-4, 0.0)),
    ]);
    connect(
        &mut b,
        &[
            &["motor.shaft", "load.shaft"],
            &["motor.A", "ca.A"],
            &["motor.B", "cb.A"],
        ],
    );
    let a = b.build().unwrap();
    assert_eq!(a.state_names(), ["load.phi", "load.w", "ca.p", "cb.p"]);
    check_jacobian::<4>(&a, &[], &states(&MACHINE_STATES));
}

#[test]
fn accumulator_below_through_and_above_its_precharge_band() {
    let law = GasAccumulator::new(5e6, 4e-3, 1.4, 1.01325e5, 1e5, 1e-4).unwrap();
    let mut b = with_parts(&[
        ("supply", Arc::new(PressureSource::new(2e7).unwrap())),
        ("o", orifice()),
        ("acc", Arc::new(Accumulator::new(law, oil(), 1e6).unwrap())),
    ]);
    connect(&mut b, &[&["supply.P", "o.A"], &["o.B", "acc.A"]]);
    let a = b.build().unwrap();
    // The band is [4.95e6, 5.05e6].
    check_jacobian::<1>(
        &a,
        &[],
        &states(&[
            [1e6],
            [4.949e6],
            [4.951e6],
            [4.99e6],
            [5e6],
            [5.03e6],
            [5.049e6],
            [5.051e6],
            [1e7],
            [2e7 - 5e3],
            [2.5e7],
        ]),
    );
    let mut z = [0.0; 2];
    a.event_indicator_values(&[], &[4.949e6], &mut z);
    assert_eq!(z, law.switching(4.949e6));
    assert!(z[0] < 0.0 && z[1] < 0.0);
    assert_eq!(a.initial::<1>(&[])[0], 1e6);
}

#[test]
fn cylinder_between_chambers_on_a_mass_with_end_stops() {
    let mass = Mass::new(100.0, 500.0, -981.0, 0.1)
        .unwrap()
        .with_stops(0.0, 0.5, 1e8, 2e5)
        .unwrap();
    let mut b = with_parts(&[
        ("cyl", Arc::new(Cylinder::new(8.04e-4, 4.24e-4).unwrap())),
        ("ca", chamber(5e-4, 0.0)),
        ("cb", chamber(3e-4, 0.0)),
        ("load", Arc::new(mass)),
    ]);
    connect(
        &mut b,
        &[
            &["cyl.A", "ca.A"],
            &["cyl.B", "cb.A"],
            &["cyl.rod", "load.rod"],
        ],
    );
    let a = b.build().unwrap();
    assert_eq!(a.state_names(), ["ca.p", "cb.p", "load.s", "load.v"]);
    // Free between the stops both ways, pressed into the upper stop
    // (moving in and moving out slowly), into the lower one.
    check_jacobian::<4>(
        &a,
        &[],
        &states(&[
            [5e6, 1e6, 0.25, 0.1],
            [1e6, 5e6, 0.25, -0.2],
            [1e7, 1e5, 0.5 + 1e-4, 0.01],
            [1e7, 1e5, 0.5 + 1e-4, -0.01],
            [1e5, 1e7, -2e-4, -0.01],
        ]),
    );
    let mut z = [0.0; 2];
    a.event_indicator_values(&[], &[1e7, 0.0, 0.5 + 1e-4, 0.0], &mut z);
    assert!(z[0] > 0.0 && z[1] < 0.0, "{z:?}");
    assert_eq!(a.initial::<4>(&[]).as_slice(), [0.0, 0.0, 0.1, 0.0]);
}

fn cylinder_law() -> hydraulics::Cylinder {
    hydraulics::Cylinder {
        a1: 8.04e-4,
        a2: 4.24e-4,
        stroke: 0.5,
        v_dead_a: 1e-4,
        v_dead_b: 2e-4,
    }
}

/// Supply -> orifice -> cylinder with its chambers -> orifice -> tank,
/// the rod on a mass between stops at the cylinder's ends.
fn chamber_cylinder_circuit(s0: f64) -> Assembly {
    let cylinder = ChamberCylinder::new(cylinder_law(), oil(), 1e5, 1e5).unwrap();
    let mass = Mass::new(100.0, 500.0, -981.0, s0)
        .unwrap()
        .with_stops(0.0, 0.5, 1e8, 2e5)
        .unwrap();
    let mut b = with_parts(&[
        ("supply", Arc::new(PressureSource::new(1e7).unwrap())),
        ("tank", Arc::new(Tank::vented())),
        ("oa", orifice()),
        ("ob", orifice()),
        ("cyl", Arc::new(cylinder)),
        ("load", Arc::new(mass)),
    ]);
    connect(
        &mut b,
        &[
            &["supply.P", "oa.A"],
            &["oa.B", "cyl.A"],
            &["cyl.B", "ob.A"],
            &["ob.B", "tank.T"],
            &["cyl.rod", "load.rod"],
        ],
    );
    b.build().unwrap()
}

#[test]
fn chamber_cylinder_through_its_stroke_and_into_its_stops() {
    let a = chamber_cylinder_circuit(0.1);
    assert_eq!(a.state_names(), ["cyl.p_A", "cyl.p_B", "load.s", "load.v"]);
    check_jacobian::<4>(
        &a,
        &[],
        &states(&[
            [5e6, 1e6, 0.25, 0.1],
            [1e6, 5e6, 0.05, -0.2],
            [9.995e6, 3e3, 0.45, 0.0],
            [1e7, 1e5, 0.5 + 1e-4, 0.01],
            [1e5, 1e7, -2e-4, -0.01],
        ]),
    );
    assert_eq!(a.initial::<4>(&[]).as_slice(), [1e5, 1e5, 0.1, 0.0]);
}

/// At any one position, the cylinder with its chambers is the plain
/// cylinder between two chambers of its volumes there.
#[test]
fn chamber_cylinder_is_the_plain_cylinder_between_chambers_of_its_volumes() {
    let law = cylinder_law();
    let with_chambers = chamber_cylinder_circuit(0.0);
    for [pa, pb, s, v] in [
        [5e6, 1e6, 0.25, 0.1],
        [1e6, 5e6, 0.05, -0.2],
        [8e6, 2e6, 0.4, 0.3],
    ] {
        let mass = Mass::new(100.0, 500.0, -981.0, 0.0)
            .unwrap()
            .with_stops(0.0, 0.5, 1e8, 2e5)
            .unwrap();
        let mut b = with_parts(&[
            ("supply", Arc::new(PressureSource::new(1e7).unwrap())),
            ("tank", Arc::new(Tank::vented())),
            ("oa", orifice()),
            ("ob", orifice()),
            ("cyl", Arc::new(Cylinder::new(law.a1, law.a2).unwrap())),
            ("ca", chamber(law.volume_a(s), 0.0)),
            ("cb", chamber(law.volume_b(s), 0.0)),
            ("load", Arc::new(mass)),
        ]);
        connect(
            &mut b,
            &[
                &["supply.P", "oa.A"],
                &["oa.B", "cyl.A", "ca.A"],
                &["cyl.B", "ob.A", "cb.A"],
                &["ob.B", "tank.T"],
                &["cyl.rod", "load.rod"],
            ],
        );
        let plain = b.build().unwrap();
        let x = SVector::from([pa, pb, s, v]);
        let (f, g) = (with_chambers.rates(&[], &x), plain.rates(&[], &x));
        for r in 0..4 {
            assert!(
                (f[r] - g[r]).abs() <= 1e-12 * f[r].abs().max(1e-300),
                "rate {r} at {x:?}: {} against {}",
                f[r],
                g[r]
            );
        }
    }
}

/// A spool commanded by an FMU input opens a directional valve between
/// four chambers (so that every pressure it reads is a state).
#[test]
fn spool_and_directional_valve_through_the_deadband_and_both_ways() {
    let valve =
        DirectionalValve::new(2.315e-9, hydraulics::Opening::Deadband { ud: 2.0 }, 1e5).unwrap();
    let mut b = with_parts(&[
        ("spool", Arc::new(Spool::new(0.99, 331.0, 0.62).unwrap())),
        ("valve", Arc::new(valve)),
        ("cp", chamber(1e-4, 0.0)),
        ("ca", chamber(1e-4, 0.0)),
        ("cb", chamber(1e-4, 0.0)),
        ("ct", chamber(1e-4, 0.0)),
    ]);
    connect(
        &mut b,
        &[
            &["spool.Us", "valve.Us"],
            &["valve.P", "cp.A"],
            &["valve.A", "ca.A"],
            &["valve.B", "cb.A"],
            &["valve.T", "ct.A"],
        ],
    );
    b.input("U", "spool.U", "value").unwrap();
    let a = b.build().unwrap();
    assert_eq!(
        a.state_names(),
        ["spool.Us", "spool.dUs", "cp.p", "ca.p", "cb.p", "ct.p"]
    );
    // Closed in the deadband, opening both ways, the edges' flows in both
    // directions and in the orifice's laminar band (p_tr = 1e5 Pa).
    check_jacobian::<6>(
        &a,
        &[3.0],
        &states(&[
            [0.0, 0.0, 1e7, 5e6, 4e6, 2e5],
            [5.0, 100.0, 1e7, 5e6, 4e6, 2e5],
            [-6.0, -50.0, 1e7, 5e6, 4e6, 2e5],
            [8.0, 0.0, 3e6, 5e6, 4e6, 4.5e6],
            [-8.0, 0.0, 5e6, 5e6 - 3e4, 2e5 + 5e4, 2e5],
            [2.5, 0.0, 1e7, 1e7 - 5e4, 3e6, 3e6 + 2e4],
        ]),
    );
    let mut z = [0.0; 4];
    a.event_indicator_values(&[3.0], &[5.0, 0.0, 1e7, 5e6, 4e6, 2e5], &mut z);
    assert_eq!(z, valve.law().edge_switching(5.0));
    // Mass conservation: what leaves P and B arrives at A and T.
    let x = SVector::from([5.0, 0.0, 1e7, 5e6, 4e6, 2e5]);
    let f = a.rates::<6>(&[3.0], &x);
    let flow = |k: usize| f[k] / (oil().value(x[k]) / 1e-4);
    assert!((flow(2) + flow(3) + flow(4) + flow(5)).abs() <= 1e-12 * flow(3).abs());
    assert!(flow(3) > 0.0 && flow(2) < 0.0);
}

/// The compensator between a supply chamber and the small volume it
/// regulates, its pilots on two load chambers (so that the supply, the
/// regulated and both load pressures are states): the throttle in both
/// regimes of its orifice law, K inside its range and held on its bounds,
/// the shuttle on either side.
#[test]
fn pressure_compensator_inside_and_on_its_clamp_both_shuttle_sides() {
    let law = hydraulics::PressureCompensator {
        c1: 4.65e7,
        c2: -1.79e4,
        c3: 4.0e11,
        c5: 1e6,
        k_max: 5e-8,
        p_tr: 1e5,
    };
    let mut b = with_parts(&[
        ("cs", chamber(1e-3, 0.0)),
        (
            "comp",
            Arc::new(PressureCompensator::new(law, 5e-11).unwrap()),
        ),
        ("cv", chamber(1e-5, 0.0)),
        ("ca", chamber(1e-3, 0.0)),
        ("cb", chamber(1e-3, 0.0)),
        ("drain", orifice()),
        ("tank", Arc::new(Tank::new(9e5).unwrap())),
    ]);
    connect(
        &mut b,
        &[
            &["cs.A", "comp.P"],
            &["comp.A", "cv.A", "drain.A"],
            &["drain.B", "tank.T"],
            &["comp.LA", "ca.A"],
            &["comp.LB", "cb.A"],
        ],
    );
    let a = b.build().unwrap();
    assert_eq!(a.state_names(), ["cs.p", "comp.K", "cv.p", "ca.p", "cb.p"]);
    assert_eq!(a.clamps().len(), 1);
    let checked = check_jacobian::<5>(
        &a,
        &[],
        &states(&[
            // K free, the drop above p_tr, shuttle on A, then on B.
            [1.4e7, 2e-9, 7e6, 6e6, 3e6],
            [1.4e7, 2e-9, 9e6, 2e6, 8e6],
            // The drop inside p_tr (the laminar cubic).
            [1.4e7, 3e-8, 1.4e7 - 5e4, 1.2e7, 1e7],
            // Reverse drop (pv above ps).
            [5e6, 1e-9, 6e6, 1e6, 4.5e6],
            // Held just past K = 0 (pv far above the margin) and just past
            // K = K_max (pv far below it), where the clamp holds K (on the
            // bound itself the law has a kink).
            [1.4e7, -1e-10, 1.3e7, 2e6, 1e6],
            [1.4e7, 5e-8 + 1e-10, 2e6, 9e6, 1e6],
        ]),
    );
    assert_eq!(checked, 6 * 25);
    let mut z = [0.0; 1];
    a.event_indicator_values(&[], &[1.4e7, 1e-9, 7e6, 6e6, 3e6], &mut z);
    assert_eq!(z[0], 6e6 - 3e6);
}

/// A cylinder between chambers on a mass with LuGre friction and end
/// stops: sliding both ways, sticking near rest (the Stribeck hump), and
/// pressed into each stop.
#[test]
fn cylinder_on_a_lugre_mass_sliding_sticking_and_on_its_stops() {
    let friction = hydraulics::LuGre {
        sigma0: 2.15e6,
        sigma1: 6.368,
        kv: 1280.0,
        fc: 320.0,
        fs: 364.0,
        vs: 3.47e-3,
    };
    let stops = hydraulics::EndStops {
        x_min: 0.0,
        x_max: 1.0,
        stiffness: 1e8,
        damping: 2e5,
    };
    let mut b = with_parts(&[
        ("cyl", Arc::new(Cylinder::new(8.04e-4, 4.24e-4).unwrap())),
        ("ca", chamber(5e-4, 0.0)),
        ("cb", chamber(3e-4, 0.0)),
        (
            "load",
            Arc::new(LuGreMass::new(200.0, friction, stops, 0.5).unwrap()),
        ),
    ]);
    connect(
        &mut b,
        &[
            &["cyl.A", "ca.A"],
            &["cyl.B", "cb.A"],
            &["cyl.rod", "load.rod"],
        ],
    );
    let a = b.build().unwrap();
    assert_eq!(
        a.state_names(),
        ["ca.p", "cb.p", "load.s", "load.v", "load.z"]
    );
    check_jacobian::<5>(
        &a,
        &[],
        &states(&[
            [5e6, 1e6, 0.5, 0.02, 1.5e-4],
            [1e6, 5e6, 0.5, -0.03, -1.5e-4],
            [2e6, 2e6, 0.3, 2e-3, 5e-5],
            [2e6, 2e6, 0.3, -1e-3, -1e-4],
            [1e7, 1e5, 1.0 + 1e-4, 0.01, 1e-4],
            [1e5, 1e7, -2e-4, -0.01, -1e-4],
        ]),
    );
    let mut z = [0.0; 2];
    a.event_indicator_values(&[], &[1e7, 0.0, 1.0 + 1e-4, 0.0, 0.0], &mut z);
    assert!(z[0] > 0.0 && z[1] < 0.0, "{z:?}");
    assert_eq!(a.initial::<5>(&[]).as_slice(), [0.0, 0.0, 0.5, 0.0, 0.0]);
}

/// The mass's dry friction `F_c tanh(v / v_c)`: across its steep slope
/// at rest and where it saturates, with the friction force on its
/// optional signal port.
#[test]
fn cylinder_on_a_mass_with_dry_friction() {
    let mass = Mass::new(110.0, 1000.0, -1079.1, 0.1)
        .unwrap()
        .with_dry_friction(300.0, 1e-3)
        .unwrap();
    assert!((mass.dry_friction(1e-3) - 300.0 * 1f64.tanh()).abs() < 1e-12);
    assert_eq!(mass.dry_friction(0.0), 0.0);
    let mut b = with_parts(&[
        ("cyl", Arc::new(Cylinder::new(1.18e-3, 1.18e-3).unwrap())),
        ("ca", chamber(5e-4, 0.0)),
        ("cb", chamber(3e-4, 0.0)),
        ("load", Arc::new(mass)),
    ]);
    connect(
        &mut b,
        &[
            &["cyl.A", "ca.A"],
            &["cyl.B", "cb.A"],
            &["cyl.rod", "load.rod"],
        ],
    );
    let a = b.build().unwrap();
    check_jacobian::<4>(
        &a,
        &[],
        &states(&[
            [5e6, 1e6, 0.25, 4e-4],
            [1e6, 5e6, 0.25, -7e-4],
            [2e6, 1e6, 0.25, 0.5],
            [2e6, 1e6, 0.25, -2e-3],
        ]),
    );
}
