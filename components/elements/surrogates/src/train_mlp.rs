//! Training of an [`Mlp`] by backpropagation and Adam.

use std::time::{Duration, Instant};

use crate::mlp::{dot, forward, sigmoid};
use crate::{
    Dataset, MAX_HIDDEN_LAYERS, MAX_WIDTH, Mlp, Model, Rng, Scaling, Split, Surrogate, split_blocks,
};

/// Settings of [`train_mlp()`].
#[derive(Debug, Clone, PartialEq)]
pub struct MlpConfig {
    /// Widths of the hidden layers (1 to [`MAX_HIDDEN_LAYERS`] layers of 1 to
    /// [`MAX_WIDTH`] neurons).
    pub hidden: Vec<usize>,
    /// Seed of the initial weights and of the per-epoch shuffles.
    pub seed: u64,
    /// Seed of the split into training, validation and test sets.
    pub split_seed: u64,
    /// Block length (samples) of the split; see [`split_blocks`].
    pub block: usize,
    /// Share of the blocks used for training.
    pub train_fraction: f64,
    /// Share of the blocks used for validation (early stopping); the rest is
    /// the test set.
    pub validation_fraction: f64,
    /// Largest number of epochs (passes over the training set).
    pub max_epochs: usize,
    /// Stop after this many epochs without a better validation MSE.
    pub patience: usize,
    /// Samples per mini-batch (one Adam step each).
    pub batch_size: usize,
    /// Adam step size of the first epoch.
    pub learning_rate: f64,
    /// Factor applied to the step size after every epoch.
    pub lr_decay: f64,
    /// The step size never decays below this.
    pub min_learning_rate: f64,
    /// Adam's decay rate of the first moment.
    pub beta1: f64,
    /// Adam's decay rate of the second moment.
    pub beta2: f64,
    /// Adam's epsilon.
    pub epsilon: f64,
    /// Print a progress line to stderr every `progress_every` epochs (and at
    /// the end).
    pub verbose: bool,
    /// Epochs between progress lines.
    pub progress_every: usize,
}

impl Default for MlpConfig {
    fn default() -> Self {
        Self {
            hidden: vec![20, 20],
            seed: 1,
            split_seed: 0,
            block: 500,
            train_fraction: 0.7,
            validation_fraction: 0.15,
            max_epochs: 500,
            patience: 50,
            batch_size: 32,
            learning_rate: 1e-2,
            lr_decay: 0.99,
            min_learning_rate: 1e-5,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            verbose: false,
            progress_every: 10,
        }
    }
}

/// Progress after one epoch, given to the callback of
/// [`train_mlp_with_progress`].
#[derive(Debug, Clone, PartialEq)]
pub struct EpochStats {
    /// The epoch just finished, counted from 1.
    pub epoch: usize,
    /// Mean of the mini-batch MSEs during the epoch (normalized).
    pub train_mse: f64,
    /// Validation MSE after the epoch (normalized).
    pub validation_mse: f64,
    /// The epoch with the lowest validation MSE so far.
    pub best_epoch: usize,
    /// The lowest validation MSE so far.
    pub best_validation_mse: f64,
    /// The step size used in this epoch.
    pub learning_rate: f64,
    /// Time since training started.
    pub elapsed: Duration,
}

/// What [`train_mlp()`] did and how good the result is.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainReport {
    /// Layer sizes of the network.
    pub sizes: Vec<usize>,
    /// Per epoch: mean of the mini-batch MSEs during the epoch (normalized
    /// space, all outputs).
    pub train_mse: Vec<f64>,
    /// Per epoch: validation MSE after the epoch (normalized).
    pub validation_mse: Vec<f64>,
    /// The epoch (from 1) whose weights were kept: lowest validation MSE.
    pub best_epoch: usize,
    /// Validation MSE of the kept weights (normalized).
    pub best_validation_mse: f64,
    /// Why training stopped.
    pub stop_reason: String,
    /// Test MSE of the kept weights (normalized, all outputs).
    pub test_mse: f64,
    /// Test RMS error per output, physical units.
    pub test_rmse: Vec<f64>,
    /// Test RMS error per output, normalized.
    pub test_rmse_normalized: Vec<f64>,
    /// Samples in the training set.
    pub n_train: usize,
    /// Samples in the validation set.
    pub n_validation: usize,
    /// Samples in the test set.
    pub n_test: usize,
    /// Block length of the split.
    pub block: usize,
    /// Seed of the weights and shuffles.
    pub seed: u64,
    /// Seed of the split.
    pub split_seed: u64,
    /// Wall time of the training.
    pub wall_time: Duration,
}

impl TrainReport {
    /// A one-line summary (no wall time, so a rerun gives the same text):
    /// what the weights file's note holds.
    pub fn summary(&self, output_names: &[String]) -> String {
        let sizes: Vec<String> = self.sizes.iter().map(|s| s.to_string()).collect();
        let rmse: Vec<String> = output_names
            .iter()
            .zip(&self.test_rmse)
            .map(|(n, e)| format!("{n} {e:.4e}"))
            .collect();
        format!(
            "mlp {} (sigmoid), Adam; {} samples: train {} / validation {} / test {} in blocks \
             of {} (split seed {}); seed {}; best epoch {} of {} ({}); validation MSE {:.4e}, \
             test MSE {:.4e} (normalized); test RMSE {} (physical)",
            sizes.join("-"),
            self.n_train + self.n_validation + self.n_test,
            self.n_train,
            self.n_validation,
            self.n_test,
            self.block,
            self.split_seed,
            self.seed,
            self.best_epoch,
            self.train_mse.len(),
            self.stop_reason,
            self.best_validation_mse,
            self.test_mse,
            rmse.join(", ")
        )
    }
}

/// Trains a network on `data` with the settings of `config`; prints
/// progress to stderr if `config.verbose`. See
/// [`train_mlp_with_progress`].
pub fn train_mlp(data: &Dataset, config: &MlpConfig) -> Result<(Surrogate, TrainReport), String> {
    train_mlp_with_progress(data, config, &mut |_| true)
}

/// Data normalized by the training scalings, row-major.
pub(crate) struct Normalized {
    pub(crate) x: Vec<f64>,
    pub(crate) t: Vec<f64>,
    pub(crate) input_scaling: Scaling,
    pub(crate) output_scaling: Scaling,
}

/// The scalings from the training rows' ranges, and all data normalized.
pub(crate) fn normalize(data: &Dataset, split: &Split) -> Normalized {
    let (n_in, n_out) = (data.n_inputs(), data.n_outputs());
    let input_scaling = Scaling::from_rows(data.inputs(), n_in, Some(&split.train));
    let output_scaling = Scaling::from_rows(data.targets(), n_out, Some(&split.train));
    let mut x = Vec::with_capacity(data.inputs().len());
    for row in data.inputs().chunks(n_in) {
        x.extend(
            row.iter()
                .enumerate()
                .map(|(j, &v)| input_scaling.forward(j, v)),
        );
    }
    let mut t = Vec::with_capacity(data.targets().len());
    for row in data.targets().chunks(n_out) {
        t.extend(
            row.iter()
                .enumerate()
                .map(|(k, &v)| output_scaling.forward(k, v)),
        );
    }
    Normalized {
        x,
        t,
        input_scaling,
        output_scaling,
    }
}

/// Test errors of a surrogate: (normalized MSE, physical RMSE per output,
/// normalized RMSE per output).
pub(crate) fn test_errors(
    s: &Surrogate,
    data: &Dataset,
    rows: &[usize],
) -> (f64, Vec<f64>, Vec<f64>) {
    let n_out = data.n_outputs();
    let mut y = vec![0.0; n_out];
    let mut sq = vec![0.0; n_out];
    let mut sq_n = vec![0.0; n_out];
    for &r in rows {
        s.eval(data.input(r), &mut y);
        for k in 0..n_out {
            let t = data.target(r)[k];
            sq[k] += (y[k] - t) * (y[k] - t);
            let sc = s.output_scaling();
            let d = sc.forward(k, y[k]) - sc.forward(k, t);
            sq_n[k] += d * d;
        }
    }
    let n = rows.len().max(1) as f64;
    let mse = sq_n.iter().sum::<f64>() / (n * n_out as f64);
    (
        mse,
        sq.iter().map(|v| (v / n).sqrt()).collect(),
        sq_n.iter().map(|v| (v / n).sqrt()).collect(),
    )
}

/// One sample's forward and backward pass: adds `scale * sum_k (y_k - t_k)
/// d y_k / d params` to `grad` (with `scale = 2 / (batch * n_out)` the
/// gradient of the batch's MSE) and returns the sample's squared error
/// `sum_k (y_k - t_k)^2`.
fn backprop(
    sizes: &[usize],
    params: &[f64],
    x: &[f64],
    t: &[f64],
    scale: f64,
    grad: &mut [f64],
) -> f64 {
    let layers = sizes.len() - 1;
    let mut acts = [[0.0f64; MAX_WIDTH]; MAX_HIDDEN_LAYERS + 2];
    let mut offs = [0usize; MAX_HIDDEN_LAYERS + 1];
    acts[0][..sizes[0]].copy_from_slice(x);
    let mut off = 0;
    for l in 0..layers {
        offs[l] = off;
        let (n_i, n_o) = (sizes[l], sizes[l + 1]);
        let w = &params[off..off + n_o * n_i];
        let b = &params[off + n_o * n_i..off + n_o * n_i + n_o];
        off += n_o * n_i + n_o;
        let (before, after) = acts.split_at_mut(l + 1);
        let src = &before[l][..n_i];
        let dst = &mut after[0];
        let last = l + 1 == layers;
        for o in 0..n_o {
            let a = b[o] + dot(&w[o * n_i..(o + 1) * n_i], src);
            dst[o] = if last { a } else { sigmoid(a) };
        }
    }
    let n_out = sizes[layers];
    let mut delta = [0.0f64; MAX_WIDTH];
    let mut delta_prev = [0.0f64; MAX_WIDTH];
    let mut sq = 0.0;
    for k in 0..n_out {
        let e = acts[layers][k] - t[k];
        sq += e * e;
        delta[k] = scale * e;
    }
    for l in (0..layers).rev() {
        let (n_i, n_o) = (sizes[l], sizes[l + 1]);
        let off = offs[l];
        let h = &acts[l][..n_i];
        let (gw, gb) = grad[off..off + n_o * n_i + n_o].split_at_mut(n_o * n_i);
        for o in 0..n_o {
            let d = delta[o];
            gb[o] += d;
            let row = &mut gw[o * n_i..(o + 1) * n_i];
            for i in 0..n_i {
                row[i] += d * h[i];
            }
        }
        if l > 0 {
            let w = &params[off..off + n_o * n_i];
            delta_prev[..n_i].fill(0.0);
            for o in 0..n_o {
                let d = delta[o];
                let row = &w[o * n_i..(o + 1) * n_i];
                for i in 0..n_i {
                    delta_prev[i] += d * row[i];
                }
            }
            for i in 0..n_i {
                delta[i] = delta_prev[i] * h[i] * (1.0 - h[i]);
            }
        }
    }
    sq
}

/// Mean squared error (normalized, all outputs) over `rows`.
fn mse(sizes: &[usize], params: &[f64], norm: &Normalized, rows: &[usize]) -> f64 {
    let (n_in, n_out) = (sizes[0], sizes[sizes.len() - 1]);
    let mut y = [0.0f64; MAX_WIDTH];
    let mut sum = 0.0;
    for &r in rows {
        forward(
            sizes,
            params,
            &norm.x[r * n_in..(r + 1) * n_in],
            &mut y[..n_out],
        );
        for k in 0..n_out {
            let e = y[k] - norm.t[r * n_out + k];
            sum += e * e;
        }
    }
    sum / (rows.len().max(1) * n_out) as f64
}

/// Trains a network on `data`: the samples are split into training,
/// validation and test sets by contiguous blocks ([`split_blocks`]); inputs
/// and targets are scaled to [-1, 1] by the training set's ranges; the
/// weights start from a Glorot-uniform draw (biases 0) and are fitted by
/// backpropagation and Adam on mini-batches of the training set, shuffled
/// every epoch, minimizing the MSE in normalized space, the step size
/// decaying by `lr_decay` per epoch. After each epoch the validation MSE is
/// computed; the weights with the lowest one are kept, and training stops
/// after `patience` epochs without improvement, at `max_epochs`, or when
/// `progress` returns false.
///
/// Single-threaded and deterministic: the same data, configuration and
/// seeds give bit-identical weights. The surrogate's slot is `unassigned`
/// (set it with [`Surrogate::set_slot`]), its period and names are the
/// data set's, its note the report's [`summary`](TrainReport::summary).
pub fn train_mlp_with_progress(
    data: &Dataset,
    config: &MlpConfig,
    progress: &mut dyn FnMut(&EpochStats) -> bool,
) -> Result<(Surrogate, TrainReport), String> {
    let start = Instant::now();
    data.check_finite()?;
    let (n_in, n_out) = (data.n_inputs(), data.n_outputs());
    let mut sizes = vec![n_in];
    sizes.extend_from_slice(&config.hidden);
    sizes.push(n_out);
    Mlp::check_sizes(&sizes)?;
    if config.batch_size == 0 || config.max_epochs == 0 {
        return Err("the batch size and max_epochs must be > 0".into());
    }
    let positive = [config.learning_rate, config.lr_decay, config.epsilon];
    let betas_ok = (0.0..1.0).contains(&config.beta1) && (0.0..1.0).contains(&config.beta2);
    if !positive.iter().all(|v| v.is_finite() && *v > 0.0) || !betas_ok {
        return Err(format!(
            "learning_rate, lr_decay and epsilon must be > 0 and the betas in [0, 1): {config:?}"
        ));
    }
    let split = split_blocks(
        data.len(),
        config.block,
        config.train_fraction,
        config.validation_fraction,
        config.split_seed,
    )?;
    let norm = normalize(data, &split);

    // Glorot-uniform initial weights, zero biases.
    let mut rng = Rng::new(config.seed);
    let n_params = Mlp::param_count(&sizes);
    let mut params = Vec::with_capacity(n_params);
    for l in 0..sizes.len() - 1 {
        let (n_i, n_o) = (sizes[l], sizes[l + 1]);
        let a = (6.0 / (n_i + n_o) as f64).sqrt();
        for _ in 0..n_i * n_o {
            params.push(rng.uniform(-a, a));
        }
        params.extend(std::iter::repeat_n(0.0, n_o));
    }

    let mut m = vec![0.0; n_params];
    let mut v = vec![0.0; n_params];
    let mut grad = vec![0.0; n_params];
    let mut best = params.clone();
    let mut best_val = mse(&sizes, &params, &norm, &split.validation);
    let mut best_epoch = 0;
    let mut train_hist = Vec::new();
    let mut val_hist = Vec::new();
    let mut order = split.train.clone();
    let mut step: i32 = 0;
    let mut lr = config.learning_rate;
    let mut stop_reason = format!("max_epochs {}", config.max_epochs);
    for epoch in 1..=config.max_epochs {
        rng.shuffle(&mut order);
        let mut sum_sq = 0.0;
        for batch in order.chunks(config.batch_size) {
            grad.fill(0.0);
            let scale = 2.0 / (batch.len() * n_out) as f64;
            for &r in batch {
                sum_sq += backprop(
                    &sizes,
                    &params,
                    &norm.x[r * n_in..(r + 1) * n_in],
                    &norm.t[r * n_out..(r + 1) * n_out],
                    scale,
                    &mut grad,
                );
            }
            step = step.saturating_add(1);
            let c1 = 1.0 - config.beta1.powi(step);
            let c2 = 1.0 - config.beta2.powi(step);
            for q in 0..n_params {
                let g = grad[q];
                m[q] = config.beta1 * m[q] + (1.0 - config.beta1) * g;
                v[q] = config.beta2 * v[q] + (1.0 - config.beta2) * g * g;
                params[q] -= lr * (m[q] / c1) / ((v[q] / c2).sqrt() + config.epsilon);
            }
        }
        let train_mse = sum_sq / (order.len() * n_out) as f64;
        let val_mse = mse(&sizes, &params, &norm, &split.validation);
        train_hist.push(train_mse);
        val_hist.push(val_mse);
        if !params.iter().all(|p| p.is_finite()) {
            return Err(format!(
                "training diverged in epoch {epoch} (a weight is not finite): lower the \
                 learning rate"
            ));
        }
        if val_mse < best_val {
            best_val = val_mse;
            best_epoch = epoch;
            best.copy_from_slice(&params);
        }
        let stats = EpochStats {
            epoch,
            train_mse,
            validation_mse: val_mse,
            best_epoch,
            best_validation_mse: best_val,
            learning_rate: lr,
            elapsed: start.elapsed(),
        };
        let stop_patience = epoch - best_epoch >= config.patience;
        let stop_caller = !progress(&stats);
        let last = stop_patience || stop_caller || epoch == config.max_epochs;
        if config.verbose && (epoch % config.progress_every.max(1) == 0 || last) {
            eprintln!(
                "mlp epoch {epoch}: train MSE {train_mse:.4e}, validation MSE {val_mse:.4e} \
                 (best {best_val:.4e} at epoch {best_epoch}), step {lr:.2e}, {:.1} s",
                stats.elapsed.as_secs_f64()
            );
        }
        if stop_patience {
            stop_reason = format!("no better validation MSE for {} epochs", config.patience);
            break;
        }
        if stop_caller {
            stop_reason = "stopped by the caller".into();
            break;
        }
        lr = (lr * config.lr_decay).max(config.min_learning_rate);
    }

    let mlp = Mlp::new(sizes.clone(), best)?;
    let mut surrogate = Surrogate::new(
        Model::Mlp(mlp),
        data.input_names().to_vec(),
        data.output_names().to_vec(),
        norm.input_scaling,
        norm.output_scaling,
    )?;
    surrogate.set_period(data.period())?;
    let (test_mse, test_rmse, test_rmse_normalized) = test_errors(&surrogate, data, &split.test);
    let report = TrainReport {
        sizes,
        train_mse: train_hist,
        validation_mse: val_hist,
        best_epoch,
        best_validation_mse: best_val,
        stop_reason,
        test_mse,
        test_rmse,
        test_rmse_normalized,
        n_train: split.train.len(),
        n_validation: split.validation.len(),
        n_test: split.test.len(),
        block: split.block,
        seed: config.seed,
        split_seed: config.split_seed,
        wall_time: start.elapsed(),
    };
    surrogate.set_note(&report.summary(data.output_names()));
    if config.verbose {
        eprintln!(
            "mlp done in {:.1} s: {}",
            report.wall_time.as_secs_f64(),
            surrogate.note()
        );
    }
    Ok((surrogate, report))
}
