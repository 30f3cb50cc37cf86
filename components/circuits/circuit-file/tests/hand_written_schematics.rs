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
    /// Ports (`part.port`) of a part drawn as a labelled box (a type
    /// without a symbol of its own, such as the four-bar linkage) that no
    /// node names: an input's port.
    ports: &'static [(&'static str, Domain)],
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
    ports: &[],
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
    ports: &[],
};

/// ValveActuator (components/circuits/valve-drive/MODEL.md): ValveCylinder's
/// hydraulics, the rod moved by the mechanism's position and velocity.
const VALVE_ACTUATOR: Drawing = Drawing {
    file: "valve-drive/schematic-ValveActuator.svg",
    parts: &[
        ("tank", "Tank"),
        ("pump", "PressureSource"),
        ("compensator", "PressureCompensator"),
        ("Vv", "Chamber"),
        ("spool", "Spool"),
        ("valve", "DirectionalValve"),
        ("cylinder", "ChamberCylinder"),
    ],
    nodes: &[
        (H, "pump.P compensator.P"),
        (H, "compensator.A Vv.A valve.P"),
        (Domain::Signal, "spool.Us valve.Us"),
        (H, "valve.A cylinder.A compensator.LA"),
        (H, "valve.B cylinder.B compensator.LB"),
        (H, "valve.T tank.T"),
    ],
    inputs: &[("U", "spool.U"), ("x, v", "cylinder.rod")],
    ports: &[],
};

/// SlidingMass (components/circuits/valve-drive/MODEL.md): the mass with
/// LuGre friction and end stops, pushed by the force F.
const SLIDING_MASS: Drawing = Drawing {
    file: "valve-drive/schematic-SlidingMass.svg",
    parts: &[("mass", "LuGreMass")],
    nodes: &[],
    inputs: &[("F", "mass.rod")],
    ports: &[],
};

/// LiftHydraulics (components/circuits/lift-circuit/MODEL.md): the lift's
/// hydraulics, the piston moved by the mechanism.
const LIFT_HYDRAULICS: Drawing = Drawing {
    file: "lift-circuit/schematic-LiftHydraulics.svg",
    parts: &[
        ("tank", "Tank"),
        ("supply", "PressureSource"),
        ("spool", "Spool"),
        ("valve", "DirectionalValve"),
        ("piston", "ChamberCylinder"),
    ],
    nodes: &[
        (H, "supply.P valve.P"),
        (H, "valve.T tank.T"),
        (Domain::Signal, "spool.Us valve.Us"),
        (H, "valve.A piston.A"),
        (H, "valve.B piston.B"),
    ],
    inputs: &[("u", "spool.U"), ("x_p, v_p", "piston.rod")],
    ports: &[],
};

/// OrificeChain (components/circuits/orifice-circuit/MODEL.md): three
/// orifices and two volumes between the supply and tank pressures.
const ORIFICE_CHAIN: Drawing = Drawing {
    file: "orifice-circuit/schematic-OrificeChain.svg",
    parts: &[
        ("orifice1", "Orifice"),
        ("V1", "Chamber"),
        ("orifice2", "Orifice"),
        ("V2", "Chamber"),
        ("orifice3", "Orifice"),
    ],
    nodes: &[
        (H, "orifice1.B V1.A orifice2.A"),
        (H, "orifice2.B V2.A orifice3.A"),
    ],
    inputs: &[("ps", "orifice1.A"), ("pt", "orifice3.B")],
    ports: &[],
};

/// The hose line in its four causal forms (components/circuits/hose-line/
/// MODEL.md): what each form takes at its two ends.
const fn hose(
    file: &'static str,
    form: &'static str,
    inputs: &'static [(&'static str, &'static str)],
) -> Drawing {
    Drawing {
        file,
        parts: match form.as_bytes() {
            b"HoseH" => &[("hose", "HoseH")],
            b"HoseG" => &[("hose", "HoseG")],
            b"HoseY" => &[("hose", "HoseY")],
            _ => &[("hose", "HoseZ")],
        },
        nodes: &[],
        inputs,
        ports: &[],
    }
}

const HOSE_H: Drawing = hose(
    "hose-line/schematic-HoseH.svg",
    "HoseH",
    &[("Q1", "hose.A"), ("p2", "hose.B")],
);
const HOSE_G: Drawing = hose(
    "hose-line/schematic-HoseG.svg",
    "HoseG",
    &[("p1", "hose.A"), ("Q2", "hose.B")],
);
const HOSE_Y: Drawing = hose(
    "hose-line/schematic-HoseY.svg",
    "HoseY",
    &[("p1", "hose.A"), ("p2", "hose.B")],
);
const HOSE_Z: Drawing = hose(
    "hose-line/schematic-HoseZ.svg",
    "HoseZ",
    &[("Q1", "hose.A"), ("Q2", "hose.B")],
);

/// FourBar and FourBarTwin (components/circuits/four-bar-circuit/MODEL.md,
/// "The machine"): a constant-flow pump with a relief valve feeds the pump
/// line; the 4/3 valve drives the cylinder that lifts the four-bar linkage
/// (no ISO 1219 symbol: a labelled box).
const FOUR_BAR: Drawing = Drawing {
    file: "four-bar-circuit/schematic-FourBar.svg",
    parts: &[
        ("tank", "Tank"),
        ("pump", "ConstantFlowPump"),
        ("relief", "ReliefValve"),
        ("Vp", "Chamber"),
        ("spool", "Spool"),
        ("valve", "DirectionalValve"),
        ("cylinder", "ChamberCylinder"),
        ("linkage", "FourBarLinkage"),
    ],
    nodes: &[
        (H, "pump.P Vp.A relief.P valve.P"),
        (H, "pump.T relief.T valve.T tank.T"),
        (Domain::Signal, "spool.Us valve.Us"),
        (H, "valve.A cylinder.A"),
        (H, "valve.B cylinder.B"),
        (Domain::Translational, "cylinder.rod linkage.rod"),
    ],
    inputs: &[("U_ref", "spool.U")],
    ports: &[],
};

/// FourBarActuator: FourBar's hydraulics, the cylinder moved by the
/// multibody model's length and rate.
const FOUR_BAR_ACTUATOR: Drawing = Drawing {
    file: "four-bar-circuit/schematic-FourBarActuator.svg",
    parts: &[
        ("tank", "Tank"),
        ("pump", "ConstantFlowPump"),
        ("relief", "ReliefValve"),
        ("Vp", "Chamber"),
        ("spool", "Spool"),
        ("valve", "DirectionalValve"),
        ("cylinder", "ChamberCylinder"),
    ],
    nodes: &[
        (H, "pump.P Vp.A relief.P valve.P"),
        (H, "pump.T relief.T valve.T tank.T"),
        (Domain::Signal, "spool.Us valve.Us"),
        (H, "valve.A cylinder.A"),
        (H, "valve.B cylinder.B"),
    ],
    inputs: &[("U_ref", "spool.U"), ("s, s_dot", "cylinder.rod")],
    ports: &[],
};

/// FourBarMechanism: the linkage alone, pushed by the cylinder force F.
const FOUR_BAR_MECHANISM: Drawing = Drawing {
    file: "four-bar-circuit/schematic-FourBarMechanism.svg",
    parts: &[("linkage", "FourBarLinkage")],
    nodes: &[],
    inputs: &[("F", "linkage.rod")],
    ports: &[("linkage.rod", Domain::Translational)],
};

const DRAWINGS: [Drawing; 13] = [
    VALVE_CYLINDER,
    VALVE_ACTUATOR,
    SLIDING_MASS,
    LIFT_ACTUATOR,
    LIFT_HYDRAULICS,
    ORIFICE_CHAIN,
    HOSE_H,
    HOSE_G,
    HOSE_Y,
    HOSE_Z,
    FOUR_BAR,
    FOUR_BAR_ACTUATOR,
    FOUR_BAR_MECHANISM,
];

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
    for d in &DRAWINGS {
        std::fs::write(path(d), svg(d)).unwrap();
    }
}
