//! doStep: one communication step of a Co-Simulation instance.

use super::checks::{non_finite_output, non_finite_state};
use super::{Instance, Interface, Op, fnv1a, fnv1a_extend};
use crate::model::Model;
use crate::solver::advance;
use crate::status::{FmiResult, Status};
use crate::with_inputs::WithInputs;

impl<M: Model<NX>, const NX: usize> Instance<M, NX> {
    /// doStep: integrate from `t` by `h`. On a solver failure the instance
    /// stays at `t` (its last good communication point) and the result is
    /// `Discard`; [`Instance::terminated`] then says whether a master may
    /// retry (false: a shorter step may succeed) or must end the
    /// simulation (true), see [`Instance::discard_step`].
    pub fn do_step(&mut self, function: &str, t: f64, h: f64) -> FmiResult {
        self.terminated = false;
        if self.interface == Interface::ModelExchange {
            return self.fail(
                Status::Error,
                function,
                "this instance was created for Model Exchange, which has no doStep",
            );
        }
        self.check_phase(function, Op::DoStep)?;
        if !t.is_finite() || !h.is_finite() {
            return self.fail(
                Status::Error,
                function,
                "currentCommunicationPoint and communicationStepSize must be finite",
            );
        }
        if h <= 0.0 {
            return self.fail(
                Status::Error,
                function,
                &format!("communicationStepSize {h} s must be > 0"),
            );
        }
        let tol = 1e-9 * self.time.abs().max(1.0);
        if (t - self.time).abs() > tol {
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "currentCommunicationPoint {t} s is not the instance's time {} s",
                    self.time
                ),
            );
        }
        if let Some(stop) = self.stop_time
            && t + h > stop + 1e-9 * stop.abs().max(1.0)
        {
            return self.fail(
                Status::Error,
                function,
                &format!("the step to {} s goes beyond stopTime {stop} s", t + h),
            );
        }
        let mut x = self.x;
        // The integrator updates what it carries in place (the W methods'
        // Jacobian and factors are too big to copy at every step); a
        // failed step restores the step size and forgets the rest.
        let h_before = self.carried.h;
        let system = WithInputs {
            model: &self.model,
            inputs: &self.inputs,
            event_indicator_count: self.layout.events,
        };
        match advance(
            &system,
            &mut x,
            h,
            &self.settings,
            &mut self.carried,
            &mut self.stats,
        ) {
            Ok(()) => {
                // The integrators check their own numbers; this catches
                // what they cannot see: a finite state whose outputs are
                // not (an explicit method run off to 1e300).
                self.model
                    .outputs_into(&self.inputs, &x, &mut self.spare_outputs);
                let fault = non_finite_state(&self.model, &x)
                    .or_else(|| non_finite_output::<M, NX>(&self.spare_outputs));
                if let Some(what) = fault {
                    self.carried.h = h_before;
                    self.carried.forget();
                    // A state or output that runs off: the substep was too
                    // long for the equations, and a shorter step shortens it.
                    return self.discard_step(
                        function,
                        t,
                        h,
                        &format!("it ends with {what}"),
                        true,
                    );
                }
                self.discarded = None;
                self.x = x;
                std::mem::swap(&mut self.outputs, &mut self.spare_outputs);
                self.outputs_current = true;
                self.time = t + h;
                self.carried.steady = true;
                self.last_successful_time = self.time;
                Ok(())
            }
            Err(e) => {
                self.carried.h = h_before;
                self.carried.forget();
                let curable = e.shorter_step_may_cure(h);
                self.discard_step(function, t, h, &e.to_string(), curable)
            }
        }
    }

    /// Refuses the step from `t` by `h` (the instance stays at `t`) with
    /// Discard, and decides whether the simulation must end
    /// ([`Instance::terminated`]): at once when `curable` is false (no
    /// shorter step can succeed, [`SolverError::shorter_step_may_cure`](crate::solver::SolverError::shorter_step_may_cure)),
    /// and when the very same step (time, size, state, inputs, parameters)
    /// is discarded a second time in a row. The integrator forgets what it
    /// carries over from earlier steps at a discard, so the second try
    /// started from exactly what any further try would start from: the
    /// equations are deterministic, so it would fail the same way. A master
    /// that retries a discarded step unchanged (FMPy with FMI 2 retries for
    /// as long as `fmi2Terminated` is false) is told to stop instead of
    /// looping forever; one that shortens the step gets plain Discards.
    fn discard_step(
        &mut self,
        function: &str,
        t: f64,
        h: f64,
        why: &str,
        curable: bool,
    ) -> FmiResult {
        self.last_successful_time = self.time;
        let key = [t, h]
            .iter()
            .chain(self.x.iter())
            .chain(self.values.raw().iter())
            .fold(fnv1a(&[]), |k, v| {
                fnv1a_extend(k, &v.to_bits().to_le_bytes())
            });
        let times = match self.discarded {
            Some((k, n)) if k == key => n.saturating_add(1),
            _ => 1,
        };
        self.discarded = Some((key, times));
        self.terminated = !curable || times >= 2;
        let what_next = if !curable {
            "no shorter step can succeed: the simulation must end (terminated)"
        } else if times >= 2 {
            "the same step from the same point failed again, as it would every time: the \
             simulation must end (terminated)"
        } else {
            "retry with a shorter step"
        };
        self.fail(
            Status::Discard,
            function,
            &format!("step from {t} s by {h} s discarded, state kept at {t} s: {why}; {what_next}"),
        )
    }
}
