//! Rodas3 (Sandu et al. 1997): the default integrator, with error control
//! and a Jacobian evaluated at every substep's start, and its fixed-step
//! form for convergence and stability tests.

use super::jacobian;
use super::stages::{ShiftedJacobian, substep};
use super::step_control::{
    Controller, HARD_CUT, after_accepted, error_norm, first_step, smallest_step, toward_point,
};
use super::tableau::RODAS3;
use super::{Carried, OdeSystem, SolverError, SolverSettings, Stats};
use crate::linalg::Rows;
use nalgebra::{SMatrix, SVector};

/// `f(x)` and the Jacobian at the start of a substep; kept across a
/// rejected substep (same `x`, smaller `h`).
struct StepStart<const N: usize> {
    f: SVector<f64, N>,
    jac: SMatrix<f64, N, N>,
}

impl<const N: usize> StepStart<N> {
    fn new() -> Self {
        StepStart {
            f: SVector::zeros(),
            jac: SMatrix::zeros(),
        }
    }

    fn evaluate<S: OdeSystem<N>>(&mut self, sys: &S, x: &SVector<f64, N>, stats: &mut Stats) {
        self.f = jacobian::evaluate(sys, x, &mut self.jac, stats);
    }
}

/// One Rodas3 step of size `h` from `x`, with `f(x)` and the Jacobian in
/// `start`, the iteration matrix formed and factorized in the caller's
/// buffer `g`. Returns the new state and the embedded error vector, or
/// `None` when the iteration matrix is singular or the result is not
/// finite.
fn rodas3_step<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &SVector<f64, N>,
    h: f64,
    start: &StepStart<N>,
    g: &mut Rows<N>,
    stats: &mut Stats,
) -> Option<(SVector<f64, N>, SVector<f64, N>)> {
    let active = sys.active_states().min(N);
    let matrix = ShiftedJacobian::factor(g, &start.jac, h, RODAS3.gamma, active)?;
    stats.factorizations += 1;
    substep(&RODAS3, sys, x, &start.f, &matrix, stats)
}

/// Takes `n` Rodas3 steps of the fixed size `h` (no error control): for
/// convergence and stability tests.
pub fn rodas3_fixed<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &mut SVector<f64, N>,
    h: f64,
    n: usize,
    stats: &mut Stats,
) -> bool {
    let mut g = [[0.0; N]; N];
    let mut start = StepStart::new();
    for _ in 0..n {
        start.evaluate(sys, x, stats);
        match rodas3_step(sys, x, h, &start, &mut g, stats) {
            Some((x_new, _)) => *x = x_new,
            None => return false,
        }
        stats.accepted += 1;
    }
    true
}

/// Rodas3 with error control over `duration` (s), starting from the
/// substep size `carried.h` (0: estimated): what [`advance`](super::advance)
/// runs for [`Method::Rodas3`](super::Method::Rodas3), callable on its own by masters that integrate an
/// imported FMU's derivatives.
pub fn rodas3_adaptive<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &mut SVector<f64, N>,
    duration: f64,
    settings: &SolverSettings,
    carried: &mut Carried<N>,
    stats: &mut Stats,
) -> Result<(), SolverError> {
    let nominal = sys.nominal();
    let h_min = smallest_step(duration);
    let mut h = first_step(carried.h, sys, x, duration, settings, stats);
    let mut t = 0.0;
    let mut substeps: u32 = 0;
    let mut rejected_last = false;
    // One iteration-matrix buffer for all substeps of this call.
    let mut g = [[0.0; N]; N];
    let mut start = StepStart::new();
    let mut start_is_current = false;
    while t < duration {
        if substeps >= settings.max_substeps {
            carried.h = h;
            return Err(SolverError::TooManySubsteps {
                t,
                limit: settings.max_substeps,
            });
        }
        substeps += 1;
        // Land exactly on the communication point; avoid a sliver of a last step.
        let (last, h_try) = toward_point(h, duration - t);
        if !start_is_current {
            start.evaluate(sys, x, stats);
            start_is_current = true;
        }
        let outcome = rodas3_step(sys, x, h_try, &start, &mut g, stats).map(|(x_new, err)| {
            let e = error_norm(&err, x, &x_new, &nominal, settings, sys.active_states());
            (x_new, e)
        });
        match outcome {
            Some((x_new, e)) if e <= 1.0 => {
                *x = x_new;
                start_is_current = false;
                stats.accepted += 1;
                t = if last { duration } else { t + h_try };
                let factor = Controller::Power.accepted(e, rejected_last);
                h = after_accepted(h, h_try, last, factor);
                rejected_last = false;
            }
            Some((_, e)) if e.is_finite() => {
                stats.rejected += 1;
                h = h_try * Controller::Power.rejected(e);
                rejected_last = true;
            }
            _ => {
                // Singular iteration matrix or non-finite result: cut hard.
                stats.rejected += 1;
                h = h_try * HARD_CUT;
                rejected_last = true;
            }
        }
        if h < h_min {
            carried.h = 0.0;
            return Err(SolverError::StepSizeTooSmall { t, h });
        }
    }
    carried.h = h;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::test_systems::Decay;
    use super::*;
    use crate::solver::explicit::explicit_fixed;
    use crate::solver::{Method, advance};
    use nalgebra::{Matrix3, Vector2, Vector3};

    /// Harmonic oscillator x'' = -x: exact solution (cos t, -sin t).
    struct Oscillator;
    impl OdeSystem<2> for Oscillator {
        fn rates(&self, x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::new(x[1], -x[0])
        }
        fn rates_and_jacobian(
            &self,
            _x: &Vector2<f64>,
            j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            let analytic = {
                *j = SMatrix::<f64, 2, 2>::new(0.0, 1.0, -1.0, 0.0);
                true
            };
            (self.rates(_x), analytic)
        }
    }

    fn error_fixed(method: Method, h: f64, t_end: f64) -> f64 {
        let n = (t_end / h).round() as usize;
        let mut x = Vector2::new(1.0, 1.0);
        let mut stats = Stats::default();
        match method {
            Method::Rodas3 => assert!(rodas3_fixed(&Decay::EXACT, &mut x, h, n, &mut stats)),
            _ => {
                let settings = SolverSettings {
                    method,
                    explicit_step: h,
                    max_substeps: u32::MAX,
                    ..Default::default()
                };
                explicit_fixed(&Decay::EXACT, &mut x, t_end, &settings, &mut stats).unwrap();
            }
        }
        let exact = Vector2::new(1.0 / (1.0 + t_end), (-t_end).exp());
        (x - exact).norm()
    }

    fn observed_order(method: Method) -> f64 {
        let e1 = error_fixed(method, 0.02, 2.0);
        let e2 = error_fixed(method, 0.01, 2.0);
        (e1 / e2).log2()
    }

    #[test]
    fn observed_orders_of_convergence() {
        let rodas = observed_order(Method::Rodas3);
        let euler = observed_order(Method::ExplicitEuler);
        let rk4 = observed_order(Method::Rk4);
        assert!((rodas - 3.0).abs() < 0.15, "Rodas3 order {rodas}");
        assert!((euler - 1.0).abs() < 0.1, "Euler order {euler}");
        assert!((rk4 - 4.0).abs() < 0.15, "RK4 order {rk4}");
    }

    #[test]
    fn rodas3_order_on_oscillator() {
        let run = |h: f64| {
            let mut x = Vector2::new(1.0, 0.0);
            let mut stats = Stats::default();
            let n = (1.0_f64 / h).round() as usize;
            assert!(rodas3_fixed(&Oscillator, &mut x, h, n, &mut stats));
            (x - Vector2::new(1f64.cos(), -1f64.sin())).norm()
        };
        let order = (run(0.05) / run(0.025)).log2();
        assert!((order - 3.0).abs() < 0.15, "order {order}");
    }

    /// A linear system with eigenvalues -1, -1e3 and -1e7, coupled by a
    /// similarity transform so that no component decouples.
    struct StiffLinear {
        a: Matrix3<f64>,
        t: Matrix3<f64>,
        t_inv: Matrix3<f64>,
    }
    const LAMBDA: [f64; 3] = [-1.0, -1e3, -1e7];
    impl StiffLinear {
        fn new() -> Self {
            let t = Matrix3::new(1.0, 0.5, 0.2, 0.3, 1.0, 0.4, 0.1, 0.6, 1.0);
            let t_inv = t.try_inverse().unwrap();
            let d = Matrix3::from_diagonal(&Vector3::from(LAMBDA));
            StiffLinear {
                a: t * d * t_inv,
                t,
                t_inv,
            }
        }
        fn exact(&self, x0: &Vector3<f64>, time: f64) -> Vector3<f64> {
            let z0 = self.t_inv * x0;
            let z = Vector3::from_fn(|i, _| z0[i] * (LAMBDA[i] * time).exp());
            self.t * z
        }
    }
    impl OdeSystem<3> for StiffLinear {
        fn rates(&self, x: &Vector3<f64>) -> Vector3<f64> {
            self.a * x
        }
        fn rates_and_jacobian(
            &self,
            _x: &Vector3<f64>,
            j: &mut Matrix3<f64>,
        ) -> (Vector3<f64>, bool) {
            let analytic = {
                *j = self.a;
                true
            };
            (self.rates(_x), analytic)
        }
    }

    #[test]
    fn stiff_problem_stable_at_ten_thousand_times_the_explicit_limit() {
        let sys = StiffLinear::new();
        let explicit_limit = 2.0 / 1e7; // explicit Euler, largest eigenvalue
        let h = explicit_limit * 1e4; // 2 ms
        let x0 = Vector3::new(1.0, -2.0, 3.0);
        let mut x = x0;
        let mut stats = Stats::default();
        let n = (1.0_f64 / h).round() as usize;
        assert!(rodas3_fixed(&sys, &mut x, h, n, &mut stats));
        let exact = sys.exact(&x0, n as f64 * h);
        let rel = (x - exact).norm() / exact.norm();
        assert!(rel < 1e-6, "relative error {rel}");

        // An explicit method at the same step blows up.
        let settings = SolverSettings {
            method: Method::ExplicitEuler,
            explicit_step: h,
            ..Default::default()
        };
        let mut y = x0;
        let r = explicit_fixed(&sys, &mut y, 1.0, &settings, &mut Stats::default());
        assert!(
            r.is_err() || y.norm() > 1e100,
            "explicit Euler did not blow up"
        );
    }

    #[test]
    fn adaptive_stiff_problem_meets_tolerance_with_few_steps() {
        let sys = StiffLinear::new();
        let x0 = Vector3::new(1.0, -2.0, 3.0);
        let mut x = x0;
        let settings = SolverSettings {
            rtol: 1e-8,
            atol: 1e-10,
            ..Default::default()
        };
        let mut carried = Carried::default();
        let mut stats = Stats::default();
        let comm = 1e-3;
        // The first 0.5 s resolve the 0.1 us and 1 ms modes from the initial
        // condition, as accuracy demands.
        for _ in 0..500 {
            advance(&sys, &mut x, comm, &settings, &mut carried, &mut stats).unwrap();
        }
        let after_transient = stats.accepted;
        for _ in 500..1000 {
            advance(&sys, &mut x, comm, &settings, &mut carried, &mut stats).unwrap();
        }
        let exact = sys.exact(&x0, 1.0);
        let rel = (x - exact).norm() / exact.norm();
        assert!(rel < 1e-6, "relative error {rel}");
        // Afterwards the step is limited by the communication step, not by
        // stability: one substep per communication step (explicit Euler
        // would need 5 million steps for this second).
        let later = stats.accepted - after_transient;
        assert!(
            later <= 550,
            "too many substeps after the transient: {later}"
        );
        assert!(stats.accepted < 5000, "substeps in all: {}", stats.accepted);
        assert!(stats.rejected < 10, "rejected substeps: {}", stats.rejected);
    }

    #[test]
    fn adaptive_carries_step_across_communication_points() {
        let mut x = Vector2::new(1.0, 1.0);
        let settings = SolverSettings {
            rtol: 1e-6,
            atol: 1e-8,
            ..Default::default()
        };
        let mut carried = Carried::default();
        let mut stats = Stats::default();
        advance(
            &Decay::EXACT,
            &mut x,
            0.5,
            &settings,
            &mut carried,
            &mut stats,
        )
        .unwrap();
        assert!(carried.h > 0.0);
        let first = stats;
        for _ in 0..10 {
            advance(
                &Decay::EXACT,
                &mut x,
                0.5,
                &settings,
                &mut carried,
                &mut stats,
            )
            .unwrap();
        }
        let exact = Vector2::new(1.0 / 6.5, (-5.5f64).exp());
        assert!((x - exact).norm() < 1e-5);
        assert!(stats.accepted - first.accepted < 10 * first.accepted.max(3));
    }

    /// Decay that counts its evaluations, with a combined f + J evaluation.
    struct CountingDecay {
        rates: std::cell::Cell<u64>,
        combined: std::cell::Cell<u64>,
    }
    impl OdeSystem<2> for CountingDecay {
        fn rates(&self, x: &Vector2<f64>) -> Vector2<f64> {
            self.rates.set(self.rates.get() + 1);
            Decay::EXACT.rates(x)
        }
        fn rates_and_jacobian(
            &self,
            x: &Vector2<f64>,
            j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            self.combined.set(self.combined.get() + 1);
            Decay::EXACT.rates_and_jacobian(x, j)
        }
    }

    #[test]
    fn one_start_evaluation_per_accepted_substep_and_none_after_a_rejection() {
        let sys = CountingDecay {
            rates: 0.into(),
            combined: 0.into(),
        };
        let mut x = Vector2::new(1.0, 1.0);
        let settings = SolverSettings {
            rtol: 1e-9,
            atol: 1e-12,
            ..Default::default()
        };
        // A first substep far too long for the tolerance: rejections follow.
        let mut carried = Carried::with_step(1.0);
        let mut stats = Stats::default();
        advance(&sys, &mut x, 2.0, &settings, &mut carried, &mut stats).unwrap();
        assert!(stats.rejected > 0, "no rejection to test");
        let attempts = stats.accepted + stats.rejected;
        // f and J at a substep start come from one combined evaluation, made
        // once per start point: a rejected substep retries from the same
        // point and reuses it.
        assert_eq!(sys.combined.get(), stats.accepted);
        assert_eq!(stats.jacobian_evals, stats.accepted);
        // Stages 3 and 4 evaluate f at new points in every attempt.
        assert_eq!(sys.rates.get(), 2 * attempts);
        assert_eq!(stats.rhs_evals, stats.accepted + 2 * attempts);
        let exact = Vector2::new(1.0 / 3.0, (-2.0f64).exp());
        assert!((x - exact).norm() < 1e-7, "{x} vs {exact}");
    }

    #[test]
    fn too_many_substeps_is_reported() {
        let mut x = Vector2::new(1.0, 1.0);
        let settings = SolverSettings {
            rtol: 1e-12,
            atol: 1e-14,
            max_substeps: 3,
            ..Default::default()
        };
        let err = advance(
            &Decay::EXACT,
            &mut x,
            10.0,
            &settings,
            &mut Carried::default(),
            &mut Stats::default(),
        )
        .unwrap_err();
        assert!(matches!(err, SolverError::TooManySubsteps { limit: 3, .. }));
        assert!(err.to_string().contains("max_substeps"));
    }

    /// The decay problem padded to five states, of which two are active.
    struct PaddedDecay;
    impl OdeSystem<5> for PaddedDecay {
        fn rates(&self, x: &SVector<f64, 5>) -> SVector<f64, 5> {
            SVector::<f64, 5>::from([-x[0] * x[0], -x[1], 0.0, 0.0, 0.0])
        }
        fn rates_and_jacobian(
            &self,
            x: &SVector<f64, 5>,
            j: &mut SMatrix<f64, 5, 5>,
        ) -> (SVector<f64, 5>, bool) {
            *j = {
                let mut j = SMatrix::<f64, 5, 5>::zeros();
                j[(0, 0)] = -2.0 * x[0];
                j[(1, 1)] = -1.0;
                j
            };
            (self.rates(x), true)
        }
        fn active_states(&self) -> usize {
            2
        }
    }

    #[test]
    fn inactive_states_change_nothing() {
        let settings = SolverSettings::default();
        let mut a = Vector2::new(1.0, 1.0);
        let mut b = SVector::<f64, 5>::from([1.0, 1.0, 0.0, 0.0, 0.0]);
        let (mut ca, mut cb) = (Carried::default(), Carried::default());
        let (mut sa, mut sb) = (Stats::default(), Stats::default());
        for _ in 0..20 {
            advance(&Decay::EXACT, &mut a, 0.1, &settings, &mut ca, &mut sa).unwrap();
            advance(&PaddedDecay, &mut b, 0.1, &settings, &mut cb, &mut sb).unwrap();
        }
        assert_eq!((a[0], a[1]), (b[0], b[1]));
        assert_eq!(sa, sb);
        assert_eq!((b[2], b[3], b[4]), (0.0, 0.0, 0.0));
    }

    /// Rates that are undefined (NaN) above x = 2, reached at t = 1.
    struct Undefined;
    impl OdeSystem<1> for Undefined {
        fn rates(&self, x: &SVector<f64, 1>) -> SVector<f64, 1> {
            SVector::<f64, 1>::new(if x[0] > 2.0 { f64::NAN } else { 1.0 })
        }
        fn rates_and_jacobian(
            &self,
            x: &SVector<f64, 1>,
            j: &mut SMatrix<f64, 1, 1>,
        ) -> (SVector<f64, 1>, bool) {
            *j = SMatrix::<f64, 1, 1>::zeros();
            (self.rates(x), true)
        }
    }

    #[test]
    fn undefined_right_hand_side_fails_cleanly() {
        let mut x = SVector::<f64, 1>::new(1.0);
        let r = advance(
            &Undefined,
            &mut x,
            2.0,
            &SolverSettings::default(),
            &mut Carried::default(),
            &mut Stats::default(),
        );
        assert!(
            matches!(r, Err(SolverError::StepSizeTooSmall { .. })),
            "{r:?}"
        );
        for method in [Method::ExplicitEuler, Method::Rk4] {
            let settings = SolverSettings {
                method,
                ..Default::default()
            };
            let mut x = SVector::<f64, 1>::new(1.0);
            let r = advance(
                &Undefined,
                &mut x,
                2.0,
                &settings,
                &mut Carried::default(),
                &mut Stats::default(),
            );
            assert!(matches!(r, Err(SolverError::NotFinite { .. })), "{r:?}");
        }
    }
}
