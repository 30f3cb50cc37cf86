//! Small dense symmetric positive definite solves for the least squares.

/// Solves `A x = b` for symmetric positive definite `A` (row-major `p x p`,
/// only the lower triangle is read) by Cholesky factorisation, in place:
/// `a` is overwritten by the factor, `b` by the solution. Returns false if
/// `A` is not (numerically) positive definite.
pub(crate) fn cholesky_solve(a: &mut [f64], b: &mut [f64], p: usize) -> bool {
    debug_assert!(a.len() >= p * p && b.len() >= p);
    for j in 0..p {
        let mut d = a[j * p + j];
        for k in 0..j {
            d -= a[j * p + k] * a[j * p + k];
        }
        if d.is_nan() || d <= 0.0 || d.is_infinite() {
            return false;
        }
        let d = d.sqrt();
        a[j * p + j] = d;
        for i in j + 1..p {
            let mut s = a[i * p + j];
            for k in 0..j {
                s -= a[i * p + k] * a[j * p + k];
            }
            a[i * p + j] = s / d;
        }
    }
    // L y = b
    for i in 0..p {
        let mut s = b[i];
        for k in 0..i {
            s -= a[i * p + k] * b[k];
        }
        b[i] = s / a[i * p + i];
    }
    // L^T x = y
    for i in (0..p).rev() {
        let mut s = b[i];
        for k in i + 1..p {
            s -= a[k * p + i] * b[k];
        }
        b[i] = s / a[i * p + i];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_small_spd_system() {
        // A = M^T M + I for a fixed M; check A x = b.
        let p = 4;
        let m = [
            1.0, 2.0, 0.5, -1.0, 0.0, 1.0, 3.0, 2.0, -2.0, 0.5, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0,
        ];
        let mut a = vec![0.0; p * p];
        for i in 0..p {
            for j in 0..p {
                for k in 0..p {
                    a[i * p + j] += m[k * p + i] * m[k * p + j];
                }
            }
            a[i * p + i] += 1.0;
        }
        let x_true = [1.0, -2.0, 0.25, 3.0];
        let mut b = vec![0.0; p];
        for i in 0..p {
            for j in 0..p {
                b[i] += a[i * p + j] * x_true[j];
            }
        }
        let mut f = a.clone();
        assert!(cholesky_solve(&mut f, &mut b, p));
        for i in 0..p {
            assert!((b[i] - x_true[i]).abs() < 1e-12, "{b:?}");
        }
        let mut not_pd = vec![1.0, 2.0, 2.0, 1.0];
        let mut rhs = vec![1.0, 1.0];
        assert!(!cholesky_solve(&mut not_pd, &mut rhs, 2));
    }
}
