//! FourBar: a constant-flow pump with a relief valve feeds a closed-centre
//! 4/3 proportional valve whose edges follow B-spline curves; the valve
//! drives a cylinder with Brown-McPhee seal friction that lifts the crank of
//! a planar four-bar linkage under gravity. Equations M1-M7 and F1-F8 of the
//! four-bar's `MODEL.md`; the energy balance E1.
//!
//! States: the crank angle θ and rate θ', the hydraulic block (`pp`, `p1`,
//! `p2`, `U`), and two work integrals for the energy balance.

use crate::coupled::FourBarStates;
use crate::linkage::{PHI2, PHI3};
use crate::{
    Actuator, BulkParams, CurveParams, HydraulicParams, HydraulicStates, Linkage, LinkageParams,
    coupled,
};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Context, Model};

fmu_core::circuit! {
    model FourBar {
        description: "Hydraulically driven four-bar: pump, relief valve, closed-centre 4/3 valve \
                      on B-spline curves, cylinder with seal friction, planar linkage under gravity",
        documentation: concat!(
            include_str!("../MODEL.md"),
            "\n## Schematic of FourBar\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). The planar four-bar linkage has no ISO 1219-1 symbol: it is the labelled box the cylinder rod drives.\n\n",
            include_str!("../schematic-FourBar.svg")
        ),
        stop_time: 5.0,
        step_size: 1e-3,
    }
    states {
        /// θ, θ', the hydraulics (pp, p1, p2, U), W_h, W_f
        layout FourBarStates;
    }
    inputs Inputs {
        /// Valve command (spool signal set point)
        U_ref: ["V"] = 0.0, min -10.0, max 10.0;
    }
    outputs Outputs {
        /// Crank angle θ from the +x axis
        theta: ["rad" => "deg"] = x[FourBarStates::theta];
        /// Crank angular velocity
        omega: ["rad/s" => "deg/s"] = x[FourBarStates::omega];
        /// Cylinder pin-to-pin length
        s: ["m"];
        /// Cylinder extension rate
        s_dot: ["m/s" => "mm/s"];
        /// Pump-line pressure
        pp: ["Pa" => "MPa"] = x[FourBarStates::hyd.index(HydraulicStates::pp)];
        /// Piston-side pressure
        p1: ["Pa" => "MPa"] = x[FourBarStates::hyd.index(HydraulicStates::p1)];
        /// Rod-side pressure
        p2: ["Pa" => "MPa"] = x[FourBarStates::hyd.index(HydraulicStates::p2)];
        /// Spool signal
        U: ["V"] = x[FourBarStates::hyd.index(HydraulicStates::U)];
        /// Valve flow into the piston side (P->A minus A->T)
        Qd1: ["m3/s" => "L/min"];
        /// Valve flow out of the rod side (B->T minus P->B)
        Qd2: ["m3/s" => "L/min"];
        /// Relief-valve flow
        Q_R: ["m3/s" => "L/min"];
        /// Cylinder force on the linkage, p1 A1 - p2 A2 - F_mu
        F_h: ["N" => "kN"];
        /// Seal friction force
        F_mu: ["N"];
        /// Coupler angle from the +x axis
        phi2: ["rad" => "deg"];
        /// Rocker angle from the +x axis
        phi3: ["rad" => "deg"];
        /// Loop-closure residual |Phi|
        loop_residual: ["m"];
        /// Kinetic plus potential energy of the linkage (potential zero at y = 0)
        E_mech: ["J" => "kJ"];
        /// Hydraulic work on the piston since the start
        W_h: ["J" => "kJ"] = x[FourBarStates::W_h];
        /// Friction work since the start
        W_f: ["J" => "kJ"] = x[FourBarStates::W_f];
        /// Energy balance W_h - W_f - (E_mech - E_mech at the start); zero up to the integration error
        E_balance: ["J"];
    }
    parameters Params {}
    groups {
        /// The linkage
        linkage: LinkageParams,
        /// The hydraulics
        hydraulics: HydraulicParams,
        /// The oil's bulk modulus
        bulk: BulkParams,
        /// The valve curves
        curves: CurveParams,
    }
}

/// The FourBar circuit.
#[derive(Debug, Clone, PartialEq)]
pub struct FourBar {
    linkage: Linkage,
    actuator: Actuator,
    /// Mechanical energy at the initial state, J.
    energy0: f64,
}

impl FourBar {
    /// The rates at state `x` and (when `jac` is given) their analytic
    /// Jacobian.
    fn evaluate(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        jac: Option<&mut SMatrix<f64, NX, NX>>,
    ) -> SVector<f64, NX> {
        coupled::rates(&self.linkage, &self.actuator, u.U_ref, x, jac)
    }
}

impl Model<NX> for FourBar {
    fn configure(p: &Params, _context: &Context) -> Result<Self, String> {
        let linkage = p.linkage.linkage(p.hydraulics.s0)?;
        let actuator = p.hydraulics.actuator(&p.bulk, p.curves.curves()?)?;
        let e = linkage.eval(linkage.theta0, 0.0)?;
        let energy0 = linkage.energy_at(&e.kin.q, &e, 0.0);
        Ok(FourBar {
            linkage,
            actuator,
            energy0,
        })
    }

    fn derived(&self) -> Vec<fmu_core::Derived> {
        self.actuator.derived()
    }

    /// At rest at s = s0: θ0 from s0, p1 from the force that holds the
    /// linkage, pp where the relief passes the pump flow (MODEL.md, start).
    /// The valve's switch at the spool centre.
    fn event_indicators() -> Vec<fmu_core::EventIndicator> {
        Actuator::EVENT_INDICATORS.to_vec()
    }

    fn event_indicator_values(&self, _u: &Inputs, x: &SVector<f64, NX>, z: &mut [f64]) {
        self.actuator
            .event_indicator_values(&FourBarStates::hyd.read(x), z);
    }

    fn initial_state(&self, _u: &Inputs) -> SVector<f64, NX> {
        coupled::initial_state(&self.linkage, &self.actuator)
    }

    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        self.evaluate(u, x, None)
    }

    /// The rates and the analytic Jacobian from one evaluation.
    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        (self.evaluate(u, x, Some(j)), true)
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        // The rates' dynamics (interpolated), the coordinates assembled.
        let (theta, omega) = (x[FourBarStates::theta], x[FourBarStates::omega]);
        let (Ok(q), Ok(l)) = (
            self.linkage.assemble(theta),
            self.linkage.dynamics(theta, omega),
        ) else {
            out.loop_residual = f64::NAN;
            return;
        };
        let a = self
            .actuator
            .eval(u.U_ref, &FourBarStates::hyd.read(x), l.s, l.s_dot);
        out.s = l.s;
        out.s_dot = l.s_dot;
        out.Qd1 = a.flows.pa.q - a.flows.at.q;
        out.Qd2 = a.flows.bt.q - a.flows.pb.q;
        out.Q_R = a.q_relief;
        out.F_h = a.force;
        out.F_mu = a.friction;
        out.phi2 = q[PHI2];
        out.phi3 = q[PHI3];
        out.loop_residual = self.linkage.residual(&q);
        out.E_mech = self.linkage.energy_at(&q, &l, omega);
        out.E_balance = x[FourBarStates::W_h] - x[FourBarStates::W_f] - (out.E_mech - self.energy0);
    }
}

#[cfg(test)]
mod tests;
