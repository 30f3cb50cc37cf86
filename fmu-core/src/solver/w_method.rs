//! The adaptive Rosenbrock-W method ROS34PW2 (Rang and Angermann 2005),
//! [`Method::RosenbrockW`](super::Method) and, stepping past communication
//! points, [`Method::RosenbrockWAhead`](super::Method): the method for
//! real-time use, with its Jacobian and LU factors kept across substeps and
//! communication steps ([`super::reuse`]).
//!
//! Where the model declares clamped states ([`OdeSystem::clamps`]), a
//! substep that would carry one across its bound is taken again, shortened
//! to end on the bound (located by linear interpolation), and the state is
//! put on it: the rate jumps there, and substeps across the jump would be
//! rejected by the error estimate again and again. Where the model has
//! event indicators ([`OdeSystem::event_indicator_count`]) and a rejected
//! substep contains a sign change, the retry ends just past the first one
//! (linear interpolation) instead of a blind cut. Stepping ahead, a
//! substep is not cut at the communication point while the inputs are
//! held: it may end up to [`MAX_AHEAD`] points beyond, the states at those
//! points are interpolated ([`Segment`]), and the next communication steps
//! are served from it.

use super::reuse::reuse_of;
use super::step_control::{
    Controller, HARD_CUT, after_accepted, error_norm, first_step, smallest_step, toward_point,
};
use super::tableau::ROS34PW2;
use super::{
    Carried, MAX_EVENT_INDICATORS, Method, OdeSystem, Segment, SolverError, SolverSettings, Stats,
};
use nalgebra::SVector;

/// A substep that would carry a clamped state across its bound is taken
/// again, shortened to end this fraction of its length before the crossing
/// (linear interpolation of the state), and the state is put on the bound.
pub const EVENT_MARGIN: f64 = 1e-3;

/// A substep rejected across a switch is taken again to end just past the
/// switch (located by linear interpolation of the event indicator):
/// longer than the located length by this fraction of it, ...
pub const SWITCH_MARGIN: f64 = 1e-3;

/// ... and at least this fraction of the rejected substep, so that a state
/// that sits on the switch to rounding moves past it.
pub const SWITCH_FLOOR: f64 = 1e-6;

/// Locating a switch only pays when it shortens the rejected substep to at
/// most this fraction of it; else the step control cuts as usual.
pub const SWITCH_USEFUL: f64 = 0.9;

/// The fraction of the way from `before` to `after` (linear
/// interpolation) at which the first of the event indicators changes
/// sign, if one does (a function that starts at zero does not count).
fn first_sign_change(before: &[f64], after: &[f64]) -> Option<f64> {
    before
        .iter()
        .zip(after)
        .filter(|&(&a, &b)| (a > 0.0 && b <= 0.0) || (a < 0.0 && b >= 0.0))
        .map(|(&a, &b)| a / (a - b))
        .min_by(f64::total_cmp)
}

/// Stepping ahead, a substep ends at most this many communication steps
/// beyond the point: the interpolation's error grows with the cube of the
/// distance (near a steady state the step control would let one substep
/// span seconds), and inputs that change in between throw the rest away.
pub const MAX_AHEAD: f64 = 8.0;

/// [`Method::RosenbrockW`](super::Method): ROS34PW2 with adaptive substeps,
/// the Jacobian and the LU factors reused (module docs); also
/// [`Method::RosenbrockWAhead`](super::Method).
pub(super) fn adaptive<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &mut SVector<f64, N>,
    duration: f64,
    settings: &SolverSettings,
    carried: &mut Carried<N>,
    stats: &mut Stats,
) -> Result<(), SolverError> {
    let tableau = &ROS34PW2;
    let nominal = sys.nominal();
    let active = sys.active_states().min(N);
    let h_min = smallest_step(duration);
    // Time from the communication point the integration state is at, and
    // f there when known.
    let mut t = 0.0;
    let mut f0: Option<SVector<f64, N>> = None;
    // The start and length of the last accepted substep (for the
    // interpolation beyond the point).
    let mut previous: Option<(SVector<f64, N>, f64)> = None;
    // And the one before it.
    let mut before: Option<(SVector<f64, N>, f64)> = None;
    let stepping_ahead = settings.method == Method::RosenbrockWAhead;
    let ahead = stepping_ahead && carried.steady;
    if let Some(seg) = carried.ahead.as_mut().filter(|_| ahead) {
        let target = seg.at + duration;
        // Rounding of the points' times does not make a substep of 1e-18 s.
        if target <= seg.h + 1e-9 * duration {
            seg.at = target.min(seg.h);
            *x = seg.state_at(seg.at);
            for c in sys.clamps() {
                c.hold(x);
            }
            return Ok(());
        }
        // Go on from the segment's end (a segment that ends on the point
        // has no rates there).
        *x = seg.x1;
        f0 = (seg.at < seg.h).then_some(seg.f1);
        t = seg.h - seg.at;
        previous = Some((seg.x0, seg.h));
        before = (seg.hp > 0.0).then_some((seg.xp, seg.hp));
    }
    carried.ahead = None;
    let mut h = first_step(carried.h, sys, x, duration, settings, stats);
    let r = reuse_of(carried);
    let mut substeps: u32 = 0;
    let mut rejected_last = false;
    // The substep that ends beyond the communication point (ahead only).
    let mut segment: Option<Segment<N>> = None;
    // A clamp event being located: the state and bound it goes to, and the
    // substep size to resume with after it.
    let mut event: Option<(usize, f64, f64)> = None;
    // The event indicators at the present state, and whether the substep
    // being tried was shortened to end just past a switch.
    let indicators = sys.event_indicator_count().min(MAX_EVENT_INDICATORS);
    let mut z_now = [0.0; MAX_EVENT_INDICATORS];
    let mut z_new = [0.0; MAX_EVENT_INDICATORS];
    if indicators > 0 {
        sys.event_indicator_values(x, &mut z_now[..indicators]);
    }
    let mut located = false;
    let outcome = loop {
        if t >= duration {
            break Ok(());
        }
        if substeps >= settings.max_substeps {
            break Err(SolverError::TooManySubsteps {
                t,
                limit: settings.max_substeps,
            });
        }
        substeps += 1;
        let remaining = duration - t;
        // Beyond the point only with an earlier substep to interpolate
        // with (see Segment).
        let beyond = ahead && previous.is_some();
        // (A substep shortened to end on a clamp's bound is taken as it is;
        // stepping ahead, a substep ends on the point only when it nearly
        // does anyway.)
        let (last, mut h_try) = if event.is_some() {
            let last = h >= remaining;
            (last, if last { remaining } else { h })
        } else if beyond {
            let last = h >= remaining && h <= 1.01 * remaining;
            let h_try = if last {
                remaining
            } else {
                h.min(remaining + MAX_AHEAD * duration)
            };
            (last, h_try)
        } else {
            toward_point(h, remaining)
        };
        // A little shorter than allowed, to keep the factors (not when
        // ending on a clamp's bound).
        if !last && event.is_none() {
            h_try = r.keeping_factors(h_try, tableau.gamma);
        }
        let fresh_jacobian = !r.has_jacobian();
        let f = match f0 {
            Some(f) if !fresh_jacobian => f,
            _ if fresh_jacobian => r.refresh(sys, x, stats),
            _ => {
                stats.rhs_evals += 1;
                sys.rates(x)
            }
        };
        f0 = Some(f);
        let outcome = if r.factors_for(h_try, tableau.gamma, active, &nominal, stats) {
            r.step(tableau, sys, x, &f, h_try, stats)
                .map(|(x_new, err)| {
                    let e = error_norm(&err, x, &x_new, &nominal, settings, active);
                    (x_new, e)
                })
        } else {
            None
        };
        // Event location: a clamped state carried across its bound ends
        // the substep on the bound (the rate jumps there; a substep across
        // it would be rejected by its error estimate, again and again).
        if let Some((x_new, _)) = &outcome {
            let first = sys
                .clamps()
                .iter()
                .filter_map(|c| c.crossing(x, x_new).map(|(th, b)| (th, c.state, b)))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((theta, state, bound)) = first {
                let h_event = h_try * theta * (1.0 - EVENT_MARGIN);
                let resume = event.map_or(h_try, |e| e.2);
                event = Some((state, bound, resume));
                if theta < 1.0 - 2.0 * EVENT_MARGIN && h_event > h_min {
                    stats.rejected += 1;
                    h = h_event;
                    continue;
                }
            }
        }
        match outcome {
            Some((x_new, e)) if e <= 1.0 => {
                // Ended just short of the bound it was shortened for: on the
                // bound; the Jacobian changes there (the rate is held), take
                // a new one.
                // (At least halfway from where it was: the interpolation
                // may be rough where the state's path curves.)
                let landed = event.take().filter(|&(state, bound, _)| {
                    (x_new[state] - bound).abs() <= 0.5 * (x[state] - bound).abs()
                });
                let x_start = *x;
                *x = x_new;
                f0 = None;
                let resume = landed.map(|(state, bound, resume)| {
                    x[state] = bound;
                    r.renew_jacobian();
                    resume
                });
                for c in sys.clamps() {
                    c.hold(x);
                }
                if indicators > 0 {
                    sys.event_indicator_values(x, &mut z_now[..indicators]);
                }
                // Past a located switch the rates follow another law: a
                // new Jacobian. (The step size goes on from the short
                // substep: a stop's contact wants short ones.)
                if std::mem::take(&mut located) {
                    r.renew_jacobian();
                }
                stats.accepted += 1;
                r.accepted();
                // Beyond the communication point (ahead only): the state
                // there will be interpolated; f at the end is what the next
                // substep starts with.
                if !last && t + h_try > duration {
                    let f_end = sys.rates(x);
                    stats.rhs_evals += 1;
                    let (xp, hp) = previous.unwrap_or((x_start, 0.0));
                    let (xq, hq) = before.filter(|_| hp > 0.0).unwrap_or((x_start, 0.0));
                    segment = Some(Segment {
                        xq,
                        hq,
                        xp,
                        hp,
                        x0: x_start,
                        x1: *x,
                        f1: f_end,
                        h: h_try,
                        at: duration - t,
                    });
                }
                before = previous;
                previous = Some((x_start, h_try));
                t = if last { duration } else { t + h_try };
                let factor = Controller::CubeRoot.accepted(e, rejected_last);
                h = after_accepted(h, h_try, last, factor);
                // After an event the step size before it is a better
                // guess than the short step that ended on the bound.
                if let Some(resume) = resume {
                    h = h.max(resume);
                }
                rejected_last = false;
            }
            other => {
                stats.rejected += 1;
                event = None;
                // An event indicator changing sign inside the substep (a
                // kink or jump of the rates that the error estimate sees):
                // the retry ends just past the first switch, once.
                let switch = match &other {
                    Some((x_new, _)) if indicators > 0 && !located => {
                        sys.event_indicator_values(x_new, &mut z_new[..indicators]);
                        first_sign_change(&z_now[..indicators], &z_new[..indicators])
                    }
                    _ => None,
                }
                .map(|theta| (h_try * theta * (1.0 + SWITCH_MARGIN)).max(h_try * SWITCH_FLOOR))
                .filter(|&h_switch| h_switch > h_min && h_switch < SWITCH_USEFUL * h_try);
                located = switch.is_some();
                h = match (switch, other) {
                    (Some(h_switch), _) => h_switch,
                    (None, Some((_, e))) if e.is_finite() => {
                        h_try * Controller::CubeRoot.rejected(e)
                    }
                    // Singular W or a non-finite result: cut hard.
                    _ => h_try * HARD_CUT,
                };
                // An old Jacobian may be what failed: the retry takes a
                // fresh one (see SUSPECT_AGE).
                r.rejected(fresh_jacobian);
                rejected_last = true;
            }
        }
        if h < h_min {
            break Err(SolverError::StepSizeTooSmall { t, h });
        }
    };
    match outcome {
        Ok(()) => {
            carried.h = h;
            if let Some(seg) = segment {
                *x = seg.state_at(seg.at);
                for c in sys.clamps() {
                    c.hold(x);
                }
                carried.ahead = Some(seg);
            } else if let Some((x_start, h_last)) = previous.filter(|_| stepping_ahead) {
                // Ended on the point: the last substep, so that the next
                // communication step, if its inputs are the same, may step
                // beyond with it as the earlier substep.
                let (xp, hp) = before.unwrap_or((x_start, 0.0));
                carried.ahead = Some(Segment {
                    xq: x_start,
                    hq: 0.0,
                    xp,
                    hp,
                    x0: x_start,
                    x1: *x,
                    f1: SVector::zeros(),
                    h: h_last,
                    at: h_last,
                });
            }
        }
        Err(SolverError::StepSizeTooSmall { .. }) => {
            carried.h = 0.0;
            carried.forget();
        }
        Err(_) => {
            carried.h = h;
            carried.forget();
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::super::reuse::{MAX_JACOBIAN_AGE, Reuse, ReuseRecord};
    use super::super::{Clamp, advance};
    use super::*;
    use nalgebra::{SMatrix, Vector2};

    /// A linear system with eigenvalues near -1.7 and -1e6.
    struct Stiff;
    impl OdeSystem<2> for Stiff {
        fn rates(&self, x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::new(-x[0] + x[1], -1e6 * (x[1] - x[0].cos()))
        }
        fn rates_and_jacobian(
            &self,
            x: &Vector2<f64>,
            j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            let analytic = {
                j[(0, 0)] = -1.0;
                j[(0, 1)] = 1.0;
                j[(1, 0)] = -1e6 * x[0].sin();
                j[(1, 1)] = -1e6;
                true
            };
            (self.rates(x), analytic)
        }
    }

    #[test]
    fn adaptive_reuses_jacobian_and_factors_at_a_steady_step() {
        let settings = SolverSettings {
            method: Method::RosenbrockW,
            rtol: 1e-4,
            atol: 1e-6,
            ..Default::default()
        };
        let mut x = Vector2::new(1.0, 1.0);
        let mut carried = Carried::default();
        let mut stats = Stats::default();
        for _ in 0..1000 {
            advance(&Stiff, &mut x, 1e-3, &settings, &mut carried, &mut stats).unwrap();
        }
        // Stiff and stable at 1 ms: one substep per call after the initial
        // transient, a Jacobian every MAX_JACOBIAN_AGE substeps, hardly
        // more factorizations than that.
        assert!(stats.accepted < 1100, "{stats:?}");
        assert!(stats.jacobian_evals <= 1000 / u64::from(MAX_JACOBIAN_AGE) + 10);
        assert!(stats.factorizations < stats.accepted / 20, "{stats:?}");
        // Against Rodas3 at tight tolerances.
        let tight = SolverSettings {
            rtol: 1e-10,
            atol: 1e-12,
            ..Default::default()
        };
        let mut y = Vector2::new(1.0, 1.0);
        let mut c = Carried::default();
        advance(&Stiff, &mut y, 1.0, &tight, &mut c, &mut Stats::default()).unwrap();
        assert!((x - y).norm() < 1e-4 * y.norm(), "{x} vs {y}");
    }

    #[test]
    fn record_round_trip_steps_bit_identically() {
        let settings = SolverSettings {
            method: Method::RosenbrockW,
            rtol: 1e-5,
            ..Default::default()
        };
        let mut x = Vector2::new(1.0, 1.0);
        let mut carried = Carried::default();
        let mut stats = Stats::default();
        for _ in 0..7 {
            advance(&Stiff, &mut x, 1e-3, &settings, &mut carried, &mut stats).unwrap();
        }
        let record = carried.reuse.as_ref().unwrap().record();
        assert!(record.jac.is_some() && record.lu_h > 0.0);
        let mut copy = Carried {
            h: carried.h,
            reuse: Some(Box::new(Reuse::from_record(&record).unwrap())),
            ..Carried::default()
        };
        let (mut y, mut stats_copy) = (x, stats);
        for _ in 0..30 {
            advance(&Stiff, &mut x, 1e-3, &settings, &mut carried, &mut stats).unwrap();
            advance(&Stiff, &mut y, 1e-3, &settings, &mut copy, &mut stats_copy).unwrap();
            assert_eq!(x, y);
        }
        // The factors formed again after deserialization are not counted.
        assert_eq!(stats, stats_copy);
        for bad in [
            ReuseRecord {
                lu_h: f64::NAN,
                ..record.clone()
            },
            ReuseRecord {
                lu_gamma: 0.0,
                ..record.clone()
            },
            ReuseRecord {
                jac: None,
                ..record.clone()
            },
        ] {
            assert!(Reuse::<2>::from_record(&bad).is_none(), "{bad:?}");
        }
    }

    /// A throttle-like state closing at rate 1 until its clamp at 0 holds
    /// it (the rate jumps to zero there), beside a smooth decay.
    struct Closing {
        clamps: [Clamp; 1],
    }
    impl Closing {
        fn new(declared: bool) -> Self {
            Closing {
                clamps: [Clamp {
                    state: 0,
                    lower: if declared { 0.0 } else { f64::NEG_INFINITY },
                    upper: f64::INFINITY,
                }],
            }
        }
    }
    impl OdeSystem<2> for Closing {
        fn rates(&self, x: &Vector2<f64>) -> Vector2<f64> {
            let held = x[0] <= 0.0;
            Vector2::new(if held { 0.0 } else { -1.0 }, -x[1])
        }
        fn rates_and_jacobian(
            &self,
            _x: &Vector2<f64>,
            j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            let analytic = {
                j[(1, 1)] = -1.0;
                true
            };
            (self.rates(_x), analytic)
        }
        fn clamps(&self) -> &[Clamp] {
            &self.clamps
        }
    }

    #[test]
    fn a_clamp_is_located_instead_of_rejected_across() {
        let settings = SolverSettings {
            method: Method::RosenbrockW,
            rtol: 1e-6,
            atol: 1e-9,
            ..Default::default()
        };
        let run = |declared: bool| {
            let sys = Closing::new(declared);
            let mut x = Vector2::new(0.3071, 1.0);
            let mut carried = Carried::prepared();
            let mut stats = Stats::default();
            for _ in 0..100 {
                advance(&sys, &mut x, 1e-2, &settings, &mut carried, &mut stats).unwrap();
            }
            (x, stats)
        };
        let (located, with) = run(true);
        let (crossed, without) = run(false);
        // On the bound exactly, and the smooth state as accurate as ever.
        assert_eq!(located[0], 0.0);
        assert!((located[1] - (-1.0f64).exp()).abs() < 1e-5, "{located}");
        assert!(crossed[0] <= 0.0 && crossed[0] > -1e-6, "{crossed}");
        // Locating the crossing takes a few substeps more here, where one
        // crossing is all (on ValveCylinder, whose throttle reaches its
        // clamp again and again, it saves a third of the rejections).
        let work = |s: Stats| s.accepted + s.rejected;
        assert!(
            work(with) < work(without) + 20,
            "located: {with:?}; crossed: {without:?}"
        );
    }

    /// x0' = 1 (a clock), x1' = max(0, x0 - 0.5): a kink of the rate where
    /// the switching function x0 - 0.5 changes sign (declared or not), like
    /// a valve edge opening.
    struct Kink {
        declared: bool,
    }
    impl OdeSystem<2> for Kink {
        fn rates(&self, x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::new(1.0, (x[0] - 0.5).max(0.0))
        }
        fn rates_and_jacobian(
            &self,
            _x: &Vector2<f64>,
            _j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            let analytic = { true };
            (self.rates(_x), analytic)
        }
        fn event_indicator_count(&self) -> usize {
            usize::from(self.declared)
        }
        fn event_indicator_values(&self, x: &Vector2<f64>, z: &mut [f64]) {
            z[0] = x[0] - 0.5;
        }
    }

    #[test]
    fn a_switch_is_located_instead_of_cut_across() {
        let settings = SolverSettings {
            method: Method::RosenbrockW,
            rtol: 1e-10,
            atol: 1e-10,
            ..Default::default()
        };
        let run = |declared: bool| {
            let sys = Kink { declared };
            let mut x = Vector2::new(0.0, 0.0);
            let mut carried = Carried::prepared();
            let mut stats = Stats::default();
            advance(&sys, &mut x, 1.0, &settings, &mut carried, &mut stats).unwrap();
            (x, stats)
        };
        let (located, with) = run(true);
        let (cut, without) = run(false);
        // Both within the tolerance of x1(1) = 0.125 (each piece is a
        // polynomial the method integrates exactly: only the substep across
        // the kink errs) ...
        for x in [located, cut] {
            assert!(
                (x[0] - 1.0).abs() < 1e-12 && (x[1] - 0.125).abs() < 1e-7,
                "{x}"
            );
        }
        // ... but locating the switch takes fewer rejections and less work
        // than cutting the substep across it again and again (here 6 and
        // 31 substeps against 10 and 35).
        let work = |s: Stats| s.accepted + s.rejected;
        assert!(
            with.rejected + 3 <= without.rejected && work(with) < work(without),
            "located: {with:?}; cut across: {without:?}"
        );
    }

    #[test]
    fn stepping_ahead_serves_held_inputs_from_fewer_substeps() {
        let settings = SolverSettings {
            method: Method::RosenbrockWAhead,
            rtol: 1e-4,
            atol: 1e-6,
            ..Default::default()
        };
        // Tight Rodas3 at every point, for reference.
        let tight = SolverSettings {
            rtol: 1e-10,
            atol: 1e-12,
            ..Default::default()
        };
        let mut y = Vector2::new(1.0, 1.0);
        let mut c = Carried::default();
        let reference: Vec<_> = (0..1000)
            .map(|_| {
                advance(&Stiff, &mut y, 1e-3, &tight, &mut c, &mut Stats::default()).unwrap();
                y
            })
            .collect();
        // `held`: the inputs stay (fmu-core says so after each step).
        let run = |held: bool| {
            let mut x = Vector2::new(1.0, 1.0);
            let mut carried = Carried::prepared();
            let mut stats = Stats::default();
            let mut worst: f64 = 0.0;
            for expected in &reference {
                advance(&Stiff, &mut x, 1e-3, &settings, &mut carried, &mut stats).unwrap();
                worst = worst.max((x - expected).norm() / expected.norm());
                carried.steady = held;
                if !held {
                    carried.inputs_changed();
                }
            }
            (worst, stats, carried)
        };
        let (error, ahead, carried) = run(true);
        // A substep serves several 1 ms points, each within the tolerance.
        assert!(ahead.accepted < 400, "{ahead:?}");
        assert!(error < 1e-4, "worst relative error {error:e}");
        assert!(carried.ahead.is_some_and(|s| s.is_valid()));
        // Inputs changing at every point: no substep beyond a point, the
        // work of the plain W method.
        let (error, every, carried) = run(false);
        assert!(every.accepted >= 1000, "{every:?}");
        assert!(error < 1e-4, "worst relative error {error:e}");
        assert!(carried.ahead.is_none());
    }
}
