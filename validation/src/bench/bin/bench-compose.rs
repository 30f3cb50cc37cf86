//! What a circuit composed from parts with ports costs beside the same
//! equations written out by hand, measured side by side in one run.
//!
//! For each circuit that has both forms (its `Model` and its `assembly()`,
//! which the circuit's tests prove bit-identical), the benchmark evaluates
//! the rates, and the rates with the Jacobian, at the same sampled states
//! and inputs, alternating the two forms round by round, and prints the
//! median time per evaluation and the ratio composed / written. The ratio
//! is what matters (it is machine-independent to first order); it is what a
//! circuit pays for being assembled at run time from a description instead
//! of being written in Rust.
//!
//! The rows marked "file" measure a circuit's description file (the
//! examples of `components/circuits/circuit-file/examples/`, the
//! composition an engine FMU runs) beside the written-out circuit it
//! reproduces, at the same states and inputs.
//!
//! Run: `cargo run --release -p validation --bin bench-compose`

use clap::Parser;
use fmu_core::Model;
use fmu_core::compose::Assembly;
use fmu_core::nalgebra::{SMatrix, SVector};
use std::hint::black_box;
use std::time::Instant;

/// Measure composed circuits against their written-out equations.
#[derive(Parser)]
#[command(about)]
struct Args {
    /// Rounds per measurement (the median is printed).
    #[arg(long, default_value_t = 31)]
    rounds: usize,
    /// Sampled states per round.
    #[arg(long, default_value_t = 2000)]
    states: usize,
}

/// One circuit's figures: nanoseconds per evaluation.
struct Row {
    circuit: &'static str,
    states: usize,
    parts: usize,
    rates: (f64, f64),
    jacobian: (f64, f64),
}

/// Reads the example description file `name`.
fn example(name: &str) -> Result<circuit_file::Circuit, String> {
    let path = format!(
        "{}/../components/circuits/circuit-file/examples/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    circuit_file::read(&text, name).map_err(|d| {
        d.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Nanoseconds per evaluation of `f` over `states`.
fn per_evaluation<T>(states: &[T], mut f: impl FnMut(&T)) -> f64 {
    let start = Instant::now();
    for x in states {
        f(x);
    }
    start.elapsed().as_nanos() as f64 / states.len() as f64
}

/// Times the model `m` (inputs `u`) and its assembly `a` (inputs
/// `u_values`) at `states`, the two forms alternating round by round.
fn measure<M: Model<N>, const N: usize>(
    circuit: &'static str,
    m: &M,
    u: &M::Inputs,
    a: &Assembly,
    u_values: &[f64],
    states: &[SVector<f64, N>],
    rounds: usize,
) -> Row {
    let mut t = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    let mut j = SMatrix::<f64, N, N>::zeros();
    for _ in 0..rounds {
        t[0].push(per_evaluation(states, |x| {
            black_box(m.rates(black_box(u), black_box(x)));
        }));
        t[1].push(per_evaluation(states, |x| {
            black_box(a.rates(black_box(u_values), black_box(x)));
        }));
        t[2].push(per_evaluation(states, |x| {
            black_box(m.rates_and_jacobian(black_box(u), black_box(x), &mut j));
        }));
        t[3].push(per_evaluation(states, |x| {
            black_box(a.rates_and_jacobian(black_box(u_values), black_box(x), &mut j));
        }));
    }
    let [r_written, r_composed, j_written, j_composed] = t.map(median);
    Row {
        circuit,
        states: N,
        parts: a.nodes().len().max(1),
        rates: (r_written, r_composed),
        jacobian: (j_written, j_composed),
    }
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    let (rounds, count) = (args.rounds.max(1), args.states.max(1));
    let (mut rows, mut file_rows) = (Vec::new(), Vec::new());
    eprintln!("measuring 8 circuits, {rounds} rounds of {count} states each ...");

    {
        use valve_drive::valve_cylinder::{NX, ValveCylinder};
        let (m, mut u) = fmu_core::default_model::<ValveCylinder, NX>()?;
        u.U = 4.5;
        let states = fmu_core::testing::sample_states(
            &[-10.0, -1e3, 0.0, 0.0, 0.0, 0.0, -1e-3, -0.1, -1e-4],
            &[10.0, 1e3, 6e-8, 1.4e7, 1.4e7, 1.4e7, 1.001, 0.1, 1e-4],
            count,
        );
        let a = m.assembly()?;
        rows.push(measure(
            "ValveCylinder",
            &m,
            &u,
            &a,
            &[u.U],
            &states,
            rounds,
        ));
        let c = example("valve_cylinder.toml")?;
        file_rows.push(measure(
            "ValveCylinder file",
            &m,
            &u,
            &c.assembly,
            &[u.U],
            &states,
            rounds,
        ));
    }
    {
        use valve_drive::valve_actuator::{NX, ValveActuator};
        let (m, mut u) = fmu_core::default_model::<ValveActuator, NX>()?;
        (u.U, u.x, u.v) = (4.5, 0.6, 0.08);
        let states = fmu_core::testing::sample_states(
            &[-10.0, -1e3, 0.0, 0.0, 0.0, 0.0],
            &[10.0, 1e3, 6e-8, 1.4e7, 1.4e7, 1.4e7],
            count,
        );
        let a = m.assembly()?;
        let inputs = [u.U, u.x, u.v];
        rows.push(measure(
            "ValveActuator",
            &m,
            &u,
            &a,
            &inputs,
            &states,
            rounds,
        ));
    }
    {
        use valve_drive::sliding_mass::{NX, SlidingMass};
        let (m, mut u) = fmu_core::default_model::<SlidingMass, NX>()?;
        u.F = 2500.0;
        let states =
            fmu_core::testing::sample_states(&[-1e-3, -0.1, -1e-4], &[1.001, 0.1, 1e-4], count);
        let a = m.assembly()?;
        rows.push(measure("SlidingMass", &m, &u, &a, &[u.F], &states, rounds));
    }
    {
        use lift_circuit::lift_actuator::{LiftActuator, NX};
        let (m, mut u) = fmu_core::default_model::<LiftActuator, NX>()?;
        (u.u, u.F_ext) = (0.6, -1200.0);
        let states = fmu_core::testing::sample_states(
            &[-2e-3, -1.0, -1e5, -1e5, -1e-3, -5.0],
            &[2e-3, 1.0, 2.2e7, 2.2e7, 1.001, 5.0],
            count,
        );
        let a = m.assembly()?;
        let inputs = [u.u, u.F_ext];
        rows.push(measure(
            "LiftActuator",
            &m,
            &u,
            &a,
            &inputs,
            &states,
            rounds,
        ));
        let c = example("lift_actuator.toml")?;
        file_rows.push(measure(
            "LiftActuator file",
            &m,
            &u,
            &c.assembly,
            &inputs,
            &states,
            rounds,
        ));
    }
    {
        use lift_circuit::lift_hydraulics::{LiftHydraulics, NX};
        let (m, mut u) = fmu_core::default_model::<LiftHydraulics, NX>()?;
        (u.u, u.x_p, u.v_p) = (0.6, 0.5, 3.0);
        let states = fmu_core::testing::sample_states(
            &[-2e-3, -1.0, -1e5, -1e5],
            &[2e-3, 1.0, 2.2e7, 2.2e7],
            count,
        );
        let a = m.assembly()?;
        let inputs = [u.u, u.x_p, u.v_p];
        rows.push(measure(
            "LiftHydraulics",
            &m,
            &u,
            &a,
            &inputs,
            &states,
            rounds,
        ));
    }

    // The description files, each beside the circuit it writes out (the
    // valve cylinder's and the lift's rows are measured with theirs above).
    {
        use orifice_circuit::{NX, OrificeChain};
        let (m, mut u) = fmu_core::default_model::<OrificeChain, NX>()?;
        (u.ps, u.pt) = (1e7, 0.0);
        let states = fmu_core::testing::sample_states(&[-1e5, -1e5], &[1.2e7, 1.2e7], count);
        let c = example("orifice_chain.toml")?;
        file_rows.push(measure(
            "OrificeChain file",
            &m,
            &u,
            &c.assembly,
            &[u.ps, u.pt],
            &states,
            rounds,
        ));
    }

    rows.extend(file_rows);
    println!(
        "{:<20} {:>6} {:>6}   {:>10} {:>10} {:>7}   {:>10} {:>10} {:>7}",
        "circuit",
        "states",
        "nodes",
        "rates ns",
        "composed",
        "ratio",
        "rates+J ns",
        "composed",
        "ratio"
    );
    for r in &rows {
        println!(
            "{:<20} {:>6} {:>6}   {:>10.1} {:>10.1} {:>7.2}   {:>10.1} {:>10.1} {:>7.2}",
            r.circuit,
            r.states,
            r.parts,
            r.rates.0,
            r.rates.1,
            r.rates.1 / r.rates.0,
            r.jacobian.0,
            r.jacobian.1,
            r.jacobian.1 / r.jacobian.0
        );
    }
    println!(
        "(written: the circuit's Model; composed: its assembly() of parts with ports, \
         bit-identical results, or for a file row the description file's circuit, the same \
         equations to rounding; median of {rounds} rounds of {count} sampled states)"
    );
    Ok(())
}
