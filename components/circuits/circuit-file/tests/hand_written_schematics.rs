//! The schematics of the hand-written circuits, kept current: each
//! circuit's physical parts as part types of the registry (the valve
//! drive's pressure compensator with its shuttle valve is the
//! PressureCompensator part), drawn by `circuit_file::schematic` into an
//! SVG file in the circuit's crate, which its documentation page
//! includes. A change to the drawing changes these files; write them anew
//! with `cargo test -p circuit-file --test hand_written_schematics -- --ignored`.

use circuit_file::schematic::{Sketch, draw};
use fmu_core::compose::Domain;

struct Drawing {
    file: &'static str,
    parts: &'static [(&'static str, &'static str)],
    nodes: &'static [(Domain, &'static str)],
    inputs: &'static [(&'static str, &'static str)],
}

const H: Domain = Domain::Hydraulic;

/// ValveCylinder (components/circuits/valve-drive/MODEL.md, "The circuit").
const VALVE_CYLINDER: Drawing = Drawing {
    file: "valve-drive/schematic-ValveCylinder.svg",
    parts: &[
        ("tank", "Tank"),
        ("pump", "PressureSource"),
        ("compensator", "PressureCompensator"),
        ("Vv", "Chamber"),
        ("spool", "Spool"),
        ("valve", "DirectionalValve"),
        ("cylinder", "ChamberCylinder"),
        ("mass", "Mass"),
    ],
    nodes: &[
        (H, "pump.P compensator.P"),
        (H, "compensator.A Vv.A valve.P"),
        (Domain::Signal, "spool.Us valve.Us"),
        (H, "valve.A cylinder.A compensator.LA"),
        (H, "valve.B cylinder.B compensator.LB"),
        (H, "valve.T tank.T"),
        (Domain::Translational, "cylinder.rod mass.rod"),
    ],
    inputs: &[("U", "spool.U")],
};

/// LiftActuator (components/circuits/lift-circuit/MODEL.md, "The machine").
const LIFT_ACTUATOR: Drawing = Drawing {
    file: "lift-circuit/schematic-LiftActuator.svg",
    parts: &[
        ("tank", "Tank"),
        ("supply", "PressureSource"),
        ("spool", "Spool"),
        ("valve", "DirectionalValve"),
        ("piston", "ChamberCylinder"),
        ("load", "Mass"),
    ],
    nodes: &[
        (H, "supply.P valve.P"),
        (H, "valve.T tank.T"),
        (Domain::Signal, "spool.Us valve.Us"),
        (H, "valve.A piston.A"),
        (H, "valve.B piston.B"),
        (Domain::Translational, "piston.rod load.rod"),
    ],
    inputs: &[("u", "spool.U")],
};

const DRAWINGS: [Drawing; 2] = [VALVE_CYLINDER, LIFT_ACTUATOR];

fn svg(d: &Drawing) -> String {
    let parts: Vec<Sketch> = d
        .parts
        .iter()
        .map(|(name, t)| Sketch {
            name: (*name).to_owned(),
            type_name: (*t).to_owned(),
            ports: Vec::new(),
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
    for d in &DRAWINGS {
        let file = std::fs::read_to_string(path(d)).unwrap_or_default();
        let drawn = svg(d);
        assert!(
            file == drawn,
            "{} is out of date: cargo test -p circuit-file --test hand_written_schematics -- --ignored",
            d.file
        );
        for (name, _) in d.parts {
            assert_eq!(
                drawn
                    .matches(&format!("class=\"label\" data-part=\"{name}\""))
                    .count(),
                1
            );
        }
        for (name, _) in d.inputs {
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
    for d in &DRAWINGS {
        std::fs::write(path(d), svg(d)).unwrap();
    }
}
