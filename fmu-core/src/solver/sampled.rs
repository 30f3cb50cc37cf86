//! Systems with a sampled part (a trained discrete-time surrogate in place
//! of a stiff equation): the continuous part over each sample period with
//! the sampled states held, then the sampled update.

use super::{Carried, Method, OdeSystem, SolverError, SolverSettings, Stats, advance_continuous};
use nalgebra::SVector;

/// [`advance`] for a system with a sampled part: the continuous part over
/// each period with the sampled states held, then the sampled update.
/// Stepping past communication points ([`Method::RosenbrockWAhead`]) would
/// cross sample instants: it steps as [`Method::RosenbrockW`] here.
pub(super) fn advance_sampled<S: OdeSystem<N>, const N: usize>(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::advance;
    use nalgebra::SMatrix;
    use nalgebra::Vector2;

    /// `x0' = -x0 + x1` with `x1` sampled every 0.1 s by
    /// `x1 <- 0.5 x1 + x0`: a continuous part driven by a held value that a
    /// discrete-time map renews.
    struct Sampled;
    impl OdeSystem<2> for Sampled {
        fn rates(&self, x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::new(-x[0] + x[1], 0.0)
        }
        fn rates_and_jacobian(
            &self,
            _x: &Vector2<f64>,
            j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            let analytic = {
                *j = SMatrix::<f64, 2, 2>::new(-1.0, 1.0, 0.0, 0.0);
                true
            };
            (self.rates(_x), analytic)
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
        fn rates(&self, _x: &Vector2<f64>) -> Vector2<f64> {
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
