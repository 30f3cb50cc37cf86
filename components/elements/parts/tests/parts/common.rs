//! What the tests share: the central-difference check of an assembly's
//! Jacobian, a Newton solve of its steady state, and example parameters.

use fmu_core::compose::{Assembly, Builder, Part};
use fmu_core::nalgebra::{DMatrix, DVector, SMatrix, SVector};
use hydraulics::BulkModulus;
use std::sync::Arc;

/// Relative tolerance of a Jacobian entry against its central difference.
pub const RELATIVE: f64 = 1e-6;
/// Absolute floor, as a fraction of the row's scale (the largest
/// `|J[r, k]| * nominal_k`, or `|f_r|` when larger).
pub const FLOOR: f64 = 1e-7;

/// The oil of every example.
pub fn oil() -> BulkModulus {
    BulkModulus::reference_oil()
}

/// Adds parts by name.
pub fn with_parts(parts: &[(&str, Arc<dyn Part>)]) -> Builder {
    let mut b = Builder::new();
    for (name, part) in parts {
        b.part(name, part.clone()).unwrap();
    }
    b
}

/// Connects pairs (or lists) of ports.
pub fn connect(b: &mut Builder, nodes: &[&[&str]]) {
    for node in nodes {
        b.connect(node).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Compares [`Assembly::rates_and_jacobian`] with central differences of
/// [`Assembly::rates`] at every state of `states` (inputs `u`): each
/// column `c` is perturbed by `h = 1e-6 max(|x_c|, nominal_c)` and by
/// `h/2`, the two central differences extrapolated (Richardson: error of
/// order `h^4`, so that laws curving sharply within a few steps, such as
/// the accumulator's at the edge of its precharge band, are still
/// resolved; a state must not lie within `h` of a kink), and an
/// entry agrees when `|J[r, c] - central| * nominal_c` is within
/// [`RELATIVE`] of `|J[r, c]| * nominal_c` plus [`FLOOR`] of the row's
/// scale. Also checks that asking for the Jacobian does not change the
/// rates, and that everything is finite. Returns the number of entries
/// checked; panics with every disagreement.
pub fn check_jacobian<const N: usize>(
    a: &Assembly,
    u: &[f64],
    states: &[SVector<f64, N>],
) -> usize {
    assert_eq!(a.state_count(), N, "the assembly has {:?}", a.state_names());
    let nominal = a.nominal().to_vec();
    let mut problems = Vec::new();
    let mut checked = 0;
    for x in states {
        let mut j = SMatrix::<f64, N, N>::zeros();
        let (f, analytic) = a.rates_and_jacobian(u, x, &mut j);
        assert!(analytic);
        assert_eq!(
            f,
            a.rates(u, x),
            "the rates at {x:?} depend on asking for the Jacobian"
        );
        assert!(
            f.iter().chain(j.iter()).all(|v| v.is_finite()),
            "not finite at {x:?}: {f:?} {j:?}"
        );
        for c in 0..N {
            let h = 1e-6 * x[c].abs().max(nominal[c]);
            let central = |h: f64| {
                let (mut up, mut down) = (*x, *x);
                up[c] += h;
                down[c] -= h;
                (a.rates(u, &up) - a.rates(u, &down)) / (2.0 * h)
            };
            let (wide, narrow) = (central(h), central(0.5 * h));
            for r in 0..N {
                let scale = (0..N)
                    .map(|k| (j[(r, k)] * nominal[k]).abs())
                    .fold(f[r].abs(), f64::max);
                let central = (4.0 * narrow[r] - wide[r]) / 3.0;
                let error = ((j[(r, c)] - central) * nominal[c]).abs();
                let tolerance = RELATIVE * (j[(r, c)] * nominal[c]).abs() + FLOOR * scale;
                checked += 1;
                if error > tolerance || !central.is_finite() {
                    problems.push(format!(
                        "d({}'s rate)/d({}) at {:?}: analytic {:e}, central {:e}",
                        a.state_names()[r],
                        a.state_names()[c],
                        x.as_slice(),
                        j[(r, c)],
                        central
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    checked
}

/// Newton's method on the rates of the states `free` (the others held at
/// `x0`'s values) from `x0`, with the assembly's Jacobian: the steady
/// state, once the step is below 1e-12 of the states' nominal values.
pub fn steady<const N: usize>(
    a: &Assembly,
    u: &[f64],
    x0: SVector<f64, N>,
    free: &[usize],
) -> SVector<f64, N> {
    let mut x = x0;
    let n = free.len();
    for _ in 0..100 {
        let mut j = SMatrix::<f64, N, N>::zeros();
        let (f, _) = a.rates_and_jacobian(u, &x, &mut j);
        let jf = DMatrix::from_fn(n, n, |r, c| j[(free[r], free[c])]);
        let ff = DVector::from_fn(n, |r, _| f[free[r]]);
        let step = jf.lu().solve(&ff).expect("a regular Jacobian");
        let mut small = true;
        for (k, &i) in free.iter().enumerate() {
            x[i] -= step[k];
            small &= step[k].abs() <= 1e-12 * a.nominal()[i];
        }
        if small {
            return x;
        }
    }
    panic!("no steady state from {x0:?}: reached {x:?}");
}
