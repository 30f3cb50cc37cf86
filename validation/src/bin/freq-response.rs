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

use anyhow::{Context, Result, bail};
use clap::Parser;
use std::f64::consts::PI;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;
use validation::fmu3::{Fmu3, Instance};
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

/// One measured frequency.
struct Point {
    f: f64,
    /// Per output: (peak ratio dB, fundamental ratio dB, phase deg).
    values: Vec<(f64, f64, f64)>,
}

/// Drives one frequency from the restored operating point and returns, per
/// output, the peak ratio 20 log10(max|y - y0| / A), the ratio of the
/// fundamental components and the phase of the output relative to the input.
/// The settled operating point every frequency starts from.
struct OperatingPoint {
    vr_in: u32,
    vr_out: Vec<u32>,
    /// Input value, SI.
    u0: f64,
    /// Output values, SI.
    y0: Vec<f64>,
    /// Time of the snapshot, s.
    t0: f64,
}

fn measure(
    inst: &mut Instance<'_>,
    args: &Args,
    op: &OperatingPoint,
    f: f64,
) -> Result<Vec<(f64, f64, f64)>> {
    let OperatingPoint {
        vr_in,
        vr_out,
        u0,
        y0,
        t0,
    } = op;
    let (vr_in, u0, t0) = (*vr_in, *u0, *t0);
    let period = 1.0 / f;
    let steps = args
        .steps_per_period
        .max(((period / args.max_step).ceil()) as usize);
    let h = period / steps as f64;
    let transient_periods = ((args.transient / period).ceil() as usize).max(3);
    let total = (transient_periods + args.periods) * steps;
    let start_measure = transient_periods * steps;
    let mut peak = vec![0.0f64; vr_out.len()];
    let mut re = vec![0.0; vr_out.len()];
    let mut im = vec![0.0; vr_out.len()];
    // The input the FMU actually saw is a staircase (held over each step):
    // its fundamental is the reference for ratio and phase, so that the
    // hold's small delay and attenuation cancel out.
    let (mut re_u, mut im_u) = (0.0, 0.0);
    let mut t = t0;
    for k in 0..total {
        let phase = 2.0 * PI * f * (k as f64 * h);
        let du = args.amplitude * phase.sin();
        inst.set_vr(vr_in, u0 + du)?;
        if k >= start_measure {
            // Exact Fourier integral of the held value over [t_k, t_k + h].
            let (w, a) = (2.0 * PI * f, 2.0 * PI * f * (k as f64 * h));
            re_u += du * ((a).cos() - (a + w * h).cos()) / w;
            im_u += du * ((a + w * h).sin() - (a).sin()) / w;
        }
        let s = inst.do_step(t, h);
        if s != 0 {
            bail!("doStep returned status {s} at t = {t} s (f = {f} Hz)");
        }
        t = t0 + (k + 1) as f64 * h;
        if k + 1 > start_measure {
            let phase_end = 2.0 * PI * f * ((k + 1) as f64 * h);
            for (i, &vr) in vr_out.iter().enumerate() {
                let y = inst.get_vr(vr)? - y0[i];
                peak[i] = peak[i].max(y.abs());
                re[i] += y * phase_end.sin();
                im[i] += y * phase_end.cos();
            }
        }
    }
    let n = (args.periods * steps) as f64;
    let duration = args.periods as f64 * period;
    // Input fundamental: u ~ au sin(wt) + bu cos(wt).
    let (au, bu) = (2.0 * re_u / duration, 2.0 * im_u / duration);
    let amp_u = (au * au + bu * bu).sqrt();
    let phase_u = bu.atan2(au);
    Ok((0..vr_out.len())
        .map(|i| {
            // Output fundamental from its samples: y ~ a sin(wt) + b cos(wt).
            let (a, b) = (2.0 * re[i] / n, 2.0 * im[i] / n);
            let amp = (a * a + b * b).sqrt();
            let mut phase = (b.atan2(a) - phase_u).to_degrees();
            if phase > 180.0 {
                phase -= 360.0;
            } else if phase < -180.0 {
                phase += 360.0;
            }
            (
                20.0 * (peak[i] / args.amplitude).log10(),
                20.0 * (amp / amp_u).log10(),
                phase,
            )
        })
        .collect())
}

/// Communication steps spent on frequency `f`.
fn steps_for(args: &Args, f: f64) -> usize {
    let period = 1.0 / f;
    let steps = args
        .steps_per_period
        .max(((period / args.max_step).ceil()) as usize);
    let transient_periods = ((args.transient / period).ceil() as usize).max(3);
    (transient_periods + args.periods) * steps
}

/// Local maxima of a curve that stand at least `PROMINENCE_DB` above the
/// lowest point on each side before a higher peak (so that numerical ripple
/// of a flat curve is not reported), refined by a parabola through the
/// three points around each (in frequency and dB).
const PROMINENCE_DB: f64 = 3.0;

fn prominent(y: &[f64], k: usize) -> bool {
    let side = |range: &mut dyn Iterator<Item = usize>| {
        let mut low = y[k];
        for i in range {
            if y[i] > y[k] {
                break;
            }
            low = low.min(y[i]);
        }
        y[k] - low
    };
    let left = side(&mut (0..k).rev());
    let right = side(&mut (k + 1..y.len()));
    left.min(right) >= PROMINENCE_DB || (left.max(right) >= PROMINENCE_DB && (k < 3 || k + 3 >= y.len()))
}

fn resonances(points: &[Point], output: usize) -> Vec<(f64, f64)> {
    let y: Vec<f64> = points.iter().map(|p| p.values[output].0).collect();
    let mut found = Vec::new();
    for k in 1..y.len().saturating_sub(1) {
        if y[k] > y[k - 1] && y[k] >= y[k + 1] && prominent(&y, k) {
            let (x0, x1, x2) = (points[k - 1].f, points[k].f, points[k + 1].f);
            let (y0, y1, y2) = (y[k - 1], y[k], y[k + 1]);
            let denom = (x0 - x1) * (x0 - x2) * (x1 - x2);
            let a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / denom;
            let b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / denom;
            if a < 0.0 {
                let xv = -b / (2.0 * a);
                let c = y0 - a * x0 * x0 - b * x0;
                found.push((xv, a * xv * xv + b * xv + c));
            } else {
                found.push((x1, y1));
            }
        }
    }
    found
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
    let vr_in = fmu.vr(&args.input)?;
    let vr_out: Vec<u32> = args
        .outputs
        .iter()
        .map(|o| fmu.vr(o))
        .collect::<Result<_>>()?;
    if args.points < 2 || args.fmin <= 0.0 || args.fmax <= args.fmin {
        bail!("need --points >= 2 and 0 < --fmin < --fmax");
    }
    let started = Instant::now();
    let mut inst = fmu.instantiate("frequency-response")?;
    let mut settings = args.settings.clone();
    if fmu.description.variable_by_name("rtol").is_some()
        && !settings.iter().any(|(n, _)| n == "rtol")
    {
        settings.push(("rtol".to_owned(), args.rtol));
    }
    inst.set_parameters(&settings)?;
    inst.initialize(f64::MAX)?;
    let u0 = inst.get_vr(vr_in)?;
    // Settle at the operating point with the input held.
    let h = args.max_step;
    let n_settle = (args.settle / h).round() as usize;
    for k in 0..n_settle {
        let s = inst.do_step(k as f64 * h, h);
        if s != 0 {
            bail!(
                "doStep returned status {s} while settling at t = {} s",
                k as f64 * h
            );
        }
    }
    let t0 = n_settle as f64 * h;
    let y0: Vec<f64> = vr_out
        .iter()
        .map(|&v| inst.get_vr(v))
        .collect::<Result<_>>()?;
    let operating_point = inst.snapshot()?;
    let op = OperatingPoint {
        vr_in,
        vr_out: vr_out.clone(),
        u0,
        y0: y0.clone(),
        t0,
    };
    println!(
        "{}: {} -> {} around {} = {u0:e}, amplitude {:e}; operating point {}",
        fmu.description.model_name,
        args.input,
        args.outputs.join(", "),
        args.input,
        args.amplitude,
        args.outputs
            .iter()
            .zip(&y0)
            .map(|(n, v)| format!("{n} = {v:e}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let freqs: Vec<f64> = (0..args.points)
        .map(|i| {
            let s = i as f64 / (args.points - 1) as f64;
            if args.log {
                args.fmin * (args.fmax / args.fmin).powf(s)
            } else {
                args.fmin + (args.fmax - args.fmin) * s
            }
        })
        .collect();
    let mut points = Vec::with_capacity(freqs.len());
    let mut total_steps = 0usize;
    for (i, &f) in freqs.iter().enumerate() {
        inst.restore(&operating_point)?;
        total_steps += steps_for(&args, f);
        let values = measure(&mut inst, &args, &op, f).with_context(|| format!("at {f} Hz"))?;
        points.push(Point { f, values });
        if (i + 1) % 50 == 0 || i + 1 == freqs.len() {
            eprintln!(
                "  {}/{} frequencies ({:.1} s)",
                i + 1,
                freqs.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let out = abs(&args.out);
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let csv_path = out.with_extension("csv");
    let mut csv = std::fs::File::create(&csv_path)?;
    write!(csv, "frequency_hz")?;
    for o in &args.outputs {
        write!(csv, ",{o}_peak_ratio_db,{o}_ratio_db,{o}_phase_deg")?;
    }
    writeln!(csv)?;
    for p in &points {
        write!(csv, "{}", p.f)?;
        for v in &p.values {
            write!(csv, ",{},{},{}", v.0, v.1, v.2)?;
        }
        writeln!(csv)?;
    }
    println!(
        "{} frequencies in {wall:.2} s ({total_steps} communication steps) -> {}",
        points.len(),
        csv_path.display()
    );
    for (i, o) in args.outputs.iter().enumerate() {
        let r = resonances(&points, i);
        if r.is_empty() {
            println!(
                "  {o}: no resonance peak in {}..{} Hz",
                args.fmin, args.fmax
            );
        }
        for (f, db) in r {
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
