//! The drive and the carriage as parts of a composed circuit
//! ([`fmu_core::compose`]): the drive is an [`Actuator`] (the valve
//! command and the rod's motion in, the hydraulic force out), the carriage
//! a [`Body`] (the rod's motion out, the net force in).

use crate::carriage::{Carriage, CarriageState, CarriageStates};
use crate::drive::{DriveState, DriveStates, ValveDrive};
use fmu_core::StateGroup;
use fmu_core::compose::{Actuator, ActuatorEval, Body, BodyEval, PartClamp, StateSpec};
use fmu_core::{Derived, EventIndicator};

/// The hydraulic assembly (V1-V5, V7), pushing on the rod with
/// p1 A1 - p2 A2.
impl Actuator<6> for ValveDrive {
    const STATES: &'static [StateSpec] = DriveStates::SPECS;
    const EVENT_INDICATORS: &'static [EventIndicator] = &ValveDrive::EVENT_INDICATORS;

    #[inline]
    fn initial(&self) -> DriveState {
        self.initial
    }

    fn derived(&self) -> Vec<Derived> {
        ValveDrive::derived(self)
    }

    /// The compensator's throttle coefficient, held inside its range.
    fn clamps(&self) -> Vec<PartClamp> {
        let c = self.throttle_clamp(DriveStates::K);
        vec![PartClamp {
            state: c.state,
            lower: c.lower,
            upper: c.upper,
        }]
    }

    #[inline]
    fn force(&self, s: &DriveState) -> f64 {
        ValveDrive::force(self, s)
    }

    fn force_states(&self) -> Vec<usize> {
        vec![DriveStates::p1, DriveStates::p2]
    }

    #[inline]
    fn force_gradient(&self, _s: &DriveState) -> DriveState {
        let mut gradient = DriveState::zeros();
        gradient[DriveStates::p1] = self.cylinder.a1;
        gradient[DriveStates::p2] = -self.cylinder.a2;
        gradient
    }

    #[inline]
    fn rates(&self, u: f64, s: &DriveState, x: f64, v: f64) -> DriveState {
        ValveDrive::rates(self, u, s, x, v).rates
    }

    #[inline]
    fn eval(&self, u: f64, s: &DriveState, x: f64, v: f64) -> ActuatorEval<6> {
        let e = ValveDrive::eval(self, u, s, x, v);
        ActuatorEval {
            rates: e.rates,
            jac: e.jac,
            d_u: e.d_u,
            d_s: e.d_x,
            d_v: e.d_v,
        }
    }

    #[inline]
    fn event_indicator_values(&self, s: &DriveState, z: &mut [f64]) {
        ValveDrive::event_indicator_values(self, s, z)
    }
}

/// The sliding carriage (V6) under the net force on the rod.
impl Body<3> for Carriage {
    const STATES: &'static [StateSpec] = CarriageStates::SPECS;
    const EVENT_INDICATORS: &'static [EventIndicator] = &Carriage::EVENT_INDICATORS;
    const POSITION: usize = CarriageStates::x;
    const VELOCITY: usize = CarriageStates::v;

    /// At rest at `x_0`.
    #[inline]
    fn initial(&self) -> CarriageState {
        let mut c = CarriageState::zeros();
        c[CarriageStates::x] = self.x0;
        c
    }

    fn derived(&self) -> Vec<Derived> {
        Carriage::derived(self)
    }

    #[inline]
    fn eval(&self, c: &CarriageState, force: f64) -> BodyEval<3> {
        let e = Carriage::eval(self, c, force);
        BodyEval {
            rates: e.rates,
            jac: e.jac,
            d_force: e.d_force,
        }
    }

    #[inline]
    fn event_indicator_values(&self, c: &CarriageState, z: &mut [f64]) {
        Carriage::event_indicator_values(self, c, z)
    }
}
