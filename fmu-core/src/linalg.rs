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
///
/// Storage of the result: the multipliers of the unit lower triangle below
/// the diagonal, the upper triangle above it, and the *reciprocals* of the
/// pivots on the diagonal (the solves then multiply instead of divide; a
/// division is the slowest link of the back substitution's dependency
/// chain). The loops run down the columns of nalgebra's column-major storage
/// (contiguous slices, no per-element bounds checks).
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
        a[(i, i)] = 1.0 / d;
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
        let data = a.as_mut_slice();
        // Column k below the pivot becomes the multipliers ...
        let (left, right) = data.split_at_mut((k + 1) * N);
        let col_k = &mut left[k * N..];
        let inv_pivot = 1.0 / col_k[k];
        col_k[k] = inv_pivot;
        for m in &mut col_k[k + 1..active] {
            *m *= inv_pivot;
        }
        let multipliers = &col_k[k + 1..active];
        // ... and every later column of the block loses multiple of row k.
        for col in right.chunks_exact_mut(N).take(active - k - 1) {
            let akc = col[k];
            if akc != 0.0 {
                for (x, m) in col[k + 1..active].iter_mut().zip(multipliers) {
                    *x -= m * akc;
                }
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
    let mut x = [0.0; N];
    for (xi, &p) in x.iter_mut().zip(perm) {
        *xi = b[p];
    }
    let data = lu.as_slice();
    // Forward substitution with the unit lower triangle, column by column.
    for j in 0..k {
        let xj = x[j];
        if xj != 0.0 {
            let col = &data[j * N + j + 1..j * N + k];
            for (xi, l) in x[j + 1..k].iter_mut().zip(col) {
                *xi -= l * xj;
            }
        }
    }
    // Back substitution with the upper triangle, column by column.
    for j in (0..k).rev() {
        x[j] *= data[j * N + j];
        let xj = x[j];
        if xj != 0.0 {
            let col = &data[j * N..j * N + j];
            for (xi, u) in x[..j].iter_mut().zip(col) {
                *xi -= u * xj;
            }
        }
    }
    for i in k..N {
        x[i] *= data[i * N + i];
    }
    *b = SVector::from(x);
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
    fn agrees_with_nalgebra_on_pivoting_systems() {
        // Deterministic pseudo-random 9x9 systems with tiny leading
        // diagonals (every step pivots), solved against nalgebra's LU.
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for case in 0..50 {
            let mut a = SMatrix::<f64, 9, 9>::from_fn(|_, _| next());
            for i in 0..9 {
                a[(i, i)] *= 1e-3 * (case % 3) as f64;
            }
            let b = SVector::<f64, 9>::from_fn(|_, _| next());
            let expected = a.lu().solve(&b).unwrap();
            let mut m = a;
            let perm = factor_in_place(&mut m, 9).unwrap();
            let mut x = b;
            solve_in_place(&m, &perm, 9, &mut x);
            assert!(
                (x - expected).norm() <= 1e-10 * expected.norm(),
                "case {case}"
            );
        }
    }

    #[test]
    fn singular_matrix_is_detected() {
        let a = Matrix3::new(1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 1.0, 1.0);
        assert!(solve(a, Vector3::zeros()).is_none());
        assert!(solve(Matrix3::from_element(f64::NAN), Vector3::zeros()).is_none());
    }
}
