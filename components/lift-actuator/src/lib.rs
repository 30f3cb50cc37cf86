//! LiftActuator: a servo valve with positive overlap to supply and negative
//! overlap to tank drives a double-acting cylinder that lifts a 100 kg
//! load, after Strashnov et al. (2023). Equations L1-L6 of the lift
//! circuit's `MODEL.md`.
//!
//! States: the hydraulic block (`x_v`, `dx_v`, `p_A`, `p_B`, see
//! [`lift_circuit::drive`]), then the piston's (`x_p`, `v_p`).

use fmu_core::compose::{ActuatorPart, Assembly, BodyPart, Builder};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Context, Model};
use lift_circuit::{
    CylinderParams, LiftDrive, LiftDriveStates, Piston, PistonParams, PistonStates, ValveParams,
};
use std::sync::Arc;

fmu_core::circuit! {
    model LiftActuator {
        description: "Servo valve with overlaps driving a cylinder that lifts a load against \
                      gravity, with viscous and dry friction and end stops",
        documentation: include_str!("../../lift-circuit/MODEL.md"),
        stop_time: 5.0,
        step_size: 1e-3,
    }
    states {
        /// Spool position and velocity, chamber pressures
        drive: group LiftDriveStates;
        /// Piston position and velocity
        piston: group PistonStates;
    }
    inputs Inputs {
        /// Valve command (1 = the spool at full travel K_v)
        u: ["1"] = 0.0, min -1.0, max 1.0;
        /// External force on the rod, positive extending (besides the load's
        /// weight)
        F_ext: ["N" => "kN"] = 0.0, min -1e7, max 1e7;
    }
    outputs Outputs {
        /// Piston position, 0 = retracted
        x_p: ["m" => "mm"] = x[state::piston.index(PistonStates::x_p)];
        /// Piston velocity
        v_p: ["m/s"] = x[state::piston.index(PistonStates::v_p)];
        /// Pressure in chamber A (piston side)
        p_A: ["Pa" => "bar"] = x[state::drive.index(LiftDriveStates::p_A)];
        /// Pressure in chamber B (rod side)
        p_B: ["Pa" => "bar"] = x[state::drive.index(LiftDriveStates::p_B)];
        /// Flow into chamber A
        Q_A: ["m3/s" => "L/min"];
        /// Flow into chamber B
        Q_B: ["m3/s" => "L/min"];
        /// Spool position
        x_v: ["m" => "mm"] = x[state::drive.index(LiftDriveStates::x_v)];
        /// Dry-friction force on the piston (opposes the motion)
        F_f: ["N"];
    }
    parameters Params {}
    groups {
        /// The supply and the servo valve
        valve: ValveParams,
        /// The cylinder's chambers and the oil
        cylinder: CylinderParams,
        /// The piston and its load
        piston: PistonParams,
    }
}

/// The LiftActuator circuit: the hydraulics' rod on the piston, the
/// external force on the piston too.
#[derive(Debug, Clone)]
pub struct LiftActuator {
    drive: Arc<ActuatorPart<LiftDrive, 4>>,
    piston: Arc<BodyPart<Piston, 2>>,
    circuit: Assembly,
}

impl Model<NX> for LiftActuator {
    /// The valve's edges (L3) and the end stops (L6).
    fn event_indicators() -> Vec<fmu_core::EventIndicator> {
        let mut e = LiftDrive::EVENT_INDICATORS.to_vec();
        e.extend(Piston::EVENT_INDICATORS);
        e
    }

    fn event_indicator_values(&self, u: &Inputs, x: &SVector<f64, NX>, z: &mut [f64]) {
        self.circuit
            .event_indicator_values(&[u.u, u.F_ext], x.as_slice(), z);
    }

    fn terminals() -> Vec<fmu_core::model_description::Terminal> {
        use fmu_core::model_description::{Side, Terminal};
        vec![Terminal::flange(
            "load",
            "Piston rod: position x_p and velocity v_p, external force F_ext on it (besides the load's weight)",
            "x_p",
            "v_p",
            "F_ext",
            Side::Top,
        )]
    }

    fn configure(p: &Params, _context: &Context) -> Result<Self, String> {
        let drive = Arc::new(ActuatorPart(LiftDrive::new(&p.valve, &p.cylinder)?));
        let piston = Arc::new(BodyPart(Piston::new(&p.piston, p.cylinder.stroke)?));
        let mut b = Builder::new();
        b.part("drive", drive.clone())?
            .part("piston", piston.clone())?
            .connect(&["drive.rod", "piston.rod"])?
            .input("u", "drive.U", "value")?
            .input_through("F_ext", "piston.rod")?;
        let circuit = b.build()?;
        circuit.check_table::<Self>()?;
        circuit.check_event_indicators(&Self::event_indicators())?;
        Ok(LiftActuator {
            drive,
            piston,
            circuit,
        })
    }

    fn derived(&self) -> Vec<fmu_core::Derived> {
        self.circuit.derived()
    }

    fn initial_state(&self, u: &Inputs) -> SVector<f64, NX> {
        self.circuit.initial(&[u.u, u.F_ext])
    }

    /// L1-L6: the hydraulics with the piston's position and velocity, the
    /// piston driven by p_A S_A - p_B S_B plus the external force.
    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        self.circuit.rates(&[u.u, u.F_ext], x)
    }

    /// The parts' partial derivatives, chained through the rod.
    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        self.circuit.rates_and_jacobian(&[u.u, u.F_ext], x, j)
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        let s = state::drive.read(x);
        let c = state::piston.read(x);
        let d = self
            .drive
            .0
            .rates(u.u, &s, c[PistonStates::x_p], c[PistonStates::v_p]);
        out.Q_A = d.q_a;
        out.Q_B = d.q_b;
        out.F_f = self.piston.0.friction.eval(c[PistonStates::v_p]).0;
    }
}

fmu_core::export_fmu!(LiftActuator);

#[cfg(test)]
mod tests;
