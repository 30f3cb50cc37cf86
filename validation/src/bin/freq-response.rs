//! Frequency response of any FMU of the project, through the FMI 3 API: a
//! sinusoid on one input around a settled operating point, the amplitude
//! ratio and phase of chosen outputs per frequency, the resonances, a CSV
//! and (with the project's Python venv) a PNG Bode plot.
//!
//! Every frequency starts from the same settled operating point: the tool
//! settles the FMU once, takes an FMU state snapshot, and restores it before
//! each frequency instead of re-initialising.
//!
//! Example (seed 004's sweep of the H-form hose):
//! `cargo run --release -p validation --bin freq-response -- --fmu dist/fmi3/HoseH.fmu
//!  --input p2 --output p1 --output Q2 --amplitude 3e5 --set n=1 --fmin 2 --fmax 150 --points 300`

use anyhow::{Result, bail};
use clap::Parser;
use std::path::PathBuf;
use validation::fmu3::Fmu3;
use validation::freq::{SweepOptions, frequencies, resonances, sweep, write_csv};
use validation::repo_root;

/// Frequency response of an FMU input -> outputs, with resonances and a Bode plot.
#[derive(Parser, Debug)]
#[command(about, long_about = None)]
struct Args {
    /// The FMI 3 FMU.
    #[arg(long)]
    fmu: PathBuf,
    /// The input to excite (a Float64 input of the FMU).
    #[arg(long)]
    input: String,
    /// Outputs to measure (repeat for several).
    #[arg(long = "output", required = true)]
    outputs: Vec<String>,
    /// Amplitude of the sinusoid, in the input's SI unit.
    #[arg(long)]
    amplitude: f64,
    /// Parameters and operating-point inputs, NAME=VALUE in SI units (repeat);
    /// structural parameters are set in Configuration Mode.
    #[arg(long = "set", value_parser = parse_assignment)]
    settings: Vec<(String, f64)>,
    /// Lowest frequency, Hz.
    #[arg(long, default_value_t = 2.0)]
    fmin: f64,
    /// Highest frequency, Hz.
    #[arg(long, default_value_t = 150.0)]
    fmax: f64,
    /// Number of frequencies.
    #[arg(long, default_value_t = 300)]
    points: usize,
    /// Space the frequencies logarithmically instead of linearly.
    #[arg(long)]
    log: bool,
    /// Time to settle at the operating point before the sweep, s.
    #[arg(long, default_value_t = 1.0)]
    settle: f64,
    /// Time to let the transient of each frequency decay, s (at least 3
    /// periods). The default suits resonances with quality factors up to ~20
    /// near 100 Hz (decay to below 0.1 %).
    #[arg(long, default_value_t = 0.2)]
    transient: f64,
    /// Periods measured per frequency (after the transient).
    #[arg(long, default_value_t = 5)]
    periods: usize,
    /// Communication steps per period (the step is also capped by --max-step).
    #[arg(long, default_value_t = 32)]
    steps_per_period: usize,
    /// Largest communication step, s (also the step while settling). The
    /// FMU holds each input value over a step: coarse steps at low
    /// frequencies make a staircase that rings at the resonance.
    #[arg(long, default_value_t = 1e-3)]
    max_step: f64,
    /// Relative tolerance of the FMU's integrator during the sweep (sets its
    /// `rtol` parameter if it has one, unless given with --set). 1e-4 keeps
    /// amplitude ratios within 0.01 dB of a 1e-6 run at a third of the cost.
    #[arg(long, default_value_t = 1e-4)]
    rtol: f64,
    /// Output file stem: writes <OUT>.csv and <OUT>.png.
    #[arg(long, default_value = "target/frequency-response/response")]
    out: PathBuf,
    /// Do not draw the PNG.
    #[arg(long)]
    no_plot: bool,
}

fn parse_assignment(s: &str) -> Result<(String, f64), String> {
    let (name, value) = s.split_once('=').ok_or("expected NAME=VALUE")?;
    let v = match value.trim() {
        "true" => 1.0,
        "false" => 0.0,
        other => other.parse::<f64>().map_err(|e| format!("{value}: {e}"))?,
    };
    Ok((name.trim().to_owned(), v))
}

fn main() -> Result<()> {
    let args = Args::parse();
    let root = repo_root();
    let abs = |p: &PathBuf| {
        if p.is_absolute() {
            p.clone()
        } else {
            root.join(p)
        }
    };
    let fmu = Fmu3::load(&abs(&args.fmu))?;
    if args.points < 2 || args.fmin <= 0.0 || args.fmax <= args.fmin {
        bail!("need --points >= 2 and 0 < --fmin < --fmax");
    }
    let opts = SweepOptions {
        input: args.input.clone(),
        outputs: args.outputs.clone(),
        amplitude: args.amplitude,
        settings: args.settings.clone(),
        frequencies: frequencies(args.fmin, args.fmax, args.points, args.log),
        settle: args.settle,
        transient: args.transient,
        periods: args.periods,
        steps_per_period: args.steps_per_period,
        max_step: args.max_step,
        rtol: args.rtol,
    };
    let r = sweep(&fmu, &opts, true)?;
    println!(
        "{}: {} -> {} around {} = {:e}, amplitude {:e}; operating point {}",
        fmu.description.model_name,
        args.input,
        args.outputs.join(", "),
        args.input,
        r.u0,
        args.amplitude,
        args.outputs
            .iter()
            .zip(&r.y0)
            .map(|(n, v)| format!("{n} = {v:e}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let out = abs(&args.out);
    let csv_path = out.with_extension("csv");
    write_csv(&csv_path, &args.outputs, &r.points)?;
    println!(
        "{} frequencies in {:.2} s ({} communication steps) -> {}",
        r.points.len(),
        r.wall,
        r.total_steps,
        csv_path.display()
    );
    for (i, o) in args.outputs.iter().enumerate() {
        let found = resonances(&r.points, i);
        if found.is_empty() {
            println!(
                "  {o}: no resonance peak in {}..{} Hz",
                args.fmin, args.fmax
            );
        }
        for (f, db) in found {
            println!("  {o}: resonance at {f:.2} Hz, peak ratio {db:.2} dB");
        }
    }
    if !args.no_plot {
        let python = root.join("target/venv/bin/python");
        let script = root.join("validation/python/plot_bode.py");
        let png = out.with_extension("png");
        if python.exists() {
            let title = format!(
                "{}: {} -> {}",
                fmu.description.model_name,
                args.input,
                args.outputs.join(", ")
            );
            let status = std::process::Command::new(python)
                .arg(script)
                .arg(&csv_path)
                .arg(&png)
                .arg(title)
                .status()?;
            if status.success() {
                println!("Bode plot -> {}", png.display());
            } else {
                eprintln!("warning: the Bode plot failed ({status})");
            }
        } else {
            eprintln!("note: no target/venv: PNG skipped (run tests/run-all.sh once to create it)");
        }
    }
    Ok(())
}
