//! ValveCylinder: a constant-pressure pump feeds a pressure compensator,
//! whose throttle keeps a fixed margin across a 4/3 proportional valve; the
//! valve drives a double-acting cylinder moving a 200 kg mass with LuGre
//! friction between end stops. Equations V1-V7 of the valve drive's
//! `MODEL.md`.
//!
//! States: the drive's block (`Us`, `dUs`, `K`, `p1`, `p2`, `pv`, see
//! [`crate::drive`]), then the carriage's (`x`, `v`, `z`).

use crate::{Carriage, CarriageParams, CarriageStates, DriveParams, DriveStates, ValveDrive};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{BlockJacobian, Clamp, Context, Model};

fmu_core::circuit! {
    model ValveCylinder {
        description: "Pressure-compensated 4/3 proportional valve driving a cylinder with a \
                      mass and LuGre friction",
        documentation: concat!(
            include_str!("../MODEL.md"),
            "\n## Schematic of ValveCylinder\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). The pressure compensator with its shuttle valve is the PressureCompensator part's symbol.\n\n",
            include_str!("../schematic-ValveCylinder.svg")
        ),
        stop_time: 10.0,
        step_size: 1e-3,
    }
    states {
        /// The valve drive: spool, compensator, chamber and small-volume
        /// pressures
        drive: group DriveStates;
        /// The mass: position, velocity, bristle deflection
        carriage: group CarriageStates;
    }
    inputs Inputs {
        /// Valve command voltage
        U: ["V"] = 0.0, min -10.0, max 10.0;
    }
    outputs Outputs {
        /// Piston (rod) position, 0 = retracted
        x: ["m" => "mm"] = x[state::carriage.index(CarriageStates::x)];
        /// Piston velocity
        v: ["m/s" => "mm/s"] = x[state::carriage.index(CarriageStates::v)];
        /// Pressure in chamber A (piston side)
        p1: ["Pa" => "bar"] = x[state::drive.index(DriveStates::p1)];
        /// Pressure in chamber B (rod side)
        p2: ["Pa" => "bar"] = x[state::drive.index(DriveStates::p2)];
        /// Pressure in the small volume between compensator and valve
        pv: ["Pa" => "bar"];
        /// Flow through the compensator throttle
        Qv: ["m3/s" => "L/min"];
        /// Flow into chamber A
        Q1: ["m3/s" => "L/min"];
        /// Flow out of chamber B
        Q2: ["m3/s" => "L/min"];
        /// Flow from the small volume into the valve
        Q3: ["m3/s" => "L/min"];
        /// LuGre friction force on the mass
        F_mu: ["N"];
        /// Spool signal (proportional to the spool displacement)
        Us: ["V"] = x[state::drive.index(DriveStates::Us)];
        /// Flow from the valve to the tank (Q3 - Q1 + Q2: the valve holds no volume)
        QT: ["m3/s" => "L/min"];
    }
    parameters Params {}
    groups {
        /// The hydraulics
        hydraulics: DriveParams,
        /// The mass
        mass: CarriageParams,
    }
}

/// The ValveCylinder circuit.
#[derive(Debug, Clone, PartialEq)]
pub struct ValveCylinder {
    drive: ValveDrive,
    carriage: Carriage,
    /// The compensator's clamped throttle coefficient.
    clamps: [Clamp; 1],
}

impl Model<NX> for ValveCylinder {
    fn terminals() -> Vec<fmu_core::model_description::Terminal> {
        crate::supply_and_tank_ports()
    }

    fn configure(p: &Params, context: &Context) -> Result<Self, String> {
        let drive = p.hydraulics.drive(context)?;
        let carriage = p.mass.carriage(p.hydraulics.Sc)?;
        let clamps = [drive.throttle_clamp(state::drive.index(DriveStates::K))];
        Ok(ValveCylinder {
            drive,
            carriage,
            clamps,
        })
    }

    /// The drive's and the carriage's coefficients, as they declare them.
    fn derived(&self) -> Vec<fmu_core::Derived> {
        let mut d = self.drive.derived();
        d.extend(self.carriage.derived());
        d
    }

    fn clamps(&self) -> &[Clamp] {
        &self.clamps
    }

    /// The drive's switches (valve edges, shuttle, throttle clamp) and the
    /// end stops.
    fn event_indicators() -> Vec<fmu_core::EventIndicator> {
        let mut e = ValveDrive::EVENT_INDICATORS.to_vec();
        e.extend(Carriage::EVENT_INDICATORS);
        e
    }

    fn event_indicator_values(&self, _u: &Inputs, x: &SVector<f64, NX>, z: &mut [f64]) {
        let n = ValveDrive::EVENT_INDICATORS.len();
        self.drive
            .event_indicator_values(&state::drive.read(x), &mut z[..n]);
        self.carriage
            .event_indicator_values(&state::carriage.read(x), &mut z[n..]);
    }

    fn initial_state(&self, _u: &Inputs) -> SVector<f64, NX> {
        let mut x = SVector::zeros();
        state::drive.write(&mut x, &self.drive.initial);
        x[state::carriage.index(CarriageStates::x)] = self.carriage.x0;
        x
    }

    /// A trained small volume's sample period (`pv_surrogate`).
    fn sample_period(&self) -> Option<f64> {
        self.drive.sample_period()
    }

    /// The trained small volume's pv at the end of a period.
    fn sample(&self, _u: &Inputs, x: &mut SVector<f64, NX>) {
        x[state::drive.index(DriveStates::pv)] = self.drive.sample_pv(&state::drive.read(x));
    }

    /// V1-V6: the drive's rates with the rod moving with the carriage, and
    /// the carriage driven by the cylinder force p1 A1 - p2 A2.
    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        let s = state::drive.read(x);
        let c = state::carriage.read(x);
        let drive = self
            .drive
            .rates(u.U, &s, c[CarriageStates::x], c[CarriageStates::v]);
        let carriage = self.carriage.eval(&c, self.drive.force(&s));
        let mut dx = SVector::zeros();
        state::drive.write(&mut dx, &drive.rates);
        state::carriage.write(&mut dx, &carriage.rates);
        dx
    }

    /// One evaluation of the drive and the carriage gives both.
    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        let s = state::drive.read(x);
        let c = state::carriage.read(x);
        let d = self
            .drive
            .eval(u.U, &s, c[CarriageStates::x], c[CarriageStates::v]);
        let k = self.carriage.eval(&c, self.drive.force(&s));
        let mut dx = SVector::zeros();
        state::drive.write(&mut dx, &d.rates);
        state::carriage.write(&mut dx, &k.rates);
        j.block(state::drive, state::drive).copy_from(&d.jac);
        j.block_column(state::drive, state::carriage.index(CarriageStates::x))
            .copy_from(&d.d_x);
        j.block_column(state::drive, state::carriage.index(CarriageStates::v))
            .copy_from(&d.d_v);
        j.block(state::carriage, state::carriage).copy_from(&k.jac);
        // The cylinder force couples the chamber pressures into the mass.
        let mut force_gradient = SVector::<f64, 6>::zeros();
        force_gradient[DriveStates::p1] = self.drive.cylinder.a1;
        force_gradient[DriveStates::p2] = -self.drive.cylinder.a2;
        j.block(state::carriage, state::drive)
            .copy_from(&(k.d_force * force_gradient.transpose()));
        (dx, true)
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        let s = state::drive.read(x);
        let c = state::carriage.read(x);
        let d = self
            .drive
            .rates(u.U, &s, c[CarriageStates::x], c[CarriageStates::v]);
        out.pv = d.pv;
        out.Qv = d.qv;
        out.Q1 = d.q1;
        out.Q2 = d.q2;
        out.Q3 = d.q3;
        out.QT = d.q3 - d.q1 + d.q2;
        out.F_mu = self.carriage.eval(&c, self.drive.force(&s)).friction;
    }
}

impl ValveCylinder {
    /// The circuit as parts with ports ([`fmu_core::compose`]): the drive pushing on the carriage at the rod, the command `U` on the drive.
    /// It gives the same rates, Jacobian, start and event indicators as the
    /// equations written out here, bit for bit (tested); `bench-compose`
    /// measures what the composed evaluation costs beside them.
    pub fn assembly(&self) -> Result<fmu_core::compose::Assembly, String> {
        use fmu_core::compose::{ActuatorPart, BodyPart, Builder};
        use std::sync::Arc;
        let mut b = Builder::new();
        b.part("drive", Arc::new(ActuatorPart::<_, 6>(self.drive.clone())))?
            .part("carriage", Arc::new(BodyPart::<_, 3>(self.carriage)))?
            .connect(&["drive.rod", "carriage.rod"])?
            .input("U", "drive.U", "value")?;
        b.build()
    }
}

#[cfg(test)]
mod tests;
