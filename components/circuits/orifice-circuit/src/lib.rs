//! OrificeChain: three sharp-edged orifices in series between a supply and a
//! tank, with a large volume V1 (pressure p1) between orifices 1 and 2 and a
//! small volume V2 (pressure p2) between orifices 2 and 3.
//!
//! Equations: `MODEL.md` beside this crate, E1-E5.

use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Context, Derived, Known, Model};
use hydraulics::trained_volume::{FlowsAt, TrainedVolume};
use hydraulics::{BulkModulus, LogBase, Orifice, Volume};

fmu_core::circuit! {
    model OrificeChain {
        description: "Three orifices in series with a large and a small volume",
        documentation: concat!(
            include_str!("../MODEL.md"),
            "\n## Schematic of OrificeChain\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). The supply and tank pressures `ps` and `pt` are the inputs at the two ends of the chain.\n\n",
            include_str!("../schematic-OrificeChain.svg")
        ),
        stop_time: 50.0,
        step_size: 1e-3,
    }
    states {
        /// Pressure in V1, Pa
        p1: nominal 1e6;
        /// Pressure in V2, Pa
        p2: nominal 1e6;
    }
    inputs Inputs {
        /// Supply pressure (ideal pressure source)
        ps: ["Pa" => "bar"] = 1e7, min -1e5, max 1e9;
        /// Tank pressure
        pt: ["Pa" => "bar"] = 0.0, min -1e5, max 1e9;
    }
    outputs Outputs {
        /// Pressure in the large volume V1 (state)
        p1: ["Pa" => "bar"] = x[state::p1];
        /// Pressure in the small volume V2 (state)
        p2: ["Pa" => "bar"] = x[state::p2];
        /// Flow through orifice 1, supply to V1
        Q1: ["m3/s" => "L/min"], depends(ps);
        /// Flow through orifice 2, V1 to V2
        Q2: ["m3/s" => "L/min"];
        /// Flow through orifice 3, V2 to tank
        Q3: ["m3/s" => "L/min"], depends(pt);
    }
    parameters Params {
        /// Discharge coefficient of the orifices
        Cd: real ["1"] = 0.6, above 0.0, max 1.0;
        /// Oil density
        rho: real ["kg/m3"] = 900.0, above 0.0;
        /// Diameter of orifice 1
        d1: real ["m" => "mm"] = 1e-3, above 0.0;
        /// Diameter of orifice 2
        d2: real ["m" => "mm"] = 1e-3, above 0.0;
        /// Diameter of orifice 3
        d3: real ["m" => "mm"] = 1e-3, above 0.0;
        /// Large volume between orifices 1 and 2
        V1: real ["m3" => "cm3"] = 1e-3, above 0.0;
        /// Small volume between orifices 2 and 3
        V2: real ["m3" => "cm3"] = 1e-5, above 0.0;
        /// Maximum bulk modulus of the oil
        Emax: real ["Pa" => "MPa"] = 1.8e9, above 0.0;
        /// Maximum system pressure (bulk-modulus law)
        pmax: real ["Pa" => "bar"] = 2.8e7, above 0.0;
        /// Bulk-modulus law constant a1
        a1: real ["1"] = 0.5, above 0.0;
        /// Bulk-modulus law constant a2
        a2: real ["1"] = 90.0, min 0.0;
        /// Bulk-modulus law constant a3 (> 1 so that B(0) > 0)
        a3: real ["1"] = 3.0, above 1.0;
        /// Initial pressure in V1
        p1_0: real ["Pa" => "bar"] = 0.0, min -1e5, max 1e9;
        /// Initial pressure in V2
        p2_0: real ["Pa" => "bar"] = 0.0, min -1e5, max 1e9;
        /// Transition pressure of the regularised orifice law: below it the
        /// flow follows a cubic with finite slope at zero pressure drop
        p_tr: real ["Pa" => "bar"] = 1e4, above 0.0;
        /// Use ln instead of log10 in the bulk-modulus law (reproduces the
        /// paper's explicit-step instability; log10 is the physical default)
        bulk_log_natural: bool = false;
        /// A trained model in place of V2's pressure equation: 0 = none
        /// (the physics, E5), 1 = NARX network (Ustinov et al. 2022), 2 =
        /// LOLIMOT local linear model tree (Štefan et al. 2007). 1 and 2
        /// read their weights from the FMU's resources
        /// (orifice-chain-p2-narx.txt, orifice-chain-p2-lolimot.txt) and
        /// renew p2 once per their sample period: co-simulation only,
        /// stepped by whole periods
        p2_surrogate: int = 0, min 0, max 2;
    }
}

/// The slot name and the input and output names a weights file for the
/// small volume V2 must carry (checked when it is loaded).
pub const P2_SLOT: (&str, [&str; 5], [&str; 1]) = (
    "orifice-chain/p2",
    ["Q2", "Q3", "B", "V2", "p2_prev"],
    ["p2_change"],
);

/// The weights files of `p2_surrogate` 1 and 2, in the FMU's resources.
pub const P2_SURROGATE_FILES: [&str; 2] =
    ["orifice-chain-p2-narx.txt", "orifice-chain-p2-lolimot.txt"];

/// The OrificeChain circuit with its derived coefficients.
#[derive(Debug, Clone, PartialEq)]
pub struct OrificeChain {
    orifices: [Orifice; 3],
    v1: Volume,
    v2: Volume,
    fluid: BulkModulus,
    p0: [f64; 2],
    /// V2's trained pressure model (`p2_surrogate`), if one is chosen.
    trained: Option<TrainedVolume>,
}

impl OrificeChain {
    /// The three flows (m3/s) at state `x` (E3).
    pub fn flows(&self, u: &Inputs, x: &SVector<f64, NX>) -> [f64; 3] {
        let (p1, p2) = (x[state::p1], x[state::p2]);
        [
            self.orifices[0].flow(u.ps - p1),
            self.orifices[1].flow(p1 - p2),
            self.orifices[2].flow(p2 - u.pt),
        ]
    }

    /// The slopes dQ/d(dp) of the three orifices (m3/s/Pa) at state `x`.
    fn slopes(&self, u: &Inputs, x: &SVector<f64, NX>) -> [f64; 3] {
        let (p1, p2) = (x[state::p1], x[state::p2]);
        [
            self.orifices[0].slope(u.ps - p1),
            self.orifices[1].slope(p1 - p2),
            self.orifices[2].slope(p2 - u.pt),
        ]
    }
}

impl Model<NX> for OrificeChain {
    fn terminals() -> Vec<fmu_core::model_description::Terminal> {
        use fmu_core::model_description::{Side, Terminal};
        vec![
            Terminal::hydraulic_port(
                "P",
                "Supply port: the supply pressure ps and the flow Q1 drawn from it",
                "ps",
                "Q1",
                true,
                Side::Left,
            ),
            Terminal::hydraulic_port(
                "T",
                "Tank port: the tank pressure pt and the flow Q3 returned to it",
                "pt",
                "Q3",
                false,
                Side::Right,
            ),
        ]
    }

    fn configure(p: &Params, context: &Context) -> Result<Self, String> {
        let orifice = |d: f64| Orifice::circular(p.Cd, d, p.rho, p.p_tr);
        let fluid = BulkModulus {
            e_max: p.Emax,
            p_max: p.pmax,
            a1: p.a1,
            a2: p.a2,
            a3: p.a3,
            log: if p.bulk_log_natural {
                LogBase::Natural
            } else {
                LogBase::Ten
            },
        };
        fluid.check()?;
        let model = OrificeChain {
            orifices: [orifice(p.d1), orifice(p.d2), orifice(p.d3)],
            v1: Volume { volume: p.V1 },
            v2: Volume { volume: p.V2 },
            fluid,
            p0: [p.p1_0, p.p2_0],
            trained: match p.p2_surrogate {
                0 => None,
                k => {
                    let file = P2_SURROGATE_FILES[(k - 1) as usize];
                    let (slot, inputs, outputs) = P2_SLOT;
                    let bytes = context.read_resource(file)?;
                    let model = surrogates::Surrogate::load(&bytes, file, slot, &inputs, &outputs)?;
                    Some(TrainedVolume {
                        volume: p.V2,
                        model: std::sync::Arc::new(model),
                    })
                }
            },
        };
        Ok(model)
    }

    /// E1's flow coefficients and E2's regularisation of each orifice.
    fn derived(&self) -> Vec<Derived> {
        const NAMES: [[&str; 3]; 3] = [
            [
                "K1 (E1)",
                "laminar slope of orifice 1 (E2)",
                "cubic coefficient of orifice 1 (E2)",
            ],
            [
                "K2 (E1)",
                "laminar slope of orifice 2 (E2)",
                "cubic coefficient of orifice 2 (E2)",
            ],
            [
                "K3 (E1)",
                "laminar slope of orifice 3 (E2)",
                "cubic coefficient of orifice 3 (E2)",
            ],
        ];
        let mut d = Vec::with_capacity(9);
        for (o, [k, slope, cubic]) in self.orifices.iter().zip(NAMES) {
            d.push(Derived::positive(k, "m3/(s Pa^0.5)", o.k));
            d.push(Derived::positive(slope, "m3/(s Pa)", o.laminar_slope()));
            d.push(Derived::positive(
                cubic,
                "m3/(s Pa^3)",
                o.cubic_coefficient(),
            ));
        }
        d
    }

    fn initial_state(&self, _u: &Inputs) -> SVector<f64, NX> {
        SVector::from(self.p0)
    }

    /// The trained V2's sample period (`p2_surrogate`).
    fn sample_period(&self) -> Option<f64> {
        self.trained.as_ref().map(TrainedVolume::period)
    }

    /// p2 at the end of a sample period from the trained model, with the
    /// flows of orifices 2 and 3 at the trial pressure (E2, E3, E4).
    fn sample(&self, u: &Inputs, x: &mut SVector<f64, NX>) {
        let Some(trained) = &self.trained else {
            return;
        };
        let p1 = x[state::p1];
        let lo = u.pt.min(p1).min(u.ps);
        let hi = u.ps.max(p1).max(u.pt);
        x[state::p2] = trained.next_pressure(x[state::p2], (lo, hi), |p2| FlowsAt {
            q_in: self.orifices[1].flow(p1 - p2),
            dq_in: -self.orifices[1].slope(p1 - p2),
            q_out: self.orifices[2].flow(p2 - u.pt),
            dq_out: self.orifices[2].slope(p2 - u.pt),
            bulk: self.fluid.value(p2),
            dbulk: self.fluid.derivative(p2),
        });
    }

    /// E5: dp1/dt = B(p1)/V1 (Q1 - Q2), dp2/dt = B(p2)/V2 (Q2 - Q3).
    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        let [q1, q2, q3] = self.flows(u, x);
        let mut dx = SVector::zeros();
        dx[state::p1] = self.v1.pressure_rate(&self.fluid, x[state::p1], q1 - q2);
        if self.trained.is_none() {
            dx[state::p2] = self.v2.pressure_rate(&self.fluid, x[state::p2], q2 - q3);
        }
        dx
    }

    /// The analytic Jacobian of E5 with E2 (regularised slopes) and E4 (dB/dp).
    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        use state::{p1, p2};
        let [q1, q2, q3] = self.flows(u, x);
        let [s1, s2, s3] = self.slopes(u, x);
        let k1 = self.v1.stiffness(&self.fluid, x[p1]);
        let k2 = self.v2.stiffness(&self.fluid, x[p2]);
        j[(p1, p1)] = self.v1.rate_slope_pressure(&self.fluid, x[p1], q1 - q2) - k1 * (s1 + s2);
        j[(p1, p2)] = k1 * s2;
        if self.trained.is_none() {
            j[(p2, p1)] = k2 * s2;
            j[(p2, p2)] = self.v2.rate_slope_pressure(&self.fluid, x[p2], q2 - q3) - k2 * (s2 + s3);
        }
        (self.rates(u, x), true)
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        [out.Q1, out.Q2, out.Q3] = self.flows(u, x);
    }

    /// dQi/d(ps, pt, p1, p2) from the orifice slopes (E2, E3).
    fn output_partial(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        of: usize,
        wrt: Known,
    ) -> Option<f64> {
        use Known::{Input, State};
        let [s1, s2, s3] = self.slopes(u, x);
        Some(match (of, wrt) {
            (output::p1, State(state::p1)) | (output::p2, State(state::p2)) => 1.0,
            (output::Q1, Input(input::ps)) => s1,
            (output::Q1, State(state::p1)) => -s1,
            (output::Q2, State(state::p1)) => s2,
            (output::Q2, State(state::p2)) => -s2,
            (output::Q3, State(state::p2)) => s3,
            (output::Q3, Input(input::pt)) => -s3,
            _ => 0.0,
        })
    }
}

#[cfg(test)]
mod tests;
