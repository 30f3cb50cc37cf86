//! Model Exchange: the master integrates the model's rates with its own
//! solver. The same instance, values, checks and logging as
//! Co-Simulation; only the states and time come from the master.
//!
//! Where a circuit's equations switch (a valve edge, an end stop)
//! it declares event indicators ([`crate::EventIndicator`]), so that the
//! master's integrator locates the switch; nothing jumps at those events,
//! so the event iteration has nothing to update.

use super::checks::state_name;
use super::{Instance, Interface, Op, Phase};
use crate::model::Model;
use crate::status::{FmiResult, Status};
use crate::table::Number;

/// What `newDiscreteStates` / `updateDiscreteStates` report: the circuits
/// have no discrete states and no time events, so every flag is false.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EventInfo {
    /// Another event iteration is needed.
    pub discrete_states_need_update: bool,
    /// The simulation should end.
    pub terminate_simulation: bool,
    /// The nominal values of the states changed.
    pub nominals_changed: bool,
    /// The values of the states changed.
    pub values_changed: bool,
    /// The time of the next time event, if any.
    pub next_event_time: Option<f64>,
}

impl<M: Model<NX>, const NX: usize> Instance<M, NX> {
    /// Makes a freshly created instance a Model Exchange one.
    pub fn into_model_exchange(mut self: Box<Self>) -> Box<Self> {
        self.interface = Interface::ModelExchange;
        self
    }

    /// The interface the instance was created for.
    pub fn interface(&self) -> Interface {
        self.interface
    }

    /// The state machine check of a Model Exchange function, after checking
    /// that the instance is a Model Exchange one.
    fn check_exchange(&self, function: &str, op: Op) -> FmiResult {
        if self.interface != Interface::ModelExchange {
            return self.fail(
                Status::Error,
                function,
                "this instance was created for Co-Simulation; Model Exchange functions need an \
                 instance created for Model Exchange",
            );
        }
        self.check_phase(function, op)
    }

    /// Checks that an array the master passes has one entry per state.
    /// (The first [`crate::Table::state_count`] of the `NX` the state vector
    /// holds: all of them, unless the table was read at run time.)
    fn check_state_count(&self, function: &str, what: &str, n: usize) -> FmiResult {
        let states = self.layout.states;
        if n == states {
            Ok(())
        } else {
            self.fail(
                Status::Error,
                function,
                &format!("{what} = {n}, but the model has {states} continuous states"),
            )
        }
    }

    /// setTime: the time of the next evaluation (a finite time not before
    /// the start time; an integrator may go back after a rejected step).
    pub fn set_time(&mut self, function: &str, t: f64) -> FmiResult {
        self.check_exchange(function, Op::SetTime)?;
        if !t.is_finite() || t < self.start_time {
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "time {} s must be finite and not before the start time {} s",
                    Number(t),
                    self.start_time
                ),
            );
        }
        self.time = t;
        Ok(())
    }

    /// setContinuousStates: all or nothing; non-finite values are refused.
    pub fn set_continuous_states(&mut self, function: &str, x: &[f64]) -> FmiResult {
        self.check_exchange(function, Op::SetContinuousStates)?;
        self.check_state_count(function, "nx", x.len())?;
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "state {} = {} is not finite; the states are unchanged",
                    state_name::<M>(i),
                    Number(x[i])
                ),
            );
        }
        self.x.as_mut_slice()[..x.len()].copy_from_slice(x);
        self.outputs_current = false;
        Ok(())
    }

    /// getDerivatives: the rates at the present time, states and inputs.
    ///
    /// The circuits extend their laws beyond the physical range so that the
    /// rates stay finite at the trial states an integrator tries (see each
    /// element's documentation); where a state is still outside what a
    /// model can evaluate (a linkage that cannot close, a pressure beyond
    /// a law's pole), the rates are not finite and the answer is Discard,
    /// no values returned: what both FMI versions say a Model Exchange FMU
    /// returns when a function is outside its domain, so that the master's
    /// integrator tries a smaller step. The instance stays usable.
    pub fn get_derivatives(&self, function: &str, out: &mut [f64]) -> FmiResult {
        self.check_exchange(function, Op::GetContinuous)?;
        self.check_state_count(function, "nx", out.len())?;
        let dx = self.model.rates(&self.inputs, &self.x);
        if let Some(i) = dx.iter().position(|v| !v.is_finite()) {
            return self.fail(
                Status::Discard,
                function,
                &format!(
                    "the derivative of state {} is {} at t = {} s (state {}): the states are \
                     outside what the model can evaluate; no values are returned (try a \
                     smaller step)",
                    state_name::<M>(i),
                    Number(dx[i]),
                    self.time,
                    Number(self.x[i])
                ),
            );
        }
        out.copy_from_slice(&dx.as_slice()[..out.len()]);
        Ok(())
    }

    /// getContinuousStates.
    pub fn get_continuous_states(&self, function: &str, out: &mut [f64]) -> FmiResult {
        self.check_exchange(function, Op::GetContinuous)?;
        self.check_state_count(function, "nx", out.len())?;
        out.copy_from_slice(&self.x.as_slice()[..out.len()]);
        Ok(())
    }

    /// getNominalsOfContinuousStates (allowed from instantiation on).
    pub fn get_nominals(&self, function: &str, out: &mut [f64]) -> FmiResult {
        if self.interface != Interface::ModelExchange {
            return self.check_exchange(function, Op::GetContinuous);
        }
        if self.phase == Phase::Failed || self.phase == Phase::ConfigurationMode {
            return self.check_phase(function, Op::GetContinuous);
        }
        self.check_state_count(function, "nx", out.len())?;
        out.copy_from_slice(&self.model.nominal().as_slice()[..out.len()]);
        Ok(())
    }

    /// getEventIndicators: the values at the present state and inputs (the
    /// switch functions plus their offsets, [`crate::EventIndicator::offset`]);
    /// the array must have one entry per indicator.
    pub fn get_event_indicators(&self, function: &str, out: &mut [f64]) -> FmiResult {
        self.check_exchange(function, Op::GetContinuous)?;
        let n = self.layout.events;
        if out.len() != n {
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "{} event indicators asked for; this model declares {n}",
                    out.len()
                ),
            );
        }
        self.reported_event_indicators(out);
        if let Some(k) = out.iter().position(|v| !v.is_finite()) {
            // As getDerivatives: a trial state outside the model's domain.
            return self.fail(
                Status::Discard,
                function,
                &format!(
                    "event indicator {} is {} at t = {} s: the states are outside what the \
                     model can evaluate; no values are returned",
                    k + 1,
                    Number(out[k]),
                    self.time
                ),
            );
        }
        Ok(())
    }

    /// The number of event indicators.
    pub fn event_indicator_count(&self) -> usize {
        self.layout.events
    }

    /// The number of continuous states the FMU shows (see
    /// [`crate::Table::state_count`]).
    pub fn continuous_state_count(&self) -> usize {
        self.layout.states
    }

    /// enterEventMode.
    pub fn enter_event_mode(&mut self, function: &str) -> FmiResult {
        self.check_exchange(function, Op::EnterEventMode)?;
        self.phase = Phase::EventMode;
        Ok(())
    }

    /// newDiscreteStates / updateDiscreteStates: nothing changes at an
    /// event of these circuits.
    pub fn update_discrete_states(&mut self, function: &str) -> FmiResult<EventInfo> {
        self.check_exchange(function, Op::UpdateDiscreteStates)?;
        Ok(EventInfo::default())
    }

    /// enterContinuousTimeMode.
    pub fn enter_continuous_time_mode(&mut self, function: &str) -> FmiResult {
        self.check_exchange(function, Op::EnterContinuousTimeMode)?;
        self.phase = Phase::ContinuousTimeMode;
        Ok(())
    }

    /// completedIntegratorStep: records the accepted point; no step event,
    /// no termination (`(enterEventMode, terminateSimulation)`).
    pub fn completed_integrator_step(&mut self, function: &str) -> FmiResult<(bool, bool)> {
        self.check_exchange(function, Op::CompletedIntegratorStep)?;
        self.last_successful_time = self.time;
        Ok((false, false))
    }
}
