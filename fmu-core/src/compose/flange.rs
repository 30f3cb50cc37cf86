//! Two shapes of part that many circuits share, as adapters from a small
//! trait to [`Part`]: a *body* whose motion a net force at its flange
//! drives (a mass with its friction and end stops), and an *actuator*
//! that a command signal and the flange's motion drive and that pushes
//! back with a force (a valve, its spool and a cylinder's chambers). An
//! element group implements the small trait in its own terms (fixed-size
//! state vectors and Jacobians); the adapter does the ports.

use super::part::{Dependencies, Output, Part, PartClamp, Partials, StateSpec};
use super::port::Port;
use crate::model::{Derived, EventIndicator};
use nalgebra::{SMatrix, SVector};

/// A body with `S` states driven by the net force at its flange: which of
/// its states are the flange's position and velocity, and its rates under
/// a force with their partial derivatives.
pub trait Body<const S: usize>: Send + Sync + std::fmt::Debug {
    /// The states (names, nominal magnitudes), in order.
    const STATES: &'static [StateSpec];
    /// Where the body's equations switch (end stops).
    const EVENT_INDICATORS: &'static [EventIndicator];
    /// The index of the state that is the flange's position (m).
    const POSITION: usize;
    /// The index of the state that is the flange's velocity (m/s).
    const VELOCITY: usize;

    /// The states at the start.
    fn initial(&self) -> SVector<f64, S>;
    /// The coefficients derived from the parameters (see [`Derived`]).
    fn derived(&self) -> Vec<Derived>;
    /// The rates at state `x` under the net force `force` (N) on the
    /// flange, with their Jacobian and their derivative with respect to
    /// the force.
    fn eval(&self, x: &SVector<f64, S>, force: f64) -> BodyEval<S>;
    /// The event indicators' values at `x`, into `z`.
    fn event_indicator_values(&self, x: &SVector<f64, S>, z: &mut [f64]);
}

/// The rates of a [`Body`] and their partial derivatives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyEval<const S: usize> {
    /// The rates.
    pub rates: SVector<f64, S>,
    /// d(rates)/d(states).
    pub jac: SMatrix<f64, S, S>,
    /// d(rates)/d(force).
    pub d_force: SVector<f64, S>,
}

/// A [`Body`] of `S` states as a part: port `rod` (its position and
/// velocity out, the net force on it in).
#[derive(Debug, Clone, PartialEq)]
pub struct BodyPart<B, const S: usize>(pub B);

const BODY_PORTS: [Port; 1] = [Port::flange_mass(
    "rod",
    "The body's flange: its position and velocity out, the net force on it in",
)];

impl<B: Body<S>, const S: usize> Part for BodyPart<B, S> {
    fn ports(&self) -> &[Port] {
        &BODY_PORTS
    }

    fn states(&self) -> &[StateSpec] {
        B::STATES
    }

    fn event_indicators(&self) -> &[EventIndicator] {
        B::EVENT_INDICATORS
    }

    fn derived(&self) -> Vec<Derived> {
        self.0.derived()
    }

    /// The flange's position and velocity each on its state; the rates on
    /// the force.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Across(0) => Dependencies {
                states: vec![B::POSITION],
                slots: Vec::new(),
            },
            Output::Across(_) => Dependencies {
                states: vec![B::VELOCITY],
                slots: Vec::new(),
            },
            Output::Rate(_) => Dependencies {
                states: Vec::new(),
                slots: vec![2],
            },
            Output::Through(_) => Dependencies::default(),
        }
    }

    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        x.copy_from_slice(self.0.initial().as_slice());
    }

    #[inline]
    fn across(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        ports[0] = x[B::POSITION];
        ports[1] = x[B::VELOCITY];
        if let Some(d) = d {
            *d.state(0, B::POSITION) = 1.0;
            *d.state(1, B::VELOCITY) = 1.0;
        }
    }

    #[inline]
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        let e = self.0.eval(&SVector::from_column_slice(x), ports[2]);
        dx.copy_from_slice(e.rates.as_slice());
        if let Some(d) = d {
            d.state_block(e.jac.as_slice());
            d.slot_column(2, e.d_force.as_slice());
        }
    }

    #[inline]
    fn event_indicator_values(&self, x: &[f64], _ports: &[f64], z: &mut [f64]) {
        self.0
            .event_indicator_values(&SVector::from_column_slice(x), z);
    }
}

/// An actuator with `S` states driven by a command signal and the motion
/// of its flange, pushing on the flange with a force that depends on its
/// states alone (a cylinder's chamber pressures).
pub trait Actuator<const S: usize>: Send + Sync + std::fmt::Debug {
    /// The states (names, nominal magnitudes), in order.
    const STATES: &'static [StateSpec];
    /// Where the actuator's equations switch (valve edges, clamps).
    const EVENT_INDICATORS: &'static [EventIndicator];

    /// The states at the start.
    fn initial(&self) -> SVector<f64, S>;
    /// The coefficients derived from the parameters (see [`Derived`]).
    fn derived(&self) -> Vec<Derived>;
    /// The states held inside a range, by the actuator's state index.
    fn clamps(&self) -> Vec<PartClamp> {
        Vec::new()
    }
    /// The force on the flange (N, positive along the flange's position)
    /// at state `x`.
    fn force(&self, x: &SVector<f64, S>) -> f64;
    /// The gradient of [`Actuator::force`] with respect to the states.
    fn force_gradient(&self, x: &SVector<f64, S>) -> SVector<f64, S>;
    /// The states the force depends on (all of them by default).
    fn force_states(&self) -> Vec<usize> {
        (0..S).collect()
    }
    /// The rates at state `x` under command `u` with the flange at
    /// position `s` moving at `v`.
    fn rates(&self, u: f64, x: &SVector<f64, S>, s: f64, v: f64) -> SVector<f64, S>;
    /// The rates with their partial derivatives.
    fn eval(&self, u: f64, x: &SVector<f64, S>, s: f64, v: f64) -> ActuatorEval<S>;
    /// The event indicators' values at `x`, into `z`.
    fn event_indicator_values(&self, x: &SVector<f64, S>, z: &mut [f64]);
}

/// The rates of an [`Actuator`] and their partial derivatives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActuatorEval<const S: usize> {
    /// The rates.
    pub rates: SVector<f64, S>,
    /// d(rates)/d(states).
    pub jac: SMatrix<f64, S, S>,
    /// d(rates)/d(command).
    pub d_u: SVector<f64, S>,
    /// d(rates)/d(flange position).
    pub d_s: SVector<f64, S>,
    /// d(rates)/d(flange velocity).
    pub d_v: SVector<f64, S>,
}

/// An [`Actuator`] of `S` states as a part: ports `U` (the command) and
/// `rod` (the flange's motion in, the force out).
#[derive(Debug, Clone, PartialEq)]
pub struct ActuatorPart<A, const S: usize>(pub A);

const ACTUATOR_PORTS: [Port; 2] = [
    Port::signal_in("U", "The command"),
    Port::flange(
        "rod",
        "The flange: its position and velocity in, the force on it out",
    ),
];

/// Port slots of [`ActuatorPart`]: the command, the flange's position,
/// velocity and force.
const U: usize = 0;
const S_ROD: usize = 1;
const V_ROD: usize = 2;
const F_ROD: usize = 3;

impl<A: Actuator<S>, const S: usize> Part for ActuatorPart<A, S> {
    fn ports(&self) -> &[Port] {
        &ACTUATOR_PORTS
    }

    fn states(&self) -> &[StateSpec] {
        A::STATES
    }

    fn event_indicators(&self) -> &[EventIndicator] {
        A::EVENT_INDICATORS
    }

    fn derived(&self) -> Vec<Derived> {
        self.0.derived()
    }

    fn clamps(&self) -> Vec<PartClamp> {
        self.0.clamps()
    }

    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        x.copy_from_slice(self.0.initial().as_slice());
    }

    /// The force on the states that [`Actuator::force_states`] names; the
    /// rates on the command and the flange's motion.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Through(_) => Dependencies {
                states: self.0.force_states(),
                slots: Vec::new(),
            },
            Output::Rate(_) => Dependencies {
                states: Vec::new(),
                slots: vec![U, S_ROD, V_ROD],
            },
            Output::Across(_) => Dependencies::default(),
        }
    }

    /// The force into the actuator at the flange: minus the force it
    /// exerts.
    #[inline]
    fn through(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        let x = SVector::from_column_slice(x);
        ports[F_ROD] = -self.0.force(&x);
        if let Some(d) = d {
            for (c, g) in self.0.force_gradient(&x).iter().enumerate() {
                if *g != 0.0 {
                    *d.state(F_ROD, c) = -g;
                }
            }
        }
    }

    #[inline]
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        let x = SVector::from_column_slice(x);
        let (u, s, v) = (ports[U], ports[S_ROD], ports[V_ROD]);
        match d {
            None => dx.copy_from_slice(self.0.rates(u, &x, s, v).as_slice()),
            Some(d) => {
                let e = self.0.eval(u, &x, s, v);
                dx.copy_from_slice(e.rates.as_slice());
                d.state_block(e.jac.as_slice());
                d.slot_column(U, e.d_u.as_slice());
                d.slot_column(S_ROD, e.d_s.as_slice());
                d.slot_column(V_ROD, e.d_v.as_slice());
            }
        }
    }

    #[inline]
    fn event_indicator_values(&self, x: &[f64], _ports: &[f64], z: &mut [f64]) {
        self.0
            .event_indicator_values(&SVector::from_column_slice(x), z);
    }
}
