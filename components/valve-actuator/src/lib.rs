//! ValveActuator: the hydraulics of the ValveCylinder circuit without the
//! mass, its friction and the end stops, for multibody co-simulation: the
//! rod position and velocity are inputs, the cylinder force an output.
//! Model card `valve-cylinder.md` (V1-V5, V7).

use fmu_core::model_description::{ModelDescription, Variable};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Known, Model, OdeSystem, Values};
use valve_drive::ValveDrive;
use valve_drive::params;

/// Value references.
pub mod vr {
    #![allow(missing_docs)]
    pub const U: u32 = 1;
    pub const X: u32 = 2;
    pub const V: u32 = 3;
    pub const F: u32 = 4;
    pub const P1: u32 = 5;
    pub const P2: u32 = 6;
    pub const PV: u32 = 7;
    pub const QV: u32 = 8;
    pub const Q1: u32 = 9;
    pub const Q2: u32 = 10;
    pub const Q3: u32 = 11;
    pub const US: u32 = 12;
    /// First hydraulic parameter (see `valve_drive::params::h`).
    pub const HYDRAULIC: u32 = 13;
}

/// Number of states: `Us`, `dUs`, `K`, `p1`, `p2`, `pv`.
pub const NX: usize = 6;

/// The ValveActuator circuit.
#[derive(Debug, Clone, PartialEq)]
pub struct ValveActuator {
    u: f64,
    x: f64,
    v: f64,
    drive: ValveDrive,
}

fn arr(x: &SVector<f64, NX>) -> [f64; 6] {
    [x[0], x[1], x[2], x[3], x[4], x[5]]
}

impl OdeSystem<NX> for ValveActuator {
    /// Card V1-V5 with the rod position and velocity from the inputs.
    fn rhs(&self, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        SVector::from(self.drive.rates(self.u, &arr(x), self.x, self.v).rates)
    }

    fn jacobian(&self, x: &SVector<f64, NX>) -> SMatrix<f64, NX, NX> {
        let e = self.drive.eval(self.u, &arr(x), self.x, self.v);
        SMatrix::from_fn(|r, c| e.jac[r][c])
    }

    /// One evaluation of the drive gives both.
    fn rhs_and_jacobian_into(
        &self,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> SVector<f64, NX> {
        let e = self.drive.eval(self.u, &arr(x), self.x, self.v);
        *j = SMatrix::from_fn(|r, c| e.jac[r][c]);
        SVector::from(e.rates)
    }

    fn nominal(&self) -> SVector<f64, NX> {
        SVector::<f64, NX>::from([10.0, 1e3, 1e-9, 1e6, 1e6, 1e6])
    }
}

impl Model<NX> for ValveActuator {
    fn description() -> ModelDescription {
        let mut variables = vec![
            Variable::real("U", vr::U)
                .input(0.0)
                .unit("V", None)
                .range(Some(-10.0), Some(10.0))
                .describe("Valve command voltage"),
            Variable::real("x", vr::X)
                .input(1.0)
                .unit("m", Some("mm"))
                .range(Some(-0.1), Some(100.0))
                .describe("Rod position from the mechanism, 0 = retracted"),
            Variable::real("v", vr::V)
                .input(0.0)
                .unit("m/s", Some("mm/s"))
                .range(Some(-100.0), Some(100.0))
                .describe("Rod velocity from the mechanism"),
            params::output_variable(
                "F",
                vr::F,
                "N",
                Some("kN"),
                "Cylinder force on the rod, p1 A1 - p2 A2 (positive extending)",
            ),
        ];
        variables.extend(params::hydraulic_outputs(vr::P1));
        variables.extend([params::output_variable(
            "Us",
            vr::US,
            "V",
            None,
            "Spool signal",
        )]);
        variables.extend(params::hydraulic_variables(vr::HYDRAULIC));
        params::description(
            "ValveActuator",
            "Pressure-compensated 4/3 valve and cylinder without the mass: rod \
                          motion in, cylinder force out (seed 000, circuit 2)",
            variables,
            valve_drive::doc::ACTUATOR_SUMMARY,
        )
    }

    fn check_value(vr: u32, value: f64) -> Result<(), String> {
        if vr >= vr::HYDRAULIC {
            params::check_hydraulic(vr - vr::HYDRAULIC, value)
        } else {
            Ok(())
        }
    }

    fn configure(values: &Values) -> Result<Self, String> {
        Ok(ValveActuator {
            u: values.real(vr::U),
            x: values.real(vr::X),
            v: values.real(vr::V),
            drive: params::read_hydraulics(values, vr::HYDRAULIC)?,
        })
    }

    fn set_input(&mut self, vr: u32, value: f64) -> bool {
        match vr {
            vr::U => self.u = value,
            vr::X => self.x = value,
            vr::V => self.v = value,
            _ => return false,
        }
        true
    }

    fn initial_state(&self) -> SVector<f64, NX> {
        SVector::from(self.drive.initial)
    }

    fn output(&self, x: &SVector<f64, NX>, vr: u32) -> Option<f64> {
        let s = arr(x);
        let d = self.drive.rates(self.u, &s, self.x, self.v);
        Some(match vr {
            vr::F => self.drive.force(&s),
            vr::P1 => s[3],
            vr::P2 => s[4],
            vr::PV => d.pv,
            vr::QV => d.qv,
            vr::Q1 => d.q1,
            vr::Q2 => d.q2,
            vr::Q3 => d.q3,
            vr::US => s[0],
            _ => return None,
        })
    }

    fn state_index(vr: u32) -> Option<usize> {
        match vr {
            vr::US => Some(0),
            vr::P1 => Some(3),
            vr::P2 => Some(4),
            vr::PV => Some(5),
            _ => None,
        }
    }

    /// The force depends on the chamber pressures only (no feedthrough).
    fn output_partial(&self, _x: &SVector<f64, NX>, of: u32, wrt: Known) -> Option<f64> {
        let c = &self.drive.cylinder;
        match (of, wrt) {
            (vr::F, Known::State(3)) => Some(c.a1),
            (vr::F, Known::State(4)) => Some(-c.a2),
            (vr::F, _) => Some(0.0),
            _ => None,
        }
    }
}

fmu_core::export_fmu!(ValveActuator, 6);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_validates_and_force_is_the_piston_balance() {
        let desc = fmu_core::checked_description::<ValveActuator, NX>().unwrap();
        let values = Values::from_raw(
            desc.variables
                .iter()
                .filter(|v| v.value_reference != 0 && v.value_reference < 100_000)
                .map(|v| v.kind.start_as_f64().unwrap_or(0.0))
                .collect(),
        );
        let m = ValveActuator::configure(&values).unwrap();
        let x = SVector::<f64, NX>::from([0.0, 0.0, 5e-11, 1e7, 2e6, 1.1e7]);
        let f = m.output(&x, vr::F).unwrap();
        assert!((f - (1e7 * 8.04e-4 - 2e6 * 4.24e-4)).abs() < 1e-6);
        fmu_core::model::check_set_input::<ValveActuator, NX>(&x).unwrap();
    }
}
