//! Frequency response of any FMU of the project, through the FMI 3 API: a
//! sinusoid on one input around a settled operating point, the amplitude
//! ratio and phase of chosen outputs per frequency, the resonances, a CSV
//! (the unit in every column header) and a PNG Bode plot (one magnitude
//! panel per ratio unit: dB for a dimensionless ratio, the ratio in display
//! units on a log axis for a dimensional one), all over a logarithmic
//! frequency axis. The frequencies are log-spaced unless `--linear`.
//!
//! Every frequency starts from the same settled operating point: the tool
//! settles the FMU once, takes an FMU state snapshot, and restores it before
//! each frequency instead of re-initialising.
//!
//! Example (the sweep of the H-form hose in the model description):
//! `cargo run --release -p validation --bin freq-response -- --fmu dist/fmi3/HoseH.fmu
//!  --input p2 --output p1 --output Q2 --amplitude 3e5 --set n=7 --fmin 2 --fmax 150 --points 300`

use anyhow::{Result, bail};
use clap::Parser;
use std::path::PathBuf;
use validation::fmi::fmu3::Fmu3;
use validation::freq::{
    Channel, RatioUnits, SweepOptions, bode_figure, frequencies, resonances, sweep_refined,
    write_csv,
};
use validation::harness::plot::draw_png;
use validation::harness::units::{DisplayUnit, number};
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
    /// Space the frequencies logarithmically, a constant ratio apart (the
    /// default: as many points per decade everywhere on the Bode plot's log
    /// axis).
    #[arg(long, conflicts_with = "linear")]
    log: bool,
    /// Space the frequencies linearly instead, a constant step apart (finer
    /// at the high end, e.g. around a resonance there).
    #[arg(long)]
    linear: bool,
    /// Frequencies measured in addition between the two neighbours of each
    /// resonance peak found on the grid (0: none).
    #[arg(long, default_value_t = 8)]
    refine: usize,
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
    /// Also write the operating point and the resonances as JSON to this
    /// file (SI values; what the sweep tool's `resonance` summary reads).
    #[arg(long)]
    json: Option<PathBuf>,
}

/// The operating point and each output's resonances (frequency in Hz, peak
/// ratio max|y - y0| / A in SI units of output per input, and in dB of it).
fn write_json(
    path: &std::path::Path,
    args: &Args,
    r: &validation::freq::SweepResult,
    outputs: &[Channel],
) -> Result<()> {
    let mut per_output = serde_json::Map::new();
    for (i, o) in outputs.iter().enumerate() {
        let peaks: Vec<serde_json::Value> = resonances(&r.points, i)
            .into_iter()
            .map(|(f, db)| {
                serde_json::json!({
                    "frequency_hz": f,
                    "peak_ratio": 10f64.powf(db / 20.0),
                    "peak_db": db,
                })
            })
            .collect();
        per_output.insert(
            o.name.clone(),
            serde_json::json!({ "y0": r.y0[i], "resonances": peaks }),
        );
    }
    let doc = serde_json::json!({
        "input": args.input,
        "u0": r.u0,
        "amplitude": args.amplitude,
        "fmin": args.fmin,
        "fmax": args.fmax,
        "points": args.points,
        "spacing": if args.linear { "linear" } else { "log" },
        "refined": r.refined,
        "outputs": per_output,
    });
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")?;
    Ok(())
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
        frequencies: frequencies(args.fmin, args.fmax, args.points, args.log || !args.linear),
        settle: args.settle,
        transient: args.transient,
        periods: args.periods,
        steps_per_period: args.steps_per_period,
        max_step: args.max_step,
        rtol: args.rtol,
    };
    let r = sweep_refined(&fmu, &opts, true, args.refine)?;
    let input = Channel::of(&fmu, &args.input);
    let outputs: Vec<Channel> = args.outputs.iter().map(|o| Channel::of(&fmu, o)).collect();
    let settings = if args.settings.is_empty() {
        String::new()
    } else {
        format!(
            " ({})",
            args.settings
                .iter()
                .map(|(n, v)| format!(
                    "{n} = {}",
                    DisplayUnit::of(&fmu.description, n).show_both(*v)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    println!(
        "{}{settings}: input {} = {} + {} sin(2 pi f t)",
        fmu.description.model_name,
        input.name,
        input.unit.show_both(r.u0),
        input.unit.show_delta_both(args.amplitude),
    );
    println!(
        "operating point: {}",
        outputs
            .iter()
            .zip(&r.y0)
            .map(|(o, v)| format!("{} = {}", o.name, o.unit.show_both(*v)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let out = abs(&args.out);
    let csv_path = out.with_extension("csv");
    write_csv(&csv_path, &input, &outputs, &r.points)?;
    println!(
        "{} frequencies from {} to {} Hz ({} spacing){} in {:.2} s ({} communication steps)",
        r.points.len() - r.refined,
        args.fmin,
        args.fmax,
        if args.linear { "linear" } else { "logarithmic" },
        if r.refined > 0 {
            format!(" and {} more around the resonances", r.refined)
        } else {
            String::new()
        },
        r.wall,
        r.total_steps,
    );
    println!("resonances (peak ratio max|y - y0| / A, and the output amplitude it means):");
    for (i, o) in outputs.iter().enumerate() {
        let found = resonances(&r.points, i);
        if found.is_empty() {
            println!(
                "  {}: no resonance peak in {}..{} Hz",
                o.name, args.fmin, args.fmax
            );
        }
        let units = RatioUnits::of(o, &input);
        for (f, peak_db) in found {
            let ratio = 10f64.powf(peak_db / 20.0);
            let ratio_text = match (&units.si, &units.display) {
                (None, _) => format!("{} ({peak_db:.2} dB)", number(ratio)),
                (Some(si), display) => format!(
                    "{} {} ({ratio:.4e} {si}, {peak_db:.2} {})",
                    number(ratio * units.display_factor),
                    display.as_deref().unwrap_or(si),
                    units.db_label()
                ),
            };
            println!(
                "  {}: resonance at {f:.2} Hz, peak ratio {ratio_text}: ±{} for ±{}",
                o.name,
                o.unit.show_delta(ratio * args.amplitude),
                input.unit.show_delta(args.amplitude),
            );
        }
    }
    println!("-> {}", csv_path.display());
    if let Some(path) = &args.json {
        write_json(&abs(path), &args, &r, &outputs)?;
        println!("-> {}", abs(path).display());
    }
    if !args.no_plot {
        let png = out.with_extension("png");
        let title = format!(
            "{}{settings}: response of {} to {} = {} + {} sin(2 pi f t)",
            fmu.description.model_name,
            args.outputs.join(", "),
            input.name,
            input.unit.show(r.u0),
            input.unit.show_delta(args.amplitude),
        );
        let figure = bode_figure(&title, &input, &outputs, &r.points);
        match draw_png(&figure, &png) {
            Ok(()) => println!("-> {}", png.display()),
            Err(e) => eprintln!("note: no Bode plot ({e:#})"),
        }
    }
    Ok(())
}
