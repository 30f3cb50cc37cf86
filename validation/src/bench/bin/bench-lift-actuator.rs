//! Benchmark of the LiftActuator FMU against the integration scheme of its
//! source paper, measured side by side in one run on the paper's lift (5 s;
//! u = 0, then 1 from t = 1 s; the 100 kg load lifted to full stroke).
//!
//! Rows:
//!
//! - our integrator (Rodas3) through the packaged FMU's `fmi3DoStep` at
//!   its default tolerances (1e-6) at a 1 ms and at a 10 ms communication
//!   step, and at tolerances 1e-4 at 1 ms;
//! - the paper's semi-implicit Euler on the same equations (L1-L6 of the
//!   lift circuit's `MODEL.md`, evaluated by the same `lift-circuit` code),
//!   in process (no FMI call), at three fixed steps: the paper's 0.1 ms, the
//!   largest step at which it stays stable and the largest at which it meets
//!   the accuracy goals. Both are found by doubling and bisection over the
//!   number of Euler steps per 1 ms.
//!
//! Columns: wall time, real-time factor, substeps, rejected substeps, the
//! time of one 1 ms step (median, 99.9th percentile, worst; for the Euler
//! rows the time of the Euler steps that make up 1 ms), and the relative RMS
//! error against the scenario's reference
//! (`validation/scenarios/LiftActuator/lift_100kg`). The lines under the
//! table give the goal of 1000 x real time at 1 ms at the accuracy of the
//! harness (x_p < 0.1 %, v_p < 2 %, p_A, p_B < 1 % relative RMS).
//!
//! Run: `cargo run --release -p validation --bin bench-lift-actuator`

use anyhow::{Context, Result, bail};
use clap::Parser;
use fmu_core::Record;
use lift_circuit::{
    CylinderParams, LiftDrive, LiftDriveState, Piston, PistonParams, PistonState, ValveParams,
};
use std::path::PathBuf;
use std::time::Instant;
use validation::bench::{
    Latency, TimedRun, fastest_of, fewest_passing, relative_errors, timed_steps,
};
use validation::cosim::in_repo;
use validation::fmi::fmu3::Fmu3;
use validation::harness::units::significant;
use validation::{Scenario, Trace, scenario_dir};

/// Benchmark the LiftActuator FMU (Rodas3 at 1 ms and 10 ms) beside the
/// source paper's semi-implicit Euler (at its 0.1 ms, at its stability
/// limit and at the largest step that meets the accuracy goals) on the
/// paper's 100 kg lift.
#[derive(Parser)]
struct Args {
    /// The FMI 3 FMU to measure.
    #[arg(long, default_value = "dist/fmi3/LiftActuator.fmu")]
    fmu: PathBuf,
    /// Rounds over all rows; the table shows each row's fastest run (the
    /// least disturbed by other work on the machine).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

/// The compared signals and their accuracy goals (relative RMS, %).
const SIGNALS: [&str; 4] = ["x_p", "v_p", "p_A", "p_B"];
const GOALS: [f64; 4] = [0.1, 2.0, 1.0, 1.0];
/// The communication step of the goal, s.
const STEP: f64 = 1e-3;
/// The goal's real-time factor at [`STEP`].
const GOAL_FACTOR: f64 = 1000.0;
/// The scenario's length, s, and the time of the command step.
const STOP: f64 = 5.0;
const SWITCH: f64 = 1.0;
/// The paper's hydraulic step, s.
const PAPER_STEP: f64 = 1e-4;
/// The FMU's default tolerances (`rtol`, `atol`), and looser ones that
/// still meet the accuracy goals with a wide margin.
const DEFAULT_TOL: f64 = 1e-6;
const LOOSE_TOL: f64 = 1e-4;

/// The valve command of the paper's lift.
fn command(t: f64) -> f64 {
    if t >= SWITCH - 1e-12 { 1.0 } else { 0.0 }
}

/// The paper's semi-implicit Euler on L1-L6, at `n` steps per 1 ms: the
/// spool's rate, then its position with the new rate; the chamber
/// pressures with the flows at the new spool position and the old
/// pressures, piston position and velocity; the piston's velocity with the
/// new pressures; its position with the new velocity. The paper applies
/// the load, the dry friction and the stroke limits in its body solver
/// after the hydraulic steps; here they enter the velocity update of each
/// step (explicitly), so that the scheme integrates the FMU's equations.
struct PaperEuler {
    drive: LiftDrive,
    piston: Piston,
    n: u32,
}

/// One run of the semi-implicit Euler: as [`TimedRun`] where it applies.
struct EulerRun {
    wall: f64,
    samples: Vec<Vec<f64>>,
    latency: Latency,
    substeps: f64,
    finite: bool,
}

impl PaperEuler {
    fn new(n: u32) -> Result<Self> {
        let drive = LiftDrive::new(&ValveParams::defaults(), &CylinderParams::defaults())
            .map_err(anyhow::Error::msg)?;
        let piston = Piston::new(&PistonParams::defaults(), drive.cylinder.stroke)
            .map_err(anyhow::Error::msg)?;
        Ok(PaperEuler { drive, piston, n })
    }

    fn step_size(&self) -> f64 {
        STEP / f64::from(self.n)
    }

    /// One step of `h` from (s, c) under command `u`.
    #[inline]
    fn step(&self, u: f64, s: &mut LiftDriveState, c: &mut PistonState, h: f64) {
        let spool = self.drive.spool;
        s[1] += h * spool.acceleration(u, s[0], s[1]);
        s[0] += h * s[1];
        let rates = self.drive.rates(u, s, c[0], c[1]).rates;
        s[2] += h * rates[2];
        s[3] += h * rates[3];
        let a = self.piston.eval(c, self.drive.force(s)).rates[1];
        c[1] += h * a;
        c[0] += h * c[1];
    }

    /// 5 s of the lift, sampled every 1 ms, each 1 ms of steps timed.
    fn run(&self) -> EulerRun {
        let h = self.step_size();
        let mut s = self.drive.initial;
        let mut c = self.piston.initial;
        let n_comm = (STOP / STEP).round() as usize;
        let mut samples = vec![Vec::with_capacity(n_comm + 1); SIGNALS.len()];
        let mut times = Vec::with_capacity(n_comm);
        let sample = |samples: &mut Vec<Vec<f64>>, s: &LiftDriveState, c: &PistonState| {
            for (trace, v) in samples.iter_mut().zip([c[0], c[1], s[2], s[3]]) {
                trace.push(v);
            }
        };
        let mut finite = true;
        let started = Instant::now();
        for k in 0..n_comm {
            sample(&mut samples, &s, &c);
            let u = command(k as f64 * STEP);
            let t0 = Instant::now();
            for _ in 0..self.n {
                self.step(u, &mut s, &mut c, h);
            }
            times.push(t0.elapsed().as_secs_f64());
            if !(s.iter().chain(c.iter()).all(|v| v.is_finite())) {
                finite = false;
                break;
            }
        }
        let wall = started.elapsed().as_secs_f64();
        sample(&mut samples, &s, &c);
        EulerRun {
            wall,
            samples,
            latency: Latency::of(times),
            substeps: f64::from(self.n) * n_comm as f64,
            finite,
        }
    }
}

/// A row of the table: what was run and how it did.
struct Row {
    label: String,
    wall: f64,
    substeps: f64,
    rejected: Option<f64>,
    latency: Latency,
    errors: Option<Vec<f64>>,
    note: String,
}

impl Row {
    fn factor(&self) -> f64 {
        STOP / self.wall
    }

    fn meets_goals(&self) -> bool {
        self.errors
            .as_ref()
            .is_some_and(|e| e.iter().zip(GOALS).all(|(e, g)| *e < g))
    }
}

/// The relative RMS errors of samples taken every 1 ms against the
/// reference (also every 1 ms).
fn errors_of(reference: Option<&Trace>, samples: &[Vec<f64>]) -> Result<Option<Vec<f64>>> {
    reference
        .map(|r| relative_errors(r, &SIGNALS, samples, 1))
        .transpose()
}

/// Stable: finite, the piston never more than 10 % of the stroke outside
/// it, and settled at the end where the equations settle (3.5 s after the
/// lift ends): the piston at full stroke within 1 mm, p_A within 1 % of p_S
/// of p_S and p_B within 1 % of p_S of p_T, over the last 0.5 s. A scheme
/// that stays bounded but chatters about the equilibrium (an explicit step
/// beyond the stability limit of the orifice law's steep slope near a zero
/// pressure drop ends in such a limit cycle) is not stable by this test.
fn stable(run: &EulerRun) -> bool {
    let v = ValveParams::defaults();
    let (ps, pt) = (v.p_S, v.p_T);
    let last = (0.5 / STEP) as usize;
    let tail = |k: usize| {
        let s = &run.samples[k];
        &s[s.len().saturating_sub(last)..]
    };
    run.finite
        && run.samples[0].iter().all(|x| (-0.1..=1.1).contains(x))
        && tail(0).iter().all(|x| (x - 1.0).abs() < 1e-3)
        && tail(2).iter().all(|p| (p - ps).abs() < 0.01 * ps)
        && tail(3).iter().all(|p| (p - pt).abs() < 0.01 * ps)
}

/// The smallest and largest sample of signal `k` (an index into
/// [`SIGNALS`]) over the last 0.5 s of a run, where the equations have
/// settled. A scheme that oscillates from one step to the next shows an
/// offset here rather than a swing when the oscillation's period divides
/// the sampling interval.
fn tail_range(run: &EulerRun, k: usize) -> (f64, f64) {
    let s = &run.samples[k];
    s[s.len().saturating_sub((0.5 / STEP) as usize)..]
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        })
}

/// The fewest Euler steps per 1 ms that pass `ok` ([`fewest_passing`]),
/// with the trials for the output.
fn fewest_steps(what: &str, ok: impl Fn(u32) -> Result<bool>) -> Result<(u32, String)> {
    let mut trials = Vec::new();
    let found = fewest_passing(1 << 14, |n| {
        eprint!("\rsemi-implicit Euler, {what}: {n} steps per 1 ms      ");
        let passed = ok(n)?;
        trials.push(format!("{n} {}", if passed { "yes" } else { "no" }));
        Ok(passed)
    })?;
    eprintln!();
    match found {
        Some(n) => Ok((n, trials.join(", "))),
        None => bail!("semi-implicit Euler is not {what} even at 16384 steps per 1 ms"),
    }
}

fn euler_row(n: u32, reference: Option<&Trace>, note: &str) -> Result<Row> {
    let e = PaperEuler::new(n)?;
    let run = e.run();
    let errors = if run.finite {
        errors_of(reference, &run.samples)?
    } else {
        None
    };
    Ok(Row {
        label: format!(
            "semi-impl. Euler {} us",
            significant(e.step_size() * 1e6, 4)
        ),
        wall: run.wall,
        substeps: run.substeps,
        rejected: None,
        latency: run.latency,
        errors,
        note: format!(
            "{note}{}; p_B over the last 0.5 s {} .. {} bar (p_T = 1 bar)",
            if stable(&run) { "" } else { "; UNSTABLE" },
            significant(tail_range(&run, 3).0 * 1e-5, 3),
            significant(tail_range(&run, 3).1 * 1e-5, 3)
        ),
    })
}

fn fmu_row(fmu: &Fmu3, h: f64, rtol: f64, reference: Option<&Trace>) -> Result<Row> {
    let mut inst = fmu.instantiate("bench")?;
    inst.set_parameters(&[
        ("solver".into(), 1.0),
        ("rtol".into(), rtol),
        ("atol".into(), rtol),
    ])?;
    inst.set("u", 0.0)?;
    inst.initialize(STOP)?;
    let vrs: Vec<u32> = SIGNALS.iter().map(|s| fmu.vr(s)).collect::<Result<_>>()?;
    let every = ((STEP / h).round() as usize).max(1);
    let run: TimedRun = timed_steps(&mut inst, fmu.vr("u")?, command, h, STOP, &vrs, every)?;
    if let Some(why) = &run.failure {
        bail!("Rodas3 at {h} s: {why}");
    }
    // At 10 ms the run is compared on the 10 ms grid.
    let stride = ((h / STEP).round() as usize).max(1);
    let errors = reference
        .map(|r| relative_errors(r, &SIGNALS, &run.samples, stride))
        .transpose()?;
    Ok(Row {
        label: format!("Rodas3 {} ms, tol {rtol:.0e}", h * 1e3),
        wall: run.wall,
        substeps: run.counts.steps,
        rejected: Some(run.counts.rejected),
        latency: run.latency,
        errors,
        note: "fmi3DoStep, adaptive".into(),
    })
}

fn print_table(rows: &[Row]) {
    print!(
        "{:<26} {:>8} {:>10} {:>9} {:>8} {:>10} {:>10} {:>10}",
        "row",
        "wall [s]",
        "x realtime",
        "substeps",
        "rejected",
        "median[us]",
        "p99.9 [us]",
        "worst [us]"
    );
    for s in SIGNALS {
        print!(" {:>9}", format!("{s} [%]"));
    }
    println!("  note");
    for r in rows {
        print!(
            "{:<26} {:>8.4} {:>10.0} {:>9.0} {:>8} {:>10.2} {:>10.2} {:>10.1}",
            r.label,
            r.wall,
            r.factor(),
            r.substeps,
            r.rejected.map_or("-".to_string(), |n| format!("{n:.0}")),
            r.latency.median * 1e6,
            r.latency.p999 * 1e6,
            r.latency.worst * 1e6
        );
        match &r.errors {
            Some(errors) => errors.iter().for_each(|e| print!(" {e:>9.2e}")),
            None => print!(" {:>39}", "no comparison"),
        }
        println!("  {}", r.note);
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    let path = in_repo(&args.fmu);
    let fmu = Fmu3::load(&path)
        .with_context(|| "build the FMUs first: cargo run --release -p build-fmu")?;
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        println!(
            "load average at the start: {} (1, 5, 15 min) on {} CPU(s)",
            load.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(", "),
            std::thread::available_parallelism().map_or(1, usize::from)
        );
    }
    let dir = scenario_dir("LiftActuator", "lift_100kg");
    let reference = if dir.join("scenario.json").is_file() {
        let spec = Scenario::load(&dir)?;
        let r = spec.read_reference()?;
        if (r.time[1] - r.time[0] - STEP).abs() > 1e-12 {
            bail!("{}: the reference is not sampled every 1 ms", spec.key());
        }
        println!("reference: validation/scenarios/{}", spec.key());
        Some(r)
    } else {
        println!("no reference ({} is missing): no errors", dir.display());
        None
    };
    let reference = reference.as_ref();
    println!(
        "LiftActuator, the paper's lift: {STOP} s, u = 0 then 1 from t = {SWITCH} s, 100 kg load"
    );

    let (n_stable, stable_trials) =
        fewest_steps("stable", |n| Ok(stable(&PaperEuler::new(n)?.run())))?;
    println!("stability search (steps per 1 ms): {stable_trials}");
    let accurate = |n: u32| -> Result<bool> {
        let run = PaperEuler::new(n)?.run();
        if !stable(&run) {
            return Ok(false);
        }
        Ok(match reference {
            Some(r) => relative_errors(r, &SIGNALS, &run.samples, 1)?
                .iter()
                .zip(GOALS)
                .all(|(e, g)| *e < g),
            None => true,
        })
    };
    let (n_accurate, accurate_trials) = fewest_steps("accurate", accurate)?;
    println!(
        "accuracy search (steps per 1 ms; goals x_p < 0.1 %, v_p < 2 %, p_A, p_B < 1 %): \
         {accurate_trials}"
    );

    #[derive(Clone, Copy)]
    enum Config {
        Fmu(f64, f64),
        Euler(u32, &'static str),
    }
    let paper_n = (STEP / PAPER_STEP).round() as u32;
    let configs = [
        Config::Fmu(STEP, DEFAULT_TOL),
        Config::Fmu(10.0 * STEP, DEFAULT_TOL),
        Config::Fmu(STEP, LOOSE_TOL),
        Config::Euler(paper_n, "the paper's step"),
        Config::Euler(n_stable, "largest stable step"),
        Config::Euler(n_accurate, "largest step within the goals"),
    ];
    let rows = fastest_of(
        args.repeat,
        &configs,
        |c| match *c {
            Config::Fmu(h, tol) => fmu_row(&fmu, h, tol, reference),
            Config::Euler(n, note) => euler_row(n, reference, note),
        },
        |r| r.wall,
    )?;
    println!(
        "error: relative RMS % against the reference every 1 ms (10 ms for the 10 ms row); wall: \
         fastest of {} run(s); latency: per 1 ms of simulated time (one doStep, or the Euler \
         steps that make up 1 ms, in process without an FMI call)",
        args.repeat
    );
    print_table(&rows);

    let (rodas, loose) = (&rows[0], &rows[2]);
    let (paper, stable_row, best_euler) = (&rows[3], &rows[4], &rows[5]);
    let errors = |r: &Row| match &r.errors {
        Some(e) => SIGNALS
            .iter()
            .zip(e)
            .map(|(s, e)| format!("{s} {e:.2e} %"))
            .collect::<Vec<_>>()
            .join(", "),
        None => "no reference".into(),
    };
    for r in [rodas, loose] {
        println!(
            "goal, {GOAL_FACTOR:.0} x real time at 1 ms within the accuracy goals: {} {:.0} x, {} \
             ({})",
            r.label,
            r.factor(),
            if r.factor() >= GOAL_FACTOR && r.meets_goals() {
                "reached"
            } else {
                "NOT reached"
            },
            errors(r)
        );
    }
    println!(
        "the paper's scheme: stable from {:.0} steps per 1 ms ({}), within the goals from {} \
         ({:.0} x real time there); at the paper's 0.1 ms: {}",
        stable_row.substeps / (STOP / STEP),
        stable_row.label,
        best_euler.label,
        best_euler.factor(),
        if paper.note.contains("UNSTABLE") {
            "it does not settle (see the stability test above)".to_string()
        } else {
            errors(paper)
        }
    );
    println!(
        "ratios, measured in this run (wall times): the paper's scheme at its largest accurate \
         step takes {:.1} x the time of Rodas3 at 1 ms ({:.1} x with tolerance {LOOSE_TOL:.0e}); \
         at the paper's 0.1 ms {:.2} x; worst 1 ms step {:.1} us (Rodas3), {:.1} us (Rodas3, \
         tolerance {LOOSE_TOL:.0e}), {:.1} us (Euler, largest accurate step)",
        best_euler.wall / rodas.wall,
        best_euler.wall / loose.wall,
        paper.wall / rodas.wall,
        rodas.latency.worst * 1e6,
        loose.latency.worst * 1e6,
        best_euler.latency.worst * 1e6
    );
    Ok(())
}
