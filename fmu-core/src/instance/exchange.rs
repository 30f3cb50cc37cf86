//! Model Exchange: the master integrates the model's rates with its own
//! solver. The same instance, values, checks and logging as
//! Co-Simulation; only the states and time come from the master.
//!
//! Where a circuit's equations switch (a valve edge, an end stop)
//! it declares event indicators ([`crate::EventIndicator`]), so that the
//! master's integrator locates the switch; nothing jumps at those events,
//! so the event iteration has nothing to update.

use super::{Column, Instance, Interface, Op, Phase};
use crate::model::{Known, Model};
use crate::status::{FmiResult, Status};
use crate::table::Number;
use nalgebra::{SMatrix, SVector};

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
    fn check_state_count(&self, function: &str, what: &str, n: usize) -> FmiResult {
        if n == NX {
            Ok(())
        } else {
            self.fail(
                Status::Error,
                function,
                &format!("{what} = {n}, but the model has {NX} continuous states"),
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
                    super::state_name::<M>(i),
                    Number(x[i])
                ),
            );
        }
        self.x = SVector::from_column_slice(x);
        self.outputs = None;
        Ok(())
    }

    /// getDerivatives: the rates at the present time, states and inputs.
    pub fn get_derivatives(&self, function: &str, out: &mut [f64]) -> FmiResult {
        self.check_exchange(function, Op::GetContinuous)?;
        self.check_state_count(function, "nx", out.len())?;
        let dx = self.model.rates(&self.inputs, &self.x);
        if let Some(i) = dx.iter().position(|v| !v.is_finite()) {
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "the derivative of state {} is {} at t = {} s (state {}); no values are \
                     returned",
                    super::state_name::<M>(i),
                    Number(dx[i]),
                    self.time,
                    Number(self.x[i])
                ),
            );
        }
        out.copy_from_slice(dx.as_slice());
        Ok(())
    }

    /// getContinuousStates.
    pub fn get_continuous_states(&self, function: &str, out: &mut [f64]) -> FmiResult {
        self.check_exchange(function, Op::GetContinuous)?;
        self.check_state_count(function, "nx", out.len())?;
        out.copy_from_slice(self.x.as_slice());
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
        out.copy_from_slice(self.model.nominal().as_slice());
        Ok(())
    }

    /// getEventIndicators: the values at the present state and inputs; the
    /// array must have one entry per indicator.
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
        self.model
            .event_indicator_values(&self.inputs, &self.x, out);
        if let Some(k) = out.iter().position(|v| !v.is_finite()) {
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "event indicator {} is {} at t = {} s; no values are returned",
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

    /// The Jacobian of the rates at the present state: the model's
    /// analytic one, else central differences.
    pub(super) fn rate_jacobian(&self) -> SMatrix<f64, NX, NX> {
        let mut j = SMatrix::<f64, NX, NX>::zeros();
        if self
            .model
            .rates_and_jacobian(&self.inputs, &self.x, &mut j)
            .1
        {
            return j;
        }
        let nominal = self.model.nominal();
        for c in 0..self.model.active_states().min(NX) {
            let h = 1e-6 * self.x[c].abs().max(nominal[c].abs().max(1e-300));
            let (mut xp, mut xm) = (self.x, self.x);
            xp[c] += h;
            xm[c] -= h;
            let up = self.model.rates(&self.inputs, &xp);
            let down = self.model.rates(&self.inputs, &xm);
            j.set_column(c, &((up - down) / (2.0 * h)));
        }
        j
    }

    /// The derivatives kept for the present state and settable values
    /// (inputs, parameters): emptied when either has changed since.
    fn at_this_point(&self) -> std::cell::RefMut<'_, super::JacobianAt<NX>> {
        let values = self.values.raw();
        let cache = self.jacobian.borrow_mut();
        std::cell::RefMut::map(cache, |cache| {
            let stale = cache
                .as_ref()
                .is_none_or(|c| c.x != self.x || c.values != values);
            if stale {
                *cache = None;
            }
            cache.get_or_insert_with(|| super::JacobianAt {
                x: self.x,
                values: values.to_vec(),
                j: None,
                inputs: None,
            })
        })
    }

    /// [`Instance::rate_jacobian`], kept and reused while the state and
    /// the settable values stay the same (a master that asks for the
    /// Jacobian one column per call gets it from one evaluation).
    fn cached_rate_jacobian(&self) -> SMatrix<f64, NX, NX> {
        let mut at = self.at_this_point();
        *at.j.get_or_insert_with(|| self.rate_jacobian())
    }

    /// Column `i` of the rates' analytic derivatives with respect to the
    /// inputs, when the model has them ([`Model::rate_input_jacobian`]),
    /// kept like the Jacobian.
    fn analytic_input_column(&self, i: usize) -> Option<SVector<f64, NX>> {
        let mut at = self.at_this_point();
        at.inputs
            .get_or_insert_with(|| {
                let mut columns = vec![SVector::zeros(); self.layout.inputs];
                self.model
                    .rate_input_jacobian(&self.inputs, &self.x, &mut columns)
                    .then_some(columns)
            })
            .as_ref()
            .and_then(|c| c.get(i).copied())
    }

    /// The partial derivative of the rate of state `row` with respect to
    /// `wrt`: from the Jacobian (evaluated once per call of the directional
    /// derivative, kept in `jacobian`) for a state; for an input from the
    /// model's analytic input derivatives, else by central differences (the
    /// perturbed rates kept in `column` for the next row).
    pub(super) fn rate_partial(
        &self,
        row: usize,
        wrt: Known,
        jacobian: &mut Option<SMatrix<f64, NX, NX>>,
        column: &mut Column<M::Outputs, NX>,
    ) -> f64 {
        match wrt {
            Known::State(c) => {
                jacobian.get_or_insert_with(|| self.cached_rate_jacobian())[(row, c)]
            }
            Known::Input(i) => {
                if let Some(c) = self.analytic_input_column(i) {
                    return c[row];
                }
                let (h, up, down) = column.rates.get_or_insert_with(|| {
                    let (h, (up_u, up_x), (down_u, down_x)) = self.perturbed(wrt);
                    (
                        h,
                        self.model.rates(&up_u, &up_x),
                        self.model.rates(&down_u, &down_x),
                    )
                });
                (up[row] - down[row]) / (2.0 * *h)
            }
        }
    }
}
