//! Benchmark of the frequency sweep of Grossschmidt and Harf (2017): HoseH,
//! p2 oscillating by 3 bar (3e5 Pa) around 100 bar (1e7 Pa) at 300
//! frequencies from 2 to 150 Hz, for n = 1 and n = 7 segments, through the
//! packaged FMU's FMI 3 functions, with the paper's reported times (120 s
//! and 799 s) and the independent Python reference's
//! (validation/python/reference/hose_line.py: 196 s and 452 s) side by side,
//! and the resonance found against the model description's (the status
//! column: within 1 % and 0.5 dB). p1 / p2 is a pressure ratio, so its peak
//! ratio is in plain dB.
//!
//! Run: `cargo run --release -p validation --bin bench-hose-sweep`

use anyhow::Result;
use clap::Parser;
use std::path::PathBuf;
use validation::fmi::fmu3::Fmu3;
use validation::freq::{SweepOptions, frequencies, resonances, sweep};
use validation::repo_root;

/// Time the 300-frequency sweep of the H-form hose.
#[derive(Parser)]
#[command(about)]
struct Args {
    /// The FMI 3 FMU.
    #[arg(long, default_value = "dist/fmi3/HoseH.fmu")]
    fmu: PathBuf,
    /// Integrator tolerance during the sweep (also run at 1e-6 for comparison).
    #[arg(long, default_value_t = 1e-4)]
    rtol: f64,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let path = if args.fmu.is_absolute() {
        args.fmu.clone()
    } else {
        repo_root().join(&args.fmu)
    };
    let load_started = std::time::Instant::now();
    let fmu = Fmu3::load(&path)?;
    let load = load_started.elapsed().as_secs_f64();
    println!(
        "HoseH sweep p2 -> p1, 2..150 Hz, 300 frequencies, p2 = 100 bar + 3 bar sin(2 pi f t) \
         (FMU load {load:.2} s)"
    );
    println!(
        "{:>2} {:>7} {:>9} {:>10} {:>12} {:>11} {:>11} {:>14} {:>10} {:>22}  status",
        "n",
        "rtol",
        "wall [s]",
        "paper [s]",
        "x vs paper",
        "Python [s]",
        "x vs Python",
        "resonance [Hz]",
        "ratio [dB]",
        "model description"
    );
    for (n, paper, python, expected) in [
        (1, 120.0, 196.0, (105.7, 23.7)),
        (7, 799.0, 452.0, (97.5, 26.8)),
    ] {
        for rtol in [args.rtol, 1e-6] {
            let opts = SweepOptions {
                input: "p2".into(),
                outputs: vec!["p1".into()],
                amplitude: 3e5,
                settings: vec![("n".into(), f64::from(n))],
                frequencies: frequencies(2.0, 150.0, 300, false),
                settle: 0.2,
                transient: 0.2,
                periods: 5,
                steps_per_period: 32,
                max_step: 1e-3,
                rtol,
            };
            let r = sweep(&fmu, &opts, false)?;
            let found = resonances(&r.points, 0)
                .into_iter()
                .max_by(|a, b| a.1.total_cmp(&b.1));
            let (f, db) = found.unwrap_or((f64::NAN, f64::NAN));
            println!(
                "{n:>2} {rtol:>7.0e} {:>9.2} {paper:>10.0} {:>11.0}x {python:>11.0} {:>10.0}x {f:>14.2} {db:>10.2} {:>22}  {}",
                r.wall,
                paper / r.wall,
                python / r.wall,
                format!("{} Hz / {} dB", expected.0, expected.1),
                status(found, expected)
            );
        }
    }
    Ok(())
}

/// Whether a sweep found the resonance of the model description: within
/// 1 % in frequency and 0.5 dB in peak ratio (the tolerances of the hose
/// test, validation/tests/hose_published_numbers.rs).
fn status(found: Option<(f64, f64)>, expected: (f64, f64)) -> String {
    let Some((f, db)) = found else {
        return "NO RESONANCE found".into();
    };
    let mut problems = Vec::new();
    let rel = f / expected.0 - 1.0;
    // NaN counts as off.
    let within = |x: f64, tol: f64| x.abs() <= tol;
    if !within(rel, 0.01) {
        problems.push(format!("resonance {f:.2} Hz is {:+.2} % off", 100.0 * rel));
    }
    if !within(db - expected.1, 0.5) {
        problems.push(format!(
            "ratio {db:.2} dB is {:+.2} dB off",
            db - expected.1
        ));
    }
    if problems.is_empty() {
        "ok".into()
    } else {
        format!("OFF: {}", problems.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::status;

    #[test]
    fn the_status_compares_with_the_model_description() {
        assert_eq!(status(Some((97.82, 26.68)), (97.5, 26.8)), "ok");
        assert_eq!(
            status(Some((99.0, 27.5)), (97.5, 26.8)),
            "OFF: resonance 99.00 Hz is +1.54 % off, ratio 27.50 dB is +0.70 dB off"
        );
        assert!(status(Some((f64::NAN, 26.8)), (97.5, 26.8)).starts_with("OFF"));
        assert_eq!(status(None, (97.5, 26.8)), "NO RESONANCE found");
    }
}
