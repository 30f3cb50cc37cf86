//! Trained surrogate models that circuit FMUs can put in place of stiff
//! sub-equations.
//!
//! The crate has three parts:
//!
//! - **Inference** ([`Scaling`], [`Mlp`], [`Lolimot`], [`Surrogate`]): the
//!   models own their parameters in `Vec`s allocated when they are built or
//!   loaded; every `eval` and `eval_with_jacobian` works on fixed-size stack
//!   buffers and allocates nothing, so it may run inside an FMU's `doStep`.
//!   Sizes are bounded by [`MAX_INPUTS`], [`MAX_OUTPUTS`], [`MAX_WIDTH`],
//!   [`MAX_HIDDEN_LAYERS`] and [`MAX_MODELS`]; building or loading anything
//!   larger fails with a message.
//! - **The weights file** ([`Surrogate::to_text`], [`Surrogate::parse`],
//!   [`Surrogate::check_shape`]): a line-oriented text format with a SHA-256
//!   checksum, described in the [`file`](mod@file) module.
//! - **Training** ([`train_mlp()`], [`train_lolimot()`]; the `training`
//!   feature, which tools enable and FMUs do not): single-threaded and
//!   reproducible (the same data, configuration and seed give the same bits),
//!   on a [`Dataset`] split into training, validation and test sets by
//!   contiguous blocks ([`split_blocks`]).
//!
//! ```
//! # #[cfg(feature = "training")]
//! # {
//! use surrogates::{Dataset, MlpConfig, Surrogate, train_mlp};
//!
//! // A static map p = k Q |Q| (an orifice), Q in m^3/s, p in Pa.
//! let mut data = Dataset::new(1, 1)?.with_names(&["Q"], &["dp"])?;
//! for s in 0..600 {
//!     let q = 1e-3 * (s as f64 / 300.0 - 1.0);
//!     data.push(&[q], &[2e12 * q * q.abs()]);
//! }
//! let config = MlpConfig { hidden: vec![6], block: 20, max_epochs: 30, ..MlpConfig::default() };
//! let (mut model, report) = train_mlp(&data, &config)?;
//! model.set_slot("example/orifice")?;
//!
//! // What ships in the FMU, and how the FMU reads and checks it.
//! let text = model.to_text();
//! let loaded = Surrogate::load(text.as_bytes(), "orifice.txt", "example/orifice", &["Q"], &["dp"])?;
//! let (mut dp, mut jac) = ([0.0], [0.0]);
//! loaded.eval_with_jacobian(&[5e-4], &mut dp, &mut jac); // dp in Pa, d dp / d Q in Pa s/m^3
//! assert!(dp[0].is_finite() && jac[0] > 0.0);
//! # assert_eq!(report.train_mse.len(), report.validation_mse.len());
//! # }
//! # Ok::<(), String>(())
//! ```
//!
//! All quantities are SI, all numbers `f64`. The models work in normalized
//! space (every column mapped to [-1, 1] by its training range); the
//! [`Surrogate`] wrapper takes and returns physical values.

pub mod file;
pub mod lolimot;
pub mod mlp;
pub mod scaling;
pub mod surrogate;

pub use lolimot::Lolimot;
pub use mlp::Mlp;
pub use scaling::Scaling;
pub use surrogate::{Kind, Model, Surrogate};

// Training is what a tool runs, not an FMU: behind the `training` feature,
// so that the element libraries an FMU is built from compile inference
// and the weights file only.
#[cfg(feature = "training")]
pub mod data;
#[cfg(feature = "training")]
mod linalg;
#[cfg(feature = "training")]
pub mod rng;
#[cfg(feature = "training")]
pub mod train_lolimot;
#[cfg(feature = "training")]
pub mod train_mlp;

#[cfg(feature = "training")]
pub use data::{Dataset, Split, split_blocks};
#[cfg(feature = "training")]
pub use rng::Rng;
#[cfg(feature = "training")]
pub use train_lolimot::{LolimotConfig, LolimotOutputReport, LolimotReport, train_lolimot};
#[cfg(feature = "training")]
pub use train_mlp::{EpochStats, MlpConfig, TrainReport, train_mlp, train_mlp_with_progress};

/// Largest number of inputs of a model.
pub const MAX_INPUTS: usize = 16;
/// Largest number of outputs of a model.
pub const MAX_OUTPUTS: usize = 8;
/// Largest width (neurons) of an MLP hidden layer.
pub const MAX_WIDTH: usize = 64;
/// Largest number of MLP hidden layers.
pub const MAX_HIDDEN_LAYERS: usize = 3;
/// Largest number of local linear models in one LOLIMOT output.
pub const MAX_MODELS: usize = 64;

#[cfg(all(test, feature = "training"))]
mod tests;
