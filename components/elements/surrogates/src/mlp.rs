//! Feed-forward network with logistic-sigmoid hidden layers.

use crate::{MAX_HIDDEN_LAYERS, MAX_INPUTS, MAX_OUTPUTS, MAX_WIDTH};

/// A feed-forward network (multilayer perceptron) in normalized space:
/// `n_in` inputs, 1 to [`MAX_HIDDEN_LAYERS`] hidden layers of logistic-sigmoid
/// neurons `1 / (1 + exp(-a))`, and a linear output layer of `n_out` outputs.
///
/// The layer sizes are `sizes = [n_in, h_1, ..., h_L, n_out]`. The parameter
/// vector holds the layers in order (first hidden layer first, output layer
/// last); each layer from `n_i` to `n_o` neurons is its weights, row-major
/// `[out][in]` (`n_o * n_i` numbers: all the weights into output neuron 0,
/// then those into neuron 1, ...), followed by its `n_o` biases. A neuron's
/// activation is `a_o = b_o + sum_i W[o][i] h_i`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mlp {
    sizes: Vec<usize>,
    params: Vec<f64>,
}

/// The logistic sigmoid. Saturates to exactly 0 or 1 for large |a|, without
/// producing NaN.
#[inline]
pub(crate) fn sigmoid(a: f64) -> f64 {
    1.0 / (1.0 + (-a).exp())
}

/// `sum_i w[i] x[i]` over the shorter of the two slices.
#[inline]
pub(crate) fn dot(w: &[f64], x: &[f64]) -> f64 {
    // Four partial sums: lets the compiler keep several additions in flight
    // (the order is fixed, so the result is reproducible).
    let n = w.len().min(x.len());
    let (w, x) = (&w[..n], &x[..n]);
    let mut s = [0.0f64; 4];
    let chunks = n / 4;
    for c in 0..chunks {
        let k = 4 * c;
        s[0] += w[k] * x[k];
        s[1] += w[k + 1] * x[k + 1];
        s[2] += w[k + 2] * x[k + 2];
        s[3] += w[k + 3] * x[k + 3];
    }
    let mut t = (s[0] + s[1]) + (s[2] + s[3]);
    for k in 4 * chunks..n {
        t += w[k] * x[k];
    }
    t
}

/// The network's outputs for layer sizes `sizes` and parameters `params`
/// (the layout of [`Mlp`]); no checks beyond slice bounds.
pub(crate) fn forward(sizes: &[usize], params: &[f64], x: &[f64], y: &mut [f64]) {
    let mut bufs = [[0.0f64; MAX_WIDTH]; 2];
    bufs[0][..x.len()].copy_from_slice(x);
    let layers = sizes.len() - 1;
    let mut off = 0;
    for l in 0..layers {
        let (n_i, n_o) = (sizes[l], sizes[l + 1]);
        let w = &params[off..off + n_o * n_i];
        let b = &params[off + n_o * n_i..off + n_o * n_i + n_o];
        off += n_o * n_i + n_o;
        let (first, second) = bufs.split_at_mut(1);
        let (src, dst) = if l % 2 == 0 {
            (&first[0], &mut second[0])
        } else {
            (&second[0], &mut first[0])
        };
        let last = l + 1 == layers;
        for o in 0..n_o {
            let a = b[o] + dot(&w[o * n_i..(o + 1) * n_i], &src[..n_i]);
            dst[o] = if last { a } else { sigmoid(a) };
        }
    }
    y.copy_from_slice(&bufs[layers % 2][..y.len()]);
}

impl Mlp {
    /// Number of parameters of a network with these layer sizes.
    pub fn param_count(sizes: &[usize]) -> usize {
        sizes.windows(2).map(|w| w[1] * w[0] + w[1]).sum()
    }

    /// Checks layer sizes against the limits: 1 to [`MAX_HIDDEN_LAYERS`]
    /// hidden layers of 1 to [`MAX_WIDTH`] neurons, 1 to [`MAX_INPUTS`]
    /// inputs and 1 to [`MAX_OUTPUTS`] outputs.
    pub fn check_sizes(sizes: &[usize]) -> Result<(), String> {
        if sizes.len() < 3 {
            return Err(format!(
                "an MLP needs at least one hidden layer: layer sizes {sizes:?} \
                 (expected n_in, hidden widths..., n_out)"
            ));
        }
        let hidden = sizes.len() - 2;
        if hidden > MAX_HIDDEN_LAYERS {
            return Err(format!(
                "the MLP has {hidden} hidden layers, at most {MAX_HIDDEN_LAYERS} are supported"
            ));
        }
        let n_in = sizes[0];
        if n_in == 0 || n_in > MAX_INPUTS {
            return Err(format!(
                "the MLP has {n_in} inputs, 1 to {MAX_INPUTS} are supported"
            ));
        }
        let n_out = sizes[sizes.len() - 1];
        if n_out == 0 || n_out > MAX_OUTPUTS {
            return Err(format!(
                "the MLP has {n_out} outputs, 1 to {MAX_OUTPUTS} are supported"
            ));
        }
        for (l, &w) in sizes[1..sizes.len() - 1].iter().enumerate() {
            if w == 0 || w > MAX_WIDTH {
                return Err(format!(
                    "hidden layer {} of the MLP has {w} neurons, 1 to {MAX_WIDTH} are supported",
                    l + 1
                ));
            }
        }
        Ok(())
    }

    /// A network with layer sizes `[n_in, hidden..., n_out]` and parameters
    /// in the layout described on [`Mlp`]. Fails if a size is outside the
    /// limits, the parameter count does not match, or a parameter is not
    /// finite.
    pub fn new(sizes: Vec<usize>, params: Vec<f64>) -> Result<Self, String> {
        Self::check_sizes(&sizes)?;
        let expected = Self::param_count(&sizes);
        if params.len() != expected {
            return Err(format!(
                "an MLP with layer sizes {sizes:?} has {expected} parameters, {} were given",
                params.len()
            ));
        }
        if let Some(k) = params.iter().position(|p| !p.is_finite()) {
            return Err(format!("MLP parameter {k} is not finite ({:?})", params[k]));
        }
        Ok(Self { sizes, params })
    }

    /// Layer sizes `[n_in, hidden..., n_out]`.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// All parameters, in the layout described on [`Mlp`].
    pub fn params(&self) -> &[f64] {
        &self.params
    }

    /// Number of inputs.
    pub fn n_inputs(&self) -> usize {
        self.sizes[0]
    }

    /// Number of outputs.
    pub fn n_outputs(&self) -> usize {
        self.sizes[self.sizes.len() - 1]
    }

    /// Number of hidden layers.
    pub fn n_hidden_layers(&self) -> usize {
        self.sizes.len() - 2
    }

    /// The network's outputs `y` (length `n_out`) at inputs `x` (length
    /// `n_in`), both normalized. Allocates nothing.
    ///
    /// # Panics
    /// If a slice has the wrong length.
    pub fn eval(&self, x: &[f64], y: &mut [f64]) {
        assert_eq!(x.len(), self.n_inputs(), "MLP: wrong number of inputs");
        assert_eq!(y.len(), self.n_outputs(), "MLP: wrong number of outputs");
        forward(&self.sizes, &self.params, x, y);
    }

    /// Like [`eval`](Self::eval), and also the Jacobian `jac[k * n_in + j] =
    /// d y_k / d x_j` (row-major `n_out x n_in`), computed analytically by a
    /// backward pass per output. Allocates nothing.
    ///
    /// # Panics
    /// If a slice has the wrong length.
    pub fn eval_with_jacobian(&self, x: &[f64], y: &mut [f64], jac: &mut [f64]) {
        let (n_in, n_out) = (self.n_inputs(), self.n_outputs());
        assert_eq!(x.len(), n_in, "MLP: wrong number of inputs");
        assert_eq!(y.len(), n_out, "MLP: wrong number of outputs");
        assert_eq!(jac.len(), n_out * n_in, "MLP: wrong Jacobian length");
        let hidden = self.n_hidden_layers();
        // Activations: acts[0] the inputs, acts[l] hidden layer l's outputs.
        let mut acts = [[0.0f64; MAX_WIDTH]; MAX_HIDDEN_LAYERS + 1];
        acts[0][..n_in].copy_from_slice(x);
        // Offset of each layer's parameters.
        let mut offs = [0usize; MAX_HIDDEN_LAYERS + 1];
        let mut off = 0;
        for l in 0..hidden {
            offs[l] = off;
            let (n_i, n_o) = (self.sizes[l], self.sizes[l + 1]);
            let w = &self.params[off..off + n_o * n_i];
            let b = &self.params[off + n_o * n_i..off + n_o * n_i + n_o];
            off += n_o * n_i + n_o;
            let (before, after) = acts.split_at_mut(l + 1);
            let src = &before[l];
            let dst = &mut after[0];
            for o in 0..n_o {
                dst[o] = sigmoid(b[o] + dot(&w[o * n_i..(o + 1) * n_i], &src[..n_i]));
            }
        }
        offs[hidden] = off;
        let n_last = self.sizes[hidden];
        let w_out = &self.params[off..off + n_out * n_last];
        let b_out = &self.params[off + n_out * n_last..off + n_out * n_last + n_out];
        for k in 0..n_out {
            y[k] = b_out[k]
                + dot(
                    &w_out[k * n_last..(k + 1) * n_last],
                    &acts[hidden][..n_last],
                );
        }
        // Backward pass for each output: g = d y_k / d (layer l's outputs).
        let mut g = [0.0f64; MAX_WIDTH];
        let mut g_prev = [0.0f64; MAX_WIDTH];
        for k in 0..n_out {
            g[..n_last].copy_from_slice(&w_out[k * n_last..(k + 1) * n_last]);
            for l in (0..hidden).rev() {
                let (n_i, n_o) = (self.sizes[l], self.sizes[l + 1]);
                let w = &self.params[offs[l]..offs[l] + n_o * n_i];
                let h = &acts[l + 1];
                g_prev[..n_i].fill(0.0);
                for o in 0..n_o {
                    // d y / d a_o, through the sigmoid's derivative s (1 - s).
                    let ga = g[o] * h[o] * (1.0 - h[o]);
                    let row = &w[o * n_i..(o + 1) * n_i];
                    for i in 0..n_i {
                        g_prev[i] += ga * row[i];
                    }
                }
                g[..n_i].copy_from_slice(&g_prev[..n_i]);
            }
            jac[k * n_in..(k + 1) * n_in].copy_from_slice(&g[..n_in]);
        }
    }
}
