//! `cross-platform`: every FMU's binaries for the other platforms, run where
//! they run, against the Linux x86_64 binary.
//!
//! `tests/c/plan_master.c`, a small FMI 2.0 / 3.0 Co-Simulation master in C,
//! is compiled against the official FMI headers (FMPy's copy in the venv)
//! with each platform's C compiler: gcc for Linux x86_64, MinGW-w64 for
//! Windows x86_64 (run under wine64), aarch64-linux-gnu-gcc for Linux aarch64
//! (run under qemu-aarch64 with the Debian cross sysroot). For every FMU in
//! `dist/` (both FMI versions) it runs the model's shortest validation
//! scenario from that platform's binary folder inside the FMU, after
//! resolving every function the official headers declare. The outputs are
//! compared with the Linux x86_64 run: per signal, the largest difference
//! over the run divided by the largest magnitude of the signal. Exit status
//! 0 when every run succeeded and agrees within `--tolerance`.

use anyhow::{Context, Result, bail, ensure};
use clap::Parser;
use fmu_tests::{
    FmiVersion, dist_fmus, extract_fmu, official_function_names, official_header_dir,
    workspace_root,
};
use model_description::{ParsedDescription, ParsedType, parse_model_description};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use validation::harness::scenario::Scenario;

/// Run every FMU's scenario from its Windows x86_64 and Linux aarch64
/// binaries (under wine64 and qemu-aarch64) and compare with Linux x86_64.
#[derive(Parser)]
#[command(about)]
struct Args {
    /// Platforms to compare with x86_64-linux: x86_64-windows, aarch64-linux.
    #[arg(
        long,
        value_delimiter = ',',
        default_values_t = ["x86_64-windows".to_string(), "aarch64-linux".to_string()]
    )]
    platforms: Vec<String>,
    /// Models to run (model identifiers); every FMU in dist/ by default.
    #[arg(long = "model")]
    models: Vec<String>,
    /// Largest relative difference allowed (of the signal's largest magnitude).
    #[arg(long, default_value_t = 1e-9)]
    tolerance: f64,
    /// Work folder (compiled masters, unpacked FMUs, plans, results).
    #[arg(long, default_value = "target/cross-platform")]
    work: PathBuf,
    /// Keep the unpacked FMUs and the wine prefix after a run in which all
    /// platforms agreed (they are always kept when one did not): about 1 GB.
    #[arg(long)]
    keep_work: bool,
}

/// One platform: how to build the C master and how to run it.
struct Runner {
    platform: &'static str,
    compiler: &'static str,
    /// Extra compiler arguments (libraries, static linking).
    link: &'static [&'static str],
    /// The program that runs the master, with its arguments; none = native.
    launcher: Vec<String>,
    /// Paths handed to the master are Windows paths (drive Z: under wine).
    windows_paths: bool,
    /// The binaries folder inside the FMU per FMI version, and the suffix.
    folders: (&'static str, &'static str),
    suffix: &'static str,
}

impl Runner {
    fn new(platform: &str) -> Result<Runner> {
        Ok(match platform {
            "x86_64-linux" => Runner {
                platform: "x86_64-linux",
                compiler: "gcc",
                link: &["-ldl"],
                launcher: Vec::new(),
                windows_paths: false,
                folders: ("linux64", "x86_64-linux"),
                suffix: ".so",
            },
            "x86_64-windows" => Runner {
                platform: "x86_64-windows",
                compiler: "x86_64-w64-mingw32-gcc",
                link: &["-static"],
                launcher: vec![wine_program()?],
                windows_paths: true,
                folders: ("win64", "x86_64-windows"),
                suffix: ".dll",
            },
            "aarch64-linux" => Runner {
                platform: "aarch64-linux",
                compiler: "aarch64-linux-gnu-gcc",
                link: &["-ldl"],
                launcher: vec![
                    "qemu-aarch64".into(),
                    "-L".into(),
                    "/usr/aarch64-linux-gnu".into(),
                ],
                windows_paths: false,
                folders: ("aarch64-linux", "aarch64-linux"),
                suffix: ".so",
            },
            other => bail!("unknown platform '{other}' (x86_64-windows, aarch64-linux)"),
        })
    }

    fn exe(&self, work: &Path) -> PathBuf {
        let name = if self.windows_paths {
            "plan_master.exe".to_string()
        } else {
            format!("plan_master-{}", self.platform)
        };
        work.join("bin").join(name)
    }

    /// A path as the master on this platform must see it.
    fn path(&self, p: &Path) -> String {
        let s = p.display().to_string();
        if self.windows_paths {
            format!("Z:{}", s.replace('/', "\\"))
        } else {
            s
        }
    }

    /// Compiles the C master with this platform's compiler.
    fn compile(&self, headers: &Path, work: &Path) -> Result<()> {
        let exe = self.exe(work);
        std::fs::create_dir_all(exe.parent().unwrap())?;
        let source = workspace_root().join("tests/c/plan_master.c");
        let out = Command::new(self.compiler)
            .args(["-O2", "-std=c99", "-Wall", "-Wextra", "-Werror"])
            .arg("-I")
            .arg(headers)
            .arg(&source)
            .arg("-o")
            .arg(&exe)
            .args(self.link)
            .output()
            .with_context(|| format!("running {} (is it installed?)", self.compiler))?;
        ensure!(
            out.status.success(),
            "{} could not compile {}:\n{}",
            self.compiler,
            source.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        if self.windows_paths {
            // wine 8.0 lacks bcryptprimitives.dll, which every Rust DLL
            // imports (see the file): a stand-in beside the master.
            let shim = workspace_root().join("tests/c/wine_bcryptprimitives.c");
            let out = Command::new(self.compiler)
                .args(["-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-o"])
                .arg(exe.with_file_name("bcryptprimitives.dll"))
                .arg(&shim)
                .arg("-ladvapi32")
                .output()
                .with_context(|| format!("running {}", self.compiler))?;
            ensure!(
                out.status.success(),
                "{} could not compile {}:\n{}",
                self.compiler,
                shim.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(())
    }
}

/// wine64's program: `wine64` where Debian installs it on PATH, else
/// `/usr/lib/wine/wine64`, else `wine`.
fn wine_program() -> Result<String> {
    let on_path = |p: &str| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(p).is_file()))
    };
    if on_path("wine64") {
        return Ok("wine64".into());
    }
    if Path::new("/usr/lib/wine/wine64").is_file() {
        return Ok("/usr/lib/wine/wine64".into());
    }
    if on_path("wine") {
        return Ok("wine".into());
    }
    bail!("wine64 not found (apt-get install wine64)")
}

/// One FMU (model and FMI version) and the scenario it runs.
struct Case {
    model: String,
    version: FmiVersion,
    dir: PathBuf,
    description: ParsedDescription,
    scenario: Scenario,
    signals: Vec<String>,
}

impl Case {
    fn label(&self) -> String {
        format!("{} {}", self.model, self.version.dist_folder())
    }
}

/// Unpacks `fmu` into `dir` (emptied first) and reads its model description.
fn unpack(fmu: &Path, dir: &Path) -> Result<ParsedDescription> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    extract_fmu(fmu, dir)?;
    let xml = std::fs::read_to_string(dir.join("modelDescription.xml"))
        .with_context(|| format!("{} has no modelDescription.xml", fmu.display()))?;
    Ok(parse_model_description(&xml)?)
}

/// The model's shortest scenario (then the first by name); `None` when
/// the model has none (a described circuit without a reference, such as
/// an example of the description format).
fn shortest_scenario(model: &str) -> Result<Option<Scenario>> {
    let root = workspace_root().join("validation/scenarios").join(model);
    if !root.exists() {
        return Ok(None);
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .with_context(|| format!("reading {}", root.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("scenario.json").is_file())
        .collect();
    dirs.sort();
    let mut best: Option<Scenario> = None;
    for dir in dirs {
        let s = Scenario::load(&dir)?;
        if best
            .as_ref()
            .is_none_or(|b| s.options.stop_time < b.options.stop_time)
        {
            best = Some(s);
        }
    }
    best.with_context(|| format!("{model} has no scenario under {}", root.display()))
        .map(Some)
}

/// What a model without a scenario is run with: its default experiment
/// (at most 2 s), its inputs held at their start values, every output
/// compared. The platforms are compared with each other, so no reference
/// is needed.
fn default_run(model: &str, d: &ParsedDescription) -> Result<Scenario> {
    use model_description::Causality;
    use validation::harness::scenario::{Inputs, Interpolation, Options, SignalBounds, Trace};
    let experiment = d.default_experiment.unwrap_or_default();
    let step = experiment.step_size.unwrap_or(1e-3);
    let stop = experiment.stop_time.unwrap_or(1.0).min(2.0);
    ensure!(
        stop > step,
        "{model}: its default experiment is shorter than one step"
    );
    let inputs: Vec<_> = (d.variables.iter())
        .filter(|v| v.causality == Causality::Input)
        .collect();
    let outputs: Vec<(String, SignalBounds)> = (d.variables.iter())
        .filter(|v| v.causality == Causality::Output)
        .map(|v| {
            let bounds = SignalBounds {
                rel_rms_percent: f64::INFINITY,
                max_abs: f64::INFINITY,
            };
            (v.name.clone(), bounds)
        })
        .collect();
    ensure!(!outputs.is_empty(), "{model} has no outputs to compare");
    Ok(Scenario {
        dir: workspace_root().join("validation/scenarios").join(model),
        model: model.to_owned(),
        name: "default-experiment".into(),
        description: "the default experiment with the inputs at their start values".into(),
        parameters: Vec::new(),
        inputs: Inputs {
            trace: Trace {
                names: inputs.iter().map(|v| v.name.clone()).collect(),
                time: vec![0.0],
                columns: inputs
                    .iter()
                    .map(|v| vec![v.start.unwrap_or(0.0)])
                    .collect(),
            },
            interpolation: Interpolation::Step,
        },
        signals: outputs,
        options: Options {
            start_time: 0.0,
            stop_time: stop,
            step_size: step,
            rel_tol: None,
        },
        step_sizes: Vec::new(),
        reference_file: String::new(),
        files_dir: workspace_root().join("validation/scenarios").join(model),
        twin_of: None,
        fixed_parameters: Vec::new(),
    })
}

/// Writes the plan of `case` for `runner` and returns its path.
fn write_plan(case: &Case, runner: &Runner, required: &[String], work: &Path) -> Result<PathBuf> {
    let d = &case.description;
    let s = &case.scenario;
    let h = s.options.step_size;
    let steps = ((s.options.stop_time - s.options.start_time) / h).round() as i64;
    ensure!(steps > 0, "{}: no steps", s.key());
    let vr = |name: &str| {
        d.variable_by_name(name)
            .map(|v| v.value_reference)
            .with_context(|| format!("{} has no variable '{name}'", case.model))
    };
    let (fmi2, fmi3) = runner.folders;
    let folder = match case.version {
        FmiVersion::Fmi2 => fmi2,
        FmiVersion::Fmi3 => fmi3,
    };
    let binary = case
        .dir
        .join("binaries")
        .join(folder)
        .join(format!("{}{}", d.model_identifier, runner.suffix));
    ensure!(
        binary.is_file(),
        "{} has no {} binary ({})",
        case.label(),
        runner.platform,
        binary.display()
    );
    let resources = case.dir.join("resources");
    let mut plan = String::new();
    writeln!(plan, "fmi {}", &case.version.prefix()[3..])?;
    writeln!(plan, "name {}", d.model_identifier)?;
    writeln!(plan, "binary {}", runner.path(&binary))?;
    writeln!(plan, "token {}", d.token)?;
    match case.version {
        FmiVersion::Fmi2 => {
            let p = runner.path(&resources).replace('\\', "/");
            let p = if p.starts_with('/') {
                p
            } else {
                format!("/{p}")
            };
            writeln!(plan, "resources file://{p}/")?
        }
        FmiVersion::Fmi3 => {
            let sep = if runner.windows_paths { "\\" } else { "/" };
            writeln!(plan, "resources {}{sep}", runner.path(&resources))?
        }
    }
    writeln!(plan, "start {:e}", s.options.start_time)?;
    writeln!(plan, "stop {:e}", s.options.stop_time)?;
    writeln!(plan, "step {h:e}")?;
    writeln!(plan, "tolerance {:e}", s.options.rel_tol.unwrap_or(0.0))?;
    writeln!(plan, "record_every {}", (steps / 2000).max(1))?;
    writeln!(plan, "steps {steps}")?;
    writeln!(plan, "require {} {}", required.len(), required.join(" "))?;
    for (name, value) in &s.parameters {
        let var = d
            .variable_by_name(name)
            .with_context(|| format!("{} has no parameter '{name}'", case.model))?;
        let v = match value {
            serde_json::Value::Bool(b) => f64::from(u8::from(*b)),
            other => other
                .as_f64()
                .with_context(|| format!("{}: parameter {name} = {other}", s.key()))?,
        };
        let kind = match var.kind {
            ParsedType::Boolean => 'b',
            ParsedType::Integer => 'i',
            _ => 'r',
        };
        let structural = if var.structural { 'S' } else { 'P' };
        writeln!(
            plan,
            "param {structural} {kind} {} {v:e}",
            var.value_reference
        )?;
    }
    let inputs = s.inputs.names();
    let input_vrs: Vec<String> = inputs
        .iter()
        .map(|n| vr(n).map(|v| v.to_string()))
        .collect::<Result<_>>()?;
    writeln!(plan, "inputs {} {}", input_vrs.len(), input_vrs.join(" "))?;
    let outputs: Vec<String> = case
        .signals
        .iter()
        .map(|n| vr(n).map(|v| v.to_string()))
        .collect::<Result<_>>()?;
    writeln!(plan, "outputs {} {}", outputs.len(), outputs.join(" "))?;
    // Input rows: step 0 always, then every step whose values change.
    let mut rows = String::new();
    let mut count = 0;
    let mut last: Option<Vec<f64>> = None;
    for k in 0..steps {
        let t = s.options.start_time + k as f64 * h;
        let values: Vec<f64> = (0..inputs.len()).map(|i| s.inputs.at(i, t)).collect();
        if last.as_ref() != Some(&values) {
            write!(rows, "{k}")?;
            for v in &values {
                write!(rows, " {v:e}")?;
            }
            rows.push('\n');
            count += 1;
            last = Some(values);
        }
    }
    writeln!(plan, "rows {count}")?;
    plan.push_str(&rows);
    let path = work.join("plans").join(runner.platform).join(format!(
        "{}-{}.plan",
        case.model,
        case.version.dist_folder()
    ));
    std::fs::create_dir_all(path.parent().unwrap())?;
    std::fs::write(&path, plan)?;
    Ok(path)
}

/// A run's recorded rows, or what went wrong.
fn read_result(path: &Path) -> Result<Vec<Vec<f64>>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("no result {}", path.display()))?;
    let mut rows = Vec::new();
    let mut ok = false;
    for line in text.lines() {
        if let Some(status) = line.strip_prefix("# ") {
            ensure!(status.starts_with("ok"), "{status}");
            ok = true;
            continue;
        }
        rows.push(
            line.split_whitespace()
                .map(|v| v.parse::<f64>())
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| format!("{}: bad line '{line}'", path.display()))?,
        );
    }
    ensure!(ok, "the run ended without a status line (crashed?)");
    Ok(rows)
}

/// The largest difference of `run` from `base` relative to each signal's
/// largest magnitude in `base`, with the signal's index.
fn largest_difference(run: &[Vec<f64>], base: &[Vec<f64>]) -> Result<(f64, usize)> {
    ensure!(
        run.len() == base.len(),
        "{} recorded points instead of {}",
        run.len(),
        base.len()
    );
    let columns = base.first().map_or(0, Vec::len);
    let mut worst = (0.0f64, 0usize);
    for c in 1..columns {
        let scale = base.iter().map(|r| r[c].abs()).fold(0.0, f64::max);
        let diff = run
            .iter()
            .zip(base)
            .map(|(a, b)| (a[c] - b[c]).abs())
            .fold(0.0, f64::max);
        let rel = if scale > 0.0 {
            diff / scale
        } else if diff == 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
        ensure!(!rel.is_nan(), "a NaN in signal column {c}");
        if rel > worst.0 {
            worst = (rel, c - 1);
        }
    }
    // The time column must match exactly.
    for (a, b) in run.iter().zip(base) {
        ensure!(a[0] == b[0], "recorded times differ: {} vs {}", a[0], b[0]);
    }
    Ok(worst)
}

/// The size of each platform's binary per model (FMI 3 archives; the FMI 2
/// ones carry the same files).
fn print_sizes(cases: &[Case], runners: &[Runner]) {
    println!(
        "\nbinary size [MB] inside the FMUs (stripped of debug info unless built with --keep-debug):"
    );
    print!("{:<18}", "model");
    for r in runners {
        print!(" {:>15}", r.platform);
    }
    println!();
    for case in cases.iter().filter(|c| c.version == FmiVersion::Fmi3) {
        print!("{:<18}", case.model);
        for r in runners {
            let file = case
                .dir
                .join("binaries")
                .join(r.folders.1)
                .join(format!("{}{}", case.description.model_identifier, r.suffix));
            match std::fs::metadata(&file) {
                Ok(m) => print!(" {:>15.2}", m.len() as f64 / 1e6),
                Err(_) => print!(" {:>15}", "-"),
            }
        }
        println!();
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    let root = workspace_root();
    let work = if args.work.is_absolute() {
        args.work.clone()
    } else {
        root.join(&args.work)
    };
    std::fs::create_dir_all(&work)?;
    let headers = official_header_dir()?;
    let mut runners = vec![Runner::new("x86_64-linux")?];
    for p in &args.platforms {
        if p != "x86_64-linux" {
            runners.push(Runner::new(p)?);
        }
    }
    for r in &runners {
        r.compile(&headers, &work)?;
    }

    // The FMUs and their scenarios.
    let mut cases = Vec::new();
    for version in FmiVersion::ALL {
        for (model, fmu) in dist_fmus(&root.join("dist"), version)? {
            if !args.models.is_empty() && !args.models.contains(&model) {
                continue;
            }
            let dir = work.join("fmu").join(version.dist_folder()).join(&model);
            let description = unpack(&fmu, &dir)?;
            let scenario = match shortest_scenario(&model)? {
                Some(s) => s,
                None => default_run(&model, &description)?,
            };
            let signals = scenario.signal_names().map(str::to_owned).collect();
            cases.push(Case {
                model,
                version,
                dir,
                description,
                scenario,
                signals,
            });
        }
    }
    ensure!(!cases.is_empty(), "no FMUs to run in dist/");
    let required = [
        official_function_names(&headers, FmiVersion::Fmi2)?,
        official_function_names(&headers, FmiVersion::Fmi3)?,
    ];

    // Plans and runs, one master process per platform.
    let mut walls = Vec::new();
    for r in &runners {
        let mut argv = Vec::new();
        for case in &cases {
            let required = match case.version {
                FmiVersion::Fmi2 => &required[0],
                FmiVersion::Fmi3 => &required[1],
            };
            let plan = write_plan(case, r, required, &work)?;
            let result = plan.with_extension("result");
            let _ = std::fs::remove_file(&result);
            argv.push(r.path(&plan));
            argv.push(r.path(&result));
        }
        let exe = r.exe(&work);
        let mut cmd = match r.launcher.split_first() {
            Some((program, rest)) => {
                let mut c = Command::new(program);
                c.args(rest).arg(r.path(&exe));
                c
            }
            None => Command::new(&exe),
        };
        if r.windows_paths {
            cmd.env("WINEPREFIX", work.join("wine-prefix"))
                .env("WINEDEBUG", "-all")
                .env("WINEDLLOVERRIDES", "mscoree,mshtml=");
        }
        eprintln!(
            "running {} FMU scenario(s) on {}{} ...",
            cases.len(),
            r.platform,
            r.launcher
                .first()
                .map(|l| format!(" under {l}"))
                .unwrap_or_default()
        );
        let t = Instant::now();
        let out = cmd
            .args(&argv)
            .output()
            .with_context(|| format!("running the {} master", r.platform))?;
        let wall = t.elapsed().as_secs_f64();
        if !out.stderr.is_empty() {
            let log = work.join(format!("{}.stderr.log", r.platform));
            std::fs::write(&log, &out.stderr)?;
        }
        walls.push((r.platform, wall, out.status.code()));
    }

    // Comparison with Linux x86_64.
    println!(
        "\nEvery FMU's shortest scenario through plan_master (C, official FMI headers), per platform's binary;\n\
         difference = largest |y - y_x86_64-linux| over the run / largest |y_x86_64-linux| of that signal.\n"
    );
    println!(
        "{:<18} {:<5} {:<20} {:>7}  {:<15} {:>10}  {:<10} verdict",
        "model", "FMI", "scenario", "points", "platform", "max diff", "signal"
    );
    let mut failures = Vec::new();
    let mut largest = (0.0f64, String::new());
    for case in &cases {
        let result_of = |r: &Runner| {
            work.join("plans").join(r.platform).join(format!(
                "{}-{}.result",
                case.model,
                case.version.dist_folder()
            ))
        };
        let base = read_result(&result_of(&runners[0]));
        let points = base.as_ref().map_or(0, Vec::len);
        let row = |platform: &str, diff: f64, signal: &str, verdict: &str| {
            println!(
                "{:<18} {:<5} {:<20} {:>7}  {:<15} {:>10.2e}  {:<10} {verdict}",
                case.model,
                case.version.dist_folder(),
                case.scenario.name,
                points,
                platform,
                diff,
                signal
            )
        };
        let Ok(b) = &base else {
            let e = base
                .as_ref()
                .err()
                .map(|e| format!("{e:#}"))
                .unwrap_or_default();
            failures.push(format!("{} on x86_64-linux: {e}", case.label()));
            row(runners[0].platform, f64::NAN, "", &format!("FAIL: {e}"));
            continue;
        };
        row(runners[0].platform, 0.0, "", "baseline");
        for r in &runners[1..] {
            let outcome = read_result(&result_of(r)).and_then(|run| largest_difference(&run, b));
            let (diff, signal, verdict) = match outcome {
                Err(e) => (f64::NAN, String::new(), format!("FAIL: {e:#}")),
                Ok((d, i)) => {
                    let name = if d > 0.0 {
                        case.signals[i].clone()
                    } else {
                        "(identical)".to_string()
                    };
                    if d > largest.0 {
                        largest = (
                            d,
                            format!("{} on {}, signal {name}", case.label(), r.platform),
                        );
                    }
                    let v = if d <= args.tolerance {
                        "pass".to_string()
                    } else {
                        format!("FAIL: {d:.2e} > {:.0e}", args.tolerance)
                    };
                    (d, name, v)
                }
            };
            if verdict != "pass" {
                failures.push(format!("{} on {}: {verdict}", case.label(), r.platform));
            }
            row(r.platform, diff, &signal, &verdict);
        }
    }
    println!();
    for (platform, wall, code) in &walls {
        println!(
            "{platform:<15} master wall time {wall:>7.1} s (all {} runs), exit status {}",
            cases.len(),
            code.map_or("signal".to_string(), |c| c.to_string())
        );
    }
    println!(
        "largest difference from x86_64-linux: {:.2e} ({})",
        largest.0,
        if largest.1.is_empty() {
            "all identical"
        } else {
            &largest.1
        }
    );
    print_sizes(&cases, &runners);
    let runs = cases.len() * runners.len();
    println!(
        "cross-platform runs: {} passed, {} failed",
        runs - failures.len().min(runs),
        failures.len()
    );
    if failures.is_empty() {
        println!(
            "{} runs on {} platform(s): all agree with x86_64-linux within {:.0e}",
            cases.len() * runners.len(),
            runners.len(),
            args.tolerance
        );
        if !args.keep_work {
            for dir in [work.join("fmu"), work.join("wine-prefix")] {
                if dir.exists() {
                    std::fs::remove_dir_all(&dir)
                        .with_context(|| format!("cannot remove {}", dir.display()))?;
                }
            }
            println!(
                "removed the unpacked FMUs and the wine prefix from {} (--keep-work keeps them)",
                work.display()
            );
        }
        Ok(())
    } else {
        for f in &failures {
            eprintln!("{f}");
        }
        bail!(
            "{} of {} runs failed",
            failures.len(),
            cases.len() * runners.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_relative_to_the_signal_magnitude() {
        let base = vec![vec![0.0, 10.0, 0.0], vec![1.0, -20.0, 0.0]];
        let run = vec![vec![0.0, 10.0, 0.0], vec![1.0, -20.002, 0.0]];
        let (d, i) = largest_difference(&run, &base).unwrap();
        assert!((d - 1e-4).abs() < 1e-12, "{d}");
        assert_eq!(i, 0);
        // A signal that is zero in the baseline must stay exactly zero.
        let off = vec![vec![0.0, 10.0, 0.0], vec![1.0, -20.0, 1e-300]];
        assert_eq!(largest_difference(&off, &base).unwrap().0, f64::INFINITY);
        // Different lengths or times are errors, not small differences.
        assert!(largest_difference(&run[..1], &base).is_err());
        let shifted = vec![vec![0.0, 10.0, 0.0], vec![1.5, -20.0, 0.0]];
        assert!(largest_difference(&shifted, &base).is_err());
    }

    #[test]
    fn windows_paths_go_through_drive_z() {
        let r = Runner::new("x86_64-linux").unwrap();
        assert_eq!(r.path(Path::new("/a/b.so")), "/a/b.so");
        let w = Runner {
            windows_paths: true,
            ..Runner::new("x86_64-linux").unwrap()
        };
        assert_eq!(w.path(Path::new("/a/b.dll")), "Z:\\a\\b.dll");
    }
}
