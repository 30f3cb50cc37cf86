//! The reliability suite: a hostile FMI master that attacks every built FMU
//! through its C API, with every case generated from the FMU's own
//! `modelDescription.xml` (so a new FMU is covered without new code).
//!
//! The parent process unpacks the FMUs of `dist/`, then runs one child
//! process per FMU and FMI version (the binary re-executes itself), so a
//! crash or a hang is reported as a failure of that FMU and the suite goes
//! on; the valgrind runs are child processes too. The categories:
//! setters with odd values, calls in forbidden states, NULL pointers, wrong
//! value references and types, bad doStep arguments (and explicit-solver
//! divergence), corrupted serialized states, forged serialized states,
//! concurrency, valgrind memcheck and RSS growth.

mod api;
mod calls;
mod memory;
mod report;
mod serial;
mod steps;
mod suite;
mod xml;

use crate::{FmiVersion, extract_fmu, workspace_root};
use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use report::{CATEGORIES, Event, MARKER};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Command line of the `reliability` binary.
#[derive(Parser, Debug)]
#[command(
    name = "reliability",
    about = "Hostile FMI master: attacks every built FMU (dist/fmi2, dist/fmi3) through its C API",
    long_about = "Hostile FMI master: attacks every built FMU (dist/fmi2/*.fmu, dist/fmi3/*.fmu) \
        through its C API with cases generated from each FMU's modelDescription.xml: odd values \
        through every setter, every function in the states the standard forbids, NULL pointers, \
        wrong value references and types, bad doStep arguments and explicit-solver divergence, \
        truncated/corrupted/foreign/forged serialized states, 16 instances in 8 threads against \
        serial runs, valgrind memcheck of N life cycles and RSS growth over M cycles. Each FMU \
        and version runs in a child process (crashes and hangs are that FMU's failures). Prints \
        a table per FMU and category and the line `reliability: N passed, N failed`; exits \
        non-zero on any failure. Full failure list: <out>/failures.txt.\n\n\
        The test command runs the defaults; the long run is \
        `cargo run --release -p fmu-tests --bin reliability -- --cycles 1000 --rss-cycles 10000`."
)]
pub struct Cli {
    #[command(flatten)]
    options: RunOptions,
    #[command(subcommand)]
    child: Option<ChildCommand>,
}

/// Options of a suite run.
#[derive(Args, Debug, Clone)]
struct RunOptions {
    /// Only these models (comma-separated model names, e.g. HoseG,OrificeChain).
    #[arg(long, value_delimiter = ',')]
    fmus: Vec<String>,
    /// Only these FMI versions (2, 3 or both: 2,3).
    #[arg(long, value_delimiter = ',', default_value = "2,3")]
    versions: Vec<u8>,
    /// Life cycles per FMU and version under valgrind memcheck.
    #[arg(long, default_value_t = 20)]
    cycles: usize,
    /// Life cycles per FMU and version of the RSS check (0: skip it).
    #[arg(long, default_value_t = 2000)]
    rss_cycles: usize,
    /// Allowed RSS growth from the end of the first tenth of the cycles to
    /// the end, in KiB. An instance holds tens of KiB (its description,
    /// values and states), so leaking one per cycle would grow RSS by tens
    /// of MiB over the cycles; 512 KiB stays clear of the allocator's own
    /// arena growth, which reached 264 KiB once (FourBar FMI 3, after the
    /// Model Exchange variables made its description larger) against the
    /// 256 KiB bound used before.
    #[arg(long, default_value_t = 512)]
    rss_bound_kib: u64,
    /// Skip the valgrind runs.
    #[arg(long)]
    no_valgrind: bool,
    /// Keep the unpacked FMUs after a run in which every check passed (they
    /// are always kept when one failed).
    #[arg(long)]
    keep_unpacked: bool,
    /// Smaller samples (200 flipped bytes, 8 random buffers, 50 concurrent
    /// steps, 500 RSS cycles, 5 valgrind cycles) for a quick look.
    #[arg(long)]
    quick: bool,
    /// Byte positions flipped per serialized state (every byte when the
    /// state is at most this long).
    #[arg(long, default_value_t = 500)]
    flip_sample: usize,
    /// Random buffers fed to deserialize per FMU.
    #[arg(long, default_value_t = 24)]
    random_buffers: usize,
    /// doSteps per instance in the concurrency check.
    #[arg(long, default_value_t = 200)]
    concurrency_steps: usize,
    /// Seed of the sampled byte positions and random buffers.
    #[arg(long, default_value_t = 0x5eed)]
    seed: u64,
    /// Child processes at a time (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Seconds before a child process counts as hung and is killed.
    #[arg(long, default_value_t = 600)]
    timeout: u64,
    /// Folder holding fmi2/ and fmi3/ with the FMUs (default: <workspace>/dist).
    #[arg(long)]
    dist: Option<PathBuf>,
    /// Output folder (default: <workspace>/target/reliability).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Failures listed on the terminal (all of them are in failures.txt).
    #[arg(long, default_value_t = 30)]
    show: usize,
    /// Makes each valgrind child lose this many bytes on purpose: checks
    /// that a leak is caught (every valgrind case must then fail).
    #[arg(long, hide = true, default_value_t = 0)]
    inject_leak: usize,
}

/// The internal child processes (not for direct use).
#[derive(Subcommand, Debug)]
enum ChildCommand {
    /// Runs every category but valgrind on one unpacked FMU.
    #[command(hide = true)]
    Child {
        /// The unpacked FMU.
        #[arg(long)]
        dir: PathBuf,
        /// The folder with <fmi2|fmi3>/<Model>/ of every unpacked FMU.
        #[arg(long)]
        root: PathBuf,
        #[arg(long)]
        flip_sample: usize,
        #[arg(long)]
        random_buffers: usize,
        #[arg(long)]
        concurrency_steps: usize,
        #[arg(long)]
        rss_cycles: usize,
        #[arg(long)]
        rss_bound: u64,
        #[arg(long)]
        seed: u64,
    },
    /// Runs life cycles of one unpacked FMU (under valgrind).
    #[command(hide = true)]
    Cycles {
        /// The unpacked FMU.
        #[arg(long)]
        dir: PathBuf,
        /// How many.
        #[arg(long)]
        cycles: usize,
        /// Leaks this many bytes on purpose (to check that valgrind and the
        /// parent's parsing catch a leak).
        #[arg(long, default_value_t = 0)]
        inject_leak: usize,
    },
}

/// Entry point of the `reliability` binary; returns the exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let result = match cli.child {
        Some(ChildCommand::Child {
            dir,
            root,
            flip_sample,
            random_buffers,
            concurrency_steps,
            rss_cycles,
            rss_bound,
            seed,
        }) => run_child(
            &dir,
            &root,
            suite::Options {
                flip_sample,
                random_buffers,
                concurrency_steps,
                rss_cycles,
                rss_bound,
                seed,
            },
        ),
        Some(ChildCommand::Cycles {
            dir,
            cycles,
            inject_leak,
        }) => run_cycles(&dir, cycles, inject_leak),
        None => run_parent(cli.options),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("reliability: {e:#}");
            2
        }
    }
}

/// The child: every category on one FMU, events on stdout.
fn run_child(dir: &Path, root: &Path, opts: suite::Options) -> Result<i32> {
    let lib = api::Lib::load(dir)?;
    let model = lib.desc.model_identifier.clone();
    let version = if lib.fmi3() { "fmi3" } else { "fmi2" };
    let other_version = if lib.fmi3() { "fmi2" } else { "fmi3" };
    let mut ctx = match suite::Ctx::new(&lib, opts) {
        Ok(c) => c,
        Err(e) => {
            let mut tally = report::Tally::default();
            tally.begin("states");
            tally.case(
                "states",
                "the standard path on an untouched instance",
                Err(e),
            );
            tally.end("states");
            report::emit(&Event::Done);
            return Ok(0);
        }
    };
    suite::setters(&mut ctx);
    calls::wrong_states(&mut ctx);
    calls::null_pointers(&mut ctx);
    calls::value_refs(&mut ctx);
    steps::do_step_args(&mut ctx);

    if lib.desc.can_serialize() {
        // States of the other models (same version), of other structural
        // parameter values, and of the other FMI version.
        let mut others = Vec::new();
        for entry in sorted_dirs(&root.join(version)) {
            if entry == dir {
                continue;
            }
            let name = entry
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let bytes = api::Lib::load(&entry)
                .map_err(|e| e.to_string())
                .and_then(|l| serial::produce_state(&l, None));
            others.push(serial::Foreign {
                what: format!("state of {name} ({version})"),
                bytes,
            });
        }
        // The structural parameters as FMI 3 declares them (FMI 2 shows them
        // as fixed parameters).
        let fmi3_desc =
            std::fs::read_to_string(root.join("fmi3").join(&model).join("modelDescription.xml"))
                .ok()
                .and_then(|x| xml::parse(&x).ok());
        let mut structural = Vec::new();
        if let Some(d3) = &fmi3_desc {
            for s in d3
                .variables
                .iter()
                .filter(|v| v.structural && v.ty == xml::Ty::Integer)
            {
                let Some(var) = lib.desc.var(&s.name).cloned() else {
                    continue;
                };
                let start = var.start.unwrap_or(0.0) as i32;
                let (lo, hi) = (
                    var.min.unwrap_or(1.0) as i32,
                    var.max.unwrap_or(16.0) as i32,
                );
                let mut values = vec![(lo + 2).min(hi), hi];
                values.retain(|v| *v != start);
                values.dedup();
                for v in values {
                    structural.push(serial::Foreign {
                        what: format!(
                            "state serialized at {} = {v}, deserialized into an instance with {} = {start}",
                            var.name, var.name
                        ),
                        bytes: serial::produce_state(&lib, Some((&var, v))),
                    });
                }
            }
        }
        let cross_dir = root.join(other_version).join(&model);
        let cross = cross_dir.is_dir().then(|| serial::Foreign {
            what: format!(
                "{model}: state serialized through {other_version}, deserialized through {version}"
            ),
            bytes: api::Lib::load(&cross_dir)
                .map_err(|e| e.to_string())
                .and_then(|l| serial::produce_state(&l, None)),
        });
        serial::serialized(&mut ctx, &others, &structural, cross);
        serial::forged(&mut ctx);
    } else {
        report::emit(&Event::Info {
            cat: "serialized states".into(),
            case: "serialized and forged states".into(),
            outcome:
                "skipped: the FMU does not declare canGetAndSetFMUstate and canSerializeFMUstate"
                    .into(),
        });
    }
    memory::concurrency(&mut ctx);
    memory::rss(&mut ctx);
    report::emit(&Event::Done);
    Ok(0)
}

/// The valgrind target: life cycles, then "cycles ok" on stdout.
fn run_cycles(dir: &Path, cycles: usize, inject_leak: usize) -> Result<i32> {
    for _ in 0..(inject_leak > 0) as usize {
        leak(inject_leak);
    }
    let lib = api::Lib::load(dir)?;
    for k in 0..cycles {
        if let Err(e) = memory::cycle(&lib, k) {
            bail!("cycle {k}: {e}");
        }
    }
    println!("cycles ok: {cycles}");
    Ok(0)
}

/// Loses `n` bytes (the check of the valgrind wiring).
#[inline(never)]
fn leak(n: usize) {
    let v = std::hint::black_box(vec![7u8; n]);
    std::mem::forget(v);
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

/// One FMU in one version.
#[derive(Debug, Clone)]
struct Target {
    version: FmiVersion,
    model: String,
    dir: PathBuf,
}

impl Target {
    fn label(&self) -> String {
        format!("{} {}", self.model, self.version)
    }
}

/// What the parent knows of one FMU in one version.
#[derive(Default)]
struct Outcome {
    /// category -> (cases, passed)
    counts: BTreeMap<String, (usize, usize)>,
    failures: Vec<(String, String, String)>,
    infos: Vec<(String, String)>,
}

impl Outcome {
    fn add(&mut self, cat: &str, cases: usize, passed: usize) {
        let e = self.counts.entry(cat.to_owned()).or_default();
        e.0 += cases;
        e.1 += passed;
    }

    fn fail(&mut self, cat: &str, case: impl Into<String>, why: impl Into<String>) {
        self.add(cat, 1, 0);
        self.failures
            .push((cat.to_owned(), case.into(), why.into()));
    }

    fn pass(&mut self, cat: &str) {
        self.add(cat, 1, 1);
    }
}

enum Job {
    Main(Target),
    Valgrind(Target),
}

/// Runs a command with stdout and stderr into files, killing it after
/// `timeout`. Returns (exit description or None on success, timed out).
fn run_with_timeout(
    mut cmd: Command,
    stdout: &Path,
    stderr: &Path,
    timeout: Duration,
) -> Result<(Option<String>, bool)> {
    cmd.stdin(Stdio::null())
        .stdout(std::fs::File::create(stdout)?)
        .stderr(std::fs::File::create(stderr)?);
    let mut child = cmd.spawn().context("cannot start a child process")?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            if status.success() {
                return Ok((None, false));
            }
            use std::os::unix::process::ExitStatusExt;
            let what = match (status.code(), status.signal()) {
                (Some(c), _) => format!("exited with code {c}"),
                (None, Some(s)) => format!("killed by signal {s}{}", signal_name(s)),
                _ => "ended abnormally".to_owned(),
            };
            return Ok((Some(what), false));
        }
        if started.elapsed() > timeout {
            // Our own child, by its handle.
            let _ = child.kill();
            let _ = child.wait();
            return Ok((
                Some(format!("hung: killed after {} s", timeout.as_secs())),
                true,
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal_name(s: i32) -> &'static str {
    match s {
        6 => " (SIGABRT)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        _ => "",
    }
}

fn run_main_child(t: &Target, root: &Path, logs: &Path, o: &RunOptions) -> Result<Outcome> {
    let exe = std::env::current_exe()?;
    let base = format!("{}-{}", t.version.prefix(), t.model);
    let (out_path, err_path) = (
        logs.join(format!("{base}.out")),
        logs.join(format!("{base}.err")),
    );
    let mut cmd = Command::new(exe);
    cmd.arg("child")
        .arg("--dir")
        .arg(&t.dir)
        .arg("--root")
        .arg(root)
        .args(["--flip-sample", &o.flip_sample.to_string()])
        .args(["--random-buffers", &o.random_buffers.to_string()])
        .args(["--concurrency-steps", &o.concurrency_steps.to_string()])
        .args(["--rss-cycles", &o.rss_cycles.to_string()])
        .args(["--rss-bound", &(o.rss_bound_kib * 1024).to_string()])
        .args(["--seed", &o.seed.to_string()]);
    let (exit, _) = run_with_timeout(cmd, &out_path, &err_path, Duration::from_secs(o.timeout))?;
    let text = std::fs::read_to_string(&out_path).unwrap_or_default();
    let mut outcome = Outcome::default();
    let mut current = "setters".to_owned();
    let mut done = false;
    for line in text.lines() {
        let Some(json) = line.strip_prefix(MARKER) else {
            continue;
        };
        let Ok(event) = serde_json::from_str::<Event>(json) else {
            continue;
        };
        match event {
            Event::Begin { cat } => current = cat,
            Event::Fail { cat, case, why } => outcome.failures.push((cat, case, why)),
            Event::Count { cat, cases, passed } => outcome.add(&cat, cases, passed),
            Event::Info {
                case, outcome: o, ..
            } => outcome.infos.push((case, o)),
            Event::Done => done = true,
        }
    }
    if exit.is_some() || !done {
        let why = exit.unwrap_or_else(|| "stopped without finishing".into());
        let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
        let tail = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        outcome.fail(
            &current,
            "child process (crash isolation)",
            format!(
                "{why} during category '{current}'; last stderr line: {tail}; log {}",
                err_path.display()
            ),
        );
    }
    Ok(outcome)
}

fn lost_bytes(log: &str, what: &str) -> Option<u64> {
    // "==123==    definitely lost: 1,234 bytes in 5 blocks"
    let line = log.lines().find(|l| l.contains(what))?;
    let after = line.split(what).nth(1)?.trim();
    let number: String = after
        .split_whitespace()
        .next()?
        .chars()
        .filter(|c| c.is_ascii_digit())
        .collect();
    number.parse().ok()
}

fn run_valgrind_child(t: &Target, logs: &Path, o: &RunOptions, cycles: usize) -> Result<Outcome> {
    let exe = std::env::current_exe()?;
    let base = format!("{}-{}-valgrind", t.version.prefix(), t.model);
    let (out_path, err_path) = (
        logs.join(format!("{base}.out")),
        logs.join(format!("{base}.err")),
    );
    let mut cmd = Command::new("valgrind");
    cmd.args([
        "--tool=memcheck",
        "--leak-check=full",
        "--errors-for-leak-kinds=definite,indirect",
        "--error-exitcode=97",
    ])
    .arg(exe)
    .arg("cycles")
    .arg("--dir")
    .arg(&t.dir)
    .args(["--cycles", &cycles.to_string()])
    .args(["--inject-leak", &o.inject_leak.to_string()]);
    let (exit, _) = run_with_timeout(cmd, &out_path, &err_path, Duration::from_secs(o.timeout))?;
    let log = std::fs::read_to_string(&err_path).unwrap_or_default();
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let mut outcome = Outcome::default();
    let cat = "valgrind";
    let ran = stdout.contains("cycles ok");
    let leak_case =
        format!("{cycles} life cycles under memcheck: 0 bytes definitely or indirectly lost");
    let error_case = format!(
        "{cycles} life cycles under memcheck: no invalid reads/writes/frees, no uninitialised values"
    );
    if !ran {
        let why = exit.clone().unwrap_or_else(|| "did not finish".into());
        let tail: Vec<&str> = log.lines().rev().take(3).collect();
        outcome.fail(
            cat,
            leak_case,
            format!("the cycles did not complete ({why}): {}", tail.join(" | ")),
        );
        outcome.fail(cat, error_case, format!("see {}", err_path.display()));
        return Ok(outcome);
    }
    let all_freed = log.contains("All heap blocks were freed");
    let definite = if all_freed {
        Some(0)
    } else {
        lost_bytes(&log, "definitely lost:")
    };
    let indirect = if all_freed {
        Some(0)
    } else {
        lost_bytes(&log, "indirectly lost:")
    };
    match (definite, indirect) {
        (Some(0), Some(0)) => outcome.pass(cat),
        (Some(d), Some(i)) => outcome.fail(
            cat,
            leak_case,
            format!(
                "{d} bytes definitely and {i} bytes indirectly lost (see {})",
                err_path.display()
            ),
        ),
        _ => outcome.fail(
            cat,
            leak_case,
            format!(
                "no leak summary in the valgrind output ({})",
                err_path.display()
            ),
        ),
    }
    let kinds = [
        "Invalid read",
        "Invalid write",
        "Invalid free",
        "Mismatched free",
        "uninitialised",
        "Uninitialised",
    ];
    let errors: usize = log
        .lines()
        .filter(|l| kinds.iter().any(|k| l.contains(k)))
        .count();
    if errors == 0 && log.contains("ERROR SUMMARY") {
        outcome.pass(cat);
    } else {
        outcome.fail(
            cat,
            error_case,
            format!("{errors} memory error reports (see {})", err_path.display()),
        );
    }
    Ok(outcome)
}

fn valgrind_available() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn run_parent(mut o: RunOptions) -> Result<i32> {
    let started = Instant::now();
    if o.quick {
        o.flip_sample = o.flip_sample.min(200);
        o.random_buffers = o.random_buffers.min(8);
        o.concurrency_steps = o.concurrency_steps.min(50);
        o.rss_cycles = o.rss_cycles.min(500);
        o.cycles = o.cycles.min(5);
    }
    let root = workspace_root();
    let dist = o.dist.clone().unwrap_or_else(|| root.join("dist"));
    let out = o
        .out
        .clone()
        .unwrap_or_else(|| root.join("target").join("reliability"));
    let unpacked = out.join("unpacked");
    let logs = out.join("logs");
    for d in [&unpacked, &logs] {
        if d.exists() {
            std::fs::remove_dir_all(d).with_context(|| format!("cannot empty {}", d.display()))?;
        }
        std::fs::create_dir_all(d)?;
    }
    let mut targets = Vec::new();
    for version in FmiVersion::ALL {
        let number = if version == FmiVersion::Fmi2 { 2 } else { 3 };
        if !o.versions.contains(&number) {
            continue;
        }
        for (model, fmu) in crate::dist_fmus(&dist, version)? {
            let dir = unpacked.join(version.dist_folder()).join(&model);
            extract_fmu(&fmu, &dir)?;
            if o.fmus.is_empty() || o.fmus.iter().any(|f| f == &model) {
                targets.push(Target {
                    version,
                    model,
                    dir,
                });
            }
        }
    }
    if targets.is_empty() {
        bail!(
            "no FMU matches (dist {}, --fmus {:?})",
            dist.display(),
            o.fmus
        );
    }
    let valgrind = !o.no_valgrind && valgrind_available();
    let mut jobs: Vec<Job> = targets.iter().cloned().map(Job::Main).collect();
    if !o.no_valgrind {
        jobs.extend(targets.iter().cloned().map(Job::Valgrind));
    }
    let n_jobs = o
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1);
    println!(
        "reliability: {} FMUs x versions, {} child processes, {n_jobs} at a time{}",
        targets.len(),
        jobs.len(),
        if o.no_valgrind {
            " (valgrind skipped)"
        } else {
            ""
        }
    );
    let total_jobs = jobs.len();
    let queue = Mutex::new(jobs.into_iter().enumerate().collect::<Vec<_>>());
    let results: Mutex<Vec<(String, Outcome)>> = Mutex::new(Vec::new());
    let finished = Mutex::new(0usize);
    std::thread::scope(|scope| {
        for _ in 0..n_jobs {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().map(|mut q| if q.is_empty() { None } else { Some(q.remove(0)) });
                    let Ok(Some((_, job))) = next else {
                        break;
                    };
                    let t0 = Instant::now();
                    let (target, kind, outcome) = match &job {
                        Job::Main(t) => (t, "checks", run_main_child(t, &unpacked, &logs, &o)),
                        Job::Valgrind(t) => (
                            t,
                            "valgrind",
                            if valgrind {
                                run_valgrind_child(t, &logs, &o, o.cycles)
                            } else {
                                let mut oc = Outcome::default();
                                oc.fail(
                                    "valgrind",
                                    "valgrind memcheck",
                                    "valgrind is not installed (apt-get install valgrind, or pass --no-valgrind)",
                                );
                                Ok(oc)
                            },
                        ),
                    };
                    let outcome = outcome.unwrap_or_else(|e| {
                        let mut oc = Outcome::default();
                        oc.fail(if kind == "valgrind" { "valgrind" } else { "setters" }, "running the child", format!("{e:#}"));
                        oc
                    });
                    let cases: usize = outcome.counts.values().map(|c| c.0).sum();
                    let passed: usize = outcome.counts.values().map(|c| c.1).sum();
                    let n = finished.lock().map(|mut f| {
                        *f += 1;
                        *f
                    });
                    println!(
                        "[{:>2}/{total_jobs}] {:<26} {:<8} {:>6} cases, {:>4} failed  ({:.1} s)",
                        n.unwrap_or(0),
                        target.label(),
                        kind,
                        cases,
                        cases - passed,
                        t0.elapsed().as_secs_f64()
                    );
                    if let Ok(mut r) = results.lock() {
                        r.push((target.label(), outcome));
                    }
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_default();
    // Merge the two jobs of each target.
    let mut per_target: BTreeMap<String, Outcome> = BTreeMap::new();
    for (label, oc) in results {
        let e = per_target.entry(label).or_default();
        for (cat, (c, p)) in oc.counts {
            e.add(&cat, c, p);
        }
        e.failures.extend(oc.failures);
        e.infos.extend(oc.infos);
    }
    let order: Vec<String> = targets.iter().map(|t| t.label()).collect();
    let code = print_summary(&order, &per_target, &out, o.show, started.elapsed())?;
    // The unpacked FMUs (about 300 MB) stay only where a check failed.
    if code == 0 && !o.keep_unpacked {
        std::fs::remove_dir_all(&unpacked)
            .with_context(|| format!("cannot remove {}", unpacked.display()))?;
        println!(
            "removed the unpacked FMUs ({}; --keep-unpacked keeps them)",
            unpacked.display()
        );
    }
    Ok(code)
}

fn print_summary(
    order: &[String],
    per_target: &BTreeMap<String, Outcome>,
    out: &Path,
    show: usize,
    elapsed: Duration,
) -> Result<i32> {
    let short = [
        "setters", "states", "null", "vr/type", "doStep", "serial", "forged", "threads", "valgrd",
        "RSS",
    ];
    println!("\nper FMU and FMI version: passed/cases per category");
    print!("{:<26}", "FMU");
    for s in short {
        print!(" {s:>11}");
    }
    println!(" {:>13}", "failed");
    let mut totals: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut all_failures = Vec::new();
    for label in order {
        let Some(oc) = per_target.get(label) else {
            continue;
        };
        print!("{label:<26}");
        let mut failed = 0;
        for cat in CATEGORIES {
            let (c, p) = oc.counts.get(cat).copied().unwrap_or_default();
            let t = totals.entry(cat).or_default();
            t.0 += c;
            t.1 += p;
            failed += c - p;
            if c == 0 {
                print!(" {:>11}", "-");
            } else {
                print!(" {:>11}", format!("{p}/{c}"));
            }
        }
        println!(" {failed:>13}");
        for (cat, case, why) in &oc.failures {
            all_failures.push(format!("{label} | {cat} | {case} | {why}"));
        }
    }
    println!("\ntotal per category");
    println!(
        "{:<20} {:>8} {:>8} {:>8}",
        "category", "cases", "passed", "failed"
    );
    let (mut tc, mut tp) = (0, 0);
    for cat in CATEGORIES {
        let (c, p) = totals.get(cat).copied().unwrap_or_default();
        tc += c;
        tp += p;
        println!("{cat:<20} {c:>8} {p:>8} {:>8}", c - p);
    }
    println!("{:<20} {tc:>8} {tp:>8} {:>8}", "total", tc - tp);

    let infos: Vec<String> = order
        .iter()
        .filter_map(|l| per_target.get(l).map(|o| (l, o)))
        .flat_map(|(l, o)| o.infos.iter().map(move |(c, r)| format!("{l}: {c}: {r}")))
        .collect();
    if !infos.is_empty() {
        println!("\nrecorded outcomes (no verdict): forged states accepted");
        for i in &infos {
            println!("  {i}");
        }
    }
    std::fs::create_dir_all(out)?;
    let list = out.join("failures.txt");
    let mut text = String::from("FMU | category | case | why\n");
    for f in &all_failures {
        text.push_str(f);
        text.push('\n');
    }
    text.push_str("\nrecorded outcomes (no verdict):\n");
    for i in &infos {
        text.push_str(i);
        text.push('\n');
    }
    std::fs::write(&list, text)?;
    if !all_failures.is_empty() {
        println!("\nfailures (FMU | category | case | why):");
        for f in all_failures.iter().take(show) {
            println!("  {f}");
        }
        if all_failures.len() > show {
            println!("  ... and {} more", all_failures.len() - show);
        }
        println!("full list: {}", list.display());
    }
    println!("\nwall time: {:.1} s", elapsed.as_secs_f64());
    println!("reliability: {tp} passed, {} failed", tc - tp);
    Ok(if tc == tp { 0 } else { 1 })
}
