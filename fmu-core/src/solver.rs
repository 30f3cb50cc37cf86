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
//!   old (see [`w_method`]).
//! * [`Method::FixedCost`]: Rodas3 at `fixed_substeps` equal substeps per
//!   communication step, one Jacobian and one LU per `doStep`, no error
//!   control and never a rejection: every `doStep` costs the same known
//!   number of operations, for real-time rigs.
//! * [`Method::ExplicitEuler`] and [`Method::Rk4`]: fixed-step explicit
//!   baselines, how the source papers integrated.
//!
//! The system is autonomous within one communication step: inputs are held
//! constant by the co-simulation master between communication points.

use crate::linalg::{Rows, factor_in_place, solve_in_place};
use nalgebra::{SMatrix, SVector};

pub mod w_method;
pub use w_method::Reuse;

/// A system of ordinary differential equations `dx/dt = f(x)` with its
/// Jacobian, as the integrators see a model.
pub trait OdeSystem<const N: usize> {
    /// The right-hand side `f(x)` (state units per second).
    fn rhs(&self, x: &SVector<f64, N>) -> SVector<f64, N>;

    /// `f(x)` and, when the system has one, the analytic Jacobian `df/dx`
    /// written into `j` (whose active block arrives filled with zeros:
    /// write the non-zero entries; systems with fewer active states than
    /// `N` may write only the leading active block, the rest of `j` is
    /// never read); the flag says whether it was written. The one entry
    /// point for the Jacobian: the default writes none and returns false,
    /// and the integrators form it by finite differences of
    /// [`OdeSystem::rhs`].
    fn rhs_and_jacobian_into(
        &self,
        x: &SVector<f64, N>,
        _j: &mut SMatrix<f64, N, N>,
    ) -> (SVector<f64, N>, bool) {
        (self.rhs(x), false)
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

    /// How many switching functions the system has: functions of the state
    /// whose sign changes where its rates switch law (a valve edge opening,
    /// a mass reaching its end stop; the Model Exchange event indicators).
    /// [`Method::RosenbrockW`] ends a substep that its error estimate would
    /// reject just past the first sign change inside it, instead of cutting
    /// the substep blindly again and again. At most [`MAX_SWITCHES`] are
    /// tracked; none by default.
    fn switch_count(&self) -> usize {
        0
    }

    /// The values of the switching functions at `x`, into `z`
    /// ([`OdeSystem::switch_count`] entries).
    fn switch_values(&self, _x: &SVector<f64, N>, _z: &mut [f64]) {}

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

/// The most switching functions ([`OdeSystem::switch_count`]) the
/// integrators track (a fixed-size buffer: no allocation in a step).
pub const MAX_SWITCHES: usize = 16;

/// A state held inside `[lower, upper]` by its model (see
/// [`OdeSystem::clamps`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clamp {
    /// Index of the state.
    pub state: usize,
    /// Lower bound, in the state's unit.
    pub lower: f64,
    /// Upper bound, in the state's unit.
    pub upper: f64,
}

impl Clamp {
    /// Where on the way from `from` to `to` this clamp's state reaches a
    /// bound it was inside of, if it does: the fraction of the way (by
    /// linear interpolation) and the bound.
    pub fn crossing<const N: usize>(
        &self,
        from: &SVector<f64, N>,
        to: &SVector<f64, N>,
    ) -> Option<(f64, f64)> {
        let (a, b) = (*from.get(self.state)?, *to.get(self.state)?);
        let bound = if a > self.lower && b < self.lower {
            self.lower
        } else if a < self.upper && b > self.upper {
            self.upper
        } else {
            return None;
        };
        Some(((a - bound) / (a - b), bound))
    }

    /// Puts the state on the bound it is beyond, if any.
    pub fn hold<const N: usize>(&self, x: &mut SVector<f64, N>) {
        if let Some(v) = x.get_mut(self.state) {
            *v = v.clamp(self.lower, self.upper);
        }
    }
}

/// The Jacobian of `sys` at `x` by forward differences, given `f = f(x)`:
/// the fallback for systems without an analytic one. Each active state is
/// perturbed by `sqrt(eps) * max(|x_i|, nominal_i)`; returns the number of
/// right-hand-side evaluations used.
pub fn finite_difference_jacobian<S: OdeSystem<N> + ?Sized, const N: usize>(
    sys: &S,
    x: &SVector<f64, N>,
    f: &SVector<f64, N>,
    j: &mut SMatrix<f64, N, N>,
) -> u64 {
    let nominal = sys.nominal();
    let active = sys.active_states().min(N);
    let mut xp = *x;
    for c in 0..active {
        let h = f64::EPSILON.sqrt() * x[c].abs().max(nominal[c].abs()).max(f64::MIN_POSITIVE);
        xp[c] = x[c] + h;
        // the step actually taken, after rounding
        let h = xp[c] - x[c];
        let fp = sys.rhs(&xp);
        for r in 0..active {
            j[(r, c)] = (fp[r] - f[r]) / h;
        }
        xp[c] = x[c];
    }
    active as u64
}

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

/// A substep that ends beyond the present communication point
/// ([`Method::RosenbrockWAhead`]): its ends, the state one substep before
/// (when there is one), the rates at its end, and where in it the
/// communication point lies. It is valid only for the inputs and
/// parameters it was taken with (fmu-core drops it when they change).
///
/// The state at a point inside is the quadratic through the three states
/// (linear without the earlier one): states only, no rates. A Hermite
/// cubic through the ends' rates would be a order better on smooth
/// solutions, but a stiff component's rate at a computed state is the
/// size of its eigenvalue times the state's tiny distance from its slow
/// manifold, nothing like the slow solution's slope: it bends the cubic
/// by whole percents between the ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment<const N: usize> {
    /// The state two substeps before its start (unused when `hq` is 0).
    pub xq: SVector<f64, N>,
    /// The length of the substep from there, s; 0 when there is none.
    pub hq: f64,
    /// The state one substep before its start (unused when `hp` is 0).
    pub xp: SVector<f64, N>,
    /// That substep's length, s; 0 when there is none.
    pub hp: f64,
    /// The state at its start.
    pub x0: SVector<f64, N>,
    /// The state at its end: where the integration goes on from.
    pub x1: SVector<f64, N>,
    /// The rates there, where the next substep starts.
    pub f1: SVector<f64, N>,
    /// Its length, s (> 0).
    pub h: f64,
    /// How far into it the present communication point lies, s (0..=h).
    pub at: f64,
}

impl<const N: usize> Segment<N> {
    /// The interpolated state `at` seconds into the segment (exactly `x1`
    /// at its end, `x0` at its start).
    pub fn state_at(&self, at: f64) -> SVector<f64, N> {
        if at >= self.h {
            return self.x1;
        }
        let (s, h, hp, hq) = (at.max(0.0), self.h, self.hp, self.hq);
        if hp > 0.0 && hq > 0.0 {
            // Lagrange weights of the points at -(hp + hq), -hp, 0 and h.
            let (a, b) = (-(hp + hq), -hp);
            let wq = (s - b) * s * (s - h) / ((a - b) * a * (a - h));
            let wp = (s - a) * s * (s - h) / ((b - a) * b * (b - h));
            let w0 = -(s - a) * (s - b) * (s - h) / (a * b * h);
            let w1 = (s - a) * (s - b) * s / ((h - a) * (h - b) * h);
            self.xq * wq + self.xp * wp + self.x0 * w0 + self.x1 * w1
        } else if hp > 0.0 {
            // Lagrange weights of the points at -hp, 0 and h.
            let wp = s * (s - h) / (hp * (hp + h));
            let w0 = -(s + hp) * (s - h) / (hp * h);
            let w1 = (s + hp) * s / ((hp + h) * h);
            self.xp * wp + self.x0 * w0 + self.x1 * w1
        } else {
            let w1 = s / h;
            self.x0 * (1.0 - w1) + self.x1 * w1
        }
    }

    /// Whether its numbers are usable: finite, a positive length, the
    /// point inside, the earlier substep's length >= 0.
    pub fn is_valid(&self) -> bool {
        let finite = [&self.xq, &self.xp, &self.x0, &self.x1, &self.f1]
            .iter()
            .all(|v| v.iter().all(|e| e.is_finite()));
        finite
            && self.h.is_finite()
            && self.h > 0.0
            && self.hp.is_finite()
            && self.hp >= 0.0
            && self.hq.is_finite()
            && self.hq >= 0.0
            && (0.0..=self.h).contains(&self.at)
    }
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
    /// Right-hand-side evaluations.
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
    /// periods ([`OdeSystem::sample_period`]).
    OffSampleGrid {
        /// The communication step asked for (s).
        duration: f64,
        /// The sample period (s).
        period: f64,
    },
}

impl SolverError {
    /// The same error with its time moved on by `dt` (an error inside the
    /// `k`-th sample period of a communication step).
    fn later(self, dt: f64) -> Self {
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
        Some(period) => advance_sampled(sys, x, duration, period, settings, carried, stats),
        None => advance_continuous(sys, x, duration, settings, carried, stats),
    }
}

/// [`advance`] for a system with a sampled part: the continuous part over
/// each period with the sampled states held, then the sampled update.
/// Stepping past communication points ([`Method::RosenbrockWAhead`]) would
/// cross sample instants: it steps as [`Method::RosenbrockW`] here.
fn advance_sampled<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &mut SVector<f64, N>,
    duration: f64,
    period: f64,
    settings: &SolverSettings,
    carried: &mut Carried<N>,
    stats: &mut Stats,
) -> Result<(), SolverError> {
    let n = (duration / period).round();
    if !(n >= 1.0 && (n * period - duration).abs() <= 1e-6 * period) {
        return Err(SolverError::OffSampleGrid { duration, period });
    }
    if n > f64::from(settings.max_substeps) {
        return Err(SolverError::TooManySubsteps {
            t: 0.0,
            limit: settings.max_substeps,
        });
    }
    let mut inner = *settings;
    if inner.method == Method::RosenbrockWAhead {
        inner.method = Method::RosenbrockW;
    }
    let continuous = !sys.sampled_only();
    for k in 0..n as u64 {
        let start = k as f64 * period;
        if continuous {
            advance_continuous(sys, x, period, &inner, carried, stats)
                .map_err(|e| e.later(start))?;
        }
        sys.sample(x);
        if !x.iter().all(|v| v.is_finite()) {
            return Err(SolverError::NotFinite { t: start + period });
        }
    }
    Ok(())
}

/// [`advance`] for a purely continuous system.
fn advance_continuous<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &mut SVector<f64, N>,
    duration: f64,
    settings: &SolverSettings,
    carried: &mut Carried<N>,
    stats: &mut Stats,
) -> Result<(), SolverError> {
    match settings.method {
        Method::Rodas3 => rodas3_adaptive(sys, x, duration, settings, carried, stats),
        Method::ExplicitEuler | Method::Rk4 => explicit_fixed(sys, x, duration, settings, stats),
        Method::RosenbrockW | Method::RosenbrockWAhead => {
            w_method::adaptive(sys, x, duration, settings, carried, stats)
        }
        Method::FixedCost => w_method::fixed_cost(sys, x, duration, settings, carried, stats),
    }
}

/// Explicit fixed-step integration: `n = ceil(duration / explicit_step)`
/// equal steps.
fn explicit_fixed<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &mut SVector<f64, N>,
    duration: f64,
    settings: &SolverSettings,
    stats: &mut Stats,
) -> Result<(), SolverError> {
    let n = (duration / settings.explicit_step * (1.0 - 1e-12))
        .ceil()
        .max(1.0);
    if n > f64::from(settings.max_substeps) {
        return Err(SolverError::TooManySubsteps {
            t: 0.0,
            limit: settings.max_substeps,
        });
    }
    let n = n as u64;
    let h = duration / n as f64;
    for i in 0..n {
        match settings.method {
            Method::ExplicitEuler => {
                *x += sys.rhs(x) * h;
                stats.rhs_evals += 1;
            }
            _ => {
                let k1 = sys.rhs(x);
                let k2 = sys.rhs(&(*x + k1 * (0.5 * h)));
                let k3 = sys.rhs(&(*x + k2 * (0.5 * h)));
                let k4 = sys.rhs(&(*x + k3 * h));
                *x += (k1 + (k2 + k3) * 2.0 + k4) * (h / 6.0);
                stats.rhs_evals += 4;
            }
        }
        stats.accepted += 1;
        if !x.iter().all(|v| v.is_finite()) {
            return Err(SolverError::NotFinite {
                t: (i + 1) as f64 * h,
            });
        }
    }
    Ok(())
}

// Rodas3 coefficients in the form
//   (1/(h*GAMMA) I - J) k_i = f(x + sum_j A[i][j] k_j) + sum_j C[i][j]/h k_j,
//   x_new = x + sum_i M[i] k_i,   error = sum_i E[i] k_i.
const GAMMA: f64 = 0.5;
const A: [[f64; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0],
    [2.0, 0.0, 0.0],
    [2.0, 0.0, 1.0],
];
const C: [[f64; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [4.0, 0.0, 0.0],
    [1.0, -1.0, 0.0],
    [1.0, -1.0, -8.0 / 3.0],
];
const M: [f64; 4] = [2.0, 0.0, 1.0, 1.0];
const E: [f64; 4] = [0.0, 0.0, 0.0, 1.0];
/// Stages that evaluate f: stage 1 takes f(x) from the substep start and
/// stage 2 reuses it (its A row is zero).
const NEW_F: [bool; 4] = [false, false, true, true];
/// Order of the embedded error estimate plus one, for the step controller.
pub(crate) const ERROR_ORDER: f64 = 3.0;

/// `f(x)` and the Jacobian at the start of a substep; kept across a
/// rejected substep (same `x`, smaller `h`).
struct StepStart<const N: usize> {
    f: SVector<f64, N>,
    jac: SMatrix<f64, N, N>,
}

impl<const N: usize> StepStart<N> {
    fn new() -> Self {
        StepStart {
            f: SVector::zeros(),
            jac: SMatrix::zeros(),
        }
    }

    fn evaluate<S: OdeSystem<N>>(&mut self, sys: &S, x: &SVector<f64, N>, stats: &mut Stats) {
        self.f = rates_and_jacobian(sys, x, &mut self.jac, stats);
    }
}

/// `f(x)`, returned, and the Jacobian at `x`, written into `jac`: the
/// model's analytic one, or forward differences when it has none. Counts
/// the evaluations.
pub(crate) fn rates_and_jacobian<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &SVector<f64, N>,
    jac: &mut SMatrix<f64, N, N>,
    stats: &mut Stats,
) -> SVector<f64, N> {
    // Zeros in the active block (the rest is never read): models write
    // only their non-zero entries.
    let active = sys.active_states().min(N);
    for column in jac.as_mut_slice().chunks_exact_mut(N).take(active) {
        column[..active].fill(0.0);
    }
    let (f, analytic) = sys.rhs_and_jacobian_into(x, jac);
    stats.rhs_evals += 1;
    stats.jacobian_evals += 1;
    if !analytic {
        stats.rhs_evals += finite_difference_jacobian(sys, x, &f, jac);
    }
    f
}

/// One Rodas3 step of size `h` from `x`, with `f(x)` and the Jacobian in
/// `start`. Returns the new state and the embedded error vector, or `None`
/// when the iteration matrix is singular or the result is not finite.
fn rodas3_step<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &SVector<f64, N>,
    h: f64,
    start: &StepStart<N>,
    g: &mut Rows<N>,
    stats: &mut Stats,
) -> Option<(SVector<f64, N>, SVector<f64, N>)> {
    // Iteration matrix G = I/(h gamma) - J, built and factorized in place
    // in the caller's buffer; inactive states get the identity / (h gamma)
    // (their rows and columns of J are zero and never written).
    let active = sys.active_states().min(N);
    let inv = 1.0 / (h * GAMMA);
    for (r, row) in g.iter_mut().enumerate().take(active) {
        for (c, v) in row.iter_mut().enumerate().take(active) {
            *v = -start.jac[(r, c)];
        }
        row[r] += inv;
    }
    for (i, row) in g.iter_mut().enumerate().skip(active) {
        row[i] = inv;
    }
    let perm = factor_in_place(g, active)?;
    let g = &*g;
    stats.factorizations += 1;
    let mut k = [SVector::<f64, N>::zeros(); 4];
    let mut f = start.f;
    for s in 0..4 {
        if NEW_F[s] {
            let mut xs = *x;
            for j in 0..s {
                if A[s][j] != 0.0 {
                    xs += k[j] * A[s][j];
                }
            }
            f = sys.rhs(&xs);
            stats.rhs_evals += 1;
        }
        let mut rhs = f;
        for j in 0..s {
            if C[s][j] != 0.0 {
                rhs += k[j] * (C[s][j] / h);
            }
        }
        solve_in_place(g, &perm, active, &mut rhs);
        k[s] = rhs;
    }
    let mut x_new = *x;
    let mut err = SVector::<f64, N>::zeros();
    for s in 0..4 {
        if M[s] != 0.0 {
            x_new += k[s] * M[s];
        }
        if E[s] != 0.0 {
            err += k[s] * E[s];
        }
    }
    if x_new.iter().chain(err.iter()).all(|v| v.is_finite()) {
        Some((x_new, err))
    } else {
        None
    }
}

/// Takes `n` Rodas3 steps of the fixed size `h` (no error control): for
/// convergence and stability tests.
pub fn rodas3_fixed<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &mut SVector<f64, N>,
    h: f64,
    n: usize,
    stats: &mut Stats,
) -> bool {
    let mut g = [[0.0; N]; N];
    let mut start = StepStart::new();
    for _ in 0..n {
        start.evaluate(sys, x, stats);
        match rodas3_step(sys, x, h, &start, &mut g, stats) {
            Some((x_new, _)) => *x = x_new,
            None => return false,
        }
        stats.accepted += 1;
    }
    true
}

/// Weighted RMS norm of an error vector, with the scale
/// `atol * nominal + rtol * max(|x|, |x_new|)` per component.
pub(crate) fn error_norm<const N: usize>(
    err: &SVector<f64, N>,
    x: &SVector<f64, N>,
    x_new: &SVector<f64, N>,
    nominal: &SVector<f64, N>,
    settings: &SolverSettings,
    active: usize,
) -> f64 {
    let mut sum = 0.0;
    let active = active.clamp(1, N);
    for i in 0..active {
        let scale =
            settings.atol * nominal[i].abs() + settings.rtol * x[i].abs().max(x_new[i].abs());
        let r = err[i] / scale;
        sum += r * r;
    }
    (sum / active as f64).sqrt()
}

/// A first substep guess from the size of the state and its derivative.
pub(crate) fn initial_step<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &SVector<f64, N>,
    duration: f64,
    settings: &SolverSettings,
    stats: &mut Stats,
) -> f64 {
    let nominal = sys.nominal();
    let f = sys.rhs(x);
    stats.rhs_evals += 1;
    let mut d0 = 0.0;
    let mut d1 = 0.0;
    for i in 0..N {
        let scale = settings.atol * nominal[i].abs() + settings.rtol * x[i].abs();
        d0 += (x[i] / scale).powi(2);
        d1 += (f[i] / scale).powi(2);
    }
    let (d0, d1) = ((d0 / N as f64).sqrt(), (d1 / N as f64).sqrt());
    let h = if d0 < 1e-5 || d1 < 1e-5 {
        1e-6
    } else {
        0.01 * d0 / d1
    };
    h.min(duration).max(duration * 1e-9)
}

/// Rodas3 with error control over `duration` (s), starting from the
/// substep size `carried.h` (0: estimated): what [`advance`] runs for
/// [`Method::Rodas3`], callable on its own by masters that integrate an
/// imported FMU's derivatives.
pub fn rodas3_adaptive<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &mut SVector<f64, N>,
    duration: f64,
    settings: &SolverSettings,
    carried: &mut Carried<N>,
    stats: &mut Stats,
) -> Result<(), SolverError> {
    let nominal = sys.nominal();
    let h_min = (duration * 1e-12).max(1e-15);
    let mut h = if carried.h > 0.0 && carried.h.is_finite() {
        carried.h
    } else {
        initial_step(sys, x, duration, settings, stats)
    };
    let mut t = 0.0;
    let mut substeps: u32 = 0;
    let mut rejected_last = false;
    // One iteration-matrix buffer for all substeps of this call.
    let mut g = [[0.0; N]; N];
    let mut start = StepStart::new();
    let mut start_is_current = false;
    while t < duration {
        if substeps >= settings.max_substeps {
            carried.h = h;
            return Err(SolverError::TooManySubsteps {
                t,
                limit: settings.max_substeps,
            });
        }
        substeps += 1;
        let remaining = duration - t;
        // Land exactly on the communication point; avoid a sliver of a last step.
        let last = h * 1.01 >= remaining;
        let h_try = if last {
            remaining
        } else if 2.0 * h > remaining {
            0.5 * remaining
        } else {
            h
        };
        if !start_is_current {
            start.evaluate(sys, x, stats);
            start_is_current = true;
        }
        let outcome = rodas3_step(sys, x, h_try, &start, &mut g, stats).map(|(x_new, err)| {
            let e = error_norm(&err, x, &x_new, &nominal, settings, sys.active_states());
            (x_new, e)
        });
        match outcome {
            Some((x_new, e)) if e <= 1.0 => {
                *x = x_new;
                start_is_current = false;
                stats.accepted += 1;
                t = if last { duration } else { t + h_try };
                let max_growth = if rejected_last { 1.0 } else { 5.0 };
                let factor = (0.9 * e.max(1e-10).powf(-1.0 / ERROR_ORDER)).clamp(0.2, max_growth);
                let h_next = h_try * factor;
                // A truncated last step says little about the step the
                // solution allows: keep the larger proposal.
                h = if last && h_try < h {
                    h.max(h_next)
                } else {
                    h_next
                };
                rejected_last = false;
            }
            Some((_, e)) if e.is_finite() => {
                stats.rejected += 1;
                h = h_try * (0.9 * e.powf(-1.0 / ERROR_ORDER)).clamp(0.1, 0.9);
                rejected_last = true;
            }
            _ => {
                // Singular iteration matrix or non-finite result: cut hard.
                stats.rejected += 1;
                h = h_try * 0.25;
                rejected_last = true;
            }
        }
        if h < h_min {
            carried.h = 0.0;
            return Err(SolverError::StepSizeTooSmall { t, h });
        }
    }
    carried.h = h;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix3, Vector2, Vector3};

    /// Harmonic oscillator x'' = -x: exact solution (cos t, -sin t).
    struct Oscillator;
    impl OdeSystem<2> for Oscillator {
        fn rhs(&self, x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::new(x[1], -x[0])
        }
        fn rhs_and_jacobian_into(
            &self,
            _x: &Vector2<f64>,
            j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            let analytic = {
                *j = SMatrix::<f64, 2, 2>::new(0.0, 1.0, -1.0, 0.0);
                true
            };
            (self.rhs(_x), analytic)
        }
    }

    /// Nonlinear scalar-like problem: x0' = -x0^2 (x0 = 1/(1+t)), x1' = -x1 (x1 = e^-t).
    struct Decay;
    impl OdeSystem<2> for Decay {
        fn rhs(&self, x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::new(-x[0] * x[0], -x[1])
        }
        fn rhs_and_jacobian_into(
            &self,
            x: &Vector2<f64>,
            j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            let analytic = {
                *j = SMatrix::<f64, 2, 2>::new(-2.0 * x[0], 0.0, 0.0, -1.0);
                true
            };
            (self.rhs(x), analytic)
        }
    }

    fn error_fixed(method: Method, h: f64, t_end: f64) -> f64 {
        let n = (t_end / h).round() as usize;
        let mut x = Vector2::new(1.0, 1.0);
        let mut stats = Stats::default();
        match method {
            Method::Rodas3 => assert!(rodas3_fixed(&Decay, &mut x, h, n, &mut stats)),
            _ => {
                let settings = SolverSettings {
                    method,
                    explicit_step: h,
                    max_substeps: u32::MAX,
                    ..Default::default()
                };
                explicit_fixed(&Decay, &mut x, t_end, &settings, &mut stats).unwrap();
            }
        }
        let exact = Vector2::new(1.0 / (1.0 + t_end), (-t_end).exp());
        (x - exact).norm()
    }

    fn observed_order(method: Method) -> f64 {
        let e1 = error_fixed(method, 0.02, 2.0);
        let e2 = error_fixed(method, 0.01, 2.0);
        (e1 / e2).log2()
    }

    #[test]
    fn observed_orders_of_convergence() {
        let rodas = observed_order(Method::Rodas3);
        let euler = observed_order(Method::ExplicitEuler);
        let rk4 = observed_order(Method::Rk4);
        assert!((rodas - 3.0).abs() < 0.15, "Rodas3 order {rodas}");
        assert!((euler - 1.0).abs() < 0.1, "Euler order {euler}");
        assert!((rk4 - 4.0).abs() < 0.15, "RK4 order {rk4}");
    }

    #[test]
    fn rodas3_order_on_oscillator() {
        let run = |h: f64| {
            let mut x = Vector2::new(1.0, 0.0);
            let mut stats = Stats::default();
            let n = (1.0_f64 / h).round() as usize;
            assert!(rodas3_fixed(&Oscillator, &mut x, h, n, &mut stats));
            (x - Vector2::new(1f64.cos(), -1f64.sin())).norm()
        };
        let order = (run(0.05) / run(0.025)).log2();
        assert!((order - 3.0).abs() < 0.15, "order {order}");
    }

    /// A linear system with eigenvalues -1, -1e3 and -1e7, coupled by a
    /// similarity transform so that no component decouples.
    struct StiffLinear {
        a: Matrix3<f64>,
        t: Matrix3<f64>,
        t_inv: Matrix3<f64>,
    }
    const LAMBDA: [f64; 3] = [-1.0, -1e3, -1e7];
    impl StiffLinear {
        fn new() -> Self {
            let t = Matrix3::new(1.0, 0.5, 0.2, 0.3, 1.0, 0.4, 0.1, 0.6, 1.0);
            let t_inv = t.try_inverse().unwrap();
            let d = Matrix3::from_diagonal(&Vector3::from(LAMBDA));
            StiffLinear {
                a: t * d * t_inv,
                t,
                t_inv,
            }
        }
        fn exact(&self, x0: &Vector3<f64>, time: f64) -> Vector3<f64> {
            let z0 = self.t_inv * x0;
            let z = Vector3::from_fn(|i, _| z0[i] * (LAMBDA[i] * time).exp());
            self.t * z
        }
    }
    impl OdeSystem<3> for StiffLinear {
        fn rhs(&self, x: &Vector3<f64>) -> Vector3<f64> {
            self.a * x
        }
        fn rhs_and_jacobian_into(
            &self,
            _x: &Vector3<f64>,
            j: &mut Matrix3<f64>,
        ) -> (Vector3<f64>, bool) {
            let analytic = {
                *j = self.a;
                true
            };
            (self.rhs(_x), analytic)
        }
    }

    #[test]
    fn stiff_problem_stable_at_ten_thousand_times_the_explicit_limit() {
        let sys = StiffLinear::new();
        let explicit_limit = 2.0 / 1e7; // explicit Euler, largest eigenvalue
        let h = explicit_limit * 1e4; // 2 ms
        let x0 = Vector3::new(1.0, -2.0, 3.0);
        let mut x = x0;
        let mut stats = Stats::default();
        let n = (1.0_f64 / h).round() as usize;
        assert!(rodas3_fixed(&sys, &mut x, h, n, &mut stats));
        let exact = sys.exact(&x0, n as f64 * h);
        let rel = (x - exact).norm() / exact.norm();
        assert!(rel < 1e-6, "relative error {rel}");

        // An explicit method at the same step blows up.
        let settings = SolverSettings {
            method: Method::ExplicitEuler,
            explicit_step: h,
            ..Default::default()
        };
        let mut y = x0;
        let r = explicit_fixed(&sys, &mut y, 1.0, &settings, &mut Stats::default());
        assert!(
            r.is_err() || y.norm() > 1e100,
            "explicit Euler did not blow up"
        );
    }

    #[test]
    fn adaptive_stiff_problem_meets_tolerance_with_few_steps() {
        let sys = StiffLinear::new();
        let x0 = Vector3::new(1.0, -2.0, 3.0);
        let mut x = x0;
        let settings = SolverSettings {
            rtol: 1e-8,
            atol: 1e-10,
            ..Default::default()
        };
        let mut carried = Carried::default();
        let mut stats = Stats::default();
        let comm = 1e-3;
        // The first 0.5 s resolve the 0.1 us and 1 ms modes from the initial
        // condition, as accuracy demands.
        for _ in 0..500 {
            advance(&sys, &mut x, comm, &settings, &mut carried, &mut stats).unwrap();
        }
        let after_transient = stats.accepted;
        for _ in 500..1000 {
            advance(&sys, &mut x, comm, &settings, &mut carried, &mut stats).unwrap();
        }
        let exact = sys.exact(&x0, 1.0);
        let rel = (x - exact).norm() / exact.norm();
        assert!(rel < 1e-6, "relative error {rel}");
        // Afterwards the step is limited by the communication step, not by
        // stability: one substep per communication step (explicit Euler
        // would need 5 million steps for this second).
        let later = stats.accepted - after_transient;
        assert!(
            later <= 550,
            "too many substeps after the transient: {later}"
        );
        assert!(stats.accepted < 5000, "substeps in all: {}", stats.accepted);
        assert!(stats.rejected < 10, "rejected substeps: {}", stats.rejected);
    }

    #[test]
    fn adaptive_carries_step_across_communication_points() {
        let mut x = Vector2::new(1.0, 1.0);
        let settings = SolverSettings {
            rtol: 1e-6,
            atol: 1e-8,
            ..Default::default()
        };
        let mut carried = Carried::default();
        let mut stats = Stats::default();
        advance(&Decay, &mut x, 0.5, &settings, &mut carried, &mut stats).unwrap();
        assert!(carried.h > 0.0);
        let first = stats;
        for _ in 0..10 {
            advance(&Decay, &mut x, 0.5, &settings, &mut carried, &mut stats).unwrap();
        }
        let exact = Vector2::new(1.0 / 6.5, (-5.5f64).exp());
        assert!((x - exact).norm() < 1e-5);
        assert!(stats.accepted - first.accepted < 10 * first.accepted.max(3));
    }

    /// Decay that counts its evaluations, with a combined f + J evaluation.
    struct CountingDecay {
        rhs: std::cell::Cell<u64>,
        combined: std::cell::Cell<u64>,
    }
    impl OdeSystem<2> for CountingDecay {
        fn rhs(&self, x: &Vector2<f64>) -> Vector2<f64> {
            self.rhs.set(self.rhs.get() + 1);
            Decay.rhs(x)
        }
        fn rhs_and_jacobian_into(
            &self,
            x: &Vector2<f64>,
            j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            self.combined.set(self.combined.get() + 1);
            Decay.rhs_and_jacobian_into(x, j)
        }
    }

    #[test]
    fn one_start_evaluation_per_accepted_substep_and_none_after_a_rejection() {
        let sys = CountingDecay {
            rhs: 0.into(),
            combined: 0.into(),
        };
        let mut x = Vector2::new(1.0, 1.0);
        let settings = SolverSettings {
            rtol: 1e-9,
            atol: 1e-12,
            ..Default::default()
        };
        // A first substep far too long for the tolerance: rejections follow.
        let mut carried = Carried::with_step(1.0);
        let mut stats = Stats::default();
        advance(&sys, &mut x, 2.0, &settings, &mut carried, &mut stats).unwrap();
        assert!(stats.rejected > 0, "no rejection to test");
        let attempts = stats.accepted + stats.rejected;
        // f and J at a substep start come from one combined evaluation, made
        // once per start point: a rejected substep retries from the same
        // point and reuses it.
        assert_eq!(sys.combined.get(), stats.accepted);
        assert_eq!(stats.jacobian_evals, stats.accepted);
        // Stages 3 and 4 evaluate f at new points in every attempt.
        assert_eq!(sys.rhs.get(), 2 * attempts);
        assert_eq!(stats.rhs_evals, stats.accepted + 2 * attempts);
        let exact = Vector2::new(1.0 / 3.0, (-2.0f64).exp());
        assert!((x - exact).norm() < 1e-7, "{x} vs {exact}");
    }

    #[test]
    fn too_many_substeps_is_reported() {
        let mut x = Vector2::new(1.0, 1.0);
        let settings = SolverSettings {
            rtol: 1e-12,
            atol: 1e-14,
            max_substeps: 3,
            ..Default::default()
        };
        let err = advance(
            &Decay,
            &mut x,
            10.0,
            &settings,
            &mut Carried::default(),
            &mut Stats::default(),
        )
        .unwrap_err();
        assert!(matches!(err, SolverError::TooManySubsteps { limit: 3, .. }));
        assert!(err.to_string().contains("max_substeps"));
    }

    /// The decay problem padded to five states, of which two are active.
    struct PaddedDecay;
    impl OdeSystem<5> for PaddedDecay {
        fn rhs(&self, x: &SVector<f64, 5>) -> SVector<f64, 5> {
            SVector::<f64, 5>::from([-x[0] * x[0], -x[1], 0.0, 0.0, 0.0])
        }
        fn rhs_and_jacobian_into(
            &self,
            x: &SVector<f64, 5>,
            j: &mut SMatrix<f64, 5, 5>,
        ) -> (SVector<f64, 5>, bool) {
            *j = {
                let mut j = SMatrix::<f64, 5, 5>::zeros();
                j[(0, 0)] = -2.0 * x[0];
                j[(1, 1)] = -1.0;
                j
            };
            (self.rhs(x), true)
        }
        fn active_states(&self) -> usize {
            2
        }
    }

    #[test]
    fn inactive_states_change_nothing() {
        let settings = SolverSettings::default();
        let mut a = Vector2::new(1.0, 1.0);
        let mut b = SVector::<f64, 5>::from([1.0, 1.0, 0.0, 0.0, 0.0]);
        let (mut ca, mut cb) = (Carried::default(), Carried::default());
        let (mut sa, mut sb) = (Stats::default(), Stats::default());
        for _ in 0..20 {
            advance(&Decay, &mut a, 0.1, &settings, &mut ca, &mut sa).unwrap();
            advance(&PaddedDecay, &mut b, 0.1, &settings, &mut cb, &mut sb).unwrap();
        }
        assert_eq!((a[0], a[1]), (b[0], b[1]));
        assert_eq!(sa, sb);
        assert_eq!((b[2], b[3], b[4]), (0.0, 0.0, 0.0));
    }

    /// A right-hand side that is undefined (NaN) above x = 2, reached at t = 1.
    struct Undefined;
    impl OdeSystem<1> for Undefined {
        fn rhs(&self, x: &SVector<f64, 1>) -> SVector<f64, 1> {
            SVector::<f64, 1>::new(if x[0] > 2.0 { f64::NAN } else { 1.0 })
        }
        fn rhs_and_jacobian_into(
            &self,
            x: &SVector<f64, 1>,
            j: &mut SMatrix<f64, 1, 1>,
        ) -> (SVector<f64, 1>, bool) {
            *j = SMatrix::<f64, 1, 1>::zeros();
            (self.rhs(x), true)
        }
    }

    #[test]
    fn undefined_right_hand_side_fails_cleanly() {
        let mut x = SVector::<f64, 1>::new(1.0);
        let r = advance(
            &Undefined,
            &mut x,
            2.0,
            &SolverSettings::default(),
            &mut Carried::default(),
            &mut Stats::default(),
        );
        assert!(
            matches!(r, Err(SolverError::StepSizeTooSmall { .. })),
            "{r:?}"
        );
        for method in [Method::ExplicitEuler, Method::Rk4] {
            let settings = SolverSettings {
                method,
                ..Default::default()
            };
            let mut x = SVector::<f64, 1>::new(1.0);
            let r = advance(
                &Undefined,
                &mut x,
                2.0,
                &settings,
                &mut Carried::default(),
                &mut Stats::default(),
            );
            assert!(matches!(r, Err(SolverError::NotFinite { .. })), "{r:?}");
        }
    }
}

#[cfg(test)]
mod finite_difference_tests {
    use super::*;
    use nalgebra::Vector2;

    /// The decay problem without an analytic Jacobian.
    struct DecayNoJacobian;
    impl OdeSystem<2> for DecayNoJacobian {
        fn rhs(&self, x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::new(-x[0] * x[0], -1e4 * (x[1] - x[0]))
        }
    }

    #[test]
    fn finite_differences_stand_in_for_a_missing_jacobian() {
        let x = Vector2::new(0.7, 0.2);
        let mut j = SMatrix::<f64, 2, 2>::zeros();
        let f = DecayNoJacobian.rhs(&x);
        assert_eq!(
            finite_difference_jacobian(&DecayNoJacobian, &x, &f, &mut j),
            2
        );
        let exact = SMatrix::<f64, 2, 2>::new(-1.4, 0.0, 1e4, -1e4);
        assert!((j - exact).abs().max() < 1e-3, "{j}");
        // A stiff run with the finite-difference Jacobian matches the exact
        // solution x0 = 1/(1 + 0.7 t) and counts its extra evaluations.
        let mut y = x;
        let mut stats = Stats::default();
        let settings = SolverSettings {
            rtol: 1e-8,
            atol: 1e-10,
            ..Default::default()
        };
        let mut carried = Carried::default();
        for _ in 0..100 {
            advance(
                &DecayNoJacobian,
                &mut y,
                0.01,
                &settings,
                &mut carried,
                &mut stats,
            )
            .unwrap();
        }
        let x0 = 0.7 / (1.0 + 0.7);
        assert!(
            (y[0] - x0).abs() < 1e-7 && (y[1] - y[0]).abs() < 1e-3,
            "{y}"
        );
        assert_eq!(
            stats.rhs_evals,
            stats.jacobian_evals * 3 + 2 * (stats.accepted + stats.rejected) + 1,
            "{stats:?}"
        );
    }
}

#[cfg(test)]
mod sampled_tests {
    use super::*;
    use nalgebra::Vector2;

    /// `x0' = -x0 + x1` with `x1` sampled every 0.1 s by
    /// `x1 <- 0.5 x1 + x0`: a continuous part driven by a held value that a
    /// discrete-time map renews.
    struct Sampled;
    impl OdeSystem<2> for Sampled {
        fn rhs(&self, x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::new(-x[0] + x[1], 0.0)
        }
        fn rhs_and_jacobian_into(
            &self,
            _x: &Vector2<f64>,
            j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            let analytic = {
                *j = SMatrix::<f64, 2, 2>::new(-1.0, 1.0, 0.0, 0.0);
                true
            };
            (self.rhs(_x), analytic)
        }
        fn sample_period(&self) -> Option<f64> {
            Some(0.1)
        }
        fn sample(&self, x: &mut Vector2<f64>) {
            x[1] = 0.5 * x[1] + x[0];
        }
    }

    /// The exact solution over `n` periods: within a period x1 is held, so
    /// x0 relaxes exponentially towards it.
    fn exact(mut x: Vector2<f64>, n: usize) -> Vector2<f64> {
        let decay = (-0.1f64).exp();
        for _ in 0..n {
            x[0] = x[1] + (x[0] - x[1]) * decay;
            x[1] = 0.5 * x[1] + x[0];
        }
        x
    }

    #[test]
    fn every_method_updates_the_sampled_part_once_per_period() {
        let start = Vector2::new(1.0, -2.0);
        for method in [
            Method::Rodas3,
            Method::ExplicitEuler,
            Method::Rk4,
            Method::RosenbrockW,
            Method::FixedCost,
            Method::RosenbrockWAhead,
        ] {
            let settings = SolverSettings {
                method,
                rtol: 1e-10,
                atol: 1e-12,
                explicit_step: 1e-4,
                fixed_substeps: 200,
                ..Default::default()
            };
            let mut x = start;
            let mut carried = Carried::default();
            let mut stats = Stats::default();
            // Two communication steps of 3 periods, then one of 1.
            for duration in [0.3, 0.3, 0.1] {
                advance(
                    &Sampled,
                    &mut x,
                    duration,
                    &settings,
                    &mut carried,
                    &mut stats,
                )
                .unwrap();
            }
            let want = exact(start, 7);
            let tol = if method == Method::ExplicitEuler {
                1e-4
            } else {
                1e-7
            };
            assert!((x - want).abs().max() < tol, "{method:?}: {x} vs {want}");
        }
    }

    /// A wholly sampled system: `x <- A x` once per 0.1 s, no rates.
    struct SampledOnly;
    impl OdeSystem<2> for SampledOnly {
        fn rhs(&self, _x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::zeros()
        }
        fn sample_period(&self) -> Option<f64> {
            Some(0.1)
        }
        fn sample(&self, x: &mut Vector2<f64>) {
            *x = Vector2::new(0.9 * x[0] + 0.1 * x[1], x[0] - 0.5 * x[1]);
        }
        fn sampled_only(&self) -> bool {
            true
        }
    }

    #[test]
    fn a_wholly_sampled_system_costs_one_sample_per_period_and_no_solver_work() {
        for method in [Method::Rodas3, Method::Rk4, Method::FixedCost] {
            let settings = SolverSettings {
                method,
                ..Default::default()
            };
            let mut x = Vector2::new(1.0, 2.0);
            let mut want = x;
            let mut stats = Stats::default();
            advance(
                &SampledOnly,
                &mut x,
                0.5,
                &settings,
                &mut Carried::default(),
                &mut stats,
            )
            .unwrap();
            for _ in 0..5 {
                SampledOnly.sample(&mut want);
            }
            assert_eq!(x, want, "{method:?}");
            assert_eq!(stats.rhs_evals, 0, "{method:?}: {stats:?}");
            assert_eq!(stats.accepted, 0, "{method:?}: {stats:?}");
        }
    }

    #[test]
    fn a_step_off_the_sample_grid_is_refused_with_the_period() {
        for duration in [0.25, 0.05, 0.0999] {
            let mut x = Vector2::new(1.0, 0.0);
            let before = x;
            let r = advance(
                &Sampled,
                &mut x,
                duration,
                &SolverSettings::default(),
                &mut Carried::default(),
                &mut Stats::default(),
            );
            let Err(e) = r else {
                panic!("{duration} accepted")
            };
            assert!(matches!(e, SolverError::OffSampleGrid { .. }), "{e:?}");
            assert!(e.to_string().contains("1e-1 s"), "{e}");
            assert_eq!(x, before);
        }
    }
}
