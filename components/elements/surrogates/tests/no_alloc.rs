//! Evaluating a surrogate (and its Jacobian) allocates nothing on the heap:
//! it may run inside an FMU's `doStep`. A counting global allocator counts
//! this thread's allocations around the calls.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use surrogates::{Lolimot, Mlp, Model, Rng, Scaling, Surrogate};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards every call to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller upholds `alloc_zeroed`'s contract.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller upholds `dealloc`'s contract.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller upholds `realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(|c| c.get())
}

/// The largest models the limits allow, so every stack buffer is used in
/// full.
fn surrogates() -> Vec<Surrogate> {
    let mut rng = Rng::new(1);
    let n = surrogates::MAX_INPUTS;
    let sizes = vec![n, 64, 64, 64, surrogates::MAX_OUTPUTS];
    let params = (0..Mlp::param_count(&sizes))
        .map(|_| 0.3 * rng.normal())
        .collect();
    let mlp = Mlp::new(sizes, params).unwrap();
    let m_out = surrogates::MAX_OUTPUTS;
    let trees = (0..m_out)
        .map(|_| {
            let m = surrogates::MAX_MODELS;
            Lolimot::new(
                n,
                (0..m * n).map(|_| rng.uniform(-1.0, 1.0)).collect(),
                (0..m * n).map(|_| rng.uniform(0.1, 1.0)).collect(),
                (0..m * (n + 1)).map(|_| rng.normal()).collect(),
            )
            .unwrap()
        })
        .collect();
    let names = |p: &str, k: usize| (0..k).map(|j| format!("{p}{j}")).collect::<Vec<_>>();
    let si = || Scaling::new(vec![-2.0; n], vec![3.0; n]).unwrap();
    let so = || Scaling::new(vec![1e5; m_out], vec![2e7; m_out]).unwrap();
    vec![
        Surrogate::new(
            Model::Mlp(mlp),
            names("u", n),
            names("y", m_out),
            si(),
            so(),
        )
        .unwrap(),
        Surrogate::new(
            Model::Lolimot(trees),
            names("u", n),
            names("y", m_out),
            si(),
            so(),
        )
        .unwrap(),
    ]
}

#[test]
fn eval_and_jacobian_allocate_nothing() {
    let all = surrogates();
    let mut rng = Rng::new(2);
    let xs: Vec<Vec<f64>> = (0..50)
        .map(|_| {
            (0..surrogates::MAX_INPUTS)
                .map(|_| rng.uniform(-3.0, 4.0))
                .collect()
        })
        .collect();
    let mut y = vec![0.0; surrogates::MAX_OUTPUTS];
    let mut jac = vec![0.0; surrogates::MAX_OUTPUTS * surrogates::MAX_INPUTS];
    let mut g = vec![0.0; surrogates::MAX_INPUTS];
    let mut yy = vec![0.0; surrogates::MAX_OUTPUTS];
    let mut checksum = 0.0;
    for s in &all {
        let before = allocations();
        for x in &xs {
            s.eval(x, &mut y);
            s.eval_with_jacobian(x, &mut y, &mut jac);
            checksum += y[0] + jac[5];
            // The inner models directly, in normalized space.
            match s.model() {
                Model::Mlp(m) => {
                    m.eval(&x[..], &mut yy);
                    m.eval_with_jacobian(x, &mut yy, &mut jac);
                }
                Model::Lolimot(trees) => {
                    for t in trees {
                        checksum += t.eval(x);
                        checksum += t.eval_with_jacobian(x, &mut g);
                    }
                }
            }
            checksum += yy[0] + g[0];
        }
        let used = allocations() - before;
        assert_eq!(used, 0, "{:?} evaluation allocated {used} times", s.kind());
    }
    assert!(checksum.is_finite());
    // The counter works: a Vec allocates.
    let before = allocations();
    let v = std::hint::black_box(vec![1.0f64; 10]);
    assert_eq!(allocations() - before, 1);
    drop(v);
}
