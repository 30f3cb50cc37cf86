//! A small volume whose pressure comes from a trained discrete-time
//! surrogate instead of the pressure build-up equation.
//!
//! The physics of a small volume `V` between an inflow and an outflow is
//! `dp/dt = B(p)/V (Q_in - Q_out)`: with `V` small and the flows steep in
//! `p`, the stiffest equation of a circuit. The surrogate (a NARX network as
//! in Ustinov et al. (2022), or a LOLIMOT local linear model tree as in
//! Štefan et al. (2007)) replaces it by a
//! map that gives the change of the pressure over each sample period `T`
//! from the flows, the bulk modulus and the volume at the period's end and
//! the pressure one period earlier:
//!
//! `p_k = p_(k-1) + S(Q_in(p_k), Q_out(p_k), B(p_k), V, p_(k-1))`
//!
//! (the change, not the pressure itself: over one short period the change
//! is a small part of the pressure's range, and a model of the pressure
//! would spend its accuracy on repeating `p_(k-1)`). The flows depend on
//! `p_k` itself (the orifices on both sides see it), so `p_k` is the root
//! of `g(p) = p - p_(k-1) - S(...)`, found by Newton's method on the
//! surrogate's analytic Jacobian. Between samples the pressure is held.
//! Taking the flows at the same instant, not one period late, keeps the
//! loop stable where the volume is stiff at the sample period; where Newton
//! cannot proceed (a surrogate whose slope makes `g` non-monotone far from
//! its training data) the step falls back to the explicit form with the
//! flows at `p_(k-1)`.

use std::sync::Arc;
use surrogates::Surrogate;

/// The surrogate's inputs, in the order a trained volume's model takes
/// them (circuits name them after their own flows, for example `Qv`, `Q3`,
/// `B`, `Vv`, `pv_prev`).
pub const INPUT_ROLES: [&str; 5] = [
    "flow into the volume, m3/s",
    "flow out of the volume, m3/s",
    "bulk modulus at the pressure, Pa",
    "the volume, m3",
    "the pressure one sample period earlier, Pa",
];

/// What the surrogate gives: the change of the pressure over one sample
/// period, Pa.
pub const OUTPUT_ROLE: &str = "the change of the pressure over the period, Pa";

/// The flows into and out of the volume at a trial pressure, with their
/// slopes: what the circuit around the volume says.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FlowsAt {
    /// Flow into the volume, m3/s.
    pub q_in: f64,
    /// Its derivative with respect to the volume's pressure, m3/(s Pa).
    pub dq_in: f64,
    /// Flow out of the volume, m3/s.
    pub q_out: f64,
    /// Its derivative with respect to the volume's pressure, m3/(s Pa).
    pub dq_out: f64,
    /// Bulk modulus at the trial pressure, Pa.
    pub bulk: f64,
    /// Its derivative with respect to the pressure (1).
    pub dbulk: f64,
}

/// A small volume with a trained pressure model.
#[derive(Debug, Clone)]
pub struct TrainedVolume {
    /// The volume, m3 (an input of the surrogate).
    pub volume: f64,
    /// The trained model.
    pub model: Arc<Surrogate>,
}

impl PartialEq for TrainedVolume {
    fn eq(&self, other: &Self) -> bool {
        self.volume == other.volume && Arc::ptr_eq(&self.model, &other.model)
    }
}

/// Newton iterations at most per sample.
const MAX_NEWTON: usize = 8;

/// Newton's step tolerance, relative to the largest pressure of the
/// bracket.
const NEWTON_TOLERANCE: f64 = 1e-6;

impl TrainedVolume {
    /// The sample period the model was trained for, s.
    pub fn period(&self) -> f64 {
        self.model.period()
    }

    /// The model's output at a trial pressure `p` with the flows `f` there,
    /// and its derivative with respect to `p` through the flows and the
    /// bulk modulus.
    fn evaluate(&self, p_prev: f64, f: &FlowsAt) -> (f64, f64) {
        let inputs = [f.q_in, f.q_out, f.bulk, self.volume, p_prev];
        let mut out = [0.0];
        let mut jac = [0.0; 5];
        self.model.eval_with_jacobian(&inputs, &mut out, &mut jac);
        let slope = jac[0] * f.dq_in + jac[1] * f.dq_out + jac[2] * f.dbulk;
        (out[0], slope)
    }

    /// The pressure at the end of a sample period, Pa: the root of
    /// `p = p_prev + S(Q_in(p), Q_out(p), B(p), V, p_prev)` inside `[lo, hi]` (the
    /// pressures the circuit can reach), from Newton's method started at
    /// `p_prev`; `flows(p)` gives the circuit's flows at a trial pressure.
    /// Allocates nothing.
    pub fn next_pressure(
        &self,
        p_prev: f64,
        (lo, hi): (f64, f64),
        flows: impl Fn(f64) -> FlowsAt,
    ) -> f64 {
        // A millionth of the pressure range: far below what a surrogate
        // reproduces (its error per period is 1e-4 to 1e-3 of the range),
        // so that most periods of a slow stretch take one evaluation.
        let tolerance = NEWTON_TOLERANCE * lo.abs().max(hi.abs()).max(1.0);
        let mut p = p_prev.clamp(lo, hi);
        for _ in 0..MAX_NEWTON {
            let (s, ds) = self.evaluate(p_prev, &flows(p));
            let (g, dg) = (p - p_prev - s, 1.0 - ds);
            if !(dg > 0.0 && g.is_finite()) {
                // The explicit form (flows one period late), as Ustinov et
                // al. (2022) run it.
                return p_prev + self.evaluate(p_prev, &flows(p_prev)).0;
            }
            let next = (p - g / dg).clamp(lo, hi);
            let done = (next - p).abs() <= tolerance;
            p = next;
            if done {
                break;
            }
        }
        p
    }
}
