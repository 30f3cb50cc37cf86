//! Benchmark of the FourBar FMU, measured side by side in one run through
//! the packaged FMU's FMI 3 functions, on the scenarios of issue 10: 10 s of
//! U_ref = 10 sin(0.4 pi t) V with the `real-2` valve curve and 5 s with the
//! `linear` one, the command taken in the middle of every 10 ms interval and
//! held. Rows:
//!
//! - our integrator (Rodas3, default tolerances) at a 1 ms and at a 10 ms
//!   communication step;
//! - explicit RK4 at the largest stable fixed step, found by doubling and
//!   bisection over the number of RK4 steps per 10 ms communication step
//!   (RK4 is stable beyond 1 ms here, and 10 ms is the longest step that
//!   holds the same input; stable: the run ends with finite values and stays
//!   within the accuracy goals of the Rodas3 1 ms run, theta and s 0.1 %, pp,
//!   p1 and p2 1 % relative RMS);
//! - the Python reference's own time for one solve of the same scenario
//!   (SciPy Radau at its rtol 1e-10), as the script prints it.
//!
//! Columns: wall time, real-time factor, right-hand-side evaluations,
//! Jacobians, substeps, doStep latency (median, 99.9th percentile, worst)
//! and the relative RMS error against the scenario's reference. Below the
//! table, the time of one right-hand-side evaluation (explicit Euler at
//! 100 steps per 1 ms communication step: the median doStep over 100) and from
//! it the split of a 1 ms doStep, then one line per goal of the issue.
//!
//! The input and the reference come from `validation/scenarios/FourBar/<name>`
//! when that folder exists; otherwise the input is generated here the same
//! way and the error columns say `no reference`.
//!
//! Run: `cargo run --release -p validation --bin bench-four-bar`

use anyhow::{Context, Result, bail};
use clap::Parser;
use std::path::{Path, PathBuf};
use std::process::Command;
use validation::bench::{
    Expectation, Status, Target, TimedRun, common_grid, fastest_of, fewest_passing,
    relative_errors, timed_steps,
};
use validation::cosim::in_repo;
use validation::fmi::fmu3::Fmu3;
use validation::harness::units::{DisplayUnit, significant};
use validation::{Inputs, Scenario, Trace, relative_rms_percent, repo_root, scenario_dir};

/// Benchmark the FourBar FMU: Rodas3, RK4 at its stability limit and the
/// Python reference, side by side.
///
/// Per scenario, through the FMI 3 functions of the packaged FMU: Rodas3 at
/// 1 ms and 10 ms communication steps, explicit RK4 at the largest stable
/// step (found by bisection; --quick takes --rk4-step instead) and the
/// Python reference's time for one solve. The table gives wall time,
/// real-time factor, right-hand-side evaluations, Jacobians, substeps,
/// doStep latency (median, 99.9th percentile, worst) and the relative RMS
/// error against the scenario's reference; the lines under it give the cost
/// of one right-hand side, the split of a 1 ms doStep and the goals of
/// issue 10 (1000 x real time at 1 ms; theta, s < 0.1 %, pp, p1, p2 < 1 %).
#[derive(Parser)]
struct Args {
    /// Scenarios: `sine_real2` (10 s, real-2 curve), `sine_linear` (5 s,
    /// linear curve).
    #[arg(long = "scenario", default_values_t = ["sine_real2".to_string(), "sine_linear".to_string()])]
    scenarios: Vec<String>,
    /// The FMI 3 FMU to measure.
    #[arg(long, default_value = "dist/fmi3/FourBar.fmu")]
    fmu: PathBuf,
    /// Skip the bisection for the largest stable RK4 step and use
    /// --rk4-step instead.
    #[arg(long)]
    quick: bool,
    /// The RK4 step with --quick, s (rounded to a whole number of steps per
    /// 10 ms communication step).
    #[arg(long, default_value_t = 2.5e-3)]
    rk4_step: f64,
    /// Rounds over all rows; the table shows each row's fastest run (the
    /// least disturbed by other work on the machine) and its doStep
    /// latencies.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Simulated time of the explicit-Euler run that measures one
    /// right-hand-side evaluation, s.
    #[arg(long, default_value_t = 1.0)]
    rhs_span: f64,
    /// Do not time the Python reference.
    #[arg(long)]
    no_python: bool,
    /// The Python interpreter for the reference.
    #[arg(long, default_value = "target/venv/bin/python")]
    python: PathBuf,
}

/// The compared signals and their accuracy goals (relative RMS, %).
const SIGNALS: [&str; 5] = ["theta", "s", "pp", "p1", "p2"];
const GOALS: [f64; 5] = [0.1, 0.1, 1.0, 1.0, 1.0];

/// The communication step of the goal, s.
const STEP: f64 = 1e-3;
/// The goal's real-time factor at [`STEP`].
const GOAL_FACTOR: f64 = 1000.0;
/// The hold period of the valve command, s.
const HOLD: f64 = 0.01;
/// Explicit-Euler steps per communication step in the right-hand-side cost run.
const EULER_SUBSTEPS: u32 = 100;
/// The reference script.
const REFERENCE_SCRIPT: &str = "validation/python/reference/four_bar.py";

/// A scenario of issue 10: its valve curve (parameter `curve`) and length.
struct Case {
    name: &'static str,
    curve: i32,
    curve_name: &'static str,
    stop: f64,
}

const CASES: [Case; 2] = [
    Case {
        name: "sine_real2",
        curve: 3,
        curve_name: "real-2",
        stop: 10.0,
    },
    Case {
        name: "sine_linear",
        curve: 1,
        curve_name: "linear",
        stop: 5.0,
    },
];

/// What one scenario runs with.
struct Setup {
    /// The scenario, when its folder exists.
    scenario: Option<Scenario>,
    inputs: Inputs,
    reference: Option<Trace>,
    parameters: Vec<(String, f64)>,
    stop: f64,
}

impl Setup {
    /// From the scenario folder, or generated when there is none.
    fn new(case: &Case) -> Result<Self> {
        let mut parameters = vec![("curve".to_string(), f64::from(case.curve))];
        let dir = scenario_dir("FourBar", case.name);
        if !dir.join("scenario.json").is_file() {
            return Ok(Setup {
                scenario: None,
                inputs: valve_command(case.stop),
                reference: None,
                parameters,
                stop: case.stop,
            });
        }
        let spec = Scenario::load(&dir)?;
        for (name, value) in &spec.parameters {
            let v = match value {
                serde_json::Value::Bool(b) => f64::from(u8::from(*b)),
                v => v
                    .as_f64()
                    .with_context(|| format!("{}: parameter `{name}`", spec.key()))?,
            };
            parameters.retain(|(n, _)| n != name);
            parameters.push((name.clone(), v));
        }
        Ok(Setup {
            stop: spec.options.stop_time,
            inputs: spec.inputs.clone(),
            reference: Some(spec.read_reference()?),
            parameters,
            scenario: Some(spec),
        })
    }

    /// The sampling grid of the comparisons, s: the reference's, else 1 ms.
    fn grid(&self) -> f64 {
        self.reference
            .as_ref()
            .map_or(STEP, |r| r.time[1] - r.time[0])
    }
}

/// The valve command as the scenario files hold it: a row every [`HOLD`]
/// with 10 sin(0.4 pi t) at the middle of its interval, to 10 significant
/// digits, held until the next row; the row at the stop time repeats the one
/// before (no step starts there).
fn valve_command(stop: f64) -> Inputs {
    let rows = (stop / HOLD).round() as usize;
    let time: Vec<f64> = (0..=rows).map(|k| k as f64 * HOLD).collect();
    let mut u: Vec<f64> = time
        .iter()
        .map(|&t| {
            let v = 10.0 * (0.4 * std::f64::consts::PI * (t + 0.5 * HOLD)).sin();
            format!("{v:.9e}").parse().unwrap_or(v)
        })
        .collect();
    if rows > 0 {
        u[rows] = u[rows - 1];
    }
    Inputs::held("U_ref", time, u)
}

/// One row's settings.
#[derive(Clone)]
struct Config {
    label: String,
    solver: i32,
    explicit_step: f64,
    h: f64,
    span: f64,
}

impl Config {
    fn rodas(h: f64, stop: f64) -> Self {
        Config {
            label: format!("Rodas3, {} ms", h * 1e3),
            solver: 1,
            explicit_step: 1e-4,
            h,
            span: stop,
        }
    }

    /// `method` (2 Euler, 3 RK4) at `substeps` fixed steps per
    /// communication step `h`.
    fn explicit(method: i32, substeps: u32, h: f64, span: f64) -> Self {
        let step = h / f64::from(substeps);
        Config {
            label: format!(
                "{} {}, {} ms",
                if method == 2 { "Euler" } else { "RK4" },
                if step >= 1e-3 {
                    format!("{} ms", significant(step * 1e3, 4))
                } else {
                    format!("{} us", significant(step * 1e6, 4))
                },
                h * 1e3
            ),
            solver: method,
            explicit_step: step,
            h,
            span,
        }
    }
}

struct Outcome {
    run: TimedRun,
    errors: Option<Vec<f64>>,
    status: Status,
}

/// The physical ranges of [`SIGNALS`] and, with a reference, its final
/// values within the scenario's max_abs bounds.
fn expectations(fmu: &Fmu3, setup: &Setup) -> Result<Vec<Expectation>> {
    let start = |name: &str| {
        fmu.description
            .variable_by_name(name)
            .and_then(|v| v.start)
            .with_context(|| format!("the FMU has no start value of `{name}`"))
    };
    let (s_min, stroke, p_cr) = (start("s_min")?, start("stroke")?, start("p_cr")?);
    SIGNALS
        .iter()
        .map(|&name| {
            let range = match name {
                "theta" => (f64::NEG_INFINITY, f64::INFINITY),
                "s" => (s_min - 0.01, s_min + stroke + 0.01),
                _ => (-1e5, 2.0 * p_cr),
            };
            let target = match (&setup.reference, &setup.scenario) {
                (Some(r), Some(spec)) => match (r.require(name)?.last(), spec.bounds(name)) {
                    (Some(&value), Some(b)) => Some(Target {
                        value,
                        tolerance: b.max_abs,
                        source: "reference".into(),
                    }),
                    _ => None,
                },
                _ => None,
            };
            Ok(Expectation {
                name: name.to_string(),
                unit: DisplayUnit::of(&fmu.description, name),
                range,
                target,
            })
        })
        .collect()
}

/// One run of `c` over its span, sampled on the setup's grid.
fn run(fmu: &Fmu3, setup: &Setup, c: &Config, expect: &[Expectation]) -> Result<Outcome> {
    let mut inst = fmu.instantiate("bench")?;
    let mut values = setup.parameters.clone();
    values.push(("solver".into(), f64::from(c.solver)));
    values.push(("explicit_step".into(), c.explicit_step));
    inst.set_parameters(&values)?;
    inst.set("U_ref", setup.inputs.at(0, 0.0))?;
    inst.initialize(c.span)?;
    let vrs: Vec<u32> = SIGNALS.iter().map(|s| fmu.vr(s)).collect::<Result<_>>()?;
    let (every, stride) = common_grid(c.h, setup.grid());
    let run = timed_steps(
        &mut inst,
        fmu.vr("U_ref")?,
        |t| setup.inputs.at(0, t),
        c.h,
        c.span,
        &vrs,
        every,
    )?;
    let full = (c.span - setup.stop).abs() < 1e-9;
    let errors = match &setup.reference {
        Some(r) if full => Some(relative_errors(r, &SIGNALS, &run.samples, stride)?),
        _ => None,
    };
    let status = if full {
        run.status(expect)
    } else {
        let ranges: Vec<Expectation> = expect
            .iter()
            .cloned()
            .map(|e| Expectation { target: None, ..e })
            .collect();
        run.status(&ranges)
    };
    Ok(Outcome {
        run,
        errors,
        status,
    })
}

/// Why `run` is not close to `base` (the Rodas3 1 ms run), if it is
/// not: a failed or non-finite run, or an error above a goal of [`GOALS`],
/// compared at the run's sampling points (`stride` samples of `base` apart).
fn unlike(run: &Outcome, base: &TimedRun, stride: usize) -> Option<String> {
    if !run.status.is_ok() {
        return Some(run.status.text());
    }
    for ((name, goal), (a, b)) in SIGNALS
        .iter()
        .zip(GOALS)
        .zip(run.run.samples.iter().zip(&base.samples))
    {
        let b: Vec<f64> = b.iter().step_by(stride).copied().collect();
        if a.len() != b.len() {
            return Some(format!("{name}: {} of {} samples", a.len(), b.len()));
        }
        let e = relative_rms_percent(a, &b);
        if e.is_nan() || e > goal {
            return Some(format!("{name} {e:.2e} % from Rodas3"));
        }
    }
    None
}

/// The fewest RK4 steps per [`HOLD`] (the communication step of the RK4
/// row: the longest that holds the same input) with which the run stays
/// close to `base` (the Rodas3 1 ms run): doubling from one step, then
/// bisection. Prints the trials.
fn largest_stable_rk4(
    fmu: &Fmu3,
    setup: &Setup,
    base: &TimedRun,
    expect: &[Expectation],
) -> Result<u32> {
    let stride = (HOLD / base.sample_dt).round() as usize;
    let mut trials = Vec::new();
    let mut stable = |n: u32| -> Result<bool> {
        eprint!("\rRK4 search: {n} steps per 10 ms      ");
        let o = run(
            fmu,
            setup,
            &Config::explicit(3, n, HOLD, setup.stop),
            expect,
        )?;
        let why = unlike(&o, base, stride);
        trials.push(match &why {
            None => format!("{n} stable"),
            Some(why) => format!("{n} unstable ({})", why.split("; ").next().unwrap_or(why)),
        });
        Ok(why.is_none())
    };
    let Some(hi) = fewest_passing(1 << 20, &mut stable)? else {
        bail!("RK4 is not stable even at {} steps per 10 ms", 1 << 20);
    };
    eprintln!();
    println!(
        "RK4 stability search (steps per 10 ms communication step; stable: status ok and within \
         the accuracy goals of Rodas3 at 1 ms): {}; largest stable step 10 ms / {hi} = {} ms{}",
        trials.join(", "),
        significant(HOLD / f64::from(hi) * 1e3, 4),
        if hi == 1 {
            " (the input's hold period: no longer step is tried)"
        } else {
            ""
        }
    );
    Ok(hi)
}

/// The Python reference's time for one solve.
struct PythonTime {
    wall: f64,
    rhs: f64,
    jacobians: f64,
    what: String,
}

/// Runs the reference script for one scenario (Radau only, no dense-output
/// check, files to a temporary folder: the script writes nothing without
/// its CVODE cross-check) and reads the time it prints for the FourBar
/// solve: `[FourBar/<name>] radau: nfev N, njev M, ..., W s`.
fn python_reference(python: &Path, name: &str, stop: f64) -> Result<PythonTime, String> {
    let root = repo_root();
    let script = root.join(REFERENCE_SCRIPT);
    if !script.is_file() {
        return Err(format!("{REFERENCE_SCRIPT} does not exist"));
    }
    let python = in_repo(python);
    if !python.is_file() {
        return Err(format!("no interpreter at {}", python.display()));
    }
    let out_dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    eprintln!("timing the Python reference for {name} (the script's other runs take longer)...");
    let output = Command::new(&python)
        .arg(&script)
        .args(["--scenario", name, "--no-cvode", "--quick", "--jobs", "1"])
        .arg("--out-dir")
        .arg(out_dir.path())
        .current_dir(&root)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let tag = format!("[FourBar/{name}] radau:");
    let Some(line) = stdout.lines().find(|l| l.contains(&tag)) else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or("no message");
        return Err(format!(
            "the script printed no `{tag}` line (exit {}: {last})",
            output.status
        ));
    };
    let fields: Vec<&str> = line[line.find(&tag).unwrap_or(0) + tag.len()..]
        .split(',')
        .map(str::trim)
        .collect();
    let number = |key: &str| {
        fields
            .iter()
            .find_map(|f| f.strip_prefix(key)?.trim().parse::<f64>().ok())
    };
    let wall = fields
        .last()
        .and_then(|f| f.strip_suffix(" s"))
        .and_then(|w| w.trim().parse::<f64>().ok());
    match (wall, number("nfev"), number("njev")) {
        (Some(wall), Some(rhs), Some(jacobians)) => Ok(PythonTime {
            wall,
            rhs,
            jacobians,
            what: format!("SciPy Radau rtol 1e-10, {stop} s"),
        }),
        _ => Err(format!("cannot read `{}`", line.trim())),
    }
}

fn header() {
    print!(
        "{:<22} {:>8} {:>10} {:>10} {:>9} {:>9} {:>8} {:>10} {:>10} {:>10}",
        "row",
        "wall [s]",
        "x realtime",
        "rhs evals",
        "Jacobians",
        "substeps",
        "rejected",
        "median[us]",
        "p99.9 [us]",
        "worst [us]"
    );
    for s in SIGNALS {
        print!(" {:>9}", format!("{s} [%]"));
    }
    println!("  status");
}

fn row(c: &Config, o: &Outcome) {
    let (r, n) = (&o.run, &o.run.counts);
    print!(
        "{:<22} {:>8.3} {:>10.0} {:>10.0} {:>9.0} {:>9.0} {:>8.0} {:>10.2} {:>10.1} {:>10.1}",
        c.label,
        r.wall,
        r.realtime_factor(),
        n.rhs_evals,
        n.jacobians,
        n.steps,
        n.rejected,
        r.latency.median * 1e6,
        r.latency.p999 * 1e6,
        r.latency.worst * 1e6
    );
    match &o.errors {
        Some(errors) => errors.iter().for_each(|e| print!(" {e:>9.2e}")),
        None => print!(" {:>49}", "no reference"),
    }
    println!("  {}", o.status.text());
}

fn python_row(p: &Result<PythonTime, String>, stop: f64) {
    match p {
        Ok(p) => println!(
            "{:<22} {:>8.1} {:>10.2} {:>10.0} {:>9.0} {:>9} {:>8} {:>10} {:>10} {:>10} {:>49}  {}",
            "Python reference",
            p.wall,
            stop / p.wall,
            p.rhs,
            p.jacobians,
            "-",
            "-",
            "-",
            "-",
            "-",
            "(is the reference)",
            p.what
        ),
        Err(why) => println!("{:<22} not available: {why}", "Python reference"),
    }
}

/// The closing lines: the right-hand-side cost, the split of a 1 ms doStep
/// and one line per goal.
fn verdict(rodas: &Outcome, euler: &Outcome, name: &str) {
    // Medians: what a step costs when nothing else on the machine
    // interrupts it; means: what the real-time factor sees.
    let n_euler = f64::from(EULER_SUBSTEPS);
    let per_rhs = euler.run.latency.median / n_euler;
    println!(
        "one right-hand side: {:.3} us (median explicit-Euler doStep of {EULER_SUBSTEPS} steps / \
         {EULER_SUBSTEPS}; mean {:.3} us: {:.0} evaluations in {:.3} s over the first {} s; {})",
        per_rhs * 1e6,
        euler.run.wall / euler.run.counts.rhs_evals * 1e6,
        euler.run.counts.rhs_evals,
        euler.run.wall,
        euler.run.t_end,
        euler.status.text()
    );
    let r = &rodas.run;
    let steps = (r.t_end / STEP).round().max(1.0);
    let (mean, median) = (r.wall / steps, r.latency.median);
    let (rhs, jacobians, substeps) = (
        r.counts.rhs_evals / steps,
        r.counts.jacobians / steps,
        r.counts.steps / steps,
    );
    let rhs_time = rhs * per_rhs;
    let factor = r.realtime_factor();
    let budget = STEP / GOAL_FACTOR;
    println!(
        "FourBar at 1 ms: {factor:.0} x real time (goal {GOAL_FACTOR:.0} x; {:.0} x from the median \
         doStep, what a machine without other work gives): {}",
        STEP / median,
        if factor >= GOAL_FACTOR {
            "reached"
        } else {
            "NOT reached"
        }
    );
    println!(
        "  a 1 ms doStep: mean {:.2} us, median {:.2} us (the goal allows {:.2} us); of the median, \
         {rhs:.2} right-hand sides x {:.3} us = {:.2} us ({:.0} %), the rest {:.2} us ({:.0} %) for \
         {jacobians:.2} Jacobians and {substeps:.2} substeps ({:.0} rejected in all) with their LU \
         decompositions and solves, step control and the FMI call",
        mean * 1e6,
        median * 1e6,
        budget * 1e6,
        per_rhs * 1e6,
        rhs_time * 1e6,
        100.0 * rhs_time / median,
        (median - rhs_time) * 1e6,
        100.0 * (median - rhs_time) / median,
        r.counts.rejected
    );
    if factor < GOAL_FACTOR {
        println!(
            "  limit: {}the doStep costs {:.0} times the {:.2} us budget, and one right-hand side \
             alone {:.1} times it: no integrator that evaluates the right-hand side at least once \
             per doStep runs faster than {:.0} x real time at a 1 ms step",
            if substeps <= 1.05 {
                "Rodas3 already takes a single substep per doStep (the communication step, not the \
                 dynamics, sets the work: 3 right-hand sides and 1 Jacobian with its LU, the \
                 fewest a step can have); "
            } else {
                ""
            },
            median / budget,
            budget * 1e6,
            per_rhs / budget,
            STEP / per_rhs
        );
    }
    match &rodas.errors {
        Some(errors) => {
            let met = errors.iter().zip(GOALS).all(|(e, g)| *e < g);
            println!(
                "FourBar at 1 ms, accuracy (goal theta, s < 0.1 %, pp, p1, p2 < 1 % relative \
                 RMS): {} ({})",
                if met { "reached" } else { "NOT reached" },
                SIGNALS
                    .iter()
                    .zip(errors)
                    .map(|(s, e)| format!("{s} {e:.2e} %"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        None => println!(
            "FourBar at 1 ms, accuracy (goal theta, s < 0.1 %, pp, p1, p2 < 1 %): no reference \
             (validation/scenarios/FourBar/{name} is missing)"
        ),
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    let path = in_repo(&args.fmu);
    let fmu = Fmu3::load(&path)?;
    // Other work on the machine slows every row; say how much there was.
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
    for name in &args.scenarios {
        let case = CASES
            .iter()
            .find(|c| c.name == name)
            .with_context(|| format!("unknown scenario `{name}` (sine_real2, sine_linear)"))?;
        let setup = Setup::new(case)?;
        let expect = expectations(&fmu, &setup)?;
        let stop = setup.stop;
        println!(
            "\nFourBar, scenario '{name}' ({stop} s, valve curve {} = `curve` {}), through fmi3DoStep of {}",
            case.curve_name,
            case.curve,
            path.display()
        );
        match &setup.scenario {
            Some(spec) => println!("input and reference: validation/scenarios/{}", spec.key()),
            None => println!(
                "input: U_ref = 10 sin(0.4 pi t) V at the middle of each 10 ms interval, held \
                 (generated: validation/scenarios/FourBar/{name} does not exist, so no reference)"
            ),
        }
        let rodas = Config::rodas(STEP, stop);
        let substeps = if args.quick {
            ((HOLD / args.rk4_step).round() as u32).max(1)
        } else {
            let base = run(&fmu, &setup, &rodas, &expect)?;
            largest_stable_rk4(&fmu, &setup, &base.run, &expect)?
        };
        let configs = [
            rodas,
            Config::rodas(10.0 * STEP, stop),
            Config::explicit(3, substeps, HOLD, stop),
            Config::explicit(2, EULER_SUBSTEPS, STEP, args.rhs_span.min(stop)),
        ];
        let python = if args.no_python {
            Err("skipped (--no-python)".to_string())
        } else {
            python_reference(&args.python, name, stop)
        };
        let best = fastest_of(
            args.repeat,
            &configs,
            |c| run(&fmu, &setup, c, &expect),
            |o| o.run.wall,
        )?;
        println!(
            "error: relative RMS % against the reference on its grid; wall: fastest of {} run(s); \
             latency: per doStep",
            args.repeat
        );
        header();
        for (c, o) in configs.iter().zip(&best).take(3) {
            row(c, o);
        }
        python_row(&python, stop);
        verdict(&best[0], &best[3], name);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The command generated without a scenario folder is the one the
    /// scenario files hold (to their 10 significant digits).
    #[test]
    fn the_generated_command_is_the_scenario_files() {
        for case in &CASES {
            let dir = scenario_dir("FourBar", case.name);
            if !dir.join("scenario.json").is_file() {
                continue;
            }
            let files = Scenario::load(&dir).unwrap().inputs;
            let ours = valve_command(case.stop);
            assert_eq!(ours.names(), files.names());
            assert_eq!(
                ours.trace.time.len(),
                files.trace.time.len(),
                "{}",
                case.name
            );
            for (k, &t) in files.trace.time.iter().enumerate() {
                assert!(
                    (ours.trace.time[k] - t).abs() < 1e-12,
                    "{}: row {k}",
                    case.name
                );
                let (a, b) = (ours.trace.columns[0][k], files.trace.columns[0][k]);
                assert!((a - b).abs() <= 1e-9, "{}: row {k}: {a} vs {b}", case.name);
            }
        }
    }
}
