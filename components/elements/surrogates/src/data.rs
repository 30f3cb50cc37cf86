//! Training data and its split into training, validation and test sets.

use crate::surrogate::check_token;
use crate::{MAX_INPUTS, MAX_OUTPUTS, Rng};

/// Samples of a map from `n_in` inputs to `n_out` targets, in physical
/// units, row-major: sample `s` is `inputs[s * n_in..(s + 1) * n_in]` and
/// `targets[s * n_out..(s + 1) * n_out]`. Samples of a time series are kept
/// in time order (see [`split_blocks`]). Also carries the column names and
/// the sample period that a trained [`Surrogate`](crate::Surrogate) takes
/// over.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    n_in: usize,
    n_out: usize,
    inputs: Vec<f64>,
    targets: Vec<f64>,
    input_names: Vec<String>,
    output_names: Vec<String>,
    period: f64,
}

impl Dataset {
    /// An empty data set; the columns are named `u0, u1, ...` and `y0, y1,
    /// ...` until [`with_names`](Self::with_names), the period is 0.
    pub fn new(n_in: usize, n_out: usize) -> Result<Self, String> {
        if n_in == 0 || n_in > MAX_INPUTS {
            return Err(format!("{n_in} inputs, 1 to {MAX_INPUTS} are supported"));
        }
        if n_out == 0 || n_out > MAX_OUTPUTS {
            return Err(format!("{n_out} outputs, 1 to {MAX_OUTPUTS} are supported"));
        }
        Ok(Self {
            n_in,
            n_out,
            inputs: Vec::new(),
            targets: Vec::new(),
            input_names: (0..n_in).map(|j| format!("u{j}")).collect(),
            output_names: (0..n_out).map(|k| format!("y{k}")).collect(),
            period: 0.0,
        })
    }

    /// A data set from row-major input and target matrices. Fails if the
    /// lengths do not give the same number of samples, or a value is not
    /// finite.
    pub fn from_rows(
        n_in: usize,
        n_out: usize,
        inputs: Vec<f64>,
        targets: Vec<f64>,
    ) -> Result<Self, String> {
        let mut d = Self::new(n_in, n_out)?;
        if !inputs.len().is_multiple_of(n_in) || !targets.len().is_multiple_of(n_out) {
            return Err(format!(
                "{} input values is not a multiple of {n_in} inputs, or {} target values \
                 not a multiple of {n_out} outputs",
                inputs.len(),
                targets.len()
            ));
        }
        if inputs.len() / n_in != targets.len() / n_out {
            return Err(format!(
                "{} input rows but {} target rows",
                inputs.len() / n_in,
                targets.len() / n_out
            ));
        }
        d.inputs = inputs;
        d.targets = targets;
        d.check_finite()?;
        Ok(d)
    }

    /// Names the columns (each one token without white space, no repeats).
    pub fn with_names(mut self, inputs: &[&str], outputs: &[&str]) -> Result<Self, String> {
        for (what, names, n) in [
            ("input", inputs, self.n_in),
            ("output", outputs, self.n_out),
        ] {
            if names.len() != n {
                return Err(format!("{n} {what}s but {} names", names.len()));
            }
            for (k, name) in names.iter().enumerate() {
                check_token(&format!("{what} name {k}"), name)?;
                if names[..k].contains(name) {
                    return Err(format!("{what} name '{name}' appears twice"));
                }
            }
        }
        self.input_names = inputs.iter().map(|s| s.to_string()).collect();
        self.output_names = outputs.iter().map(|s| s.to_string()).collect();
        Ok(self)
    }

    /// Sets the sample period (s) of the time series; 0 for a static map.
    pub fn with_period(mut self, period: f64) -> Result<Self, String> {
        if !(period.is_finite() && period >= 0.0) {
            return Err(format!(
                "the period must be finite and >= 0 s, it is {period:?}"
            ));
        }
        self.period = period;
        Ok(self)
    }

    /// Appends a sample.
    ///
    /// # Panics
    /// If a slice has the wrong length.
    pub fn push(&mut self, input: &[f64], target: &[f64]) {
        assert_eq!(
            input.len(),
            self.n_in,
            "Dataset::push: wrong number of inputs"
        );
        assert_eq!(
            target.len(),
            self.n_out,
            "Dataset::push: wrong number of targets"
        );
        self.inputs.extend_from_slice(input);
        self.targets.extend_from_slice(target);
    }

    /// Fails, naming the sample and column, if a value is not finite.
    pub fn check_finite(&self) -> Result<(), String> {
        if let Some(k) = self.inputs.iter().position(|v| !v.is_finite()) {
            return Err(format!(
                "sample {} input {} ('{}') is not finite ({:?})",
                k / self.n_in,
                k % self.n_in,
                self.input_names[k % self.n_in],
                self.inputs[k]
            ));
        }
        if let Some(k) = self.targets.iter().position(|v| !v.is_finite()) {
            return Err(format!(
                "sample {} target {} ('{}') is not finite ({:?})",
                k / self.n_out,
                k % self.n_out,
                self.output_names[k % self.n_out],
                self.targets[k]
            ));
        }
        Ok(())
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.inputs.len() / self.n_in
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// Number of inputs.
    pub fn n_inputs(&self) -> usize {
        self.n_in
    }

    /// Number of outputs (targets).
    pub fn n_outputs(&self) -> usize {
        self.n_out
    }

    /// Inputs of sample `s`.
    pub fn input(&self, s: usize) -> &[f64] {
        &self.inputs[s * self.n_in..(s + 1) * self.n_in]
    }

    /// Targets of sample `s`.
    pub fn target(&self, s: usize) -> &[f64] {
        &self.targets[s * self.n_out..(s + 1) * self.n_out]
    }

    /// All inputs, row-major `len() x n_in`.
    pub fn inputs(&self) -> &[f64] {
        &self.inputs
    }

    /// All targets, row-major `len() x n_out`.
    pub fn targets(&self) -> &[f64] {
        &self.targets
    }

    /// The input names.
    pub fn input_names(&self) -> &[String] {
        &self.input_names
    }

    /// The output names.
    pub fn output_names(&self) -> &[String] {
        &self.output_names
    }

    /// The sample period (s); 0 for a static map.
    pub fn period(&self) -> f64 {
        self.period
    }
}

/// Sample indices of the training, validation and test sets, each in
/// ascending order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// Training samples.
    pub train: Vec<usize>,
    /// Validation samples (early stopping, model selection).
    pub validation: Vec<usize>,
    /// Test samples (the reported errors).
    pub test: Vec<usize>,
    /// The block length used.
    pub block: usize,
    /// Number of blocks.
    pub n_blocks: usize,
}

/// Splits samples `0..n` into training, validation and test sets by
/// contiguous blocks of `block` samples (the last block may be shorter), so
/// neighbouring samples of a time series stay in one set (except across the
/// borders of blocks). The blocks are shuffled by a generator seeded with
/// `seed`; the first `round(train_fraction * blocks)` go to training, the
/// next `round(validation_fraction * blocks)` to validation, the rest to
/// test, each set getting at least one block. Fails if there are fewer than
/// 3 blocks or the fractions are not in (0, 1) with a sum below 1.
pub fn split_blocks(
    n: usize,
    block: usize,
    train_fraction: f64,
    validation_fraction: f64,
    seed: u64,
) -> Result<Split, String> {
    if block == 0 {
        return Err("the block length must be > 0".into());
    }
    let tf_ok = train_fraction > 0.0 && train_fraction < 1.0;
    let vf_ok = validation_fraction > 0.0 && validation_fraction < 1.0;
    if !(tf_ok && vf_ok && train_fraction + validation_fraction < 1.0) {
        return Err(format!(
            "the training and validation fractions ({train_fraction}, {validation_fraction}) \
             must be in (0, 1) with a sum below 1"
        ));
    }
    let n_blocks = n.div_ceil(block);
    if n_blocks < 3 {
        return Err(format!(
            "{n} samples in blocks of {block} make {n_blocks} blocks; at least 3 are needed \
             (one each for training, validation and test): use a shorter block or more data"
        ));
    }
    let mut order: Vec<usize> = (0..n_blocks).collect();
    Rng::new(seed).shuffle(&mut order);
    let b = n_blocks as f64;
    let n_train = ((train_fraction * b).round() as usize).clamp(1, n_blocks - 2);
    let n_val = ((validation_fraction * b).round() as usize).clamp(1, n_blocks - 1 - n_train);
    let expand = |blocks: &[usize]| -> Vec<usize> {
        let mut blocks = blocks.to_vec();
        blocks.sort_unstable();
        blocks
            .iter()
            .flat_map(|&k| k * block..((k + 1) * block).min(n))
            .collect()
    };
    Ok(Split {
        train: expand(&order[..n_train]),
        validation: expand(&order[n_train..n_train + n_val]),
        test: expand(&order[n_train + n_val..]),
        block,
        n_blocks,
    })
}
