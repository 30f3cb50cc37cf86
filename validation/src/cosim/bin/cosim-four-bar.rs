//! Co-simulation of the four-bar's hydraulics (FourBarActuator) with its
//! linkage (FourBarMechanism): a Jacobi master loop hands the cylinder
//! length `s` and rate `s_dot` to the hydraulics and the cylinder force
//! `F_h` to the linkage at every communication point, and the result is
//! compared with the monolithic FourBar FMU run at the same communication
//! step on the same input.
//!
//! The input is the valve command U_ref = 10 sin(0.4 pi t) V, sampled in
//! the middle of every 10 ms interval and held over it (the same staircase
//! for every FMU and every step). Case `linear` runs 5 s with the linear
//! valve curve (`curve` = 1), case `real-2` 10 s with the S-shaped one
//! (`curve` = 3).
//!
//! Prints the coupling error per signal (relative RMS in %, largest
//! difference in the signal's display unit) and writes, per case, a CSV of
//! the monolithic and the coupled traces (SI units, the unit in each column
//! header) and a PNG that overlays them with the difference underneath:
//! `target/cosim/four_bar_<case>.csv` and `.png`.
//!
//! Run: `cargo run --release -p validation --bin cosim-four-bar`

use anyhow::{Result, bail, ensure};
use clap::Parser;
use std::path::PathBuf;
use std::time::Instant;
use validation::cosim::{Comparison, CoupledRun, Reference, Runs, in_repo};
use validation::fmi::fmu3::{Fmu3, Instance};
use validation::harness::units::{DisplayUnit, number, significant};
use validation::{Inputs, Interpolation, Trace};

/// Couple FourBarActuator and FourBarMechanism (Jacobi) and compare with
/// the monolithic FourBar at the same communication step.
#[derive(Parser)]
struct Args {
    /// Cases: `linear` (linear valve curve, 5 s) and/or `real-2` (S-shaped
    /// curve, 10 s).
    #[arg(long = "case", default_values_t = ["linear".to_string()])]
    cases: Vec<String>,
    /// Communication steps, s (the coupled and the monolithic runs use the same).
    #[arg(long = "step", default_values_t = [1e-3, 1e-4])]
    steps: Vec<f64>,
    /// Stop time, s (default: 5 s for `linear`, 10 s for `real-2`).
    #[arg(long)]
    stop: Option<f64>,
    /// Relative tolerance of every FMU's integrator (`rtol`): tight, so
    /// that the differences are the coupling's.
    #[arg(long, default_value_t = 1e-8)]
    rtol: f64,
    /// Sampling interval of the comparison, s (a multiple of every step).
    #[arg(long, default_value_t = 1e-3)]
    sample: f64,
    /// Folder with the FMI 3 FMUs (a relative path starts at the repository root).
    #[arg(long, default_value = "dist/fmi3")]
    dist: PathBuf,
    /// Folder for the traces (four_bar_<case>.csv) and plots (four_bar_<case>.png),
    /// relative to the repository root unless absolute.
    #[arg(long, default_value = "target/cosim")]
    out: PathBuf,
    /// Do not draw the PNG plots.
    #[arg(long)]
    no_plot: bool,
}

/// The compared signals (FourBar's names; theta and s come from the
/// mechanism, the others from the hydraulics).
const SIGNALS: [&str; 6] = ["theta", "s", "pp", "p1", "p2", "F_h"];

/// Period over which the valve command is held, s.
const HOLD: f64 = 0.01;

/// A case: the valve curve preset and the default stop time.
struct Case {
    name: &'static str,
    curve: i32,
    stop: f64,
}

const CASES: [Case; 2] = [
    Case {
        name: "linear",
        curve: 1,
        stop: 5.0,
    },
    Case {
        name: "real-2",
        curve: 3,
        stop: 10.0,
    },
];

/// U_ref = 10 sin(0.4 pi t) V taken in the middle of each [`HOLD`]
/// interval and held (step interpolation) up to `stop`.
fn valve_command(stop: f64) -> Inputs {
    let n = (stop / HOLD).round() as usize;
    let time: Vec<f64> = (0..=n).map(|k| k as f64 * HOLD).collect();
    let u = time
        .iter()
        .map(|t| 10.0 * (0.4 * std::f64::consts::PI * (t + 0.5 * HOLD)).sin())
        .collect();
    Inputs {
        trace: Trace {
            names: vec!["U_ref".into()],
            time,
            columns: vec![u],
        },
        interpolation: Interpolation::Step,
    }
}

/// Number of steps of size `h` in `span`, refusing spans that are not a
/// whole multiple of `h`.
fn steps_in(span: f64, h: f64) -> Result<usize> {
    let n = (span / h).round();
    ensure!(
        n >= 1.0 && (n * h - span).abs() <= 1e-9 * span.max(1.0),
        "{span} s is not a whole number of {h} s steps"
    );
    Ok(n as usize)
}

/// Sets the valve curve and the tolerance on an instance (before initialization).
fn configure(inst: &mut Instance<'_>, fmu: &Fmu3, curve: Option<i32>, rtol: f64) -> Result<()> {
    let mut values = vec![("rtol".to_string(), rtol)];
    if let Some(c) = curve {
        values.push(("curve".to_string(), f64::from(c)));
    }
    values.retain(|(name, _)| fmu.description.variable_by_name(name).is_some());
    inst.set_parameters(&values)
}

/// One run: one trace per signal of [`SIGNALS`] (SI), sampled every
/// `every` steps, and the largest loop-closure residual seen, m.
struct Run {
    traces: Vec<Vec<f64>>,
    loop_residual: f64,
}

/// The monolithic FourBar at step `h`; also its p1 at t = 0 (the
/// hydraulics' initial pressure that holds the linkage).
fn monolithic(
    fmu: &Fmu3,
    case: &Case,
    input: &Inputs,
    stop: f64,
    h: f64,
    every: usize,
    rtol: f64,
) -> Result<(Run, f64)> {
    let mut inst = fmu.instantiate("monolithic")?;
    configure(&mut inst, fmu, Some(case.curve), rtol)?;
    inst.set("U_ref", input.at(0, 0.0))?;
    inst.initialize(stop)?;
    let p1_0 = inst.get("p1")?;
    let vrs: Vec<u32> = SIGNALS.iter().map(|s| fmu.vr(s)).collect::<Result<_>>()?;
    let (u, residual) = (fmu.vr("U_ref")?, fmu.vr("loop_residual")?);
    let n = steps_in(stop, h)?;
    let mut run = Run {
        traces: vec![Vec::new(); SIGNALS.len()],
        loop_residual: 0.0,
    };
    for k in 0..=n {
        let t = k as f64 * h;
        inst.set_vr(u, input.at(0, t))?;
        run.loop_residual = run.loop_residual.max(inst.get_vr(residual)?);
        if k % every == 0 {
            for (trace, &vr) in run.traces.iter_mut().zip(&vrs) {
                trace.push(inst.get_vr(vr)?);
            }
        }
        if k == n {
            break;
        }
        ensure!(inst.do_step(t, h) == 0, "FourBar doStep failed at {t} s");
    }
    Ok((run, p1_0))
}

/// FourBarActuator + FourBarMechanism, Jacobi exchange at step `h`: at
/// each communication point the hydraulics get the linkage's s and s_dot
/// at that point (and the command), the linkage gets the force the
/// hydraulics give with those inputs, and both step from there.
#[allow(clippy::too_many_arguments)]
fn coupled(
    act: &Fmu3,
    mech: &Fmu3,
    case: &Case,
    input: &Inputs,
    stop: f64,
    h: f64,
    every: usize,
    rtol: f64,
    p1_0: f64,
) -> Result<Run> {
    let mut a = act.instantiate("hydraulics")?;
    let mut m = mech.instantiate("linkage")?;
    configure(&mut a, act, Some(case.curve), rtol)?;
    configure(&mut m, mech, None, rtol)?;
    a.set("p1_0", p1_0)?;
    m.initialize(stop)?;
    let (a_u, a_s, a_sd, a_f) = (
        act.vr("U_ref")?,
        act.vr("s")?,
        act.vr("s_dot")?,
        act.vr("F_h")?,
    );
    let (a_pp, a_p1, a_p2) = (act.vr("pp")?, act.vr("p1")?, act.vr("p2")?);
    let (m_f, m_s, m_sd) = (mech.vr("F")?, mech.vr("s")?, mech.vr("s_dot")?);
    let (m_theta, m_res) = (mech.vr("theta")?, mech.vr("loop_residual")?);
    a.set_vr(a_u, input.at(0, 0.0))?;
    a.set_vr(a_s, m.get_vr(m_s)?)?;
    a.set_vr(a_sd, m.get_vr(m_sd)?)?;
    a.initialize(stop)?;
    let n = steps_in(stop, h)?;
    let mut run = Run {
        traces: vec![Vec::new(); SIGNALS.len()],
        loop_residual: 0.0,
    };
    for k in 0..=n {
        let t = k as f64 * h;
        let (s, s_dot) = (m.get_vr(m_s)?, m.get_vr(m_sd)?);
        a.set_vr(a_u, input.at(0, t))?;
        a.set_vr(a_s, s)?;
        a.set_vr(a_sd, s_dot)?;
        let force = a.get_vr(a_f)?;
        run.loop_residual = run.loop_residual.max(m.get_vr(m_res)?);
        if k % every == 0 {
            let row = [
                m.get_vr(m_theta)?,
                s,
                a.get_vr(a_pp)?,
                a.get_vr(a_p1)?,
                a.get_vr(a_p2)?,
                force,
            ];
            for (trace, value) in run.traces.iter_mut().zip(row) {
                trace.push(value);
            }
        }
        if k == n {
            break;
        }
        m.set_vr(m_f, force)?;
        ensure!(
            a.do_step(t, h) == 0,
            "FourBarActuator doStep failed at {t} s"
        );
        ensure!(
            m.do_step(t, h) == 0,
            "FourBarMechanism doStep failed at {t} s"
        );
    }
    Ok(run)
}

fn main() -> Result<()> {
    let args = Args::parse();
    let dist = in_repo(&args.dist);
    let out = in_repo(&args.out);
    std::fs::create_dir_all(&out)?;
    let mono = Fmu3::load(&dist.join("FourBar.fmu"))?;
    let act = Fmu3::load(&dist.join("FourBarActuator.fmu"))?;
    let mech = Fmu3::load(&dist.join("FourBarMechanism.fmu"))?;
    let comparison = Comparison::new(&mono, &SIGNALS);
    let metre = DisplayUnit::si("m");
    println!(
        "FourBarActuator + FourBarMechanism (Jacobi coupling) vs the monolithic FourBar at the same step"
    );
    println!(
        "U_ref = 10 sin(0.4 pi t) V held over {} ms intervals; rtol {:e} in every FMU",
        number(HOLD * 1e3),
        args.rtol
    );
    println!(
        "per signal: relative RMS difference [%] and largest difference [display unit], sampled \
         every {} ms\n",
        number(args.sample * 1e3)
    );
    println!(
        "{}",
        comparison.header(&format!(
            "{:<8} {:>9} {:>9} {:>9}",
            "case", "step [s]", "split [s]", "mono [s]"
        ))
    );
    let mut notes = Vec::new();
    let mut written = Vec::new();
    for name in &args.cases {
        let Some(case) = CASES.iter().find(|c| c.name == name) else {
            bail!("unknown case '{name}' (linear, real-2)");
        };
        let stop = args.stop.unwrap_or(case.stop);
        let input = valve_command(stop);
        let mut references = Vec::new();
        let mut runs = Vec::new();
        for &h in &args.steps {
            let every = steps_in(args.sample, h)?;
            let started = Instant::now();
            let (truth, p1_0) = monolithic(&mono, case, &input, stop, h, every, args.rtol)?;
            let wall_mono = started.elapsed().as_secs_f64();
            let started = Instant::now();
            let split = coupled(&act, &mech, case, &input, stop, h, every, args.rtol, p1_0)?;
            let wall = started.elapsed().as_secs_f64();
            let lead = format!(
                "{:<8} {:>9.0e} {:>9.2} {:>9.2}",
                case.name, h, wall, wall_mono
            );
            println!("{}", comparison.row(&lead, &split.traces, &truth.traces));
            notes.push(format!(
                "{} at {:e} s: p1_0 = {} from FourBar; largest loop residual {} (FourBar), {} (FourBarMechanism)",
                case.name,
                h,
                DisplayUnit::of(&mono.description, "p1").show_both(p1_0),
                metre.show(truth.loop_residual),
                metre.show(split.loop_residual),
            ));
            references.push(Reference {
                label: format!("monolithic {h:e} s"),
                legend: format!("FourBar (monolithic), {} ms steps", number(h * 1e3)),
                traces: truth.traces,
            });
            runs.push(CoupledRun {
                step: h,
                reference: references.len() - 1,
                legend: format!("coupled, exchange every {} ms", number(h * 1e3)),
                traces: split.traces,
            });
        }
        let samples = runs.first().map_or(0, |r: &CoupledRun| r.traces[0].len());
        let runs = Runs {
            time: (0..samples).map(|k| k as f64 * args.sample).collect(),
            references,
            coupled: runs,
        };
        let title = format!(
            "FourBarActuator + FourBarMechanism (Jacobi coupling) vs monolithic FourBar, {} valve curve, {} s",
            case.name,
            significant(stop, 3)
        );
        let stem = format!("four_bar_{}", case.name.replace('-', "_"));
        written.extend(comparison.write_files(&out, &stem, title, &runs, args.no_plot)?);
    }
    println!();
    for note in notes {
        println!("{note}");
    }
    println!();
    for path in written {
        println!("-> {}", path.display());
    }
    Ok(())
}
