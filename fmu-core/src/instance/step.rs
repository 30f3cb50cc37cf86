//! doStep: one communication step of a Co-Simulation instance.

use super::checks::{non_finite_output, non_finite_state};
use super::{Instance, Interface, Op};
use crate::model::Model;
use crate::solver::advance;
use crate::status::{FmiResult, Status};
use crate::with_inputs::WithInputs;

impl<M: Model<NX>, const NX: usize> Instance<M, NX> {
    /// doStep: integrate from `t` by `h`. On a solver failure the instance
    /// stays at `t` (its last good communication point) and the result is
    /// `Discard`.
    pub fn do_step(&mut self, function: &str, t: f64, h: f64) -> FmiResult {
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
                let out = self.model.all_outputs(&self.inputs, &x);
                let fault =
                    non_finite_state(&self.model, &x).or_else(|| non_finite_output::<M, NX>(&out));
                if let Some(what) = fault {
                    self.carried.h = h_before;
                    self.carried.forget();
                    self.last_successful_time = self.time;
                    return self.fail(
                        Status::Discard,
                        function,
                        &format!(
                            "step from {t} s by {h} s discarded, state kept at {t} s: it ends \
                             with {what}"
                        ),
                    );
                }
                self.x = x;
                self.outputs = Some(out);
                self.time = t + h;
                self.carried.steady = true;
                self.last_successful_time = self.time;
                Ok(())
            }
            Err(e) => {
                self.carried.h = h_before;
                self.carried.forget();
                self.last_successful_time = self.time;
                self.fail(
                    Status::Discard,
                    function,
                    &format!("step from {t} s by {h} s discarded, state kept at {t} s: {e}"),
                )
            }
        }
    }
}
