//! SlidingMass: a mass with LuGre friction between end stops, driven by an
//! input force: the mechanical half of the ValveCylinder circuit (V6 of the
//! valve drive's `MODEL.md`), the co-simulation partner of ValveActuator.

use crate::{Carriage, CarriageParams, CarriageStates};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{BlockJacobian, Context, Model};

fmu_core::circuit! {
    model SlidingMass {
        description: "Mass with LuGre friction between end stops, driven by a force",
        documentation: concat!(
            include_str!("../MODEL.md"),
            "\n## Schematic of SlidingMass\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). The mass with its LuGre friction and end stops, pushed by the input `F`.\n\n",
            include_str!("../schematic-SlidingMass.svg")
        ),
        stop_time: 10.0,
        step_size: 1e-3,
    }
    states {
        /// The mass: position, velocity, bristle deflection
        carriage: group CarriageStates;
    }
    inputs Inputs {
        /// Driving force on the mass (positive towards +x)
        F: ["N" => "kN"] = 0.0;
    }
    outputs Outputs {
        /// Position
        x: ["m" => "mm"] = x[state::carriage.index(CarriageStates::x)];
        /// Velocity
        v: ["m/s" => "mm/s"] = x[state::carriage.index(CarriageStates::v)];
        /// LuGre friction force
        F_mu: ["N"];
    }
    parameters Params {
        /// Travel between the end stops at 0 and Sc
        Sc: real ["m" => "mm"] = 1.0, above 0.0;
    }
    groups {
        /// The mass
        mass: CarriageParams,
    }
}

/// The SlidingMass model.
#[derive(Debug, Clone, PartialEq)]
pub struct SlidingMass {
    carriage: Carriage,
}

impl Model<NX> for SlidingMass {
    fn terminals() -> Vec<fmu_core::model_description::Terminal> {
        use fmu_core::model_description::{Side, Terminal};
        vec![Terminal::flange(
            "rod",
            "Mass: its position x and velocity v, the driving force F on it",
            "x",
            "v",
            "F",
            Side::Bottom,
        )]
    }

    fn configure(p: &Params, _context: &Context) -> Result<Self, String> {
        Ok(SlidingMass {
            carriage: p.mass.carriage(p.Sc)?,
        })
    }

    /// The drive's and the carriage's coefficients, as they declare them.
    fn derived(&self) -> Vec<fmu_core::Derived> {
        self.carriage.derived()
    }

    /// The end stops (V6).
    fn event_indicators() -> Vec<fmu_core::EventIndicator> {
        Carriage::EVENT_INDICATORS.to_vec()
    }

    fn event_indicator_values(&self, _u: &Inputs, x: &SVector<f64, NX>, z: &mut [f64]) {
        self.carriage
            .event_indicator_values(&state::carriage.read(x), z);
    }

    fn initial_state(&self, _u: &Inputs) -> SVector<f64, NX> {
        let mut x = SVector::zeros();
        x[state::carriage.index(CarriageStates::x)] = self.carriage.x0;
        x
    }

    /// V6: x' = v, m v' = F - F_mu + F_stop, z' (LuGre).
    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        let mut dx = SVector::zeros();
        let e = self.carriage.eval(&state::carriage.read(x), u.F);
        state::carriage.write(&mut dx, &e.rates);
        dx
    }

    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        let analytic = {
            let e = self.carriage.eval(&state::carriage.read(x), u.F);
            j.block(state::carriage, state::carriage).copy_from(&e.jac);
            true
        };
        (self.rates(u, x), analytic)
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        out.F_mu = self.carriage.eval(&state::carriage.read(x), u.F).friction;
    }
}

impl SlidingMass {
    /// The circuit as parts with ports ([`fmu_core::compose`]): the carriage, the input force `F` delivered onto its flange.
    /// It gives the same rates, Jacobian, start and event indicators as the
    /// equations written out here, bit for bit (tested); `bench-compose`
    /// measures what the composed evaluation costs beside them.
    pub fn assembly(&self) -> Result<fmu_core::compose::Assembly, String> {
        use fmu_core::compose::{BodyPart, Builder};
        use std::sync::Arc;
        let mut b = Builder::new();
        b.part("carriage", Arc::new(BodyPart::<_, 3>(self.carriage)))?
            .input_through("F", "carriage.rod")?;
        b.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_validates_and_the_mass_starts_on_the_stop() {
        let desc = fmu_core::checked_description::<SlidingMass, NX>().unwrap();
        let names: Vec<&str> = desc.variables.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(&names[..6], &["F", "x", "v", "F_mu", "Sc", "m"]);
        let (m, u) = fmu_core::default_model::<SlidingMass, NX>().unwrap();
        let x0 = m.initial_state(&u);
        assert_eq!(m.all_outputs(&u, &x0).x, 1.0);
        // Resting on the stop with no force: at rest.
        assert_eq!(m.rates(&u, &x0), SVector::<f64, NX>::zeros());
    }

    /// The mass as a part with a flange, driven by the input force delivered
    /// onto it: the same rates, Jacobian, start and event indicators as the
    /// equations written out, bit for bit.
    #[test]
    fn composed_from_its_part_it_gives_the_same_equations_bit_for_bit() {
        let (m, mut u) = fmu_core::default_model::<SlidingMass, NX>().unwrap();
        let a = m.assembly().unwrap();
        a.check_table::<SlidingMass>().unwrap();
        let states =
            fmu_core::testing::sample_states(&[-1e-3, -0.1, -1e-4], &[1.001, 0.1, 1e-4], 200);
        for force in [-3000.0, 0.0, 2500.0] {
            u.F = force;
            let problems = fmu_core::testing::composition_differences(&m, &u, &a, &[u.F], &states);
            assert!(problems.is_empty(), "{}", problems.join("\n"));
        }
    }
}
