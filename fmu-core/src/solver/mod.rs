//! Integrators every model steps with inside `doStep`.
//!
//! * [`Method::Rodas3`]: a 4-stage L-stable, stiffly accurate Rosenbrock
//!   method of order 3 with an embedded order-2 solution (Sandu et al. 1997,
//!   "Benchmarking stiff ODE solvers for atmospheric chemistry II"), with
//!   adaptive substeps, the model's analytic Jacobian and fixed-size
//!   `nalgebra` matrices (no heap allocation).
//! * [`Method::RosenbrockW`]: the 4-stage Rosenbrock-W method ROS34PW2 of
//!   order 3(2) with adaptive substeps, which keeps its order with an
//!   outdated Jacobian: the Jacobian and the LU factors of the iteration
//!   matrix are kept across substeps and communication steps and renewed
//!   only when a substep is rejected, the step size changes or they grow
//!   old (see [`w_method`] and [`reuse`]).
//! * [`Method::FixedCost`]: Rodas3 at `fixed_substeps` equal substeps per
//!   communication step, one Jacobian and one LU per `doStep`, no error
//!   control and never a rejection: every `doStep` costs the same known
//!   number of operations, for real-time rigs.
//! * [`Method::ExplicitEuler`] and [`Method::Rk4`]: fixed-step explicit
//!   baselines, how the source papers integrated.
//!
//! The system is autonomous within one communication step: inputs are held
//! constant by the co-simulation master between communication points.
//!
//! The two Rosenbrock methods share one stage loop (`stages.rs`) over their
//! coefficients ([`tableau`]), and the adaptive ones one step-size control
//! (`step_control.rs`).

use nalgebra::{SMatrix, SVector};

mod error;
mod explicit;
mod fixed_cost;
mod jacobian;
pub mod reuse;
mod rodas3;
mod sampled;
mod segment;
mod stages;
mod step_control;
pub mod tableau;
#[cfg(test)]
mod test_systems;
pub mod w_method;

pub use crate::model::Clamp;
pub use error::SolverError;
pub use jacobian::finite_difference_jacobian;
pub use reuse::{Reuse, ReuseRecord};
pub use rodas3::{rodas3_adaptive, rodas3_fixed};
pub use segment::Segment;

/// A system of ordinary differential equations `dx/dt = f(x)` with its
/// Jacobian, as the integrators see a model.
pub trait OdeSystem<const N: usize> {
    /// The rates `f(x)` (state units per second).
    fn rates(&self, x: &SVector<f64, N>) -> SVector<f64, N>;

    /// `f(x)` and, when the system has one, the analytic Jacobian `df/dx`
    /// written into `j` (whose active block arrives filled with zeros:
    /// write the non-zero entries; systems with fewer active states than
    /// `N` may write only the leading active block, the rest of `j` is
    /// never read); the flag says whether it was written. The one entry
    /// point for the Jacobian: the default writes none and returns false,
    /// and the integrators form it by finite differences of
    /// [`OdeSystem::rates`].
    fn rates_and_jacobian(
        &self,
        x: &SVector<f64, N>,
        _j: &mut SMatrix<f64, N, N>,
    ) -> (SVector<f64, N>, bool) {
        (self.rates(x), false)
    }

    /// Nominal magnitude of each state (its SI unit); the absolute tolerance
    /// is `atol * nominal`.
    fn nominal(&self) -> SVector<f64, N> {
        SVector::repeat(1.0)
    }

    /// How many leading states are in use (models whose state count is a
    /// structural parameter reserve `N` and use fewer). States from this
    /// index on must have zero rates and zero Jacobian rows and columns.
    fn active_states(&self) -> usize {
        N
    }

    /// States the model holds inside a range, where its rate is cut to zero
    /// while pushed outward (a clamp with anti-windup): the rate jumps there,
    /// and [`Method::RosenbrockW`] ends a substep on the bound instead of
    /// rejecting substeps across it. None by default.
    fn clamps(&self) -> &[Clamp] {
        &[]
    }

    /// How many event indicators the system has: functions of the state
    /// whose sign changes where its rates switch law (a valve edge opening,
    /// a mass reaching its end stop; the same functions a master locates in
    /// Model Exchange). [`Method::RosenbrockW`] ends a substep that its
    /// error estimate would reject just past the first sign change inside
    /// it, instead of cutting the substep blindly again and again. At most
    /// [`MAX_EVENT_INDICATORS`] are tracked; none by default.
    fn event_indicator_count(&self) -> usize {
        0
    }

    /// The values of the event indicators at `x`, into `z`
    /// ([`OdeSystem::event_indicator_count`] entries).
    fn event_indicator_values(&self, _x: &SVector<f64, N>, _z: &mut [f64]) {}

    /// The period in seconds of the system's sampled part, if it has one:
    /// states that a discrete-time map (a trained NARX network, say)
    /// updates once per period instead of rates. Their rates must be zero;
    /// between samples they hold their value. `None` (the default): a
    /// purely continuous system.
    fn sample_period(&self) -> Option<f64> {
        None
    }

    /// The sampled part's update at the end of one period: `x` arrives as
    /// the state the continuous part reached with the sampled states held,
    /// and leaves with the sampled states' new values.
    fn sample(&self, _x: &mut SVector<f64, N>) {}

    /// Whether every state is sampled (all rates zero): the integrator is
    /// then skipped and each period costs one [`OdeSystem::sample`] only.
    /// `false` (the default).
    fn sampled_only(&self) -> bool {
        false
    }
}

/// The most event indicators ([`OdeSystem::event_indicator_count`]) the
/// integrators track (a fixed-size buffer: no allocation in a step).
pub const MAX_EVENT_INDICATORS: usize = 16;

/// Integration method, selectable as the FMU parameter `solver`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Adaptive, L-stable Rosenbrock method of order 3 (default).
    Rodas3,
    /// Explicit Euler at the fixed step `explicit_step`.
    ExplicitEuler,
    /// Classical 4th-order Runge-Kutta at the fixed step `explicit_step`.
    Rk4,
    /// Adaptive Rosenbrock-W (ROS34PW2) with the Jacobian and the LU reused.
    RosenbrockW,
    /// `fixed_substeps` Rodas3 substeps per communication step, one
    /// Jacobian and one LU per step, no error control.
    FixedCost,
    /// [`Method::RosenbrockW`] whose substeps are not cut at the
    /// communication points: a substep may end beyond one, the state there
    /// is interpolated (cubic Hermite), and while the inputs and parameters
    /// stay the same the next communication steps are served from the same
    /// substep ([`Segment`]).
    RosenbrockWAhead,
}

impl Method {
    /// The integer code used by the FMU parameter `solver`.
    pub fn code(self) -> i32 {
        match self {
            Method::Rodas3 => 1,
            Method::ExplicitEuler => 2,
            Method::Rk4 => 3,
            Method::RosenbrockW => 4,
            Method::FixedCost => 5,
            Method::RosenbrockWAhead => 6,
        }
    }

    /// The method for an integer code of the FMU parameter `solver`.
    pub fn from_code(code: i32) -> Option<Self> {
        match code {
            1 => Some(Method::Rodas3),
            2 => Some(Method::ExplicitEuler),
            3 => Some(Method::Rk4),
            4 => Some(Method::RosenbrockW),
            5 => Some(Method::FixedCost),
            6 => Some(Method::RosenbrockWAhead),
            _ => None,
        }
    }

    /// A short human name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Rodas3 => "Rodas3 (adaptive, implicit)",
            Method::ExplicitEuler => "explicit Euler (fixed step)",
            Method::Rk4 => "RK4 (fixed step)",
            Method::RosenbrockW => "ROS34PW2 (adaptive Rosenbrock-W, Jacobian and LU reused)",
            Method::FixedCost => "fixed-cost Rodas3 (fixed substeps, no error control)",
            Method::RosenbrockWAhead => {
                "ROS34PW2 stepping past communication points (interpolated states)"
            }
        }
    }
}

/// Settings of the integrator, exposed as FMU parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolverSettings {
    /// Integration method.
    pub method: Method,
    /// Relative tolerance of the adaptive method (1).
    pub rtol: f64,
    /// Absolute tolerance, relative to each state's nominal value (1).
    pub atol: f64,
    /// Maximum number of substeps (accepted and rejected) per communication step.
    pub max_substeps: u32,
    /// Fixed step of the explicit methods (s).
    pub explicit_step: f64,
    /// Substeps per communication step of [`Method::FixedCost`].
    pub fixed_substeps: u32,
}

impl Default for SolverSettings {
    fn default() -> Self {
        SolverSettings {
            method: Method::Rodas3,
            rtol: 1e-6,
            atol: 1e-6,
            max_substeps: 100_000,
            explicit_step: 1e-4,
            fixed_substeps: 1,
        }
    }
}

/// What the integrator carries from one communication step to the next.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Carried<const N: usize> {
    /// Proposed size of the next substep (s); 0 means "estimate one".
    pub h: f64,
    /// The Jacobian and LU factors the real-time methods reuse
    /// ([`w_method`]); allocated at their first step (once per instance),
    /// `None` until then.
    pub reuse: Option<Box<Reuse<N>>>,
    /// The substep [`Method::RosenbrockWAhead`] took beyond the present
    /// communication point, if any.
    pub ahead: Option<Segment<N>>,
    /// Whether the inputs are the ones of the previous communication step
    /// (set by fmu-core): only then does [`Method::RosenbrockWAhead`] step
    /// beyond the point. Inputs that change at every step would throw the
    /// substep away at the next point.
    pub steady: bool,
}

impl<const N: usize> Carried<N> {
    /// A carried step size and nothing to reuse.
    pub fn with_step(h: f64) -> Self {
        Carried {
            h,
            reuse: None,
            ahead: None,
            steady: false,
        }
    }

    /// Nothing carried yet, with the real-time methods' reuse block
    /// allocated now (at initialization), so that no `doStep` allocates.
    pub fn prepared() -> Self {
        Carried {
            h: 0.0,
            reuse: Some(Box::default()),
            ahead: None,
            steady: false,
        }
    }

    /// Forgets what the real-time methods reuse (after a failed step or a
    /// change of parameters); the step size stays.
    pub fn forget(&mut self) {
        if let Some(r) = self.reuse.as_deref_mut() {
            r.forget();
        }
        self.ahead = None;
        self.steady = false;
    }

    /// The inputs changed at this communication point: a substep taken
    /// beyond it no longer holds.
    pub fn inputs_changed(&mut self) {
        self.ahead = None;
        self.steady = false;
    }
}

/// Work counters of the integrator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Evaluations of the rates (the FMU statistic `solver_rhs_evals`).
    pub rhs_evals: u64,
    /// Jacobian evaluations.
    pub jacobian_evals: u64,
    /// LU factorizations.
    pub factorizations: u64,
    /// Accepted substeps.
    pub accepted: u64,
    /// Rejected substeps.
    pub rejected: u64,
}

/// Advances `x` by `duration` seconds with the method of `settings`.
///
/// On error `x` may hold a partial result: the caller keeps its own copy of
/// the last good state. No heap allocation happens here.
pub fn advance<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &mut SVector<f64, N>,
    duration: f64,
    settings: &SolverSettings,
    carried: &mut Carried<N>,
    stats: &mut Stats,
) -> Result<(), SolverError> {
    match sys.sample_period() {
        Some(period) => {
            sampled::advance_sampled(sys, x, duration, period, settings, carried, stats)
        }
        None => advance_continuous(sys, x, duration, settings, carried, stats),
    }
}

/// [`advance`] for a purely continuous system.
pub(super) fn advance_continuous<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &mut SVector<f64, N>,
    duration: f64,
    settings: &SolverSettings,
    carried: &mut Carried<N>,
    stats: &mut Stats,
) -> Result<(), SolverError> {
    match settings.method {
        Method::Rodas3 => rodas3_adaptive(sys, x, duration, settings, carried, stats),
        Method::ExplicitEuler | Method::Rk4 => {
            explicit::explicit_fixed(sys, x, duration, settings, stats)
        }
        Method::RosenbrockW | Method::RosenbrockWAhead => {
            w_method::adaptive(sys, x, duration, settings, carried, stats)
        }
        Method::FixedCost => fixed_cost::fixed_cost(sys, x, duration, settings, carried, stats),
    }
}
