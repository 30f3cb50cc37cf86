//! The fixed-cost method, [`Method::FixedCost`](super::Method) (Rodas3's
//! coefficients): `fixed_substeps` equal substeps per `doStep`; the rates
//! and the Jacobian are evaluated once at its start and `W` is factorized
//! once; no error estimate, no rejection, no data-dependent branch in the
//! amount of work (the explicit inverse, from the second substep on, is
//! part of every `doStep` with more than one substep). The first substep
//! is exact Rodas3, the later ones of a `doStep` reuse its Jacobian.

use super::reuse::reuse_of;
use super::tableau::RODAS3;
use super::{Carried, OdeSystem, SolverError, SolverSettings, Stats};
use nalgebra::SVector;

/// [`Method::FixedCost`](super::Method): `fixed_substeps` equal Rodas3
/// substeps with one evaluation of `f` and the Jacobian and one LU at the
/// start; no error estimate, no rejection. Work per call for `n`
/// substeps: one evaluation of `f` with the Jacobian, one LU, `3n - 1`
/// further evaluations of `f` and `4n` solves.
pub(super) fn fixed_cost<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &mut SVector<f64, N>,
    duration: f64,
    settings: &SolverSettings,
    carried: &mut Carried<N>,
    stats: &mut Stats,
) -> Result<(), SolverError> {
    let tableau = &RODAS3;
    let n = settings.fixed_substeps.max(1);
    let h = duration / f64::from(n);
    let active = sys.active_states().min(N);
    let r = reuse_of(carried);
    let mut f = r.refresh(sys, x, stats);
    if !r.factor(h, tableau.gamma, active) {
        r.forget();
        return Err(SolverError::SingularMatrix { t: 0.0 });
    }
    stats.factorizations += 1;
    let nominal = sys.nominal();
    r.used(active, &nominal);
    for i in 0..n {
        if i > 0 {
            f = sys.rates(x);
            stats.rhs_evals += 1;
            r.used(active, &nominal);
        }
        let Some((x_new, _)) = r.step(tableau, sys, x, &f, h, stats) else {
            r.forget();
            return Err(SolverError::NotFinite {
                t: f64::from(i + 1) * h,
            });
        };
        *x = x_new;
        stats.accepted += 1;
        r.age();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::test_systems::Decay;
    use super::super::{Method, advance};
    use super::*;
    use nalgebra::{SMatrix, Vector2};

    #[test]
    fn fixed_cost_does_the_same_work_every_call() {
        let sys = Decay {
            jacobian_scale: 1.0,
        };
        let settings = SolverSettings {
            method: Method::FixedCost,
            fixed_substeps: 3,
            ..Default::default()
        };
        let mut x = Vector2::new(1.0, 1.0);
        let mut carried = Carried::default();
        let mut previous = Stats::default();
        let mut stats = Stats::default();
        for _ in 0..20 {
            advance(&sys, &mut x, 0.1, &settings, &mut carried, &mut stats).unwrap();
            assert_eq!(stats.jacobian_evals - previous.jacobian_evals, 1);
            assert_eq!(stats.factorizations - previous.factorizations, 1);
            // f with the Jacobian, then 3n - 1 more.
            assert_eq!(stats.rhs_evals - previous.rhs_evals, 1 + 8);
            assert_eq!(stats.accepted - previous.accepted, 3);
            assert_eq!(stats.rejected, 0);
            previous = stats;
        }
        let exact = Vector2::new(1.0 / 3.0, (-2.0f64).exp());
        assert!((x - exact).norm() < 1e-4, "{x} vs {exact}");
        // Rodas3's order 3 at one substep per call.
        let mut error = |n: u32| {
            let settings = SolverSettings {
                method: Method::FixedCost,
                ..Default::default()
            };
            let mut x = Vector2::new(1.0, 1.0);
            let mut carried = Carried::default();
            for _ in 0..n {
                let d = 2.0 / f64::from(n);
                advance(&sys, &mut x, d, &settings, &mut carried, &mut stats).unwrap();
            }
            (x - exact).norm()
        };
        let order = (error(40) / error(80)).log2();
        assert!((order - 3.0).abs() < 0.2, "order {order}");
    }

    #[test]
    fn a_singular_iteration_matrix_is_an_error_of_the_fixed_method() {
        // f = x / (h gamma) makes W = I - h gamma J singular.
        struct Singular;
        impl OdeSystem<1> for Singular {
            fn rates(&self, x: &SVector<f64, 1>) -> SVector<f64, 1> {
                x * 2.0
            }
            fn rates_and_jacobian(
                &self,
                x: &SVector<f64, 1>,
                j: &mut SMatrix<f64, 1, 1>,
            ) -> (SVector<f64, 1>, bool) {
                j[(0, 0)] = 2.0;
                (self.rates(x), true)
            }
        }
        let settings = SolverSettings {
            method: Method::FixedCost,
            ..Default::default()
        };
        let mut x = SVector::<f64, 1>::new(1.0);
        let r = advance(
            &Singular,
            &mut x,
            1.0,
            &settings,
            &mut Carried::default(),
            &mut Stats::default(),
        );
        assert!(
            matches!(r, Err(SolverError::SingularMatrix { .. })),
            "{r:?}"
        );
        assert!(r.unwrap_err().to_string().contains("singular"));
    }
}
