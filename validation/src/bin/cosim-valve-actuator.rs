//! Co-simulation of the ValveActuator FMU with the SlidingMass FMU (issue 4,
//! point 3): a Jacobi master loop exchanges the rod position and velocity
//! and the cylinder force at every communication point, and the result is
//! compared with the monolithic ValveCylinder FMU on the same scenario.
//!
//! Writes, per scenario, a CSV of the monolithic and the coupled traces and
//! (with the project's Python venv) a PNG that overlays them.
//!
//! Run: `cargo run --release -p validation --bin cosim-valve-actuator`

use anyhow::Result;
use clap::Parser;
use std::path::PathBuf;
use std::time::Instant;
use validation::fmu3::Fmu3;
use validation::{StepInput, max_abs_error, relative_rms_percent, repo_root};

/// Couple ValveActuator and SlidingMass and compare with ValveCylinder.
#[derive(Parser)]
#[command(about)]
struct Args {
    /// Scenarios of the ValveCylinder model (folders under validation/scenarios/ValveCylinder).
    #[arg(long = "scenario", default_values_t = ["repeatable".to_string(), "random".to_string()])]
    scenarios: Vec<String>,
    /// Communication steps of the coupled run, s.
    #[arg(long = "step", default_values_t = [1e-3, 1e-4])]
    steps: Vec<f64>,
    /// Folder with the FMI 3 FMUs.
    #[arg(long, default_value = "dist/fmi3")]
    dist: PathBuf,
    /// Folder for the traces (<scenario>.csv) and plots (<scenario>.png).
    #[arg(long, default_value = "target/cosim")]
    out: PathBuf,
    /// Do not draw the PNG plots.
    #[arg(long)]
    no_plot: bool,
}

const SIGNALS: [&str; 5] = ["x", "v", "p1", "p2", "pv"];

/// Runs the monolithic ValveCylinder at step `h`, sampling every `sample` s.
fn monolithic(
    fmu: &Fmu3,
    input: &StepInput,
    stop: f64,
    h: f64,
    sample: f64,
) -> Result<Vec<Vec<f64>>> {
    let mut inst = fmu.instantiate("monolithic")?;
    inst.set("U", input.at(0, 0.0))?;
    inst.initialize(stop)?;
    let vrs: Vec<u32> = SIGNALS.iter().map(|s| fmu.vr(s)).collect::<Result<_>>()?;
    let u = fmu.vr("U")?;
    let n = (stop / h).round() as usize;
    let every = (sample / h).round() as usize;
    let mut out = vec![Vec::new(); SIGNALS.len()];
    for k in 0..=n {
        if k % every == 0 {
            for (o, &vr) in out.iter_mut().zip(&vrs) {
                o.push(inst.get_vr(vr)?);
            }
        }
        if k == n {
            break;
        }
        let t = k as f64 * h;
        inst.set_vr(u, input.at(0, t))?;
        anyhow::ensure!(
            inst.do_step(t, h) == 0,
            "ValveCylinder doStep failed at {t}"
        );
    }
    Ok(out)
}

/// Runs ValveActuator + SlidingMass with a Jacobi exchange at step `h`.
fn coupled(
    act: &Fmu3,
    mass: &Fmu3,
    input: &StepInput,
    stop: f64,
    h: f64,
    sample: f64,
) -> Result<Vec<Vec<f64>>> {
    let mut a = act.instantiate("actuator")?;
    let mut m = mass.instantiate("mass")?;
    let (a_u, a_x, a_v, a_f) = (act.vr("U")?, act.vr("x")?, act.vr("v")?, act.vr("F")?);
    let (m_f, m_x, m_v) = (mass.vr("F")?, mass.vr("x")?, mass.vr("v")?);
    let (a_p1, a_p2, a_pv) = (act.vr("p1")?, act.vr("p2")?, act.vr("pv")?);
    // Same initial position in both halves.
    let x0 = mass
        .description
        .variable_by_name("x_0")
        .and_then(|v| v.start)
        .unwrap_or(1.0);
    a.set_vr(a_x, x0)?;
    a.set_vr(a_u, input.at(0, 0.0))?;
    a.initialize(stop)?;
    m.initialize(stop)?;
    let n = (stop / h).round() as usize;
    let every = (sample / h).round() as usize;
    let mut out = vec![Vec::new(); SIGNALS.len()];
    for k in 0..=n {
        let (x, v) = (m.get_vr(m_x)?, m.get_vr(m_v)?);
        if k % every == 0 {
            let row = [x, v, a.get_vr(a_p1)?, a.get_vr(a_p2)?, a.get_vr(a_pv)?];
            for (o, val) in out.iter_mut().zip(row) {
                o.push(val);
            }
        }
        if k == n {
            break;
        }
        let t = k as f64 * h;
        // Jacobi exchange: both FMUs see the other's outputs at t.
        let force = a.get_vr(a_f)?;
        a.set_vr(a_u, input.at(0, t))?;
        a.set_vr(a_x, x)?;
        a.set_vr(a_v, v)?;
        m.set_vr(m_f, force)?;
        anyhow::ensure!(a.do_step(t, h) == 0, "ValveActuator doStep failed at {t}");
        anyhow::ensure!(m.do_step(t, h) == 0, "SlidingMass doStep failed at {t}");
    }
    Ok(out)
}

fn main() -> Result<()> {
    let args = Args::parse();
    let root = repo_root();
    let dist = if args.dist.is_absolute() {
        args.dist.clone()
    } else {
        root.join(&args.dist)
    };
    let out = if args.out.is_absolute() {
        args.out.clone()
    } else {
        root.join(&args.out)
    };
    std::fs::create_dir_all(&out)?;
    let cyl = Fmu3::load(&dist.join("ValveCylinder.fmu"))?;
    let act = Fmu3::load(&dist.join("ValveActuator.fmu"))?;
    let mass = Fmu3::load(&dist.join("SlidingMass.fmu"))?;
    println!(
        "ValveActuator + SlidingMass (Jacobi coupling) vs the monolithic ValveCylinder (1e-4 s steps)"
    );
    println!(
        "relative RMS difference in % (max abs difference in SI units), sampled every 10 ms\n"
    );
    print!("{:<12} {:>9} {:>8}", "scenario", "step [s]", "wall [s]");
    for s in SIGNALS {
        print!(" {:>22}", s);
    }
    println!();
    for scenario in &args.scenarios {
        let folder = root
            .join("validation/scenarios/ValveCylinder")
            .join(scenario);
        let input = StepInput::read_csv(&folder.join("ValveCylinder_in.csv"))?;
        let opt = std::fs::read_to_string(folder.join("ValveCylinder_ref.opt"))?;
        let stop = opt
            .lines()
            .find_map(|l| l.strip_prefix("StopTime,").map(|v| v.trim().parse::<f64>()))
            .unwrap_or(Ok(10.0))?;
        let sample = 1e-2;
        let truth = monolithic(&cyl, &input, stop, 1e-4, sample)?;
        let mut header = vec!["time".to_string()];
        header.extend(SIGNALS.iter().map(|s| format!("{s}_monolithic")));
        let mut columns: Vec<Vec<f64>> =
            vec![(0..truth[0].len()).map(|k| k as f64 * sample).collect()];
        columns.extend(truth.iter().cloned());
        for &h in &args.steps {
            let started = Instant::now();
            let run = coupled(&act, &mass, &input, stop, h, sample)?;
            header.extend(SIGNALS.iter().map(|s| format!("{s}_coupled_{h:e}")));
            columns.extend(run.iter().cloned());
            let wall = started.elapsed().as_secs_f64();
            print!("{:<12} {:>9.0e} {:>8.2}", scenario, h, wall);
            for i in 0..SIGNALS.len() {
                let cell = format!(
                    "{:.3} ({:.2e})",
                    relative_rms_percent(&run[i], &truth[i]),
                    max_abs_error(&run[i], &truth[i])
                );
                print!(" {cell:>22}");
            }
            println!();
        }
        let csv_path = out.join(format!("{scenario}.csv"));
        write_columns(&csv_path, &header, &columns)?;
        if !args.no_plot {
            plot(&root, &csv_path, scenario)?;
        }
    }
    println!("\ntraces (and plots) in {}", out.display());
    Ok(())
}

/// Writes equal-length columns as CSV (SI units).
fn write_columns(path: &std::path::Path, header: &[String], columns: &[Vec<f64>]) -> Result<()> {
    use std::fmt::Write as _;
    let rows = columns.iter().map(Vec::len).min().unwrap_or(0);
    let mut text = header.join(",");
    text.push('\n');
    for r in 0..rows {
        let row: Vec<String> = columns.iter().map(|c| format!("{:e}", c[r])).collect();
        writeln!(text, "{}", row.join(","))?;
    }
    std::fs::write(path, text)?;
    Ok(())
}

/// Overlays the monolithic and the coupled traces in a PNG (display units)
/// with the project's Python venv, when it exists.
fn plot(root: &std::path::Path, csv_path: &std::path::Path, scenario: &str) -> Result<()> {
    let python = root.join("target/venv/bin/python");
    if !python.exists() {
        eprintln!("note: no target/venv: PNG skipped (run tests/run-all.sh once to create it)");
        return Ok(());
    }
    let png = csv_path.with_extension("png");
    let title =
        format!("ValveActuator + SlidingMass (Jacobi) vs ValveCylinder, scenario '{scenario}'");
    let status = std::process::Command::new(python)
        .arg(root.join("validation/python/plot_cosim.py"))
        .arg(csv_path)
        .arg(&png)
        .arg(title)
        .status()?;
    if status.success() {
        println!("plot -> {}", png.display());
    } else {
        eprintln!("warning: the plot failed ({status})");
    }
    Ok(())
}
