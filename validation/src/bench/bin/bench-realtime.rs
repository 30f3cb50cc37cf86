//! Real-time figures of every circuit, measured side by side in one run
//! through the packaged FMUs' FMI 3 functions: each circuit's harness
//! scenario at its communication step `h`, with
//!
//! - the default adaptive integrator (Rodas3, solver = 1),
//! - the adaptive Rosenbrock-W integrator that reuses its Jacobian and LU
//!   factors (ROS34PW2, solver = 4), at the default tolerance and at 1e-3,
//! - the same stepping past communication points and interpolating while
//!   the inputs stay the same (solver = 6), at the default tolerances and
//!   at rtol = atol = 1e-4,
//! - both adaptive ones at the tolerances given with `--tol`,
//! - the fixed-cost integrator (solver = 5) at one substep per `doStep`
//!   (substep `h`), at ten (substep `h/10`) and at the count the harness's
//!   fixed-cost mode uses for the scenario (validation/scenarios/
//!   fixed_cost.json),
//! - explicit RK4 at `h/10` (solver = 3),
//! - for circuits with trained small volumes (`validation::training::surrogate_data`):
//!   explicit Euler and RK4 at the surrogates' sample period `T` with the
//!   physics, and RK4 with the NARX network and the LOLIMOT model in place
//!   of the small volume's equation (the hybrid of Ustinov et al. (2022)),
//! - for the ValveActuator, its whole-actuator surrogates
//!   (`actuator_surrogate` 1 and 2, V9: one fixed-cost update per 10 ms),
//!   measured at a 10 ms communication step (`ValveActuator/random_motion@0.01`)
//!   beside the integrators of the physics at the same step; their rows
//!   are judged by the physics scenario's bounds (pv's 1 % is beyond
//!   them: the harness scenarios `random_motion_hil_*` state theirs),
//!
//! with wall time, real-time factor, substeps, rejections, Jacobians, the
//! `doStep` latencies (median, p99.9, p99.99, worst) and the errors against
//! the scenario's reference, judged by the scenario's bounds (the
//! harness's relative RMS and maximum absolute error per signal).
//!
//! How the latencies are taken: the process pins itself to one core (the
//! last; `--no-pin` leaves it free), every configuration runs `--repeat`
//! rounds (round after round, so that a slow spell of the machine does not
//! hit one configuration only), and the table shows the fastest round's
//! wall time and latencies. On a shared machine a worst case measured once
//! includes the machine's interruptions (timer ticks, other guests); the
//! column `intrinsic` is the worst over the steps of each step's *fastest*
//! time in all rounds, the cost of the step's own work, which an
//! interruption would have to hit in every round to inflate.
//!
//! With `--twins` each circuit is a described circuit's twin scenario
//! (`ValveCylinderFile/repeatable`: a File model's scenario with
//! `twin_of`, validation/python/harness/README.md, "Twin scenarios"), and
//! every row is measured with the written-out twin's FMU too
//! (`ValveCylinder.fmu` with the twin scenario's parameters), in the same
//! rounds, printed below it with the cost of the engine: the described
//! FMU's wall and median `doStep` time over the written-out one's, and
//! whether both did the same substeps, rejections and Jacobians. Without
//! `--circuit` it measures every twin scenario whose FMU is built.
//!
//! With `--substeps` it also finds, per circuit, the fewest fixed-cost
//! substeps per `doStep` whose run meets the scenario's bounds (doubling,
//! then bisection), the figure the scenarios' `fixed_cost_substeps`
//! entries for the harness come from.
//!
//! Run: `cargo run --release -p validation --bin bench-realtime`
//! (described beside written-out: `... --bin bench-realtime -- --twins
//! --only "Rodas3 (default)"`)

use anyhow::{Context, Result, anyhow, ensure};
use clap::Parser;
use std::io::IsTerminal;
use std::path::PathBuf;
use validation::bench::{SolverCounts, common_grid, fewest_passing, timed_do_steps};
use validation::cosim::in_repo;
use validation::fmi::fmu3::Fmu3;
use validation::training::surrogate_data::{SLOTS, Slot};
use validation::{Scenario, Trace, max_abs_error, percentile, relative_rms_percent};

/// The circuits and scenarios measured by default (`@h`: at communication
/// step `h` s instead of the scenario's smallest).
const CIRCUITS: [&str; 9] = [
    "OrificeChain/startup",
    "ValveCylinder/random",
    "HoseG/step_n1",
    "HoseH/step_n7",
    "HoseY/impulse_n1",
    "HoseZ/impulse_n1",
    "FourBar/sine_real2",
    "LiftActuator/lift_100kg",
    "ValveActuator/random_motion@0.01",
];

/// Real-time figures of every circuit: adaptive and fixed-cost integrators
/// beside RK4, through fmi3DoStep.
#[derive(Parser)]
#[command(about)]
struct Args {
    /// Circuits as Model/scenario (scenario folders under
    /// validation/scenarios); all of the list in the source by default.
    #[arg(long = "circuit")]
    circuits: Vec<String>,
    /// Rounds over all configurations of a circuit.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Do not pin the process to one core.
    #[arg(long)]
    no_pin: bool,
    /// Also find the fewest fixed-cost substeps per doStep that meet the
    /// scenario's bounds.
    #[arg(long)]
    substeps: bool,
    /// Only find the fewest fixed-cost substeps (no table).
    #[arg(long)]
    substeps_only: bool,
    /// Folder of the FMI 3 FMUs.
    #[arg(long, default_value = "dist/fmi3")]
    dist: PathBuf,
    /// Communication step, s, instead of each scenario's smallest step.
    #[arg(long)]
    step: Option<f64>,
    /// Only the rows whose integrator label starts with this text (for
    /// example "ROS34PW2 reuse 1e-3", to profile one configuration).
    #[arg(long)]
    only: Option<String>,
    /// Further rows of both adaptive integrators at these tolerances, as
    /// RTOL or RTOL/ATOL (ATOL scales each state's nominal value; the FMUs'
    /// default is 1e-6); may be repeated.
    #[arg(long = "tol", value_parser = parse_tolerances)]
    tolerances: Vec<(f64, Option<f64>)>,
    /// Under each row, every signal's relative RMS and largest absolute
    /// error against the reference.
    #[arg(long)]
    errors: bool,
    /// Folder of the FMI 3 FMUs of another build (a copy of an earlier
    /// dist/fmi3): every row is measured with those FMUs too, in the same
    /// rounds, and printed below with the ratio of the wall times and
    /// whether the substeps, rejections and Jacobians are the same (the
    /// check that a change kept the speed and the work).
    #[arg(long, value_name = "DIR")]
    baseline: Option<PathBuf>,
    /// Each circuit is a described circuit's twin scenario (a File model's,
    /// e.g. ValveCylinderFile/repeatable): every row is measured with the
    /// written-out twin's FMU too, in the same rounds, and printed below
    /// with the cost ratio described / written-out. Without --circuit:
    /// every twin scenario whose FMU is built.
    #[arg(long, conflicts_with = "baseline")]
    twins: bool,
}

/// `RTOL` or `RTOL/ATOL`, both positive.
fn parse_tolerances(text: &str) -> Result<(f64, Option<f64>), String> {
    let number = |t: &str| -> Result<f64, String> {
        let v: f64 = t
            .trim()
            .parse()
            .map_err(|_| format!("`{t}` is not a number"))?;
        if v > 0.0 && v.is_finite() {
            Ok(v)
        } else {
            Err(format!("a tolerance must be positive, got {v}"))
        }
    };
    match text.split_once('/') {
        Some((r, a)) => Ok((number(r)?, Some(number(a)?))),
        None => Ok((number(text)?, None)),
    }
}

/// One integrator configuration.
#[derive(Clone)]
struct Config {
    label: String,
    solver: i32,
    rtol: Option<f64>,
    atol: Option<f64>,
    fixed_substeps: i32,
    explicit_step: Option<f64>,
    /// Further parameters (the surrogate choice).
    extra: Vec<(&'static str, f64)>,
}

impl Config {
    fn new(label: &str, solver: i32) -> Self {
        Config {
            label: label.to_string(),
            solver,
            rtol: None,
            atol: None,
            fixed_substeps: 1,
            explicit_step: None,
            extra: Vec::new(),
        }
    }

    /// The rows of a trained small volume: explicit Euler (the method of
    /// Ustinov et al. (2022) and Štefan et al. (2007)) and RK4 at the sample
    /// period with the physics, RK4 with the NARX network and with LOLIMOT.
    fn surrogates(slot: &Slot) -> Vec<Config> {
        let t = slot.period;
        let at = format!("{} ms", t * 1e3);
        let rk4 = |label: String, choice: f64| Config {
            explicit_step: Some(t),
            extra: vec![(slot.choice_parameter, choice)],
            ..Config::new(&label, 3)
        };
        vec![
            Config {
                explicit_step: Some(t),
                ..Config::new(&format!("Euler at {at}, physics"), 2)
            },
            rk4(format!("RK4 at {at}, physics"), 0.0),
            rk4(format!("NARX + RK4 at {at}"), 1.0),
            rk4(format!("LOLIMOT + RK4 at {at}"), 2.0),
        ]
    }

    /// The rows of the whole-actuator surrogates (V9).
    fn whole_actuator() -> Vec<Config> {
        [("HIL network at 10 ms", 1.0), ("HIL LOLIMOT at 10 ms", 2.0)]
            .into_iter()
            .map(|(label, choice)| Config {
                extra: vec![("actuator_surrogate", choice)],
                ..Config::new(label, 1)
            })
            .collect()
    }

    fn configs(
        h: f64,
        harness_substeps: Option<i32>,
        tolerances: &[(f64, Option<f64>)],
        slot: Option<&Slot>,
        whole_actuator: bool,
    ) -> Vec<Config> {
        let mut configs = vec![
            Config::new("Rodas3 (default)", 1),
            Config {
                rtol: Some(1e-3),
                ..Config::new("Rodas3 1e-3", 1)
            },
            Config::new("ROS34PW2 reuse", 4),
            Config {
                rtol: Some(1e-3),
                ..Config::new("ROS34PW2 reuse 1e-3", 4)
            },
            Config::new("ROS34PW2 ahead", 6),
            Config {
                rtol: Some(1e-4),
                atol: Some(1e-4),
                ..Config::new("ROS34PW2 ahead 1e-4/1e-4", 6)
            },
            Config::new("fixed-cost x1", 5),
            Config {
                fixed_substeps: 10,
                ..Config::new("fixed-cost x10", 5)
            },
            Config {
                explicit_step: Some(h),
                ..Config::new("RK4 at h", 3)
            },
            Config {
                explicit_step: Some(h / 10.0),
                ..Config::new("RK4 at h/10", 3)
            },
        ];
        let mut at = 6;
        for &(rtol, atol) in tolerances {
            let tol = match atol {
                Some(a) => format!("{rtol:e}/{a:e}"),
                None => format!("{rtol:e}"),
            };
            for (name, solver) in [("Rodas3", 1), ("ROS34PW2 reuse", 4), ("ROS34PW2 ahead", 6)] {
                configs.insert(
                    at,
                    Config {
                        rtol: Some(rtol),
                        atol,
                        ..Config::new(&format!("{name} {tol}"), solver)
                    },
                );
                at += 1;
            }
        }
        if let Some(n) = harness_substeps.filter(|&n| n != 1 && n != 10) {
            configs.insert(
                at + 1,
                Config {
                    fixed_substeps: n,
                    ..Config::new(&format!("fixed-cost x{n} (harness)"), 5)
                },
            );
        }
        if let Some(slot) = slot {
            configs.extend(Config::surrogates(slot));
        }
        if whole_actuator {
            configs.extend(Config::whole_actuator());
        }
        configs
    }
}

/// One run of a configuration.
struct Run {
    wall: f64,
    latencies: Vec<f64>,
    counts: SolverCounts,
    failure: Option<String>,
    /// Per signal: relative RMS error, % and maximum absolute error.
    errors: Vec<(f64, f64)>,
}

/// A circuit's scenario, loaded FMU (and the baseline build's, or with
/// `--twins` the written-out twin's) and reference.
struct Circuit {
    key: String,
    scenario: Scenario,
    fmu: Fmu3,
    baseline: Option<Fmu3>,
    /// With `--twins`, the written-out twin's model name: `baseline` is its
    /// FMU, run with `baseline_parameters`.
    twin: Option<String>,
    reference: Trace,
    parameters: Vec<(String, f64)>,
    baseline_parameters: Vec<(String, f64)>,
    h: f64,
    stop: f64,
}

/// Scenario parameters as numbers (a Boolean as 0 or 1).
fn numeric_parameters(
    key: &str,
    parameters: &[(String, serde_json::Value)],
) -> Result<Vec<(String, f64)>> {
    parameters
        .iter()
        .map(|(name, value)| {
            let v = match value {
                serde_json::Value::Bool(b) => f64::from(u8::from(*b)),
                other => other
                    .as_f64()
                    .with_context(|| format!("{key}: parameter {name} = {other}"))?,
            };
            Ok((name.clone(), v))
        })
        .collect()
}

/// Every twin scenario under validation/scenarios whose described FMU is
/// in `dist`, as Model/scenario; says which are left out.
fn twin_scenarios(dist: &std::path::Path) -> Result<Vec<String>> {
    let root = validation::repo_root().join("validation").join("scenarios");
    let mut keys = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .with_context(|| format!("reading {}", root.display()))?
        .flatten()
        .flat_map(|model| {
            std::fs::read_dir(model.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|d| d.path())
        .filter(|d| d.join("scenario.json").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let scenario = Scenario::load(&dir)?;
        if scenario.twin_of.is_none() {
            continue;
        }
        if in_repo(&dist.join(format!("{}.fmu", scenario.model))).is_file() {
            keys.push(scenario.key());
        } else {
            println!(
                "left out: {} ({}.fmu is not built in {})",
                scenario.key(),
                scenario.model,
                dist.display()
            );
        }
    }
    ensure!(!keys.is_empty(), "no twin scenario with a built FMU");
    Ok(keys)
}

impl Circuit {
    fn load(
        key: &str,
        dist: &std::path::Path,
        baseline: Option<&std::path::Path>,
        twins: bool,
        step: Option<f64>,
    ) -> Result<Self> {
        let (key, step) = match key.split_once('@') {
            Some((key, h)) => {
                let h: f64 =
                    h.parse().ok().filter(|h: &f64| *h > 0.0).with_context(|| {
                        format!("`{key}@{h}`: the step after @ must be seconds")
                    })?;
                (key, step.or(Some(h)))
            }
            None => (key, step),
        };
        let (model, name) = key
            .split_once('/')
            .ok_or_else(|| anyhow!("`{key}`: give a circuit as Model/scenario"))?;
        let scenario = Scenario::named(model, name)?;
        let fmu = Fmu3::load(&in_repo(&dist.join(format!("{model}.fmu"))))?;
        let mut baseline = baseline
            .map(|b| Fmu3::load(&in_repo(&b.join(format!("{model}.fmu")))))
            .transpose()?;
        let parameters = numeric_parameters(key, &scenario.parameters)?;
        let mut baseline_parameters = parameters.clone();
        let mut twin = None;
        if twins {
            let twin_of = scenario.twin_of.as_deref().with_context(|| {
                format!(
                    "`{key}` is not a twin scenario (no twin_of): with --twins give a described \
                     circuit's scenario, e.g. ValveCylinderFile/repeatable"
                )
            })?;
            let twin_model = twin_of.split('/').next().unwrap_or(twin_of);
            baseline = Some(Fmu3::load(&in_repo(
                &dist.join(format!("{twin_model}.fmu")),
            ))?);
            // The written-out FMU gets the parameters the description fixes.
            baseline_parameters = numeric_parameters(twin_of, &scenario.fixed_parameters)?;
            twin = Some(twin_model.to_string());
        }
        let reference = scenario.read_reference()?;
        let h = step.unwrap_or_else(|| {
            scenario
                .step_sizes
                .iter()
                .copied()
                .fold(scenario.options.step_size, f64::min)
        });
        let stop = scenario.options.stop_time;
        ensure!(h > 0.0 && stop > 0.0, "{key}: bad step or stop time");
        Ok(Circuit {
            key: key.to_string(),
            scenario,
            fmu,
            baseline,
            twin,
            reference,
            parameters,
            baseline_parameters,
            h,
            stop,
        })
    }

    /// The fixed-cost substeps the harness's fixed-cost mode uses for this
    /// scenario and step (validation/scenarios/fixed_cost.json), if named;
    /// for a twin scenario not named there, its twin's.
    fn harness_substeps(&self) -> Result<Option<i32>> {
        let path = validation::repo_root().join("validation/scenarios/fixed_cost.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let doc: serde_json::Value =
            serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        let step = format!("{}", self.h);
        let named = |key: &str| doc["substeps"][key][&step].as_i64().map(|n| n as i32);
        Ok(named(&self.key).or_else(|| self.scenario.twin_of.as_deref().and_then(named)))
    }

    /// The circuit's trained small volume, if its FMU has one (the valve
    /// drive's is in ValveCylinder and ValveActuator).
    fn slot(&self) -> Option<Slot> {
        SLOTS.iter().copied().find(|s| {
            self.fmu
                .description
                .variable_by_name(s.choice_parameter)
                .is_some()
        })
    }

    /// Whether the FMU has the whole-actuator surrogate and the step is a
    /// whole number of its 10 ms periods.
    fn whole_actuator(&self) -> bool {
        let periods = self.h / 0.01;
        self.fmu
            .description
            .variable_by_name("actuator_surrogate")
            .is_some()
            && periods >= 1.0
            && (periods - periods.round()).abs() < 1e-9
    }

    /// Runs one configuration over the whole scenario with this build's
    /// FMU, or the baseline build's.
    fn run(&self, c: &Config, baseline: bool) -> Result<Run> {
        let (fmu, parameters) = match (&self.baseline, baseline) {
            (Some(b), true) => (b, &self.baseline_parameters),
            _ => (&self.fmu, &self.parameters),
        };
        let mut inst = fmu.instantiate("realtime")?;
        inst.set_parameters(parameters)?;
        inst.set_int("solver", c.solver)?;
        inst.set_int("fixed_substeps", c.fixed_substeps)?;
        if let Some(rtol) = c.rtol {
            inst.set("rtol", rtol)?;
        }
        if let Some(atol) = c.atol {
            inst.set("atol", atol)?;
        }
        if let Some(step) = c.explicit_step {
            inst.set("explicit_step", step)?;
        }
        for &(name, value) in &c.extra {
            inst.set_any(name, value)?;
        }
        let inputs = &self.scenario.inputs;
        let input_vrs: Vec<u32> = inputs
            .names()
            .iter()
            .map(|n| fmu.vr(n))
            .collect::<Result<_>>()?;
        for (i, &vr) in input_vrs.iter().enumerate() {
            inst.set_vr(vr, inputs.at(i, 0.0))?;
        }
        inst.initialize(self.stop)?;
        let names: Vec<&str> = self.scenario.signal_names().collect();
        let vrs: Vec<u32> = names.iter().map(|n| fmu.vr(n)).collect::<Result<_>>()?;
        let ref_dt = self.reference.time[1] - self.reference.time[0];
        let (every, stride) = common_grid(self.h, ref_dt);
        let n = (self.stop / self.h).round() as usize;
        let mut samples = vec![Vec::with_capacity(n / every + 1); vrs.len()];
        // One get of all the signals and one set of all the inputs per
        // communication point, as a master does it.
        let mut values = vec![0.0; vrs.len()];
        let mut input_values = vec![0.0; input_vrs.len()];
        let timed = timed_do_steps(&mut inst, self.h, n, |inst, k| {
            if k % every == 0 {
                inst.get_vrs(&vrs, &mut values)?;
                for (trace, &v) in samples.iter_mut().zip(&values) {
                    trace.push(v);
                }
            }
            if k < n {
                let t = k as f64 * self.h;
                for (i, v) in input_values.iter_mut().enumerate() {
                    *v = inputs.at(i, t);
                }
                inst.set_vrs(&input_vrs, &input_values)?;
            }
            Ok(())
        })?;
        let errors = names
            .iter()
            .zip(&samples)
            .map(|(name, run)| {
                let expected: Vec<f64> = self
                    .reference
                    .require(name)?
                    .iter()
                    .step_by(stride)
                    .copied()
                    .collect();
                let m = run.len().min(expected.len());
                Ok((
                    relative_rms_percent(&run[..m], &expected[..m]),
                    max_abs_error(&run[..m], &expected[..m]),
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Run {
            wall: timed.wall,
            latencies: timed.steps,
            counts: timed.counts,
            failure: timed
                .failure
                .map(|f| format!("doStep status {} at t = {:.4} s", f.status, f.t)),
            errors,
        })
    }

    /// "pass", or what failed: the run's status and the signals outside
    /// the scenario's bounds.
    fn verdict(&self, run: &Run) -> (bool, String) {
        if let Some(why) = &run.failure {
            return (false, format!("FAILED: {why}"));
        }
        let mut out = Vec::new();
        for (name, (rms, max)) in self.scenario.signal_names().zip(&run.errors) {
            let Some(b) = self.scenario.bounds(name) else {
                continue;
            };
            if !(rms.is_finite() && *rms <= b.rel_rms_percent) {
                out.push(format!("{name} {rms:.3} % > {} %", b.rel_rms_percent));
            } else if !(max.is_finite() && *max <= b.max_abs) {
                out.push(format!("{name} max {max:.3e} > {:.3e}", b.max_abs));
            }
        }
        if out.is_empty() {
            (true, "pass".to_string())
        } else {
            (false, format!("FAIL: {}", out.join(", ")))
        }
    }

    /// The largest error as a share of its bound, and its signal.
    fn worst_share(&self, run: &Run) -> (f64, String) {
        self.scenario
            .signal_names()
            .zip(&run.errors)
            .filter_map(|(name, (rms, _))| {
                let b = self.scenario.bounds(name)?;
                Some((rms / b.rel_rms_percent, name.to_string()))
            })
            .fold((0.0, String::new()), |a, b| if b.0 > a.0 { b } else { a })
    }
}

/// Pins this process to the machine's last CPU; returns its number.
fn pin_to_last_cpu() -> Result<usize> {
    // SAFETY: plain libc calls on a zeroed cpu_set_t owned here.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        ensure!(
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0,
            "sched_getaffinity failed"
        );
        let cpu = (0..libc::CPU_SETSIZE as usize)
            .rev()
            .find(|&c| libc::CPU_ISSET(c, &set))
            .context("no CPU in this process's affinity set")?;
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        ensure!(
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one) == 0,
            "sched_setaffinity failed"
        );
        Ok(cpu)
    }
}

fn micro(seconds: f64) -> String {
    format!("{:.1}", seconds * 1e6)
}

fn main() -> Result<()> {
    let args = Args::parse();
    let pinned = if args.no_pin {
        "not pinned".to_string()
    } else {
        format!("pinned to CPU {}", pin_to_last_cpu()?)
    };
    let keys: Vec<String> = if !args.circuits.is_empty() {
        args.circuits.clone()
    } else if args.twins {
        twin_scenarios(&args.dist)?
    } else {
        CIRCUITS.iter().map(|s| s.to_string()).collect()
    };
    println!(
        "Real-time figures through fmi3DoStep, {pinned}, {} round(s) per configuration: wall and \
         latencies of the fastest round;\nintrinsic = worst over the steps of each step's fastest \
         time in all rounds; errors: the largest relative RMS error as a share of the\nscenario's \
         bound (1 = at the bound); verdict: every signal within its relative RMS and max-abs bound.",
        args.repeat
    );
    for key in &keys {
        let circuit = Circuit::load(
            key,
            &args.dist,
            args.baseline.as_deref(),
            args.twins,
            args.step,
        )?;
        let mut configs = if args.substeps_only {
            Vec::new()
        } else {
            Config::configs(
                circuit.h,
                circuit.harness_substeps()?,
                &args.tolerances,
                circuit.slot().as_ref(),
                circuit.whole_actuator(),
            )
        };
        if let Some(only) = &args.only {
            configs.retain(|c| c.label.starts_with(only.as_str()));
            ensure!(
                !configs.is_empty() || args.substeps_only,
                "no integrator row of {} starts with '{only}'",
                circuit.key
            );
        }
        println!(
            "\n{} ({} s at h = {} ms, {} doSteps)",
            circuit.key,
            circuit.stop,
            circuit.h * 1e3,
            (circuit.stop / circuit.h).round()
        );
        println!(
            "{:<26} {:>8} {:>9} {:>8} {:>7} {:>6} {:>7} {:>7} {:>7} {:>7} {:>9}  {:>13}  verdict",
            "integrator",
            "wall [s]",
            "x realtm",
            "substeps",
            "reject",
            "Jacob",
            "median",
            "p99.9",
            "p99.99",
            "worst",
            "intrinsic",
            "err/bound"
        );
        println!("{:>91}", "doStep latency [us]");
        // Each row with this build's FMU and, with --baseline, the other
        // build's, interleaved in every round.
        let builds: &[bool] = if circuit.baseline.is_some() {
            &[false, true]
        } else {
            &[false]
        };
        let rows: Vec<(&Config, bool)> = configs
            .iter()
            .flat_map(|c| builds.iter().map(move |&b| (c, b)))
            .collect();
        let mut fastest: Vec<Option<Run>> = rows.iter().map(|_| None).collect();
        let mut minima: Vec<Vec<f64>> = rows.iter().map(|_| Vec::new()).collect();
        let progress = std::io::stderr().is_terminal();
        for round in 0..args.repeat {
            if progress {
                eprint!("\r  round {}/{}", round + 1, args.repeat);
            }
            for ((&(c, baseline), best), mins) in rows.iter().zip(&mut fastest).zip(&mut minima) {
                let run = circuit.run(c, baseline)?;
                if mins.is_empty() {
                    mins.clone_from(&run.latencies);
                } else {
                    for (m, &l) in mins.iter_mut().zip(&run.latencies) {
                        *m = m.min(l);
                    }
                }
                if best.as_ref().is_none_or(|b| run.wall < b.wall) {
                    *best = Some(run);
                }
            }
        }
        if progress {
            eprint!("\r{:20}\r", "");
        }
        let mut this_build: Option<Run> = None;
        for ((&(c, baseline), run), mins) in rows.iter().zip(fastest).zip(minima) {
            let run = run.context("at least one round")?;
            let mut sorted = run.latencies.clone();
            sorted.sort_by(f64::total_cmp);
            let intrinsic = mins.iter().copied().fold(0.0, f64::max);
            let (share, signal) = circuit.worst_share(&run);
            let (_, verdict) = circuit.verdict(&run);
            let median = percentile(&sorted, 0.5);
            let label = match (&circuit.twin, baseline) {
                (Some(twin), true) => format!("  {twin}"),
                (None, true) => "  baseline".to_string(),
                _ => c.label.clone(),
            };
            println!(
                "{:<26} {:>8.3} {:>9.0} {:>8.0} {:>7.0} {:>6.0} {:>7} {:>7} {:>7} {:>7} {:>9}  {:>6.2} {:<6}  {}",
                label,
                run.wall,
                circuit.stop / run.wall,
                run.counts.steps,
                run.counts.rejected,
                run.counts.jacobians,
                micro(median),
                micro(percentile(&sorted, 0.999)),
                micro(percentile(&sorted, 0.9999)),
                micro(sorted.last().copied().unwrap_or(f64::NAN)),
                micro(intrinsic),
                share,
                signal,
                verdict
            );
            if baseline && let Some(new) = this_build.take() {
                let same = new.counts.steps == run.counts.steps
                    && new.counts.rejected == run.counts.rejected
                    && new.counts.jacobians == run.counts.jacobians;
                let same = if same { "the same" } else { "DIFFER" };
                if circuit.twin.is_some() {
                    println!(
                        "  {:<24} cost described / written-out: wall {:.3}, median doStep {:.3}; \
                         substeps, rejections, Jacobians {same}",
                        "",
                        new.wall / run.wall,
                        new.latencies[0] / median,
                    );
                } else {
                    println!(
                        "  {:<24} baseline wall / this build's {:.3}; substeps, rejections, Jacobians {same}",
                        "",
                        run.wall / new.wall,
                    );
                }
            } else if !baseline {
                this_build = Some(Run {
                    wall: run.wall,
                    // only the median, for the ratio
                    latencies: vec![median],
                    counts: run.counts,
                    failure: None,
                    errors: Vec::new(),
                });
            }
            if args.errors {
                let each: Vec<String> = circuit
                    .scenario
                    .signal_names()
                    .zip(&run.errors)
                    .map(|(name, (rms, max))| format!("{name} {rms:.2e} % (max {max:.2e})"))
                    .collect();
                println!("    errors: {}", each.join(", "));
            }
        }
        if args.substeps || args.substeps_only {
            let fewest = fewest_passing(1024, |n| {
                let c = Config {
                    fixed_substeps: n as i32,
                    ..Config::new("probe", 5)
                };
                Ok(circuit.verdict(&circuit.run(&c, false)?).0)
            })?;
            match fewest {
                Some(n) => println!(
                    "fewest fixed-cost substeps per doStep within the bounds: {n} (substep {:.4} ms)",
                    circuit.h * 1e3 / f64::from(n)
                ),
                None => println!("fixed-cost: no substep count up to 1024 meets the bounds"),
            }
        }
    }
    Ok(())
}
