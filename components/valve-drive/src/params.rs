//! Parameter tables of the valve drive and the carriage, with the card's
//! defaults (seed 000 Table 2 and the card's replaced values).

use fmu_core::Values;
use fmu_core::model_description::Variable;
use hydraulics::{
    BulkModulus, Cylinder, DirectionalValve, EndStops, LogBase, LuGre, Opening,
    PressureCompensator, ProportionalSpool,
};

/// One parameter: name, default (SI), unit, display unit, range, description.
struct Spec {
    name: &'static str,
    default: f64,
    unit: Option<&'static str>,
    display: Option<&'static str>,
    min: Option<f64>,
    max: Option<f64>,
    boolean: bool,
    text: &'static str,
}

const fn real(
    name: &'static str,
    default: f64,
    unit: Option<&'static str>,
    display: Option<&'static str>,
    min: Option<f64>,
    text: &'static str,
) -> Spec {
    Spec {
        name,
        default,
        unit,
        display,
        min,
        max: None,
        boolean: false,
        text,
    }
}

const P: Option<&str> = Some("Pa");
const BAR: Option<&str> = Some("bar");
const POS: Option<f64> = Some(0.0);
const VAC: Option<f64> = Some(-1e5);

/// Offsets of the hydraulic parameters from the first value reference.
pub mod h {
    #![allow(missing_docs)]
    pub const PS: u32 = 0;
    pub const PT: u32 = 1;
    pub const P1_0: u32 = 2;
    pub const P2_0: u32 = 3;
    pub const PV_0: u32 = 4;
    pub const C1: u32 = 5;
    pub const C2: u32 = 6;
    pub const C3: u32 = 7;
    pub const C5: u32 = 8;
    pub const K_0: u32 = 9;
    pub const KMAX: u32 = 10;
    pub const A1: u32 = 11;
    pub const A2: u32 = 12;
    pub const SC: u32 = 13;
    pub const VDEAD: u32 = 14;
    pub const VV: u32 = 15;
    pub const CV: u32 = 16;
    pub const UD: u32 = 17;
    pub const KV: u32 = 18;
    pub const WN: u32 = 19;
    pub const ZETA: u32 = 20;
    pub const P_TR: u32 = 21;
    pub const EMAX: u32 = 22;
    pub const PMAX: u32 = 23;
    pub const BA1: u32 = 24;
    pub const BA2: u32 = 25;
    pub const BA3: u32 = 26;
    pub const QUASI_STATIC: u32 = 27;
    pub const VALVE_OVERLAP: u32 = 28;
    pub const U_NOM: u32 = 29;
    pub const OVERLAP_C1: u32 = 30;
    pub const OVERLAP_C2: u32 = 31;
    /// Number of hydraulic parameters.
    pub const COUNT: u32 = 32;
}

const HYDRAULIC: [Spec; h::COUNT as usize] = [
    real(
        "ps",
        1.4e7,
        P,
        BAR,
        VAC,
        "Pump (supply) pressure, ideal source",
    ),
    real(
        "pt",
        9e5,
        P,
        BAR,
        VAC,
        "Tank pressure (9 bar back-pressure, seed Table 2)",
    ),
    real("p1_0", 9e5, P, BAR, VAC, "Initial pressure in chamber A"),
    real("p2_0", 9e5, P, BAR, VAC, "Initial pressure in chamber B"),
    real(
        "pv_0",
        9e5,
        P,
        BAR,
        VAC,
        "Initial pressure in the small volume Vv",
    ),
    real(
        "C1",
        4.65e7,
        None,
        None,
        None,
        "Compensator constant C1 (Pa per unit of K, i.e. Pa s sqrt(Pa)/m3)",
    ),
    real(
        "C2",
        -1.79e4,
        None,
        None,
        None,
        "Compensator constant C2, per bar of drop ps - pv (card: the drop is taken in bar)",
    ),
    real(
        "C3",
        4.0e11,
        None,
        None,
        POS,
        "Compensator constant C3 (response time ~1 ms; Pa s per unit of K)",
    ),
    real(
        "C5",
        1e6,
        P,
        BAR,
        None,
        "Compensator margin: pv - max(p1, p2) held while moving",
    ),
    real(
        "K_0",
        5e-11,
        None,
        None,
        POS,
        "Initial compensator throttle coefficient, m3/(s sqrt(Pa))",
    ),
    real(
        "Kmax",
        5e-8,
        None,
        None,
        POS,
        "Largest compensator throttle coefficient (fully open; anti-windup clamp), m3/(s sqrt(Pa))",
    ),
    real(
        "A1",
        8.04e-4,
        Some("m2"),
        Some("mm2"),
        POS,
        "Piston area (chamber A), 32 mm bore",
    ),
    real(
        "A2",
        4.24e-4,
        Some("m2"),
        Some("mm2"),
        POS,
        "Annulus area (chamber B), 22 mm rod",
    ),
    real("Sc", 1.0, Some("m"), Some("mm"), POS, "Cylinder stroke"),
    real(
        "Vdead",
        1e-3,
        Some("m3"),
        Some("cm3"),
        POS,
        "Dead volume of each chamber, lines included",
    ),
    real(
        "Vv",
        1e-5,
        Some("m3"),
        Some("cm3"),
        POS,
        "Small volume between compensator and valve",
    ),
    real(
        "Cv",
        2.315e-9,
        None,
        None,
        POS,
        "Valve flow constant, m3/(s V sqrt(Pa))",
    ),
    real(
        "Ud",
        2.0,
        Some("V"),
        None,
        POS,
        "Valve deadband (half-width) of the spool signal",
    ),
    real(
        "Kv",
        0.99,
        Some("1"),
        None,
        None,
        "Valve gain (spool signal per command)",
    ),
    real(
        "wn",
        331.0,
        Some("rad/s"),
        None,
        POS,
        "Natural angular frequency of the spool",
    ),
    real(
        "zeta",
        0.62,
        Some("1"),
        None,
        POS,
        "Damping ratio of the spool",
    ),
    real(
        "p_tr",
        1e5,
        P,
        BAR,
        POS,
        "Transition pressure of the regularised orifice law",
    ),
    real(
        "Emax",
        1.8e9,
        P,
        Some("MPa"),
        POS,
        "Maximum bulk modulus of the oil",
    ),
    real(
        "pmax",
        2.8e7,
        P,
        BAR,
        POS,
        "Maximum system pressure (bulk-modulus law)",
    ),
    real(
        "a1",
        0.5,
        Some("1"),
        None,
        POS,
        "Bulk-modulus law constant a1",
    ),
    real(
        "a2",
        90.0,
        Some("1"),
        None,
        POS,
        "Bulk-modulus law constant a2",
    ),
    real(
        "a3",
        3.0,
        Some("1"),
        None,
        Some(1.0),
        "Bulk-modulus law constant a3 (> 1)",
    ),
    Spec {
        boolean: true,
        ..real(
            "quasi_static",
            0.0,
            None,
            None,
            None,
            "Quasi-static small volume (card V7): pv from the flow balance Qv = Q3 instead of its stiff pressure equation",
        )
    },
    Spec {
        boolean: true,
        ..real(
            "valve_overlap",
            0.0,
            None,
            None,
            None,
            "Use seed 002's edge overlaps (c1, c2 on Us/u_nom) instead of the symmetric deadband Ud",
        )
    },
    real(
        "u_nom",
        10.0,
        Some("V"),
        None,
        POS,
        "Spool signal at full stroke (overlap option)",
    ),
    Spec {
        max: Some(1.0),
        ..real(
            "c1",
            0.05,
            Some("1"),
            None,
            POS,
            "Positive overlap of the supply edges, normalised (overlap option, seed 002)",
        )
    },
    Spec {
        max: Some(1.0),
        ..real(
            "c2",
            0.2,
            Some("1"),
            None,
            POS,
            "Negative overlap of the tank edges, normalised (overlap option, seed 002)",
        )
    },
];

/// Offsets of the carriage parameters from the first value reference.
pub mod m {
    #![allow(missing_docs)]
    pub const MASS: u32 = 0;
    pub const X_0: u32 = 1;
    pub const SIGMA0: u32 = 2;
    pub const SIGMA1: u32 = 3;
    pub const KV_VISC: u32 = 4;
    pub const FC: u32 = 5;
    pub const FS: u32 = 6;
    pub const VS: u32 = 7;
    pub const K_S: u32 = 8;
    pub const C_S: u32 = 9;
    /// Number of carriage parameters.
    pub const COUNT: u32 = 10;
}

const CARRIAGE: [Spec; m::COUNT as usize] = [
    real("m", 200.0, Some("kg"), None, POS, "Moving mass"),
    real(
        "x_0",
        1.0,
        Some("m"),
        Some("mm"),
        None,
        "Initial position (the card starts at full stroke, on the end stop)",
    ),
    real(
        "sigma0",
        2.15e6,
        Some("N/m"),
        None,
        POS,
        "LuGre bristle stiffness (card: replaced; the seed's 320 N/m gives 1.1 m of pre-sliding)",
    ),
    real(
        "sigma1",
        6.368,
        Some("N.s/m"),
        None,
        POS,
        "LuGre bristle damping",
    ),
    real(
        "kv",
        1280.0,
        Some("N.s/m"),
        None,
        POS,
        "Viscous friction coefficient",
    ),
    real(
        "Fc",
        320.0,
        Some("N"),
        None,
        POS,
        "Coulomb friction force (card: replaced; the seed prints 2.15e6 N)",
    ),
    real(
        "Fs",
        364.0,
        Some("N"),
        None,
        POS,
        "Stiction force (card: replaced; the seed prints 1.1376e10 N, read as 1.1376 Fc)",
    ),
    real(
        "vs",
        3.47e-3,
        Some("m/s"),
        Some("mm/s"),
        POS,
        "Stribeck velocity (card: replaced; the seed prints 347 m/s)",
    ),
    real(
        "k_s",
        1e8,
        Some("N/m"),
        None,
        POS,
        "End-stop contact stiffness (card: added)",
    ),
    real(
        "c_s",
        2e5,
        Some("N.s/m"),
        None,
        POS,
        "End-stop contact damping (card: added)",
    ),
];

fn variables(specs: &[Spec], first_vr: u32) -> Vec<Variable> {
    specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let vr = first_vr + i as u32;
            if s.boolean {
                return Variable::boolean(s.name, vr)
                    .parameter(s.default)
                    .describe(s.text);
            }
            let mut v = Variable::real(s.name, vr)
                .parameter(s.default)
                .range(s.min, s.max)
                .describe(s.text);
            if let Some(u) = s.unit {
                v = v.unit(u, s.display);
            }
            v
        })
        .collect()
}

/// The hydraulic parameters as variables with value references
/// `first_vr..first_vr + h::COUNT`.
pub fn hydraulic_variables(first_vr: u32) -> Vec<Variable> {
    variables(&HYDRAULIC, first_vr)
}

/// The carriage parameters as variables from `first_vr`.
pub fn carriage_variables(first_vr: u32) -> Vec<Variable> {
    variables(&CARRIAGE, first_vr)
}

fn strictly_positive(name: &str, value: f64) -> Result<(), String> {
    if value > 0.0 {
        Ok(())
    } else {
        Err(format!("{name} must be positive"))
    }
}

/// Per-value physical checks beyond the table's ranges (offset within the
/// hydraulic table).
pub fn check_hydraulic(offset: u32, value: f64) -> Result<(), String> {
    use h::*;
    match offset {
        C3 | KMAX | A1 | A2 | SC | VDEAD | VV | CV | WN | ZETA | P_TR | EMAX | PMAX | BA1
        | U_NOM => strictly_positive(HYDRAULIC[offset as usize].name, value),
        BA3 if value <= 1.0 => Err("a3 must be > 1".into()),
        _ => Ok(()),
    }
}

/// Per-value physical checks of the carriage table.
pub fn check_carriage(offset: u32, value: f64) -> Result<(), String> {
    use m::*;
    match offset {
        MASS | SIGMA0 | FC | FS | VS => strictly_positive(CARRIAGE[offset as usize].name, value),
        _ => Ok(()),
    }
}

/// The drive's elements from the parameter values (table at `first_vr`).
pub fn read_hydraulics(v: &Values, first_vr: u32) -> Result<crate::ValveDrive, String> {
    use h::*;
    let r = |o: u32| v.real(first_vr + o);
    let fluid = BulkModulus {
        e_max: r(EMAX),
        p_max: r(PMAX),
        a1: r(BA1),
        a2: r(BA2),
        a3: r(BA3),
        log: LogBase::Ten,
    };
    fluid.check()?;
    if r(K_0) > r(KMAX) {
        return Err(format!("K_0 = {} exceeds Kmax = {}", r(K_0), r(KMAX)));
    }
    let opening = if v.boolean(first_vr + VALVE_OVERLAP) {
        Opening::Overlap {
            u_nom: r(U_NOM),
            c1: r(OVERLAP_C1),
            c2: r(OVERLAP_C2),
        }
    } else {
        Opening::Deadband { ud: r(UD) }
    };
    Ok(crate::ValveDrive {
        ps: r(PS),
        pt: r(PT),
        spool: ProportionalSpool {
            gain: r(KV),
            omega: r(WN),
            damping: r(ZETA),
        },
        compensator: PressureCompensator {
            c1: r(C1),
            c2: r(C2),
            c3: r(C3),
            c5: r(C5),
            k_max: r(KMAX),
            p_tr: r(P_TR),
        },
        valve: DirectionalValve {
            cv: r(CV),
            opening,
            p_tr: r(P_TR),
        },
        cylinder: Cylinder {
            a1: r(A1),
            a2: r(A2),
            stroke: r(SC),
            v_dead: r(VDEAD),
        },
        fluid,
        vv: r(VV),
        quasi_static: v.boolean(first_vr + QUASI_STATIC),
        initial: [0.0, 0.0, r(K_0), r(P1_0), r(P2_0), r(PV_0)],
    })
}

/// The carriage from the parameter values (table at `first_vr`), moving
/// between end stops at 0 and `stroke`.
pub fn read_carriage(v: &Values, first_vr: u32, stroke: f64) -> Result<crate::Carriage, String> {
    use m::*;
    let r = |o: u32| v.real(first_vr + o);
    if r(FS) < r(FC) {
        return Err(format!("Fs = {} N must be >= Fc = {} N", r(FS), r(FC)));
    }
    Ok(crate::Carriage {
        mass: r(MASS),
        friction: LuGre {
            sigma0: r(SIGMA0),
            sigma1: r(SIGMA1),
            kv: r(KV_VISC),
            fc: r(FC),
            fs: r(FS),
            vs: r(VS),
        },
        stops: EndStops {
            x_min: 0.0,
            x_max: stroke,
            stiffness: r(K_S),
            damping: r(C_S),
        },
        x0: r(X_0),
    })
}

/// An output variable computed from the state (no direct feedthrough).
pub fn output_variable(
    name: &str,
    vr: u32,
    unit: &str,
    display: Option<&str>,
    text: &str,
) -> Variable {
    Variable::real(name, vr)
        .output(&[])
        .unit(unit, display)
        .describe(text)
}

/// The drive's outputs p1, p2, pv, Qv, Q1, Q2, Q3 with value references
/// `p1_vr..p1_vr + 7`, in that order.
pub fn hydraulic_outputs(p1_vr: u32) -> Vec<Variable> {
    [
        ("p1", "Pa", "bar", "Pressure in chamber A (piston side)"),
        ("p2", "Pa", "bar", "Pressure in chamber B (rod side)"),
        (
            "pv",
            "Pa",
            "bar",
            "Pressure in the small volume between compensator and valve",
        ),
        (
            "Qv",
            "m3/s",
            "L/min",
            "Flow through the compensator throttle",
        ),
        ("Q1", "m3/s", "L/min", "Flow into chamber A"),
        ("Q2", "m3/s", "L/min", "Flow out of chamber B"),
        (
            "Q3",
            "m3/s",
            "L/min",
            "Flow from the small volume into the valve",
        ),
    ]
    .iter()
    .enumerate()
    .map(|(i, (name, unit, display, text))| {
        output_variable(name, p1_vr + i as u32, unit, Some(display), text)
    })
    .collect()
}

/// The model description of one of this family's FMUs: its variables, the
/// family's equations and notes, a 10 s default experiment at 1 ms.
pub fn description(
    name: &str,
    text: &str,
    variables: Vec<Variable>,
    summary_html: &str,
) -> fmu_core::model_description::ModelDescription {
    use fmu_core::model_description::{
        Capabilities, DefaultExperiment, Documentation, ModelDescription,
    };
    ModelDescription {
        model_name: name.into(),
        model_identifier: name.into(),
        description: text.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        generation_tool: format!("fluidfmu {}", env!("CARGO_PKG_VERSION")),
        variables,
        log_categories: Vec::new(),
        default_experiment: DefaultExperiment {
            start_time: 0.0,
            stop_time: 10.0,
            tolerance: 1e-6,
            step_size: 1e-3,
        },
        capabilities: Capabilities::default(),
        documentation: Documentation {
            summary_html: summary_html.into(),
            equations_html: crate::doc::EQUATIONS.into(),
            notes_html: crate::doc::NOTES.into(),
        },
    }
}
