//! `doStep` allocates nothing on the heap: a counting global allocator
//! watches this thread while the master steps (all three integrators).

mod common;

use common::*;
use fmu_core::model::{VR_EXPLICIT_STEP, VR_SOLVER};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(|c| c.get())
}

#[test]
fn do_step_does_not_allocate() {
    for (solver, steps) in [(1, 2000), (2, 200), (3, 200)] {
        let f = Fmi2::initialized();
        assert_eq!(f.set_int(VR_SOLVER, solver), OK);
        assert_eq!(f.set(VR_EXPLICIT_STEP, 1e-5), OK);
        // Warm up (first step estimates the initial substep).
        assert_eq!(f.step(0.0, 1e-3), OK);
        let before = allocations();
        let mut t = 1e-3;
        for _ in 0..steps {
            assert_eq!(f.step(t, 1e-3), OK);
            t += 1e-3;
        }
        let during = allocations() - before;
        assert_eq!(
            during, 0,
            "solver {solver}: {during} allocations in {steps} doSteps"
        );
        // The allocator does count: reading values through the API the
        // test harness allocates a Vec.
        let before = allocations();
        let _ = f.get_many(&[3, 4]);
        assert!(
            allocations() > before,
            "the counting allocator must see allocations"
        );
    }
}
