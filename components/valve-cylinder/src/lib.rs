//! ValveCylinder: a constant-pressure pump feeds a pressure compensator,
//! whose throttle keeps a fixed margin across a 4/3 proportional valve; the
//! valve drives a double-acting cylinder moving a 200 kg mass with LuGre
//! friction between end stops. Equations V1-V7 of the valve drive's
//! `MODEL.md`.
//!
//! States: the drive's block (`Us`, `dUs`, `K`, `p1`, `p2`, `pv`, see
//! [`valve_drive::drive`]), then the carriage's (`x`, `v`, `z`).

use fmu_core::compose::{ActuatorPart, BodyPart};
use fmu_core::compose::{Assembly, Builder};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Clamp, Context, Model};
use std::sync::Arc;
use valve_drive::{Carriage, CarriageParams, CarriageStates, DriveParams, DriveStates, ValveDrive};

fmu_core::circuit! {
    model ValveCylinder {
        description: "Pressure-compensated 4/3 proportional valve driving a cylinder with a \
                      mass and LuGre friction",
        documentation: include_str!("../../valve-drive/MODEL.md"),
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

/// The ValveCylinder circuit: the drive's rod flange connected to the
/// carriage's.
#[derive(Debug, Clone)]
pub struct ValveCylinder {
    drive: Arc<ActuatorPart<ValveDrive, 6>>,
    carriage: Arc<BodyPart<Carriage, 3>>,
    circuit: Assembly,
    /// The compensator's clamped throttle coefficient.
    clamps: Vec<Clamp>,
}

impl ValveCylinder {
    /// The parts and their connection: the drive's rod on the carriage,
    /// the command U into the drive.
    fn assemble(
        drive: &Arc<ActuatorPart<ValveDrive, 6>>,
        carriage: &Arc<BodyPart<Carriage, 3>>,
    ) -> Result<Assembly, String> {
        let mut b = Builder::new();
        b.part("drive", drive.clone())?
            .part("carriage", carriage.clone())?
            .connect(&["drive.rod", "carriage.rod"])?
            .input("U", "drive.U", "value")?;
        let circuit = b.build()?;
        circuit.check_table::<Self>()?;
        circuit.check_event_indicators(&Self::event_indicators())?;
        Ok(circuit)
    }
}

impl Model<NX> for ValveCylinder {
    fn terminals() -> Vec<fmu_core::model_description::Terminal> {
        valve_drive::supply_and_tank_ports()
    }

    fn configure(p: &Params, context: &Context) -> Result<Self, String> {
        let drive = Arc::new(ActuatorPart(p.hydraulics.drive(context)?));
        let carriage = Arc::new(BodyPart(p.mass.carriage(p.hydraulics.Sc)?));
        let circuit = Self::assemble(&drive, &carriage)?;
        Ok(ValveCylinder {
            clamps: circuit.clamps(),
            drive,
            carriage,
            circuit,
        })
    }

    fn derived(&self) -> Vec<fmu_core::Derived> {
        self.circuit.derived()
    }

    fn clamps(&self) -> &[Clamp] {
        &self.clamps
    }

    /// The drive's switches (valve edges, shuttle, throttle clamp) and the
    /// end stops.
    fn event_indicators() -> Vec<fmu_core::EventIndicator> {
        [
            ValveDrive::EVENT_INDICATORS.as_slice(),
            &Carriage::EVENT_INDICATORS,
        ]
        .concat()
    }

    fn event_indicator_values(&self, u: &Inputs, x: &SVector<f64, NX>, z: &mut [f64]) {
        self.circuit.event_indicator_values(&[u.U], x.as_slice(), z);
    }

    fn initial_state(&self, u: &Inputs) -> SVector<f64, NX> {
        self.circuit.initial(&[u.U])
    }

    /// A trained small volume's sample period (`pv_surrogate`).
    fn sample_period(&self) -> Option<f64> {
        self.drive.0.sample_period()
    }

    /// The trained small volume's pv at the end of a period.
    fn sample(&self, _u: &Inputs, x: &mut SVector<f64, NX>) {
        x[state::drive.index(DriveStates::pv)] = self.drive.0.sample_pv(&state::drive.read(x));
    }

    /// V1-V6: the drive's rates with the rod moving with the carriage, and
    /// the carriage driven by the cylinder force p1 A1 - p2 A2.
    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        self.circuit.rates(&[u.U], x)
    }

    /// The parts' partial derivatives, chained through the rod.
    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        self.circuit.rates_and_jacobian(&[u.U], x, j)
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        let s = state::drive.read(x);
        let c = state::carriage.read(x);
        let (drive, carriage) = (&self.drive.0, &self.carriage.0);
        let d = drive.rates(u.U, &s, c[CarriageStates::x], c[CarriageStates::v]);
        out.pv = d.pv;
        out.Qv = d.qv;
        out.Q1 = d.q1;
        out.Q2 = d.q2;
        out.Q3 = d.q3;
        out.QT = d.q3 - d.q1 + d.q2;
        out.F_mu = carriage.eval(&c, drive.force(&s)).friction;
    }
}

fmu_core::export_fmu!(ValveCylinder);

#[cfg(test)]
mod tests;
