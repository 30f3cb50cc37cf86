//! The schematics of the hand-written circuits, kept current: each
//! circuit's physical parts as part types of the registry (the valve
//! drive's pressure compensator with its shuttle valve is the
//! PressureCompensator part), drawn by `circuit_file::schematic` into an
//! SVG file in the circuit's crate, which its documentation page
//! includes. A change to the drawing changes these files; write them anew
//! with `cargo test -p circuit-file --test hand_written_schematics -- --ignored`.

use circuit_file::schematic::{Sketch, draw};
use fmu_core::compose::Domain;

#[derive(Clone)]
struct Drawing {
    file: &'static str,
    parts: Vec<(&'static str, &'static str)>,
    nodes: Vec<(Domain, &'static str)>,
    inputs: Vec<(&'static str, &'static str)>,
    /// Ports (`part.port`) of a part drawn as a labelled box (a type
    /// without a symbol of its own, such as the four-bar linkage) that no
    /// node names: an input's port.
    ports: Vec<(&'static str, Domain)>,
}

impl Drawing {
    /// The same circuit without part `part` (the mechanism an actuator
    /// FMU leaves to another model), its connections dropped, drawn into
    /// `file`, with the further inputs `inputs` on the ports it held.
    fn without(
        &self,
        part: &str,
        file: &'static str,
        inputs: &[(&'static str, &'static str)],
    ) -> Drawing {
        let of_part = |member: &str| member.split_once('.').is_some_and(|(p, _)| p == part);
        Drawing {
            file,
            parts: self
                .parts
                .iter()
                .copied()
                .filter(|(name, _)| *name != part)
                .collect(),
            nodes: self
                .nodes
                .iter()
                .copied()
                .filter(|(_, members)| members.split(' ').filter(|m| !of_part(m)).count() > 1)
                .collect(),
            inputs: self.inputs.iter().chain(inputs).copied().collect(),
            ports: self
                .ports
                .iter()
                .copied()
                .filter(|(m, _)| !of_part(m))
                .collect(),
        }
    }
}

const H: Domain = Domain::Hydraulic;

/// ValveCylinder (components/circuits/valve-drive/MODEL.md, "The circuit").
fn valve_cylinder() -> Drawing {
    Drawing {
        file: "valve-drive/schematic-ValveCylinder.svg",
        parts: vec![
            ("tank", "Tank"),
            ("pump", "PressureSource"),
            ("compensator", "PressureCompensator"),
            ("Vv", "Chamber"),
            ("spool", "Spool"),
            ("valve", "DirectionalValve"),
            ("cylinder", "ChamberCylinder"),
            ("mass", "Mass"),
        ],
        nodes: vec![
            (H, "pump.P compensator.P"),
            (H, "compensator.A Vv.A valve.P"),
            (Domain::Signal, "spool.Us valve.Us"),
            (H, "valve.A cylinder.A compensator.LA"),
            (H, "valve.B cylinder.B compensator.LB"),
            (H, "valve.T tank.T"),
            (Domain::Translational, "cylinder.rod mass.rod"),
        ],
        inputs: vec![("U", "spool.U")],
        ports: vec![],
    }
}

/// LiftActuator (components/circuits/lift-circuit/MODEL.md, "The machine").
fn lift_actuator() -> Drawing {
    Drawing {
        file: "lift-circuit/schematic-LiftActuator.svg",
        parts: vec![
            ("tank", "Tank"),
            ("supply", "PressureSource"),
            ("spool", "Spool"),
            ("valve", "DirectionalValve"),
            ("piston", "ChamberCylinder"),
            ("load", "Mass"),
        ],
        nodes: vec![
            (H, "supply.P valve.P"),
            (H, "valve.T tank.T"),
            (Domain::Signal, "spool.Us valve.Us"),
            (H, "valve.A piston.A"),
            (H, "valve.B piston.B"),
            (Domain::Translational, "piston.rod load.rod"),
        ],
        inputs: vec![("u", "spool.U")],
        ports: vec![],
    }
}

/// FourBar and FourBarTwin (components/circuits/four-bar-circuit/MODEL.md,
/// "The machine"): a constant-flow pump with a relief valve feeds the pump
/// line; the 4/3 valve drives the cylinder that lifts the four-bar linkage
/// (no ISO 1219 symbol: a labelled box).
fn four_bar() -> Drawing {
    Drawing {
        file: "four-bar-circuit/schematic-FourBar.svg",
        parts: vec![
            ("tank", "Tank"),
            ("pump", "ConstantFlowPump"),
            ("relief", "ReliefValve"),
            ("Vp", "Chamber"),
            ("spool", "Spool"),
            ("valve", "DirectionalValve"),
            ("cylinder", "ChamberCylinder"),
            ("linkage", "FourBarLinkage"),
        ],
        nodes: vec![
            (H, "pump.P Vp.A relief.P valve.P"),
            (H, "pump.T relief.T valve.T tank.T"),
            (Domain::Signal, "spool.Us valve.Us"),
            (H, "valve.A cylinder.A"),
            (H, "valve.B cylinder.B"),
            (Domain::Translational, "cylinder.rod linkage.rod"),
        ],
        inputs: vec![("U_ref", "spool.U")],
        ports: vec![],
    }
}

/// One part alone, with its inputs (and the ports of a labelled box).
fn alone(
    file: &'static str,
    part: (&'static str, &'static str),
    inputs: &[(&'static str, &'static str)],
    ports: &[(&'static str, Domain)],
) -> Drawing {
    Drawing {
        file,
        parts: vec![part],
        nodes: vec![],
        inputs: inputs.to_vec(),
        ports: ports.to_vec(),
    }
}

/// Every hand-written circuit's drawing.
fn drawings() -> Vec<Drawing> {
    vec![
        valve_cylinder(),
        // ValveActuator: ValveCylinder's hydraulics, the rod moved by the
        // mechanism's position and velocity.
        valve_cylinder().without(
            "mass",
            "valve-drive/schematic-ValveActuator.svg",
            &[("x, v", "cylinder.rod")],
        ),
        // SlidingMass: the mass with LuGre friction and end stops, pushed
        // by the force F.
        alone(
            "valve-drive/schematic-SlidingMass.svg",
            ("mass", "LuGreMass"),
            &[("F", "mass.rod")],
            &[],
        ),
        lift_actuator(),
        // LiftHydraulics: the lift's hydraulics, the piston moved by the
        // mechanism.
        lift_actuator().without(
            "load",
            "lift-circuit/schematic-LiftHydraulics.svg",
            &[("x_p, v_p", "piston.rod")],
        ),
        // OrificeChain (components/circuits/orifice-circuit/MODEL.md): three
        // orifices and two volumes between the supply and tank pressures.
        Drawing {
            file: "orifice-circuit/schematic-OrificeChain.svg",
            parts: vec![
                ("orifice1", "Orifice"),
                ("V1", "Chamber"),
                ("orifice2", "Orifice"),
                ("V2", "Chamber"),
                ("orifice3", "Orifice"),
            ],
            nodes: vec![
                (H, "orifice1.B V1.A orifice2.A"),
                (H, "orifice2.B V2.A orifice3.A"),
            ],
            inputs: vec![("ps", "orifice1.A"), ("pt", "orifice3.B")],
            ports: vec![],
        },
        // The hose line in its four causal forms (components/circuits/
        // hose-line/MODEL.md): what each form takes at its two ends.
        alone(
            "hose-line/schematic-HoseH.svg",
            ("hose", "HoseH"),
            &[("Q1", "hose.A"), ("p2", "hose.B")],
            &[],
        ),
        alone(
            "hose-line/schematic-HoseG.svg",
            ("hose", "HoseG"),
            &[("p1", "hose.A"), ("Q2", "hose.B")],
            &[],
        ),
        alone(
            "hose-line/schematic-HoseY.svg",
            ("hose", "HoseY"),
            &[("p1", "hose.A"), ("p2", "hose.B")],
            &[],
        ),
        alone(
            "hose-line/schematic-HoseZ.svg",
            ("hose", "HoseZ"),
            &[("Q1", "hose.A"), ("Q2", "hose.B")],
            &[],
        ),
        four_bar(),
        // FourBarActuator: FourBar's hydraulics, the cylinder moved by the
        // multibody model's length and rate.
        four_bar().without(
            "linkage",
            "four-bar-circuit/schematic-FourBarActuator.svg",
            &[("s, s_dot", "cylinder.rod")],
        ),
        // FourBarMechanism: the linkage alone, pushed by the cylinder force.
        alone(
            "four-bar-circuit/schematic-FourBarMechanism.svg",
            ("linkage", "FourBarLinkage"),
            &[("F", "linkage.rod")],
            &[("linkage.rod", Domain::Translational)],
        ),
    ]
}

fn svg(d: &Drawing) -> String {
    let parts: Vec<Sketch> = d
        .parts
        .iter()
        .map(|(name, t)| Sketch {
            name: (*name).to_owned(),
            type_name: (*t).to_owned(),
            ports: d
                .ports
                .iter()
                .filter_map(|(member, domain)| {
                    let (part, port) = member.split_once('.')?;
                    (part == *name).then(|| (port.to_owned(), *domain))
                })
                .collect(),
        })
        .collect();
    let nodes: Vec<(Domain, Vec<String>)> = d
        .nodes
        .iter()
        .map(|(domain, m)| (*domain, m.split(' ').map(str::to_owned).collect()))
        .collect();
    let inputs: Vec<(String, String)> = d
        .inputs
        .iter()
        .map(|(n, p)| ((*n).to_owned(), (*p).to_owned()))
        .collect();
    draw(&parts, &nodes, &inputs)
}

fn path(d: &Drawing) -> String {
    format!("{}/../{}", env!("CARGO_MANIFEST_DIR"), d.file)
}

#[test]
fn the_hand_written_circuits_schematics_are_current() {
    for d in &drawings() {
        let file = std::fs::read_to_string(path(d)).unwrap_or_default();
        let drawn = svg(d);
        assert!(
            file == drawn,
            "{} is out of date: cargo test -p circuit-file --test hand_written_schematics -- --ignored",
            d.file
        );
        for (name, _) in &d.parts {
            assert_eq!(
                drawn
                    .matches(&format!("class=\"label\" data-part=\"{name}\""))
                    .count(),
                1
            );
        }
        for (name, _) in &d.inputs {
            assert!(drawn.contains(&format!("data-input=\"{name}\"")));
        }
    }
}

#[test]
fn the_documentation_pages_include_their_schematics() {
    let pages = [
        (
            include_str!("../../valve-drive/src/valve_cylinder.rs"),
            "schematic-ValveCylinder.svg",
        ),
        (
            include_str!("../../lift-circuit/src/lift_actuator.rs"),
            "schematic-LiftActuator.svg",
        ),
        (
            include_str!("../../valve-drive/src/valve_actuator.rs"),
            "schematic-ValveActuator.svg",
        ),
        (
            include_str!("../../valve-drive/src/sliding_mass.rs"),
            "schematic-SlidingMass.svg",
        ),
        (
            include_str!("../../lift-circuit/src/lift_hydraulics.rs"),
            "schematic-LiftHydraulics.svg",
        ),
        (
            include_str!("../../orifice-circuit/src/lib.rs"),
            "schematic-OrificeChain.svg",
        ),
        (
            include_str!("../../hose-line/src/forms.rs"),
            "schematic-HoseH.svg",
        ),
        (
            include_str!("../../hose-line/src/forms.rs"),
            "schematic-HoseG.svg",
        ),
        (
            include_str!("../../hose-line/src/forms.rs"),
            "schematic-HoseY.svg",
        ),
        (
            include_str!("../../hose-line/src/forms.rs"),
            "schematic-HoseZ.svg",
        ),
        (
            include_str!("../../four-bar-circuit/src/four_bar.rs"),
            "schematic-FourBar.svg",
        ),
        (
            include_str!("../../four-bar-circuit/src/four_bar_twin.rs"),
            "schematic-FourBar.svg",
        ),
        (
            include_str!("../../four-bar-circuit/src/four_bar_actuator.rs"),
            "schematic-FourBarActuator.svg",
        ),
        (
            include_str!("../../four-bar-circuit/src/four_bar_mechanism.rs"),
            "schematic-FourBarMechanism.svg",
        ),
    ];
    for (source, file) in pages {
        assert!(
            source.contains(&format!("include_str!(\"../{file}\")")),
            "{file} is not in its circuit's documentation"
        );
    }
}

/// Writes the files anew (run by hand after a change to the drawing).
#[test]
#[ignore]
fn write_the_schematics() {
    for d in &drawings() {
        std::fs::write(path(d), svg(d)).unwrap();
    }
}
