//! Shared helpers of the end-to-end FMU tests: where the workspace, the built
//! FMUs, the validation scenarios and the official FMI headers are, how a
//! reference trace and a scenario are read, and the error metrics the
//! validation bounds are written in.
//!
//! The tests themselves live in `tests/tests/`; this library only finds and
//! reads things, it never builds an FMU or decides a verdict.

use anyhow::{Context, Result, anyhow, bail};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The command that builds every FMU into `dist/`.
pub const BUILD_COMMAND: &str = "cargo run --release -p build-fmu";

/// The workspace root (the folder whose `Cargo.toml` has `[workspace]`).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml"))
                .map(|text| text.contains("[workspace]"))
                .unwrap_or(false)
        })
        .unwrap_or(here)
        .to_path_buf()
}

/// An FMI major version the FMUs are built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FmiVersion {
    /// FMI 2.0 Co-Simulation.
    Fmi2,
    /// FMI 3.0 Co-Simulation.
    Fmi3,
}

impl FmiVersion {
    /// Both versions, FMI 2 first.
    pub const ALL: [FmiVersion; 2] = [FmiVersion::Fmi2, FmiVersion::Fmi3];

    /// The folder under `dist/` (`fmi2`, `fmi3`).
    pub fn dist_folder(self) -> &'static str {
        match self {
            FmiVersion::Fmi2 => "fmi2",
            FmiVersion::Fmi3 => "fmi3",
        }
    }

    /// The function-name prefix of this version's C API (`fmi2`, `fmi3`).
    pub fn prefix(self) -> &'static str {
        self.dist_folder()
    }

    /// The `binaries/` platform folder the standard prescribes for
    /// x86_64 Linux: `linux64` (FMI 2.0, section 2.3) and `x86_64-linux`
    /// (FMI 3.0, section 2.5.1.1).
    pub fn linux_platform_folder(self) -> &'static str {
        match self {
            FmiVersion::Fmi2 => "linux64",
            FmiVersion::Fmi3 => "x86_64-linux",
        }
    }

    /// The `fmiVersion` attribute of `modelDescription.xml`.
    pub fn xml_version(self) -> &'static str {
        match self {
            FmiVersion::Fmi2 => "2.0",
            FmiVersion::Fmi3 => "3.0",
        }
    }
}

impl std::fmt::Display for FmiVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FmiVersion::Fmi2 => f.write_str("FMI 2.0"),
            FmiVersion::Fmi3 => f.write_str("FMI 3.0"),
        }
    }
}

/// Where the packaging tool puts a model's FMU: `dist/<fmiN>/<Model>.fmu`.
pub fn dist_fmu_path(version: FmiVersion, model: &str) -> PathBuf {
    workspace_root()
        .join("dist")
        .join(version.dist_folder())
        .join(format!("{model}.fmu"))
}

/// The built FMU of `model`, or a panic that says how to build it. The
/// end-to-end tests must never pass silently without an FMU to test.
pub fn require_fmu(version: FmiVersion, model: &str) -> PathBuf {
    let path = dist_fmu_path(version, model);
    assert!(
        path.is_file(),
        "{version} FMU not found at {}: run `{BUILD_COMMAND}` first (from the workspace root)",
        path.display()
    );
    path
}

/// The folder of one validation scenario:
/// `validation/scenarios/<Model>/<scenario>/`.
pub fn scenario_dir(model: &str, scenario: &str) -> PathBuf {
    workspace_root()
        .join("validation")
        .join("scenarios")
        .join(model)
        .join(scenario)
}

/// A table of signals over time, as in `<Model>_ref.csv` and `<Model>_in.csv`
/// (first column `time` in s, then one column per signal in SI units).
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// Sample times in s, ascending.
    pub time: Vec<f64>,
    /// Signal name to samples (same length as `time`).
    pub signals: BTreeMap<String, Vec<f64>>,
}

impl Trace {
    /// Reads a CSV file with a `time` column and numeric signal columns.
    pub fn load(path: &Path) -> Result<Trace> {
        let mut reader = csv::Reader::from_path(path)
            .with_context(|| format!("cannot open trace {}", path.display()))?;
        let headers: Vec<String> = reader.headers()?.iter().map(|h| h.trim().into()).collect();
        if headers.first().map(String::as_str) != Some("time") {
            bail!("{}: the first column must be `time`", path.display());
        }
        let mut columns: Vec<Vec<f64>> = vec![Vec::new(); headers.len()];
        for (row, record) in reader.records().enumerate() {
            let record = record?;
            if record.len() != headers.len() {
                bail!(
                    "{}: row {} has {} fields",
                    path.display(),
                    row + 2,
                    record.len()
                );
            }
            for (column, field) in columns.iter_mut().zip(record.iter()) {
                let value: f64 = field.trim().parse().with_context(|| {
                    format!(
                        "{}: row {}: `{field}` is not a number",
                        path.display(),
                        row + 2
                    )
                })?;
                column.push(value);
            }
        }
        let mut columns = columns.into_iter();
        let time = columns.next().unwrap_or_default();
        if time.windows(2).any(|w| w[1] < w[0]) {
            bail!("{}: time is not ascending", path.display());
        }
        let signals = headers.into_iter().skip(1).zip(columns).collect();
        Ok(Trace { time, signals })
    }

    /// The samples of a signal.
    pub fn signal(&self, name: &str) -> Result<&[f64]> {
        self.signals
            .get(name)
            .map(Vec::as_slice)
            .ok_or_else(|| anyhow!("the trace has no signal `{name}`"))
    }

    /// The row whose time is within `1e-9 * max(1, |t|)` s of `t`.
    pub fn row_at(&self, t: f64) -> Option<usize> {
        let tol = 1e-9 * t.abs().max(1.0);
        let i = self.time.partition_point(|&x| x < t - tol);
        (i < self.time.len() && (self.time[i] - t).abs() <= tol).then_some(i)
    }

    /// A signal at time `t` by linear interpolation (held constant outside
    /// the trace), as the FMI Cross-Check treats `<Model>_in.csv`.
    pub fn interpolate(&self, name: &str, t: f64) -> Result<f64> {
        let values = self.signal(name)?;
        let (first, last) = match (self.time.first(), self.time.last()) {
            (Some(&a), Some(&b)) => (a, b),
            _ => bail!("the trace is empty"),
        };
        if t <= first {
            return Ok(values[0]);
        }
        if t >= last {
            return Ok(values[values.len() - 1]);
        }
        let i = self.time.partition_point(|&x| x <= t);
        let (t0, t1) = (self.time[i - 1], self.time[i]);
        if t1 == t0 {
            return Ok(values[i]);
        }
        let w = (t - t0) / (t1 - t0);
        Ok(values[i - 1] + w * (values[i] - values[i - 1]))
    }
}

/// The error bounds of one signal in a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct SignalBounds {
    /// Largest allowed relative RMS error, in % (see [`relative_rms_percent`]).
    pub rel_rms_percent: f64,
    /// Largest allowed absolute error at any sample, in the signal's SI unit.
    pub max_abs: f64,
}

/// A validation scenario (`scenario.json`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Scenario {
    /// Model name.
    pub model: String,
    /// Scenario name (folder name).
    pub scenario: String,
    /// Parameters to set before initialization, by variable name (numbers
    /// or Booleans).
    pub parameters: BTreeMap<String, serde_json::Value>,
    /// File name of the input trace.
    pub inputs: String,
    /// File name of the reference trace.
    pub reference: String,
    /// Bounds per output signal.
    pub signals: BTreeMap<String, SignalBounds>,
}

impl Scenario {
    /// Reads `scenario.json` of a scenario folder.
    pub fn load(dir: &Path) -> Result<Scenario> {
        let path = dir.join("scenario.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("cannot parse {}", path.display()))
    }
}

/// One scenario with its traces loaded.
#[derive(Debug, Clone)]
pub struct LoadedScenario {
    /// The scenario description.
    pub scenario: Scenario,
    /// The inputs over time.
    pub inputs: Trace,
    /// The reference outputs over time.
    pub reference: Trace,
}

/// Loads `validation/scenarios/<model>/<name>/` with its input and reference
/// traces.
pub fn load_scenario(model: &str, name: &str) -> Result<LoadedScenario> {
    let dir = scenario_dir(model, name);
    let scenario = Scenario::load(&dir)?;
    let inputs = Trace::load(&dir.join(&scenario.inputs))?;
    let reference = Trace::load(&dir.join(&scenario.reference))?;
    Ok(LoadedScenario {
        scenario,
        inputs,
        reference,
    })
}

/// Relative RMS error in %: RMS of `simulated - reference` over the mean
/// absolute reference value, times 100 (the validation metric of DESIGN.md).
/// Panics if the lengths differ or the slices are empty.
pub fn relative_rms_percent(simulated: &[f64], reference: &[f64]) -> f64 {
    assert_eq!(simulated.len(), reference.len(), "sample counts differ");
    assert!(!reference.is_empty(), "no samples");
    let n = reference.len() as f64;
    let mean_square = simulated
        .iter()
        .zip(reference)
        .map(|(s, r)| (s - r).powi(2))
        .sum::<f64>()
        / n;
    let mean_abs = reference.iter().map(|r| r.abs()).sum::<f64>() / n;
    100.0 * mean_square.sqrt() / mean_abs
}

/// Largest absolute difference between two equally long sample sets (NaN
/// counts as infinitely far).
pub fn max_abs_error(simulated: &[f64], reference: &[f64]) -> f64 {
    assert_eq!(simulated.len(), reference.len(), "sample counts differ");
    simulated
        .iter()
        .zip(reference)
        .map(|(s, r)| {
            let d = (s - r).abs();
            if d.is_nan() { f64::INFINITY } else { d }
        })
        .fold(0.0, f64::max)
}

/// `|value - expected| / |expected|`.
pub fn relative_error(value: f64, expected: f64) -> f64 {
    (value - expected).abs() / expected.abs()
}

/// The folder holding the official FMI C headers (`fmi2Functions.h`,
/// `fmi3Functions.h` and their type headers): the `c-code` folder of the
/// FMPy package in the project's venv `target/venv`. It is asked from the
/// venv's Python first, then searched for under `target/venv/lib*/`.
pub fn official_header_dir() -> Result<PathBuf> {
    let root = workspace_root();
    let venv = root.join("target").join("venv");
    let has_headers = |dir: &Path| {
        [
            "fmi2Functions.h",
            "fmi2FunctionTypes.h",
            "fmi3Functions.h",
            "fmi3FunctionTypes.h",
        ]
        .iter()
        .all(|h| dir.join(h).is_file())
    };
    let python = venv.join("bin").join("python");
    if let Ok(out) = Command::new(&python)
        .args([
            "-c",
            "import fmpy, os; print(os.path.dirname(fmpy.__file__))",
        ])
        .output()
        && out.status.success()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("c-code");
        if has_headers(&dir) {
            return Ok(dir);
        }
    }
    // Fallback: target/venv/lib*/python*/site-packages/fmpy/c-code.
    for lib in read_dirs(&venv).filter(|p| file_name_starts(p, "lib")) {
        for py in read_dirs(&lib).filter(|p| file_name_starts(p, "python")) {
            let dir = py.join("site-packages").join("fmpy").join("c-code");
            if has_headers(&dir) {
                return Ok(dir);
            }
        }
    }
    bail!(
        "the official FMI headers were not found: expected FMPy's c-code folder (with \
         fmi2Functions.h and fmi3Functions.h) in the venv {} (create it and `pip install fmpy` \
         there); the headers are read from that package at test time, never copied into the repo",
        venv.display()
    )
}

fn read_dirs(dir: &Path) -> impl Iterator<Item = PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
}

fn file_name_starts(path: &Path, prefix: &str) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(prefix))
}

/// The C function names the official header `<prefix>FunctionTypes.h`
/// declares a function type for: every `typedef ... fmiNXxxTYPE(` gives
/// `fmiNXxx`. Sorted, without duplicates.
pub fn official_function_names(header_dir: &Path, version: FmiVersion) -> Result<Vec<String>> {
    let prefix = version.prefix();
    let path = header_dir.join(format!("{prefix}FunctionTypes.h"));
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let text = strip_c_comments(&text);
    let mut names: Vec<String> = Vec::new();
    // Each statement `typedef <return type> <prefix>XxxTYPE(<params>);`.
    // (A statement may begin with preprocessor lines, so it is read from its
    // last `typedef` on.)
    for statement in text.split(';') {
        let Some(at) = statement.rfind("typedef") else {
            continue;
        };
        let statement = &statement[at..];
        let Some(open) = statement.find('(') else {
            continue;
        };
        let head = statement[..open].trim_end();
        let ident_start = head
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let ident = &head[ident_start..];
        if let Some(name) = ident.strip_suffix("TYPE")
            && name.starts_with(prefix)
            && name.len() > prefix.len()
        {
            names.push(name.to_string());
        }
    }
    names.sort();
    names.dedup();
    if names.is_empty() {
        bail!(
            "{}: no `{prefix}...TYPE` function types found",
            path.display()
        );
    }
    Ok(names)
}

/// Removes `/* ... */` and `// ...` comments from C source.
pub fn strip_c_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    loop {
        let block = rest.find("/*");
        let line = rest.find("//");
        match (block, line) {
            (Some(b), l) if l.is_none_or(|l| b < l) => {
                out.push_str(&rest[..b]);
                out.push(' ');
                rest = rest[b + 2..]
                    .find("*/")
                    .map_or("", |e| &rest[b + 2 + e + 2..]);
            }
            (_, Some(l)) => {
                out.push_str(&rest[..l]);
                rest = rest[l..].find('\n').map_or("", |e| &rest[l + e..]);
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// Unpacks an FMU archive into `dest` (created if missing), refusing entries
/// whose path would leave `dest`. Returns the unpacked file paths relative to
/// `dest`, with `/` separators, sorted.
pub fn extract_fmu(fmu: &Path, dest: &Path) -> Result<Vec<String>> {
    let file =
        std::fs::File::open(fmu).with_context(|| format!("cannot open {}", fmu.display()))?;
    let mut archive = zip::ZipArchive::new(file)
        .with_context(|| format!("{} is not a zip archive", fmu.display()))?;
    let mut names = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i)?;
        let relative = entry
            .enclosed_name()
            .ok_or_else(|| anyhow!("{}: entry {i} has an unsafe path", fmu.display()))?;
        let target = dest.join(&relative);
        if entry.is_dir() {
            std::fs::create_dir_all(&target)?;
            continue;
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut out = std::fs::File::create(&target)
            .with_context(|| format!("cannot create {}", target.display()))?;
        std::io::copy(&mut entry, &mut out)?;
        names.push(
            relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
        );
    }
    names.sort();
    Ok(names)
}

/// A scratch folder for one test under `target/fmu-tests/<name>`, emptied
/// first.
pub fn scratch_dir(name: &str) -> Result<PathBuf> {
    let dir = workspace_root().join("target").join("fmu-tests").join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("cannot empty {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_rms_of_a_constant_offset() {
        let reference = [1.0, -3.0, 2.0];
        let simulated = [1.1, -2.9, 2.1];
        // RMS 0.1 over mean |ref| 2 = 5 %.
        assert!((relative_rms_percent(&simulated, &reference) - 5.0).abs() < 1e-12);
        assert!((max_abs_error(&simulated, &reference) - 0.1).abs() < 1e-12);
        assert_eq!(max_abs_error(&[f64::NAN], &[0.0]), f64::INFINITY);
    }

    #[test]
    fn interpolation_and_row_lookup() {
        let trace = Trace {
            time: vec![0.0, 1.0, 2.0],
            signals: [("u".to_string(), vec![0.0, 10.0, 30.0])].into(),
        };
        assert_eq!(trace.interpolate("u", -1.0).unwrap(), 0.0);
        assert_eq!(trace.interpolate("u", 0.5).unwrap(), 5.0);
        assert_eq!(trace.interpolate("u", 1.5).unwrap(), 20.0);
        assert_eq!(trace.interpolate("u", 9.0).unwrap(), 30.0);
        assert_eq!(trace.row_at(1.0 + 1e-12), Some(1));
        assert_eq!(trace.row_at(1.5), None);
        assert!(trace.interpolate("v", 0.0).is_err());
    }

    #[test]
    #[should_panic(expected = "run `cargo run --release -p build-fmu` first")]
    fn a_missing_fmu_fails_with_the_build_command() {
        require_fmu(FmiVersion::Fmi3, "NoSuchModelEverBuilt");
    }

    #[test]
    fn comments_are_stripped() {
        let c = "a /* b\n c */ d // e\nf /* g */";
        assert_eq!(strip_c_comments(c), "a   d \nf  ");
    }
}
