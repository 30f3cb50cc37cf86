//! The validation scenarios and the error metrics, in one place for every
//! Rust reader: the in-Rust runner (`fmi-runner`), the benchmarks, the
//! co-simulation tool and the end-to-end tests.
//!
//! A scenario is a folder `validation/scenarios/<Model>/<scenario>/` in the
//! FMI Cross-Check layout (the protocol is `validation/python/harness/README.md`):
//!
//! | file | content |
//! |---|---|
//! | `<Model>_in.csv` | `time` (s), then one column per FMU input, SI units |
//! | `<Model>_ref.csv` | `time` (s), then the reference outputs, SI units |
//! | `<Model>_ref.opt` | `StartTime, x` / `StopTime, x` / `StepSize, x` / `RelTol, x` lines |
//! | `scenario.json` | names, parameters, input interpolation, compared signals and their bounds |
//!
//! [`Scenario::load`] reads `scenario.json`, the options and the inputs;
//! [`Scenario::read_reference`] reads the reference trace when it is needed.
//!
//! A twin scenario (`"twin_of": "<Model>/<scenario>"`, the harness README's
//! "Twin scenarios") has only its `scenario.json`: it is the named scenario
//! (files, parameters, signals, steps) under its own model and scenario
//! names, for an FMU built from a circuit description that reproduces a
//! written-out circuit. With `"twin_parameters_fixed_by_description": true`
//! the twin's parameters are not set (the description fixes their values).

use anyhow::{Context, Result, anyhow, bail, ensure};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A table of signals over time, as in `<Model>_in.csv` and `<Model>_ref.csv`:
/// a `time` column in s, then one column per signal in SI units.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// Column names after `time`.
    pub names: Vec<String>,
    /// Sample times, s, non-decreasing (a time appears twice at a
    /// discontinuity).
    pub time: Vec<f64>,
    /// One vector per name, aligned with `time`.
    pub columns: Vec<Vec<f64>>,
}

impl Trace {
    /// Reads a CSV table whose first column is `time`. Cells are trimmed,
    /// `true`/`false` read as 1/0, lines starting with `#` are skipped;
    /// every row must have a value in every column and time must not
    /// decrease.
    pub fn read_csv(path: &Path) -> Result<Self> {
        let mut reader = csv::ReaderBuilder::new()
            .comment(Some(b'#'))
            .trim(csv::Trim::All)
            .flexible(true)
            .from_path(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let header: Vec<String> = reader
            .headers()
            .with_context(|| format!("{}: no header", path.display()))?
            .iter()
            .map(str::to_owned)
            .collect();
        ensure!(
            header.first().map(String::as_str) == Some("time"),
            "{}: the first column must be `time`",
            path.display()
        );
        let names = header[1..].to_vec();
        let mut time = Vec::new();
        let mut columns = vec![Vec::new(); names.len()];
        for (row, record) in reader.records().enumerate() {
            let line = row + 2;
            let record = record.with_context(|| format!("{}: row {line}", path.display()))?;
            ensure!(
                record.len() == header.len(),
                "{}: row {line} has {} values for {} columns",
                path.display(),
                record.len(),
                header.len()
            );
            for (i, cell) in record.iter().enumerate() {
                let value = match cell.to_ascii_lowercase().as_str() {
                    "true" => 1.0,
                    "false" => 0.0,
                    _ => cell.parse::<f64>().map_err(|_| {
                        anyhow!("{}: row {line}: `{cell}` is not a number", path.display())
                    })?,
                };
                match i {
                    0 => time.push(value),
                    _ => columns[i - 1].push(value),
                }
            }
        }
        ensure!(
            time.windows(2).all(|w| w[1] >= w[0]),
            "{}: time must not decrease",
            path.display()
        );
        Ok(Trace {
            names,
            time,
            columns,
        })
    }

    /// The samples of a signal, if the trace has it.
    pub fn signal(&self, name: &str) -> Option<&[f64]> {
        self.index(name).map(|i| self.columns[i].as_slice())
    }

    /// The samples of a signal, or an error naming it.
    pub fn require(&self, name: &str) -> Result<&[f64]> {
        self.signal(name)
            .ok_or_else(|| anyhow!("the trace has no signal `{name}`"))
    }

    /// The column index of a signal.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The row whose time is within `1e-9 max(1, |t|)` s of `t`.
    pub fn row_at(&self, t: f64) -> Option<usize> {
        let tol = 1e-9 * t.abs().max(1.0);
        let i = self.time.partition_point(|&x| x < t - tol);
        (i < self.time.len() && (self.time[i] - t).abs() <= tol).then_some(i)
    }

    /// Column `column` at time `t` by the harness's input rule: take the
    /// last row whose time is <= `t + tol` (of equal times, the later row);
    /// [`Interpolation::Step`] gives that row's value,
    /// [`Interpolation::Linear`] interpolates towards the next row; before
    /// the first row the first value, after the last row the last value.
    pub fn sample(&self, column: usize, t: f64, tol: f64, interpolation: Interpolation) -> f64 {
        let values = &self.columns[column];
        let after = self.time.partition_point(|&ti| ti <= t + tol);
        let Some(i) = after.checked_sub(1) else {
            return values[0];
        };
        if interpolation == Interpolation::Step
            || i == self.time.len() - 1
            || self.time[i] >= t - tol
        {
            return values[i];
        }
        let w = (t - self.time[i]) / (self.time[i + 1] - self.time[i]);
        values[i] + w * (values[i + 1] - values[i])
    }
}

/// `scenario.json` `interpolation`: how inputs are sampled between rows of
/// the inputs file (see [`Trace::sample`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Interpolation {
    /// The value of the last row at or before t.
    #[default]
    Step,
    /// Linear between that row and the next (Real inputs only).
    Linear,
}

/// The inputs of a scenario (`<Model>_in.csv`) with their interpolation.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    /// The input table.
    pub trace: Trace,
    /// How values between rows are found.
    pub interpolation: Interpolation,
}

/// Inputs read with step interpolation, as the in-process benchmarks use
/// them (the ValveCylinder scenarios are step-interpolated).
pub type StepInput = Inputs;

impl Inputs {
    /// The tolerance of [`Inputs::at`], s: a switching instant computed in
    /// floating point lands on the new value.
    pub const TIME_TOLERANCE: f64 = 1e-9;

    /// Reads an inputs file with step interpolation. A file with input
    /// columns must have at least one row.
    pub fn read_csv(path: &Path) -> Result<Self> {
        let trace = Trace::read_csv(path)?;
        ensure!(
            trace.names.is_empty() || !trace.time.is_empty(),
            "{}: no rows",
            path.display()
        );
        Ok(Inputs {
            trace,
            interpolation: Interpolation::Step,
        })
    }

    /// One input `name` with step interpolation: `values[k]` from
    /// `time[k]` on, held until the next row.
    pub fn held(name: &str, time: Vec<f64>, values: Vec<f64>) -> Self {
        Inputs {
            trace: Trace {
                names: vec![name.to_string()],
                time,
                columns: vec![values],
            },
            interpolation: Interpolation::Step,
        }
    }

    /// Input names (the column names after `time`).
    pub fn names(&self) -> &[String] {
        &self.trace.names
    }

    /// Input `column` at time `t` with the inputs' interpolation, within
    /// [`Inputs::TIME_TOLERANCE`].
    pub fn at(&self, column: usize, t: f64) -> f64 {
        self.trace
            .sample(column, t, Self::TIME_TOLERANCE, self.interpolation)
    }

    /// Input `name` at time `t` (as [`Inputs::at`]).
    pub fn value(&self, name: &str, t: f64) -> Result<f64> {
        let column = self
            .trace
            .index(name)
            .ok_or_else(|| anyhow!("the inputs have no column `{name}`"))?;
        Ok(self.at(column, t))
    }
}

/// The `.opt` file: experiment start, stop and step (s), relative tolerance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// `StartTime`, s.
    pub start_time: f64,
    /// `StopTime`, s.
    pub stop_time: f64,
    /// `StepSize`: the communication step of the reference grid, s.
    pub step_size: f64,
    /// `RelTol`, if given.
    pub rel_tol: Option<f64>,
}

impl Options {
    /// Reads `Key, value` lines (blank lines and `#` comments skipped);
    /// `StartTime`, `StopTime` and `StepSize` are required.
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mut values = BTreeMap::new();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, value) = line.split_once(',').unwrap_or((line, ""));
            let value: f64 = value
                .trim()
                .parse()
                .map_err(|_| anyhow!("{}: bad line {line:?}", path.display()))?;
            values.insert(key.trim().to_string(), value);
        }
        let get = |key: &str| {
            values
                .get(key)
                .copied()
                .ok_or_else(|| anyhow!("{}: missing {key}", path.display()))
        };
        let options = Options {
            start_time: get("StartTime")?,
            stop_time: get("StopTime")?,
            step_size: get("StepSize")?,
            rel_tol: values.get("RelTol").copied(),
        };
        ensure!(
            options.stop_time > options.start_time,
            "{}: need StopTime > StartTime",
            path.display()
        );
        Ok(options)
    }
}

/// The error bounds of one compared signal.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct SignalBounds {
    /// Largest allowed relative RMS error, in % (see [`relative_rms_percent`]).
    pub rel_rms_percent: f64,
    /// Largest allowed absolute error at any sample, in the signal's SI unit.
    pub max_abs: f64,
}

/// The fields of `scenario.json` read here (the others are for people).
#[derive(Debug, Deserialize)]
struct Spec {
    model: Option<String>,
    scenario: Option<String>,
    description: Option<String>,
    inputs: Option<String>,
    reference: Option<String>,
    options: Option<String>,
    #[serde(default)]
    parameters: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    interpolation: Interpolation,
    #[serde(default)]
    step_sizes: Vec<f64>,
    #[serde(default)]
    signals: serde_json::Map<String, serde_json::Value>,
    /// `<Model>/<scenario>` of a twin: a described circuit's FMU run on
    /// the scenario of the written-out circuit it reproduces (its inputs,
    /// reference, options, bounds and parameters).
    twin_of: Option<String>,
    /// The twin's parameters are fixed by the description and not set.
    #[serde(default)]
    twin_parameters_fixed_by_description: bool,
}

/// The fields a twin scenario takes from its twin and must not state (as
/// the Python reader, `harness.scenario.TWIN_INHERITED`).
const TWIN_INHERITED: [&str; 12] = [
    "inputs",
    "reference",
    "options",
    "parameters",
    "signals",
    "interpolation",
    "step_sizes",
    "analytic",
    "crosscheck",
    "generated_by",
    "co_simulation_only",
    "solver_modes",
];

/// One validation scenario: `scenario.json` with its options and inputs.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The scenario folder.
    pub dir: PathBuf,
    /// Model name (the parent folder's name).
    pub model: String,
    /// Scenario name (by default the folder's name).
    pub name: String,
    /// What the scenario does, for people.
    pub description: String,
    /// Start values set before initialization, by variable name (numbers or
    /// Booleans), in the file's order.
    pub parameters: Vec<(String, serde_json::Value)>,
    /// The inputs over time, with the scenario's interpolation.
    pub inputs: Inputs,
    /// The compared signals and their bounds, in the file's order.
    pub signals: Vec<(String, SignalBounds)>,
    /// The experiment of the `.opt` file.
    pub options: Options,
    /// Communication steps to run besides the `.opt` StepSize, s.
    pub step_sizes: Vec<f64>,
    /// File name of the reference trace, relative to [`Scenario::files_dir`].
    pub reference_file: String,
    /// The folder the files are read from: `dir`, or for a twin scenario
    /// the twin's folder.
    pub files_dir: PathBuf,
    /// For a twin scenario, the key (`Model/scenario`) of its twin.
    pub twin_of: Option<String>,
    /// For a twin scenario with `twin_parameters_fixed_by_description`, the
    /// twin's parameters, which its description fixes and which are not set.
    pub fixed_parameters: Vec<(String, serde_json::Value)>,
}

impl Scenario {
    /// Reads `dir/scenario.json` and the options and inputs files it names
    /// (defaults `<Model>_ref.opt`, `<Model>_in.csv`). The `model` field
    /// must be the parent folder's name.
    pub fn load(dir: &Path) -> Result<Self> {
        let spec_path = dir.join("scenario.json");
        let text = std::fs::read_to_string(&spec_path)
            .with_context(|| format!("cannot read {}", spec_path.display()))?;
        let raw: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("cannot parse {}", spec_path.display()))?;
        let stated: Vec<&str> = TWIN_INHERITED
            .into_iter()
            .filter(|k| raw.get(k).is_some())
            .collect();
        let spec: Spec = serde_json::from_value(raw)
            .with_context(|| format!("cannot parse {}", spec_path.display()))?;
        let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let folder_name = |p: Option<&Path>| {
            p.and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let parent_name = folder_name(absolute.parent());
        let model = spec.model.unwrap_or_else(|| parent_name.clone());
        ensure!(
            model == parent_name,
            "{}: model {model:?} but the folder is {parent_name:?}",
            spec_path.display()
        );
        let name = spec
            .scenario
            .unwrap_or_else(|| folder_name(Some(&absolute)));
        if let Some(twin_of) = spec.twin_of {
            return Self::load_twin(
                dir,
                &spec_path,
                model,
                name,
                &twin_of,
                &stated,
                spec.twin_parameters_fixed_by_description,
                spec.description,
            );
        }
        ensure!(
            !spec.twin_parameters_fixed_by_description,
            "{}: twin_parameters_fixed_by_description goes with twin_of",
            spec_path.display()
        );
        let signals = spec
            .signals
            .into_iter()
            .map(|(signal, bounds)| {
                let bounds = serde_json::from_value(bounds).with_context(|| {
                    format!("{}: the bounds of signal `{signal}`", spec_path.display())
                })?;
                Ok((signal, bounds))
            })
            .collect::<Result<Vec<_>>>()?;
        ensure!(
            !signals.is_empty(),
            "{}: no signals to compare",
            spec_path.display()
        );
        let options =
            Options::read(&dir.join(spec.options.unwrap_or_else(|| format!("{model}_ref.opt"))))?;
        let mut inputs =
            Inputs::read_csv(&dir.join(spec.inputs.unwrap_or_else(|| format!("{model}_in.csv"))))?;
        inputs.interpolation = spec.interpolation;
        Ok(Scenario {
            dir: dir.to_path_buf(),
            files_dir: dir.to_path_buf(),
            twin_of: None,
            fixed_parameters: Vec::new(),
            reference_file: spec.reference.unwrap_or_else(|| format!("{model}_ref.csv")),
            model,
            name,
            description: spec.description.unwrap_or_default(),
            parameters: spec.parameters.into_iter().collect(),
            inputs,
            signals,
            options,
            step_sizes: spec.step_sizes,
        })
    }

    /// A twin scenario: the scenario `twin_of` names (the folder
    /// `<root>/<Model>/<scenario>` beside this model's) under this folder's
    /// names. A twin that sets parameters is refused unless
    /// `fixed_by_description` (then none is set); see the module's
    /// documentation.
    #[allow(clippy::too_many_arguments)]
    fn load_twin(
        dir: &Path,
        spec_path: &Path,
        model: String,
        name: String,
        twin_of: &str,
        stated: &[&str],
        fixed_by_description: bool,
        description: Option<String>,
    ) -> Result<Self> {
        let at = spec_path.display();
        let Some((twin_model, twin_name)) = twin_of
            .split_once('/')
            .filter(|(m, n)| !m.is_empty() && !n.is_empty() && !n.contains('/'))
        else {
            bail!("{at}: twin_of must be \"<Model>/<scenario>\", not {twin_of:?}");
        };
        ensure!(
            twin_model != model,
            "{at}: twin_of names a scenario of the same model {model:?}"
        );
        ensure!(
            stated.is_empty(),
            "{at}: a twin scenario takes {} from its twin {twin_of} and must not state them",
            stated.join(", ")
        );
        let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let root = absolute
            .parent()
            .and_then(Path::parent)
            .ok_or_else(|| anyhow!("{at}: no scenarios root above the folder"))?;
        let twin_dir = root.join(twin_model).join(twin_name);
        ensure!(
            twin_dir.join("scenario.json").is_file(),
            "{at}: twin_of {twin_of}: no scenario folder {}",
            twin_dir.display()
        );
        let twin = Self::load(&twin_dir)
            .with_context(|| format!("{at}: its twin {twin_of} is unusable"))?;
        ensure!(
            twin.twin_of.is_none(),
            "{at}: twin_of {twin_of} is itself a twin; name the scenario it twins"
        );
        ensure!(
            twin.parameters.is_empty() || fixed_by_description,
            "{at}: the twin {twin_of} sets parameters ({}), which a described circuit's FMU does \
             not have; state \"twin_parameters_fixed_by_description\": true when the description \
             fixes these values, else the scenario cannot be twinned",
            twin.parameters
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        ensure!(
            !(fixed_by_description && twin.parameters.is_empty()),
            "{at}: twin_parameters_fixed_by_description but the twin {twin_of} sets no parameters"
        );
        Ok(Scenario {
            dir: dir.to_path_buf(),
            model,
            name,
            description: description.unwrap_or_else(|| twin.description.clone()),
            parameters: Vec::new(),
            twin_of: Some(twin.key()),
            fixed_parameters: twin.parameters,
            ..twin
        })
    }

    /// Loads `validation/scenarios/<model>/<name>/` of this repository.
    pub fn named(model: &str, name: &str) -> Result<Self> {
        Self::load(&scenario_dir(model, name))
    }

    /// `<Model>/<scenario>`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.model, self.name)
    }

    /// The names of the compared signals.
    pub fn signal_names(&self) -> impl Iterator<Item = &str> {
        self.signals.iter().map(|(n, _)| n.as_str())
    }

    /// The bounds of a compared signal.
    pub fn bounds(&self, signal: &str) -> Option<&SignalBounds> {
        self.signals
            .iter()
            .find(|(n, _)| n == signal)
            .map(|(_, b)| b)
    }

    /// Reads the reference trace; it must have every compared signal.
    pub fn read_reference(&self) -> Result<Trace> {
        let path = self.files_dir.join(&self.reference_file);
        let trace = Trace::read_csv(&path)?;
        if let Some(missing) = self.signal_names().find(|s| trace.index(s).is_none()) {
            bail!("{}: no column for signal `{missing}`", path.display());
        }
        Ok(trace)
    }
}

/// The folder of one scenario of this repository:
/// `validation/scenarios/<model>/<name>/`.
pub fn scenario_dir(model: &str, name: &str) -> PathBuf {
    crate::repo_root()
        .join("validation")
        .join("scenarios")
        .join(model)
        .join(name)
}

/// Relative RMS error in %: the RMS of `result - reference` over the mean
/// absolute reference value, times 100 (the harness's metric, the one the
/// scenario bounds are written in). Panics if the lengths differ or the
/// slices are empty.
pub fn relative_rms_percent(result: &[f64], reference: &[f64]) -> f64 {
    assert_eq!(result.len(), reference.len(), "sample counts differ");
    assert!(!reference.is_empty(), "no samples");
    let n = reference.len() as f64;
    let mean_square = result
        .iter()
        .zip(reference)
        .map(|(a, b)| (a - b) * (a - b))
        .sum::<f64>()
        / n;
    let mean_abs = reference.iter().map(|v| v.abs()).sum::<f64>() / n;
    100.0 * mean_square.sqrt() / mean_abs
}

/// Largest absolute difference between two equally long sample sets, in
/// their unit; a NaN counts as infinitely far. Panics if the lengths differ.
pub fn max_abs_error(result: &[f64], reference: &[f64]) -> f64 {
    assert_eq!(result.len(), reference.len(), "sample counts differ");
    result
        .iter()
        .zip(reference)
        .map(|(a, b)| {
            let d = (a - b).abs();
            if d.is_nan() { f64::INFINITY } else { d }
        })
        .fold(0.0, f64::max)
}

/// `|value - expected| / |expected|`.
pub fn relative_error(value: f64, expected: f64) -> f64 {
    (value - expected).abs() / expected.abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(time: &[f64], u: &[f64]) -> Trace {
        Trace {
            names: vec!["u".into()],
            time: time.to_vec(),
            columns: vec![u.to_vec()],
        }
    }

    #[test]
    fn metrics() {
        let r = [1.0, -1.0, 2.0, -2.0];
        let y = [1.1, -1.0, 2.0, -2.0];
        // RMS of the difference 0.05, mean |ref| 1.5.
        assert!((relative_rms_percent(&y, &r) - 100.0 * 0.05 / 1.5).abs() < 1e-12);
        assert!((max_abs_error(&y, &r) - 0.1).abs() < 1e-12);
        // A constant offset of 0.1 over mean |ref| 2 is 5 %.
        let reference = [1.0, -3.0, 2.0];
        let simulated = [1.1, -2.9, 2.1];
        assert!((relative_rms_percent(&simulated, &reference) - 5.0).abs() < 1e-12);
        assert_eq!(max_abs_error(&[f64::NAN], &[0.0]), f64::INFINITY);
        assert!((relative_error(1.01, 1.0) - 0.01).abs() < 1e-12);
    }

    #[test]
    fn inputs_follow_the_harness_sampling_rule() {
        // A step at t = 1 (time appears twice), a ramp from 2 to 3.
        let t = table(&[0.0, 1.0, 1.0, 2.0, 3.0], &[0.0, 0.0, 5.0, 5.0, 8.0]);
        let tol = 0.5e-9;
        let (step, linear) = (Interpolation::Step, Interpolation::Linear);
        assert_eq!(t.sample(0, -1.0, tol, linear), 0.0);
        assert_eq!(t.sample(0, 0.5, tol, linear), 0.0);
        // At the discontinuity the later row wins, also a hair before it.
        assert_eq!(t.sample(0, 1.0, tol, step), 5.0);
        assert_eq!(t.sample(0, 1.0 - 1e-12, tol, step), 5.0);
        assert_eq!(t.sample(0, 2.5, tol, step), 5.0);
        assert_eq!(t.sample(0, 2.5, tol, linear), 6.5);
        assert_eq!(t.sample(0, 9.0, tol, linear), 8.0);
        let inputs = Inputs {
            trace: t.clone(),
            interpolation: linear,
        };
        assert_eq!(inputs.value("u", 2.5).unwrap(), 6.5);
        let held = Inputs::held("u", t.time.clone(), t.columns[0].clone());
        assert_eq!(held.value("u", 2.5).unwrap(), 5.0);
        assert!(inputs.value("v", 0.0).is_err());
        assert_eq!(t.row_at(1.0 + 1e-12), Some(1));
        assert_eq!(t.row_at(1.5), None);
    }

    #[test]
    fn options_and_traces_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let opt = dir.path().join("M_ref.opt");
        std::fs::write(
            &opt,
            "# comment\nStartTime, 0.5\nStopTime, 2.0\nStepSize, 1e-3\nRelTol, 1e-6\n",
        )
        .unwrap();
        assert_eq!(
            Options::read(&opt).unwrap(),
            Options {
                start_time: 0.5,
                stop_time: 2.0,
                step_size: 1e-3,
                rel_tol: Some(1e-6)
            }
        );
        std::fs::write(&opt, "StartTime, 0\nStopTime, 1\n").unwrap();
        assert!(Options::read(&opt).is_err());

        let csv = dir.path().join("M_in.csv");
        std::fs::write(&csv, "time,u,on\n0.0,1.5,false\n# note\n1.0, 2.5 ,true\n").unwrap();
        let t = Trace::read_csv(&csv).unwrap();
        assert_eq!(t.names, ["u", "on"]);
        assert_eq!(t.time, [0.0, 1.0]);
        assert_eq!(t.columns, [vec![1.5, 2.5], vec![0.0, 1.0]]);
        assert_eq!(t.signal("on"), Some(&[0.0, 1.0][..]));
        assert!(t.require("off").is_err());
        for bad in [
            "time,u\n1.0,1\n0.0,2\n",
            "time,u\n0.0\n",
            "t,u\n0.0,1\n",
            "time,u\n0.0,x\n",
        ] {
            std::fs::write(&csv, bad).unwrap();
            assert!(Trace::read_csv(&csv).is_err(), "{bad:?} was accepted");
        }
        std::fs::write(&csv, "time,u\n").unwrap();
        assert!(Inputs::read_csv(&csv).is_err());
    }

    #[test]
    fn a_scenario_folder_is_read() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("M").join("s1");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("scenario.json"),
            r#"{"model": "M", "parameters": {"n": 7, "on": true},
                "interpolation": "linear",
                "signals": {"y": {"rel_rms_percent": 0.5, "max_abs": 2.0, "note": "x"}}}"#,
        )
        .unwrap();
        std::fs::write(
            dir.join("M_ref.opt"),
            "StartTime,0\nStopTime,1\nStepSize,0.1\n",
        )
        .unwrap();
        std::fs::write(dir.join("M_in.csv"), "time,u\n0,0\n1,10\n").unwrap();
        std::fs::write(dir.join("M_ref.csv"), "time,y\n0,1\n1,2\n").unwrap();
        let s = Scenario::load(&dir).unwrap();
        assert_eq!(s.key(), "M/s1");
        assert_eq!(s.parameters.len(), 2);
        assert_eq!(s.inputs.value("u", 0.25).unwrap(), 2.5);
        assert_eq!(
            s.bounds("y"),
            Some(&SignalBounds {
                rel_rms_percent: 0.5,
                max_abs: 2.0
            })
        );
        assert_eq!(s.options.stop_time, 1.0);
        assert_eq!(
            s.read_reference().unwrap().require("y").unwrap(),
            [1.0, 2.0]
        );

        // The model must be the parent folder's name; bounds are required.
        std::fs::write(
            dir.join("scenario.json"),
            r#"{"model": "N", "signals": {"y": {"rel_rms_percent": 1, "max_abs": 1}}}"#,
        )
        .unwrap();
        assert!(Scenario::load(&dir).is_err());
        std::fs::write(
            dir.join("scenario.json"),
            r#"{"signals": {"y": {"rel_rms_percent": 1}}}"#,
        )
        .unwrap();
        assert!(Scenario::load(&dir).is_err());
    }

    #[test]
    fn a_twin_scenario_is_its_twin_under_its_own_names() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("M").join("s1");
        std::fs::create_dir_all(&dir).unwrap();
        let twin_spec = |parameters: &str| {
            format!(
                r#"{{"model": "M", "parameters": {parameters}, "step_sizes": [0.01],
                    "signals": {{"y": {{"rel_rms_percent": 0.5, "max_abs": 2.0}}}}}}"#
            )
        };
        std::fs::write(dir.join("scenario.json"), twin_spec("{}")).unwrap();
        std::fs::write(
            dir.join("M_ref.opt"),
            "StartTime,0\nStopTime,1\nStepSize,0.1\n",
        )
        .unwrap();
        std::fs::write(dir.join("M_in.csv"), "time,u\n0,0\n1,10\n").unwrap();
        std::fs::write(dir.join("M_ref.csv"), "time,y\n0,1\n1,2\n").unwrap();
        let own = root.path().join("MFile").join("s1");
        std::fs::create_dir_all(&own).unwrap();
        let write_own = |text: &str| std::fs::write(own.join("scenario.json"), text).unwrap();

        write_own(r#"{"model": "MFile", "twin_of": "M/s1", "built_from": "m.toml"}"#);
        let s = Scenario::load(&own).unwrap();
        assert_eq!(s.key(), "MFile/s1");
        assert_eq!(s.twin_of.as_deref(), Some("M/s1"));
        assert_eq!(s.step_sizes, [0.01]);
        assert_eq!(s.inputs.value("u", 0.5).unwrap(), 0.0);
        assert_eq!(
            s.read_reference().unwrap().require("y").unwrap(),
            [1.0, 2.0]
        );
        assert_eq!(s.dir, own);

        // A twin's own file may not restate what it inherits.
        write_own(r#"{"twin_of": "M/s1", "signals": {"y": {"rel_rms_percent": 9, "max_abs": 9}}}"#);
        assert!(Scenario::load(&own).is_err());
        write_own(r#"{"twin_of": "M"}"#);
        assert!(Scenario::load(&own).is_err());
        write_own(r#"{"twin_of": "M/none"}"#);
        assert!(Scenario::load(&own).is_err());
        write_own(r#"{"twin_of": "M/s1", "twin_parameters_fixed_by_description": true}"#);
        assert!(
            Scenario::load(&own).is_err(),
            "the flag without parameters to fix"
        );

        // A twin that sets parameters needs the flag; then none is set.
        std::fs::write(dir.join("scenario.json"), twin_spec(r#"{"n": 7}"#)).unwrap();
        write_own(r#"{"twin_of": "M/s1"}"#);
        let err = format!("{:#}", Scenario::load(&own).unwrap_err());
        assert!(
            err.contains("twin_parameters_fixed_by_description"),
            "{err}"
        );
        write_own(r#"{"twin_of": "M/s1", "twin_parameters_fixed_by_description": true}"#);
        let s = Scenario::load(&own).unwrap();
        assert!(s.parameters.is_empty());
        assert_eq!(
            s.fixed_parameters,
            [("n".to_string(), serde_json::json!(7))]
        );
    }

    #[test]
    fn reads_the_committed_scenarios() {
        let s = Scenario::named("OrificeChain", "startup").unwrap();
        let t = s.read_reference().unwrap();
        assert_eq!(t.time.len(), 5001);
        assert_eq!(t.names, ["p1", "p2", "Q1", "Q2", "Q3"]);
        // The model description: p1 = 3.385 MPa at 0.1 s.
        assert!((t.signal("p1").unwrap()[100] / 3.385e6 - 1.0).abs() < 1e-3);
        assert_eq!(s.inputs.value("ps", 1.0).unwrap(), 1e7);
        // Every committed scenario reads.
        let root = crate::repo_root().join("validation").join("scenarios");
        let mut count = 0;
        for model in std::fs::read_dir(&root).unwrap().flatten() {
            for dir in std::fs::read_dir(model.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                if dir.path().join("scenario.json").is_file() {
                    Scenario::load(&dir.path())
                        .unwrap_or_else(|e| panic!("{}: {e:#}", dir.path().display()));
                    count += 1;
                }
            }
        }
        assert!(count >= 10, "only {count} scenarios found");
    }
}
