//! In-place LU factorization with partial pivoting for fixed-size matrices.
//!
//! nalgebra's own `lu()` needs `Const<N>: DimMin` (a typenum bound) for a
//! generic `N`, which would leak into every generic FMI function; this small
//! factorization works for any `const N` and allocates nothing.
//!
//! The matrix is a plain row-major array ([`Rows`]): elimination then
//! updates contiguous rows, and both triangular solves are dot products of
//! contiguous slices. Timed in isolation on the 9 x 9 iteration matrix of
//! the valve circuits, factorization and solve took about half the time of
//! the same algorithm over nalgebra's column-major storage.

use nalgebra::SVector;

/// Evaluates `$body` with `$k` a compile-time constant equal to `$active`
/// when the block is one of the few sizes just below the capacity `$n`
/// (a system that reserves more states than it uses, such as a circuit
/// read at run time, whose size is rounded up to a capacity), else
/// `$other` with the run-time size. The constant lets the compiler unroll
/// the loops as it does for the whole matrix; the operations and their
/// order are the same, so the results are bit-identical.
macro_rules! with_constant_block {
    ($active:expr, $n:expr, |$k:ident| $body:expr, $other:expr) => {{
        let below = $n - $active;
        // Seven sizes below the capacity: the gap between the engines'
        // successive capacities (4, 8, 12, 16, 24, 32) is at most eight.
        macro_rules! at {
            ($d:literal) => {{
                const D: usize = $d;
                if $n > D {
                    #[allow(non_snake_case)]
                    let $k: usize = $n - D;
                    $body
                } else {
                    $other
                }
            }};
        }
        match below {
            1 => at!(1),
            2 => at!(2),
            3 => at!(3),
            4 => at!(4),
            5 => at!(5),
            6 => at!(6),
            7 => at!(7),
            _ => $other,
        }
    }};
}

/// A dense `N x N` matrix stored by rows: `a[row][column]`.
pub type Rows<const N: usize> = [[f64; N]; N];

/// Factorizes `a` in place (LU with partial pivoting of the leading
/// `active` block; rows and columns from `active` on must be diagonal) and
/// returns the row permutation; `None` when singular. No copy of the
/// matrix is made: the integrators call this once per substep.
///
/// Storage of the result: the multipliers of the unit lower triangle below
/// the diagonal, the upper triangle above it, and the *reciprocals* of the
/// pivots on the diagonal (the solves then multiply instead of divide; a
/// division is the slowest link of the back substitution's dependency
/// chain).
pub fn factor_in_place<const N: usize>(a: &mut Rows<N>, active: usize) -> Option<[usize; N]> {
    // The whole matrix is the usual case; with `active` a compile-time
    // constant there, the compiler unrolls the loops of a small `N` (the
    // same operations in the same order: the results are bit-identical).
    if active >= N {
        factor_block(a, N)
    } else {
        with_constant_block!(active, N, |K| factor_block(a, K), factor_block(a, active))
    }
}

/// [`factor_in_place`]'s body, inlined into both of its calls.
#[inline(always)]
fn factor_block<const N: usize>(a: &mut Rows<N>, active: usize) -> Option<[usize; N]> {
    let mut perm = [0usize; N];
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for (i, row) in a.iter_mut().enumerate().skip(active) {
        let d = row[i];
        if d == 0.0 || !d.is_finite() {
            return None;
        }
        row[i] = 1.0 / d;
    }
    for k in 0..active {
        let mut pivot_row = k;
        let mut pivot_abs = a[k][k].abs();
        for r in k + 1..active {
            if a[r][k].abs() > pivot_abs {
                pivot_abs = a[r][k].abs();
                pivot_row = r;
            }
        }
        if pivot_abs == 0.0 || !pivot_abs.is_finite() {
            return None;
        }
        if pivot_row != k {
            a.swap(k, pivot_row);
            perm.swap(k, pivot_row);
        }
        let inv_pivot = 1.0 / a[k][k];
        a[k][k] = inv_pivot;
        // Every later row of the block loses its multiple of row k; the
        // multiplier is kept where the eliminated entry was. Plain index
        // loops over a copy of the pivot row: with a constant `active` the
        // compiler unrolls them and drops the bounds checks.
        let pivot = a[k];
        for r in k + 1..active {
            let m = a[r][k] * inv_pivot;
            a[r][k] = m;
            if m != 0.0 {
                for c in k + 1..active {
                    a[r][c] -= m * pivot[c];
                }
            }
        }
    }
    Some(perm)
}

/// Solves `A x = b` with a factorization from [`factor_in_place`];
/// `b` is overwritten with the solution.
pub fn solve_in_place<const N: usize>(
    lu: &Rows<N>,
    perm: &[usize; N],
    active: usize,
    b: &mut SVector<f64, N>,
) {
    // As in factor_in_place: a compile-time `k` in the usual case.
    if active >= N {
        solve_block(lu, perm, N, b);
    } else {
        with_constant_block!(
            active,
            N,
            |K| solve_block(lu, perm, K, b),
            solve_block(lu, perm, active, b)
        );
    }
}

/// [`solve_in_place`]'s body, inlined into both of its calls.
#[inline(always)]
fn solve_block<const N: usize>(lu: &Rows<N>, perm: &[usize; N], k: usize, b: &mut SVector<f64, N>) {
    let mut x = [0.0; N];
    for (xi, &p) in x.iter_mut().zip(perm) {
        *xi = b[p];
    }
    // Forward substitution with the unit lower triangle.
    for i in 1..k {
        let (done, rest) = x.split_at_mut(i);
        let s: f64 = lu[i][..i].iter().zip(done.iter()).map(|(l, y)| l * y).sum();
        rest[0] -= s;
    }
    // Back substitution with the upper triangle (reciprocal pivots).
    for i in (0..k).rev() {
        let (head, tail) = x.split_at_mut(i + 1);
        let s: f64 = lu[i][i + 1..k]
            .iter()
            .zip(&tail[..k - i - 1])
            .map(|(u, y)| u * y)
            .sum();
        head[i] = (head[i] - s) * lu[i][i];
    }
    for (i, xi) in x.iter_mut().enumerate().take(N).skip(k) {
        *xi *= lu[i][i];
    }
    *b = SVector::from(x);
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix3, SMatrix, Vector3};

    /// The rows of a nalgebra matrix.
    fn rows_of<const N: usize>(m: &SMatrix<f64, N, N>) -> Rows<N> {
        std::array::from_fn(|r| std::array::from_fn(|c| m[(r, c)]))
    }

    fn solve(a: SMatrix<f64, 3, 3>, b: Vector3<f64>) -> Option<Vector3<f64>> {
        let mut m = rows_of(&a);
        let perm = factor_in_place(&mut m, 3)?;
        let mut x = b;
        solve_in_place(&m, &perm, 3, &mut x);
        Some(x)
    }

    /// A leading block of every size below the capacity: the unrolled
    /// path ([`with_constant_block!`]) gives the run-time loops' factors
    /// and solutions bit for bit, and solves the system.
    #[test]
    fn every_block_size_below_the_capacity_is_bit_identical() {
        const N: usize = 12;
        let entry = |r: usize, c: usize| {
            // Deterministic, pivoting needed (small diagonal).
            let v = ((r * 7 + c * 13 + 3) % 17) as f64 - 8.0;
            if r == c { 0.01 * v } else { v }
        };
        for active in 1..=N {
            let mut a = [[0.0; N]; N];
            for (r, row) in a.iter_mut().enumerate() {
                for (c, v) in row.iter_mut().enumerate() {
                    *v = if r < active && c < active {
                        entry(r, c)
                    } else if r == c {
                        2.0 + r as f64
                    } else {
                        0.0
                    };
                }
            }
            let original = a;
            let mut run_time = a;
            let perm_run_time = factor_block(&mut run_time, active).unwrap();
            let perm = factor_in_place(&mut a, active).unwrap();
            assert_eq!(perm, perm_run_time, "active {active}");
            assert_eq!(a, run_time, "active {active}");
            let b = SVector::<f64, N>::from_fn(|r, _| r as f64 - 3.5);
            let (mut x, mut x_run_time) = (b, b);
            solve_in_place(&a, &perm, active, &mut x);
            solve_block(&run_time, &perm, active, &mut x_run_time);
            assert_eq!(x, x_run_time, "active {active}");
            let residual = SMatrix::<f64, N, N>::from_fn(|r, c| original[r][c]) * x - b;
            assert!(
                residual.norm() < 1e-9,
                "active {active}: residual {residual}"
            );
        }
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
            let mut m = rows_of(&a);
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
            let mut m = rows_of(&a);
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
