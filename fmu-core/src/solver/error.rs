//! Why an integration failed, with the messages a master sees.

/// Why an integration failed. Times are relative to the start of the
/// communication step, in s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SolverError {
    /// The step size controller went below the smallest step it may take.
    StepSizeTooSmall {
        /// Time reached.
        t: f64,
        /// Step size asked for (s).
        h: f64,
    },
    /// More substeps than `max_substeps` were needed.
    TooManySubsteps {
        /// Time reached.
        t: f64,
        /// The limit in force.
        limit: u32,
    },
    /// The state became NaN or infinite (explicit and fixed-cost methods).
    NotFinite {
        /// Time reached.
        t: f64,
    },
    /// The iteration matrix of the fixed-cost method is singular.
    SingularMatrix {
        /// Time reached.
        t: f64,
    },
    /// The communication step is not a whole number of the sampled part's
    /// periods ([`OdeSystem::sample_period`](super::OdeSystem::sample_period)).
    OffSampleGrid {
        /// The communication step asked for (s).
        duration: f64,
        /// The sample period (s).
        period: f64,
    },
}

impl SolverError {
    /// Whether the same step from the same state, shortened, may succeed
    /// where this communication step of `duration` s failed, so that a
    /// master should retry with a shorter one (FMI Discard); false where
    /// no shorter step can (the FMU then reports that the simulation
    /// must end).
    ///
    /// - Too many substeps: the limit is per communication step, a shorter
    ///   one needs fewer: may cure.
    /// - A singular iteration matrix or a non-finite state: both depend on
    ///   the substep, which a shorter communication step shortens (the
    ///   fixed-cost method divides the communication step; an explicit
    ///   method's substep is the communication step once that is shorter
    ///   than `explicit_step`): may cure.
    /// - Step size too small: the smallest substep is 1e-12 of the
    ///   communication step, so a shorter one allows shorter substeps,
    ///   until that floor is the absolute 1e-15 s (communication steps of
    ///   1 ms and less): beyond it, no.
    /// - Off the sample grid: a trained surrogate updates once per period,
    ///   so a step must be a whole number of periods; halving a step that
    ///   is not never makes it one (and a step shorter than a period never
    ///   is): no.
    pub fn shorter_step_may_cure(&self, duration: f64) -> bool {
        match self {
            SolverError::TooManySubsteps { .. }
            | SolverError::SingularMatrix { .. }
            | SolverError::NotFinite { .. } => true,
            SolverError::StepSizeTooSmall { .. } => {
                super::step_control::smallest_step(duration)
                    > super::step_control::ABSOLUTE_SMALLEST_STEP
            }
            SolverError::OffSampleGrid { .. } => false,
        }
    }

    /// The same error with its time moved on by `dt` (an error inside the
    /// `k`-th sample period of a communication step).
    pub(super) fn later(self, dt: f64) -> Self {
        match self {
            SolverError::StepSizeTooSmall { t, h } => {
                SolverError::StepSizeTooSmall { t: t + dt, h }
            }
            SolverError::TooManySubsteps { t, limit } => {
                SolverError::TooManySubsteps { t: t + dt, limit }
            }
            SolverError::NotFinite { t } => SolverError::NotFinite { t: t + dt },
            SolverError::SingularMatrix { t } => SolverError::SingularMatrix { t: t + dt },
            e @ SolverError::OffSampleGrid { .. } => e,
        }
    }
}

impl std::fmt::Display for SolverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolverError::StepSizeTooSmall { t, h } => write!(
                f,
                "step size {h:e} s too small at {t:e} s into the communication step \
                 (the equations may be singular or the tolerances too tight)"
            ),
            SolverError::TooManySubsteps { t, limit } => write!(
                f,
                "more than max_substeps = {limit} substeps needed; stopped at {t:e} s \
                 into the communication step (raise max_substeps or shorten the step)"
            ),
            SolverError::NotFinite { t } => write!(
                f,
                "the state became NaN or infinite at {t:e} s into the communication step \
                 (an explicit method beyond its stability limit?)"
            ),
            SolverError::SingularMatrix { t } => write!(
                f,
                "the iteration matrix I - h d J is singular at {t:e} s into the communication \
                 step (shorten the step or take an adaptive solver)"
            ),
            SolverError::OffSampleGrid { duration, period } => write!(
                f,
                "the communication step {duration:e} s is not a whole number of the sampled \
                 part's period {period:e} s (a trained surrogate updates once per period: step \
                 by multiples of it)"
            ),
        }
    }
}
