//! SlidingMass: a mass with LuGre friction between end stops, driven by an
//! input force: the mechanical half of the ValveCylinder circuit (model card
//! `valve-cylinder.md`, V6), the co-simulation partner of ValveActuator.

use fmu_core::model_description::{ModelDescription, Variable};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Model, OdeSystem, Values};
use valve_drive::Carriage;
use valve_drive::params;

/// Value references.
pub mod vr {
    #![allow(missing_docs)]
    pub const F: u32 = 1;
    pub const X: u32 = 2;
    pub const V: u32 = 3;
    pub const F_MU: u32 = 4;
    pub const SC: u32 = 5;
    /// First carriage parameter (see `valve_drive::params::m`).
    pub const CARRIAGE: u32 = 6;
}

/// Number of states: `x`, `v`, `z`.
pub const NX: usize = 3;

/// The SlidingMass model.
#[derive(Debug, Clone, PartialEq)]
pub struct SlidingMass {
    force: f64,
    carriage: Carriage,
}

fn arr(x: &SVector<f64, NX>) -> [f64; 3] {
    [x[0], x[1], x[2]]
}

impl OdeSystem<NX> for SlidingMass {
    /// Card V6: x' = v, m v' = F - F_mu + F_stop, z' (LuGre).
    fn rhs(&self, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        SVector::from(self.carriage.eval(&arr(x), self.force).rates)
    }

    fn jacobian(&self, x: &SVector<f64, NX>) -> SMatrix<f64, NX, NX> {
        let e = self.carriage.eval(&arr(x), self.force);
        SMatrix::from_fn(|r, c| e.jac[r][c])
    }

    fn nominal(&self) -> SVector<f64, NX> {
        SVector::<f64, NX>::from([0.1, 0.01, 1e-4])
    }
}

impl Model<NX> for SlidingMass {
    fn description() -> ModelDescription {
        let mut variables = vec![
            Variable::real("F", vr::F)
                .input(0.0)
                .unit("N", Some("kN"))
                .describe("Driving force on the mass (positive towards +x)"),
            Variable::real("x", vr::X)
                .output(&[])
                .unit("m", Some("mm"))
                .describe("Position"),
            Variable::real("v", vr::V)
                .output(&[])
                .unit("m/s", Some("mm/s"))
                .describe("Velocity"),
            Variable::real("F_mu", vr::F_MU)
                .output(&[])
                .unit("N", None)
                .describe("LuGre friction force"),
            Variable::real("Sc", vr::SC)
                .parameter(1.0)
                .unit("m", Some("mm"))
                .range(Some(0.0), None)
                .describe("Travel between the end stops at 0 and Sc"),
        ];
        variables.extend(params::carriage_variables(vr::CARRIAGE));
        params::description(
            "SlidingMass",
            "Mass with LuGre friction between end stops, driven by a force",
            variables,
            valve_drive::doc::MASS_SUMMARY,
        )
    }

    fn check_value(vr: u32, value: f64) -> Result<(), String> {
        match vr {
            vr::SC if value <= 0.0 => Err("must be positive".into()),
            v if v >= vr::CARRIAGE => params::check_carriage(v - vr::CARRIAGE, value),
            _ => Ok(()),
        }
    }

    fn configure(values: &Values) -> Result<Self, String> {
        Ok(SlidingMass {
            force: values.real(vr::F),
            carriage: params::read_carriage(values, vr::CARRIAGE, values.real(vr::SC))?,
        })
    }

    fn set_input(&mut self, vr: u32, value: f64) -> bool {
        if vr == vr::F {
            self.force = value;
        }
        vr == vr::F
    }

    fn initial_state(&self) -> SVector<f64, NX> {
        SVector::<f64, NX>::from([self.carriage.x0, 0.0, 0.0])
    }

    fn output(&self, x: &SVector<f64, NX>, vr: u32) -> Option<f64> {
        Some(match vr {
            vr::X => x[0],
            vr::V => x[1],
            vr::F_MU => self.carriage.eval(&arr(x), self.force).friction,
            _ => return None,
        })
    }

    fn state_index(vr: u32) -> Option<usize> {
        match vr {
            vr::X => Some(0),
            vr::V => Some(1),
            _ => None,
        }
    }
}

fmu_core::export_fmu!(SlidingMass, 3);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_validates() {
        fmu_core::checked_description::<SlidingMass, NX>().unwrap();
        let x = SVector::<f64, NX>::from([0.5, 0.01, 1e-5]);
        fmu_core::model::check_set_input::<SlidingMass, NX>(&x).unwrap();
        assert_eq!(valve_drive::params::m::COUNT, 10);
    }
}
