//! Per-column affine maps between physical values and [-1, 1].

/// Maps each column of physical values to [-1, 1] by its range (lo, hi), as
/// MATLAB's `mapminmax`: `y = 2 (x - lo) / (hi - lo) - 1`.
///
/// A constant column (`hi == lo`) maps every value to 0, with a zero
/// derivative, and maps back to `lo`. Values outside [lo, hi] map outside
/// [-1, 1]: nothing is clamped.
#[derive(Debug, Clone, PartialEq)]
pub struct Scaling {
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl Scaling {
    /// A scaling from the range of each column. Fails if the lengths differ,
    /// a bound is not finite, or `hi < lo` in some column.
    pub fn new(lo: Vec<f64>, hi: Vec<f64>) -> Result<Self, String> {
        if lo.len() != hi.len() {
            return Err(format!(
                "scaling: {} lower bounds but {} upper bounds",
                lo.len(),
                hi.len()
            ));
        }
        for (j, (&l, &h)) in lo.iter().zip(&hi).enumerate() {
            if !l.is_finite() || !h.is_finite() {
                return Err(format!(
                    "scaling: column {j} has a bound that is not finite (lo {l:?}, hi {h:?})"
                ));
            }
            if h < l {
                return Err(format!(
                    "scaling: column {j} has hi < lo (lo {l:?}, hi {h:?})"
                ));
            }
            if (h - l).is_infinite() {
                return Err(format!(
                    "scaling: column {j} has a range too wide for f64 (lo {l:?}, hi {h:?})"
                ));
            }
        }
        Ok(Self { lo, hi })
    }

    /// The range of each of the `n_cols` columns of the row-major matrix
    /// `rows`, over the rows listed in `which` (all rows if `None`).
    ///
    /// # Panics
    /// If `rows.len()` is not a multiple of `n_cols`, a listed row does not
    /// exist, or no row is selected.
    pub fn from_rows(rows: &[f64], n_cols: usize, which: Option<&[usize]>) -> Self {
        assert!(n_cols > 0 && rows.len().is_multiple_of(n_cols));
        let mut lo = vec![f64::INFINITY; n_cols];
        let mut hi = vec![f64::NEG_INFINITY; n_cols];
        let mut visit = |r: usize| {
            let row = &rows[r * n_cols..(r + 1) * n_cols];
            for j in 0..n_cols {
                lo[j] = lo[j].min(row[j]);
                hi[j] = hi[j].max(row[j]);
            }
        };
        match which {
            Some(list) => list.iter().for_each(|&r| visit(r)),
            None => (0..rows.len() / n_cols).for_each(&mut visit),
        }
        assert!(lo.iter().all(|v| v.is_finite()), "no rows selected");
        Self { lo, hi }
    }

    /// Number of columns.
    pub fn len(&self) -> usize {
        self.lo.len()
    }

    /// Whether the scaling has no columns.
    pub fn is_empty(&self) -> bool {
        self.lo.is_empty()
    }

    /// Lower bound of each column.
    pub fn lo(&self) -> &[f64] {
        &self.lo
    }

    /// Upper bound of each column.
    pub fn hi(&self) -> &[f64] {
        &self.hi
    }

    /// Normalized value of physical value `x` in column `j`.
    #[inline]
    pub fn forward(&self, j: usize, x: f64) -> f64 {
        let (lo, hi) = (self.lo[j], self.hi[j]);
        if hi > lo {
            2.0 * (x - lo) / (hi - lo) - 1.0
        } else {
            0.0
        }
    }

    /// Physical value of normalized value `y` in column `j`.
    #[inline]
    pub fn inverse(&self, j: usize, y: f64) -> f64 {
        let (lo, hi) = (self.lo[j], self.hi[j]);
        if hi > lo {
            lo + (y + 1.0) * 0.5 * (hi - lo)
        } else {
            lo
        }
    }

    /// Derivative of [`forward`](Self::forward) in column `j`:
    /// `2 / (hi - lo)`, or 0 for a constant column.
    #[inline]
    pub fn factor(&self, j: usize) -> f64 {
        let (lo, hi) = (self.lo[j], self.hi[j]);
        if hi > lo { 2.0 / (hi - lo) } else { 0.0 }
    }

    /// Derivative of [`inverse`](Self::inverse) in column `j`: `(hi - lo) / 2`.
    #[inline]
    pub fn inverse_factor(&self, j: usize) -> f64 {
        0.5 * (self.hi[j] - self.lo[j])
    }

    /// Normalizes a whole row: `y[j] = forward(j, x[j])`.
    ///
    /// # Panics
    /// If a slice's length differs from [`len`](Self::len).
    pub fn forward_slice(&self, x: &[f64], y: &mut [f64]) {
        assert_eq!(x.len(), self.len(), "scaling: wrong input length");
        assert_eq!(y.len(), self.len(), "scaling: wrong output length");
        for j in 0..x.len() {
            y[j] = self.forward(j, x[j]);
        }
    }

    /// Maps a whole normalized row back: `x[j] = inverse(j, y[j])`.
    ///
    /// # Panics
    /// If a slice's length differs from [`len`](Self::len).
    pub fn inverse_slice(&self, y: &[f64], x: &mut [f64]) {
        assert_eq!(y.len(), self.len(), "scaling: wrong input length");
        assert_eq!(x.len(), self.len(), "scaling: wrong output length");
        for j in 0..y.len() {
            x[j] = self.inverse(j, y[j]);
        }
    }
}
