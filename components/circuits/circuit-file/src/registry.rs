//! The part types a description may name: for each, its parameters (name,
//! meaning, SI unit, default) and its constructor from the checked
//! values. This is the one list of what a description can say; the
//! documentation's tables ([`markdown`]) and the editors' JSON Schema
//! ([`json_schema`]) are generated from it.

use fmu_core::compose::Part;
use hydraulics::{BulkModulus, CheckValve as CheckLaw, GasAccumulator, LogBase, Opening};
use std::sync::Arc;

/// Whether a parameter must be given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Need {
    /// The description must give it.
    Required,
    /// Its value when the description leaves it out (SI).
    Default(f64),
    /// It may be left out, and then means something else (an orifice's
    /// diameter instead of its flow coefficient, a mass without stops).
    Optional,
}

/// One parameter of a part type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Parameter {
    /// The key in the description.
    pub name: &'static str,
    /// What it is.
    pub description: &'static str,
    /// Its SI unit (its dimension): a value in any unit of this dimension
    /// is accepted.
    pub unit: &'static str,
    /// Whether it must be given.
    pub need: Need,
}

const fn required(name: &'static str, unit: &'static str, description: &'static str) -> Parameter {
    Parameter {
        name,
        description,
        unit,
        need: Need::Required,
    }
}

const fn default(
    name: &'static str,
    unit: &'static str,
    value: f64,
    description: &'static str,
) -> Parameter {
    Parameter {
        name,
        description,
        unit,
        need: Need::Default(value),
    }
}

const fn optional(name: &'static str, unit: &'static str, description: &'static str) -> Parameter {
    Parameter {
        name,
        description,
        unit,
        need: Need::Optional,
    }
}

/// The checked values of a part's parameters (SI), defaults filled in.
#[derive(Debug, Clone, Default)]
pub struct Values {
    entries: Vec<(&'static str, f64)>,
}

impl Values {
    /// Sets `name` to `value` (SI).
    pub fn set(&mut self, name: &'static str, value: f64) {
        match self.entries.iter_mut().find(|(n, _)| *n == name) {
            Some(e) => e.1 = value,
            None => self.entries.push((name, value)),
        }
    }

    /// The value of an optional parameter, if given.
    pub fn opt(&self, name: &str) -> Option<f64> {
        self.entries
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }

    /// The value of a required or defaulted parameter (NaN if missing,
    /// which the part's own checks then reject).
    pub fn get(&self, name: &str) -> f64 {
        self.opt(name).unwrap_or(f64::NAN)
    }
}

/// A part type of the library.
#[derive(Debug)]
pub struct PartType {
    /// Its name in a description (`type = "Chamber"`).
    pub name: &'static str,
    /// What it is.
    pub description: &'static str,
    /// Its parameters.
    pub parameters: &'static [Parameter],
    /// Its states (name, SI unit), in the part's order. A name ending in
    /// `<k>` stands for a numbered series (`p<k>`: `p1`, `p2`, ...; how
    /// many, the parameters say).
    pub states: &'static [(&'static str, &'static str)],
    build: fn(&Values) -> Result<Arc<dyn Part>, String>,
}

impl PartType {
    /// The parameter named `name`.
    pub fn parameter(&self, name: &str) -> Option<&'static Parameter> {
        self.parameters.iter().find(|p| p.name == name)
    }

    /// The SI unit of the state named `name` (a series `p<k>` matches
    /// `p` followed by a number), if the type has it.
    pub fn state_unit(&self, name: &str) -> Option<&'static str> {
        self.states.iter().find_map(|&(state, unit)| {
            let matches = match state.strip_suffix("<k>") {
                Some(stem) => name.strip_prefix(stem).is_some_and(|k| {
                    !k.is_empty() && !k.starts_with('0') && k.bytes().all(|c| c.is_ascii_digit())
                }),
                None => state == name,
            };
            matches.then_some(unit)
        })
    }

    /// Builds the part from checked values (every required one given,
    /// defaults filled in); the part's own range checks may still fail.
    pub fn build(&self, values: &Values) -> Result<Arc<dyn Part>, String> {
        (self.build)(values)
    }
}

/// The part type named `name`.
pub fn part_type(name: &str) -> Option<&'static PartType> {
    PART_TYPES.iter().find(|t| t.name == name)
}

/// The SI unit of the signal port `port` of part type `type_name`: the
/// library's signals are valve commands in volts, but for the friction
/// forces the masses report on their optional signal ports.
pub fn signal_unit(type_name: &str, port: &str) -> &'static str {
    match (type_name, port) {
        ("LuGreMass", "F_mu") | ("Mass", "F_f") => "N",
        _ => "V",
    }
}

/// Every part type, in the documentation's order.
pub fn part_types() -> &'static [PartType] {
    &PART_TYPES
}

/// The part types and their parameters as a Markdown section, one table
/// per type (what `docs/circuit-files.md` holds; a test keeps them equal).
pub fn markdown() -> String {
    let mut out = String::new();
    for t in part_types() {
        out += &format!("### {}\n\n{}.", t.name, t.description);
        if !t.states.is_empty() {
            let states: Vec<String> = t
                .states
                .iter()
                .map(|(n, u)| format!("`{n}` ({u})"))
                .collect();
            out += &format!(" States: {}.", states.join(", "));
        }
        out += "\n\n| parameter | unit | default | meaning |\n|---|---|---|---|\n";
        for p in t.parameters {
            let need = match p.need {
                Need::Required => "required".to_owned(),
                Need::Default(v) => format!("{v}"),
                Need::Optional => "optional".to_owned(),
            };
            out += &format!(
                "| `{}` | {} | {} | {} |\n",
                p.name, p.unit, need, p.description
            );
        }
        out += "\n";
    }
    out
}

/// The part types as one compact table, a row each (what it is with its
/// ports and states; its parameters with their SI units, `*` for the
/// required ones, the defaults left to [`markdown`]'s sections): the
/// table of the README's "Your own circuit" (a test keeps it equal).
pub fn readme_table() -> String {
    let mut out = String::from(
        "| type | what it is: ports, states | parameters (SI unit; * required) |\n|---|---|---|\n",
    );
    for t in part_types() {
        let parameters: Vec<String> = t
            .parameters
            .iter()
            .map(|p| {
                let star = if p.need == Need::Required { "*" } else { "" };
                if p.unit == "1" {
                    format!("`{}`{star}", p.name)
                } else {
                    format!("`{}`{star} {}", p.name, p.unit)
                }
            })
            .collect();
        out += &format!(
            "| `{}` | {} | {} |\n",
            t.name,
            t.description,
            parameters.join(", ")
        );
    }
    out
}

/// A JSON Schema (draft-07) of description files, for editors that check
/// and complete TOML against a schema (the file
/// `components/circuits/circuit-file/circuit.schema.json`; a test keeps it
/// equal to this). Every part type is one alternative of `parts.*`, with
/// its parameters, their units in the descriptions and the required ones
/// listed.
pub fn json_schema() -> String {
    use serde_json::{Map, Value, json};
    let quantity = |description: String| {
        json!({
            "description": description,
            "type": ["number", "string"],
        })
    };
    let names = "^[A-Za-z][A-Za-z0-9_]*$";
    let mut alternatives = Vec::new();
    for t in part_types() {
        let mut properties = Map::new();
        properties.insert(
            "type".into(),
            json!({ "const": t.name, "description": t.description }),
        );
        let mut required = vec![Value::from("type")];
        for p in t.parameters {
            let need = match p.need {
                Need::Required => {
                    required.push(Value::from(p.name));
                    "required".to_owned()
                }
                Need::Default(v) => format!("default {v} {}", p.unit),
                Need::Optional => "optional".to_owned(),
            };
            properties.insert(
                p.name.into(),
                quantity(format!("{} ({}, {need})", p.description, p.unit)),
            );
        }
        alternatives.push(json!({
            "title": t.name,
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        }));
    }
    let time = |what: &str| quantity(format!("{what} (s, or a quantity such as \"1 ms\")"));
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Circuit description file",
        "description": "A hydraulic circuit from the parts library: its parts, the nodes joining their ports, the FMU's inputs, outputs and default experiment",
        "type": "object",
        "required": ["circuit", "parts", "nodes"],
        "additionalProperties": false,
        "properties": {
            "circuit": {
                "type": "object",
                "required": ["name"],
                "additionalProperties": false,
                "properties": {
                    "name": {
                        "description": "The FMU's model identifier",
                        "type": "string",
                        "pattern": "^[A-Za-z_][A-Za-z0-9_]*$",
                    },
                    "description": { "type": "string" },
                },
            },
            "experiment": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "start_time": time("Start time"),
                    "stop_time": time("Stop time"),
                    "step_size": time("Communication step"),
                    "tolerance": quantity(
                        "Relative tolerance (1), 1e-14 to 0.1: the default experiment's, and the start value of the solver parameter rtol".to_owned(),
                    ),
                },
            },
            "parts": {
                "description": "The parts, by name: each with its type and parameters",
                "type": "object",
                "propertyNames": { "pattern": names },
                "additionalProperties": { "oneOf": alternatives },
            },
            "nodes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["ports"],
                    "additionalProperties": false,
                    "properties": {
                        "ports": {
                            "description": "The ports the node joins, as part.port",
                            "type": "array",
                            "minItems": 2,
                            "items": { "type": "string" },
                        },
                    },
                },
            },
            "inputs": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "sets"],
                    "additionalProperties": false,
                    "properties": {
                        "name": { "type": "string", "pattern": names },
                        "sets": {
                            "description": "part.port (its across value), part.port.s|v|phi|w, or part.port.q|f|tau (a through value delivered there)",
                            "type": "string",
                        },
                        "unit": { "type": "string" },
                        "display_unit": { "type": "string" },
                        "start": quantity("Start value (SI, or a quantity)".to_owned()),
                        "description": { "type": "string" },
                    },
                },
            },
            "outputs": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "of"],
                    "additionalProperties": false,
                    "properties": {
                        "name": { "type": "string", "pattern": names },
                        "of": {
                            "description": "part.state, part.port, or part.port.p|s|v|phi|w|q|f|tau",
                            "type": "string",
                        },
                        "unit": { "type": "string" },
                        "display_unit": { "type": "string" },
                        "description": { "type": "string" },
                    },
                },
            },
        },
    });
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

macro_rules! with_fluid {
    ($($p:expr),* $(,)?) => {
        &[
            $($p,)*
            default("E_max", "Pa", 1.8e9, "Maximum bulk modulus of the oil"),
            default("p_max", "Pa", 2.8e7, "Maximum system pressure of the bulk-modulus law"),
            default("bulk_a1", "1", 0.5, "Bulk-modulus law constant a1"),
            default("bulk_a2", "1", 90.0, "Bulk-modulus law constant a2"),
            default("bulk_a3", "1", 3.0, "Bulk-modulus law constant a3 (> 1)"),
        ]
    };
}

fn fluid(v: &Values) -> BulkModulus {
    BulkModulus {
        e_max: v.get("E_max"),
        p_max: v.get("p_max"),
        a1: v.get("bulk_a1"),
        a2: v.get("bulk_a2"),
        a3: v.get("bulk_a3"),
        log: LogBase::Ten,
    }
}

fn arc<P: Part + 'static>(p: Result<P, String>) -> Result<Arc<dyn Part>, String> {
    p.map(|p| Arc::new(p) as Arc<dyn Part>)
}

/// The transition pressure of the orifice laws, where a circuit of the
/// project sets none: 0.1 bar.
const P_TR: f64 = 1e4;

/// The hose parts' parameters: the HoseH/G/Y/Z FMUs' (their defaults,
/// `components/circuits/hose-line/MODEL.md`) and the start.
const HOSE: [Parameter; 23] = [
    default(
        "n",
        "1",
        1.0,
        "Number of lumped segments, a whole number from 1 to 14",
    ),
    default("L_hose", "m", 2.0, "Hose length"),
    default("d", "m", 0.016, "Inner diameter"),
    default("p_ref", "Pa", 1e7, "Reference pressure of the wall law"),
    default("x_ref", "m", 3.508e-5, "Radial wall deformation at p_ref"),
    default(
        "b",
        "m",
        2e-5,
        "Hysteresis width of the wall (checked, not used: the line has no hysteresis, as the hose FMUs)",
    ),
    default(
        "v_lim",
        "m/s",
        1e-4,
        "Saturation velocity of the wall hysteresis",
    ),
    default(
        "h",
        "N s/m",
        200.0,
        "Wall damping (checked; the wall is quasi-static)",
    ),
    default(
        "kn",
        "1",
        0.011,
        "Frequency correction kL = kC = (2/pi)^(1/n) + kn (n - 1)",
    ),
    default(
        "kr1",
        "1",
        1.4,
        "Resistance correction kr = kr1 - kr2 (n - 1)",
    ),
    default("kr2", "1", 0.1, "Resistance correction slope"),
    default("zeta", "1", 2.0, "Local loss coefficient per segment"),
    default("lambda", "1", 0.04, "Turbulent friction coefficient"),
    default(
        "Al",
        "1",
        64.0,
        "Laminar coefficient (64: Hagen-Poiseuille)",
    ),
    default(
        "T",
        "1",
        313.15,
        "Fluid temperature in kelvin, as a plain number (descriptions have no temperature unit)",
    ),
    default("nu0", "m2/s", 46e-6, "Kinematic viscosity at T"),
    default("rho15", "kg/m3", 875.0, "Density at 15 degC"),
    default("vol0", "1", 0.08, "Relative air volume at p_m = 0"),
    default("ka", "1", 1.4, "Polytropic exponent of the air"),
    default("p0", "Pa", 1e5, "Atmospheric pressure of the air law"),
    default(
        "tangent_wall_slope",
        "1",
        0.0,
        "1: the full derivative dx/dp_m in the compliance; 0: the slope with the stiffness held",
    ),
    default(
        "q0",
        "m3/s",
        0.0,
        "Through flow of the steady state the hose starts in",
    ),
    default(
        "p_start",
        "Pa",
        0.0,
        "Start pressure at the end whose pressure the hose does not set (HoseH: at B; HoseG, HoseY: at A; HoseZ: its last node, at B)",
    ),
];

/// The hose parts' states: node pressures, then branch flows, from A to B.
const HOSE_STATES: [(&str, &str); 2] = [("p<k>", "Pa"), ("q<k>", "m3/s")];

/// A hose part of causal form `form` from the checked values.
fn hose(form: parts::HoseForm, v: &Values) -> Result<Arc<dyn Part>, String> {
    let n = v.get("n");
    if !(n.fract() == 0.0 && (1.0..=parts::HOSE_MAX_SEGMENTS as f64).contains(&n)) {
        return Err(format!(
            "number of segments n = {n} must be a whole number from 1 to {}",
            parts::HOSE_MAX_SEGMENTS
        ));
    }
    let slope = v.get("tangent_wall_slope");
    let wall_slope = if slope == 1.0 {
        hydraulics::hose::WallSlope::Tangent
    } else if slope == 0.0 {
        hydraulics::hose::WallSlope::FrozenStiffness
    } else {
        return Err(format!("tangent_wall_slope = {slope} must be 0 or 1"));
    };
    let params = hydraulics::hose::HoseParameters {
        hose_length: v.get("L_hose"),
        d: v.get("d"),
        p_ref: v.get("p_ref"),
        x_ref: v.get("x_ref"),
        b: v.get("b"),
        v_lim: v.get("v_lim"),
        h: v.get("h"),
        kn: v.get("kn"),
        kr1: v.get("kr1"),
        kr2: v.get("kr2"),
        zeta: v.get("zeta"),
        lambda: v.get("lambda"),
        al: v.get("Al"),
        temperature: v.get("T") - 273.15,
        nu0: v.get("nu0"),
        rho15: v.get("rho15"),
        vol0: v.get("vol0"),
        ka: v.get("ka"),
        p0: v.get("p0"),
        wall_slope,
    };
    arc(parts::Hose::new(
        form,
        &params,
        n as usize,
        v.get("q0"),
        v.get("p_start"),
    ))
}

const MACHINE: [Parameter; 5] = [
    required(
        "D",
        "m3/rad",
        "Displacement per radian (write it per revolution: \"16 cm3/rev\")",
    ),
    default("c_leak", "m3/(s Pa)", 0.0, "Internal leakage conductance"),
    default("b_visc", "N m s/rad", 0.0, "Viscous torque coefficient"),
    default("tau_c", "N m", 0.0, "Dry (Coulomb) friction torque"),
    default(
        "omega_reg",
        "rad/s",
        1.0,
        "Speed over which the dry friction is regularised",
    ),
];

static PART_TYPES: [PartType; 23] = [
    PartType {
        name: "Tank",
        description: "A reservoir at a fixed pressure; port T",
        parameters: &[default("p_tank", "Pa", 0.0, "Tank pressure (gauge)")],
        states: &[],
        build: |v| arc(parts::Tank::new(v.get("p_tank"))),
    },
    PartType {
        name: "PressureSource",
        description: "An ideal pressure source; port P",
        parameters: &[required("p_s", "Pa", "Supply pressure (gauge)")],
        states: &[],
        build: |v| arc(parts::PressureSource::new(v.get("p_s"))),
    },
    PartType {
        name: "Orifice",
        description: "A turbulent orifice between ports A and B: give its flow coefficient k, or its diameter d (with cd and rho)",
        parameters: &[
            optional("k", "m3/(s sqrt(Pa))", "Flow coefficient Cd A sqrt(2/rho)"),
            optional("d", "m", "Diameter of a circular orifice (instead of k)"),
            default("cd", "1", 0.6, "Discharge coefficient (with d)"),
            default("rho", "kg/m3", 900.0, "Oil density (with d)"),
            default("p_tr", "Pa", P_TR, "Transition pressure of the orifice law"),
        ],
        states: &[],
        build: |v| match (v.opt("k"), v.opt("d")) {
            (Some(k), None) => arc(parts::Orifice::new(k, v.get("p_tr"))),
            (None, Some(d)) => arc(parts::Orifice::circular(
                v.get("cd"),
                d,
                v.get("rho"),
                v.get("p_tr"),
            )),
            (Some(_), Some(_)) => Err("give either k or d, not both".into()),
            (None, None) => {
                Err("give the flow coefficient k or the diameter d (with cd and rho)".into())
            }
        },
    },
    PartType {
        name: "Chamber",
        description: "A fixed volume of oil; port A; state p",
        parameters: with_fluid![
            required("V", "m3", "Volume"),
            default("p0", "Pa", 0.0, "Pressure at the start"),
        ],
        states: &[("p", "Pa")],
        build: |v| arc(parts::Chamber::new(v.get("V"), fluid(v), v.get("p0"))),
    },
    PartType {
        name: "ReliefValve",
        description: "A pressure-relief valve from P to T with a rounded opening",
        parameters: &[
            required("p_crack", "Pa", "Cracking pressure"),
            required(
                "gain",
                "m3/(s Pa)",
                "Flow per pascal above the cracking pressure",
            ),
            default(
                "smoothing",
                "Pa",
                2e4,
                "Width over which the opening is rounded",
            ),
        ],
        states: &[],
        build: |v| {
            arc(parts::ReliefValve::new(
                v.get("p_crack"),
                v.get("gain"),
                v.get("smoothing"),
            ))
        },
    },
    PartType {
        name: "CheckValve",
        description: "A check valve passing flow from A to B above its cracking pressure",
        parameters: &[
            required("k", "m3/(s sqrt(Pa))", "Flow coefficient of the open valve"),
            default("p_tr", "Pa", P_TR, "Transition pressure of the orifice law"),
            required("p_crack", "Pa", "Cracking pressure"),
            required("p_band", "Pa", "Pressure rise from cracking to fully open"),
            default("g_leak", "m3/(s Pa)", 0.0, "Seat leakage conductance"),
        ],
        states: &[],
        build: |v| {
            arc(parts::CheckValve::new(
                v.get("k"),
                v.get("p_tr"),
                v.get("p_crack"),
                v.get("p_band"),
                v.get("g_leak"),
            ))
        },
    },
    PartType {
        name: "CounterbalanceValve",
        description: "A counterbalance valve between load and out, piloted at pilot, with a built-in check valve from out to load",
        parameters: &[
            required(
                "k_max",
                "m3/(s sqrt(Pa))",
                "Flow coefficient of the open poppet",
            ),
            default("p_tr", "Pa", P_TR, "Transition pressure of the orifice law"),
            required("p_set", "Pa", "Setting"),
            required("pilot_ratio", "1", "Pilot ratio"),
            required("p_band", "Pa", "Opening band"),
            required(
                "check_k",
                "m3/(s sqrt(Pa))",
                "Flow coefficient of the check valve",
            ),
            required(
                "check_p_crack",
                "Pa",
                "Cracking pressure of the check valve",
            ),
            required("check_p_band", "Pa", "Opening band of the check valve"),
            default(
                "check_g_leak",
                "m3/(s Pa)",
                0.0,
                "Seat leakage of the check valve",
            ),
        ],
        states: &[],
        build: |v| {
            let check = CheckLaw {
                k: v.get("check_k"),
                p_tr: v.get("p_tr"),
                p_crack: v.get("check_p_crack"),
                p_band: v.get("check_p_band"),
                g_leak: v.get("check_g_leak"),
            };
            arc(parts::CounterbalanceValve::new(
                v.get("k_max"),
                v.get("p_tr"),
                v.get("p_set"),
                v.get("pilot_ratio"),
                v.get("p_band"),
                check,
            ))
        },
    },
    PartType {
        name: "PressureCompensator",
        description: "A pressure compensator: a throttle from P to A whose coefficient K holds A a margin C5 above the higher of the pilot pressures LA, LB (shuttle valve); state K",
        parameters: &[
            required(
                "C1",
                "Pa s sqrt(Pa)/m3",
                "Constant C1 of the throttle dynamics",
            ),
            required("C2", "1", "Constant C2, per bar of the drop P to A"),
            required(
                "C3",
                "Pa s sqrt(Pa)/m3",
                "Constant C3 (time scale) of the throttle dynamics",
            ),
            required("C5", "Pa", "Pressure margin held above the load pressure"),
            required(
                "K_max",
                "m3/(s sqrt(Pa))",
                "Largest throttle coefficient (fully open)",
            ),
            default(
                "K0",
                "m3/(s sqrt(Pa))",
                0.0,
                "Throttle coefficient at the start",
            ),
            default("p_tr", "Pa", P_TR, "Transition pressure of the orifice law"),
        ],
        states: &[("K", "m3/(s sqrt(Pa))")],
        build: |v| {
            let law = hydraulics::PressureCompensator {
                c1: v.get("C1"),
                c2: v.get("C2"),
                c3: v.get("C3"),
                c5: v.get("C5"),
                k_max: v.get("K_max"),
                p_tr: v.get("p_tr"),
            };
            arc(parts::PressureCompensator::new(law, v.get("K0")))
        },
    },
    PartType {
        name: "ConstantFlowPump",
        description: "A pump delivering a fixed flow from T to P",
        parameters: &[required("Q", "m3/s", "Delivered flow")],
        states: &[],
        build: |v| arc(parts::ConstantFlowPump::new(v.get("Q"))),
    },
    PartType {
        name: "FixedDisplacementPump",
        description: "A pump driven at its shaft, from T to P",
        parameters: &MACHINE,
        states: &[],
        build: |v| {
            arc(parts::FixedDisplacementPump::new(
                v.get("D"),
                v.get("c_leak"),
                v.get("b_visc"),
                v.get("tau_c"),
                v.get("omega_reg"),
            ))
        },
    },
    PartType {
        name: "FixedDisplacementMotor",
        description: "A motor taking oil in at A, out at B, driving its shaft",
        parameters: &MACHINE,
        states: &[],
        build: |v| {
            arc(parts::FixedDisplacementMotor::new(
                v.get("D"),
                v.get("c_leak"),
                v.get("b_visc"),
                v.get("tau_c"),
                v.get("omega_reg"),
            ))
        },
    },
    PartType {
        name: "Inertia",
        description: "A rotating load on port shaft; states phi, w",
        parameters: &[
            required("J", "kg m2", "Moment of inertia"),
            default("b", "N m s/rad", 0.0, "Viscous damping"),
            default("tau_c", "N m", 0.0, "Dry (Coulomb) friction torque"),
            default(
                "omega_reg",
                "rad/s",
                1.0,
                "Speed over which the dry friction is regularised",
            ),
            default("tau_load", "N m", 0.0, "Constant load torque"),
            default("w0", "rad/s", 0.0, "Speed at the start"),
        ],
        states: &[("phi", "rad"), ("w", "rad/s")],
        build: |v| {
            arc(parts::Inertia::new(
                v.get("J"),
                v.get("b"),
                v.get("tau_c"),
                v.get("omega_reg"),
                v.get("tau_load"),
                v.get("w0"),
            ))
        },
    },
    PartType {
        name: "Accumulator",
        description: "A gas-charged accumulator with the dead volume of its node; port A; state p",
        parameters: with_fluid![
            required("p0", "Pa", "Precharge pressure (gauge)"),
            required("V0", "m3", "Gas volume at precharge"),
            default(
                "n",
                "1",
                1.4,
                "Polytropic exponent (1 isothermal, 1.4 adiabatic)"
            ),
            default("p_atm", "Pa", 101_325.0, "Ambient pressure"),
            default(
                "p_band",
                "Pa",
                1e5,
                "Width of the smoothed transition at the precharge"
            ),
            required("V_dead", "m3", "Dead volume of oil at the node"),
            default("p_start", "Pa", 0.0, "Pressure at the start"),
        ],
        states: &[("p", "Pa")],
        build: |v| {
            let law = GasAccumulator {
                p0: v.get("p0"),
                v0: v.get("V0"),
                n: v.get("n"),
                p_atm: v.get("p_atm"),
                p_band: v.get("p_band"),
                v_dead: v.get("V_dead"),
            };
            arc(parts::Accumulator::new(law, fluid(v), v.get("p_start")))
        },
    },
    PartType {
        name: "Cylinder",
        description: "A double-acting cylinder between fixed volumes: ports A, B, rod",
        parameters: &[
            required("A1", "m2", "Piston area"),
            required("A2", "m2", "Annulus (rod side) area"),
        ],
        states: &[],
        build: |v| arc(parts::Cylinder::new(v.get("A1"), v.get("A2"))),
    },
    PartType {
        name: "ChamberCylinder",
        description: "A double-acting cylinder holding its chambers' pressures: ports A, B, rod; states p_A, p_B",
        parameters: with_fluid![
            required("A1", "m2", "Piston area"),
            required("A2", "m2", "Annulus (rod side) area"),
            required("stroke", "m", "Stroke"),
            required("V_dA", "m3", "Dead volume of chamber A"),
            required("V_dB", "m3", "Dead volume of chamber B"),
            default("p_A0", "Pa", 0.0, "Pressure of chamber A at the start"),
            default("p_B0", "Pa", 0.0, "Pressure of chamber B at the start"),
        ],
        states: &[("p_A", "Pa"), ("p_B", "Pa")],
        build: |v| {
            let law = hydraulics::Cylinder {
                a1: v.get("A1"),
                a2: v.get("A2"),
                stroke: v.get("stroke"),
                v_dead_a: v.get("V_dA"),
                v_dead_b: v.get("V_dB"),
            };
            arc(parts::ChamberCylinder::new(
                law,
                fluid(v),
                v.get("p_A0"),
                v.get("p_B0"),
            ))
        },
    },
    PartType {
        name: "Mass",
        description: "A mass on port rod, optionally between end stops; states s, v",
        parameters: &[
            required("m", "kg", "Mass"),
            default("c", "N s/m", 0.0, "Viscous damping"),
            default("F_ext", "N", 0.0, "Constant external force along +s"),
            default("s0", "m", 0.0, "Position at the start"),
            optional("s_min", "m", "Lower end stop (with s_max and k_stop)"),
            optional("s_max", "m", "Upper end stop (with s_min and k_stop)"),
            optional("k_stop", "N/m", "Contact stiffness of the stops"),
            default("c_stop", "N s/m", 0.0, "Contact damping of the stops"),
            default(
                "F_c",
                "N",
                0.0,
                "Dry friction force F_c tanh(v/v_c), largest value",
            ),
            default(
                "v_c",
                "m/s",
                1e-3,
                "Speed over which the dry friction is regularised",
            ),
        ],
        states: &[("s", "m"), ("v", "m/s")],
        build: |v| {
            let mut mass = parts::Mass::new(v.get("m"), v.get("c"), v.get("F_ext"), v.get("s0"))?;
            if v.get("F_c") != 0.0 {
                mass = mass.with_dry_friction(v.get("F_c"), v.get("v_c"))?;
            }
            match (v.opt("s_min"), v.opt("s_max"), v.opt("k_stop")) {
                (None, None, None) => arc(Ok(mass)),
                (Some(lo), Some(hi), Some(k)) => arc(mass.with_stops(lo, hi, k, v.get("c_stop"))),
                _ => Err("end stops need all of s_min, s_max and k_stop".into()),
            }
        },
    },
    PartType {
        name: "LuGreMass",
        description: "A mass on port rod with LuGre friction between end stops; states s, v, z (bristle deflection)",
        parameters: &[
            required("m", "kg", "Mass"),
            required("sigma0", "N/m", "Bristle stiffness"),
            default("sigma1", "N s/m", 0.0, "Bristle damping"),
            default("kv", "N s/m", 0.0, "Viscous coefficient"),
            required("Fc", "N", "Coulomb force"),
            required("Fs", "N", "Static (break-away) force, at least Fc"),
            required("vs", "m/s", "Stribeck velocity"),
            required("s_min", "m", "Lower end stop"),
            required("s_max", "m", "Upper end stop"),
            required("k_stop", "N/m", "Contact stiffness of the stops"),
            default("c_stop", "N s/m", 0.0, "Contact damping of the stops"),
            default("s0", "m", 0.0, "Position at the start"),
        ],
        states: &[("s", "m"), ("v", "m/s"), ("z", "m")],
        build: |v| {
            let friction = hydraulics::LuGre {
                sigma0: v.get("sigma0"),
                sigma1: v.get("sigma1"),
                kv: v.get("kv"),
                fc: v.get("Fc"),
                fs: v.get("Fs"),
                vs: v.get("vs"),
            };
            let stops = hydraulics::EndStops {
                x_min: v.get("s_min"),
                x_max: v.get("s_max"),
                stiffness: v.get("k_stop"),
                damping: v.get("c_stop"),
            };
            arc(parts::LuGreMass::new(
                v.get("m"),
                friction,
                stops,
                v.get("s0"),
            ))
        },
    },
    PartType {
        name: "Spool",
        description: "A proportional valve's spool: command U in, spool signal Us out; states Us, dUs",
        parameters: &[
            default("Kv", "1", 1.0, "Valve gain"),
            required("wn", "rad/s", "Natural angular frequency"),
            required("zeta", "1", "Damping ratio"),
        ],
        states: &[("Us", "V"), ("dUs", "V/s")],
        build: |v| arc(parts::Spool::new(v.get("Kv"), v.get("wn"), v.get("zeta"))),
    },
    PartType {
        name: "DirectionalValve",
        description: "A 4/3 proportional directional valve: ports P, A, B, T, spool signal Us; a deadband ud, or overlaps (u_nom, c1, c2)",
        parameters: &[
            required(
                "cv",
                "m3/(s V sqrt(Pa))",
                "Flow constant per volt of opening",
            ),
            optional(
                "ud",
                "V",
                "Deadband half-width (0 when no overlaps are given)",
            ),
            optional("u_nom", "V", "Spool signal at full stroke (overlaps)"),
            optional("c1", "1", "Positive overlap of the supply edges (overlaps)"),
            optional("c2", "1", "Negative overlap of the tank edges (overlaps)"),
            default("p_tr", "Pa", P_TR, "Transition pressure of the orifice law"),
        ],
        states: &[],
        build: |v| {
            let opening = match (v.opt("ud"), v.opt("u_nom"), v.opt("c1"), v.opt("c2")) {
                (ud, None, None, None) => Opening::Deadband {
                    ud: ud.unwrap_or(0.0),
                },
                (None, Some(u_nom), Some(c1), Some(c2)) => Opening::Overlap { u_nom, c1, c2 },
                (Some(_), _, _, _) => {
                    return Err("give a deadband ud or overlaps (u_nom, c1, c2), not both".into());
                }
                _ => return Err("overlaps need all of u_nom, c1 and c2".into()),
            };
            arc(parts::DirectionalValve::new(
                v.get("cv"),
                opening,
                v.get("p_tr"),
            ))
        },
    },
    PartType {
        name: "HoseH",
        description: "A hydraulic hose of n lumped segments (Grossschmidt and Harf 2017), causal form H: it sets the pressure at A (a volume port) and the flow at B; segment C - R - L; n node pressures and n branch flows, numbered from A to B",
        parameters: &HOSE,
        states: &HOSE_STATES,
        build: |v| hose(parts::HoseForm::H, v),
    },
    PartType {
        name: "HoseG",
        description: "A hydraulic hose of n lumped segments (Grossschmidt and Harf 2017), causal form G: it sets the flow at A and the pressure at B (a volume port); segment L - R - C; n node pressures and n branch flows, numbered from A to B",
        parameters: &HOSE,
        states: &HOSE_STATES,
        build: |v| hose(parts::HoseForm::G, v),
    },
    PartType {
        name: "HoseY",
        description: "A hydraulic hose of n lumped segments (Grossschmidt and Harf 2017), causal form Y: it sets the flows at A and B; segment L/2 - R/2 - C - R/2 - L/2; n node pressures and n + 1 branch flows, numbered from A to B",
        parameters: &HOSE,
        states: &HOSE_STATES,
        build: |v| hose(parts::HoseForm::Y, v),
    },
    PartType {
        name: "HoseZ",
        description: "A hydraulic hose of n lumped segments (Grossschmidt and Harf 2017), causal form Z: it sets the pressures at A and B (volume ports); segment C/2 - R/2 - L - R/2 - C/2; n + 1 node pressures and n branch flows, numbered from A to B",
        parameters: &HOSE,
        states: &HOSE_STATES,
        build: |v| hose(parts::HoseForm::Z, v),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::parse_unit;

    #[test]
    fn the_schema_file_is_the_registry_s() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/circuit.schema.json");
        let file = std::fs::read_to_string(path).unwrap_or_default();
        let schema = json_schema();
        assert!(
            file == schema,
            "{path} is out of date: write registry::json_schema() into it \
             (cargo test -p circuit-file -- --ignored write_the_schema_file)"
        );
        let parsed: serde_json::Value = serde_json::from_str(&schema).unwrap();
        let alternatives = parsed["properties"]["parts"]["additionalProperties"]["oneOf"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(alternatives, part_types().len());
    }

    /// Writes the schema file from the registry (run by hand after a
    /// change to the part types).
    #[test]
    #[ignore]
    fn write_the_schema_file() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/circuit.schema.json");
        std::fs::write(path, json_schema()).unwrap();
    }

    /// Writes the part-type tables into docs/circuit-files.md, from its
    /// first `### ` heading after `## Part types` to the end (run by hand
    /// after a change to the part types).
    #[test]
    #[ignore]
    fn write_the_documentation_tables() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../docs/circuit-files.md"
        );
        let doc = std::fs::read_to_string(path).unwrap();
        let section = doc.find("## Part types").unwrap();
        let start = section + doc[section..].find("\n### ").unwrap() + 1;
        let table = markdown();
        std::fs::write(path, format!("{}{table}", &doc[..start])).unwrap();
    }

    #[test]
    fn the_documentation_lists_every_part_type_as_the_registry_does() {
        let doc = include_str!("../../../../docs/circuit-files.md");
        let table = markdown();
        assert!(
            doc.contains(&table),
            "docs/circuit-files.md is out of date: paste registry::markdown() into it \
             (cargo test -p circuit-file -- --ignored write_the_documentation_tables):\n{table}"
        );
    }

    /// Writes [`readme_table`] into README.md in place of the table that
    /// starts with its header line (run by hand after a change to the part
    /// types).
    #[test]
    #[ignore]
    fn write_the_readme_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../README.md");
        let readme = std::fs::read_to_string(path).unwrap();
        let table = readme_table();
        let header = table.lines().next().unwrap();
        let start = readme.find(header).unwrap();
        let end = start + readme[start..].find("\n\n").unwrap() + 1;
        std::fs::write(
            path,
            format!("{}{table}{}", &readme[..start], &readme[end..]),
        )
        .unwrap();
    }

    #[test]
    fn the_readme_lists_every_part_type_as_the_registry_does() {
        let readme = include_str!("../../../../README.md");
        let table = readme_table();
        assert!(
            readme.contains(&table),
            "README.md's part table is out of date: paste registry::readme_table() into it \
             (cargo test -p circuit-file -- --ignored write_the_readme_table):\n{table}"
        );
        assert_eq!(table.lines().count(), part_types().len() + 2);
    }

    #[test]
    fn a_state_s_unit_is_found_by_name_and_series() {
        let hose = part_type("HoseH").unwrap();
        assert_eq!(hose.state_unit("p1"), Some("Pa"));
        assert_eq!(hose.state_unit("p14"), Some("Pa"));
        assert_eq!(hose.state_unit("q7"), Some("m3/s"));
        for not in ["p", "p0", "q01", "px", "r1", "p1a"] {
            assert_eq!(hose.state_unit(not), None, "{not}");
        }
        let chamber = part_type("Chamber").unwrap();
        assert_eq!(chamber.state_unit("p"), Some("Pa"));
        assert_eq!(chamber.state_unit("p1"), None);
    }

    /// Every hose part type builds from its defaults (n = 1), and refuses
    /// a segment count that is not a whole number in 1..14.
    #[test]
    fn hose_types_build_and_check_their_segment_count() {
        for name in ["HoseH", "HoseG", "HoseY", "HoseZ"] {
            let t = part_type(name).unwrap();
            let mut v = Values::default();
            for p in t.parameters {
                if let Need::Default(d) = p.need {
                    v.set(p.name, d);
                }
            }
            let part = t.build(&v).unwrap();
            let states: Vec<&str> = part.states().iter().map(|s| s.name).collect();
            assert!(
                states.iter().all(|s| t.state_unit(s).is_some()),
                "{states:?}"
            );
            for bad in [0.0, 2.5, 15.0] {
                v.set("n", bad);
                assert!(t.build(&v).unwrap_err().contains("whole number"), "{bad}");
            }
            v.set("n", 3.0);
            v.set("tangent_wall_slope", 0.5);
            assert!(t.build(&v).unwrap_err().contains("0 or 1"));
        }
    }

    #[test]
    fn every_parameter_unit_is_si_and_every_default_is_finite() {
        for t in part_types() {
            for p in t.parameters {
                let u = parse_unit(p.unit).unwrap_or_else(|e| panic!("{}.{}: {e}", t.name, p.name));
                assert_eq!(u.factor, 1.0, "{}.{}: {} is not SI", t.name, p.name, p.unit);
                if let Need::Default(v) = p.need {
                    assert!(v.is_finite());
                }
            }
            for (_, unit) in t.states {
                assert_eq!(parse_unit(unit).unwrap().factor, 1.0);
            }
            let mut names: Vec<&str> = t.parameters.iter().map(|p| p.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), t.parameters.len(), "{}", t.name);
        }
    }
}
