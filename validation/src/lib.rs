//! The validation and benchmarking tools of the circuit FMUs, grouped by
//! what they do. Each folder holds its library modules and, under `bin/`,
//! its command-line tools (their names are listed in `Cargo.toml`):
//!
//! | module | what for | tools |
//! |---|---|---|
//! | [`fmi`] | importing FMUs: the one unpacker, the raw FMI 2/3 C API loaded from the binary, the masters on it | |
//! | [`harness`] | the validation scenarios, reference traces and error metrics; display units; plots; the in-Rust master's Model Exchange integrator | `fmi-runner` |
//! | [`bench`] | the benchmarks' one timed `doStep` loop and their status verdicts | `bench-*` |
//! | [`cosim`] | the co-simulation tools' error tables, traces and plots | `cosim-four-bar`, `cosim-valve-actuator` |
//! | [`freq`] | frequency response through the FMI 3 API | `freq-response` (and `bench-hose-sweep`) |
//! | [`estimator`] | the Kalman-filter state and parameter estimator and its experiment | `estimate`, `estimator-experiment`, `kalman-linear` |
//! | [`training`] | training data of the trained surrogates | `train-surrogates` |
//!
//! The scenario types and metrics every tool uses are re-exported here
//! ([`Scenario`], [`Trace`], [`relative_rms_percent`], ...).

pub mod bench;
pub mod cosim;
pub mod estimator;
pub mod fmi;
pub mod freq;
pub mod harness;
pub mod training;

pub use harness::scenario::{
    Inputs, Interpolation, Options, Scenario, SignalBounds, StepInput, Trace, max_abs_error,
    relative_error, relative_rms_percent, scenario_dir,
};

use std::path::{Path, PathBuf};

/// The repository root (the parent of this crate's folder).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The value below which a fraction `q` (0..1) of the samples lie.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let idx = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles() {
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&s, 1.0), 5.0);
        assert_eq!(percentile(&s, 0.5), 3.0);
        assert!(percentile(&[], 0.5).is_nan());
    }
}
