//! Local linear model tree (Nelles' LOLIMOT), one output.

use crate::{MAX_INPUTS, MAX_MODELS};

/// A local linear model network with normalized Gaussian validity
/// functions, one output, in normalized space.
///
/// It has `M` local linear models; model `i` has a center `c_i` and widths
/// `sigma_i` (one per input, all > 0) and parameters `w_i` (`n_in + 1`, the
/// offset first). The output is
///
/// ```text
/// y(u) = sum_i Phi_i(u) (w_i0 + sum_j w_ij u_j),
/// Phi_i = mu_i / sum_k mu_k,
/// mu_i  = exp(-0.5 sum_j ((u_j - c_ij) / sigma_ij)^2).
/// ```
///
/// The `mu_i` are computed with the largest exponent subtracted, so far from
/// every center (where each `mu_i` underflows) the validity functions stay
/// well defined: the model whose Gaussian decays slowest there takes over.
#[derive(Debug, Clone, PartialEq)]
pub struct Lolimot {
    n_in: usize,
    centers: Vec<f64>,
    sigmas: Vec<f64>,
    weights: Vec<f64>,
}

impl Lolimot {
    /// A model network from its `M` local models: `centers` and `sigmas`
    /// row-major `M x n_in`, `weights` row-major `M x (n_in + 1)` (offset
    /// first). Fails if the sizes do not match or exceed [`MAX_INPUTS`] or
    /// [`MAX_MODELS`], a number is not finite, or a sigma is not > 0.
    pub fn new(
        n_in: usize,
        centers: Vec<f64>,
        sigmas: Vec<f64>,
        weights: Vec<f64>,
    ) -> Result<Self, String> {
        if n_in == 0 || n_in > MAX_INPUTS {
            return Err(format!(
                "the LOLIMOT model has {n_in} inputs, 1 to {MAX_INPUTS} are supported"
            ));
        }
        if !centers.len().is_multiple_of(n_in) {
            return Err(format!(
                "LOLIMOT: {} center coordinates is not a multiple of {n_in} inputs",
                centers.len()
            ));
        }
        let m = centers.len() / n_in;
        if m == 0 || m > MAX_MODELS {
            return Err(format!(
                "the LOLIMOT model has {m} local models, 1 to {MAX_MODELS} are supported"
            ));
        }
        if sigmas.len() != m * n_in {
            return Err(format!(
                "LOLIMOT: {m} models with {n_in} inputs need {} sigmas, {} were given",
                m * n_in,
                sigmas.len()
            ));
        }
        if weights.len() != m * (n_in + 1) {
            return Err(format!(
                "LOLIMOT: {m} models with {n_in} inputs need {} parameters, {} were given",
                m * (n_in + 1),
                weights.len()
            ));
        }
        for (what, v) in [("center", &centers), ("parameter", &weights)] {
            if let Some(k) = v.iter().position(|x| !x.is_finite()) {
                return Err(format!(
                    "LOLIMOT: {what} of local model {} is not finite ({:?})",
                    k / if what == "center" { n_in } else { n_in + 1 },
                    v[k]
                ));
            }
        }
        if let Some(k) = sigmas.iter().position(|s| !(s.is_finite() && *s > 0.0)) {
            return Err(format!(
                "LOLIMOT: sigma {} of local model {} must be finite and > 0, it is {:?}",
                k % n_in,
                k / n_in,
                sigmas[k]
            ));
        }
        Ok(Self {
            n_in,
            centers,
            sigmas,
            weights,
        })
    }

    /// Number of inputs.
    pub fn n_inputs(&self) -> usize {
        self.n_in
    }

    /// Number of local models.
    pub fn n_models(&self) -> usize {
        self.centers.len() / self.n_in
    }

    /// Center of local model `i`.
    pub fn center(&self, i: usize) -> &[f64] {
        &self.centers[i * self.n_in..(i + 1) * self.n_in]
    }

    /// Widths (sigma per input) of local model `i`.
    pub fn sigma(&self, i: usize) -> &[f64] {
        &self.sigmas[i * self.n_in..(i + 1) * self.n_in]
    }

    /// Parameters of local model `i`: offset, then one slope per input.
    pub fn weights(&self, i: usize) -> &[f64] {
        &self.weights[i * (self.n_in + 1)..(i + 1) * (self.n_in + 1)]
    }

    /// Exponents `e_i = -0.5 sum_j ((u_j - c_ij) / sigma_ij)^2` into `e`,
    /// the local models' outputs into `yl`; returns the largest exponent.
    #[inline]
    fn exponents(&self, u: &[f64], e: &mut [f64], yl: &mut [f64]) -> f64 {
        let n = self.n_in;
        let mut e_max = f64::NEG_INFINITY;
        for i in 0..self.n_models() {
            let c = &self.centers[i * n..(i + 1) * n];
            let s = &self.sigmas[i * n..(i + 1) * n];
            let w = &self.weights[i * (n + 1)..(i + 1) * (n + 1)];
            let mut q = 0.0;
            let mut yi = w[0];
            for j in 0..n {
                let z = (u[j] - c[j]) / s[j];
                q += z * z;
                yi += w[j + 1] * u[j];
            }
            e[i] = -0.5 * q;
            yl[i] = yi;
            e_max = e_max.max(e[i]);
        }
        e_max
    }

    /// The output at normalized inputs `u` (length `n_in`). Allocates
    /// nothing.
    ///
    /// # Panics
    /// If `u` has the wrong length.
    pub fn eval(&self, u: &[f64]) -> f64 {
        assert_eq!(u.len(), self.n_in, "LOLIMOT: wrong number of inputs");
        let mut e = [0.0f64; MAX_MODELS];
        let mut yl = [0.0f64; MAX_MODELS];
        let e_max = self.exponents(u, &mut e, &mut yl);
        let (mut num, mut den) = (0.0, 0.0);
        for i in 0..self.n_models() {
            let mu = (e[i] - e_max).exp();
            num += mu * yl[i];
            den += mu;
        }
        // den >= 1: the largest mu is exp(0).
        num / den
    }

    /// The output at `u` and its gradient `dy_du[j] = d y / d u_j`, including
    /// the derivative of the normalized validity functions:
    /// `d y / d u_j = sum_i Phi_i w_ij + sum_i Phi_i d_ij (y_i - y)` with
    /// `d_ij = -(u_j - c_ij) / sigma_ij^2` and `y_i` local model i's output.
    /// Allocates nothing.
    ///
    /// # Panics
    /// If a slice has the wrong length.
    pub fn eval_with_jacobian(&self, u: &[f64], dy_du: &mut [f64]) -> f64 {
        let n = self.n_in;
        assert_eq!(u.len(), n, "LOLIMOT: wrong number of inputs");
        assert_eq!(dy_du.len(), n, "LOLIMOT: wrong gradient length");
        let m = self.n_models();
        let mut phi = [0.0f64; MAX_MODELS];
        let mut yl = [0.0f64; MAX_MODELS];
        let e_max = self.exponents(u, &mut phi, &mut yl);
        let (mut num, mut den) = (0.0, 0.0);
        for i in 0..m {
            phi[i] = (phi[i] - e_max).exp();
            num += phi[i] * yl[i];
            den += phi[i];
        }
        // The same operations as `eval`: the same bits.
        let y = num / den;
        for p in &mut phi[..m] {
            *p /= den;
        }
        dy_du.fill(0.0);
        for i in 0..m {
            let c = &self.centers[i * n..(i + 1) * n];
            let s = &self.sigmas[i * n..(i + 1) * n];
            let w = &self.weights[i * (n + 1)..(i + 1) * (n + 1)];
            let dev = phi[i] * (yl[i] - y);
            for j in 0..n {
                let d = -(u[j] - c[j]) / (s[j] * s[j]);
                dy_du[j] += phi[i] * w[j + 1] + dev * d;
            }
        }
        y
    }
}
