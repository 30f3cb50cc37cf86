//! The discrete extended Kalman filter of the state estimator (the method
//! of Khadim et al. (2021); docs/digital-twin.md): prediction `P- = F P+ F^T + Q` with the
//! transition Jacobian `F` the caller computes (from an FMU's directional
//! derivatives), and the measurement update in Joseph form
//! `P+ = (I - K H) P- (I - K H)^T + K R K^T`, which keeps the covariance
//! symmetric and positive semi-definite under round-off.
//!
//! The filter refuses to go on, with a message, when it diverges: a
//! covariance that is not symmetric positive definite (its Cholesky
//! factorization fails), an innovation covariance that cannot be inverted,
//! or an innovation whose normalized square (NIS, chi-square distributed
//! with as many degrees of freedom as measurements) is beyond a bound.
//!
//! Sizes are known only at run time (the augmented state of the estimator
//! has as many control points as the configuration asks for), so the
//! matrices are nalgebra's dynamic ones; the filter runs at 1 kHz on
//! about ten states, where their cost does not matter.

use fmu_core::nalgebra::{DMatrix, DVector};

/// Why the filter stopped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FilterError {
    /// Matrix or vector sizes do not fit the filter's state count.
    #[error("{0}")]
    Shape(String),
    /// The covariance lost symmetric positive definiteness.
    #[error("the {0} covariance is not positive definite (the filter diverged)")]
    NotPositiveDefinite(&'static str),
    /// The innovation covariance `H P H^T + R` cannot be inverted.
    #[error("the innovation covariance is singular")]
    SingularInnovation,
    /// The normalized innovation squared exceeded its bound.
    #[error(
        "the normalized innovation squared is {nis}, beyond the bound {bound} for \
         {measurements} measurement(s): the measurements no longer fit the model (diverged)"
    )]
    InnovationBeyondBound {
        /// `nu^T S^-1 nu`.
        nis: f64,
        /// The bound in force.
        bound: f64,
        /// The number of measurements.
        measurements: usize,
    },
    /// A number became NaN or infinite.
    #[error("a {0} value is not finite")]
    NotFinite(&'static str),
}

/// What one update did: the innovation and its normalized square.
#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    /// `z - h(x-)`.
    pub innovation: DVector<f64>,
    /// `nu^T S^-1 nu`.
    pub nis: f64,
}

/// The state estimate and its covariance.
#[derive(Debug, Clone, PartialEq)]
pub struct Ekf {
    /// The state estimate.
    pub x: DVector<f64>,
    /// Its covariance.
    pub p: DMatrix<f64>,
    /// The largest normalized innovation squared accepted (infinite: no
    /// bound).
    pub nis_bound: f64,
}

impl Ekf {
    /// A filter at `x0` with covariance `p0` (symmetric positive
    /// definite).
    pub fn new(x0: DVector<f64>, p0: DMatrix<f64>) -> Result<Self, FilterError> {
        let n = x0.len();
        if p0.shape() != (n, n) {
            return Err(FilterError::Shape(format!(
                "P0 is {:?}, the state has {n} entries",
                p0.shape()
            )));
        }
        check_covariance(&p0, "initial")?;
        Ok(Ekf {
            x: x0,
            p: p0,
            nis_bound: f64::INFINITY,
        })
    }

    /// Prediction: the state becomes `x_next` (the model integrated over
    /// the sample period), the covariance `F P F^T + Q`.
    pub fn predict(
        &mut self,
        x_next: DVector<f64>,
        f: &DMatrix<f64>,
        q: &DMatrix<f64>,
    ) -> Result<(), FilterError> {
        let n = self.x.len();
        if x_next.len() != n || f.shape() != (n, n) || q.shape() != (n, n) {
            return Err(FilterError::Shape(format!(
                "prediction: x {} , F {:?}, Q {:?} for {n} states",
                x_next.len(),
                f.shape(),
                q.shape()
            )));
        }
        if !x_next.iter().all(|v| v.is_finite()) {
            return Err(FilterError::NotFinite("predicted state"));
        }
        let p = f * &self.p * f.transpose() + q;
        let p = symmetrize(p);
        check_covariance(&p, "predicted")?;
        self.x = x_next;
        self.p = p;
        Ok(())
    }

    /// Measurement update with measurement `z`, its prediction `h` =
    /// h(x-), the measurement Jacobian `jac` (m x n) and the measurement
    /// noise covariance `r` (m x m), in Joseph form.
    pub fn update(
        &mut self,
        z: &DVector<f64>,
        h: &DVector<f64>,
        jac: &DMatrix<f64>,
        r: &DMatrix<f64>,
    ) -> Result<Update, FilterError> {
        let n = self.x.len();
        let m = z.len();
        if h.len() != m || jac.shape() != (m, n) || r.shape() != (m, m) {
            return Err(FilterError::Shape(format!(
                "update: z {m}, h(x) {}, H {:?}, R {:?} for {n} states",
                h.len(),
                jac.shape(),
                r.shape()
            )));
        }
        let nu = z - h;
        if !nu.iter().all(|v| v.is_finite()) {
            return Err(FilterError::NotFinite("innovation"));
        }
        let pht = &self.p * jac.transpose();
        let s = symmetrize(jac * &pht + r);
        let s_inv = s
            .clone()
            .cholesky()
            .ok_or(FilterError::SingularInnovation)?
            .inverse();
        let nis = (nu.transpose() * &s_inv * &nu)[(0, 0)];
        // (NaN never passes.)
        if nis.is_nan() || nis > self.nis_bound {
            return Err(FilterError::InnovationBeyondBound {
                nis,
                bound: self.nis_bound,
                measurements: m,
            });
        }
        let k = &pht * &s_inv;
        let x = &self.x + &k * &nu;
        let i_kh = DMatrix::<f64>::identity(n, n) - &k * jac;
        let p = symmetrize(&i_kh * &self.p * i_kh.transpose() + &k * r * k.transpose());
        check_covariance(&p, "updated")?;
        if !x.iter().all(|v| v.is_finite()) {
            return Err(FilterError::NotFinite("updated state"));
        }
        self.x = x;
        self.p = p;
        Ok(Update {
            innovation: nu,
            nis,
        })
    }

    /// The standard deviation of each state (square roots of the
    /// covariance's diagonal).
    pub fn sigma(&self) -> DVector<f64> {
        self.p.diagonal().map(|v| v.max(0.0).sqrt())
    }
}

/// `(A + A^T) / 2`: removes the asymmetry round-off leaves.
fn symmetrize(a: DMatrix<f64>) -> DMatrix<f64> {
    (&a + a.transpose()) * 0.5
}

/// A covariance must be finite and positive definite.
fn check_covariance(p: &DMatrix<f64>, which: &'static str) -> Result<(), FilterError> {
    if !p.iter().all(|v| v.is_finite()) {
        return Err(FilterError::NotFinite(which));
    }
    if p.clone().cholesky().is_none() {
        return Err(FilterError::NotPositiveDefinite(which));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scalar random walk measured directly: the steady-state gain of
    /// the textbook solution `P- = (q + sqrt(q^2 + 4 q r)) / 2`,
    /// `K = P- / (P- + r)`.
    #[test]
    fn scalar_filter_reaches_the_riccati_steady_state() {
        let (q, r) = (0.5, 2.0);
        let mut ekf = Ekf::new(
            DVector::from_element(1, 0.0),
            DMatrix::from_element(1, 1, 10.0),
        )
        .unwrap();
        let one = DMatrix::from_element(1, 1, 1.0);
        for k in 0..200 {
            ekf.predict(ekf.x.clone(), &one, &DMatrix::from_element(1, 1, q))
                .unwrap();
            let z = DVector::from_element(1, (k % 7) as f64);
            let h = ekf.x.clone();
            ekf.update(&z, &h, &one, &DMatrix::from_element(1, 1, r))
                .unwrap();
        }
        let p_minus = (q + (q * q + 4.0 * q * r).sqrt()) / 2.0;
        let p_plus = p_minus * r / (p_minus + r);
        assert!((ekf.p[(0, 0)] - p_plus).abs() < 1e-12 * p_plus);
    }

    #[test]
    fn divergence_is_an_error_with_a_message() {
        let mut ekf = Ekf::new(
            DVector::from_element(1, 0.0),
            DMatrix::from_element(1, 1, 1.0),
        )
        .unwrap();
        ekf.nis_bound = 25.0;
        let one = DMatrix::from_element(1, 1, 1.0);
        let err = ekf
            .update(
                &DVector::from_element(1, 100.0),
                &DVector::from_element(1, 0.0),
                &one,
                &one,
            )
            .unwrap_err();
        assert!(err.to_string().contains("beyond the bound 25"), "{err}");
        // Nothing changed.
        assert_eq!(ekf.x[0], 0.0);
        let bad = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
        let e = Ekf::new(DVector::zeros(2), bad).unwrap_err();
        assert_eq!(e, FilterError::NotPositiveDefinite("initial"));
        let mut ok = Ekf::new(DVector::zeros(1), one.clone()).unwrap();
        let e = ok
            .predict(DVector::zeros(1), &one, &DMatrix::from_element(1, 1, -5.0))
            .unwrap_err();
        assert_eq!(e, FilterError::NotPositiveDefinite("predicted"));
        assert!(ok.predict(DVector::zeros(2), &one, &one).is_err());
    }
}
