//! In-place LU factorization with partial pivoting for fixed-size matrices.
//!
//! nalgebra's own `lu()` needs `Const<N>: DimMin` (a typenum bound) for a
//! generic `N`, which would leak into every generic FMI function; this small
//! factorization works for any `const N` and allocates nothing.

use nalgebra::{SMatrix, SVector};

/// Factorizes `a` in place (LU with partial pivoting of the leading
/// `active` block; rows and columns from `active` on must be diagonal) and
/// returns the row permutation; `None` when singular. No copy of the
/// matrix is made: the integrators call this once per substep.
pub fn factor_in_place<const N: usize>(
    a: &mut SMatrix<f64, N, N>,
    active: usize,
) -> Option<[usize; N]> {
    let active = active.min(N);
    let mut perm = [0usize; N];
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for i in active..N {
        let d = a[(i, i)];
        if d == 0.0 || !d.is_finite() {
            return None;
        }
    }
    for k in 0..active {
        let mut pivot_row = k;
        let mut pivot_abs = a[(k, k)].abs();
        for r in (k + 1)..active {
            if a[(r, k)].abs() > pivot_abs {
                pivot_abs = a[(r, k)].abs();
                pivot_row = r;
            }
        }
        if pivot_abs == 0.0 || !pivot_abs.is_finite() {
            return None;
        }
        if pivot_row != k {
            a.swap_rows(k, pivot_row);
            perm.swap(k, pivot_row);
        }
        let pivot = a[(k, k)];
        for r in (k + 1)..active {
            let factor = a[(r, k)] / pivot;
            a[(r, k)] = factor;
            for c in (k + 1)..active {
                a[(r, c)] -= factor * a[(k, c)];
            }
        }
    }
    Some(perm)
}

/// Solves `A x = b` with a factorization from [`factor_in_place`];
/// `b` is overwritten with the solution.
pub fn solve_in_place<const N: usize>(
    lu: &SMatrix<f64, N, N>,
    perm: &[usize; N],
    active: usize,
    b: &mut SVector<f64, N>,
) {
    let k = active.min(N);
    let mut x = SVector::<f64, N>::zeros();
    for i in 0..N {
        x[i] = b[perm[i]];
    }
    for i in 0..k {
        for j in 0..i {
            x[i] -= lu[(i, j)] * x[j];
        }
    }
    for i in (0..k).rev() {
        for j in (i + 1)..k {
            x[i] -= lu[(i, j)] * x[j];
        }
        x[i] /= lu[(i, i)];
    }
    for i in k..N {
        x[i] /= lu[(i, i)];
    }
    *b = x;
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix3, Vector3};

    fn solve(a: SMatrix<f64, 3, 3>, b: Vector3<f64>) -> Option<Vector3<f64>> {
        let mut m = a;
        let perm = factor_in_place(&mut m, 3)?;
        let mut x = b;
        solve_in_place(&m, &perm, 3, &mut x);
        Some(x)
    }

    #[test]
    fn solves_a_system_that_needs_pivoting() {
        let a = Matrix3::new(0.0, 2.0, 1.0, 1e-3, 1.0, 4.0, 3.0, -1.0, 0.5);
        let x = Vector3::new(1.0, -2.0, 0.25);
        let b = a * x;
        assert!((solve(a, b).unwrap() - x).norm() < 1e-12);
    }

    #[test]
    fn leading_block_with_a_diagonal_tail() {
        let mut a = SMatrix::<f64, 4, 4>::zeros();
        a[(0, 0)] = 0.0;
        a[(0, 1)] = 2.0;
        a[(1, 0)] = 3.0;
        a[(1, 1)] = 1.0;
        a[(2, 2)] = 4.0;
        a[(3, 3)] = -5.0;
        let x = SVector::<f64, 4>::new(1.0, -1.0, 2.0, 3.0);
        let b = a * x;
        for active in [2, 4] {
            let mut m = a;
            let perm = factor_in_place(&mut m, active).unwrap();
            let mut y = b;
            solve_in_place(&m, &perm, active, &mut y);
            assert!((y - x).norm() < 1e-12, "in place, active {active}");
        }
    }

    #[test]
    fn singular_matrix_is_detected() {
        let a = Matrix3::new(1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 1.0, 1.0);
        assert!(solve(a, Vector3::zeros()).is_none());
        assert!(solve(Matrix3::from_element(f64::NAN), Vector3::zeros()).is_none());
    }
}
