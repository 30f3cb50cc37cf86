//! Benchmark of the ValveCylinder FMU, measured side by side in one run
//! through the packaged FMU's FMI 3 functions: our integrator at a 1 ms
//! communication step (stiff small volume, and the quasi-static
//! small-volume option), the real-time integrators (ROS34PW2 reusing its
//! Jacobian and LU, the fixed-cost Rodas3 at 1 and 3 substeps per step),
//! explicit RK4 at 1e-5 s (the paper's reference step) and explicit Euler
//! at the steps the model description names, on the same equations; wall
//! time, real-time factor, right-hand-side evaluations, doStep latency and
//! the error against the SciPy reference. `bench-realtime` has the
//! real-time rows of every circuit, with pinned latencies.
//!
//! The status column says whether a row's figures describe a valid solution
//! (`validation::bench`): non-finite values, a rod outside its stroke (1 cm
//! of stop penetration allowed), a pressure below -1 bar or above twice the
//! supply pressure, or a final value farther from the reference's final
//! value than the scenario's max_abs bound of that signal, are reported.
//!
//! Run: `cargo run --release -p validation --bin bench-valve-cylinder`

use anyhow::{Context, Result};
use clap::Parser;
use std::path::PathBuf;
use validation::bench::{
    Expectation, Status, Target, TimedRun, common_grid, fastest_of, relative_errors, timed_steps,
};
use validation::cosim::in_repo;
use validation::fmi::fmu3::Fmu3;
use validation::harness::units::DisplayUnit;
use validation::{Inputs, Scenario, Trace};

/// Benchmark ValveCylinder integrators side by side.
#[derive(Parser)]
#[command(about)]
struct Args {
    /// Scenarios (folders under validation/scenarios/ValveCylinder).
    #[arg(long = "scenario", default_values_t = ["random".to_string(), "repeatable".to_string()])]
    scenarios: Vec<String>,
    /// The FMI 3 FMU to measure.
    #[arg(long, default_value = "dist/fmi3/ValveCylinder.fmu")]
    fmu: PathBuf,
    /// Skip the slow explicit runs at 1e-5 s.
    #[arg(long)]
    quick: bool,
    /// Rounds over all configurations; the table shows each one's fastest
    /// run (the least disturbed by other work on the machine) and its
    /// doStep latencies.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

struct Config {
    label: &'static str,
    solver: i32,
    explicit_step: f64,
    quasi_static: bool,
    comm_step: f64,
    rtol: f64,
}

const SIGNALS: [&str; 5] = ["x", "v", "p1", "p2", "pv"];

struct Outcome {
    run: TimedRun,
    errors: Vec<f64>,
    status: Status,
}

/// What every run must do, per signal of [`SIGNALS`]: its physical range
/// and the reference's final value within the scenario's max_abs bound.
fn expectations(fmu: &Fmu3, scenario: &Scenario, reference: &Trace) -> Result<Vec<Expectation>> {
    let start = |name: &str| {
        fmu.description
            .variable_by_name(name)
            .and_then(|v| v.start)
            .with_context(|| format!("the FMU has no start value of `{name}`"))
    };
    let (ps, stroke) = (start("ps")?, start("Sc")?);
    SIGNALS
        .iter()
        .map(|&name| {
            let range = match name {
                "x" => (-0.01, stroke + 0.01),
                "v" => (f64::NEG_INFINITY, f64::INFINITY),
                _ => (-1e5, 2.0 * ps),
            };
            let values = reference.require(name)?;
            let bounds = scenario
                .bounds(name)
                .with_context(|| format!("{}: no bounds for `{name}`", scenario.key()))?;
            Ok(Expectation {
                name: name.to_string(),
                unit: DisplayUnit::of(&fmu.description, name),
                range,
                target: values.last().map(|&value| Target {
                    value,
                    tolerance: bounds.max_abs,
                    source: "reference".into(),
                }),
            })
        })
        .collect()
}

fn run(
    fmu: &Fmu3,
    c: &Config,
    input: &Inputs,
    reference: &Trace,
    stop: f64,
    expect: &[Expectation],
) -> Result<Outcome> {
    let mut inst = fmu.instantiate("bench")?;
    inst.set_int("solver", c.solver)?;
    inst.set_bool("quasi_static", c.quasi_static)?;
    inst.set("U", input.at(0, 0.0))?;
    inst.initialize(stop)?;
    inst.set("explicit_step", c.explicit_step)?;
    // The fixed-cost rows take their substeps from explicit_step.
    inst.set_int(
        "fixed_substeps",
        (c.comm_step / c.explicit_step).round().max(1.0) as i32,
    )?;
    inst.set("rtol", c.rtol)?;
    let vrs: Vec<u32> = SIGNALS.iter().map(|s| fmu.vr(s)).collect::<Result<_>>()?;
    // Compare at the reference grid points that are communication points.
    let (every, stride) = common_grid(c.comm_step, reference.time[1] - reference.time[0]);
    let run = timed_steps(
        &mut inst,
        fmu.vr("U")?,
        |t| input.at(0, t),
        c.comm_step,
        stop,
        &vrs,
        every,
    )?;
    Ok(Outcome {
        errors: relative_errors(reference, &SIGNALS, &run.samples, stride)?,
        status: run.status(expect),
        run,
    })
}

fn main() -> Result<()> {
    let args = Args::parse();
    let path = in_repo(&args.fmu);
    let fmu = Fmu3::load(&path)?;
    let rodas = |label, quasi_static, comm_step, rtol| Config {
        label,
        solver: 1,
        explicit_step: 1e-4,
        quasi_static,
        comm_step,
        rtol,
    };
    let explicit = |label, solver, explicit_step, quasi_static| Config {
        label,
        solver,
        explicit_step,
        quasi_static,
        comm_step: 1e-3,
        rtol: 1e-6,
    };
    // The real-time integrators (solver = 4: ROS34PW2 reusing its Jacobian
    // and LU; 5: fixed cost, its substep given as explicit_step, from
    // which `run` sets fixed_substeps).
    let realtime = |label, solver, rtol, substeps: u32| Config {
        label,
        solver,
        explicit_step: 1e-3 / f64::from(substeps),
        quasi_static: false,
        comm_step: 1e-3,
        rtol,
    };
    let mut configs = vec![
        rodas("Rodas3, 1 ms", false, 1e-3, 1e-6),
        rodas("Rodas3 rtol 1e-4", false, 1e-3, 1e-4),
        rodas("Rodas3 rtol 1e-3", false, 1e-3, 1e-3),
        rodas("Rodas3 QS pv, 1 ms", true, 1e-3, 1e-6),
        rodas("Rodas3, 10 ms", false, 1e-2, 1e-6),
        rodas("Rodas3 1e-4, 10 ms", false, 1e-2, 1e-4),
        realtime("ROS34PW2 reuse", 4, 1e-6, 1),
        realtime("ROS34PW2 reuse 1e-3", 4, 1e-3, 1),
        realtime("fixed-cost x1", 5, 1e-6, 1),
        realtime("fixed-cost x3", 5, 1e-6, 3),
        explicit("Euler 1e-3 s", 2, 1e-3, false),
        explicit("Euler 5e-4 s", 2, 5e-4, false),
        explicit("Euler 1e-4 s", 2, 1e-4, false),
        explicit("RK4 1e-4 s", 3, 1e-4, false),
    ];
    if !args.quick {
        configs.push(explicit("RK4 1e-5 s", 3, 1e-5, false));
        configs.push(explicit("RK4 1e-5 s QS pv", 3, 1e-5, true));
    }
    for scenario in &args.scenarios {
        let spec = Scenario::named("ValveCylinder", scenario)?;
        let input = &spec.inputs;
        let reference = spec.read_reference()?;
        let stop = *reference.time.last().context("empty reference")?;
        let expect = expectations(&fmu, &spec, &reference)?;
        println!(
            "\nValveCylinder, scenario '{scenario}' ({stop} s), through fmi3DoStep of {}",
            path.display()
        );
        println!(
            "error: relative RMS % against the SciPy reference on its grid; wall: fastest of {} run(s)",
            args.repeat
        );
        println!(
            "status: ok, or FAILED / DIVERGED / OUT OF RANGE / WRONG END VALUE (vs the reference's \
             final {}, tolerance the scenario's max_abs)",
            expect
                .iter()
                .filter_map(|e| e.target.as_ref().map(|t| format!(
                    "{} = {}",
                    e.name,
                    e.unit.show(t.value)
                )))
                .collect::<Vec<_>>()
                .join(", ")
        );
        print!(
            "{:<20} {:>8} {:>10} {:>8} {:>11} {:>9}",
            "integrator", "wall [s]", "x realtime", "vs Rodas3", "rhs evals", "substeps"
        );
        for s in SIGNALS {
            print!(" {:>9}", format!("{s} [%]"));
        }
        println!(" {:>10} {:>10}  status", "worst [us]", "p99.9 [us]");
        let best = fastest_of(
            args.repeat,
            &configs,
            |c| run(&fmu, c, input, &reference, stop, &expect),
            |o| o.run.wall,
        )?;
        let mut base = None;
        for (c, o) in configs.iter().zip(best) {
            let (r, n) = (&o.run, &o.run.counts);
            let base_wall = *base.get_or_insert(r.wall);
            print!(
                "{:<20} {:>8.3} {:>10.0} {:>8.1}x {:>11.0} {:>9.0}",
                c.label,
                r.wall,
                stop / r.wall,
                r.wall / base_wall,
                n.rhs_evals,
                n.steps
            );
            for e in &o.errors {
                print!(" {:>9.2e}", e);
            }
            println!(
                " {:>10.1} {:>10.1}  {}{}",
                r.latency.worst * 1e6,
                r.latency.p999 * 1e6,
                o.status.text(),
                if n.rejected > 0.0 {
                    format!(" ({} rejected)", n.rejected)
                } else {
                    String::new()
                }
            );
        }
    }
    Ok(())
}
