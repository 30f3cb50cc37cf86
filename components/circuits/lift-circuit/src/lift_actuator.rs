//! LiftActuator: a servo valve with positive overlap to supply and negative
//! overlap to tank drives a double-acting cylinder that lifts a 100 kg
//! load, after Strashnov et al. (2023). Equations L1-L6 of the lift
//! circuit's `MODEL.md`.
//!
//! States: the hydraulic block (`x_v`, `dx_v`, `p_A`, `p_B`, see
//! [`crate::drive`]), then the piston's (`x_p`, `v_p`).

use crate::{
    CylinderParams, LiftDrive, LiftDriveStates, Piston, PistonParams, PistonStates, ValveParams,
};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{BlockJacobian, Context, Model};

fmu_core::circuit! {
    model LiftActuator {
        description: "Servo valve with overlaps driving a cylinder that lifts a load against \
                      gravity, with viscous and dry friction and end stops",
        documentation: concat!(
            include_str!("../MODEL.md"),
            "\n## Schematic of LiftActuator\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`).\n\n",
            include_str!("../schematic-LiftActuator.svg")
        ),
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

/// The LiftActuator circuit.
#[derive(Debug, Clone, PartialEq)]
pub struct LiftActuator {
    drive: LiftDrive,
    piston: Piston,
}

impl Model<NX> for LiftActuator {
    /// The valve's edges (L3) and the end stops (L6).
    fn event_indicators() -> Vec<fmu_core::EventIndicator> {
        let mut e = LiftDrive::EVENT_INDICATORS.to_vec();
        e.extend(Piston::EVENT_INDICATORS);
        e
    }

    fn event_indicator_values(&self, _u: &Inputs, x: &SVector<f64, NX>, z: &mut [f64]) {
        let n = LiftDrive::EVENT_INDICATORS.len();
        self.drive
            .event_indicator_values(&state::drive.read(x), &mut z[..n]);
        self.piston
            .event_indicator_values(&state::piston.read(x), &mut z[n..]);
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
        let drive = LiftDrive::new(&p.valve, &p.cylinder)?;
        let piston = Piston::new(&p.piston, p.cylinder.stroke)?;
        Ok(LiftActuator { drive, piston })
    }

    /// The hydraulics' and the piston's coefficients, as they declare them.
    fn derived(&self) -> Vec<fmu_core::Derived> {
        let mut d = self.drive.derived();
        d.extend(self.piston.derived());
        d
    }

    fn initial_state(&self, _u: &Inputs) -> SVector<f64, NX> {
        let mut x = SVector::zeros();
        state::drive.write(&mut x, &self.drive.initial);
        state::piston.write(&mut x, &self.piston.initial);
        x
    }

    /// L1-L6: the hydraulics with the piston's position and velocity, the
    /// piston driven by p_A S_A - p_B S_B plus the external force.
    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        let s = state::drive.read(x);
        let c = state::piston.read(x);
        let d = self
            .drive
            .rates(u.u, &s, c[PistonStates::x_p], c[PistonStates::v_p]);
        let k = self.piston.eval(&c, self.drive.force(&s) + u.F_ext);
        let mut dx = SVector::zeros();
        state::drive.write(&mut dx, &d.rates);
        state::piston.write(&mut dx, &k.rates);
        dx
    }

    /// One evaluation of the hydraulics and the piston gives both.
    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        let s = state::drive.read(x);
        let c = state::piston.read(x);
        let d = self
            .drive
            .eval(u.u, &s, c[PistonStates::x_p], c[PistonStates::v_p]);
        let k = self.piston.eval(&c, self.drive.force(&s) + u.F_ext);
        let mut dx = SVector::zeros();
        state::drive.write(&mut dx, &d.rates);
        state::piston.write(&mut dx, &k.rates);
        j.block(state::drive, state::drive).copy_from(&d.jac);
        j.block_column(state::drive, state::piston.index(PistonStates::x_p))
            .copy_from(&d.d_x);
        j.block_column(state::drive, state::piston.index(PistonStates::v_p))
            .copy_from(&d.d_v);
        j.block(state::piston, state::piston).copy_from(&k.jac);
        // The cylinder force couples the chamber pressures into the piston.
        j.block(state::piston, state::drive)
            .copy_from(&(k.d_force * self.drive.force_gradient().transpose()));
        (dx, true)
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        let s = state::drive.read(x);
        let c = state::piston.read(x);
        let d = self
            .drive
            .rates(u.u, &s, c[PistonStates::x_p], c[PistonStates::v_p]);
        out.Q_A = d.q_a;
        out.Q_B = d.q_b;
        out.F_f = self.piston.friction.eval(c[PistonStates::v_p]).0;
    }
}

impl LiftActuator {
    /// The circuit as parts with ports ([`fmu_core::compose`]): the drive pushing on the piston at the rod, the command `u` on the
    /// drive and the external force `F_ext` on the piston.
    /// It gives the same rates, Jacobian, start and event indicators as the
    /// equations written out here, bit for bit (tested); `bench-compose`
    /// measures what the composed evaluation costs beside them.
    pub fn assembly(&self) -> Result<fmu_core::compose::Assembly, String> {
        use fmu_core::compose::{ActuatorPart, BodyPart, Builder};
        use std::sync::Arc;
        let mut b = Builder::new();
        b.part("drive", Arc::new(ActuatorPart::<_, 4>(self.drive)))?
            .part("piston", Arc::new(BodyPart::<_, 2>(self.piston)))?
            .connect(&["drive.rod", "piston.rod"])?
            .input("u", "drive.U", "value")?
            .input_through("F_ext", "piston.rod")?;
        b.build()
    }
}

#[cfg(test)]
mod tests;
