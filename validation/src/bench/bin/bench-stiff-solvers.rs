//! Our Rodas3 (and our real-time ROS34PW2, solver = 4) against another
//! Rust stiff solver, the BDF of diffsol, on the same equations: the
//! ValveCylinder model (its rates and analytic Jacobian) called in process,
//! no FMI in between, on the random scenario of the model description
//! (50 s). Measured side by side in one run.
//!
//! Two settings:
//! - *free running*: outputs every 5 ms, the command U changes every 0.5 s
//!   and each solver restarts there (diffsol: a new problem from the current
//!   state; Rodas3: its step size carries on);
//! - *co-simulation*: every 1 ms is a communication point at which the input
//!   may change, so diffsol's BDF, which keeps a multistep history, restarts
//!   at each one, while Rodas3 (one-step) only carries its step size, as it
//!   does inside the FMUs.
//!
//! Where diffsol's Newton iteration gives up (the model's right-hand side
//! has kinks: valve deadband, compensator clamp, end stops), the run
//! restarts from the last state it reached; the restarts are counted.
//!
//! Run: `cargo run --release -p validation --features diffsol --bin bench-stiff-solvers`

use anyhow::{Context, Result, anyhow, bail};
use clap::Parser;
use diffsol::{NalgebraLU, NalgebraMat, OdeBuilder, OdeSolverMethod};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::solver::{Carried, Stats, advance};
use fmu_core::{Method, Model, SolverSettings, WithInputs};
use std::cell::{Cell, RefCell};
use std::time::Instant;
use validation::{StepInput, Trace, relative_rms_percent, repo_root};
use valve_drive::valve_cylinder::{Inputs, NX, ValveCylinder, state};
use valve_drive::{CarriageStates, DriveStates};

/// Rodas3 vs diffsol's BDF on the ValveCylinder equations, in process.
#[derive(Parser)]
#[command(about)]
struct Args {
    /// Scenario folder under validation/scenarios/ValveCylinder.
    #[arg(long, default_value = "random")]
    scenario: String,
    /// Rounds over all rows; each row shows its fastest round.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

/// Output interval of the free-running rows, s (the reference grid).
const OUTPUT: f64 = 5e-3;
/// Communication step of the co-simulation rows, s.
const COMM: f64 = 1e-3;
/// Compared signals and their state indices.
const SIGNALS: [(&str, usize); 3] = [
    ("x", state::carriage.index(CarriageStates::x)),
    ("p1", state::drive.index(DriveStates::p1)),
    ("pv", state::drive.index(DriveStates::pv)),
];

#[derive(Clone, Copy)]
enum Solver {
    Rodas3,
    /// Our real-time adaptive integrator (solver = 4): ROS34PW2 keeping
    /// its Jacobian and LU factors.
    Ros34pw2,
    DiffsolBdf,
}

struct Row {
    label: &'static str,
    solver: Solver,
    rtol: f64,
    /// Interval between solver restarts (input may change), s.
    restart: f64,
}

#[derive(Default)]
struct Outcome {
    wall: f64,
    steps: u64,
    rhs: u64,
    jacobians: u64,
    failures: u64,
    samples: Vec<SVector<f64, NX>>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let folder = repo_root()
        .join("validation/scenarios/ValveCylinder")
        .join(&args.scenario);
    let input = StepInput::read_csv(&folder.join("ValveCylinder_in.csv"))?;
    let reference = Trace::read_csv(&folder.join("ValveCylinder_ref.csv"))?;
    let stop = *reference.time.last().context("empty reference")?;
    let grid = reference.time[1] - reference.time[0];
    if (grid - OUTPUT).abs() > 1e-12 {
        bail!("the reference grid is {grid} s; these rows sample every {OUTPUT} s");
    }
    let model = fmu_core::default_model::<ValveCylinder, NX>().map_err(|e| anyhow!(e))?;
    let rows = [
        Row {
            label: "Rodas3 (ours)",
            solver: Solver::Rodas3,
            rtol: 1e-6,
            restart: 0.5,
        },
        Row {
            label: "Rodas3 (ours)",
            solver: Solver::Rodas3,
            rtol: 1e-4,
            restart: 0.5,
        },
        Row {
            label: "diffsol BDF",
            solver: Solver::DiffsolBdf,
            rtol: 1e-6,
            restart: 0.5,
        },
        Row {
            label: "diffsol BDF",
            solver: Solver::DiffsolBdf,
            rtol: 1e-4,
            restart: 0.5,
        },
        Row {
            label: "Rodas3 (ours)",
            solver: Solver::Rodas3,
            rtol: 1e-6,
            restart: COMM,
        },
        Row {
            label: "diffsol BDF",
            solver: Solver::DiffsolBdf,
            rtol: 1e-6,
            restart: COMM,
        },
        Row {
            label: "ROS34PW2 (ours)",
            solver: Solver::Ros34pw2,
            rtol: 1e-6,
            restart: COMM,
        },
        Row {
            label: "Rodas3 (ours)",
            solver: Solver::Rodas3,
            rtol: 1e-3,
            restart: COMM,
        },
        Row {
            label: "ROS34PW2 (ours)",
            solver: Solver::Ros34pw2,
            rtol: 1e-3,
            restart: COMM,
        },
    ];
    println!(
        "ValveCylinder equations in process (no FMI), scenario '{}' ({stop} s), atol = rtol x nominal per \
         state,\noutputs every {} ms; error: relative RMS % against the SciPy reference; wall: fastest of {} \
         round(s)",
        args.scenario,
        OUTPUT * 1e3,
        args.repeat
    );
    let mut best: Vec<Option<Outcome>> = rows.iter().map(|_| None).collect();
    for round in 0..args.repeat {
        eprint!("\rround {}/{}", round + 1, args.repeat);
        for (row, slot) in rows.iter().zip(best.iter_mut()) {
            let o = match row.solver {
                Solver::Rodas3 | Solver::Ros34pw2 => rodas3(&model, &input, stop, row)?,
                Solver::DiffsolBdf => diffsol_bdf(&model, &input, stop, row)?,
            };
            if slot.as_ref().is_none_or(|b| o.wall < b.wall) {
                *slot = Some(o);
            }
        }
    }
    eprintln!();
    print!(
        "{:<15} {:>6} {:>14} {:>8} {:>10} {:>8} {:>10} {:>9} {:>9}",
        "solver",
        "rtol",
        "restarts every",
        "wall [s]",
        "x realtime",
        "steps",
        "rhs evals",
        "Jacobians",
        "failures"
    );
    for (name, _) in SIGNALS {
        print!(" {:>9}", format!("{name} %"));
    }
    println!();
    for (row, o) in rows.iter().zip(best) {
        let o = o.expect("at least one round");
        let restart = if row.restart < 0.1 {
            format!("{} ms (comm)", row.restart * 1e3)
        } else {
            format!("{} s (U)", row.restart)
        };
        print!(
            "{:<15} {:>6.0e} {:>14} {:>8.3} {:>10.0} {:>8} {:>10} {:>9} {:>9}",
            row.label,
            row.rtol,
            restart,
            o.wall,
            stop / o.wall,
            o.steps,
            o.rhs,
            o.jacobians,
            o.failures
        );
        for (name, index) in SIGNALS {
            let result: Vec<f64> = o.samples.iter().map(|s| s[index]).collect();
            let expected = reference.signal(name).context("reference signal")?;
            let n = result.len().min(expected.len());
            print!(
                " {:>9.2e}",
                relative_rms_percent(&result[..n], &expected[..n])
            );
        }
        println!();
    }
    println!(
        "\nfailures: times diffsol's step failed (Newton) and the run restarted from the last state it reached."
    );
    Ok(())
}

/// Number of whole `part` intervals in `total`.
fn count(total: f64, part: f64) -> usize {
    (total / part).round() as usize
}

/// Rodas3 (or ROS34PW2) as in the FMUs: `advance` over each output
/// interval (or each communication step), the step size (and ROS34PW2's
/// Jacobian and factors) carried throughout.
fn rodas3(
    (model, inputs): &(ValveCylinder, Inputs),
    input: &StepInput,
    stop: f64,
    row: &Row,
) -> Result<Outcome> {
    let settings = SolverSettings {
        method: match row.solver {
            Solver::Ros34pw2 => Method::RosenbrockW,
            _ => Method::Rodas3,
        },
        rtol: row.rtol,
        atol: row.rtol,
        ..Default::default()
    };
    let mut u = inputs.clone();
    let mut x = model.initial_state(&u);
    let mut carried = Carried::prepared();
    let mut stats = Stats::default();
    let interval = row.restart.min(OUTPUT);
    let per_output = count(OUTPUT, interval);
    let mut samples = Vec::with_capacity(count(stop, OUTPUT) + 1);
    samples.push(x);
    let event_indicator_count = ValveCylinder::event_indicators().len();
    let started = Instant::now();
    for k in 0..count(stop, interval) {
        u.U = input.at(0, k as f64 * interval);
        let system = WithInputs {
            model,
            inputs: &u,
            event_indicator_count,
        };
        advance(
            &system,
            &mut x,
            interval,
            &settings,
            &mut carried,
            &mut stats,
        )
        .map_err(|e| anyhow!("{} at t = {} s: {e}", row.label, k as f64 * interval))?;
        if (k + 1) % per_output == 0 {
            samples.push(x);
        }
    }
    Ok(Outcome {
        wall: started.elapsed().as_secs_f64(),
        steps: stats.accepted,
        rhs: stats.rhs_evals,
        jacobians: stats.jacobian_evals,
        failures: 0,
        samples,
    })
}

/// diffsol's BDF with the model's right-hand side and its analytic Jacobian
/// (as Jacobian-vector products; the Jacobian is evaluated once per state
/// diffsol asks about). A new problem starts at every restart time from the
/// state reached, and after a failed step from the last state reached.
fn diffsol_bdf(
    (model, inputs): &(ValveCylinder, Inputs),
    input: &StepInput,
    stop: f64,
    row: &Row,
) -> Result<Outcome> {
    type M = NalgebraMat<f64>;
    type Ls = NalgebraLU<f64>;
    let nominal = model.nominal();
    let atol: Vec<f64> = nominal.iter().map(|n| row.rtol * n).collect();
    let rhs_evals = Cell::new(0u64);
    let jacobians = Cell::new(0u64);
    let mut x = model.initial_state(inputs);
    let mut samples = Vec::with_capacity(count(stop, OUTPUT) + 1);
    samples.push(x);
    let (mut steps, mut failures) = (0u64, 0u64);
    // Sample times (every OUTPUT) and restart times (every row.restart) in
    // one ordered list of stops: (time, is a sample, is a restart).
    let n_out = count(stop, OUTPUT);
    let n_restart = count(stop, row.restart);
    let mut stops: Vec<(f64, bool, bool)> = (1..=n_out)
        .map(|k| (k as f64 * OUTPUT, true, false))
        .chain((1..n_restart).map(|k| (k as f64 * row.restart, false, true)))
        .collect();
    stops.sort_by(|a, b| a.0.total_cmp(&b.0));
    stops.dedup_by(|b, a| {
        let same = (a.0 - b.0).abs() < 1e-9;
        if same {
            a.1 |= b.1;
            a.2 |= b.2;
        }
        same
    });
    let started = Instant::now();
    let mut t = 0.0;
    let mut next = 0; // index into stops
    while next < stops.len() {
        let u = Inputs { U: input.at(0, t) };
        let x0 = x;
        let cache: RefCell<Option<(SVector<f64, NX>, SMatrix<f64, NX, NX>)>> = RefCell::new(None);
        let problem = OdeBuilder::<M>::new()
            .t0(t)
            .rtol(row.rtol)
            .atol(atol.clone())
            .rhs_implicit(
                |xs, _p, _t, y| {
                    rhs_evals.set(rhs_evals.get() + 1);
                    let f = model.rates(&u, &SVector::from_fn(|i, _| xs[i]));
                    for i in 0..NX {
                        y[i] = f[i];
                    }
                },
                |xs, _p, _t, v, y| {
                    let s = SVector::<f64, NX>::from_fn(|i, _| xs[i]);
                    let mut c = cache.borrow_mut();
                    if c.as_ref().is_none_or(|(at, _)| *at != s) {
                        jacobians.set(jacobians.get() + 1);
                        let mut j = SMatrix::zeros();
                        model.rates_and_jacobian(&u, &s, &mut j);
                        *c = Some((s, j));
                    }
                    let j = &c.as_ref().expect("just set").1;
                    for r in 0..NX {
                        y[r] = (0..NX).map(|col| j[(r, col)] * v[col]).sum();
                    }
                },
            )
            .init(
                move |_p, _t, y| {
                    for i in 0..NX {
                        y[i] = x0[i];
                    }
                },
                NX,
            )
            .build()
            .map_err(|e| anyhow!("diffsol problem at t = {t} s: {e}"))?;
        let mut solver = problem
            .bdf::<Ls>()
            .map_err(|e| anyhow!("diffsol BDF at t = {t} s: {e}"))?;
        let mut failed = false;
        while next < stops.len() {
            let (t_stop, sample, restart) = stops[next];
            while solver.state().t < t_stop {
                if solver.step().is_err() {
                    failures += 1;
                    if failures > 10_000 {
                        bail!("diffsol BDF: more than 10000 failed steps");
                    }
                    let state = solver.state();
                    t = state.t;
                    for i in 0..NX {
                        x[i] = state.y[i];
                    }
                    failed = true;
                    break;
                }
                steps += 1;
            }
            if failed {
                break;
            }
            let y = solver
                .interpolate(t_stop)
                .map_err(|e| anyhow!("diffsol interpolation at {t_stop} s: {e}"))?;
            let state = SVector::<f64, NX>::from_fn(|i, _| y[i]);
            if sample {
                samples.push(state);
            }
            next += 1;
            if restart {
                t = t_stop;
                x = state;
                break;
            }
        }
    }
    Ok(Outcome {
        wall: started.elapsed().as_secs_f64(),
        steps,
        rhs: rhs_evals.get(),
        jacobians: jacobians.get(),
        failures,
        samples,
    })
}
