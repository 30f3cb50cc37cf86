//! FourBarMechanism: the four-bar linkage alone (M1-M7 of the four-bar's
//! `MODEL.md`), driven by the cylinder force; gives the cylinder's length
//! and rate back. The co-simulation partner of FourBarActuator.

use crate::linkage::{PHI2, PHI3};
use crate::{Linkage, LinkageParams};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Context, Model};

fmu_core::circuit! {
    model FourBarMechanism {
        description: "The four-bar linkage alone under gravity, driven by the cylinder force",
        documentation: concat!(
            include_str!("../MODEL.md"),
            "\n## Schematic of FourBarMechanism\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). The planar four-bar linkage (no ISO 1219-1 symbol: a labelled box), pushed by the cylinder force `F`.\n\n",
            include_str!("../schematic-FourBarMechanism.svg")
        ),
        stop_time: 5.0,
        step_size: 1e-3,
    }
    states {
        /// Crank angle θ, rad
        theta: nominal 1.0;
        /// Crank rate θ', rad/s
        omega: nominal 1.0;
    }
    inputs Inputs {
        /// Cylinder force on the linkage (positive extends the cylinder)
        F: ["N" => "kN"] = 0.0;
    }
    outputs Outputs {
        /// Cylinder pin-to-pin length
        s: ["m"];
        /// Cylinder extension rate
        s_dot: ["m/s" => "mm/s"];
        /// Crank angle θ from the +x axis
        theta: ["rad" => "deg"] = x[state::theta];
        /// Crank angular velocity
        omega: ["rad/s" => "deg/s"] = x[state::omega];
        /// Coupler angle from the +x axis
        phi2: ["rad" => "deg"];
        /// Rocker angle from the +x axis
        phi3: ["rad" => "deg"];
        /// Loop-closure residual |Phi|
        loop_residual: ["m"];
        /// Kinetic plus potential energy (potential zero at y = 0)
        E_mech: ["J" => "kJ"];
        /// The cylinder force that would hold the linkage still at the present state
        F_hold: ["N" => "kN"];
    }
    parameters Params {
        /// Pin-to-pin cylinder length at the start (at rest)
        s0: real ["m"] = 3.0, above 0.0;
    }
    groups {
        /// The linkage
        linkage: LinkageParams,
    }
}

/// The FourBarMechanism model.
#[derive(Debug, Clone, PartialEq)]
pub struct FourBarMechanism {
    linkage: Linkage,
}

impl Model<NX> for FourBarMechanism {
    fn terminals() -> Vec<fmu_core::model_description::Terminal> {
        use fmu_core::model_description::{Side, Terminal};
        vec![Terminal::flange(
            "rod",
            "Cylinder pins: length s and extension rate s_dot of the linkage, cylinder force F on it",
            "s",
            "s_dot",
            "F",
            Side::Bottom,
        )]
    }

    fn configure(p: &Params, _context: &Context) -> Result<Self, String> {
        Ok(FourBarMechanism {
            linkage: p.linkage.linkage(p.s0)?,
        })
    }

    fn initial_state(&self, _u: &Inputs) -> SVector<f64, NX> {
        SVector::from([self.linkage.theta0, 0.0])
    }

    /// M5: θ'' from the linkage's generalised mass and forces.
    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        match self.linkage.dynamics(x[state::theta], x[state::omega]) {
            Ok(l) => SVector::from([x[state::omega], l.theta_ddot(u.F)]),
            Err(_) => SVector::repeat(f64::NAN),
        }
    }

    /// Analytic (M4-M7: the interpolants' derivatives).
    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        let Ok((l, d)) = self
            .linkage
            .dynamics_with_derivatives(x[state::theta], x[state::omega])
        else {
            return (self.rates(u, x), false);
        };
        j[(state::theta, state::omega)] = 1.0;
        j[(state::omega, state::theta)] = d.theta_ddot(&l, u.F);
        j[(state::omega, state::omega)] = l.dtheta_ddot_domega;
        (self.rates(u, x), true)
    }

    fn outputs(&self, _u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        // The rates' dynamics (interpolated), the coordinates assembled.
        let (theta, omega) = (x[state::theta], x[state::omega]);
        let (Ok(q), Ok(l)) = (
            self.linkage.assemble(theta),
            self.linkage.dynamics(theta, omega),
        ) else {
            out.loop_residual = f64::NAN;
            return;
        };
        out.s = l.s;
        out.s_dot = l.s_dot;
        out.phi2 = q[PHI2];
        out.phi3 = q[PHI3];
        out.loop_residual = self.linkage.residual(&q);
        out.E_mech = self.linkage.energy_at(&q, &l, omega);
        out.F_hold = l.holding_force();
    }
}

#[cfg(test)]
mod tests;
