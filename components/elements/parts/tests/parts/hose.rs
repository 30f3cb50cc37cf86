//! The hose part in its four causal forms: its partial derivatives
//! (through the assembly's chain rule, with respect to its own states and
//! to every boundary value its form reads) against central differences,
//! with each end on a part whose state the boundary value reaches; its
//! start rule as a steady state between the parts that hold the start's
//! flow and pressure; and the causality its ports declare.

use crate::common::{check_jacobian, connect, oil, with_parts};
use fmu_core::compose::{Assembly, Part};
use fmu_core::nalgebra::SVector;
use hydraulics::hose::HoseParameters;
use parts::*;
use std::sync::Arc;

fn hose(form: HoseForm, n: usize, q0: f64, p_start: f64) -> Hose {
    Hose::new(form, &HoseParameters::reference(), n, q0, p_start).unwrap()
}

fn chamber() -> Arc<dyn Part> {
    Arc::new(Chamber::new(2e-4, oil(), 0.0).unwrap())
}

fn orifice() -> Arc<dyn Part> {
    Arc::new(Orifice::circular(0.6, 3e-3, 870.0, 1e4).unwrap())
}

/// The hose (part `hose`) with the other parts, joined by `nodes`.
fn circuit(h: Hose, parts: &[(&str, Arc<dyn Part>)], nodes: &[&[&str]]) -> Assembly {
    let mut all: Vec<(&str, Arc<dyn Part>)> = vec![("hose", Arc::new(h))];
    all.extend(parts.iter().cloned());
    let mut b = with_parts(&all);
    connect(&mut b, nodes);
    b.build().unwrap()
}

/// States around the operating point of 5e-4 m3/s at 100 bar, with
/// reversed flows, large drops along the line, a flow near zero (where
/// the loss `|Q| Q` curves), and low pressures (the laws change slope at
/// the oil's floor of -9.9e4 Pa: the states keep away from it).
fn points<const N: usize>(pressures: usize, flows: usize, extra: &[f64]) -> Vec<SVector<f64, N>> {
    assert_eq!(pressures + flows + extra.len(), N);
    let mut list = Vec::new();
    let cases: [(f64, f64, f64, f64); 6] = [
        (1.0e7, 2e4, 5e-4, 0.0),
        (1.0e7, -3e5, -8e-4, 1e-4),
        (2.5e7, 1e6, 2e-3, -5e-4),
        (3e5, 5e4, 1e-5, 2e-6),
        (1e6, -1e5, -1e-7, 3e-4),
        (-5e4, 1e4, 2e-4, -1e-4),
    ];
    for (p, dp, q, dq) in cases {
        let mut x = SVector::<f64, N>::zeros();
        for i in 0..pressures {
            x[i] = p - dp * i as f64;
        }
        for i in 0..flows {
            x[pressures + i] = q + dq * i as f64;
        }
        for (k, e) in extra.iter().enumerate() {
            x[pressures + flows + k] = e * p / 1e7;
        }
        list.push(x);
    }
    list
}

/// H: a supply pushes oil through an orifice into A (so the flow into
/// the hose depends on A's pressure, a state of the hose); B on a chamber
/// drained through an orifice.
#[test]
fn hose_h_between_an_orifice_and_a_chamber() {
    let a = circuit(
        hose(HoseForm::H, 3, 5e-4, 1e7),
        &[
            ("supply", Arc::new(PressureSource::new(1.2e7).unwrap())),
            ("o1", orifice()),
            ("c", chamber()),
            ("o2", orifice()),
            ("tank", Arc::new(Tank::vented())),
        ],
        &[
            &["supply.P", "o1.A"],
            &["o1.B", "hose.A"],
            &["hose.B", "c.A", "o2.A"],
            &["o2.B", "tank.T"],
        ],
    );
    assert_eq!(
        a.state_names(),
        [
            "hose.p1", "hose.p2", "hose.p3", "hose.q1", "hose.q2", "hose.q3", "c.p"
        ]
    );
    let checked = check_jacobian::<7>(&a, &[], &points(3, 3, &[0.98e7]));
    assert_eq!(checked, 6 * 49);
}

/// G: A on a chamber fed through an orifice; B (the hose's pressure)
/// drained through an orifice.
#[test]
fn hose_g_between_a_chamber_and_an_orifice() {
    let a = circuit(
        hose(HoseForm::G, 3, 5e-4, 1e7),
        &[
            ("supply", Arc::new(PressureSource::new(1.2e7).unwrap())),
            ("o1", orifice()),
            ("c", chamber()),
            ("o2", orifice()),
            ("tank", Arc::new(Tank::vented())),
        ],
        &[
            &["supply.P", "o1.A"],
            &["o1.B", "c.A", "hose.A"],
            &["hose.B", "o2.A"],
            &["o2.B", "tank.T"],
        ],
    );
    assert_eq!(
        a.state_names(),
        [
            "hose.p1", "hose.p2", "hose.p3", "hose.q1", "hose.q2", "hose.q3", "c.p"
        ]
    );
    check_jacobian::<7>(&a, &[], &points(3, 3, &[1.02e7]));
}

/// Y: chambers at both ends, fed and drained through orifices.
#[test]
fn hose_y_between_two_chambers() {
    let a = circuit(
        hose(HoseForm::Y, 2, 5e-4, 1e7),
        &[
            ("supply", Arc::new(PressureSource::new(1.2e7).unwrap())),
            ("o1", orifice()),
            ("ca", chamber()),
            ("cb", chamber()),
            ("o2", orifice()),
            ("tank", Arc::new(Tank::vented())),
        ],
        &[
            &["supply.P", "o1.A"],
            &["o1.B", "ca.A", "hose.A"],
            &["hose.B", "cb.A", "o2.A"],
            &["o2.B", "tank.T"],
        ],
    );
    assert_eq!(
        a.state_names(),
        [
            "hose.p1", "hose.p2", "hose.q1", "hose.q2", "hose.q3", "ca.p", "cb.p"
        ]
    );
    check_jacobian::<7>(&a, &[], &points(2, 3, &[1.03e7, 0.97e7]));
}

/// Z: orifices at both ends (the flows depend on the hose's end
/// pressures).
#[test]
fn hose_z_between_two_orifices() {
    let a = circuit(
        hose(HoseForm::Z, 2, 5e-4, 1e7),
        &[
            ("supply", Arc::new(PressureSource::new(1.2e7).unwrap())),
            ("o1", orifice()),
            ("o2", orifice()),
            ("tank", Arc::new(Tank::vented())),
        ],
        &[
            &["supply.P", "o1.A"],
            &["o1.B", "hose.A"],
            &["hose.B", "o2.A"],
            &["o2.B", "tank.T"],
        ],
    );
    assert_eq!(
        a.state_names(),
        ["hose.p1", "hose.p2", "hose.p3", "hose.q1", "hose.q2"]
    );
    check_jacobian::<5>(&a, &[], &points(3, 2, &[]));
}

/// The largest rate at `x`, each over its state's nominal value per
/// millisecond: zero at a steady state.
fn largest_scaled_rate<const N: usize>(a: &Assembly, x: &SVector<f64, N>) -> f64 {
    let f = a.rates(&[], x);
    (0..N)
        .map(|i| (f[i] * 1e-3 / a.nominal()[i]).abs())
        .fold(0.0, f64::max)
}

/// Every form starts at rest between parts that hold its start's through
/// flow (pumps) and pressure (a pressure source): all flows q0, the
/// pressure falling along the hose by the segments' losses; the flow
/// ports carry q0 in at A and out at B.
#[test]
fn each_form_starts_in_the_steady_state_of_its_start_flow_and_pressure() {
    let (q0, p) = (5e-4, 1e7);
    let pump = || -> Arc<dyn Part> { Arc::new(ConstantFlowPump::new(q0).unwrap()) };
    let source = |p: f64| -> Arc<dyn Part> { Arc::new(PressureSource::new(p).unwrap()) };
    let tank = || -> Arc<dyn Part> { Arc::new(Tank::vented()) };

    // H: q0 pumped into A, B held at p.
    let a = circuit(
        hose(HoseForm::H, 7, q0, p),
        &[("pump", pump()), ("t", tank()), ("s", source(p))],
        &[
            &["t.T", "pump.T"],
            &["pump.P", "hose.A"],
            &["hose.B", "s.P"],
        ],
    );
    let x = a.initial::<14>(&[]);
    assert!(largest_scaled_rate(&a, &x) < 1e-9, "H: {x:?}");
    assert!((0..7).all(|i| x[7 + i] == q0));
    assert!((1..7).all(|i| x[i] < x[i - 1]) && x[6] > p);
    // The scenario HoseH/step_n7's steady state (MODEL.md's start rule).
    assert!((x[0] - 10_068_024.437957566).abs() < 1e-3, "{}", x[0]);

    // G: A held at p, q0 drawn from B by a pump to tank.
    let a = circuit(
        hose(HoseForm::G, 5, q0, p),
        &[("s", source(p)), ("pump", pump()), ("t", tank())],
        &[
            &["s.P", "hose.A"],
            &["hose.B", "pump.T"],
            &["pump.P", "t.T"],
        ],
    );
    let x = a.initial::<10>(&[]);
    assert!(largest_scaled_rate(&a, &x) < 1e-9, "G: {x:?}");
    assert!(x[0] < p && (1..5).all(|i| x[i] < x[i - 1]));

    // Y: A held at p; B held at the pressure of the start's end.
    let h = hose(HoseForm::Y, 4, q0, p);
    let mut scratch = [0.0; 9];
    let end = h.line().steady_state_for_flow(q0, p, &mut scratch);
    assert!(end.p2 < scratch[3] && scratch[3] < scratch[0] && scratch[0] < p);
    let a = circuit(
        h,
        &[("s1", source(p)), ("s2", source(end.p2))],
        &[&["s1.P", "hose.A"], &["hose.B", "s2.P"]],
    );
    let x = a.initial::<9>(&[]);
    assert!(largest_scaled_rate(&a, &x) < 1e-9, "Y: {x:?}");
    // The flows the ends set: q0 in at A, q0 out at B.
    let mut ports = [p, 0.0, end.p2, 0.0];
    hose(HoseForm::Y, 4, q0, p).through(x.as_slice(), &mut ports, None);
    assert_eq!((ports[1], ports[3]), (q0, -q0));

    // Z: q0 pumped in at A and out at B; the last node at p.
    let a = circuit(
        hose(HoseForm::Z, 3, q0, p),
        &[
            ("p1", pump()),
            ("p2", pump()),
            ("t1", tank()),
            ("t2", tank()),
        ],
        &[
            &["t1.T", "p1.T"],
            &["p1.P", "hose.A"],
            &["hose.B", "p2.T"],
            &["p2.P", "t2.T"],
        ],
    );
    let x = a.initial::<7>(&[]);
    assert!(largest_scaled_rate(&a, &x) < 1e-9, "Z: {x:?}");
    assert_eq!(x[3], p);
    assert!(x[0] > x[1] && x[1] > x[2]);
}

/// A flow end needs a pressure at its node; a pressure end refuses
/// another volume there.
#[test]
fn the_ends_declare_the_causality_of_their_form() {
    // G at A sets the flow: two flow setters (an orifice) and no volume.
    let mut b = with_parts(&[
        ("hose", Arc::new(hose(HoseForm::G, 2, 0.0, 0.0))),
        ("o", orifice()),
        ("s", Arc::new(PressureSource::new(1e7).unwrap())),
        ("t", Arc::new(Tank::vented())),
        ("o2", orifice()),
    ]);
    connect(
        &mut b,
        &[
            &["s.P", "o.A"],
            &["o.B", "hose.A"],
            &["hose.B", "o2.A"],
            &["o2.B", "t.T"],
        ],
    );
    let err = b.build().unwrap_err();
    assert!(
        err.contains("causality conflict") && err.contains("o.B, hose.A"),
        "{err}"
    );
    // H at A sets the pressure: a chamber there sets it twice.
    let mut b = with_parts(&[
        ("hose", Arc::new(hose(HoseForm::H, 2, 0.0, 0.0))),
        ("c", chamber()),
        ("c2", chamber()),
    ]);
    connect(&mut b, &[&["c.A", "hose.A"], &["hose.B", "c2.A"]]);
    let err = b.build().unwrap_err();
    assert!(
        err.contains("set twice") && err.contains("c.A, hose.A"),
        "{err}"
    );
}
