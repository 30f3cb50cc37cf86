//! Test support for circuit crates: checks every circuit should pass,
//! written once.

use crate::instance::{FmiVersion, Instance};
use crate::logging::Sink;
use crate::model::{Model, ValueType};
use crate::table::{Record, Role};
use crate::{ResourceFolder, Status};

/// Steps a fresh instance of `M` with each integrator (Rodas3, explicit
/// Euler, RK4), setting every input at every communication point, and
/// asserts that `allocations()` (a counter kept by the test binary's global
/// allocator, see [`no_allocation_test!`](crate::no_allocation_test)) does
/// not move during the stepping: no heap allocation in `doStep` or in the
/// input setters.
pub fn check_no_allocation<M: Model<N>, const N: usize>(allocations: impl Fn() -> u64) {
    let desc = crate::full_description::<M>();
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
    assert_eq!(inputs.len(), <M::Inputs as Record>::LEN);
    let (input_vrs, input_values): (Vec<u32>, Vec<f64>) = inputs.into_iter().unzip();
    let step = M::INFO.step_size;
    for (method, steps) in [(1.0, 200), (2.0, 10), (3.0, 10)] {
        let folder = ResourceFolder::Unavailable("in-process test".into());
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
        set(&mut inst, "explicit_step", step / 20.0, ValueType::Real);
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
            "{}: {during} heap allocations in {steps} doSteps with solver = {method}",
            M::INFO.name
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
/// `tests/no_alloc.rs`, `fmu_core::no_allocation_test!(OrificeChain);`
#[macro_export]
macro_rules! no_allocation_test {
    ($model:ty) => {
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

        #[test]
        fn do_step_and_input_updates_do_not_allocate() {
            $crate::testing::check_no_allocation::<
                $model,
                { <$model as $crate::table::Table>::STATES },
            >(|| ALLOCATIONS.with(|c| c.get()));
        }
    };
}

/// Checks that the circuit's documentation page (its `MODEL.md`) lists
/// every variable of the table in one of its Markdown tables, with the
/// variable's SI unit and display unit in the same row: the page and the
/// table cannot drift apart unnoticed. A row may list several variables
/// (`` `d1`, `d2`, `d3` ``).
pub fn check_documentation<M: crate::Table>() -> Result<(), String> {
    let page = M::INFO.documentation;
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
        Err(format!("{}:\n{}", M::INFO.name, problems.join("\n")))
    }
}
