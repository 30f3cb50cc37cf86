//! Test support for circuit crates: checks every circuit should pass,
//! written once.

use crate::instance::ValueType;
use crate::instance::{FmiVersion, Instance};
use crate::logging::Sink;
use crate::model::Model;
use crate::table::{Record, Role};
use crate::{ResourceFolder, Status};

/// Steps a fresh instance of `M` with each integrator (Rodas3, explicit
/// Euler, RK4), setting every input at every communication point, and
/// asserts that `allocations()` (a counter kept by the test binary's global
/// allocator, see [`no_allocation_test!`](crate::no_allocation_test)) does
/// not move during the stepping: no heap allocation in `doStep` or in the
/// input setters.
pub fn check_no_allocation<M: Model<N>, const N: usize>(allocations: impl Fn() -> u64) {
    check_no_allocation_configured::<M, N>(None, &[], allocations);
}

/// [`check_no_allocation`] with the resource folder `resources` and the
/// parameter values `parameters` set before initialization (a trained
/// surrogate chosen, say).
pub fn check_no_allocation_configured<M: Model<N>, const N: usize>(
    resources: Option<&std::path::Path>,
    parameters: &[(&str, f64)],
    allocations: impl Fn() -> u64,
) {
    let desc = crate::checked_description::<M, N>().unwrap_or_else(|e| panic!("{e}"));
    let token = desc.instantiation_token();
    let vr = |name: &str| {
        desc.variable_by_name(name)
            .unwrap_or_else(|| panic!("no variable {name}"))
            .value_reference
    };
    let inputs: Vec<(u32, f64)> = M::rows()
        .iter()
        .enumerate()
        .filter(|(_, r)| r.role == Role::Input)
        .map(|(i, r)| (i as u32 + 1, r.start))
        .collect();
    assert_eq!(inputs.len(), <M::Inputs as Record>::len());
    let (input_vrs, input_values): (Vec<u32>, Vec<f64>) = inputs.into_iter().unzip();
    for (method, steps) in [(1.0, 200), (2.0, 10), (3.0, 10)] {
        let folder = match resources {
            Some(path) => ResourceFolder::Found(path.to_path_buf()),
            None => ResourceFolder::Unavailable("in-process test".into()),
        };
        let mut inst =
            Instance::<M, N>::new(FmiVersion::Fmi2, "t", &token, folder, Sink::None, false)
                .unwrap_or_else(|e| panic!("{e}"));
        let f = "test";
        let set = |inst: &mut Instance<M, N>, name: &str, v: f64, t: ValueType| {
            assert_eq!(
                inst.set_values(f, &[vr(name)], t, |_| v),
                Ok(()),
                "{name} = {v}"
            );
        };
        set(&mut inst, "solver", method, ValueType::Integer);
        set(
            &mut inst,
            "explicit_step",
            M::info().step_size / 20.0,
            ValueType::Real,
        );
        for &(name, value) in parameters {
            let kind = match desc.variable_by_name(name).map(|v| &v.kind) {
                Some(model_description::VariableType::Integer { .. }) => ValueType::Integer,
                Some(model_description::VariableType::Boolean { .. }) => ValueType::Boolean,
                Some(_) => ValueType::Real,
                None => panic!("{}: no parameter {name}", M::info().name),
            };
            set(&mut inst, name, value, kind);
        }
        // The default step, or a whole number of a sampled surrogate's
        // periods.
        let step = match inst.sample_period() {
            Some(period) => (M::info().step_size / period).ceil().max(1.0) * period,
            None => M::info().step_size,
        };
        assert_eq!(inst.setup_experiment(f, None, 0.0, None), Ok(()));
        assert_eq!(inst.enter_initialization_mode(f), Ok(()));
        assert_eq!(inst.exit_initialization_mode(f), Ok(()));
        // Warm up: the first step estimates the initial substep.
        assert_eq!(inst.do_step(f, 0.0, step), Ok(()));
        let before = allocations();
        let mut t = step;
        for _ in 0..steps {
            let set = inst.set_values(f, &input_vrs, ValueType::Real, |i| input_values[i]);
            assert_eq!(set, Ok(()));
            let status = inst.do_step(f, t, step).map_err(|s| s as i32);
            assert!(
                status.is_ok() || status == Err(Status::Discard as i32),
                "method {method}: doStep at {t} s gave {status:?}"
            );
            if status.is_err() {
                break;
            }
            t += step;
        }
        let during = allocations() - before;
        assert_eq!(
            during,
            0,
            "{}: {during} heap allocations in {steps} doSteps with solver = {method} and \
             {parameters:?}",
            M::info().name
        );
    }
    // The counter does count.
    let before = allocations();
    let v: Vec<u8> = std::hint::black_box(Vec::with_capacity(64));
    assert!(
        allocations() > before && v.capacity() >= 64,
        "the allocation counter must count"
    );
}

/// Declares a counting global allocator and a test that runs
/// [`check_no_allocation`] for a circuit: one line in the circuit crate's
/// `tests/no_alloc.rs`, `fmu_core::no_allocation_test!(OrificeChain);`.
/// With `resources = PATH, configurations = [PARAMETERS, ...]` it also runs
/// [`check_no_allocation_configured`] with each list of parameter values
/// (`&[("p2_surrogate", 1.0)]`).
#[macro_export]
macro_rules! no_allocation_test {
    ($model:ty, resources = $res:expr, configurations = [$($params:expr),* $(,)?]) => {
        $crate::no_allocation_test!(@allocator);

        #[test]
        fn do_step_and_input_updates_do_not_allocate() {
            const NX: usize = <$model as $crate::table::Table>::STATES;
            let counter = || ALLOCATIONS.with(|c| c.get());
            $crate::testing::check_no_allocation::<$model, NX>(counter);
            $(
                $crate::testing::check_no_allocation_configured::<$model, NX>(
                    Some($res),
                    $params,
                    counter,
                );
            )*
        }
    };
    ($model:ty) => {
        $crate::no_allocation_test!(@allocator);

        #[test]
        fn do_step_and_input_updates_do_not_allocate() {
            $crate::testing::check_no_allocation::<
                $model,
                { <$model as $crate::table::Table>::STATES },
            >(|| ALLOCATIONS.with(|c| c.get()));
        }
    };
    (@allocator) => {
        struct CountingAllocator;

        thread_local! {
            static ALLOCATIONS: ::std::cell::Cell<u64> = const { ::std::cell::Cell::new(0) };
        }

        // SAFETY: forwards to the system allocator; only counts.
        unsafe impl ::std::alloc::GlobalAlloc for CountingAllocator {
            unsafe fn alloc(&self, layout: ::std::alloc::Layout) -> *mut u8 {
                let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
                // SAFETY: same contract as the caller's.
                unsafe { ::std::alloc::System.alloc(layout) }
            }
            unsafe fn dealloc(&self, ptr: *mut u8, layout: ::std::alloc::Layout) {
                // SAFETY: same contract as the caller's.
                unsafe { ::std::alloc::System.dealloc(ptr, layout) }
            }
            unsafe fn realloc(
                &self,
                ptr: *mut u8,
                layout: ::std::alloc::Layout,
                new_size: usize,
            ) -> *mut u8 {
                let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
                // SAFETY: same contract as the caller's.
                unsafe { ::std::alloc::System.realloc(ptr, layout, new_size) }
            }
        }

        #[global_allocator]
        static GLOBAL: CountingAllocator = CountingAllocator;
    };
}

/// Checks that the circuit's documentation page (its `MODEL.md`) lists
/// every variable of the table in one of its Markdown tables, with the
/// variable's SI unit and display unit in the same row: the page and the
/// table cannot drift apart unnoticed. A row may list several variables
/// (`` `d1`, `d2`, `d3` ``).
pub fn check_documentation<M: crate::Table>() -> Result<(), String> {
    let page = M::info().documentation;
    let table_rows: Vec<&str> = page
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('|'))
        .collect();
    let mut problems = Vec::new();
    for row in M::rows() {
        let tick = format!("`{}`", row.name);
        let first_cell = |l: &&&str| l.split('|').nth(1).is_some_and(|c| c.contains(&tick));
        let Some(line) = table_rows.iter().find(first_cell) else {
            problems.push(format!(
                "'{}' is in no table of the documentation page",
                row.name
            ));
            continue;
        };
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        for unit in [row.unit, row.display_unit].into_iter().flatten() {
            if unit != "1"
                && !cells
                    .iter()
                    .any(|c| *c == unit || c.contains(&format!("`{unit}`")))
            {
                problems.push(format!(
                    "'{}': unit {unit} is not in its documentation row: {line}",
                    row.name
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}:\n{}", M::info().name, problems.join("\n")))
    }
}

/// The resource folders `folders` merged into one fresh folder under the
/// system's temporary folder named after `tag`, the process and the thread,
/// as the FMU carries them (build-fmu merges a circuit's own `resources/`
/// with the folders its Cargo metadata names): for tests of circuits whose
/// resources come from several crates. Panics on an I/O error.
pub fn merged_resources(tag: &str, folders: &[std::path::PathBuf]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "{tag}-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for folder in folders {
        let entries =
            std::fs::read_dir(folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        for entry in entries {
            let path = entry
                .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
                .path();
            let name = path.file_name().expect("a directory entry has a name");
            std::fs::copy(&path, dir.join(name))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
    dir
}

/// An instance of `M` driven in process as a master drives an FMU, that
/// keeps every message it logs: for tests of what a circuit accepts and
/// refuses. Each call returns the message of a refusal as its error.
pub struct TestMaster<M: Model<N>, const N: usize> {
    inst: Box<Instance<M, N>>,
    messages: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    seen: usize,
}

impl<M: Model<N>, const N: usize> TestMaster<M, N> {
    /// A fresh instance (FMI 3 rules, no resource folder); panics when the
    /// model cannot be instantiated with its defaults.
    pub fn new() -> Self {
        Self::with_folder(ResourceFolder::Unavailable("in-process test".into()))
    }

    /// A fresh instance whose resource folder is `folder` (a circuit
    /// crate's `resources/`, as an FMU would have it unpacked).
    pub fn with_resources(folder: &std::path::Path) -> Self {
        Self::with_folder(ResourceFolder::Found(folder.to_path_buf()))
    }

    /// The same instance, made a Model Exchange one (before
    /// initialization).
    pub fn model_exchange(mut self) -> Self {
        self.inst = self.inst.into_model_exchange();
        self
    }

    fn with_folder(folder: ResourceFolder) -> Self {
        let token = crate::checked_description::<M, N>()
            .unwrap_or_else(|e| panic!("{e}"))
            .instantiation_token();
        let messages = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = Sink::Collect(messages.clone());
        let inst = Instance::<M, N>::new(FmiVersion::Fmi3, "test", &token, folder, sink, false)
            .unwrap_or_else(|e| panic!("{e}"));
        TestMaster {
            inst,
            messages,
            seen: 0,
        }
    }

    /// The instance itself, for calls this wrapper does not offer.
    pub fn instance(&mut self) -> &mut Instance<M, N> {
        &mut self.inst
    }

    /// The messages logged since the last call that asked.
    pub fn new_messages(&mut self) -> Vec<String> {
        let all = self.messages.lock().map(|m| m.clone()).unwrap_or_default();
        let new = all[self.seen.min(all.len())..].to_vec();
        self.seen = all.len();
        new
    }

    fn outcome<R>(&mut self, result: Result<R, Status>) -> Result<R, String> {
        let messages = self.new_messages();
        result.map_err(|status| format!("{status:?}: {}", messages.join(" | ")))
    }

    fn variable(&self, name: &str) -> (u32, ValueType) {
        let var = self
            .inst
            .description()
            .variable_by_name(name)
            .unwrap_or_else(|| panic!("{}: no variable '{name}'", M::info().name));
        let kind = match var.kind {
            model_description::VariableType::Real { .. } => ValueType::Real,
            model_description::VariableType::Integer { .. } => ValueType::Integer,
            model_description::VariableType::Boolean { .. } => ValueType::Boolean,
        };
        (var.value_reference, kind)
    }

    /// Sets one variable (Booleans as 0/1).
    pub fn set(&mut self, name: &str, value: f64) -> Result<(), String> {
        let (vr, kind) = self.variable(name);
        let r = self.inst.set_values("set", &[vr], kind, |_| value);
        self.outcome(r)
    }

    /// Gets one variable.
    pub fn get(&mut self, name: &str) -> Result<f64, String> {
        let (vr, kind) = self.variable(name);
        let mut v = f64::NAN;
        let r = self.inst.get_values("get", &[vr], kind, |_, x| v = x);
        self.outcome(r).map(|()| v)
    }

    /// Every output, by name, or the first refusal.
    pub fn outputs(&mut self) -> Result<Vec<(String, f64)>, String> {
        let names: Vec<String> = self
            .inst
            .description()
            .variables
            .iter()
            .filter(|v| v.causality == model_description::Causality::Output)
            .map(|v| v.name.clone())
            .collect();
        names
            .into_iter()
            .map(|n| self.get(&n).map(|v| (n, v)))
            .collect()
    }

    /// Enters Initialization Mode at t = 0.
    pub fn enter_initialization(&mut self) -> Result<(), String> {
        let r = self.inst.setup_experiment("setup", None, 0.0, None);
        self.outcome(r)?;
        let r = self.inst.enter_initialization_mode("enter");
        self.outcome(r)
    }

    /// Leaves Initialization Mode into Step Mode.
    pub fn exit_initialization(&mut self) -> Result<(), String> {
        let r = self.inst.exit_initialization_mode("exit");
        self.outcome(r)
    }

    /// One communication step of `h` seconds from the instance's time.
    pub fn step(&mut self, h: f64) -> Result<(), String> {
        let t = self.inst.time();
        let r = self.inst.do_step("doStep", t, h);
        self.outcome(r)
    }
}

impl<M: Model<N>, const N: usize> Default for TestMaster<M, N> {
    fn default() -> Self {
        Self::new()
    }
}

/// Values a hostile or careless master sets: not finite, huge, denormal,
/// negative, zero.
pub const ODD_VALUES: [f64; 8] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1e300,
    -1e300,
    5e-324,
    -1.0,
    0.0,
];

/// Sets every Real input and parameter of `M` (the solver's included), one
/// at a time on a fresh instance, to each of [`ODD_VALUES`] and to each
/// declared bound and just beyond it, then initializes and takes `steps`
/// communication steps. Each value must be refused with a message, or lead
/// to an instance that never returns OK with a non-finite output: a get
/// may refuse, a step may be discarded, but OK means finite. Returns every
/// violation, one line each (empty: all good).
pub fn odd_value_violations<M: Model<N>, const N: usize>(steps: usize) -> Vec<String> {
    let desc = crate::checked_description::<M, N>().unwrap_or_else(|e| panic!("{e}"));
    let settable: Vec<(String, Option<f64>, Option<f64>)> = desc
        .variables
        .iter()
        .filter(|v| {
            matches!(
                v.causality,
                model_description::Causality::Input | model_description::Causality::Parameter
            )
        })
        .filter_map(|v| match v.kind {
            model_description::VariableType::Real { min, max, .. } => {
                Some((v.name.clone(), min, max))
            }
            _ => None,
        })
        .collect();
    let h = M::info().step_size;
    let mut problems = Vec::new();
    for (name, min, max) in settable {
        let mut values = ODD_VALUES.to_vec();
        for bound in [min, max].into_iter().flatten() {
            let beyond = 1e-9 * bound.abs().max(1e-300);
            values.extend([bound, bound - beyond, bound + beyond]);
        }
        for value in values {
            let mut m = TestMaster::<M, N>::new();
            if let Err(why) = m.set(&name, value) {
                if !why.contains(&name) {
                    problems.push(format!(
                        "{name} = {}: refused without naming it: {why}",
                        crate::table::Number(value)
                    ));
                }
                continue;
            }
            let mut check = |m: &mut TestMaster<M, N>, when: &str| -> bool {
                match m.outputs() {
                    Ok(out) => match out.iter().find(|(_, v)| !v.is_finite()) {
                        Some((o, v)) => {
                            problems.push(format!(
                                "{name} = {}: {o} = {v} with OK {when}",
                                crate::table::Number(value)
                            ));
                            false
                        }
                        None => true,
                    },
                    // A refused get is an answer (with its message).
                    Err(_) => false,
                }
            };
            if m.enter_initialization().is_err() || !check(&mut m, "in Initialization Mode") {
                continue;
            }
            if m.exit_initialization().is_err() || !check(&mut m, "after initialization") {
                continue;
            }
            for k in 0..steps {
                if m.step(h).is_err() || !check(&mut m, &format!("after step {}", k + 1)) {
                    break;
                }
            }
        }
    }
    problems
}

/// Runs `M` with each fixed-step integrator (explicit Euler, RK4) at the
/// largest fixed step, 1 s, over `steps` communication steps of 1 s with
/// the inputs set to `inputs` (name, value; a load that sets the circuit
/// moving): far outside their stability region for a stiff circuit, so
/// they may run off. Each step must end OK with finite outputs, or as Discard with the
/// instance kept at its last good communication point (time and
/// lastSuccessfulTime). Returns every violation, one line each.
pub fn coarse_explicit_violations<M: Model<N>, const N: usize>(
    steps: usize,
    inputs: &[(&str, f64)],
) -> Vec<String> {
    let mut problems = Vec::new();
    for solver in [2.0, 3.0] {
        let mut m = TestMaster::<M, N>::new();
        let setup = m
            .set("solver", solver)
            .and_then(|()| m.set("explicit_step", 1.0))
            .and_then(|()| inputs.iter().try_for_each(|(name, v)| m.set(name, *v)))
            .and_then(|()| m.enter_initialization())
            .and_then(|()| m.exit_initialization());
        if let Err(why) = setup {
            problems.push(format!("solver = {solver}: set-up refused: {why}"));
            continue;
        }
        for k in 0..steps {
            let t = m.instance().time();
            match m.step(1.0) {
                Ok(()) => match m.outputs() {
                    Ok(out) => {
                        if let Some((o, v)) = out.iter().find(|(_, v)| !v.is_finite()) {
                            problems.push(format!(
                                "solver = {solver}: {o} = {v} with OK after step {}",
                                k + 1
                            ));
                            break;
                        }
                    }
                    Err(why) => {
                        problems.push(format!(
                            "solver = {solver}: step {} was OK, then a get was refused: {why}",
                            k + 1
                        ));
                        break;
                    }
                },
                Err(why) => {
                    let inst = m.instance();
                    let kept = inst.time() == t && inst.last_successful_time() == t;
                    if !why.starts_with("Discard") || !kept {
                        problems.push(format!(
                            "solver = {solver}: step {} from {t} s ended at {} s (last good \
                             {} s): {why}",
                            k + 1,
                            inst.time(),
                            inst.last_successful_time()
                        ));
                    } else if let Err(why) = m.outputs() {
                        problems.push(format!(
                            "solver = {solver}: after a Discard the outputs of the last good \
                             point are refused: {why}"
                        ));
                    }
                    break;
                }
            }
        }
    }
    problems
}

/// Checks that a circuit composed from parts ([`crate::compose::Assembly`],
/// inputs `u_values` in its input order) gives the rates and the Jacobian
/// of the hand-written model `m` (inputs `u`) bit for bit at every state of
/// `states`, and the same initial state and event indicator values: the
/// parts and their connections describe the circuit the model's equations
/// write out. A message per difference.
pub fn composition_differences<M: Model<N>, const N: usize>(
    m: &M,
    u: &M::Inputs,
    assembly: &crate::compose::Assembly,
    u_values: &[f64],
    states: &[nalgebra::SVector<f64, N>],
) -> Vec<String> {
    use nalgebra::SMatrix;
    let mut problems = Vec::new();
    if assembly.initial::<N>(u_values) != m.initial_state(u) {
        problems.push("the initial states differ".to_string());
    }
    let events = M::event_indicators().len();
    for x in states {
        let (mut j_model, mut j_parts) = (SMatrix::<f64, N, N>::zeros(), SMatrix::zeros());
        let (f_model, analytic) = m.rates_and_jacobian(u, x, &mut j_model);
        let (f_parts, _) = assembly.rates_and_jacobian(u_values, x, &mut j_parts);
        if f_model != f_parts || m.rates(u, x) != assembly.rates(u_values, x) {
            problems.push(format!("rates at {x:?}: {f_model:?} against {f_parts:?}"));
        }
        if analytic && j_model != j_parts {
            let (r, c) = (0..N * N)
                .map(|k| (k % N, k / N))
                .find(|&(r, c)| j_model[(r, c)].to_bits() != j_parts[(r, c)].to_bits())
                .unwrap_or((0, 0));
            problems.push(format!(
                "Jacobian at {x:?}: [{r},{c}] {} against {}",
                j_model[(r, c)],
                j_parts[(r, c)]
            ));
        }
        let (mut z_model, mut z_parts) = (vec![0.0; events], vec![0.0; events]);
        m.event_indicator_values(u, x, &mut z_model);
        assembly.event_indicator_values(u_values, x.as_slice(), &mut z_parts);
        if z_model != z_parts {
            problems.push(format!(
                "event indicators at {x:?}: {z_model:?} against {z_parts:?}"
            ));
        }
    }
    problems
}

/// `count` states spread over the boxes `[low, high]` of each state,
/// from a fixed seed (a linear congruential sequence): reproducible
/// sample points for checks such as [`composition_differences`].
pub fn sample_states<const N: usize>(
    low: &[f64; N],
    high: &[f64; N],
    count: usize,
) -> Vec<nalgebra::SVector<f64, N>> {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..count)
        .map(|_| nalgebra::SVector::from_fn(|i, _| low[i] + (high[i] - low[i]) * next()))
        .collect()
}

/// Compares the analytic Jacobian of `M` (default parameters, the inputs at
/// their start values but for `load`) with central differences of its
/// rates at the initial state and at the states of the first `steps`
/// communication steps of the default experiment (Rodas3). Each column is
/// perturbed by 1e-6 of the state's magnitude (at least its nominal
/// value); an entry agrees when it is within 1e-5 of its row's scale
/// (the largest `|df_r/dx_k| * nominal_k`, or `|f_r|` when larger) after
/// scaling by the column's nominal value. An entry where the forward and
/// backward differences disagree by more than 1e-3 of that scale is at a
/// switch (an end stop, a friction law's kink, a valve edge), where no
/// derivative exists, and is left out; at most a tenth of the checked
/// entries may be left out. Returns every disagreement, one line each.
pub fn jacobian_violations<M: Model<N>, const N: usize>(
    load: &[(&str, f64)],
    steps: usize,
) -> Vec<String> {
    use nalgebra::{SMatrix, SVector};
    let (model, _) = crate::default_model::<M, N>().unwrap_or_else(|e| panic!("{e}"));
    let rows = M::rows();
    let mut names = Vec::new();
    let mut values = Vec::new();
    for r in rows.iter().filter(|r| r.role == Role::Input) {
        names.push(r.name);
        values.push(
            load.iter()
                .find(|(n, _)| *n == r.name)
                .map_or(r.start, |l| l.1),
        );
    }
    if let Some((n, _)) = load.iter().find(|(n, _)| !names.contains(n)) {
        return vec![format!("'{n}' is not an input of {}", M::info().name)];
    }
    let u = M::Inputs::from_values(&values);
    let mut nominal = [1.0; N];
    M::state_nominal(&mut nominal);
    // The states to check: the initial one and those along a short run.
    let mut states = vec![model.initial_state(&u)];
    let mut master = TestMaster::<M, N>::new();
    let run = load
        .iter()
        .try_for_each(|(n, v)| master.set(n, *v))
        .and_then(|()| master.enter_initialization())
        .and_then(|()| master.exit_initialization());
    if let Err(why) = run {
        return vec![format!("the run to sample states was refused: {why}")];
    }
    for _ in 0..steps {
        if master.step(M::info().step_size).is_err() {
            break;
        }
        states.push(master.instance().states());
    }
    let mut problems = Vec::new();
    let (mut checked, mut kinks) = (0usize, 0usize);
    for x in &states {
        let mut j = SMatrix::<f64, N, N>::zeros();
        let (f, analytic) = model.rates_and_jacobian(&u, x, &mut j);
        if !analytic {
            return Vec::new();
        }
        let scale: Vec<f64> = (0..N)
            .map(|r| {
                (0..N)
                    .map(|k| (j[(r, k)] * nominal[k]).abs())
                    .fold(f[r].abs(), f64::max)
                    .max(f64::MIN_POSITIVE)
            })
            .collect();
        for c in 0..N {
            let h = 1e-6 * x[c].abs().max(nominal[c]);
            let shifted = |d: f64| {
                let mut y: SVector<f64, N> = *x;
                y[c] += d;
                model.rates(&u, &y)
            };
            let (up, down) = (shifted(h), shifted(-h));
            for r in 0..N {
                let central = (up[r] - down[r]) / (2.0 * h);
                let (forward, backward) = ((up[r] - f[r]) / h, (f[r] - down[r]) / h);
                if !(up[r].is_finite() && down[r].is_finite()) {
                    continue;
                }
                checked += 1;
                if ((forward - backward) * nominal[c]).abs() > 1e-3 * scale[r] {
                    kinks += 1;
                    continue;
                }
                let error = ((j[(r, c)] - central) * nominal[c]).abs();
                if error > 1e-5 * scale[r] {
                    problems.push(format!(
                        "d rate {r} / d state {c} at {:?}: analytic {:e}, central difference \
                         {central:e} (error {:.1e} of the row's scale)",
                        x.as_slice(),
                        j[(r, c)],
                        error / scale[r]
                    ));
                }
            }
        }
    }
    if checked == 0 || kinks * 10 > checked {
        problems.push(format!(
            "{kinks} of {checked} entries were at a switch: too few compared"
        ));
    }
    problems
}

/// The standard tests of the circuits a library exports as FMUs, from one
/// integration test file of the library (`tests/standard.rs`; it declares
/// the test binary's counting allocator), a module per circuit:
///
/// ```ignore
/// fmu_core::standard_tests! {
///     sliding_mass: valve_drive::SlidingMass, load = [("F", 1e4)], steps = 5;
///     valve_actuator: valve_drive::ValveActuator, load = [("U", 5.0)], steps = 5;
/// }
/// ```
///
/// `load` gives inputs that set the circuit moving (name, SI value);
/// `steps` the communication steps after each odd value (fewer for a
/// circuit with many parameters). The tests: the documentation page lists
/// every variable ([`check_documentation`]); odd values of every input and
/// parameter are refused or stay finite ([`odd_value_violations`]); the
/// explicit integrators at a 1 s step under the load run or discard
/// cleanly ([`coarse_explicit_violations`], 30 steps); the analytic
/// Jacobian agrees with central differences along 20 steps of the default
/// experiment under the load ([`jacobian_violations`]); `doStep` and the
/// input setters do not allocate ([`check_no_allocation`]).
///
/// The FMU crates (one export line each) are built by the build command
/// alone; their circuits are tested here, in the library that holds them.
#[macro_export]
macro_rules! standard_tests {
    ($($module:ident: $model:ty, load = [$(($name:expr, $value:expr)),* $(,)?], steps = $steps:expr);+ $(;)?) => {
        $crate::no_allocation_test!(@allocator);

        fn report(what: &str, problems: Vec<String>) {
            assert!(
                problems.is_empty(),
                "{what}, {} problem(s):\n{}",
                problems.len(),
                problems.join("\n")
            );
        }

        $(
            mod $module {
                use super::{report, ALLOCATIONS};

                const NX: usize = <$model as $crate::table::Table>::STATES;
                const LOAD: &[(&str, f64)] = &[$(($name, $value)),*];

                #[test]
                fn the_documentation_lists_every_variable() {
                    $crate::testing::check_documentation::<$model>().unwrap();
                }

                #[test]
                fn odd_values_are_refused_or_stay_finite() {
                    report(
                        "odd values",
                        $crate::testing::odd_value_violations::<$model, NX>($steps),
                    );
                }

                #[test]
                fn coarse_explicit_steps_run_or_discard() {
                    report(
                        "explicit integrators at a 1 s step",
                        $crate::testing::coarse_explicit_violations::<$model, NX>(30, LOAD),
                    );
                }

                #[test]
                fn the_jacobian_matches_central_differences() {
                    report(
                        "Jacobian",
                        $crate::testing::jacobian_violations::<$model, NX>(LOAD, 20),
                    );
                }

                #[test]
                fn do_step_and_input_updates_do_not_allocate() {
                    $crate::testing::check_no_allocation::<$model, NX>(|| {
                        ALLOCATIONS.with(|c| c.get())
                    });
                }
            }
        )+
    };
}
