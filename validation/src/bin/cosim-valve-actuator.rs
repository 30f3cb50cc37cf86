//! Co-simulation of the ValveActuator FMU with the SlidingMass FMU: a
//! Jacobi master loop exchanges the rod position and velocity and the
//! cylinder force at every communication point, and the result is compared
//! with the monolithic ValveCylinder FMU on the same scenario.
//!
//! Prints the coupling error per signal (relative RMS in %, largest
//! difference in the signal's display unit: mm, mm/s, bar) and writes, per
//! scenario, a CSV of the monolithic and the coupled traces (SI units, the
//! unit in each column header) and a PNG that overlays them in display
//! units with the difference underneath.
//!
//! Run: `cargo run --release -p validation --bin cosim-valve-actuator`

use anyhow::Result;
use clap::Parser;
use std::path::PathBuf;
use std::time::Instant;
use validation::fmu3::Fmu3;
use validation::plot::{Corner, Curve, Figure, LegendEntry, Panel, Scale, draw_png};
use validation::units::{DisplayUnit, number, significant};
use validation::{Inputs, Scenario, max_abs_error, relative_rms_percent, repo_root};

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
fn monolithic(fmu: &Fmu3, input: &Inputs, stop: f64, h: f64, sample: f64) -> Result<Vec<Vec<f64>>> {
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
    input: &Inputs,
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

/// One coupled run at a communication step.
struct CoupledRun {
    /// Communication step, s.
    step: f64,
    /// One trace per signal of [`SIGNALS`], SI.
    traces: Vec<Vec<f64>>,
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
    let units: Vec<DisplayUnit> = SIGNALS
        .iter()
        .map(|s| DisplayUnit::of(&cyl.description, s))
        .collect();
    let sample = 1e-2;
    println!(
        "ValveActuator + SlidingMass (Jacobi coupling) vs the monolithic ValveCylinder (1e-4 s steps)"
    );
    println!(
        "per signal: relative RMS difference [%] and largest difference [display unit], sampled \
         every {} ms\n",
        sample * 1e3
    );
    print!("{:<12} {:>9} {:>8}", "scenario", "step [s]", "wall [s]");
    for (s, u) in SIGNALS.iter().zip(&units) {
        print!(
            " {:>10} {:>12}",
            format!("{s} RMS [%]"),
            format!("{s} max [{}]", u.name)
        );
    }
    println!();
    let mut written = Vec::new();
    for scenario in &args.scenarios {
        let spec = Scenario::named("ValveCylinder", scenario)?;
        let input = &spec.inputs;
        let stop = spec.options.stop_time;
        let truth = monolithic(&cyl, input, stop, 1e-4, sample)?;
        let mut runs = Vec::new();
        for &h in &args.steps {
            let started = Instant::now();
            let traces = coupled(&act, &mass, input, stop, h, sample)?;
            let wall = started.elapsed().as_secs_f64();
            print!("{:<12} {:>9.0e} {:>8.2}", scenario, h, wall);
            for ((run, reference), unit) in traces.iter().zip(&truth).zip(&units) {
                print!(
                    " {:>10} {:>12}",
                    significant(relative_rms_percent(run, reference), 3),
                    significant(unit.delta(max_abs_error(run, reference)), 3)
                );
            }
            println!();
            runs.push(CoupledRun { step: h, traces });
        }
        let time: Vec<f64> = (0..truth[0].len()).map(|k| k as f64 * sample).collect();
        let csv_path = out.join(format!("{scenario}.csv"));
        write_traces(&csv_path, &cyl, &time, &truth, &runs)?;
        written.push(csv_path.clone());
        if !args.no_plot {
            let png = csv_path.with_extension("png");
            let figure = figure(scenario, &units, &time, &truth, &runs);
            match draw_png(&figure, &png) {
                Ok(()) => written.push(png),
                Err(e) => eprintln!("note: no plot ({e:#})"),
            }
        }
    }
    println!();
    for path in written {
        println!("-> {}", path.display());
    }
    Ok(())
}

/// Writes the traces as CSV in SI units, the unit in each header:
/// `time [s]`, `<signal> monolithic [<unit>]`, `<signal> coupled <h> s [<unit>]`.
fn write_traces(
    path: &std::path::Path,
    fmu: &Fmu3,
    time: &[f64],
    truth: &[Vec<f64>],
    runs: &[CoupledRun],
) -> Result<()> {
    use std::fmt::Write as _;
    let si = |s: &str| {
        fmu.description
            .variable_by_name(s)
            .and_then(|v| v.unit.clone())
            .unwrap_or_else(|| "1".into())
    };
    let mut header = vec!["time [s]".to_string()];
    let mut columns: Vec<&[f64]> = vec![time];
    for (s, trace) in SIGNALS.iter().zip(truth) {
        header.push(format!("{s} monolithic [{}]", si(s)));
        columns.push(trace);
    }
    for run in runs {
        for (s, trace) in SIGNALS.iter().zip(&run.traces) {
            header.push(format!("{s} coupled {:e} s [{}]", run.step, si(s)));
            columns.push(trace);
        }
    }
    let rows = columns.iter().map(|c| c.len()).min().unwrap_or(0);
    let mut text = header.join(",");
    text.push('\n');
    for r in 0..rows {
        let row: Vec<String> = columns.iter().map(|c| format!("{:e}", c[r])).collect();
        writeln!(text, "{}", row.join(","))?;
    }
    std::fs::write(path, text)?;
    Ok(())
}

/// Per signal, the monolithic and coupled traces (left) and the coupling
/// difference (right), in display units.
fn figure(
    scenario: &str,
    units: &[DisplayUnit],
    time: &[f64],
    truth: &[Vec<f64>],
    runs: &[CoupledRun],
) -> Figure {
    let mut panels = Vec::new();
    for (i, (name, unit)) in SIGNALS.iter().zip(units).enumerate() {
        let shown = |trace: &[f64]| trace.iter().map(|&v| unit.value(v)).collect::<Vec<_>>();
        let mut traces = vec![Curve {
            label: String::new(),
            x: time.to_vec(),
            y: shown(&truth[i]),
            color: 5,
            dashed: false,
        }];
        let mut differences = Vec::new();
        for (k, run) in runs.iter().enumerate() {
            traces.push(Curve {
                label: String::new(),
                x: time.to_vec(),
                y: shown(&run.traces[i]),
                color: k,
                dashed: true,
            });
            differences.push(Curve {
                label: String::new(),
                x: time.to_vec(),
                y: run.traces[i]
                    .iter()
                    .zip(&truth[i])
                    .map(|(a, b)| unit.delta(a - b))
                    .collect(),
                color: k,
                dashed: false,
            });
        }
        let last = i + 1 == SIGNALS.len();
        let x_label = if last { "time [s]" } else { "" }.to_string();
        panels.push(Panel {
            legend_at: Corner::UpperLeft,
            caption: format!("{name} [{}]", unit.name),
            y_label: format!("{name} [{}]", unit.name),
            y_scale: Scale::Linear,
            x_label: x_label.clone(),
            x_scale: Scale::Linear,
            curves: traces,
        });
        panels.push(Panel {
            legend_at: Corner::UpperLeft,
            caption: format!("{name}: coupled - monolithic [{}]", unit.name),
            y_label: format!("difference [{}]", unit.name),
            y_scale: Scale::Linear,
            x_label,
            x_scale: Scale::Linear,
            curves: differences,
        });
    }
    let mut legend = vec![LegendEntry {
        label: "ValveCylinder (monolithic, 0.1 ms steps)".into(),
        color: 5,
        dashed: false,
    }];
    for (k, run) in runs.iter().enumerate() {
        legend.push(LegendEntry {
            label: format!("coupled, exchange every {} ms", number(run.step * 1e3)),
            color: k,
            dashed: true,
        });
    }
    Figure {
        title: format!(
            "ValveActuator + SlidingMass (Jacobi coupling) vs monolithic ValveCylinder, scenario '{scenario}'"
        ),
        legend,
        columns: 2,
        width: 1500,
        row_height: 270,
        panels,
    }
}
