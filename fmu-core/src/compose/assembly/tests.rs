//! The assembly on toy parts (linear laws, so that every expected value is
//! written out): a supply through an orifice into a chamber that drives a
//! cylinder moving a mass on a spring.

use super::*;
use crate::compose::{Builder, Causality, Part, PartClamp, Port, StateSpec};
use std::sync::Arc;

/// dp/dt = k * (net inflow), k = B / V.
#[derive(Debug)]
struct Chamber {
    k: f64,
    p0: f64,
}

const CHAMBER_PORTS: [Port; 1] = [Port::hydraulic_volume("A", "the chamber")];
const CHAMBER_STATES: [StateSpec; 1] = [StateSpec::new("p", 1e7)];

impl Part for Chamber {
    fn ports(&self) -> &[Port] {
        &CHAMBER_PORTS
    }
    fn states(&self) -> &[StateSpec] {
        &CHAMBER_STATES
    }
    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        x[0] = self.p0;
    }
    fn across(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        ports[0] = x[0];
        if let Some(d) = d {
            *d.state(0, 0) = 1.0;
        }
    }
    fn rates(&self, _x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        dx[0] = self.k * ports[1];
        if let Some(d) = d {
            *d.slot(0, 1) = self.k;
        }
    }
    fn clamps(&self) -> Vec<PartClamp> {
        vec![PartClamp {
            state: 0,
            lower: 0.0,
            upper: 4e7,
        }]
    }
}

/// q = g (pA - pB) from A to B: into the part at A, out of it at B.
#[derive(Debug)]
struct Orifice {
    g: f64,
}

const ORIFICE_PORTS: [Port; 2] = [
    Port::hydraulic("A", "inlet"),
    Port::hydraulic("B", "outlet"),
];

impl Part for Orifice {
    fn ports(&self) -> &[Port] {
        &ORIFICE_PORTS
    }
    fn through(&self, _x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        let q = self.g * (ports[0] - ports[2]);
        ports[1] = q;
        ports[3] = -q;
        if let Some(d) = d {
            *d.slot(1, 0) = self.g;
            *d.slot(1, 2) = -self.g;
            *d.slot(3, 0) = -self.g;
            *d.slot(3, 2) = self.g;
        }
    }
    fn rates(&self, _x: &[f64], _ports: &[f64], _dx: &mut [f64], _d: Option<&mut Partials<'_>>) {}
}

/// A piston of area `a`: the chamber's flow into it is a v (it takes the
/// volume the rod sweeps), its force on the rod is p a (the force into
/// the part at the rod is -p a).
#[derive(Debug)]
struct Piston {
    a: f64,
}

const PISTON_PORTS: [Port; 2] = [Port::hydraulic("A", "chamber"), Port::flange("rod", "rod")];

impl Part for Piston {
    fn ports(&self) -> &[Port] {
        &PISTON_PORTS
    }
    fn through(&self, _x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        // slots: A: p 0, q 1; rod: s 2, v 3, f 4
        ports[1] = self.a * ports[3];
        ports[4] = -ports[0] * self.a;
        if let Some(d) = d {
            *d.slot(1, 3) = self.a;
            *d.slot(4, 0) = -self.a;
        }
    }
    fn rates(&self, _x: &[f64], _ports: &[f64], _dx: &mut [f64], _d: Option<&mut Partials<'_>>) {}
}

/// A mass `m` on a spring `c` to ground, with an end stop indicator at
/// s = 1.
#[derive(Debug)]
struct Mass {
    m: f64,
    c: f64,
}

const MASS_PORTS: [Port; 1] = [Port::flange_mass("rod", "the mass")];
const MASS_STATES: [StateSpec; 2] = [StateSpec::new("s", 1.0), StateSpec::new("v", 1.0)];
const MASS_EVENTS: [EventIndicator; 1] = [EventIndicator {
    name: "stop",
    description: "1 - s",
    offset: 0.0,
}];

impl Part for Mass {
    fn ports(&self) -> &[Port] {
        &MASS_PORTS
    }
    fn states(&self) -> &[StateSpec] {
        &MASS_STATES
    }
    fn event_indicators(&self) -> &[EventIndicator] {
        &MASS_EVENTS
    }
    fn derived(&self) -> Vec<Derived> {
        vec![Derived::positive("m", "kg", self.m)]
    }
    fn across(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        ports[0] = x[0];
        ports[1] = x[1];
        if let Some(d) = d {
            *d.state(0, 0) = 1.0;
            *d.state(1, 1) = 1.0;
        }
    }
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        dx[0] = x[1];
        dx[1] = (ports[2] - self.c * x[0]) / self.m;
        if let Some(d) = d {
            *d.state(0, 1) = 1.0;
            *d.state(1, 0) = -self.c / self.m;
            *d.slot(1, 2) = 1.0 / self.m;
        }
    }
    fn event_indicator_values(&self, x: &[f64], _ports: &[f64], z: &mut [f64]) {
        z[0] = 1.0 - x[0];
    }
}

fn drive() -> Builder {
    let mut b = Builder::new();
    b.part("orifice", Arc::new(Orifice { g: 2e-11 }))
        .unwrap()
        .part("chamber", Arc::new(Chamber { k: 1.5e12, p0: 1e6 }))
        .unwrap()
        .part("piston", Arc::new(Piston { a: 1e-3 }))
        .unwrap()
        .part("mass", Arc::new(Mass { m: 10.0, c: 1e4 }))
        .unwrap();
    b.connect(&["orifice.B", "chamber.A", "piston.A"])
        .unwrap()
        .connect(&["piston.rod", "mass.rod"])
        .unwrap()
        .input("ps", "orifice.A", "p")
        .unwrap();
    b
}

fn evaluate(a: &Assembly, u: &[f64], x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = a.state_count();
    let mut dx = vec![0.0; n];
    let mut j = vec![0.0; n * n];
    a.evaluate(u, x, &mut dx, Some((&mut j, n)));
    (dx, j)
}

#[test]
fn states_are_laid_out_part_by_part() {
    let a = drive().build().unwrap();
    assert_eq!(a.state_names(), ["chamber.p", "mass.s", "mass.v"]);
    assert_eq!(a.nominal(), [1e7, 1.0, 1.0]);
    assert_eq!(a.states_of("mass"), Some(1..3));
    assert_eq!(a.input_names(), ["ps"]);
    assert!(a.check_layout(&["chamber.p", "mass.s", "mass.v"]).is_ok());
    let err = a
        .check_layout(&["mass.s", "mass.v", "chamber.p"])
        .unwrap_err();
    assert!(err.contains("[chamber.p, mass.s, mass.v]"), "{err}");
    assert_eq!(a.clamps()[0].state, 0);
    assert_eq!(a.derived()[0].name, "m");
    let nodes = a.nodes();
    assert_eq!(nodes.len(), 3);
    assert!(nodes.contains(&(
        Domain::Hydraulic,
        vec!["orifice.B".into(), "chamber.A".into(), "piston.A".into()]
    )));
}

#[test]
fn rates_follow_the_parts_laws_through_the_nodes() {
    let a = drive().build().unwrap();
    let (ps, p, s, v) = (1e7, 2e6, 0.1, 0.3);
    let mut dx = vec![0.0; 3];
    a.evaluate(&[ps], &[p, s, v], &mut dx, None);
    // chamber: inflow from the orifice minus what the piston sweeps
    let net = 2e-11 * (ps - p) - 1e-3 * v;
    assert_eq!(dx[0], 1.5e12 * net);
    assert_eq!(dx[1], v);
    assert_eq!(dx[2], (p * 1e-3 - 1e4 * s) / 10.0);
    let mut x0 = vec![0.0; 3];
    a.initial_state(&[ps], &mut x0);
    assert_eq!(x0, [1e6, 0.0, 0.0]);
    let mut z = [0.0];
    a.event_indicator_values(&[ps], &[p, s, v], &mut z);
    assert_eq!(z, [0.9]);
    assert_eq!(a.event_count(), 1);
    assert_eq!(a.event_indicators()[0].0, "mass");
}

#[test]
fn the_jacobian_from_the_parts_partials_matches_central_differences() {
    let a = drive().build().unwrap();
    let u = [1e7];
    let x = [2e6, 0.1, 0.3];
    let (dx, j) = evaluate(&a, &u, &x);
    let mut plain = vec![0.0; 3];
    a.evaluate(&u, &x, &mut plain, None);
    assert_eq!(
        dx, plain,
        "the rates do not depend on asking for the Jacobian"
    );
    for c in 0..3 {
        let h = 1e-6 * x[c].abs().max(1.0);
        let (mut up, mut down) = (x, x);
        up[c] += h;
        down[c] -= h;
        let (mut fu, mut fd) = (vec![0.0; 3], vec![0.0; 3]);
        a.evaluate(&u, &up, &mut fu, None);
        a.evaluate(&u, &down, &mut fd, None);
        for r in 0..3 {
            let fdiff = (fu[r] - fd[r]) / (2.0 * h);
            let scale = fdiff.abs().max(1e-9 * (1.0 + j[c * 3 + r].abs()));
            assert!(
                (j[c * 3 + r] - fdiff).abs() <= 1e-6 * scale.max(1.0),
                "J[{r},{c}] = {} against {fdiff}",
                j[c * 3 + r]
            );
        }
    }
    // the coupling entries, written out
    // (column-major: J[r, c] is j[c * 3 + r])
    assert_eq!(j[0], 1.5e12 * -2e-11); // d(dp/dt)/dp through the orifice
    assert_eq!(j[2 * 3], 1.5e12 * -1e-3); // d(dp/dt)/dv through the piston
    assert_eq!(j[2], (1.0 / 10.0) * 1e-3); // d(dv/dt)/dp through the rod
    assert_eq!(j[3], 0.0); // d(dp/dt)/ds
}

#[test]
fn a_node_with_two_flow_setters_and_no_volume_is_a_causality_conflict() {
    let mut b = Builder::new();
    b.part("o1", Arc::new(Orifice { g: 1.0 }))
        .unwrap()
        .part("o2", Arc::new(Orifice { g: 1.0 }))
        .unwrap()
        .part("v", Arc::new(Chamber { k: 1.0, p0: 0.0 }))
        .unwrap();
    b.connect(&["o1.B", "o2.A"]).unwrap();
    b.connect(&["o2.B", "v.A"]).unwrap();
    b.input("ps", "o1.A", "p").unwrap();
    let err = b.build().unwrap_err();
    assert!(err.contains("causality conflict"), "{err}");
    assert!(err.contains("o1.B, o2.A"), "{err}");
    assert!(err.contains("put a volume"), "{err}");
}

#[test]
fn bad_circuits_are_refused_with_the_ports_named() {
    // unconnected port
    let mut b = drive();
    b.part("spare", Arc::new(Chamber { k: 1.0, p0: 0.0 }))
        .unwrap();
    let err = b.build().unwrap_err();
    assert!(err.contains("port spare.A"), "{err}");
    assert!(err.contains("not connected"), "{err}");
    // two setters of one pressure
    let mut b = drive();
    b.part("other", Arc::new(Chamber { k: 1.0, p0: 0.0 }))
        .unwrap();
    b.connect(&["chamber.A", "other.A"]).unwrap();
    let err = b.build().unwrap_err();
    assert!(err.contains("set twice"), "{err}");
    assert!(err.contains("chamber.A, other.A"), "{err}");
    // an input on a node a part sets already
    let mut b = drive();
    b.input("p_extra", "chamber.A", "p").unwrap();
    let err = b.build().unwrap_err();
    assert!(err.contains("set twice"), "{err}");
    assert!(err.contains("p_extra"), "{err}");
    // mixed domains
    let mut b = drive();
    b.connect(&["mass.rod", "chamber.A"]).unwrap();
    let err = b.build().unwrap_err();
    assert!(err.contains("one domain"), "{err}");
    // a flange whose motion nothing sets
    let mut b = Builder::new();
    b.part("piston", Arc::new(Piston { a: 1.0 }))
        .unwrap()
        .part("v", Arc::new(Chamber { k: 1.0, p0: 0.0 }))
        .unwrap();
    b.connect(&["piston.A", "v.A"]).unwrap();
    let err = b.build().unwrap_err();
    assert!(err.contains("not connected"), "{err}");
    // names
    let mut b = Builder::new();
    b.part("orifice", Arc::new(Orifice { g: 1.0 })).unwrap();
    assert!(b.part("orifice", Arc::new(Orifice { g: 1.0 })).is_err());
    assert!(b.part("2nd", Arc::new(Orifice { g: 1.0 })).is_err());
    let err = b.connect(&["orifice.C", "orifice.A"]).unwrap_err();
    assert!(
        err.contains("has no port 'C'") && err.contains("A, B"),
        "{err}"
    );
    let err = b.connect(&["pump.P", "orifice.A"]).unwrap_err();
    assert!(err.contains("no part 'pump'"), "{err}");
    let err = b.connect(&["orifice"]).unwrap_err();
    assert!(err.contains("two ports"), "{err}");
    let err = b.input("u", "orifice.A", "v").unwrap_err();
    assert!(err.contains("no variable 'v'"), "{err}");
    // no state at all
    let mut b = Builder::new();
    b.part("orifice", Arc::new(Orifice { g: 1.0 })).unwrap();
    b.input("pa", "orifice.A", "p").unwrap();
    b.input("pb", "orifice.B", "p").unwrap();
    let err = b.build().unwrap_err();
    assert!(err.contains("no state"), "{err}");
}

#[test]
fn a_flange_driven_by_inputs_needs_both_position_and_velocity() {
    let mut b = Builder::new();
    b.part("piston", Arc::new(Piston { a: 1e-3 }))
        .unwrap()
        .part("chamber", Arc::new(Chamber { k: 1.0, p0: 0.0 }))
        .unwrap();
    b.connect(&["piston.A", "chamber.A"]).unwrap();
    b.input("x", "piston.rod", "s").unwrap();
    let err = b.build().unwrap_err();
    assert!(err.contains("not v"), "{err}");
    let mut b = Builder::new();
    b.part("piston", Arc::new(Piston { a: 1e-3 }))
        .unwrap()
        .part("chamber", Arc::new(Chamber { k: 2.0, p0: 0.0 }))
        .unwrap();
    b.connect(&["piston.A", "chamber.A"]).unwrap();
    b.input("x", "piston.rod", "s").unwrap();
    b.input("v", "piston.rod", "v").unwrap();
    let a = b.build().unwrap();
    let (dx, j) = evaluate(&a, &[0.5, 0.2], &[3.0]);
    assert_eq!(dx, [-2.0 * 1e-3 * 0.2]);
    assert_eq!(j, [0.0]);
    let _ = Causality::SetsAcross;
}

#[test]
fn a_force_input_drives_a_mass_and_a_flow_input_fills_a_chamber() {
    let mut b = Builder::new();
    b.part("mass", Arc::new(Mass { m: 4.0, c: 0.0 }))
        .unwrap()
        .input_through("F", "mass.rod")
        .unwrap();
    let a = b.build().unwrap();
    let (dx, j) = evaluate(&a, &[6.0], &[0.5, 1.0]);
    assert_eq!(dx, [1.0, 6.0 / 4.0]);
    assert_eq!(j, [0.0, 0.0, 1.0, 0.0]);
    // a flow source into a chamber that an orifice drains to a pressure
    let mut b = Builder::new();
    b.part("chamber", Arc::new(Chamber { k: 2.0, p0: 0.0 }))
        .unwrap()
        .part("orifice", Arc::new(Orifice { g: 0.5 }))
        .unwrap()
        .connect(&["chamber.A", "orifice.A"])
        .unwrap()
        .input_through("Q", "chamber.A")
        .unwrap()
        .input("pt", "orifice.B", "p")
        .unwrap();
    let a = b.build().unwrap();
    let (dx, j) = evaluate(&a, &[3.0, 1.0], &[5.0]);
    assert_eq!(dx, [2.0 * (3.0 - 0.5 * (5.0 - 1.0))]);
    assert_eq!(j, [2.0 * -0.5]);
    // a flow source straight into an orifice: nothing sets the pressure
    let mut b = Builder::new();
    b.part("orifice", Arc::new(Orifice { g: 0.5 }))
        .unwrap()
        .part("chamber", Arc::new(Chamber { k: 2.0, p0: 0.0 }))
        .unwrap()
        .connect(&["orifice.B", "chamber.A"])
        .unwrap()
        .input_through("Q", "orifice.A")
        .unwrap();
    let err = b.build().unwrap_err();
    assert!(err.contains("causality conflict"), "{err}");
    // both sides of a node from inputs
    let mut b = Builder::new();
    b.part("orifice", Arc::new(Orifice { g: 0.5 }))
        .unwrap()
        .part("chamber", Arc::new(Chamber { k: 2.0, p0: 0.0 }))
        .unwrap()
        .connect(&["orifice.B", "chamber.A"])
        .unwrap()
        .input("p", "orifice.A", "p")
        .unwrap()
        .input_through("Q", "orifice.A")
        .unwrap();
    let err = b.build().unwrap_err();
    assert!(err.contains("both its p and its q from inputs"), "{err}");
}

/// The toy chamber, declaring its pressure as a state copied to its port
/// (`Part::across_states`): `pairs` is its list, right or wrong.
#[derive(Debug)]
struct DeclaringChamber {
    inner: Chamber,
    pairs: &'static [(usize, usize)],
}

impl Part for DeclaringChamber {
    fn ports(&self) -> &[Port] {
        self.inner.ports()
    }
    fn states(&self) -> &[StateSpec] {
        self.inner.states()
    }
    fn initial_state(&self, ports: &[f64], x: &mut [f64]) {
        self.inner.initial_state(ports, x);
    }
    fn across_states(&self) -> Option<&[(usize, usize)]> {
        Some(self.pairs)
    }
    fn across(&self, _x: &[f64], _ports: &mut [f64], _d: Option<&mut Partials<'_>>) {
        panic!("phase 1 of a part that declares its across values as states is never called");
    }
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        self.inner.rates(x, ports, dx, d);
    }
}

fn drive_with(pairs: &'static [(usize, usize)]) -> Result<Assembly, String> {
    let mut b = Builder::new();
    let chamber = Chamber { k: 1.5e12, p0: 1e6 };
    b.part("orifice", Arc::new(Orifice { g: 2e-11 }))?
        .part(
            "chamber",
            Arc::new(DeclaringChamber {
                inner: chamber,
                pairs,
            }),
        )?
        .part("piston", Arc::new(Piston { a: 1e-3 }))?
        .part("mass", Arc::new(Mass { m: 10.0, c: 1e4 }))?;
    b.connect(&["orifice.B", "chamber.A", "piston.A"])?
        .connect(&["piston.rod", "mass.rod"])?
        .input("ps", "orifice.A", "p")?;
    b.build()
}

#[test]
fn across_values_declared_as_states_are_copied_without_phase_1() {
    let (declared, called) = (drive_with(&[(0, 0)]).unwrap(), drive().build().unwrap());
    let u = [1e7];
    for x in [[2e6, 0.1, 0.3], [-1e5, -0.2, 4.0], [3e7, 0.0, 0.0]] {
        let (dx, j) = evaluate(&declared, &u, &x);
        let (dx_called, j_called) = evaluate(&called, &u, &x);
        assert_eq!(dx, dx_called);
        assert_eq!(j, j_called);
        let mut plain = vec![0.0; 3];
        declared.evaluate(&u, &x, &mut plain, None);
        assert_eq!(plain, dx_called);
        let mut z = [0.0];
        declared.event_indicator_values(&u, &x, &mut z);
        assert_eq!(z, [1.0 - x[1]]);
    }
    // a wrong list is refused when the circuit is built
    for wrong in [&[(1, 0)][..], &[(0, 1)], &[], &[(0, 0), (0, 0)]] {
        let err = drive_with(wrong).unwrap_err();
        assert!(
            err.contains("part 'chamber'") && err.contains("across_states"),
            "{err}"
        );
    }
}
