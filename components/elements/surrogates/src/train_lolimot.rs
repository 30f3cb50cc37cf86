//! Training of [`Lolimot`] models: Nelles' local linear model tree
//! algorithm.

use std::time::{Duration, Instant};

use crate::linalg::cholesky_solve;
use crate::train_mlp::{normalize, test_errors};
use crate::{Dataset, Lolimot, MAX_INPUTS, MAX_MODELS, Model, Rng, Surrogate, split_blocks};

/// Settings of [`train_lolimot()`].
#[derive(Debug, Clone, PartialEq)]
pub struct LolimotConfig {
    /// Largest number of local models per output (at most [`MAX_MODELS`]).
    pub max_models: usize,
    /// Stop splitting once the training RMS error (normalized output) is
    /// below this; 0 to always go on to `max_models`.
    pub target_rmse: f64,
    /// Width of a validity function along each input, as a share of its
    /// rectangle's extent there (Nelles' k_sigma; 1/3 by default).
    pub k_sigma: f64,
    /// Ridge term of the weighted least squares, relative to the sum of the
    /// weights (in coordinates scaled by the sigmas): only for conditioning.
    pub ridge: f64,
    /// A split is only considered if both new local models get at least
    /// this many samples, counted with their validity weights (and never
    /// fewer than `n_in + 2`).
    pub min_effective_samples: f64,
    /// If the training set is larger, the split search (local losses and
    /// candidate splits) runs on a random subset of this many training
    /// samples; the local models are still estimated on the whole training
    /// set when `reestimate_all`.
    pub max_search_samples: usize,
    /// After each split, re-estimate every local model on the whole training
    /// set with the new validity functions (local weighted least squares), not
    /// only the two new ones.
    pub reestimate_all: bool,
    /// Seed of the subset for the split search.
    pub seed: u64,
    /// Seed of the split into training, validation and test sets.
    pub split_seed: u64,
    /// Block length (samples) of the split; see [`split_blocks`].
    pub block: usize,
    /// Share of the blocks used for training.
    pub train_fraction: f64,
    /// Share of the blocks used for validation; the rest is the test set.
    pub validation_fraction: f64,
    /// Print a progress line to stderr after every split.
    pub verbose: bool,
}

impl Default for LolimotConfig {
    fn default() -> Self {
        Self {
            max_models: 10,
            target_rmse: 0.0,
            k_sigma: 1.0 / 3.0,
            ridge: 1e-8,
            min_effective_samples: 10.0,
            max_search_samples: 20_000,
            reestimate_all: true,
            seed: 1,
            split_seed: 0,
            block: 500,
            train_fraction: 0.7,
            validation_fraction: 0.15,
            verbose: false,
        }
    }
}

/// What [`train_lolimot()`] did for one output.
#[derive(Debug, Clone, PartialEq)]
pub struct LolimotOutputReport {
    /// The output's name.
    pub name: String,
    /// Training RMS error (normalized) with 1, 2, ... local models.
    pub train_rmse: Vec<f64>,
    /// Validation RMS error (normalized) with 1, 2, ... local models.
    pub validation_rmse: Vec<f64>,
    /// Each split made: (the local model split, the input axis halved).
    pub splits: Vec<(usize, usize)>,
    /// Why splitting stopped.
    pub stop_reason: String,
    /// Test RMS error of the final model, physical units.
    pub test_rmse: f64,
    /// Test RMS error of the final model, normalized.
    pub test_rmse_normalized: f64,
}

/// What [`train_lolimot()`] did and how good the result is.
#[derive(Debug, Clone, PartialEq)]
pub struct LolimotReport {
    /// One report per output.
    pub outputs: Vec<LolimotOutputReport>,
    /// Test MSE of all outputs (normalized).
    pub test_mse: f64,
    /// Samples in the training set.
    pub n_train: usize,
    /// Samples in the validation set.
    pub n_validation: usize,
    /// Samples in the test set.
    pub n_test: usize,
    /// Training samples used in the split search (all of them unless
    /// `subsampled`).
    pub search_samples: usize,
    /// Whether the split search ran on a random subset of the training set.
    pub subsampled: bool,
    /// Block length of the split.
    pub block: usize,
    /// Seed of the search subset.
    pub seed: u64,
    /// Seed of the split.
    pub split_seed: u64,
    /// Wall time of the training.
    pub wall_time: Duration,
}

impl LolimotReport {
    /// A one-line summary (no wall time, so a rerun gives the same text):
    /// what the weights file's note holds.
    pub fn summary(&self) -> String {
        let outs: Vec<String> = self
            .outputs
            .iter()
            .map(|o| {
                format!(
                    "{}: {} models ({}), test RMSE {:.4e} (physical) {:.4e} (normalized)",
                    o.name,
                    o.train_rmse.len(),
                    o.stop_reason,
                    o.test_rmse,
                    o.test_rmse_normalized
                )
            })
            .collect();
        let search = if self.subsampled {
            format!(
                "split search on {} training samples (seed {})",
                self.search_samples, self.seed
            )
        } else {
            "split search on all training samples".to_string()
        };
        format!(
            "lolimot; {} samples: train {} / validation {} / test {} in blocks of {} (split \
             seed {}); {search}; {}",
            self.n_train + self.n_validation + self.n_test,
            self.n_train,
            self.n_validation,
            self.n_test,
            self.block,
            self.split_seed,
            outs.join("; ")
        )
    }
}

/// Weights below this are left out of the least squares sums.
const PHI_MIN: f64 = 1e-12;

/// Normal equations of one weighted least squares problem in the scaled
/// regressors `x = [1, (u - c) / sigma]`.
struct Normal {
    p: usize,
    /// Lower triangle of `sum phi x x^T`, row-major `p x p`.
    a: [f64; (MAX_INPUTS + 1) * (MAX_INPUTS + 1)],
    b: [f64; MAX_INPUTS + 1],
    wsum: f64,
}

impl Normal {
    fn new(p: usize) -> Self {
        Self {
            p,
            a: [0.0; (MAX_INPUTS + 1) * (MAX_INPUTS + 1)],
            b: [0.0; MAX_INPUTS + 1],
            wsum: 0.0,
        }
    }

    #[inline]
    fn add(&mut self, u: &[f64], c: &[f64], s: &[f64], phi: f64, t: f64) {
        let p = self.p;
        let mut x = [0.0f64; MAX_INPUTS + 1];
        x[0] = 1.0;
        for j in 0..p - 1 {
            x[j + 1] = (u[j] - c[j]) / s[j];
        }
        for r in 0..p {
            let xr = phi * x[r];
            self.b[r] += xr * t;
            let row = &mut self.a[r * p..r * p + r + 1];
            for q in 0..=r {
                row[q] += xr * x[q];
            }
        }
        self.wsum += phi;
    }

    /// The local model's parameters `[w0, w1..wn]` in unscaled coordinates
    /// (`y = w0 + sum_j w_j u_j`).
    fn solve(&self, c: &[f64], s: &[f64], ridge: f64, w: &mut [f64]) {
        let p = self.p;
        let mut sol = [0.0f64; MAX_INPUTS + 1];
        let mut solved = false;
        for boost in [1.0, 1e3, 1e6] {
            let mut a = self.a;
            let lambda = ridge * boost * self.wsum.max(1e-300);
            for r in 0..p {
                a[r * p + r] += lambda;
            }
            sol[..p].copy_from_slice(&self.b[..p]);
            if cholesky_solve(&mut a[..p * p], &mut sol[..p], p) {
                solved = true;
                break;
            }
        }
        if !solved {
            // A constant: the weighted mean.
            sol[..p].fill(0.0);
            if self.a[0] > 0.0 {
                sol[0] = self.b[0] / self.a[0];
            }
        }
        let mut w0 = sol[0];
        for j in 0..p - 1 {
            w[j + 1] = sol[j + 1] / s[j];
            w0 -= sol[j + 1] * c[j] / s[j];
        }
        w[0] = w0;
    }
}

/// The tree being grown: per local model its rectangle, center, sigma and
/// parameters (row-major).
struct Tree {
    n: usize,
    k_sigma: f64,
    lo: Vec<f64>,
    hi: Vec<f64>,
    centers: Vec<f64>,
    sigmas: Vec<f64>,
    weights: Vec<f64>,
}

#[inline]
fn exponent(u: &[f64], c: &[f64], s: &[f64]) -> f64 {
    let mut q = 0.0;
    for j in 0..u.len() {
        let z = (u[j] - c[j]) / s[j];
        q += z * z;
    }
    -0.5 * q
}

#[inline]
fn local(u: &[f64], w: &[f64]) -> f64 {
    let mut y = w[0];
    for j in 0..u.len() {
        y += w[j + 1] * u[j];
    }
    y
}

/// Center and sigma of a rectangle.
fn rect_gaussian(lo: &[f64], hi: &[f64], k_sigma: f64, c: &mut [f64], s: &mut [f64]) {
    for j in 0..lo.len() {
        c[j] = 0.5 * (lo[j] + hi[j]);
        s[j] = (k_sigma * (hi[j] - lo[j])).max(1e-300);
    }
}

impl Tree {
    fn root(n: usize, k_sigma: f64) -> Self {
        let mut t = Self {
            n,
            k_sigma,
            lo: vec![-1.0; n],
            hi: vec![1.0; n],
            centers: vec![0.0; n],
            sigmas: vec![0.0; n],
            weights: vec![0.0; n + 1],
        };
        rect_gaussian(&t.lo, &t.hi, k_sigma, &mut t.centers, &mut t.sigmas);
        t
    }

    fn m(&self) -> usize {
        self.centers.len() / self.n
    }

    fn c(&self, i: usize) -> &[f64] {
        &self.centers[i * self.n..(i + 1) * self.n]
    }

    fn s(&self, i: usize) -> &[f64] {
        &self.sigmas[i * self.n..(i + 1) * self.n]
    }

    fn w(&self, i: usize) -> &[f64] {
        &self.weights[i * (self.n + 1)..(i + 1) * (self.n + 1)]
    }

    /// Normalized validity functions at `u` into `phi`; returns the output.
    fn phis(&self, u: &[f64], phi: &mut [f64]) -> f64 {
        let m = self.m();
        let mut e_max = f64::NEG_INFINITY;
        for i in 0..m {
            phi[i] = exponent(u, self.c(i), self.s(i));
            e_max = e_max.max(phi[i]);
        }
        let mut den = 0.0;
        for p in &mut phi[..m] {
            *p = (*p - e_max).exp();
            den += *p;
        }
        let mut y = 0.0;
        for i in 0..m {
            phi[i] /= den;
            y += phi[i] * local(u, self.w(i));
        }
        y
    }

    fn rmse(&self, u: &[f64], t: &[f64]) -> f64 {
        let mut phi = [0.0f64; MAX_MODELS];
        let mut sum = 0.0;
        for (r, &tr) in t.iter().enumerate() {
            let e = self.phis(&u[r * self.n..(r + 1) * self.n], &mut phi) - tr;
            sum += e * e;
        }
        (sum / t.len().max(1) as f64).sqrt()
    }

    /// Re-estimates every local model by weighted least squares on (u, t).
    fn fit_all(&mut self, u: &[f64], t: &[f64], ridge: f64) {
        let (n, m) = (self.n, self.m());
        let mut normals: Vec<Normal> = (0..m).map(|_| Normal::new(n + 1)).collect();
        let mut phi = [0.0f64; MAX_MODELS];
        for (r, &tr) in t.iter().enumerate() {
            let ur = &u[r * n..(r + 1) * n];
            self.phis(ur, &mut phi);
            for i in 0..m {
                if phi[i] > PHI_MIN {
                    normals[i].add(ur, self.c(i), self.s(i), phi[i], tr);
                }
            }
        }
        for (i, nm) in normals.iter().enumerate() {
            let mut w = [0.0f64; MAX_INPUTS + 1];
            nm.solve(self.c(i), self.s(i), ridge, &mut w[..n + 1]);
            self.weights[i * (n + 1)..(i + 1) * (n + 1)].copy_from_slice(&w[..n + 1]);
        }
    }

    fn into_lolimot(self) -> Result<Lolimot, String> {
        Lolimot::new(self.n, self.centers, self.sigmas, self.weights)
    }
}

/// The best split of one local model found by [`search_split`].
struct Candidate {
    axis: usize,
    sse: f64,
    w_a: [f64; MAX_INPUTS + 1],
    w_b: [f64; MAX_INPUTS + 1],
}

/// Scratch vectors of the split search, one entry per search sample.
struct Scratch {
    off: Vec<f64>,
    s_other: Vec<f64>,
    y_other: Vec<f64>,
    mu_a: Vec<f64>,
    mu_b: Vec<f64>,
}

/// Tries halving local model `i` along each axis; returns the split with
/// the lowest total squared error on the search set (u, t), if any split
/// leaves both halves with enough samples.
fn search_split(
    tree: &Tree,
    i: usize,
    u: &[f64],
    t: &[f64],
    cfg: &LolimotConfig,
    min_eff: f64,
    sc: &mut Scratch,
) -> Option<Candidate> {
    let (n, m) = (tree.n, tree.m());
    // The other models' contributions, relative to each sample's largest
    // exponent (so nothing underflows).
    for r in 0..t.len() {
        let ur = &u[r * n..(r + 1) * n];
        let mut e = [0.0f64; MAX_MODELS];
        let mut off = f64::NEG_INFINITY;
        for k in 0..m {
            e[k] = exponent(ur, tree.c(k), tree.s(k));
            off = off.max(e[k]);
        }
        let (mut so, mut yo) = (0.0, 0.0);
        for k in 0..m {
            if k != i {
                let mu = (e[k] - off).exp();
                so += mu;
                yo += mu * local(ur, tree.w(k));
            }
        }
        sc.off[r] = off;
        sc.s_other[r] = so;
        sc.y_other[r] = yo;
    }
    let lo = &tree.lo[i * n..(i + 1) * n];
    let hi = &tree.hi[i * n..(i + 1) * n];
    let mut best: Option<Candidate> = None;
    for axis in 0..n {
        let mid = 0.5 * (lo[axis] + hi[axis]);
        let (mut lo_b, mut hi_a) = ([0.0f64; MAX_INPUTS], [0.0f64; MAX_INPUTS]);
        lo_b[..n].copy_from_slice(lo);
        hi_a[..n].copy_from_slice(hi);
        hi_a[axis] = mid;
        lo_b[axis] = mid;
        let (mut ca, mut sa, mut cb, mut sb) = (
            [0.0f64; MAX_INPUTS],
            [0.0f64; MAX_INPUTS],
            [0.0f64; MAX_INPUTS],
            [0.0f64; MAX_INPUTS],
        );
        rect_gaussian(lo, &hi_a[..n], cfg.k_sigma, &mut ca[..n], &mut sa[..n]);
        rect_gaussian(&lo_b[..n], hi, cfg.k_sigma, &mut cb[..n], &mut sb[..n]);
        let (ca, sa, cb, sb) = (&ca[..n], &sa[..n], &cb[..n], &sb[..n]);
        let mut na = Normal::new(n + 1);
        let mut nb = Normal::new(n + 1);
        for r in 0..t.len() {
            let ur = &u[r * n..(r + 1) * n];
            let mu_a = (exponent(ur, ca, sa) - sc.off[r]).exp();
            let mu_b = (exponent(ur, cb, sb) - sc.off[r]).exp();
            sc.mu_a[r] = mu_a;
            sc.mu_b[r] = mu_b;
            let den = sc.s_other[r] + mu_a + mu_b;
            let (pa, pb) = (mu_a / den, mu_b / den);
            if pa > PHI_MIN {
                na.add(ur, ca, sa, pa, t[r]);
            }
            if pb > PHI_MIN {
                nb.add(ur, cb, sb, pb, t[r]);
            }
        }
        if na.wsum < min_eff || nb.wsum < min_eff {
            continue;
        }
        let mut w_a = [0.0f64; MAX_INPUTS + 1];
        let mut w_b = [0.0f64; MAX_INPUTS + 1];
        na.solve(ca, sa, cfg.ridge, &mut w_a[..n + 1]);
        nb.solve(cb, sb, cfg.ridge, &mut w_b[..n + 1]);
        let mut sse = 0.0;
        for r in 0..t.len() {
            let ur = &u[r * n..(r + 1) * n];
            let (mu_a, mu_b) = (sc.mu_a[r], sc.mu_b[r]);
            let y =
                (sc.y_other[r] + mu_a * local(ur, &w_a[..n + 1]) + mu_b * local(ur, &w_b[..n + 1]))
                    / (sc.s_other[r] + mu_a + mu_b);
            sse += (y - t[r]) * (y - t[r]);
        }
        if best.as_ref().is_none_or(|b| sse < b.sse) {
            best = Some(Candidate {
                axis,
                sse,
                w_a,
                w_b,
            });
        }
    }
    best
}

/// Trains one LOLIMOT model per output on `data`.
///
/// The samples are split into training, validation and test sets by
/// contiguous blocks ([`split_blocks`]) and scaled to [-1, 1] by the
/// training set's ranges. For each output, the algorithm starts with one
/// local linear model over the whole normalized input hyper-rectangle
/// [-1, 1]^n; in each iteration it takes the local model with the largest
/// local loss `I_i = sum_s Phi_i(u_s) e_s^2`, tries halving its rectangle
/// along each input axis, places the two new Gaussians at the halves'
/// centres with `sigma_j = k_sigma * extent_j`, re-normalizes the validity
/// functions, estimates the two new models by weighted least squares
/// (weights `Phi`, a tiny ridge) and keeps the split with the lowest total
/// squared error. If no split of that model leaves both halves with enough
/// samples it tries the next worst model. With `reestimate_all`, all local
/// models are then re-estimated on the whole training set. It stops at
/// `max_models`, when the training RMSE (normalized) falls below
/// `target_rmse`, or when no model can be split.
///
/// If the training set has more than `max_search_samples` samples, the
/// split search uses a random subset of that size (the report says so).
/// Single-threaded and deterministic. The surrogate's slot is `unassigned`,
/// its period and names are the data set's, its note the report's
/// [`summary`](LolimotReport::summary).
pub fn train_lolimot(
    data: &Dataset,
    config: &LolimotConfig,
) -> Result<(Surrogate, LolimotReport), String> {
    let start = Instant::now();
    data.check_finite()?;
    if config.max_models == 0 || config.max_models > MAX_MODELS {
        return Err(format!(
            "max_models is {}, 1 to {MAX_MODELS} are supported",
            config.max_models
        ));
    }
    if !(config.k_sigma.is_finite() && (0.05..=10.0).contains(&config.k_sigma)) {
        return Err(format!(
            "k_sigma is {:?}, it must be in [0.05, 10]",
            config.k_sigma
        ));
    }
    if !(config.ridge.is_finite() && config.ridge >= 0.0 && config.target_rmse >= 0.0) {
        return Err("ridge and target_rmse must be finite and >= 0".into());
    }
    if config.max_search_samples == 0 {
        return Err("max_search_samples must be > 0".into());
    }
    let (n, n_out) = (data.n_inputs(), data.n_outputs());
    let split = split_blocks(
        data.len(),
        config.block,
        config.train_fraction,
        config.validation_fraction,
        config.split_seed,
    )?;
    let norm = normalize(data, &split);
    let gather_u = |rows: &[usize]| -> Vec<f64> {
        rows.iter()
            .flat_map(|&r| norm.x[r * n..(r + 1) * n].iter().copied())
            .collect()
    };
    let gather_t = |rows: &[usize], k: usize| -> Vec<f64> {
        rows.iter().map(|&r| norm.t[r * n_out + k]).collect()
    };
    let mut search_rows = split.train.clone();
    let subsampled = search_rows.len() > config.max_search_samples;
    if subsampled {
        Rng::new(config.seed).shuffle(&mut search_rows);
        search_rows.truncate(config.max_search_samples);
        search_rows.sort_unstable();
    }
    let u_train = gather_u(&split.train);
    let u_val = gather_u(&split.validation);
    let u_search = gather_u(&search_rows);
    let n_search = search_rows.len();
    let min_eff = config.min_effective_samples.max((n + 2) as f64);
    let mut scratch = Scratch {
        off: vec![0.0; n_search],
        s_other: vec![0.0; n_search],
        y_other: vec![0.0; n_search],
        mu_a: vec![0.0; n_search],
        mu_b: vec![0.0; n_search],
    };

    let mut trees = Vec::with_capacity(n_out);
    let mut reports = Vec::with_capacity(n_out);
    for k in 0..n_out {
        let name = data.output_names()[k].clone();
        let t_train = gather_t(&split.train, k);
        let t_val = gather_t(&split.validation, k);
        let t_search = gather_t(&search_rows, k);
        let mut tree = Tree::root(n, config.k_sigma);
        tree.fit_all(&u_train, &t_train, config.ridge);
        let mut train_rmse = vec![tree.rmse(&u_train, &t_train)];
        let mut val_rmse = vec![tree.rmse(&u_val, &t_val)];
        let mut splits = Vec::new();
        let stop_reason;
        loop {
            let rmse = train_rmse[train_rmse.len() - 1];
            if rmse < config.target_rmse {
                stop_reason = format!("training RMSE below the target {:e}", config.target_rmse);
                break;
            }
            if tree.m() >= config.max_models {
                stop_reason = format!("max_models {}", config.max_models);
                break;
            }
            // Local losses on the search set.
            let m = tree.m();
            let mut loss = vec![0.0; m];
            let mut phi = [0.0f64; MAX_MODELS];
            for r in 0..n_search {
                let y = tree.phis(&u_search[r * n..(r + 1) * n], &mut phi);
                let e2 = (y - t_search[r]) * (y - t_search[r]);
                for i in 0..m {
                    loss[i] += phi[i] * e2;
                }
            }
            let mut order: Vec<usize> = (0..m).collect();
            order.sort_by(|&a, &b| loss[b].total_cmp(&loss[a]).then(a.cmp(&b)));
            let mut chosen = None;
            for &i in &order {
                if let Some(c) = search_split(
                    &tree,
                    i,
                    &u_search,
                    &t_search,
                    config,
                    min_eff,
                    &mut scratch,
                ) {
                    chosen = Some((i, c));
                    break;
                }
            }
            let Some((i, cand)) = chosen else {
                stop_reason = "no local model can be split (too few samples)".into();
                break;
            };
            // Apply: model i becomes the lower half, the upper half is new.
            let mid = 0.5 * (tree.lo[i * n + cand.axis] + tree.hi[i * n + cand.axis]);
            let mut lo_b = tree.lo[i * n..(i + 1) * n].to_vec();
            let hi_b = tree.hi[i * n..(i + 1) * n].to_vec();
            lo_b[cand.axis] = mid;
            tree.hi[i * n + cand.axis] = mid;
            tree.lo.extend_from_slice(&lo_b);
            tree.hi.extend_from_slice(&hi_b);
            tree.centers.extend(std::iter::repeat_n(0.0, n));
            tree.sigmas.extend(std::iter::repeat_n(0.0, n));
            for q in [i, m] {
                let (lo, hi) = (&tree.lo[q * n..(q + 1) * n], &tree.hi[q * n..(q + 1) * n]);
                rect_gaussian(
                    lo,
                    hi,
                    tree.k_sigma,
                    &mut tree.centers[q * n..(q + 1) * n],
                    &mut tree.sigmas[q * n..(q + 1) * n],
                );
            }
            tree.weights[i * (n + 1)..(i + 1) * (n + 1)].copy_from_slice(&cand.w_a[..n + 1]);
            tree.weights.extend_from_slice(&cand.w_b[..n + 1]);
            if config.reestimate_all {
                tree.fit_all(&u_train, &t_train, config.ridge);
            }
            splits.push((i, cand.axis));
            train_rmse.push(tree.rmse(&u_train, &t_train));
            val_rmse.push(tree.rmse(&u_val, &t_val));
            if config.verbose {
                eprintln!(
                    "lolimot '{name}': {} models, split model {i} along input {} ('{}'), train \
                     RMSE {:.4e}, validation RMSE {:.4e} (normalized), {:.1} s",
                    tree.m(),
                    cand.axis,
                    data.input_names()[cand.axis],
                    train_rmse[train_rmse.len() - 1],
                    val_rmse[val_rmse.len() - 1],
                    start.elapsed().as_secs_f64()
                );
            }
        }
        trees.push(tree.into_lolimot()?);
        reports.push(LolimotOutputReport {
            name,
            train_rmse,
            validation_rmse: val_rmse,
            splits,
            stop_reason,
            test_rmse: 0.0,
            test_rmse_normalized: 0.0,
        });
    }

    let mut surrogate = Surrogate::new(
        Model::Lolimot(trees),
        data.input_names().to_vec(),
        data.output_names().to_vec(),
        norm.input_scaling,
        norm.output_scaling,
    )?;
    surrogate.set_period(data.period())?;
    let (test_mse, test_rmse, test_rmse_n) = test_errors(&surrogate, data, &split.test);
    for (k, r) in reports.iter_mut().enumerate() {
        r.test_rmse = test_rmse[k];
        r.test_rmse_normalized = test_rmse_n[k];
    }
    let report = LolimotReport {
        outputs: reports,
        test_mse,
        n_train: split.train.len(),
        n_validation: split.validation.len(),
        n_test: split.test.len(),
        search_samples: n_search,
        subsampled,
        block: split.block,
        seed: config.seed,
        split_seed: config.split_seed,
        wall_time: start.elapsed(),
    };
    surrogate.set_note(&report.summary());
    if config.verbose {
        eprintln!(
            "lolimot done in {:.1} s: {}",
            report.wall_time.as_secs_f64(),
            surrogate.note()
        );
    }
    Ok((surrogate, report))
}
