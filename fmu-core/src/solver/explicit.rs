//! The explicit fixed-step baselines, explicit Euler and the classical
//! 4th-order Runge-Kutta method: how the source papers integrated.

use super::{Method, OdeSystem, SolverError, SolverSettings, Stats};
use nalgebra::SVector;

/// Explicit fixed-step integration: `n = ceil(duration / explicit_step)`
/// equal steps.
pub(super) fn explicit_fixed<S: OdeSystem<N>, const N: usize>(
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
                *x += sys.rates(x) * h;
                stats.rhs_evals += 1;
            }
            _ => {
                let k1 = sys.rates(x);
                let k2 = sys.rates(&(*x + k1 * (0.5 * h)));
                let k3 = sys.rates(&(*x + k2 * (0.5 * h)));
                let k4 = sys.rates(&(*x + k3 * h));
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
