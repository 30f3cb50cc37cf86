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
use validation::cosim::{Comparison, CoupledRun, Reference, Runs, in_repo};
use validation::fmi::fmu3::Fmu3;
use validation::harness::units::number;
use validation::{Inputs, Scenario};

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

fn main() -> Result<()> {
    let args = Args::parse();
    let dist = in_repo(&args.dist);
    let out = in_repo(&args.out);
    std::fs::create_dir_all(&out)?;
    let cyl = Fmu3::load(&dist.join("ValveCylinder.fmu"))?;
    let act = Fmu3::load(&dist.join("ValveActuator.fmu"))?;
    let mass = Fmu3::load(&dist.join("SlidingMass.fmu"))?;
    let comparison = Comparison::new(&cyl, &SIGNALS);
    let sample = 1e-2;
    println!(
        "ValveActuator + SlidingMass (Jacobi coupling) vs the monolithic ValveCylinder (1e-4 s steps)"
    );
    println!(
        "per signal: relative RMS difference [%] and largest difference [display unit], sampled \
         every {} ms\n",
        sample * 1e3
    );
    println!(
        "{}",
        comparison.header(&format!(
            "{:<12} {:>9} {:>8}",
            "scenario", "step [s]", "wall [s]"
        ))
    );
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
            let lead = format!("{:<12} {:>9.0e} {:>8.2}", scenario, h, wall);
            println!("{}", comparison.row(&lead, &traces, &truth));
            runs.push(CoupledRun {
                step: h,
                reference: 0,
                legend: format!("coupled, exchange every {} ms", number(h * 1e3)),
                traces,
            });
        }
        let runs = Runs {
            time: (0..truth[0].len()).map(|k| k as f64 * sample).collect(),
            references: vec![Reference {
                label: "monolithic".into(),
                legend: "ValveCylinder (monolithic, 0.1 ms steps)".into(),
                traces: truth,
            }],
            coupled: runs,
        };
        let title = format!(
            "ValveActuator + SlidingMass (Jacobi coupling) vs monolithic ValveCylinder, scenario '{scenario}'"
        );
        written.extend(comparison.write_files(&out, scenario, title, &runs, args.no_plot)?);
    }
    println!();
    for path in written {
        println!("-> {}", path.display());
    }
    Ok(())
}
