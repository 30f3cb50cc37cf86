//! `doStep` and setting inputs allocate nothing on the heap: a counting
//! global allocator watches this thread while the master steps the test
//! model (every integrator, analytic and finite-difference Jacobian; what
//! the real-time ones reuse is allocated at initialization).

mod common;

use common::relaxation as oc;
use common::*;
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
fn do_step_and_input_updates_do_not_allocate() {
    for (solver, steps, analytic) in [
        (1, 2000, true),
        (1, 2000, false),
        (2, 200, true),
        (3, 200, true),
        (4, 2000, true),
        (4, 2000, false),
        (5, 2000, true),
        (6, 2000, true),
    ] {
        let f = Fmi2::new();
        assert_eq!(f.set_bool(vr("analytic"), analytic), OK);
        f.init();
        assert_eq!(f.set_int(vr("solver"), solver), OK);
        assert_eq!(f.set(vr("explicit_step"), 1e-5), OK);
        // Warm up (first step estimates the initial substep); the real-time
        // methods' first step allocates nothing either: what they reuse is
        // allocated at initialization.
        let before_first = allocations();
        assert_eq!(f.step(0.0, 1e-3), OK);
        if solver >= 4 {
            assert_eq!(
                allocations(),
                before_first,
                "solver {solver}: first doStep allocated"
            );
        }
        let u = vr("u");
        let before = allocations();
        let mut t = 1e-3;
        for i in 0..steps {
            let value = if i % 100 < 50 { 1.0 } else { -1.0 };
            // SAFETY: one vr, one value.
            assert_eq!(unsafe { oc::fmi2SetReal(f.c, &u, 1, &value) }, OK);
            assert_eq!(f.step(t, 1e-3), OK);
            t += 1e-3;
        }
        let during = allocations() - before;
        assert_eq!(
            during, 0,
            "solver {solver}, analytic Jacobian {analytic}: {during} allocations in {steps} doSteps"
        );
        // The allocator does count: reading values through the API the
        // test harness allocates a Vec.
        let before = allocations();
        let _ = f.get_many(&[vr("y1"), vr("y2")]);
        assert!(
            allocations() > before,
            "the counting allocator must see allocations"
        );
    }
}
