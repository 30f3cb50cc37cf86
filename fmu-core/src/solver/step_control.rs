//! The step-size control of the adaptive Rosenbrock methods: the first
//! substep's size, the weighted error norm, the factor from one substep's
//! size to the next, and landing on the communication point.

use super::tableau::ERROR_ORDER;
use super::{OdeSystem, SolverSettings, Stats};
use nalgebra::SVector;

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

/// A first substep guess from the size of the state and its rates.
pub(crate) fn initial_step<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &SVector<f64, N>,
    duration: f64,
    settings: &SolverSettings,
    stats: &mut Stats,
) -> f64 {
    let nominal = sys.nominal();
    let f = sys.rates(x);
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

/// The size of the first substep of a communication step: the one carried
/// over from the previous step when there is one, else
/// [`initial_step`]'s guess.
pub(crate) fn first_step<S: OdeSystem<N>, const N: usize>(
    carried_h: f64,
    sys: &S,
    x: &SVector<f64, N>,
    duration: f64,
    settings: &SolverSettings,
    stats: &mut Stats,
) -> f64 {
    if carried_h > 0.0 && carried_h.is_finite() {
        carried_h
    } else {
        initial_step(sys, x, duration, settings, stats)
    }
}

/// The smallest substep the adaptive methods take over a communication
/// step of `duration` seconds; below it they fail.
pub(crate) fn smallest_step(duration: f64) -> f64 {
    (duration * 1e-12).max(ABSOLUTE_SMALLEST_STEP)
}

/// The floor of [`smallest_step`] whatever the communication step, s.
pub(crate) const ABSOLUTE_SMALLEST_STEP: f64 = 1e-15;

/// The next substep towards a communication point `remaining` seconds
/// away, for a proposed size `h`: whether it is the last one, and its size.
/// The last substep lands exactly on the point (taking up to 1 % more than
/// proposed); a proposal beyond half the way is cut to half of it, so that
/// no sliver of a last substep is left.
pub(crate) fn toward_point(h: f64, remaining: f64) -> (bool, f64) {
    let last = h * 1.01 >= remaining;
    let h_try = if last {
        remaining
    } else if 2.0 * h > remaining {
        0.5 * remaining
    } else {
        h
    };
    (last, h_try)
}

/// The substep size after an accepted substep of size `h_try` that was
/// tried for the proposal `h`, with step factor `factor`: a truncated last
/// substep says little about the step the solution allows, so the larger
/// proposal is kept then.
pub(crate) fn after_accepted(h: f64, h_try: f64, last: bool, factor: f64) -> f64 {
    let h_next = h_try * factor;
    if last && h_try < h {
        h.max(h_next)
    } else {
        h_next
    }
}

/// The step-size factor of the adaptive methods, `0.9 e^(-1/3)` for the
/// error norm `e` (the embedded estimates are of order 2: the norm grows
/// as `h^3`), within bounds. The two methods take the cube root each in
/// its own way; the results differ in the last bits, so each keeps its
/// own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Controller {
    /// `e^(-1/ERROR_ORDER)` by a power (Rodas3).
    Power,
    /// `1 / cbrt(e)` (ROS34PW2).
    CubeRoot,
}

impl Controller {
    /// `0.9 e^(-1/3)`, unbounded.
    #[inline]
    fn factor(self, e: f64) -> f64 {
        match self {
            Controller::Power => 0.9 * e.powf(-1.0 / ERROR_ORDER),
            Controller::CubeRoot => 0.9 / e.cbrt(),
        }
    }

    /// The factor after an accepted substep with error norm `e <= 1`:
    /// between 0.2 and 5, no growth right after a rejection.
    pub(crate) fn accepted(self, e: f64, rejected_last: bool) -> f64 {
        let max_growth = if rejected_last { 1.0 } else { 5.0 };
        self.factor(e.max(1e-10)).clamp(0.2, max_growth)
    }

    /// The factor after a substep rejected with the finite error norm
    /// `e > 1`: between 0.1 and 0.9.
    pub(crate) fn rejected(self, e: f64) -> f64 {
        self.factor(e).clamp(0.1, 0.9)
    }
}

/// The cut of a substep whose iteration matrix is singular or whose
/// result is not finite.
pub(crate) const HARD_CUT: f64 = 0.25;
