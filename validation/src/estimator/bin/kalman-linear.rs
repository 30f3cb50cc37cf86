//! `kalman-linear`: the state estimator's Kalman filter
//! (`validation::estimator::kalman`) on a linear system given in a JSON file, for the
//! cross-check against an independent implementation (filterpy, in
//! `validation/python/tests/test_kalman_crosscheck.py`).
//!
//! ```text
//! kalman-linear --spec SYSTEM.json --out ESTIMATES.csv
//! ```
//!
//! The JSON holds `F` (n x n), `H` (m x n), `Q` (n x n), `R` (m x m) as
//! lists of rows, `x0` (n), `P0` (n x n) and `z`, the measurements (a list
//! of m-vectors). Each sample is a prediction `x = F x`, `P = F P F^T + Q`
//! then an update with `z_k`. The CSV has one row per sample: `k`, the
//! estimate `x_0 .. x_{n-1}`, then the covariance row by row.

use anyhow::{Context, Result, bail};
use clap::Parser;
use fmu_core::nalgebra::{DMatrix, DVector};
use std::path::PathBuf;
use validation::estimator::kalman::Ekf;

#[derive(Debug, Parser)]
#[command(
    name = "kalman-linear",
    about = "Run the estimator's Kalman filter on a linear system from a JSON file"
)]
struct Args {
    /// The system and measurements (JSON: F, H, Q, R, x0, P0, z).
    #[arg(long)]
    spec: PathBuf,
    /// Where to write the estimates (CSV).
    #[arg(long)]
    out: PathBuf,
}

#[derive(serde::Deserialize)]
#[allow(non_snake_case)]
struct Spec {
    F: Vec<Vec<f64>>,
    H: Vec<Vec<f64>>,
    Q: Vec<Vec<f64>>,
    R: Vec<Vec<f64>>,
    x0: Vec<f64>,
    P0: Vec<Vec<f64>>,
    z: Vec<Vec<f64>>,
}

/// A matrix from a list of rows of equal length.
fn matrix(name: &str, rows: &[Vec<f64>]) -> Result<DMatrix<f64>> {
    let cols = rows.first().map_or(0, Vec::len);
    if rows.iter().any(|r| r.len() != cols) {
        bail!("{name}: rows of different lengths");
    }
    Ok(DMatrix::from_fn(rows.len(), cols, |i, j| rows[i][j]))
}

fn main() -> Result<()> {
    let args = Args::parse();
    let text = std::fs::read_to_string(&args.spec)
        .with_context(|| format!("cannot read {}", args.spec.display()))?;
    let spec: Spec = serde_json::from_str(&text).context("the system file is not valid")?;
    let f = matrix("F", &spec.F)?;
    let h = matrix("H", &spec.H)?;
    let q = matrix("Q", &spec.Q)?;
    let r = matrix("R", &spec.R)?;
    let mut ekf = Ekf::new(DVector::from_vec(spec.x0), matrix("P0", &spec.P0)?)?;
    let n = ekf.x.len();
    let mut out = csv::Writer::from_path(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut header = vec!["k".to_owned()];
    header.extend((0..n).map(|i| format!("x{i}")));
    header.extend((0..n * n).map(|i| format!("P{}_{}", i / n, i % n)));
    out.write_record(&header)?;
    for (k, z) in spec.z.iter().enumerate() {
        let x_next = &f * &ekf.x;
        ekf.predict(x_next, &f, &q)
            .with_context(|| format!("prediction {k}"))?;
        let z = DVector::from_column_slice(z);
        let predicted = &h * &ekf.x;
        ekf.update(&z, &predicted, &h, &r)
            .with_context(|| format!("update {k}"))?;
        let mut row = vec![k.to_string()];
        row.extend(ekf.x.iter().map(|v| format!("{v:?}")));
        // Row by row (nalgebra stores columns).
        row.extend(ekf.p.transpose().iter().map(|v| format!("{v:?}")));
        out.write_record(&row)?;
    }
    out.flush()?;
    println!(
        "kalman-linear: {} samples of a {n}-state system written to {}",
        spec.z.len(),
        args.out.display()
    );
    Ok(())
}
