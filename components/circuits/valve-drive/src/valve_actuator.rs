//! ValveActuator: the hydraulics of the ValveCylinder circuit without the
//! mass, its friction and the end stops, for multibody co-simulation: the
//! rod position and velocity are inputs, the cylinder force an output.
//! Equations V1-V5 and V7 of the valve drive's `MODEL.md`.

use crate::{DriveParams, DriveStates, TrainedActuator, ValveDrive};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Clamp, Context, Known, Model};

fmu_core::circuit! {
    model ValveActuator {
        description: "Pressure-compensated 4/3 valve and cylinder without the mass: rod \
                      motion in, cylinder force out",
        documentation: concat!(
            include_str!("../MODEL.md"),
            "\n## Schematic of ValveActuator\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). The hydraulics of ValveCylinder; the rod is moved by the inputs `x` and `v` from the mechanism.\n\n",
            include_str!("../schematic-ValveActuator.svg")
        ),
        stop_time: 10.0,
        step_size: 1e-3,
    }
    states {
        /// The valve drive: spool, compensator, chamber and small-volume
        /// pressures
        drive: group DriveStates;
    }
    inputs Inputs {
        /// Valve command voltage
        U: ["V"] = 0.0, min -10.0, max 10.0;
        /// Rod position from the mechanism, 0 = retracted
        x: ["m" => "mm"] = 1.0, min -0.1, max 100.0;
        /// Rod velocity from the mechanism
        v: ["m/s" => "mm/s"] = 0.0, min -100.0, max 100.0;
    }
    outputs Outputs {
        /// Cylinder force on the rod, p1 A1 - p2 A2 (positive extending)
        F: ["N" => "kN"];
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
        /// Spool signal
        Us: ["V"] = x[state::drive.index(DriveStates::Us)];
        /// Flow from the valve to the tank (Q3 - Q1 + Q2: the valve holds no volume)
        QT: ["m3/s" => "L/min"];
    }
    parameters Params {
        /// The whole actuator from a trained model for hardware-in-the-loop
        /// use (V9): 0 = the physics, 1 = a network, 2 = a LOLIMOT tree
        /// (the spool exact, the valve flows and pv from the trained
        /// correction of a physics baseline, the chambers by their
        /// balance), one fixed-cost update per 10 ms. Reads its weights
        /// from the FMU's resources (valve-actuator-hil-narx.txt,
        /// valve-actuator-hil-lolimot.txt); co-simulation only, stepped by
        /// whole periods; trained for the default valve, compensator and
        /// supply
        actuator_surrogate: int = 0, min 0, max 2;
    }
    groups {
        /// The hydraulics
        hydraulics: DriveParams,
    }
}

impl ValveActuator {
    /// The weights files of `actuator_surrogate` 1 and 2, in the FMU's
    /// resources.
    pub const ACTUATOR_SURROGATE_FILES: [&str; 2] = [
        "valve-actuator-hil-narx.txt",
        "valve-actuator-hil-lolimot.txt",
    ];

    /// The whole-actuator surrogate (V9), its weights read from the
    /// resources and checked; refused with the options that change what
    /// the model was trained on or that replace the same equations.
    fn trained_actuator(
        p: &Params,
        drive: &ValveDrive,
        context: &Context,
    ) -> Result<TrainedActuator, String> {
        let h = &p.hydraulics;
        if h.pv_surrogate != 0 || h.quasi_static {
            return Err(
                "actuator_surrogate replaces the whole drive, the small volume \
                        included: leave pv_surrogate = 0 and quasi_static = false"
                    .into(),
            );
        }
        if h.valve_overlap {
            return Err(
                "actuator_surrogate was trained on the deadband valve: it cannot \
                        stand in for the overlap option (valve_overlap = false)"
                    .into(),
            );
        }
        let file = Self::ACTUATOR_SURROGATE_FILES[(p.actuator_surrogate - 1) as usize];
        TrainedActuator::load(drive, context, file)
    }
}

/// The ValveActuator circuit.
#[derive(Debug, Clone, PartialEq)]
pub struct ValveActuator {
    drive: ValveDrive,
    /// The whole-actuator surrogate (`actuator_surrogate` 1 or 2).
    trained: Option<TrainedActuator>,
    /// The compensator's clamped throttle coefficient.
    clamps: [Clamp; 1],
}

impl Model<NX> for ValveActuator {
    fn terminals() -> Vec<fmu_core::model_description::Terminal> {
        use fmu_core::model_description::{Side, Terminal};
        let mut terminals = crate::supply_and_tank_ports();
        terminals.push(Terminal::flange(
            "rod",
            "Rod: position x and velocity v from the mechanism, cylinder force F on it",
            "x",
            "v",
            "F",
            Side::Top,
        ));
        terminals
    }

    fn configure(p: &Params, context: &Context) -> Result<Self, String> {
        let drive = p.hydraulics.drive(context)?;
        let clamps = [drive.throttle_clamp(state::drive.index(DriveStates::K))];
        let trained = match p.actuator_surrogate {
            0 => None,
            _ => Some(Self::trained_actuator(p, &drive, context)?),
        };
        Ok(ValveActuator {
            drive,
            trained,
            clamps,
        })
    }

    fn clamps(&self) -> &[Clamp] {
        &self.clamps
    }

    /// The drive's switches: valve edges, shuttle, throttle clamp.
    fn event_indicators() -> Vec<fmu_core::EventIndicator> {
        ValveDrive::EVENT_INDICATORS.to_vec()
    }

    fn event_indicator_values(&self, _u: &Inputs, x: &SVector<f64, NX>, z: &mut [f64]) {
        self.drive.event_indicator_values(&state::drive.read(x), z);
    }

    /// The drive's and the carriage's coefficients, as they declare them.
    fn derived(&self) -> Vec<fmu_core::Derived> {
        self.drive.derived()
    }

    fn initial_state(&self, _u: &Inputs) -> SVector<f64, NX> {
        let mut x = SVector::zeros();
        state::drive.write(&mut x, &self.drive.initial);
        x
    }

    /// The sample period of the whole-actuator surrogate
    /// (`actuator_surrogate`) or of a trained small volume (`pv_surrogate`).
    fn sample_period(&self) -> Option<f64> {
        match &self.trained {
            Some(t) => Some(t.period()),
            None => self.drive.sample_period(),
        }
    }

    /// One period of the whole-actuator surrogate (V9), or the trained
    /// small volume's pv at the end of a period (V8).
    fn sample(&self, u: &Inputs, x: &mut SVector<f64, NX>) {
        let s = state::drive.read(x);
        match &self.trained {
            Some(t) => state::drive.write(x, &t.step(&self.drive, u.U, &s, u.x, u.v)),
            None => x[state::drive.index(DriveStates::pv)] = self.drive.sample_pv(&s),
        }
    }

    /// With the whole-actuator surrogate every state is sampled.
    fn sampled_only(&self) -> bool {
        self.trained.is_some()
    }

    /// V1-V5 with the rod position and velocity from the inputs (zero with
    /// the whole-actuator surrogate: its states change only at samples).
    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        let mut dx = SVector::zeros();
        if self.trained.is_some() {
            return dx;
        }
        let rates = self.drive.rates(u.U, &state::drive.read(x), u.x, u.v).rates;
        state::drive.write(&mut dx, &rates);
        dx
    }

    /// One evaluation of the drive gives both.
    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        use fmu_core::BlockJacobian;
        if self.trained.is_some() {
            j.fill(0.0);
            return (SVector::zeros(), true);
        }
        let e = self.drive.eval(u.U, &state::drive.read(x), u.x, u.v);
        let mut dx = SVector::zeros();
        state::drive.write(&mut dx, &e.rates);
        j.block(state::drive, state::drive).copy_from(&e.jac);
        (dx, true)
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        let s = state::drive.read(x);
        let d = self.drive.rates(u.U, &s, u.x, u.v);
        out.F = self.drive.force(&s);
        out.pv = d.pv;
        // The whole-actuator surrogate holds no throttle state: the small
        // volume is balanced at its samples (Qv = Q3).
        out.Qv = if self.trained.is_some() { d.q3 } else { d.qv };
        out.Q1 = d.q1;
        out.Q2 = d.q2;
        out.Q3 = d.q3;
        out.QT = d.q3 - d.q1 + d.q2;
    }

    /// The force depends on the chamber pressures only (no feedthrough).
    fn output_partial(
        &self,
        _u: &Inputs,
        _x: &SVector<f64, NX>,
        of: usize,
        wrt: Known,
    ) -> Option<f64> {
        let c = &self.drive.cylinder;
        let p1 = state::drive.index(DriveStates::p1);
        let p2 = state::drive.index(DriveStates::p2);
        match (of, wrt) {
            (output::F, Known::State(s)) if s == p1 => Some(c.a1),
            (output::F, Known::State(s)) if s == p2 => Some(-c.a2),
            (output::F, _) => Some(0.0),
            _ => None,
        }
    }
}

impl ValveActuator {
    /// The circuit as parts with ports ([`fmu_core::compose`]): the drive alone, its rod moved by the inputs `x` and `v`.
    /// It gives the same rates, Jacobian, start and event indicators as the
    /// equations written out here, bit for bit (tested); `bench-compose`
    /// measures what the composed evaluation costs beside them.
    pub fn assembly(&self) -> Result<fmu_core::compose::Assembly, String> {
        use fmu_core::compose::{ActuatorPart, Builder};
        use std::sync::Arc;
        let mut b = Builder::new();
        b.part("drive", Arc::new(ActuatorPart::<_, 6>(self.drive.clone())))?
            .input("U", "drive.U", "value")?
            .input("x", "drive.rod", "s")?
            .input("v", "drive.rod", "v")?;
        b.build()
    }
}

#[cfg(test)]
mod hil_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_core::Record;

    #[test]
    fn table_validates_and_force_is_the_piston_balance() {
        fmu_core::checked_description::<ValveActuator, NX>().unwrap();
        let none = fmu_core::ResourceFolder::Unavailable(String::new());
        let m = ValveActuator::configure(&Params::defaults(), &Context::new(&none)).unwrap();
        let u = Inputs::defaults();
        let x = SVector::<f64, NX>::from([0.0, 0.0, 5e-11, 1e7, 2e6, 1.1e7]);
        let out = m.all_outputs(&u, &x);
        assert!((out.F - (1e7 * 8.04e-4 - 2e6 * 4.24e-4)).abs() < 1e-6);
        assert_eq!((out.p1, out.p2, out.Us), (1e7, 2e6, 0.0));
    }

    /// The circuit as one part with ports: the drive (an actuator) with its
    /// flange moved by the inputs. The same rates, Jacobian, start and event
    /// indicators as the equations written out, bit for bit.
    #[test]
    fn composed_from_its_part_it_gives_the_same_equations_bit_for_bit() {
        let (m, mut u) = fmu_core::default_model::<ValveActuator, NX>().unwrap();
        let a = m.assembly().unwrap();
        a.check_table::<ValveActuator>().unwrap();
        let states = fmu_core::testing::sample_states(
            &[-10.0, -1e3, 0.0, 0.0, 0.0, 0.0],
            &[10.0, 1e3, 6e-8, 1.4e7, 1.4e7, 1.4e7],
            200,
        );
        for (command, x, v) in [(-7.0, 0.2, -0.05), (0.0, 1.0, 0.0), (4.5, 0.6, 0.08)] {
            (u.U, u.x, u.v) = (command, x, v);
            let problems =
                fmu_core::testing::composition_differences(&m, &u, &a, &[u.U, u.x, u.v], &states);
            assert!(problems.is_empty(), "{}", problems.join("\n"));
        }
    }
}
