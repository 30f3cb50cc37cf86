//! SlidingMass: a mass with LuGre friction between end stops, driven by an
//! input force: the mechanical half of the ValveCylinder circuit (V6 of the
//! valve drive's `MODEL.md`), the co-simulation partner of ValveActuator.

use fmu_core::compose::BodyPart;
use fmu_core::compose::{Assembly, Builder};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Context, Model};
use std::sync::Arc;
use valve_drive::{Carriage, CarriageParams, CarriageStates};

fmu_core::circuit! {
    model SlidingMass {
        description: "Mass with LuGre friction between end stops, driven by a force",
        documentation: include_str!("../../valve-drive/MODEL.md"),
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

/// The SlidingMass model: the carriage part with the input force on its
/// flange.
#[derive(Debug, Clone)]
pub struct SlidingMass {
    carriage: Arc<BodyPart<Carriage, 3>>,
    circuit: Assembly,
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
        let carriage = Arc::new(BodyPart(p.mass.carriage(p.Sc)?));
        let mut b = Builder::new();
        b.part("carriage", carriage.clone())?
            .input_through("F", "carriage.rod")?;
        let circuit = b.build()?;
        circuit.check_table::<Self>()?;
        circuit.check_event_indicators(&Self::event_indicators())?;
        Ok(SlidingMass { carriage, circuit })
    }

    fn derived(&self) -> Vec<fmu_core::Derived> {
        self.circuit.derived()
    }

    /// The end stops (V6).
    fn event_indicators() -> Vec<fmu_core::EventIndicator> {
        Carriage::EVENT_INDICATORS.to_vec()
    }

    fn event_indicator_values(&self, u: &Inputs, x: &SVector<f64, NX>, z: &mut [f64]) {
        self.circuit.event_indicator_values(&[u.F], x.as_slice(), z);
    }

    fn initial_state(&self, u: &Inputs) -> SVector<f64, NX> {
        self.circuit.initial(&[u.F])
    }

    /// V6: x' = v, m v' = F - F_mu + F_stop, z' (LuGre).
    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        self.circuit.rates(&[u.F], x)
    }

    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        self.circuit.rates_and_jacobian(&[u.F], x, j)
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        out.F_mu = self.carriage.0.eval(&state::carriage.read(x), u.F).friction;
    }
}

fmu_core::export_fmu!(SlidingMass);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_validates_and_the_mass_starts_on_the_stop() {
        let desc = fmu_core::checked_description::<SlidingMass, NX>().unwrap();
        let names: Vec<&str> = desc.variables.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(&names[..7], &["time", "F", "x", "v", "F_mu", "Sc", "m"]);
        let (m, u) = fmu_core::default_model::<SlidingMass, NX>().unwrap();
        let x0 = m.initial_state(&u);
        assert_eq!(m.all_outputs(&u, &x0).x, 1.0);
        // Resting on the stop with no force: at rest.
        assert_eq!(m.rates(&u, &x0), SVector::<f64, NX>::zeros());
    }

    #[test]
    fn the_model_description_documents_every_variable() {
        fmu_core::testing::check_documentation::<SlidingMass>().unwrap();
    }

    #[test]
    fn odd_values_are_refused_or_stay_finite() {
        let problems = fmu_core::testing::odd_value_violations::<SlidingMass, NX>(5);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn coarse_explicit_steps_never_give_nan_with_ok() {
        // V6 with explicit Euler at 1 s ran off to 1e247 and returned F_mu =
        // inf with OK before the output guard.
        let problems =
            fmu_core::testing::coarse_explicit_violations::<SlidingMass, NX>(30, &[("F", 1e4)]);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
