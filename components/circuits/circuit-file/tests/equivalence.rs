//! The example description files that write out hand-written circuits
//! (`examples/orifice_chain.toml`, `valve_cylinder.toml`,
//! `lift_actuator.toml`, `hose_h7.toml`) against those circuits' own
//! models (`fmu_core::Model` with their default parameters):
//!
//! (a) the initial state;
//! (b) the rates and the analytic Jacobian at a few hundred states and
//!     inputs spread over the circuit's range, and at the states of the
//!     harness scenario's run, each entry within 1e-12 of its row's scale
//!     (the largest `|J[r, k]| * nominal_k`, or `|f_r|` when larger: the
//!     parts sum a node's flows and chain partial derivatives in another
//!     order than the hand-written equations, so a rate that is a small
//!     difference of large flows differs by rounding of those flows);
//! (c) the outputs at those states, each within 1e-12 of its magnitude
//!     (or of the largest magnitude of that output over the points, for
//!     one that passes through zero);
//! (d) the trajectory of the harness scenario's input sequence
//!     (`validation/scenarios/<model>/<scenario>/`, inputs held over each
//!     communication step, the masters' rule): the hand-written model in
//!     an FMU instance driven in process ([`fmu_core::testing::TestMaster`],
//!     Rodas3 at its default tolerances), the file's circuit in the same
//!     integrator through [`FileSystem`]; every output within 1e-9
//!     relative RMS (the RMS of the difference over the mean magnitude of
//!     the hand-written trace, the harness's measure).
//!
//! The integrator's absolute tolerance scales with each state's nominal
//! value, and the parts carry their own nominal values (a chamber's
//! pressure 1e7 Pa, the hand-written chambers 1e6 Pa): the integration of
//! (d) uses the hand-written model's nominal values for both, so that the
//! two runs take the same substeps and differ only by the rounding of the
//! equations. The same run with the parts' own nominal values (what an
//! engine FMU integrating the assembly uses) is measured and printed, not
//! held to a bound: it differs at the integrator's tolerance, more where a
//! part's nominal value does not fit the circuit (the spool's 10 V for the
//! lift's spool travel in m).

use circuit_file::Circuit;
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::solver::{self, Carried, OdeSystem, SolverSettings, Stats};
use fmu_core::table::{OutputRecord, Role};
use fmu_core::testing::TestMaster;
use fmu_core::{Model, Record};

/// Reads an example file.
fn example(name: &str) -> Circuit {
    let path = format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    circuit_file::read(&text, name).unwrap_or_else(|d| {
        panic!(
            "{}",
            d.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

/// The file's circuit as the integrators see it, with inputs `u` held and
/// the nominal values `nominal`.
struct FileSystem<'a, const K: usize> {
    circuit: &'a Circuit,
    u: Vec<f64>,
    nominal: SVector<f64, K>,
}

impl<const K: usize> OdeSystem<K> for FileSystem<'_, K> {
    fn rates(&self, x: &SVector<f64, K>) -> SVector<f64, K> {
        self.circuit.assembly.rates(&self.u, x)
    }

    fn rates_and_jacobian(
        &self,
        x: &SVector<f64, K>,
        j: &mut SMatrix<f64, K, K>,
    ) -> (SVector<f64, K>, bool) {
        self.circuit.assembly.rates_and_jacobian(&self.u, x, j)
    }

    fn nominal(&self) -> SVector<f64, K> {
        self.nominal
    }
}

/// A harness scenario: the inputs (in the table's order) from each
/// communication step on, the step and the number of steps.
struct Scenario {
    /// (first step index, input values from it on).
    inputs: Vec<(usize, Vec<f64>)>,
    step: f64,
    steps: usize,
}

impl Scenario {
    fn inputs_at(&self, k: usize) -> &[f64] {
        &self
            .inputs
            .iter()
            .rev()
            .find(|(from, _)| *from <= k)
            .expect("inputs from step 0")
            .1
    }
}

/// What one comparison measured.
#[derive(Debug, Default)]
struct Figures {
    /// Largest scaled difference of a rate (over the row's scale).
    rates: f64,
    /// Largest scaled difference of a Jacobian entry.
    jacobian: f64,
    /// Largest relative difference of an output.
    outputs: f64,
    /// Per output: relative RMS of the trajectories, hand-written nominal
    /// values.
    rms: Vec<(String, f64)>,
    /// The same with the parts' own nominal values.
    rms_own_nominal: Vec<(String, f64)>,
    points: usize,
}

/// The hand-written model `m` (states `N`, the first `K` in use) against
/// the file's circuit `c` (states `K`, the same order), at the states
/// `samples` (with their inputs) and along `scenario`; `set` names the
/// parameters the scenario sets on the hand-written FMU beside its
/// defaults (the file writes them out).
fn compare<M: Model<N>, const N: usize, const K: usize>(
    m: &M,
    c: &Circuit,
    samples: &[(SVector<f64, K>, Vec<f64>)],
    scenario: &Scenario,
    set: &[(&str, f64)],
) -> Figures {
    assert_eq!(c.assembly.state_count(), K);
    assert!(
        m.active_states() == K,
        "the hand-written model uses {} states",
        m.active_states()
    );
    // The same inputs, outputs and experiment.
    let rows = M::rows();
    let inputs: Vec<_> = rows.iter().filter(|r| r.role == Role::Input).collect();
    let outputs: Vec<_> = rows
        .iter()
        .filter(|r| matches!(r.role, Role::Output { .. }))
        .collect();
    assert_eq!(
        inputs
            .iter()
            .map(|r| (r.name, r.unit.unwrap_or("1"), r.start))
            .collect::<Vec<_>>(),
        c.inputs
            .iter()
            .map(|i| (i.name.as_str(), i.unit.as_str(), i.start))
            .collect::<Vec<_>>(),
        "inputs"
    );
    assert_eq!(
        outputs
            .iter()
            .map(|r| (r.name, r.unit.unwrap_or("1")))
            .collect::<Vec<_>>(),
        c.outputs
            .iter()
            .map(|o| (o.name.as_str(), o.unit.as_str()))
            .collect::<Vec<_>>(),
        "outputs"
    );
    for (r, o) in outputs.iter().zip(&c.outputs) {
        let shown = o.display_unit.as_ref().map(|d| d.name.as_str());
        assert_eq!(r.display_unit, shown, "display unit of {}", r.name);
    }
    for (r, i) in inputs.iter().zip(&c.inputs) {
        let shown = i.display_unit.as_ref().map(|d| d.name.as_str());
        assert_eq!(r.display_unit, shown, "display unit of {}", r.name);
    }
    assert_eq!(c.experiment.stop_time, Some(M::info().stop_time));
    assert_eq!(c.experiment.step_size, Some(M::info().step_size));
    assert_eq!(c.experiment.tolerance, Some(SolverSettings::default().rtol));
    assert_ne!(c.name, M::info().name, "the model identifiers must differ");

    let widen = |x: &SVector<f64, K>| {
        let mut y = SVector::<f64, N>::zeros();
        y.fixed_rows_mut::<K>(0).copy_from(x);
        y
    };
    let mut fig = Figures::default();

    // (a) The initial state, at the inputs' start values.
    let u0 = c.input_starts();
    let x0_model = m.initial_state(&M::Inputs::from_values(&u0));
    let x0_file = c.assembly.initial::<K>(&u0);
    for k in 0..K {
        let (a, b) = (x0_model[k], x0_file[k]);
        assert!(
            (a - b).abs() <= 1e-12 * a.abs().max(b.abs()),
            "initial state {}: {a} (hand-written) against {b} (file)",
            c.assembly.state_names()[k]
        );
    }
    assert!(x0_model.rows(K, N - K).iter().all(|v| *v == 0.0));

    // (b), (c) at the samples and along the scenario's run.
    let nominal = m.nominal();
    let mut master = TestMaster::<M, N>::new();
    for (name, v) in set {
        master.set(name, *v).unwrap();
    }
    let names: Vec<&str> = c.inputs.iter().map(|i| i.name.as_str()).collect();
    let set_inputs = |master: &mut TestMaster<M, N>, u: &[f64]| {
        for (name, v) in names.iter().zip(u) {
            master.set(name, *v).unwrap();
        }
    };
    set_inputs(&mut master, scenario.inputs_at(0));
    master.enter_initialization().unwrap();
    master.exit_initialization().unwrap();
    let own_nominal = SVector::<f64, K>::from_column_slice(c.assembly.nominal());
    let mut file_runs = [
        (
            SVector::<f64, K>::from_fn(|k, _| nominal[k]),
            x0_file,
            Carried::prepared(),
        ),
        (own_nominal, x0_file, Carried::prepared()),
    ];
    let settings = SolverSettings::default();
    let mut stats = Stats::default();
    let ny = c.outputs.len();
    let mut traces = [vec![0.0; ny], vec![0.0; ny], vec![0.0; ny]];
    let mut sums = [vec![0.0; ny], vec![0.0; ny], vec![0.0; ny]];
    let mut points: Vec<(SVector<f64, K>, Vec<f64>)> = samples.to_vec();
    for k in 0..=scenario.steps {
        let u = scenario.inputs_at(k).to_vec();
        if k > 0 {
            // Step k - 1 -> k with the inputs of step k - 1.
            let u_prev = scenario.inputs_at(k - 1).to_vec();
            set_inputs(&mut master, &u_prev);
            master.step(scenario.step).unwrap();
            for (nom, x, carried) in file_runs.iter_mut() {
                let sys = FileSystem {
                    circuit: c,
                    u: u_prev.clone(),
                    nominal: *nom,
                };
                solver::advance(&sys, x, scenario.step, &settings, carried, &mut stats).unwrap();
                carried.steady = true;
            }
        }
        // The outputs at this communication point, the inputs of the
        // step before it (what a master reads after doStep).
        let u_out = scenario.inputs_at(k.saturating_sub(1)).to_vec();
        let x_model = master.instance().states();
        let y_model: Vec<f64> = {
            let all = m.all_outputs(&M::Inputs::from_values(&u_out), &x_model);
            (0..ny).map(|i| all.get(i)).collect()
        };
        for (run, (_, x, _)) in file_runs.iter().enumerate() {
            let mut y = vec![0.0; ny];
            c.output_values(&u_out, x.as_slice(), &mut y);
            for i in 0..ny {
                traces[run][i] += (y[i] - y_model[i]).powi(2);
            }
        }
        for i in 0..ny {
            sums[0][i] += y_model[i].abs();
        }
        if k % 10 == 0 {
            points.push((x_model.fixed_rows::<K>(0).into_owned(), u));
        }
    }
    let count = (scenario.steps + 1) as f64;
    for (run, list) in [&mut fig.rms, &mut fig.rms_own_nominal]
        .into_iter()
        .enumerate()
    {
        for (i, o) in c.outputs.iter().enumerate() {
            let mean = sums[0][i] / count;
            let rms = (traces[run][i] / count).sqrt();
            list.push((o.name.clone(), if mean > 0.0 { rms / mean } else { rms }));
        }
    }

    // Output magnitudes over the points, for outputs passing through 0.
    let mut largest = vec![0.0f64; ny];
    let model_outputs = |x: &SVector<f64, K>, u: &[f64]| {
        let all = m.all_outputs(&M::Inputs::from_values(u), &widen(x));
        (0..ny).map(|i| all.get(i)).collect::<Vec<f64>>()
    };
    for (x, u) in &points {
        for (l, y) in largest.iter_mut().zip(model_outputs(x, u)) {
            *l = l.max(y.abs());
        }
    }
    let mut problems = Vec::new();
    for (x, u) in &points {
        let xm = widen(x);
        let um = M::Inputs::from_values(u);
        let mut jm = SMatrix::<f64, N, N>::zeros();
        let (fm, analytic) = m.rates_and_jacobian(&um, &xm, &mut jm);
        assert!(analytic);
        assert_eq!(fm, m.rates(&um, &xm));
        let mut jf = SMatrix::<f64, K, K>::zeros();
        let (ff, _) = c.assembly.rates_and_jacobian(u, x, &mut jf);
        assert_eq!(ff, c.assembly.rates(u, x));
        for r in 0..K {
            let scale = (0..K)
                .map(|k| (jm[(r, k)] * nominal[k]).abs())
                .fold(fm[r].abs(), f64::max)
                .max(f64::MIN_POSITIVE);
            let d = (fm[r] - ff[r]).abs() / scale;
            fig.rates = fig.rates.max(d);
            if d > 1e-12 {
                problems.push(format!(
                    "rate of {} at {x:?}, u = {u:?}: {} against {}",
                    c.assembly.state_names()[r],
                    fm[r],
                    ff[r]
                ));
            }
            for k in 0..K {
                let d = ((jm[(r, k)] - jf[(r, k)]) * nominal[k]).abs() / scale;
                fig.jacobian = fig.jacobian.max(d);
                if d > 1e-12 {
                    problems.push(format!(
                        "J[{}, {}] at {x:?}, u = {u:?}: {} against {}",
                        c.assembly.state_names()[r],
                        c.assembly.state_names()[k],
                        jm[(r, k)],
                        jf[(r, k)]
                    ));
                }
            }
        }
        let ym = model_outputs(x, u);
        let mut yf = vec![0.0; ny];
        c.output_values(u, x.as_slice(), &mut yf);
        for i in 0..ny {
            let scale = ym[i].abs().max(yf[i].abs()).max(1e-9 * largest[i]);
            let d = if scale > 0.0 {
                (ym[i] - yf[i]).abs() / scale
            } else {
                0.0
            };
            fig.outputs = fig.outputs.max(d);
            if d > 1e-12 {
                problems.push(format!(
                    "output {} at {x:?}, u = {u:?}: {} against {}",
                    c.outputs[i].name, ym[i], yf[i]
                ));
            }
        }
    }
    fig.points = points.len();
    problems.truncate(20);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    println!("{}: {fig:#?}", c.name);
    for (name, rms) in &fig.rms {
        assert!(*rms <= 1e-9, "{name}: relative RMS {rms:e}");
    }
    fig
}

/// `count` states and inputs from the boxes `[lo, hi]` (states) and
/// `[u_lo, u_hi]` (inputs), from a fixed seed.
fn spread<const K: usize>(
    lo: [f64; K],
    hi: [f64; K],
    u_lo: &[f64],
    u_hi: &[f64],
    count: usize,
) -> Vec<(SVector<f64, K>, Vec<f64>)> {
    let states = fmu_core::testing::sample_states(&lo, &hi, count);
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    states
        .into_iter()
        .map(|x| {
            let u = u_lo
                .iter()
                .zip(u_hi)
                .map(|(a, b)| a + (b - a) * next())
                .collect();
            (x, u)
        })
        .collect()
}

/// OrificeChain, scenario `OrificeChain/startup`: ps = 10 MPa, pt = 0
/// from p1 = p2 = 0, 5 s at 1 ms.
#[test]
fn orifice_chain_file_is_the_hand_written_circuit() {
    use orifice_circuit::OrificeChain;
    let (m, _) = fmu_core::default_model::<OrificeChain, 2>().unwrap();
    let c = example("orifice_chain.toml");
    let samples = spread(
        [-1e5, -1e5],
        [1.2e7, 1.2e7],
        &[0.0, -1e5],
        &[1.5e7, 2e6],
        300,
    );
    let scenario = Scenario {
        inputs: vec![(0, vec![1e7, 0.0])],
        step: 1e-3,
        steps: 5000,
    };
    compare::<OrificeChain, 2, 2>(&m, &c, &samples, &scenario, &[]);
}

/// ValveCylinder, scenario `ValveCylinder/repeatable`: U = -6 V for the
/// first half and +9 V for the second half of each 2.5 s period, 10 s at
/// 1 ms, from the model description's initial state (on the upper stop).
#[test]
fn valve_cylinder_file_is_the_hand_written_circuit() {
    use valve_drive::ValveCylinder;
    let (m, _) = fmu_core::default_model::<ValveCylinder, 9>().unwrap();
    let c = example("valve_cylinder.toml");
    let samples = spread(
        [-9.0, -2e3, 0.0, 1e5, 1e5, 1e5, -1e-4, -0.3, -2e-4],
        [9.0, 2e3, 5e-8, 1.4e7, 1.4e7, 1.4e7, 1.0001, 0.3, 2e-4],
        &[-10.0],
        &[10.0],
        300,
    );
    let mut inputs = Vec::new();
    for period in 0..4 {
        inputs.push((period * 2500, vec![-6.0]));
        inputs.push((period * 2500 + 1250, vec![9.0]));
    }
    let scenario = Scenario {
        inputs,
        step: 1e-3,
        steps: 10_000,
    };
    compare::<ValveCylinder, 9, 9>(&m, &c, &samples, &scenario, &[]);
}

/// LiftActuator, scenario `LiftActuator/lift_100kg`: u = 0 until 1 s,
/// then 1; F_ext = 0; 5 s at 1 ms from the load at rest at x_p = 0.
#[test]
fn lift_actuator_file_is_the_hand_written_circuit() {
    use lift_circuit::LiftActuator;
    let (m, _) = fmu_core::default_model::<LiftActuator, 6>().unwrap();
    let c = example("lift_actuator.toml");
    let samples = spread(
        [-0.009, -2.0, 1e5, 1e5, -1e-4, -4.0],
        [0.009, 2.0, 7.6e6, 7.6e6, 1.0001, 4.5],
        &[-1.0, -2e3],
        &[1.0, 2e3],
        300,
    );
    let scenario = Scenario {
        inputs: vec![(0, vec![0.0, 0.0]), (1000, vec![1.0, 0.0])],
        step: 1e-3,
        steps: 5000,
    };
    compare::<LiftActuator, 6, 6>(&m, &c, &samples, &scenario, &[]);
}

/// HoseH with n = 7, scenario `HoseH/step_n7`: n = 7 and b = 0 on the
/// hand-written FMU (the file writes them out), Q1 = 5e-4 m3/s, p2 steps
/// from 1e7 Pa to 1.1e7 Pa at t = 0.01 s, 0.2 s at 1e-4 s from the steady
/// state of the start values. The hose part carries the hand-written
/// FMU's nominal values (1e6 Pa, 1e-4 m3/s), so the run with the part's
/// own nominal values is the same run and held to the same bound.
#[test]
fn hose_h7_file_is_the_hand_written_hose() {
    use fmu_core::{Context, ResourceFolder, Table};
    use hose_line::{HoseH, NX};
    let set = [("n", 7.0), ("b", 0.0)];
    let mut rows = Vec::new();
    <HoseH as Table>::Params::rows(&mut rows);
    let mut values: Vec<f64> = rows.iter().map(|r| r.start).collect();
    for (name, v) in set {
        let at = rows.iter().position(|r| r.name == name).unwrap();
        values[at] = v;
    }
    let params = <HoseH as Table>::Params::from_values(&values);
    let none = ResourceFolder::Unavailable("no resource folder in process".into());
    let m = HoseH::configure(&params, &Context::new(&none)).unwrap();
    let c = example("hose_h7.toml");
    let names: Vec<String> = (1..=7)
        .map(|k| format!("hose.p{k}"))
        .chain((1..=7).map(|k| format!("hose.q{k}")))
        .collect();
    assert_eq!(c.assembly.state_names(), names.as_slice());
    let nominal = m.nominal();
    assert_eq!(c.assembly.nominal(), &nominal.as_slice()[..14]);
    let mut lo = [9e6; 14];
    let mut hi = [1.3e7; 14];
    for k in 7..14 {
        (lo[k], hi[k]) = (-1e-3, 2e-3);
    }
    let samples = spread(lo, hi, &[-1e-3, 5e6], &[2e-3, 1.5e7], 300);
    let scenario = Scenario {
        inputs: vec![(0, vec![5e-4, 1e7]), (100, vec![5e-4, 1.1e7])],
        step: 1e-4,
        steps: 2000,
    };
    let fig = compare::<HoseH, NX, 14>(&m, &c, &samples, &scenario, &set);
    for (name, rms) in &fig.rms_own_nominal {
        assert!(*rms <= 1e-9, "{name}, the part's nominal values: {rms:e}");
    }
}
