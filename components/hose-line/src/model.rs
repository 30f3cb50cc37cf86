//! The hose FMUs' model: one generic model for the four causal forms.

pub use crate::network::Form;
use crate::network::{Boundary, Line};
use fmu_core::model_description::{
    Capabilities, DefaultExperiment, Documentation, ModelDescription, Variable,
};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Model, OdeSystem, Values};
use hydraulics::hose::{HoseParameters, HoseSegment, WallSlope};

/// Largest segment count: the card's resistance correction
/// kr = kr1 - kr2 (n - 1) reaches zero at n = 15.
pub const MAX_SEGMENTS: usize = 14;
/// States reserved: the Y and Z forms have 2 n + 1 states.
pub const NX: usize = 2 * MAX_SEGMENTS + 1;

/// Value references shared by all forms.
pub mod vr {
    #![allow(missing_docs)]
    /// First input (see [`super::HoseModel::io_names`]).
    pub const IN1: u32 = 1;
    pub const IN2: u32 = 2;
    pub const OUT1: u32 = 3;
    pub const OUT2: u32 = 4;
    pub const N: u32 = 5;
    pub const L_HOSE: u32 = 6;
    pub const D: u32 = 7;
    pub const P_REF: u32 = 8;
    pub const X_REF: u32 = 9;
    pub const B: u32 = 10;
    pub const V_LIM: u32 = 11;
    pub const H: u32 = 12;
    pub const KN: u32 = 13;
    pub const KR1: u32 = 14;
    pub const KR2: u32 = 15;
    pub const ZETA: u32 = 16;
    pub const LAMBDA: u32 = 17;
    pub const AL: u32 = 18;
    pub const T: u32 = 19;
    pub const NU0: u32 = 20;
    pub const RHO15: u32 = 21;
    pub const VOL0: u32 = 22;
    pub const KA: u32 = 23;
    pub const P0: u32 = 24;
    pub const TANGENT_SLOPE: u32 = 25;
    /// Form Z only: the initial pressure level at the outlet.
    pub const P_LEVEL: u32 = 26;
}

/// The hose model of form `FORM` (0 = H, 1 = G, 2 = Y, 3 = Z).
#[derive(Debug, Clone, PartialEq)]
pub struct HoseModel<const FORM: u8> {
    line: Line,
    boundary: Boundary,
    p_level: f64,
}

/// The form of a `FORM` code.
pub const fn form(code: u8) -> Form {
    match code {
        0 => Form::H,
        1 => Form::G,
        2 => Form::Y,
        _ => Form::Z,
    }
}

struct Io {
    name: &'static str,
    pressure: bool,
    start: f64,
    text: &'static str,
}

const P1_IN: Io = Io {
    name: "p1",
    pressure: true,
    start: 1.0075e7,
    text: "Inlet pressure",
};
const P2_IN: Io = Io {
    name: "p2",
    pressure: true,
    start: 1e7,
    text: "Outlet pressure",
};
const Q1_IN: Io = Io {
    name: "Q1",
    pressure: false,
    start: 5e-4,
    text: "Inflow at the inlet",
};
const Q2_IN: Io = Io {
    name: "Q2",
    pressure: false,
    start: 5e-4,
    text: "Outflow at the outlet",
};
const P1_OUT: Io = Io {
    name: "p1",
    pressure: true,
    start: 0.0,
    text: "Inlet pressure",
};
const P2_OUT: Io = Io {
    name: "p2",
    pressure: true,
    start: 0.0,
    text: "Outlet pressure",
};
const Q1_OUT: Io = Io {
    name: "Q1",
    pressure: false,
    start: 0.0,
    text: "Inflow at the inlet",
};
const Q2_OUT: Io = Io {
    name: "Q2",
    pressure: false,
    start: 0.0,
    text: "Outflow at the outlet",
};

impl<const FORM: u8> HoseModel<FORM> {
    /// The FMU's name of the form.
    pub fn model_name() -> &'static str {
        match form(FORM) {
            Form::H => "HoseH",
            Form::G => "HoseG",
            Form::Y => "HoseY",
            Form::Z => "HoseZ",
        }
    }

    fn io() -> [Io; 4] {
        match form(FORM) {
            Form::H => [Q1_IN, P2_IN, P1_OUT, Q2_OUT],
            Form::G => [P1_IN, Q2_IN, Q1_OUT, P2_OUT],
            Form::Y => [P1_IN, P2_IN, Q1_OUT, Q2_OUT],
            Form::Z => [Q1_IN, Q2_IN, P1_OUT, P2_OUT],
        }
    }

    /// Names of (input 1, input 2, output 1, output 2).
    pub fn io_names() -> [&'static str; 4] {
        let io = Self::io();
        [io[0].name, io[1].name, io[2].name, io[3].name]
    }

    /// The state index an output shows, for `n` segments.
    fn output_state(&self, vr: u32) -> Option<usize> {
        let l = &self.line;
        let (nb, n) = (l.nodes(), l.n);
        match (form(FORM), vr) {
            (Form::H, vr::OUT1) => Some(0),
            (Form::H, vr::OUT2) => Some(nb + n - 1),
            (Form::G, vr::OUT1) => Some(nb),
            (Form::G, vr::OUT2) => Some(n - 1),
            (Form::Y, vr::OUT1) => Some(nb),
            (Form::Y, vr::OUT2) => Some(nb + n),
            (Form::Z, vr::OUT1) => Some(0),
            (Form::Z, vr::OUT2) => Some(n),
            _ => None,
        }
    }
}

fn io_variable(io: &Io, vr: u32, input: bool) -> Variable {
    let v = Variable::real(io.name, vr).describe(io.text);
    let v = if io.pressure {
        v.unit("Pa", Some("bar"))
    } else {
        v.unit("m3/s", Some("L/min"))
    };
    if input {
        let v = v.input(io.start);
        if io.pressure {
            v.range(Some(-1e5), Some(1e9))
        } else {
            v
        }
    } else {
        v.output(&[])
    }
}

fn parameter(
    name: &str,
    vr: u32,
    value: f64,
    unit: &str,
    display: Option<&str>,
    text: &str,
) -> Variable {
    Variable::real(name, vr)
        .parameter(value)
        .unit(unit, display)
        .range(Some(0.0), None)
        .describe(text)
}

impl<const FORM: u8> OdeSystem<NX> for HoseModel<FORM> {
    /// Card H7 chained over the segments (see [`crate::network`]).
    fn rhs(&self, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        let mut r = SVector::<f64, NX>::zeros();
        self.line
            .eval(x.as_slice(), &self.boundary, r.as_mut_slice(), None);
        r
    }

    fn jacobian(&self, x: &SVector<f64, NX>) -> SMatrix<f64, NX, NX> {
        let mut rates = [0.0; NX];
        let mut j = SMatrix::<f64, NX, NX>::zeros();
        let mut add = |r: usize, c: usize, v: f64| j[(r, c)] += v;
        self.line
            .eval(x.as_slice(), &self.boundary, &mut rates, Some(&mut add));
        j
    }

    fn jacobian_into(&self, x: &SVector<f64, NX>, j: &mut SMatrix<f64, NX, NX>) {
        let k = self.line.states();
        for c in 0..k {
            for r in 0..k {
                j[(r, c)] = 0.0;
            }
        }
        let mut rates = [0.0; NX];
        let mut add = |r: usize, c: usize, v: f64| j[(r, c)] += v;
        self.line
            .eval(x.as_slice(), &self.boundary, &mut rates, Some(&mut add));
    }

    fn nominal(&self) -> SVector<f64, NX> {
        let nb = self.line.nodes();
        SVector::from_fn(|i, _| if i < nb { 1e6 } else { 1e-4 })
    }

    fn active_states(&self) -> usize {
        self.line.states()
    }
}

impl<const FORM: u8> Model<NX> for HoseModel<FORM> {
    fn description() -> ModelDescription {
        let io = Self::io();
        let c = HoseParameters::card_default();
        let mut variables = vec![
            io_variable(&io[0], vr::IN1, true),
            io_variable(&io[1], vr::IN2, true),
            io_variable(&io[2], vr::OUT1, false),
            io_variable(&io[3], vr::OUT2, false),
            Variable::integer("n", vr::N)
                .parameter(1.0)
                .structural()
                .range(Some(1.0), Some(MAX_SEGMENTS as f64))
                .describe("Number of lumped segments (structural; 1..14: the resistance correction kr vanishes at 15)"),
            parameter("L_hose", vr::L_HOSE, c.hose_length, "m", Some("mm"), "Hose length"),
            parameter("d", vr::D, c.d, "m", Some("mm"), "Inner diameter"),
            parameter("p_ref", vr::P_REF, c.p_ref, "Pa", Some("bar"), "Reference pressure of the wall law"),
            parameter("x_ref", vr::X_REF, c.x_ref, "m", Some("mm"), "Radial wall deformation at p_ref (card: replaced; the paper's 4e-4 m puts the resonance at 41 Hz)"),
            parameter("b", vr::B, c.b, "m", Some("mm"), "Hysteresis width of the wall"),
            parameter("v_lim", vr::V_LIM, c.v_lim, "m/s", Some("mm/s"), "Saturation velocity of the wall hysteresis"),
            parameter("h", vr::H, c.h, "N.s/m", None, "Wall damping (quasi-static wall: time constant h/k ~ 1e-8 s)"),
            parameter("kn", vr::KN, c.kn, "1", None, "Frequency correction coefficient"),
            parameter("kr1", vr::KR1, c.kr1, "1", None, "Resistance correction kr = kr1 - kr2 (n - 1)"),
            parameter("kr2", vr::KR2, c.kr2, "1", None, "Resistance correction slope"),
            parameter("zeta", vr::ZETA, c.zeta, "1", None, "Local loss coefficient (per segment)"),
            parameter("lambda", vr::LAMBDA, c.lambda, "1", None, "Turbulent friction coefficient"),
            parameter("Al", vr::AL, c.al, "1", None, "Laminar coefficient (64: Hagen-Poiseuille)"),
            parameter("T", vr::T, c.temperature + 273.15, "K", Some("degC"), "Fluid temperature (HLP46)"),
            parameter("nu0", vr::NU0, c.nu0, "m2/s", Some("cSt"), "Kinematic viscosity at T"),
            parameter("rho15", vr::RHO15, c.rho15, "kg/m3", None, "Density at 15 degC"),
            parameter("vol0", vr::VOL0, c.vol0, "1", None, "Relative air volume at p_m = 0"),
            parameter("ka", vr::KA, c.ka, "1", None, "Polytropic exponent of the air"),
            parameter("p0", vr::P0, c.p0, "Pa", Some("bar"), "Atmospheric pressure of the air law"),
            Variable::boolean("tangent_wall_slope", vr::TANGENT_SLOPE)
                .parameter(0.0)
                .describe("Use the full derivative dx/dp_m (with dk/dp_m) in the compliance instead of the paper's eq 30 slope with k held (the card's numbers need the latter)"),
        ];
        if form(FORM) == Form::Z {
            variables.push(parameter(
                "p_level",
                vr::P_LEVEL,
                1e7,
                "Pa",
                Some("bar"),
                "Initial outlet pressure (form Z integrates both end pressures: their level is free)",
            ));
        }
        let name = Self::model_name();
        ModelDescription {
            model_name: name.into(),
            model_identifier: name.into(),
            description: format!(
                "Hydraulic hose, n lumped segments, causal form {:?}: inputs {}, {}; outputs {}, {} (seed 004)",
                form(FORM),
                io[0].name,
                io[1].name,
                io[2].name,
                io[3].name
            ),
            version: env!("CARGO_PKG_VERSION").into(),
            generation_tool: format!("fluidfmu {}", env!("CARGO_PKG_VERSION")),
            variables,
            log_categories: Vec::new(),
            default_experiment: DefaultExperiment {
                start_time: 0.0,
                stop_time: 0.2,
                tolerance: 1e-6,
                step_size: 1e-4,
            },
            capabilities: Capabilities::default(),
            documentation: Documentation {
                summary_html: crate::doc::summary(form(FORM)),
                equations_html: crate::doc::EQUATIONS.into(),
                notes_html: crate::doc::NOTES.into(),
            },
        }
    }

    fn check_value(vr: u32, value: f64) -> Result<(), String> {
        match vr {
            vr::L_HOSE
            | vr::D
            | vr::P_REF
            | vr::X_REF
            | vr::V_LIM
            | vr::T
            | vr::NU0
            | vr::RHO15
            | vr::KA
            | vr::P0
                if value <= 0.0 =>
            {
                Err("must be positive".into())
            }
            _ => Ok(()),
        }
    }

    fn configure(v: &Values) -> Result<Self, String> {
        let n = v.integer(vr::N);
        if !(1..=MAX_SEGMENTS as i32).contains(&n) {
            return Err(format!("n = {n} is outside 1..{MAX_SEGMENTS}"));
        }
        let params = HoseParameters {
            hose_length: v.real(vr::L_HOSE),
            d: v.real(vr::D),
            p_ref: v.real(vr::P_REF),
            x_ref: v.real(vr::X_REF),
            b: v.real(vr::B),
            v_lim: v.real(vr::V_LIM),
            h: v.real(vr::H),
            kn: v.real(vr::KN),
            kr1: v.real(vr::KR1),
            kr2: v.real(vr::KR2),
            zeta: v.real(vr::ZETA),
            lambda: v.real(vr::LAMBDA),
            al: v.real(vr::AL),
            temperature: v.real(vr::T) - 273.15,
            nu0: v.real(vr::NU0),
            rho15: v.real(vr::RHO15),
            vol0: v.real(vr::VOL0),
            ka: v.real(vr::KA),
            p0: v.real(vr::P0),
            wall_slope: if v.boolean(vr::TANGENT_SLOPE) {
                WallSlope::Tangent
            } else {
                WallSlope::FrozenStiffness
            },
        };
        params.check()?;
        let segment = HoseSegment::new(&params, n as usize)?;
        let (a, b) = (v.real(vr::IN1), v.real(vr::IN2));
        let boundary = match form(FORM) {
            Form::H => Boundary {
                q1: a,
                p2: b,
                ..Default::default()
            },
            Form::G => Boundary {
                p1: a,
                q2: b,
                ..Default::default()
            },
            Form::Y => Boundary {
                p1: a,
                p2: b,
                ..Default::default()
            },
            Form::Z => Boundary {
                q1: a,
                q2: b,
                ..Default::default()
            },
        };
        let p_level = if form(FORM) == Form::Z {
            v.real(vr::P_LEVEL)
        } else {
            0.0
        };
        Ok(HoseModel {
            line: Line::new(form(FORM), segment, n as usize),
            boundary,
            p_level,
        })
    }

    fn set_input(&mut self, vr: u32, value: f64) -> bool {
        let b = &mut self.boundary;
        let slot = match (form(FORM), vr) {
            (Form::H, vr::IN1) | (Form::Z, vr::IN1) => &mut b.q1,
            (Form::H, vr::IN2) | (Form::Y, vr::IN2) => &mut b.p2,
            (Form::G, vr::IN1) | (Form::Y, vr::IN1) => &mut b.p1,
            (Form::G, vr::IN2) | (Form::Z, vr::IN2) => &mut b.q2,
            _ => return false,
        };
        *slot = value;
        true
    }

    /// The steady state at the inputs' values (card: "Initial state: the
    /// steady state of these equations at the scenario's operating point").
    fn initial_state(&self) -> SVector<f64, NX> {
        let mut x = [0.0; NX];
        if self
            .line
            .steady_state(&self.boundary, self.p_level, &mut x)
            .is_err()
        {
            // No steady flow (form Y with an extreme pressure difference):
            // start at rest with the mean pressure.
            let p = 0.5 * (self.boundary.p1 + self.boundary.p2);
            for k in 0..self.line.nodes() {
                x[k] = p;
            }
        }
        SVector::from(x)
    }

    fn output(&self, x: &SVector<f64, NX>, vr: u32) -> Option<f64> {
        self.output_state(vr).map(|i| x[i])
    }
}

#[cfg(test)]
mod tests;
