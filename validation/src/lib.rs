//! Validation helpers: the scenarios and reference traces in the FMI
//! Cross-Check layout and the error metrics every check and benchmark
//! reports ([`scenario`]), the FMI masters the tools and tests drive the
//! FMUs with ([`fmi_master`], [`fmu3`]), the frequency response ([`freq`]),
//! the co-simulation tools' error tables, traces and plots ([`cosim`]),
//! display units ([`units`]), plots ([`plot`]) and the benchmarks' verdicts
//! ([`bench`]).

pub mod actuator_data;
pub mod bench;
pub mod cosim;
pub mod estimator;
pub mod estimator_experiment;
pub mod fmi_master;
pub mod fmu3;
pub mod freq;
pub mod kalman;
pub mod me_stepper;
pub mod plot;
pub mod scenario;
pub mod surrogate_data;
pub mod units;

pub use scenario::{
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
