//! A small but representative model description shared by the unit tests.

use crate::model::{
    Capabilities, DefaultExperiment, Documentation, Initial, LogCategory, ModelDescription,
    Variable,
};

/// Value references of the sample, named for the tests.
pub(crate) mod vr {
    pub const TIME: u32 = 0;
    pub const PS: u32 = 1;
    pub const PT: u32 = 2;
    pub const P1: u32 = 10;
    pub const P2: u32 = 11;
    pub const Q1: u32 = 12;
    pub const F: u32 = 13;
    pub const RHO: u32 = 100;
    pub const CD: u32 = 101;
    pub const V1: u32 = 102;
    pub const USE_LUGRE: u32 = 103;
    pub const N_SEG: u32 = 104;
    pub const TAU: u32 = 105;
    pub const DP12: u32 = 200;
}

/// An orifice-chain-like description: time, two pressure inputs, four
/// outputs (one with direct feedthrough from `ps`, one with unknown
/// dependencies, one with `initial="approx"`), Real/Boolean/Integer
/// parameters (one tunable), a calculated parameter and a local.
pub(crate) fn sample() -> ModelDescription {
    let mut p2 = Variable::real("p2", vr::P2)
        .describe("Pressure in volume 2")
        .unit("Pa", Some("bar"))
        .range(Some(0.0), None)
        .output(&[]);
    p2.initial = Some(Initial::Approx);
    if let crate::VariableType::Real { start, .. } = &mut p2.kind {
        *start = Some(1.0e5 + 0.1);
    }
    let mut force = Variable::real("F", vr::F)
        .describe("Force on the piston")
        .unit("N", Some("kN"))
        .output(&[]);
    force.dependencies = None;
    let mut tau = Variable::real("tau", vr::TAU)
        .describe("Hydraulic time constant of volume 1")
        .unit("s", Some("ms"));
    tau.causality = crate::Causality::CalculatedParameter;
    tau.variability = crate::Variability::Fixed;

    ModelDescription {
        model_name: "OrificeChain".into(),
        model_identifier: "OrificeChain".into(),
        description: "Three orifices & two volumes <test model>".into(),
        version: "0.1.0".into(),
        generation_tool: "model-description tests".into(),
        variables: vec![
            Variable::real("time", vr::TIME)
                .describe("Simulation time")
                .unit("s", None)
                .independent(),
            Variable::real("ps", vr::PS)
                .describe("Supply pressure")
                .unit("Pa", Some("bar"))
                .range(Some(0.0), Some(4.0e7))
                .nominal(1.0e7)
                .input(1.0e7),
            Variable::real("pt", vr::PT)
                .describe("Tank pressure")
                .unit("Pa", Some("bar"))
                .range(Some(0.0), Some(4.0e7))
                .input(1.0e5),
            Variable::real("p1", vr::P1)
                .describe("Pressure in volume 1 (\"between\" orifices 1 & 2)")
                .unit("Pa", Some("bar"))
                .output(&[]),
            p2,
            Variable::real("Q1", vr::Q1)
                .describe("Flow through orifice 1")
                .unit("m3/s", Some("L/min"))
                .output(&[vr::PS]),
            force,
            Variable::real("rho", vr::RHO)
                .describe("Oil density")
                .unit("kg/m3", None)
                .range(Some(700.0), Some(1000.0))
                .parameter(870.0),
            Variable::real("Cd", vr::CD)
                .describe("Discharge coefficient, < 1")
                .unit("1", None)
                .range(Some(0.0), Some(1.0))
                .parameter(0.61)
                .tunable(),
            Variable::real("V1", vr::V1)
                .describe("Volume between orifices 1 and 2\nline two")
                .unit("m3", Some("cm3"))
                .range(Some(1e-9), None)
                .parameter(1.0e-5 / 3.0),
            Variable::boolean("useLuGre", vr::USE_LUGRE)
                .describe("Use LuGre friction")
                .parameter(1.0),
            Variable::integer("nSegments", vr::N_SEG)
                .describe("Number of hose segments")
                .range(Some(1.0), Some(100.0))
                .parameter(10.0),
            tau,
            Variable::real("dp12", vr::DP12)
                .describe("Pressure drop over orifice 2")
                .unit("Pa", Some("MPa")),
        ],
        log_categories: vec![
            LogCategory {
                name: "logStatusError".into(),
                description: "Errors & failures".into(),
            },
            LogCategory {
                name: "logSolver".into(),
                description: "Integrator <step> statistics".into(),
            },
        ],
        default_experiment: DefaultExperiment {
            start_time: 0.0,
            stop_time: 2.0,
            tolerance: 1e-6,
            step_size: 1e-3,
        },
        capabilities: Capabilities {
            provides_directional_derivative: false,
            ..Capabilities::default()
        },
        documentation: Documentation {
            page_markdown: "# OrificeChain\n\nThree orifices in series.\n\n\
                            ## Equations\n\n(E1) `Q = Cd A sqrt(2 dp / rho)`\n\n\
                            | a | b |\n|---|---|\n| 1 < 2 | x |\n"
                .into(),
        },
        terminals: Vec::new(),
        model_exchange: false,
        event_indicators: Vec::new(),
    }
}
