//! `fmi-runner`: the in-Rust FMI master of the validation harness (master
//! `fmi-rs`, and `fmi-rs-me` with `--model-exchange`), built on the `fmi`
//! crate through `validation::fmi::master`.
//!
//! ```text
//! fmi-runner --fmu PATH --scenario DIR --step H --out RESULT.csv --fmi-version 2|3 [--model-exchange]
//! ```
//!
//! With `--model-exchange` the FMU is instantiated for Model Exchange and
//! this master integrates its derivatives itself
//! ([`validation::harness::me_stepper`]: fmu-core's Rodas3 at the scenario's
//! tolerance); an input change is set in Event Mode.
//!
//! It follows the runner protocol of `validation/python/harness/README.md`:
//! reads `DIR/scenario.json`, the `.opt` options and the inputs file (with
//! `validation::Scenario`, the one reader of the scenario layout); loads
//! and instantiates the FMU for Co-Simulation; sets the scenario's parameters
//! (FMI 3 structural parameters in Configuration Mode) and the inputs
//! u(t_0) before leaving Initialization Mode; steps on the grid
//! t_k = StartTime + k H (k = 0..N, N = round((StopTime - StartTime) / H)),
//! setting u(t_k) before each `doStep(t_k, H)`; writes `time` and every
//! scenario signal at t_0 and after each step with full double precision.
//!
//! Exit status: 0 result written; 3 the FMU is of a kind this master does
//! not run; 4 the FMU could not be loaded or instantiated (rejected); 1 the
//! run failed after instantiation (the rows recorded so far are written).
//! The last stdout line names the outcome. Messages the FMU logs go to
//! stderr. Nothing here knows a model.

use anyhow::{Context, Result, anyhow, ensure};
use clap::Parser;
use model_description::{ParsedType, ParsedVariable};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use validation::fmi::master::{FmiVersion, Fmu, LoadError, Slave, Value};
use validation::harness::me_stepper::MeStepper;
use validation::{Interpolation, Options, Scenario, Trace};

/// The master's name in the harness and in every line it prints.
const MASTER: &str = "fmi-rs";
/// The name with `--model-exchange`.
const MASTER_ME: &str = "fmi-rs-me";

/// Command line of the runner protocol.
#[derive(Debug, Parser)]
#[command(
    name = "fmi-runner",
    about = "Run one FMU through one validation scenario in the in-Rust FMI master \
             (fmi crate); protocol in validation/python/harness/README.md"
)]
struct Args {
    /// The .fmu archive.
    #[arg(long)]
    fmu: PathBuf,
    /// The scenario folder (with scenario.json).
    #[arg(long)]
    scenario: PathBuf,
    /// Communication step size H, s.
    #[arg(long)]
    step: f64,
    /// The result CSV to write.
    #[arg(long)]
    out: PathBuf,
    /// The FMI major version the FMU is expected to have.
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=3))]
    fmi_version: Option<u32>,
    /// A parameter to set besides (or instead of) the scenario's, as
    /// NAME=VALUE, e.g. solver=5 (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_setting)]
    set: Vec<(String, f64)>,
    /// Run the FMU as Model Exchange: this master integrates its
    /// derivatives (Rodas3 at the scenario's relative tolerance).
    #[arg(long)]
    model_exchange: bool,
}

/// `NAME=VALUE` with a number.
fn parse_setting(pair: &str) -> Result<(String, f64), String> {
    let (name, value) = pair
        .split_once('=')
        .filter(|(n, _)| !n.trim().is_empty())
        .ok_or_else(|| format!("`{pair}`: give NAME=VALUE"))?;
    let value: f64 = value
        .trim()
        .parse()
        .map_err(|_| format!("`{pair}`: the value is not a number"))?;
    Ok((name.trim().to_string(), value))
}

/// How a run ended, other than with a written result.
enum Outcome {
    /// Exit 3: the master cannot run this FMU.
    NotSupported(String),
    /// Exit 4: the FMU could not be loaded or instantiated.
    Rejected(String),
    /// Exit 1: the run failed after instantiation (or the scenario is
    /// unusable).
    Failed(anyhow::Error),
}

impl From<LoadError> for Outcome {
    fn from(error: LoadError) -> Self {
        match error {
            LoadError::NotSupported(why) => Outcome::NotSupported(why),
            LoadError::Rejected(why) => Outcome::Rejected(why),
        }
    }
}

impl From<anyhow::Error> for Outcome {
    fn from(error: anyhow::Error) -> Self {
        Outcome::Failed(error)
    }
}

/// An input of the FMU fed from one column of the inputs file.
struct Input {
    column: usize,
    variable: ParsedVariable,
    /// The scenario's interpolation for Real inputs, step for the others.
    interpolation: Interpolation,
}

/// The recorded result: `time` then the scenario's signals.
struct Recorder {
    header: Vec<String>,
    rows: Vec<Vec<f64>>,
}

impl Recorder {
    /// Appends the row at communication point `t`: every signal read from
    /// the FMU (Reals in one call).
    fn record(&mut self, slave: &mut Slave, t: f64, signals: &[ParsedVariable]) -> Result<()> {
        let mut row = vec![t; 1 + signals.len()];
        let reals: Vec<(usize, u32)> = signals
            .iter()
            .enumerate()
            .filter(|(_, v)| v.kind == ParsedType::Real)
            .map(|(i, v)| (i, v.value_reference))
            .collect();
        let vrs: Vec<u32> = reals.iter().map(|&(_, vr)| vr).collect();
        let mut values = vec![0.0; vrs.len()];
        slave
            .get_reals(&vrs, &mut values)
            .with_context(|| format!("getting the outputs at t = {t} s"))?;
        for (&(i, _), value) in reals.iter().zip(values) {
            row[1 + i] = value;
        }
        for (i, v) in signals.iter().enumerate() {
            if v.kind != ParsedType::Real {
                row[1 + i] = slave
                    .get_value(v.value_reference, &v.kind)
                    .with_context(|| format!("getting `{}` at t = {t} s", v.name))?
                    .as_f64();
            }
        }
        self.rows.push(row);
        Ok(())
    }

    /// Writes the CSV: header, then each row with the shortest decimal form
    /// that reads back to the same double.
    fn write(&self, path: &Path) -> Result<()> {
        if let Some(parent) = path.parent()
            && !parent.as_os_str().is_empty()
        {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        let mut writer = csv::Writer::from_path(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        writer.write_record(&self.header)?;
        for row in &self.rows {
            writer.write_record(row.iter().map(|x| format!("{x:?}")))?;
        }
        writer.flush()?;
        Ok(())
    }
}

/// Sets every input to u(t).
fn set_inputs(slave: &mut Slave, inputs: &[Input], table: &Trace, t: f64, step: f64) -> Result<()> {
    for input in inputs {
        // The harness's rule: the last row at or before t + 1e-9 H.
        let u = table.sample(input.column, t, 1e-9 * step, input.interpolation);
        let value = Value::from_f64(&input.variable, u)?;
        slave
            .set_value(input.variable.value_reference, value)
            .with_context(|| {
                format!("setting input `{}` = {u} at t = {t} s", input.variable.name)
            })?;
    }
    Ok(())
}

/// The whole run; rows recorded before a failure stay in `recorder`.
fn run(args: &Args, recorder: &mut Recorder) -> Result<(), Outcome> {
    let started = Instant::now();
    let h = args.step;
    if !(h.is_finite() && h > 0.0) {
        return Err(anyhow!("--step {h}: the step size must be > 0").into());
    }
    let scenario = Scenario::load(&args.scenario).context("scenario unusable")?;
    let expected = args.fmi_version.and_then(FmiVersion::from_major);
    let fmu = Fmu::load(&args.fmu, expected)?;
    for note in fmu.notes() {
        println!("[{}] note: {note}", master(args));
    }

    // Scenario and FMU must agree on names before anything is instantiated.
    let inputs = scenario
        .inputs
        .names()
        .iter()
        .enumerate()
        .map(|(column, name)| {
            let variable = fmu.variable(name).with_context(|| {
                format!("input `{name}` of the inputs file is not a variable of the FMU")
            })?;
            Ok(Input {
                column,
                interpolation: match variable.kind {
                    ParsedType::Real => scenario.inputs.interpolation,
                    _ => Interpolation::Step,
                },
                variable: variable.clone(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut parameters = scenario
        .parameters
        .iter()
        .map(|(name, json)| {
            let variable = fmu.variable(name).with_context(|| {
                format!("parameter `{name}` of scenario.json is not a variable of the FMU")
            })?;
            Ok((name.clone(), Value::from_json(variable, json)?))
        })
        .collect::<Result<Vec<_>>>()?;
    // --set values replace the scenario's of the same name.
    for (name, value) in &args.set {
        let variable = fmu
            .variable(name)
            .with_context(|| format!("--set {name}: not a variable of the FMU"))?;
        let value = Value::from_f64(variable, *value)?;
        parameters.retain(|(n, _)| n != name);
        parameters.push((name.clone(), value));
    }
    let signals = scenario
        .signal_names()
        .map(|name| {
            let variable = fmu.variable(name).with_context(|| {
                format!("signal `{name}` of scenario.json is not a variable of the FMU")
            })?;
            ensure!(
                !matches!(variable.kind, ParsedType::Other(_)),
                "signal `{name}` has type {:?}, not a number",
                variable.kind
            );
            Ok(variable.clone())
        })
        .collect::<Result<Vec<_>>>()?;
    recorder.header = std::iter::once("time")
        .chain(scenario.signal_names())
        .map(str::to_owned)
        .collect();

    // The communication grid, each point computed from k.
    let Options {
        start_time,
        stop_time,
        rel_tol,
        ..
    } = scenario.options;
    let n = ((stop_time - start_time) / h).round();
    if !(1.0..1e9).contains(&n) {
        return Err(anyhow!(
            "{} s to {} s at a step of {h} s is {n} steps",
            start_time,
            stop_time
        )
        .into());
    }
    let n = n as u64;
    let t_at = |k: u64| start_time + k as f64 * h;
    let stop = t_at(n);
    println!(
        "[{}] {} ({}), scenario {}, step {h} s, {n} steps",
        master(args),
        args.fmu.file_name().map_or_else(
            || args.fmu.display().to_string(),
            |f| f.to_string_lossy().into()
        ),
        fmu.version(),
        scenario.key()
    );

    let instance_name = fmu.description().model_name.clone();
    let mut slave = if args.model_exchange {
        fmu.instantiate_model_exchange(&instance_name, false)?
    } else {
        fmu.instantiate(&instance_name, false)?
    };
    slave
        .set_start_values(&parameters)
        .context("setting the scenario's parameters")?;
    slave.enter_initialization(rel_tol, start_time, Some(stop))?;
    set_inputs(&mut slave, &inputs, &scenario.inputs.trace, start_time, h)?;
    slave.exit_initialization()?;
    recorder.record(&mut slave, start_time, &signals)?;
    if args.model_exchange {
        let mut stepper = MeStepper::new(&mut slave, rel_tol.unwrap_or(1e-6))?;
        for k in 0..n {
            let t = t_at(k);
            if k > 0 {
                // The inputs change at communication points: in Event Mode.
                slave.enter_event_mode()?;
                set_inputs(&mut slave, &inputs, &scenario.inputs.trace, t, h)?;
                slave.leave_event_mode()?;
            }
            if stepper.step(&mut slave, t, h)? {
                slave.handle_event()?;
            }
            recorder.record(&mut slave, t_at(k + 1), &signals)?;
        }
        println!(
            "[{}] Rodas3 on the FMU's derivatives: {} substeps, {} rejected, {} derivative calls",
            master(args),
            stepper.stats.accepted,
            stepper.stats.rejected,
            stepper.stats.rhs_evals
        );
        return finish(args, slave, recorder, started);
    }
    for k in 0..n {
        let t = t_at(k);
        set_inputs(&mut slave, &inputs, &scenario.inputs.trace, t, h)?;
        let report = slave.do_step(t, h)?;
        if report.terminate_simulation {
            return Err(anyhow!(
                "doStep(t = {t}, h = {h}) asked to terminate the simulation (lastSuccessfulTime {})",
                report.last_successful_time
            )
            .into());
        }
        if !report.reached(t, h) {
            return Err(anyhow!(
                "doStep(t = {t}, h = {h}) did not reach {}: lastSuccessfulTime {}, earlyReturn {}",
                t + h,
                report.last_successful_time,
                report.early_return
            )
            .into());
        }
        recorder.record(&mut slave, t_at(k + 1), &signals)?;
    }
    finish(args, slave, recorder, started)
}

/// Terminates and frees the instance and writes the result.
fn finish(
    args: &Args,
    mut slave: Slave,
    recorder: &mut Recorder,
    started: Instant,
) -> Result<(), Outcome> {
    slave.terminate()?;
    slave.free();
    recorder.write(&args.out)?;
    println!(
        "[{}] wrote {} rows to {} in {:.2} s",
        master(args),
        recorder.rows.len(),
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The master's name in the harness: `fmi-rs`, or `fmi-rs-me` for Model
/// Exchange.
fn master(args: &Args) -> &'static str {
    if args.model_exchange {
        MASTER_ME
    } else {
        MASTER
    }
}

/// Shows what the FMU logs (through the `fmi` crate's callbacks, which
/// forward to the `log` crate) and the crate's own warnings on stderr.
struct StderrLogger;

impl log::Log for StderrLogger {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }

    fn log(&self, record: &log::Record) {
        // The fmi crate's FMI 3 callback logs from module "fmu" with the
        // category as target; its FMI 2 callback from "logger" with the
        // instance name as target.
        match record.module_path() {
            Some("fmu" | "logger") => {
                eprintln!(
                    "[fmu {}] {}: {}",
                    record.level(),
                    record.target(),
                    record.args()
                )
            }
            _ if record.level() <= log::Level::Warn => {
                eprintln!("[{} {}] {}", record.target(), record.level(), record.args())
            }
            _ => {}
        }
    }

    fn flush(&self) {}
}

static LOGGER: StderrLogger = StderrLogger;

fn main() -> ExitCode {
    let args = Args::parse();
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Warn);
    }
    let mut recorder = Recorder {
        header: Vec::new(),
        rows: Vec::new(),
    };
    let name = master(&args);
    match run(&args, &mut recorder) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Outcome::NotSupported(why)) => {
            println!("[{name}] NOT SUPPORTED: {why}");
            ExitCode::from(3)
        }
        Err(Outcome::Rejected(why)) => {
            println!("[{name}] REJECTED: {why}");
            ExitCode::from(4)
        }
        Err(Outcome::Failed(error)) => {
            if !recorder.rows.is_empty() && recorder.write(&args.out).is_ok() {
                println!(
                    "[{name}] wrote the {} rows recorded before the failure",
                    recorder.rows.len()
                );
            }
            println!("[{name}] FAILED: {error:#}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_written_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sub/result.csv");
        let values = [
            0.1,
            1.0 / 3.0,
            6666666.666666667,
            4.0557786759736114e-5,
            -0.0,
        ];
        let recorder = Recorder {
            header: vec!["time".into(), "x".into()],
            rows: values.iter().map(|&x| vec![x, x]).collect(),
        };
        recorder.write(&out).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        let back: Vec<f64> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
            .collect();
        assert_eq!(back.len(), values.len());
        for (a, b) in back.iter().zip(values) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
    }
}
