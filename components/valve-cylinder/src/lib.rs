//! ValveCylinder: a constant-pressure pump feeds a pressure compensator,
//! whose throttle keeps a fixed margin across a 4/3 proportional valve; the
//! valve drives a double-acting cylinder moving a 200 kg mass with LuGre
//! friction between end stops. Model card `valve-cylinder.md`, V1-V7.
//!
//! States: `Us`, `dUs`, `K`, `p1`, `p2`, `pv` (the drive, see
//! [`valve_drive::drive`]), then `x`, `v`, `z` (the carriage).

use fmu_core::model_description::{ModelDescription, Variable};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Model, OdeSystem, Values};
use valve_drive::params::{self, h, m};
use valve_drive::{Carriage, ValveDrive};

/// Value references.
pub mod vr {
    #![allow(missing_docs)]
    pub const U: u32 = 1;
    pub const X: u32 = 2;
    pub const V: u32 = 3;
    pub const P1: u32 = 4;
    pub const P2: u32 = 5;
    pub const PV: u32 = 6;
    pub const QV: u32 = 7;
    pub const Q1: u32 = 8;
    pub const Q2: u32 = 9;
    pub const Q3: u32 = 10;
    pub const F_MU: u32 = 11;
    pub const US: u32 = 12;
    /// First hydraulic parameter (see `valve_drive::params::h`).
    pub const HYDRAULIC: u32 = 13;
    /// First carriage parameter (see `valve_drive::params::m`).
    pub const CARRIAGE: u32 = HYDRAULIC + valve_drive::params::h::COUNT;
}

/// Number of states.
pub const NX: usize = 9;
const X: usize = 6;
const V: usize = 7;
const Z: usize = 8;

/// The ValveCylinder circuit.
#[derive(Debug, Clone, PartialEq)]
pub struct ValveCylinder {
    u: f64,
    drive: ValveDrive,
    carriage: Carriage,
}

fn split(x: &SVector<f64, NX>) -> ([f64; 6], [f64; 3]) {
    ([x[0], x[1], x[2], x[3], x[4], x[5]], [x[X], x[V], x[Z]])
}

impl ValveCylinder {
    /// Rates and Jacobian from one evaluation with partials.
    fn rates_and_jacobian(&self, x: &SVector<f64, NX>) -> (SVector<f64, NX>, SMatrix<f64, NX, NX>) {
        let (s, c) = split(x);
        let d = self.drive.eval(self.u, &s, c[0], c[1]);
        let k = self.carriage.eval(&c, self.drive.force(&s));
        let mut f = SVector::<f64, NX>::zeros();
        let mut j = SMatrix::<f64, NX, NX>::zeros();
        for r in 0..6 {
            f[r] = d.rates[r];
            for col in 0..6 {
                j[(r, col)] = d.jac[r][col];
            }
            j[(r, X)] = d.d_x[r];
            j[(r, V)] = d.d_v[r];
        }
        for r in 0..3 {
            f[X + r] = k.rates[r];
            for col in 0..3 {
                j[(X + r, X + col)] = k.jac[r][col];
            }
        }
        // The cylinder force p1 A1 - p2 A2 drives the carriage.
        let cyl = &self.drive.cylinder;
        j[(V, 3)] = k.d_force[1] * cyl.a1;
        j[(V, 4)] = -k.d_force[1] * cyl.a2;
        (f, j)
    }
}

impl OdeSystem<NX> for ValveCylinder {
    /// Card V1-V6: the drive's rates with the rod moving with the carriage,
    /// and the carriage driven by the cylinder force p1 A1 - p2 A2.
    fn rhs(&self, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        let (s, c) = split(x);
        let d = self.drive.rates(self.u, &s, c[0], c[1]);
        let k = self.carriage.eval(&c, self.drive.force(&s));
        let mut r = SVector::<f64, NX>::zeros();
        for i in 0..6 {
            r[i] = d.rates[i];
        }
        for i in 0..3 {
            r[X + i] = k.rates[i];
        }
        r
    }

    fn jacobian(&self, x: &SVector<f64, NX>) -> SMatrix<f64, NX, NX> {
        self.rates_and_jacobian(x).1
    }

    /// One evaluation of the drive and the carriage gives both.
    fn rhs_and_jacobian_into(
        &self,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> SVector<f64, NX> {
        let (f, jac) = self.rates_and_jacobian(x);
        *j = jac;
        f
    }

    fn nominal(&self) -> SVector<f64, NX> {
        SVector::<f64, NX>::from([10.0, 1e3, 1e-9, 1e6, 1e6, 1e6, 0.1, 0.01, 1e-4])
    }
}

impl Model<NX> for ValveCylinder {
    fn description() -> ModelDescription {
        let mut variables = vec![
            Variable::real("U", vr::U)
                .input(0.0)
                .unit("V", None)
                .range(Some(-10.0), Some(10.0))
                .describe("Valve command voltage"),
            params::output_variable(
                "x",
                vr::X,
                "m",
                Some("mm"),
                "Piston (rod) position, 0 = retracted",
            ),
            params::output_variable("v", vr::V, "m/s", Some("mm/s"), "Piston velocity"),
        ];
        variables.extend(params::hydraulic_outputs(vr::P1));
        variables.extend([
            params::output_variable(
                "F_mu",
                vr::F_MU,
                "N",
                None,
                "LuGre friction force on the mass",
            ),
            params::output_variable(
                "Us",
                vr::US,
                "V",
                None,
                "Spool signal (proportional to the spool displacement)",
            ),
        ]);
        variables.extend(params::hydraulic_variables(vr::HYDRAULIC));
        variables.extend(params::carriage_variables(vr::CARRIAGE));
        params::description(
            "ValveCylinder",
            "Pressure-compensated 4/3 proportional valve driving a cylinder with a \
                          mass and LuGre friction (seed 000, circuit 2)",
            variables,
            valve_drive::doc::CYLINDER_SUMMARY,
        )
    }

    fn check_value(vr: u32, value: f64) -> Result<(), String> {
        if (vr::HYDRAULIC..vr::CARRIAGE).contains(&vr) {
            params::check_hydraulic(vr - vr::HYDRAULIC, value)
        } else if (vr::CARRIAGE..vr::CARRIAGE + m::COUNT).contains(&vr) {
            params::check_carriage(vr - vr::CARRIAGE, value)
        } else {
            Ok(())
        }
    }

    fn configure(values: &Values) -> Result<Self, String> {
        let drive = params::read_hydraulics(values, vr::HYDRAULIC)?;
        let stroke = values.real(vr::HYDRAULIC + h::SC);
        let carriage = params::read_carriage(values, vr::CARRIAGE, stroke)?;
        Ok(ValveCylinder {
            u: values.real(vr::U),
            drive,
            carriage,
        })
    }

    fn set_input(&mut self, vr: u32, value: f64) -> bool {
        if vr == vr::U {
            self.u = value;
        }
        vr == vr::U
    }

    fn initial_state(&self) -> SVector<f64, NX> {
        let s = self.drive.initial;
        SVector::<f64, NX>::from([
            s[0],
            s[1],
            s[2],
            s[3],
            s[4],
            s[5],
            self.carriage.x0,
            0.0,
            0.0,
        ])
    }

    fn output(&self, x: &SVector<f64, NX>, vr: u32) -> Option<f64> {
        let (s, c) = split(x);
        let d = self.drive.rates(self.u, &s, c[0], c[1]);
        Some(match vr {
            vr::X => c[0],
            vr::V => c[1],
            vr::P1 => s[3],
            vr::P2 => s[4],
            vr::PV => d.pv,
            vr::QV => d.qv,
            vr::Q1 => d.q1,
            vr::Q2 => d.q2,
            vr::Q3 => d.q3,
            vr::F_MU => self.carriage.eval(&c, self.drive.force(&s)).friction,
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
            vr::X => Some(X),
            vr::V => Some(V),
            _ => None,
        }
    }
}

fmu_core::export_fmu!(ValveCylinder, 9);

#[cfg(test)]
mod tests;
