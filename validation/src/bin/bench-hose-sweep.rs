//! Benchmark of seed 004's frequency sweep (issue 5, point 6): HoseH, p2
//! oscillating by 3e5 Pa around 1e7 Pa at 300 frequencies from 2 to 150 Hz,
//! for n = 1 and n = 7 segments, through the packaged FMU's FMI 3 functions,
//! with the seed's reported times (120 s and 799 s) and the independent
//! Python reference's (196 s and 452 s, model card) side by side, and the
//! resonance found against the card's.
//!
//! Run: `cargo run --release -p validation --bin bench-hose-sweep`

use anyhow::Result;
use clap::Parser;
use std::path::PathBuf;
use validation::fmu3::Fmu3;
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
        "HoseH sweep p2 -> p1, 2..150 Hz, 300 frequencies, amplitude 3e5 Pa (FMU load {load:.2} s)"
    );
    println!(
        "{:>2} {:>7} {:>9} {:>10} {:>12} {:>11} {:>11} {:>13} {:>10}  card resonance / ratio",
        "n",
        "rtol",
        "wall [s]",
        "seed [s]",
        "x vs seed",
        "Python [s]",
        "x vs Python",
        "resonance Hz",
        "ratio dB"
    );
    for (n, seed, python, card) in [
        (1, 120.0, 196.0, "105.7 Hz / 23.7 dB"),
        (7, 799.0, 452.0, "97.5 Hz / 26.8 dB"),
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
            let (f, db) = resonances(&r.points, 0)
                .into_iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap_or((f64::NAN, f64::NAN));
            println!(
                "{n:>2} {rtol:>7.0e} {:>9.2} {seed:>10.0} {:>11.0}x {python:>11.0} {:>10.0}x {f:>13.2} {db:>10.2}  {card}",
                r.wall,
                seed / r.wall,
                python / r.wall
            );
        }
    }
    Ok(())
}
