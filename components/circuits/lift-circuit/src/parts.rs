//! The hydraulics and the loaded piston as parts of a composed circuit
//! ([`fmu_core::compose`]): the hydraulics are an [`Actuator`] (the valve
//! command and the piston's motion in, the hydraulic force out), the piston
//! a [`Body`] (its motion out, the net force in).

use crate::drive::{LiftDrive, LiftDriveState, LiftDriveStates};
use crate::piston::{Piston, PistonState, PistonStates};
use fmu_core::StateGroup;
use fmu_core::compose::{Actuator, ActuatorEval, Body, BodyEval, StateSpec};
use fmu_core::{Derived, EventIndicator};

/// The servo valve and the chambers (L1-L5), pushing on the piston with
/// p_A S_A - p_B S_B.
impl Actuator<4> for LiftDrive {
    const STATES: &'static [StateSpec] = LiftDriveStates::SPECS;
    const EVENT_INDICATORS: &'static [EventIndicator] = &LiftDrive::EVENT_INDICATORS;

    #[inline]
    fn initial(&self) -> LiftDriveState {
        self.initial
    }

    fn derived(&self) -> Vec<Derived> {
        LiftDrive::derived(self)
    }

    #[inline]
    fn force(&self, s: &LiftDriveState) -> f64 {
        LiftDrive::force(self, s)
    }

    fn force_states(&self) -> Vec<usize> {
        vec![LiftDriveStates::p_A, LiftDriveStates::p_B]
    }

    #[inline]
    fn force_gradient(&self, _s: &LiftDriveState) -> LiftDriveState {
        LiftDrive::force_gradient(self)
    }

    #[inline]
    fn rates(&self, u: f64, s: &LiftDriveState, x: f64, v: f64) -> LiftDriveState {
        LiftDrive::rates(self, u, s, x, v).rates
    }

    #[inline]
    fn eval(&self, u: f64, s: &LiftDriveState, x: f64, v: f64) -> ActuatorEval<4> {
        let e = LiftDrive::eval(self, u, s, x, v);
        ActuatorEval {
            rates: e.rates,
            jac: e.jac,
            d_u: e.d_u,
            d_s: e.d_x,
            d_v: e.d_v,
        }
    }

    #[inline]
    fn event_indicator_values(&self, s: &LiftDriveState, z: &mut [f64]) {
        LiftDrive::event_indicator_values(self, s, z)
    }
}

/// The piston with its load (L6) under the net force on the rod.
impl Body<2> for Piston {
    const STATES: &'static [StateSpec] = PistonStates::SPECS;
    const EVENT_INDICATORS: &'static [EventIndicator] = &Piston::EVENT_INDICATORS;
    const POSITION: usize = PistonStates::x_p;
    const VELOCITY: usize = PistonStates::v_p;

    #[inline]
    fn initial(&self) -> PistonState {
        self.initial
    }

    fn derived(&self) -> Vec<Derived> {
        Piston::derived(self)
    }

    #[inline]
    fn eval(&self, c: &PistonState, force: f64) -> BodyEval<2> {
        let e = Piston::eval(self, c, force);
        BodyEval {
            rates: e.rates,
            jac: e.jac,
            d_force: e.d_force,
        }
    }

    #[inline]
    fn event_indicator_values(&self, c: &PistonState, z: &mut [f64]) {
        Piston::event_indicator_values(self, c, z)
    }
}
