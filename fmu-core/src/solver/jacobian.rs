//! The Jacobian of the rates as the implicit integrators take it: the
//! system's analytic one in one evaluation with the rates, or forward
//! differences when it has none.

use super::{OdeSystem, Stats};
use nalgebra::{SMatrix, SVector};

/// `f(x)`, returned, and the Jacobian at `x`, written into `jac`: the
/// model's analytic one, or forward differences when it has none. Counts
/// the evaluations.
pub(crate) fn evaluate<S: OdeSystem<N>, const N: usize>(
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
    let (f, analytic) = sys.rates_and_jacobian(x, jac);
    stats.rhs_evals += 1;
    stats.jacobian_evals += 1;
    if !analytic {
        stats.rhs_evals += finite_difference_jacobian(sys, x, &f, jac);
    }
    f
}

/// The Jacobian of `sys` at `x` by forward differences, given `f = f(x)`:
/// the fallback for systems without an analytic one. Each active state is
/// perturbed by `sqrt(eps) * max(|x_i|, nominal_i)`; returns the number of
/// evaluations of the rates used.
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
        let fp = sys.rates(&xp);
        for r in 0..active {
            j[(r, c)] = (fp[r] - f[r]) / h;
        }
        xp[c] = x[c];
    }
    active as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{Carried, SolverSettings, advance};
    use nalgebra::Vector2;

    /// The decay problem without an analytic Jacobian.
    struct DecayNoJacobian;
    impl OdeSystem<2> for DecayNoJacobian {
        fn rates(&self, x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::new(-x[0] * x[0], -1e4 * (x[1] - x[0]))
        }
    }

    #[test]
    fn finite_differences_stand_in_for_a_missing_jacobian() {
        let x = Vector2::new(0.7, 0.2);
        let mut j = SMatrix::<f64, 2, 2>::zeros();
        let f = DecayNoJacobian.rates(&x);
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
