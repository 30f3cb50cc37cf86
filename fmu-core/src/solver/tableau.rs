//! The coefficients of the two Rosenbrock methods, Rodas3 and ROS34PW2, in
//! the one transformed form the stage loop (`stages.rs`) runs.
//!
//! Both are 4-stage Rosenbrock formulas for an autonomous system
//! `x' = f(x)` (the inputs are held over a communication step), written
//! without matrix-vector products by the Jacobian (Hairer and Wanner,
//! "Solving Ordinary Differential Equations II", section IV.7):
//!
//! ```text
//! (I / (h gamma) - A) u_i = f(x + sum_j a_ij u_j) + sum_j (c_ij / h) u_j
//! x+ = x + sum_i m_i u_i,     error = sum_i e_i u_i
//! ```
//!
//! where `A` is the Jacobian (Rodas3) or any approximation of it
//! (ROS34PW2, a W method). The coefficients of a paper's `alpha`,
//! `Gamma`, `b` and `b^` transform to this form as `a = alpha Gamma^-1`,
//! `c = diag(1/gamma) - Gamma^-1`, `m = b Gamma^-1` and
//! `e = (b - b^) Gamma^-1`.

/// A 4-stage Rosenbrock formula in the transformed form of the module
/// docs.
#[derive(Debug, PartialEq)]
pub struct Tableau {
    /// The diagonal coefficient gamma.
    pub gamma: f64,
    /// Stage arguments `a_ij` (j < i).
    pub a: [[f64; 3]; 4],
    /// Stage couplings `c_ij` (j < i).
    pub c: [[f64; 3]; 4],
    /// Weights of the solution.
    pub m: [f64; 4],
    /// Weights of the error estimate.
    pub e: [f64; 4],
    /// Whether stage i evaluates `f` at a new point (else it takes the
    /// previous stage's).
    pub new_f: [bool; 4],
}

/// Rodas3 (Sandu et al. 1997, "Benchmarking stiff ODE solvers for
/// atmospheric chemistry II"): L-stable and stiffly accurate, order 3 with
/// an embedded order-2 solution; the default integrator's and the
/// fixed-cost method's coefficients. Stage 1 takes `f(x)` from the substep
/// start and stage 2 reuses it (its row of `a` is zero).
pub static RODAS3: Tableau = Tableau {
    gamma: 0.5,
    a: [
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [2.0, 0.0, 1.0],
    ],
    c: [
        [0.0, 0.0, 0.0],
        [4.0, 0.0, 0.0],
        [1.0, -1.0, 0.0],
        [1.0, -1.0, -8.0 / 3.0],
    ],
    m: [2.0, 0.0, 1.0, 1.0],
    e: [0.0, 0.0, 0.0, 1.0],
    new_f: [false, false, true, true],
};

/// ROS34PW2 (Rang and Angermann 2005, BIT Numer. Math. 45): a
/// Rosenbrock-W method of order 3 with an embedded order-2 solution,
/// L-stable and stiffly accurate, whose order conditions hold for any
/// matrix `A`; the adaptive method that keeps its Jacobian.
pub static ROS34PW2: Tableau = Tableau {
    gamma: 0.435_866_521_508_459,
    a: [
        [0.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [1.419_217_317_455_765_2, -0.259_232_211_672_969_8, 0.0],
        [
            4.184_760_482_319_162,
            -0.285_192_017_355_495_6,
            2.294_280_360_279_042,
        ],
    ],
    c: [
        [0.0, 0.0, 0.0],
        [-4.588_560_720_558_084, 0.0, 0.0],
        [-4.184_760_482_319_161, 0.285_192_017_355_496, 0.0],
        [
            -6.368_179_200_128_36,
            -6.795_620_944_466_837,
            2.870_098_604_331_055_5,
        ],
    ],
    m: [
        4.184_760_482_319_162,
        -0.285_192_017_355_495_6,
        2.294_280_360_279_042,
        1.0,
    ],
    e: [
        0.277_749_947_647_969,
        -1.403_239_895_175_998_8,
        1.772_630_127_667_550_7,
        0.5,
    ],
    new_f: [false, true, true, true],
};

/// The order of both methods' embedded error estimates plus one: the
/// error norm behaves as `h^ERROR_ORDER`, which the step control inverts.
pub const ERROR_ORDER: f64 = 3.0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::reuse::Reuse;
    use crate::solver::test_systems::Decay;
    use crate::solver::{OdeSystem, Stats};
    use nalgebra::Vector2;

    /// Error at t = 2 of n fixed substeps of `tableau` with the Jacobian
    /// evaluated once at t = 0 and scaled.
    fn frozen_error(tableau: &Tableau, jacobian_scale: f64, n: u32) -> f64 {
        let sys = Decay { jacobian_scale };
        let mut x = Vector2::new(1.0, 1.0);
        let mut r = Reuse::new();
        let mut stats = Stats::default();
        let h = 2.0 / f64::from(n);
        r.refresh(&sys, &x, &mut stats);
        assert!(r.factor(h, tableau.gamma, 2));
        for _ in 0..n {
            let f = sys.rates(&x);
            x = r.step(tableau, &sys, &x, &f, h, &mut stats).unwrap().0;
        }
        (x - Vector2::new(1.0 / 3.0, (-2.0f64).exp())).norm()
    }

    #[test]
    fn ros34pw2_keeps_order_three_with_any_jacobian() {
        for scale in [1.0, 0.3, 2.5, 0.0] {
            let order =
                (frozen_error(&ROS34PW2, scale, 100) / frozen_error(&ROS34PW2, scale, 200)).log2();
            assert!((order - 3.0).abs() < 0.2, "scale {scale}: order {order}");
        }
        // Rodas3 with an outdated Jacobian drops below its order 3: why the
        // adaptive method that keeps its Jacobian is a W method.
        let order = (frozen_error(&RODAS3, 0.3, 100) / frozen_error(&RODAS3, 0.3, 200)).log2();
        assert!(order < 2.5, "Rodas3 with a wrong Jacobian: order {order}");
    }
}
