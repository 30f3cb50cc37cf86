//! FourBarActuator: the four-bar's hydraulics alone (F1-F8 of the four-bar's
//! `MODEL.md`): pump, relief valve, curve valve, spool and cylinder, driven
//! by the cylinder's pin-to-pin length `s` and rate `s_dot` from a
//! multibody model; gives the cylinder force F_h back. The co-simulation
//! partner of FourBarMechanism or of any multibody engine.

use crate::{Actuator, BulkParams, CurveParams, HydraulicParams, HydraulicStates};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{BlockJacobian, Context, Known, Model};

fmu_core::circuit! {
    model FourBarActuator {
        description: "The four-bar's hydraulics alone: pump, relief valve, closed-centre 4/3 valve on \
                      B-spline curves and a cylinder with seal friction, driven by the rod's motion",
        documentation: concat!(
            include_str!("../MODEL.md"),
            "\n## Schematic of FourBarActuator\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). The hydraulics of FourBar; the cylinder is moved by the inputs `s` and `s_dot` from the multibody model.\n\n",
            include_str!("../schematic-FourBarActuator.svg")
        ),
        stop_time: 5.0,
        step_size: 1e-3,
    }
    states {
        /// The hydraulics: pump-line and chamber pressures, spool
        hyd: group HydraulicStates;
    }
    inputs Inputs {
        /// Valve command (spool signal set point)
        U_ref: ["V"] = 0.0, min -10.0, max 10.0;
        /// Cylinder pin-to-pin length (from the multibody model)
        s: ["m"] = 3.0;
        /// Cylinder extension rate (from the multibody model)
        s_dot: ["m/s" => "mm/s"] = 0.0;
    }
    outputs Outputs {
        /// Cylinder force on the linkage, p1 A1 - p2 A2 - F_mu (positive extends)
        F_h: ["N" => "kN"], depends(s_dot);
        /// Pump-line pressure
        pp: ["Pa" => "MPa"] = x[state::hyd.index(HydraulicStates::pp)];
        /// Piston-side pressure
        p1: ["Pa" => "MPa"] = x[state::hyd.index(HydraulicStates::p1)];
        /// Rod-side pressure
        p2: ["Pa" => "MPa"] = x[state::hyd.index(HydraulicStates::p2)];
        /// Spool signal
        U: ["V"] = x[state::hyd.index(HydraulicStates::U)];
        /// Valve flow into the piston side (P->A minus A->T)
        Qd1: ["m3/s" => "L/min"];
        /// Valve flow out of the rod side (B->T minus P->B)
        Qd2: ["m3/s" => "L/min"];
        /// Relief-valve flow
        Q_R: ["m3/s" => "L/min"];
        /// Seal friction force
        F_mu: ["N"], depends(s_dot);
    }
    parameters Params {
        /// Initial piston-side pressure (FourBar computes it from the holding force: 3.393 MPa with the default linkage)
        p1_0: real ["Pa" => "MPa"] = 3.393e6;
    }
    groups {
        /// The hydraulics
        hydraulics: HydraulicParams,
        /// The oil's bulk modulus
        bulk: BulkParams,
        /// The valve curves
        curves: CurveParams,
    }
}

/// The FourBarActuator model.
#[derive(Debug, Clone, PartialEq)]
pub struct FourBarActuator {
    actuator: Actuator,
    p1_0: f64,
}

impl Model<NX> for FourBarActuator {
    fn terminals() -> Vec<fmu_core::model_description::Terminal> {
        use fmu_core::model_description::{Side, Terminal};
        vec![Terminal::flange(
            "rod",
            "Cylinder pins: length s and extension rate s_dot from the mechanism, force F_h on the linkage",
            "s",
            "s_dot",
            "F_h",
            Side::Top,
        )]
    }

    fn configure(p: &Params, _context: &Context) -> Result<Self, String> {
        Ok(FourBarActuator {
            actuator: p.hydraulics.actuator(&p.bulk, p.curves.curves()?)?,
            p1_0: p.p1_0,
        })
    }

    /// The valve's gain scale and the chamber volumes at `s0`.
    fn derived(&self) -> Vec<fmu_core::Derived> {
        self.actuator.derived()
    }

    /// At rest: p1 = p1_0, p2 = p2_0, pp where the relief passes the pump
    /// flow, spool closed.
    /// The valve's switch at the spool centre.
    fn event_indicators() -> Vec<fmu_core::EventIndicator> {
        Actuator::EVENT_INDICATORS.to_vec()
    }

    fn event_indicator_values(&self, _u: &Inputs, x: &SVector<f64, NX>, z: &mut [f64]) {
        self.actuator.event_indicator_values(&state::hyd.read(x), z);
    }

    fn initial_state(&self, _u: &Inputs) -> SVector<f64, NX> {
        let a = &self.actuator;
        let force = self.p1_0 * a.a1 - a.p2_0 * a.a2;
        let mut x = SVector::zeros();
        state::hyd.write(&mut x, &a.initial(force));
        x
    }

    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        let mut dx = SVector::zeros();
        let e = self
            .actuator
            .eval(u.U_ref, &state::hyd.read(x), u.s, u.s_dot);
        state::hyd.write(&mut dx, &e.rates);
        dx
    }

    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        let analytic = {
            let e = self
                .actuator
                .eval(u.U_ref, &state::hyd.read(x), u.s, u.s_dot);
            j.block(state::hyd, state::hyd).copy_from(&e.jac);
            true
        };
        (self.rates(u, x), analytic)
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        let e = self
            .actuator
            .eval(u.U_ref, &state::hyd.read(x), u.s, u.s_dot);
        out.F_h = e.force;
        out.F_mu = e.friction;
        out.Qd1 = e.flows.pa.q - e.flows.at.q;
        out.Qd2 = e.flows.bt.q - e.flows.pb.q;
        out.Q_R = e.q_relief;
    }

    /// dF_h/ds' = -dF_mu/ds' (the friction's slope), analytic.
    fn output_partial(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        output: usize,
        wrt: Known,
    ) -> Option<f64> {
        if output == output::F_h && wrt == Known::Input(input::s_dot) {
            let e = self
                .actuator
                .eval(u.U_ref, &state::hyd.read(x), u.s, u.s_dot);
            return Some(e.force_sdot);
        }
        None
    }
}

#[cfg(test)]
mod tests;
