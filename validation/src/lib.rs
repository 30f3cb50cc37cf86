//! Validation helpers: reference traces in the FMI Cross-Check layout and
//! the error metrics every check and benchmark reports.

use anyhow::{Context, Result, bail};
pub mod fmi_master;
pub mod fmu3;
pub mod freq;

use std::path::{Path, PathBuf};

/// The repository root (the parent of this crate's folder).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// A reference trace: a time column and named signal columns (SI units).
#[derive(Debug, Clone)]
pub struct Trace {
    /// Column names after `time`.
    pub names: Vec<String>,
    /// Sample times, s.
    pub time: Vec<f64>,
    /// One vector per signal, aligned with `time`.
    pub columns: Vec<Vec<f64>>,
}

impl Trace {
    /// Reads a `<Model>_ref.csv` (header `time,<signal>,...`).
    pub fn read_csv(path: &Path) -> Result<Self> {
        let mut reader = csv::Reader::from_path(path)
            .with_context(|| format!("opening reference {}", path.display()))?;
        let headers = reader.headers()?.clone();
        if headers.get(0) != Some("time") {
            bail!("{}: first column must be 'time'", path.display());
        }
        let names: Vec<String> = headers.iter().skip(1).map(str::to_owned).collect();
        let mut time = Vec::new();
        let mut columns = vec![Vec::new(); names.len()];
        for (row, record) in reader.records().enumerate() {
            let record = record?;
            let value = |i: usize| -> Result<f64> {
                record
                    .get(i)
                    .context("short row")?
                    .trim()
                    .parse::<f64>()
                    .with_context(|| format!("{}: row {} column {i}", path.display(), row + 2))
            };
            time.push(value(0)?);
            for (k, col) in columns.iter_mut().enumerate() {
                col.push(value(k + 1)?);
            }
        }
        Ok(Trace {
            names,
            time,
            columns,
        })
    }

    /// The column of a signal.
    pub fn signal(&self, name: &str) -> Option<&[f64]> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| self.columns[i].as_slice())
    }
}

/// A piecewise-constant (step-interpolated) input signal from a scenario's
/// `<Model>_in.csv`: the value at time `t` is that of the last row at or
/// before `t`.
#[derive(Debug, Clone)]
pub struct StepInput {
    trace: Trace,
}

impl StepInput {
    /// Reads `<Model>_in.csv`.
    pub fn read_csv(path: &Path) -> Result<Self> {
        let trace = Trace::read_csv(path)?;
        if trace.time.is_empty() {
            bail!("{}: no rows", path.display());
        }
        Ok(StepInput { trace })
    }

    /// Input names.
    pub fn names(&self) -> &[String] {
        &self.trace.names
    }

    /// Value of input `index` at time `t`; a small tolerance puts a switching
    /// instant computed in floating point on the new value.
    pub fn at(&self, index: usize, t: f64) -> f64 {
        let time = &self.trace.time;
        let k = time.partition_point(|&ti| ti <= t + 1e-9);
        self.trace.columns[index][k.saturating_sub(1)]
    }
}

/// Relative RMS error in %: RMS of the difference over the mean absolute
/// reference value.
pub fn relative_rms_percent(result: &[f64], reference: &[f64]) -> f64 {
    assert_eq!(result.len(), reference.len());
    let n = reference.len() as f64;
    let rms = (result
        .iter()
        .zip(reference)
        .map(|(a, b)| (a - b) * (a - b))
        .sum::<f64>()
        / n)
        .sqrt();
    let mean_abs = reference.iter().map(|v| v.abs()).sum::<f64>() / n;
    100.0 * rms / mean_abs
}

/// Maximum absolute error.
pub fn max_abs_error(result: &[f64], reference: &[f64]) -> f64 {
    result
        .iter()
        .zip(reference)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
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
    fn metrics() {
        let r = [1.0, -1.0, 2.0, -2.0];
        let y = [1.1, -1.0, 2.0, -2.0];
        // RMS of the difference 0.05, mean |ref| 1.5.
        assert!((relative_rms_percent(&y, &r) - 100.0 * 0.05 / 1.5).abs() < 1e-12);
        assert!((max_abs_error(&y, &r) - 0.1).abs() < 1e-12);
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&s, 1.0), 5.0);
        assert_eq!(percentile(&s, 0.5), 3.0);
    }

    #[test]
    fn reads_the_committed_reference() {
        let path =
            repo_root().join("validation/scenarios/OrificeChain/startup/OrificeChain_ref.csv");
        let t = Trace::read_csv(&path).unwrap();
        assert_eq!(t.time.len(), 5001);
        assert_eq!(t.names, ["p1", "p2", "Q1", "Q2", "Q3"]);
        // Card: p1 = 3.385 MPa at 0.1 s.
        assert!((t.signal("p1").unwrap()[100] / 3.385e6 - 1.0).abs() < 1e-3);
    }
}
