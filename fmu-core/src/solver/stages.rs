//! The stage loop of the Rosenbrock methods: one substep of a
//! [`Tableau`] from a state and its rates, for either way of writing the
//! stage systems ([`StageMatrix`]).
//!
//! Rodas3 solves the stages with the iteration matrix
//! `G = I / (h gamma) - J` exactly as the transformed form reads
//! ([`ShiftedJacobian`]); the methods that keep their factors between
//! substeps (ROS34PW2 and the fixed-cost Rodas3) multiply the stage
//! systems by `h gamma` and solve with `W = I - h gamma A`, whose factors
//! do not depend on the stage ([`super::reuse::Reuse`]). The two are the
//! same method in exact arithmetic and differ in the last bits; each keeps
//! its own.

use super::tableau::Tableau;
use super::{OdeSystem, Stats};
use crate::linalg::{Rows, factor_in_place, solve_in_place};
use nalgebra::{SMatrix, SVector};

/// How the stage systems of one substep are written and solved: stage `i`
/// solves `M u_i = scaled(f_i) + sum_j coupling(c_ij) u_j`.
pub(crate) trait StageMatrix<const N: usize> {
    /// The rates' part of a stage's right-hand side.
    fn scaled(&self, f: &SVector<f64, N>) -> SVector<f64, N>;

    /// The factor of an earlier stage's increment in a stage's right-hand
    /// side, for the tableau's coupling `c`.
    fn coupling(&self, c: f64) -> f64;

    /// Solves `M u = v` in place over the leading `active` states.
    fn solve(&self, active: usize, v: &mut SVector<f64, N>);
}

/// The iteration matrix `G = I / (h gamma) - J`, factorized: the stage
/// systems as the transformed form reads (Rodas3).
pub(crate) struct ShiftedJacobian<'a, const N: usize> {
    /// The LU factors of `G`.
    lu: &'a Rows<N>,
    /// Their row permutation.
    perm: [usize; N],
    /// The substep size.
    h: f64,
}

impl<'a, const N: usize> ShiftedJacobian<'a, N> {
    /// Forms `G` for the Jacobian `jac`, substep `h` and diagonal
    /// coefficient `gamma` in the caller's buffer `g` and factorizes it in
    /// place; inactive states get the identity / (h gamma) (their rows and
    /// columns of `jac` are zero and never written). `None` when `G` is
    /// singular.
    pub(crate) fn factor(
        g: &'a mut Rows<N>,
        jac: &SMatrix<f64, N, N>,
        h: f64,
        gamma: f64,
        active: usize,
    ) -> Option<Self> {
        let inv = 1.0 / (h * gamma);
        for (r, row) in g.iter_mut().enumerate().take(active) {
            for (c, v) in row.iter_mut().enumerate().take(active) {
                *v = -jac[(r, c)];
            }
            row[r] += inv;
        }
        for (i, row) in g.iter_mut().enumerate().skip(active) {
            row[i] = inv;
        }
        let perm = factor_in_place(g, active)?;
        Some(ShiftedJacobian { lu: g, perm, h })
    }
}

impl<const N: usize> StageMatrix<N> for ShiftedJacobian<'_, N> {
    #[inline]
    fn scaled(&self, f: &SVector<f64, N>) -> SVector<f64, N> {
        *f
    }

    #[inline]
    fn coupling(&self, c: f64) -> f64 {
        c / self.h
    }

    #[inline]
    fn solve(&self, active: usize, v: &mut SVector<f64, N>) {
        solve_in_place(self.lu, &self.perm, active, v);
    }
}

/// One substep of `tableau` of the system `sys` from `x`, whose rates are
/// `f0`, with the stage systems of `matrix`: the new state and the
/// embedded error estimate, or `None` when a number is not finite. Each
/// stage marked in [`Tableau::new_f`] evaluates the rates once.
#[inline]
pub(crate) fn substep<S, M, const N: usize>(
    tableau: &Tableau,
    sys: &S,
    x: &SVector<f64, N>,
    f0: &SVector<f64, N>,
    matrix: &M,
    stats: &mut Stats,
) -> Option<(SVector<f64, N>, SVector<f64, N>)>
where
    S: OdeSystem<N>,
    M: StageMatrix<N>,
{
    let active = sys.active_states().min(N);
    let mut u = [SVector::<f64, N>::zeros(); 4];
    let mut f = *f0;
    for s in 0..4 {
        if tableau.new_f[s] {
            let mut xs = *x;
            for j in 0..s {
                if tableau.a[s][j] != 0.0 {
                    xs += u[j] * tableau.a[s][j];
                }
            }
            f = sys.rates(&xs);
            stats.rhs_evals += 1;
        }
        let mut v = matrix.scaled(&f);
        for j in 0..s {
            if tableau.c[s][j] != 0.0 {
                v += u[j] * matrix.coupling(tableau.c[s][j]);
            }
        }
        matrix.solve(active, &mut v);
        u[s] = v;
    }
    let mut x_new = *x;
    let mut err = SVector::<f64, N>::zeros();
    for s in 0..4 {
        if tableau.m[s] != 0.0 {
            x_new += u[s] * tableau.m[s];
        }
        if tableau.e[s] != 0.0 {
            err += u[s] * tableau.e[s];
        }
    }
    x_new
        .iter()
        .chain(err.iter())
        .all(|v| v.is_finite())
        .then_some((x_new, err))
}
