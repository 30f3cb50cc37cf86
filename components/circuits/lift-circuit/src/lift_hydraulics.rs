//! LiftHydraulics: the lift actuator's spool, overlapped valve and chambers
//! without the piston and its load, for multibody engines: the piston's
//! position and velocity are inputs, the hydraulic force an output. The
//! piston's mass, friction, end stops and load belong to the mechanism.
//! Equations L1-L5 of the lift circuit's `MODEL.md`.

use crate::{CylinderParams, LiftDrive, LiftDriveStates, ValveParams};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Context, Known, Model};

fmu_core::circuit! {
    model LiftHydraulics {
        description: "Servo valve with overlaps and a cylinder's two chambers: piston motion \
                      in, hydraulic force out",
        documentation: concat!(
            include_str!("../MODEL.md"),
            "\n## Schematic of LiftHydraulics\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). The hydraulics of LiftActuator; the piston is moved by the inputs `x_p` and `v_p` from the mechanism.\n\n",
            include_str!("../schematic-LiftHydraulics.svg")
        ),
        stop_time: 5.0,
        step_size: 1e-3,
    }
    states {
        /// Spool position and velocity, chamber pressures
        drive: group LiftDriveStates;
    }
    inputs Inputs {
        /// Valve command (1 = the spool at full travel K_v)
        u: ["1"] = 0.0, min -1.0, max 1.0;
        /// Piston position from the mechanism, 0 = retracted
        x_p: ["m" => "mm"] = 0.0, min -0.1, max 100.0;
        /// Piston velocity from the mechanism
        v_p: ["m/s"] = 0.0, min -100.0, max 100.0;
    }
    outputs Outputs {
        /// Hydraulic force on the piston, p_A S_A - p_B S_B (positive
        /// extending)
        F: ["N" => "kN"];
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
    }
    parameters Params {}
    groups {
        /// The supply and the servo valve
        valve: ValveParams,
        /// The cylinder's chambers and the oil
        cylinder: CylinderParams,
    }
}

/// The LiftHydraulics circuit.
#[derive(Debug, Clone, PartialEq)]
pub struct LiftHydraulics {
    drive: LiftDrive,
}

impl Model<NX> for LiftHydraulics {
    /// The valve's edges (L3).
    fn event_indicators() -> Vec<fmu_core::EventIndicator> {
        LiftDrive::EVENT_INDICATORS.to_vec()
    }

    fn event_indicator_values(&self, _u: &Inputs, x: &SVector<f64, NX>, z: &mut [f64]) {
        self.drive.event_indicator_values(&state::drive.read(x), z);
    }

    fn terminals() -> Vec<fmu_core::model_description::Terminal> {
        use fmu_core::model_description::{Side, Terminal};
        vec![Terminal::flange(
            "rod",
            "Piston rod: position x_p and velocity v_p from the mechanism, hydraulic force F on it",
            "x_p",
            "v_p",
            "F",
            Side::Top,
        )]
    }

    fn configure(p: &Params, _context: &Context) -> Result<Self, String> {
        Ok(LiftHydraulics {
            drive: LiftDrive::new(&p.valve, &p.cylinder)?,
        })
    }

    /// The hydraulics' coefficients, as they declare them.
    fn derived(&self) -> Vec<fmu_core::Derived> {
        self.drive.derived()
    }

    fn initial_state(&self, _u: &Inputs) -> SVector<f64, NX> {
        let mut x = SVector::zeros();
        state::drive.write(&mut x, &self.drive.initial);
        x
    }

    /// L1-L5 with the piston's position and velocity from the inputs.
    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        let mut dx = SVector::zeros();
        let rates = self
            .drive
            .rates(u.u, &state::drive.read(x), u.x_p, u.v_p)
            .rates;
        state::drive.write(&mut dx, &rates);
        dx
    }

    /// One evaluation of the hydraulics gives both.
    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        use fmu_core::BlockJacobian;
        let e = self.drive.eval(u.u, &state::drive.read(x), u.x_p, u.v_p);
        let mut dx = SVector::zeros();
        state::drive.write(&mut dx, &e.rates);
        j.block(state::drive, state::drive).copy_from(&e.jac);
        (dx, true)
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        let s = state::drive.read(x);
        let d = self.drive.rates(u.u, &s, u.x_p, u.v_p);
        out.F = self.drive.force(&s);
        out.Q_A = d.q_a;
        out.Q_B = d.q_b;
    }

    /// The force depends on the chamber pressures only (no feedthrough).
    fn output_partial(
        &self,
        _u: &Inputs,
        _x: &SVector<f64, NX>,
        of: usize,
        wrt: Known,
    ) -> Option<f64> {
        let g = self.drive.force_gradient();
        match (of, wrt) {
            (output::F, Known::State(s)) => Some(g[s - state::drive.start()]),
            (output::F, _) => Some(0.0),
            _ => None,
        }
    }
}

impl LiftHydraulics {
    /// The circuit as parts with ports ([`fmu_core::compose`]): the drive alone, its rod moved by the inputs `x_p` and `v_p`.
    /// It gives the same rates, Jacobian, start and event indicators as the
    /// equations written out here, bit for bit (tested); `bench-compose`
    /// measures what the composed evaluation costs beside them.
    pub fn assembly(&self) -> Result<fmu_core::compose::Assembly, String> {
        use fmu_core::compose::{ActuatorPart, Builder};
        use std::sync::Arc;
        let mut b = Builder::new();
        b.part("drive", Arc::new(ActuatorPart::<_, 4>(self.drive)))?
            .input("u", "drive.U", "value")?
            .input("x_p", "drive.rod", "s")?
            .input("v_p", "drive.rod", "v")?;
        b.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_core::Record;

    #[test]
    fn table_validates_and_force_is_the_piston_balance() {
        fmu_core::checked_description::<LiftHydraulics, NX>().unwrap();
        let none = fmu_core::ResourceFolder::Unavailable(String::new());
        let m = LiftHydraulics::configure(&Params::defaults(), &Context::new(&none)).unwrap();
        let u = Inputs::defaults();
        let x = SVector::<f64, NX>::from([0.0, 0.0, 5.9e6, 1.1e6]);
        let out = m.all_outputs(&u, &x);
        assert!((out.F - (5.9e6 - 1.1e6) * 1.18e-3).abs() < 1e-6);
        assert_eq!((out.p_A, out.p_B, out.x_v), (5.9e6, 1.1e6, 0.0));
        let p_a = state::drive.index(LiftDriveStates::p_A);
        assert_eq!(
            m.output_partial(&u, &x, output::F, Known::State(p_a)),
            Some(1.18e-3)
        );
    }

    /// The circuit as one part with ports: the hydraulics (an actuator) with
    /// their flange moved by the inputs. The same rates, Jacobian, start and
    /// event indicators as the equations written out, bit for bit.
    #[test]
    fn composed_from_its_part_it_gives_the_same_equations_bit_for_bit() {
        let (m, mut u) = fmu_core::default_model::<LiftHydraulics, NX>().unwrap();
        let a = m.assembly().unwrap();
        a.check_table::<LiftHydraulics>().unwrap();
        let states = fmu_core::testing::sample_states(
            &[-2e-3, -1.0, -1e5, -1e5],
            &[2e-3, 1.0, 2.2e7, 2.2e7],
            200,
        );
        for (command, x, v) in [(-0.8, 0.1, -2.0), (0.0, 0.5, 0.0), (0.6, 0.99, 3.0)] {
            (u.u, u.x_p, u.v_p) = (command, x, v);
            let problems = fmu_core::testing::composition_differences(
                &m,
                &u,
                &a,
                &[u.u, u.x_p, u.v_p],
                &states,
            );
            assert!(problems.is_empty(), "{}", problems.join("\n"));
        }
    }
}
