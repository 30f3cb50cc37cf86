//! OrificeChain: three sharp-edged orifices in series between a supply and a
//! tank, with a large volume V1 (pressure p1) between orifices 1 and 2 and a
//! small volume V2 (pressure p2) between orifices 2 and 3.
//!
//! Equations: model card `shared/models/orifice-chain.md`, E1-E5.

use fmu_core::model_description::{
    Capabilities, DefaultExperiment, Documentation, ModelDescription, Variable,
};
use fmu_core::nalgebra::{Matrix2, Vector2};
use fmu_core::{Known, Model, OdeSystem, Values};
use hydraulics::{BulkModulus, LogBase, Orifice, Volume};

mod doc;

/// Value references of the model's variables (rows 1..=23 of the table).
pub mod vr {
    /// Supply pressure (input), Pa.
    pub const PS: u32 = 1;
    /// Tank pressure (input), Pa.
    pub const PT: u32 = 2;
    /// Pressure in V1 (output, state 0), Pa.
    pub const P1: u32 = 3;
    /// Pressure in V2 (output, state 1), Pa.
    pub const P2: u32 = 4;
    /// Flow through orifice 1 (output), m3/s.
    pub const Q1: u32 = 5;
    /// Flow through orifice 2 (output), m3/s.
    pub const Q2: u32 = 6;
    /// Flow through orifice 3 (output), m3/s.
    pub const Q3: u32 = 7;
    /// Discharge coefficient, 1.
    pub const CD: u32 = 8;
    /// Oil density, kg/m3.
    pub const RHO: u32 = 9;
    /// Diameter of orifice 1, m.
    pub const D1: u32 = 10;
    /// Diameter of orifice 2, m.
    pub const D2: u32 = 11;
    /// Diameter of orifice 3, m.
    pub const D3: u32 = 12;
    /// Large volume, m3.
    pub const V1: u32 = 13;
    /// Small volume, m3.
    pub const V2: u32 = 14;
    /// Maximum bulk modulus, Pa.
    pub const EMAX: u32 = 15;
    /// Maximum system pressure, Pa.
    pub const PMAX: u32 = 16;
    /// Bulk-modulus constant a1, 1.
    pub const A1: u32 = 17;
    /// Bulk-modulus constant a2, 1.
    pub const A2: u32 = 18;
    /// Bulk-modulus constant a3, 1.
    pub const A3: u32 = 19;
    /// Initial pressure in V1, Pa.
    pub const P1_0: u32 = 20;
    /// Initial pressure in V2, Pa.
    pub const P2_0: u32 = 21;
    /// Transition pressure of the regularised orifice law, Pa.
    pub const P_TR: u32 = 22;
    /// Use ln instead of log10 in the bulk-modulus law.
    pub const BULK_LOG_NATURAL: u32 = 23;
}

/// The OrificeChain circuit with its derived coefficients.
#[derive(Debug, Clone, PartialEq)]
pub struct OrificeChain {
    ps: f64,
    pt: f64,
    orifices: [Orifice; 3],
    v1: Volume,
    v2: Volume,
    fluid: BulkModulus,
    p0: Vector2<f64>,
}

/// Pressures: range allowed for inputs and initial values (Pa): from a full
/// vacuum (-1 bar gauge) to 10 000 bar.
const P_RANGE: (Option<f64>, Option<f64>) = (Some(-1e5), Some(1e9));

fn pressure(name: &str, vr: u32) -> Variable {
    Variable::real(name, vr).unit("Pa", Some("bar"))
}

fn flow(name: &str, vr: u32) -> Variable {
    Variable::real(name, vr).unit("m3/s", Some("L/min"))
}

impl OrificeChain {
    /// The three flows (m3/s) at state `x` (card E3).
    pub fn flows(&self, x: &Vector2<f64>) -> [f64; 3] {
        [
            self.orifices[0].flow(self.ps - x[0]),
            self.orifices[1].flow(x[0] - x[1]),
            self.orifices[2].flow(x[1] - self.pt),
        ]
    }

    /// The slopes dQ/d(dp) of the three orifices (m3/s/Pa) at state `x`.
    fn slopes(&self, x: &Vector2<f64>) -> [f64; 3] {
        [
            self.orifices[0].slope(self.ps - x[0]),
            self.orifices[1].slope(x[0] - x[1]),
            self.orifices[2].slope(x[1] - self.pt),
        ]
    }
}

impl OdeSystem<2> for OrificeChain {
    /// Card E5: dp1/dt = B(p1)/V1 (Q1 - Q2), dp2/dt = B(p2)/V2 (Q2 - Q3).
    fn rhs(&self, x: &Vector2<f64>) -> Vector2<f64> {
        let [q1, q2, q3] = self.flows(x);
        Vector2::new(
            self.v1.pressure_rate(&self.fluid, x[0], q1 - q2),
            self.v2.pressure_rate(&self.fluid, x[1], q2 - q3),
        )
    }

    /// The analytic Jacobian of E5 with E2 (regularised slopes) and E4 (dB/dp).
    fn jacobian(&self, x: &Vector2<f64>) -> Matrix2<f64> {
        let [q1, q2, q3] = self.flows(x);
        let [s1, s2, s3] = self.slopes(x);
        let k1 = self.v1.stiffness(&self.fluid, x[0]);
        let k2 = self.v2.stiffness(&self.fluid, x[1]);
        Matrix2::new(
            self.v1.rate_slope_pressure(&self.fluid, x[0], q1 - q2) - k1 * (s1 + s2),
            k1 * s2,
            k2 * s2,
            self.v2.rate_slope_pressure(&self.fluid, x[1], q2 - q3) - k2 * (s2 + s3),
        )
    }

    fn nominal(&self) -> Vector2<f64> {
        Vector2::repeat(1e6)
    }
}

impl Model<2> for OrificeChain {
    fn description() -> ModelDescription {
        use vr::*;
        let positive = (Some(0.0), None);
        let variables = vec![
            pressure("ps", PS)
                .input(1e7)
                .range(P_RANGE.0, P_RANGE.1)
                .describe("Supply pressure (ideal pressure source)"),
            pressure("pt", PT)
                .input(0.0)
                .range(P_RANGE.0, P_RANGE.1)
                .describe("Tank pressure"),
            pressure("p1", P1)
                .output(&[])
                .describe("Pressure in the large volume V1 (state)"),
            pressure("p2", P2)
                .output(&[])
                .describe("Pressure in the small volume V2 (state)"),
            flow("Q1", Q1)
                .output(&[PS])
                .describe("Flow through orifice 1, supply to V1"),
            flow("Q2", Q2)
                .output(&[])
                .describe("Flow through orifice 2, V1 to V2"),
            flow("Q3", Q3)
                .output(&[PT])
                .describe("Flow through orifice 3, V2 to tank"),
            Variable::real("Cd", CD)
                .parameter(0.6)
                .unit("1", None)
                .range(Some(0.0), Some(1.0))
                .describe("Discharge coefficient of the orifices"),
            Variable::real("rho", RHO)
                .parameter(900.0)
                .unit("kg/m3", None)
                .range(positive.0, positive.1)
                .describe("Oil density"),
            Variable::real("d1", D1)
                .parameter(1e-3)
                .unit("m", Some("mm"))
                .range(positive.0, positive.1)
                .describe("Diameter of orifice 1"),
            Variable::real("d2", D2)
                .parameter(1e-3)
                .unit("m", Some("mm"))
                .range(positive.0, positive.1)
                .describe("Diameter of orifice 2"),
            Variable::real("d3", D3)
                .parameter(1e-3)
                .unit("m", Some("mm"))
                .range(positive.0, positive.1)
                .describe("Diameter of orifice 3"),
            Variable::real("V1", V1)
                .parameter(1e-3)
                .unit("m3", Some("cm3"))
                .range(positive.0, positive.1)
                .describe("Large volume between orifices 1 and 2"),
            Variable::real("V2", V2)
                .parameter(1e-5)
                .unit("m3", Some("cm3"))
                .range(positive.0, positive.1)
                .describe("Small volume between orifices 2 and 3"),
            Variable::real("Emax", EMAX)
                .parameter(1.8e9)
                .unit("Pa", Some("MPa"))
                .range(positive.0, positive.1)
                .describe("Maximum bulk modulus of the oil"),
            Variable::real("pmax", PMAX)
                .parameter(2.8e7)
                .unit("Pa", Some("bar"))
                .range(positive.0, positive.1)
                .describe("Maximum system pressure (bulk-modulus law)"),
            Variable::real("a1", A1)
                .parameter(0.5)
                .unit("1", None)
                .range(positive.0, positive.1)
                .describe("Bulk-modulus law constant a1"),
            Variable::real("a2", A2)
                .parameter(90.0)
                .unit("1", None)
                .range(Some(0.0), None)
                .describe("Bulk-modulus law constant a2"),
            Variable::real("a3", A3)
                .parameter(3.0)
                .unit("1", None)
                .range(Some(1.0), None)
                .describe("Bulk-modulus law constant a3 (> 1 so that B(0) > 0)"),
            pressure("p1_0", P1_0)
                .parameter(0.0)
                .range(P_RANGE.0, P_RANGE.1)
                .describe("Initial pressure in V1"),
            pressure("p2_0", P2_0)
                .parameter(0.0)
                .range(P_RANGE.0, P_RANGE.1)
                .describe("Initial pressure in V2"),
            pressure("p_tr", P_TR)
                .parameter(1e4)
                .range(positive.0, positive.1)
                .describe(
                    "Transition pressure of the regularised orifice law: below it the flow \
                     follows a cubic with finite slope at zero pressure drop",
                ),
            Variable::boolean("bulk_log_natural", BULK_LOG_NATURAL)
                .parameter(0.0)
                .describe(
                    "Use ln instead of log10 in the bulk-modulus law (reproduces the seed's \
                     explicit-step instability; log10 is the physical default)",
                ),
        ];
        ModelDescription {
            model_name: "OrificeChain".into(),
            model_identifier: "OrificeChain".into(),
            description: "Three orifices in series with a large and a small volume \
                          (seed 000, circuit 1)"
                .into(),
            version: env!("CARGO_PKG_VERSION").into(),
            generation_tool: format!("fluidfmu {}", env!("CARGO_PKG_VERSION")),
            variables,
            log_categories: Vec::new(),
            default_experiment: DefaultExperiment {
                start_time: 0.0,
                stop_time: 50.0,
                tolerance: 1e-6,
                step_size: 1e-3,
            },
            capabilities: Capabilities::default(),
            documentation: Documentation {
                summary_html: doc::SUMMARY.into(),
                equations_html: doc::EQUATIONS.into(),
                notes_html: doc::NOTES.into(),
            },
        }
    }

    fn check_value(vr: u32, value: f64) -> Result<(), String> {
        use vr::*;
        match vr {
            CD | RHO | D1 | D2 | D3 | V1 | V2 | EMAX | PMAX | A1 | P_TR if value <= 0.0 => {
                Err("must be positive".into())
            }
            A3 if value <= 1.0 => Err("must be > 1 so that the bulk modulus is positive".into()),
            _ => Ok(()),
        }
    }

    fn configure(v: &Values) -> Result<Self, String> {
        use vr::*;
        let p_tr = v.real(P_TR);
        let orifice = |d: u32| Orifice::circular(v.real(CD), v.real(d), v.real(RHO), p_tr);
        let fluid = BulkModulus {
            e_max: v.real(EMAX),
            p_max: v.real(PMAX),
            a1: v.real(A1),
            a2: v.real(A2),
            a3: v.real(A3),
            log: if v.boolean(BULK_LOG_NATURAL) {
                LogBase::Natural
            } else {
                LogBase::Ten
            },
        };
        fluid.check()?;
        let model = OrificeChain {
            ps: v.real(PS),
            pt: v.real(PT),
            orifices: [orifice(D1), orifice(D2), orifice(D3)],
            v1: Volume { volume: v.real(V1) },
            v2: Volume { volume: v.real(V2) },
            fluid,
            p0: Vector2::new(v.real(P1_0), v.real(P2_0)),
        };
        if !model.orifices.iter().all(|o| o.k.is_finite() && o.k > 0.0) {
            return Err("orifice coefficients must be positive and finite".into());
        }
        Ok(model)
    }

    fn set_input(&mut self, vr: u32, value: f64) -> bool {
        match vr {
            vr::PS => self.ps = value,
            vr::PT => self.pt = value,
            _ => return false,
        }
        true
    }

    fn initial_state(&self) -> Vector2<f64> {
        self.p0
    }

    fn output(&self, x: &Vector2<f64>, vr: u32) -> Option<f64> {
        let [q1, q2, q3] = self.flows(x);
        Some(match vr {
            vr::P1 => x[0],
            vr::P2 => x[1],
            vr::Q1 => q1,
            vr::Q2 => q2,
            vr::Q3 => q3,
            _ => return None,
        })
    }

    fn state_index(vr: u32) -> Option<usize> {
        match vr {
            vr::P1 => Some(0),
            vr::P2 => Some(1),
            _ => None,
        }
    }

    /// dQi/d(ps, pt, p1, p2) from the orifice slopes (card E2, E3).
    fn output_partial(&self, x: &Vector2<f64>, of: u32, wrt: Known) -> Option<f64> {
        let [s1, s2, s3] = self.slopes(x);
        let d = match (of, wrt) {
            (vr::P1, Known::State(0)) | (vr::P2, Known::State(1)) => 1.0,
            (vr::Q1, Known::Input(vr::PS)) => s1,
            (vr::Q1, Known::State(0)) => -s1,
            (vr::Q2, Known::State(0)) => s2,
            (vr::Q2, Known::State(1)) => -s2,
            (vr::Q3, Known::State(1)) => s3,
            (vr::Q3, Known::Input(vr::PT)) => -s3,
            (vr::P1 | vr::P2 | vr::Q1 | vr::Q2 | vr::Q3, _) => 0.0,
            _ => return None,
        };
        Some(d)
    }
}

fmu_core::export_fmu!(OrificeChain, 2);

#[cfg(test)]
mod tests;
