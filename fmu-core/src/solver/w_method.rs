//! Linearly implicit integration with the Jacobian and the LU factors
//! kept between substeps: the methods for real-time use,
//! [`Method::RosenbrockW`](super::Method) (adaptive) and
//! [`Method::FixedCost`](super::Method) (the same work in every `doStep`).
//!
//! Both are 4-stage Rosenbrock formulas written for an autonomous system
//! `x' = f(x)` (the inputs are held over a communication step) in the form
//!
//! ```text
//! (I / (h gamma) - A) u_i = f(x + sum_j a_ij u_j) + sum_j (c_ij / h) u_j
//! x+ = x + sum_i m_i u_i,     error = sum_i e_i u_i
//! ```
//!
//! where `A` approximates the Jacobian. The LU factors are those of
//! `W = I - h gamma A` (the stage systems are scaled by `h gamma`).
//!
//! - **Adaptive** ([`ROS34PW2`]): the Rosenbrock-W method ROS34PW2 of Rang
//!   and Angermann (BIT Numer. Math. 45, 2005), order 3 with an embedded
//!   order-2 solution, L-stable and stiffly accurate, whose order
//!   conditions hold for *any* matrix `A`: an outdated Jacobian costs
//!   accuracy only through the error estimate, which the step control
//!   sees. So `A` and the factors are kept across substeps and
//!   communication steps: the Jacobian is evaluated when there is none,
//!   after a substep rejected with an old one, and after
//!   [`MAX_JACOBIAN_AGE`] accepted substeps; the factors are formed again
//!   when the substep size changes (a proposed size at most [`FREEZE`] times
//!   the factors' size takes the factors' size instead). From the second
//!   substep that uses the same factors on, the stage systems are solved by
//!   a product with the explicit inverse of `W` (scaled by the states'
//!   nominal values), formed once from the factors: a product has no chain
//!   of dependent operations, a substitution has. Where the model declares
//!   clamped states ([`OdeSystem::clamps`]), a
//!   substep that would carry one across its bound is taken again,
//!   shortened to end on the bound (located by linear interpolation), and
//!   the state is put on it: the rate jumps there, and substeps across the
//!   jump would be rejected by the error estimate again and again. Where
//!   the model has switching functions ([`OdeSystem::switch_count`], the
//!   Model Exchange event indicators) and a rejected substep contains a
//!   sign change, the retry ends just past the first one (linear
//!   interpolation) instead of a blind cut. With
//!   [`Method::RosenbrockWAhead`](super::Method) a substep is not cut at
//!   the communication point while the inputs are held: it may end up to
//!   [`MAX_AHEAD`] points beyond, the states at those points are
//!   interpolated ([`Segment`]), and the next
//!   communication steps are served from it. The
//!   coefficients below are the paper's `alpha`, `Gamma`, `b` and `b^`
//!   transformed to this form (`a = alpha Gamma^-1`, `c = diag(1/gamma) - Gamma^-1`,
//!   `m = b Gamma^-1`, `e = (b - b^) Gamma^-1`).
//! - **Fixed cost** ([`RODAS3`], the coefficients of the default
//!   integrator): `fixed_substeps` equal substeps per `doStep`; `f` and the
//!   Jacobian are evaluated once at its start and `W` is factorized once;
//!   no error estimate, no rejection, no data-dependent branch in the
//!   amount of work (the explicit inverse, from the second substep on, is
//!   part of every `doStep` with more than one substep). The first substep
//!   is exact Rodas3, the later ones of a `doStep` reuse its Jacobian.

use super::{
    Carried, MAX_SWITCHES, Method, OdeSystem, Segment, SolverError, SolverSettings, Stats,
    error_norm, initial_step, rates_and_jacobian,
};
use crate::linalg::{Rows, factor_in_place, solve_in_place};
use nalgebra::{SMatrix, SVector};

/// Accepted substeps after which the adaptive method evaluates the
/// Jacobian anew although its error estimates never asked for it: the
/// formula keeps its order with any matrix, but its stability comes from
/// the matrix being close to the true Jacobian.
pub const MAX_JACOBIAN_AGE: u32 = 50;

/// A proposed substep up to this factor longer than the one the LU
/// factors were made for takes the factors' length, and keeps them.
pub const FREEZE: f64 = 1.25;

/// A substep that would carry a clamped state across its bound is taken
/// again, shortened to end this fraction of its length before the crossing
/// (linear interpolation of the state), and the state is put on the bound.
pub const EVENT_MARGIN: f64 = 1e-3;

/// A substep rejected across a switch is taken again to end just past the
/// switch (located by linear interpolation of the switching function):
/// longer than the located length by this fraction of it, ...
pub const SWITCH_MARGIN: f64 = 1e-3;

/// ... and at least this fraction of the rejected substep, so that a state
/// that sits on the switch to rounding moves past it.
pub const SWITCH_FLOOR: f64 = 1e-6;

/// A rejected substep takes a new Jacobian for its retry when the one it
/// used has served this many accepted substeps (an outdated Jacobian may
/// be what failed); a younger one is kept: the rejection came from the
/// step size or a switch, and the retry would evaluate the same matrix.
pub const SUSPECT_AGE: u32 = 3;

/// Locating a switch only pays when it shortens the rejected substep to at
/// most this fraction of it; else the step control cuts as usual.
pub const SWITCH_USEFUL: f64 = 0.9;

/// The fraction of the way from `before` to `after` (linear
/// interpolation) at which the first of the switching functions changes
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

/// ROS34PW2 (Rang and Angermann 2005), transformed; the adaptive W method.
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

/// Rodas3 (the default integrator's coefficients, see the parent module);
/// the fixed-cost method.
pub static RODAS3: Tableau = Tableau {
    gamma: super::GAMMA,
    a: super::A,
    c: super::C,
    m: super::M,
    e: super::E,
    new_f: super::NEW_F,
};

/// What the linearly implicit real-time methods keep between substeps and
/// communication steps: part of the instance's state (copied into FMU
/// states and serialized, so that a restored instance steps
/// bit-identically).
#[derive(Debug, Clone, PartialEq)]
pub struct Reuse<const N: usize> {
    /// The Jacobian `A`.
    jac: SMatrix<f64, N, N>,
    /// Whether `jac` holds a Jacobian.
    jac_valid: bool,
    /// Accepted substeps since `jac` was evaluated.
    jac_age: u32,
    /// LU factors of `W = I - lu_h lu_gamma A` (rows, reciprocal pivots).
    lu: Rows<N>,
    /// Their row permutation.
    perm: [usize; N],
    /// The substep size the factors are for; 0 when there are none.
    lu_h: f64,
    /// The diagonal coefficient they are for.
    lu_gamma: f64,
    /// Whether `lu` holds those factors (false after deserialization: they
    /// are formed again, bit for bit and uncounted, when next used).
    lu_ready: bool,
    /// Substeps that used these factors.
    lu_uses: u32,
    /// `W^-1` scaled by the states' nominal values, `D^-1 W^-1 D` (rows),
    /// formed from the factors when a second substep uses them: a solve is
    /// then a product with it, free of the substitutions' chain of
    /// dependent operations (a fifth of the time for 9 states).
    inv: Rows<N>,
    /// The nominal values `D` of that scaling, and their reciprocals.
    scale: SVector<f64, N>,
    inv_scale: SVector<f64, N>,
    /// Whether `inv` belongs to the present factors.
    inv_ready: bool,
}

/// What [`Reuse`] keeps, as plain numbers for serialization (the LU
/// factors follow from them).
#[derive(Debug, Clone, PartialEq)]
pub struct ReuseRecord<const N: usize> {
    /// The Jacobian, if there is one.
    pub jac: Option<SMatrix<f64, N, N>>,
    /// Accepted substeps since it was evaluated.
    pub jac_age: u32,
    /// The substep size of the LU factors (0: none).
    pub lu_h: f64,
    /// Their diagonal coefficient.
    pub lu_gamma: f64,
    /// Substeps that used them (from the second on, solves go through
    /// the explicit inverse).
    pub lu_uses: u32,
}

impl<const N: usize> Default for Reuse<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Reuse<N> {
    /// Nothing to reuse yet.
    pub fn new() -> Self {
        Reuse {
            jac: SMatrix::zeros(),
            jac_valid: false,
            jac_age: 0,
            lu: [[0.0; N]; N],
            perm: [0; N],
            lu_h: 0.0,
            lu_gamma: 0.0,
            lu_ready: false,
            lu_uses: 0,
            inv: [[0.0; N]; N],
            scale: SVector::repeat(1.0),
            inv_scale: SVector::repeat(1.0),
            inv_ready: false,
        }
    }

    /// Forgets everything (the model or its parameters changed, a step
    /// failed).
    pub fn forget(&mut self) {
        self.jac_valid = false;
        self.lu_h = 0.0;
        self.lu_ready = false;
        self.lu_uses = 0;
        self.inv_ready = false;
    }

    /// The numbers that define this state.
    pub fn record(&self) -> ReuseRecord<N> {
        let valid = self.jac_valid;
        ReuseRecord {
            jac: valid.then_some(self.jac),
            jac_age: if valid { self.jac_age } else { 0 },
            lu_h: if valid { self.lu_h } else { 0.0 },
            lu_gamma: if valid && self.lu_h > 0.0 {
                self.lu_gamma
            } else {
                0.0
            },
            lu_uses: if valid && self.lu_h > 0.0 {
                self.lu_uses
            } else {
                0
            },
        }
    }

    /// A reuse state from its numbers; `None` when they are not finite,
    /// negative, or name factors without a Jacobian.
    pub fn from_record(record: &ReuseRecord<N>) -> Option<Self> {
        let finite_jac = record
            .jac
            .as_ref()
            .is_none_or(|j| j.iter().all(|v| v.is_finite()));
        let sizes_ok = [record.lu_h, record.lu_gamma]
            .iter()
            .all(|v| v.is_finite() && *v >= 0.0);
        if !finite_jac
            || !sizes_ok
            || ((record.lu_h > 0.0) != (record.lu_gamma > 0.0))
            || (record.jac.is_none() && (record.lu_h != 0.0 || record.jac_age != 0))
            || (record.lu_h == 0.0 && record.lu_uses != 0)
        {
            return None;
        }
        let mut r = Reuse::new();
        if let Some(j) = record.jac {
            r.jac = j;
            r.jac_valid = true;
            r.jac_age = record.jac_age;
            r.lu_h = record.lu_h;
            r.lu_gamma = record.lu_gamma;
            r.lu_uses = record.lu_uses;
        }
        Some(r)
    }

    /// Evaluates `f` (returned) and the Jacobian at `x`.
    fn refresh<S: OdeSystem<N>>(
        &mut self,
        sys: &S,
        x: &SVector<f64, N>,
        stats: &mut Stats,
    ) -> SVector<f64, N> {
        let f = rates_and_jacobian(sys, x, &mut self.jac, stats);
        self.jac_valid = true;
        self.jac_age = 0;
        self.lu_h = 0.0;
        self.lu_ready = false;
        f
    }

    /// Forms and factorizes `W = I - h gamma A` over the leading `active`
    /// states (identity beyond); false when singular.
    fn factor(&mut self, h: f64, gamma: f64, active: usize) -> bool {
        let c = h * gamma;
        for (r, row) in self.lu.iter_mut().enumerate().take(active) {
            for (col, v) in row.iter_mut().enumerate().take(active) {
                *v = -c * self.jac[(r, col)];
            }
            row[r] += 1.0;
        }
        for (i, row) in self.lu.iter_mut().enumerate().skip(active) {
            row[i] = 1.0;
        }
        self.lu_h = h;
        self.lu_gamma = gamma;
        self.lu_uses = 0;
        self.inv_ready = false;
        match factor_in_place(&mut self.lu, active) {
            Some(perm) => {
                self.perm = perm;
                self.lu_ready = true;
                true
            }
            None => {
                self.lu_h = 0.0;
                self.lu_ready = false;
                false
            }
        }
    }

    /// Makes the factors for `h` and `gamma` current: kept when they are
    /// for both, formed again uncounted when a deserialized state names
    /// them, else formed and counted. False when `W` is singular.
    fn factors_for(
        &mut self,
        h: f64,
        gamma: f64,
        active: usize,
        nominal: &SVector<f64, N>,
        stats: &mut Stats,
    ) -> bool {
        let named = self.lu_h > 0.0 && self.lu_h == h && self.lu_gamma == gamma;
        if !(named && self.lu_ready) {
            // A deserialized state naming these factors gets them (and their
            // inverse, if it had one) as they were.
            let uses = if named { self.lu_uses } else { 0 };
            if !self.factor(h, gamma, active) {
                return false;
            }
            if named {
                self.lu_uses = uses;
                if uses >= 2 {
                    self.invert(active, nominal);
                }
            } else {
                stats.factorizations += 1;
            }
        }
        self.used(active, nominal);
        true
    }

    /// Counts a substep that uses the factors; the second forms the
    /// scaled inverse.
    fn used(&mut self, active: usize, nominal: &SVector<f64, N>) {
        self.lu_uses = self.lu_uses.saturating_add(1);
        if self.lu_uses == 2 {
            self.invert(active, nominal);
        }
    }

    /// Forms `D^-1 W^-1 D` over the active block from the factors, column
    /// by column, with `D` the nominal values (so that its entries are of
    /// similar size whatever the states' units).
    fn invert(&mut self, active: usize, nominal: &SVector<f64, N>) {
        for i in 0..N {
            let n = nominal[i].abs();
            self.scale[i] = if n > 0.0 && n.is_finite() { n } else { 1.0 };
            self.inv_scale[i] = 1.0 / self.scale[i];
        }
        for j in 0..active {
            let mut e = SVector::<f64, N>::zeros();
            e[j] = self.scale[j];
            solve_in_place(&self.lu, &self.perm, active, &mut e);
            for i in 0..active {
                self.inv[i][j] = e[i] * self.inv_scale[i];
            }
        }
        self.inv_ready = true;
    }

    /// Solves `W u = v` in place: by the scaled inverse once formed, else
    /// by the factors.
    #[inline]
    fn solve(&self, active: usize, v: &mut SVector<f64, N>) {
        if !self.inv_ready {
            solve_in_place(&self.lu, &self.perm, active, v);
        } else if active >= N {
            self.multiply(N, v);
        } else {
            self.multiply(active, v);
        }
    }

    #[inline(always)]
    fn multiply(&self, active: usize, v: &mut SVector<f64, N>) {
        let mut y = [0.0; N];
        for j in 0..active {
            y[j] = v[j] * self.inv_scale[j];
        }
        for i in 0..active {
            let row = &self.inv[i];
            let mut sum = 0.0;
            for j in 0..active {
                sum += row[j] * y[j];
            }
            v[i] = sum * self.scale[i];
        }
    }

    /// One substep of `t` of size `h` from `x` with `f0 = f(x)` and the
    /// current factors. Returns the new state and the error estimate, or
    /// `None` when a number is not finite.
    fn step<S: OdeSystem<N>>(
        &self,
        t: &Tableau,
        sys: &S,
        x: &SVector<f64, N>,
        f0: &SVector<f64, N>,
        h: f64,
        stats: &mut Stats,
    ) -> Option<(SVector<f64, N>, SVector<f64, N>)> {
        let active = sys.active_states().min(N);
        let mut u = [SVector::<f64, N>::zeros(); 4];
        let mut f = *f0;
        let hg = h * t.gamma;
        for s in 0..4 {
            if t.new_f[s] {
                let mut xs = *x;
                for j in 0..s {
                    if t.a[s][j] != 0.0 {
                        xs += u[j] * t.a[s][j];
                    }
                }
                f = sys.rhs(&xs);
                stats.rhs_evals += 1;
            }
            let mut r = f * hg;
            for j in 0..s {
                if t.c[s][j] != 0.0 {
                    r += u[j] * (t.c[s][j] * t.gamma);
                }
            }
            self.solve(active, &mut r);
            u[s] = r;
        }
        let mut x_new = *x;
        let mut err = SVector::<f64, N>::zeros();
        for s in 0..4 {
            if t.m[s] != 0.0 {
                x_new += u[s] * t.m[s];
            }
            if t.e[s] != 0.0 {
                err += u[s] * t.e[s];
            }
        }
        x_new
            .iter()
            .chain(err.iter())
            .copied()
            .all(f64::is_finite)
            .then_some((x_new, err))
    }
}

/// The reuse state of `carried`, created at the first step of these
/// methods (one allocation per instance).
fn reuse_of<const N: usize>(carried: &mut Carried<N>) -> &mut Reuse<N> {
    carried.reuse.get_or_insert_with(|| Box::new(Reuse::new()))
}

/// [`Method::RosenbrockW`](super::Method): ROS34PW2 with adaptive substeps,
/// the Jacobian and the LU factors reused (module docs).
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
    let h_min = (duration * 1e-12).max(1e-15);
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
    let mut h = if carried.h > 0.0 && carried.h.is_finite() {
        carried.h
    } else {
        initial_step(sys, x, duration, settings, stats)
    };
    let r = reuse_of(carried);
    let mut substeps: u32 = 0;
    let mut rejected_last = false;
    // The substep that ends beyond the communication point (ahead only).
    let mut segment: Option<Segment<N>> = None;
    // A clamp event being located: the state and bound it goes to, and the
    // substep size to resume with after it.
    let mut event: Option<(usize, f64, f64)> = None;
    // The switching functions at the present state, and whether the
    // substep being tried was shortened to end just past a switch.
    let switches = sys.switch_count().min(MAX_SWITCHES);
    let mut z_now = [0.0; MAX_SWITCHES];
    let mut z_new = [0.0; MAX_SWITCHES];
    if switches > 0 {
        sys.switch_values(x, &mut z_now[..switches]);
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
        let last = if event.is_some() {
            h >= remaining
        } else if beyond {
            h >= remaining && h <= 1.01 * remaining
        } else {
            h * 1.01 >= remaining
        };
        let mut h_try = if last {
            remaining
        } else if 2.0 * h > remaining && event.is_none() && !beyond {
            0.5 * remaining
        } else if beyond && event.is_none() {
            h.min(remaining + MAX_AHEAD * duration)
        } else {
            h
        };
        // A little shorter than allowed, to keep the factors (not when
        // ending on a clamp's bound).
        if !last
            && event.is_none()
            && r.lu_gamma == tableau.gamma
            && h_try > r.lu_h
            && h_try <= FREEZE * r.lu_h
        {
            h_try = r.lu_h;
        }
        let fresh_jacobian = !r.jac_valid;
        let f = match f0 {
            Some(f) if !fresh_jacobian => f,
            _ if fresh_jacobian => r.refresh(sys, x, stats),
            _ => {
                stats.rhs_evals += 1;
                sys.rhs(x)
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
                    r.jac_valid = false;
                    resume
                });
                for c in sys.clamps() {
                    c.hold(x);
                }
                if switches > 0 {
                    sys.switch_values(x, &mut z_now[..switches]);
                }
                // Past a located switch the rates follow another law: a
                // new Jacobian. (The step size goes on from the short
                // substep: a stop's contact wants short ones.)
                if std::mem::take(&mut located) {
                    r.jac_valid = false;
                }
                stats.accepted += 1;
                r.jac_age += 1;
                if r.jac_age >= MAX_JACOBIAN_AGE {
                    r.jac_valid = false;
                }
                // Beyond the communication point (ahead only): the state
                // there will be interpolated; f at the end is what the next
                // substep starts with.
                if !last && t + h_try > duration {
                    let f_end = sys.rhs(x);
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
                let max_growth = if rejected_last { 1.0 } else { 5.0 };
                // 0.9 e^(-1/3) (the estimate is of third order in h), by cbrt
                // rather than powf.
                let factor = (0.9 / e.max(1e-10).cbrt()).clamp(0.2, max_growth);
                let h_next = h_try * factor;
                h = if last && h_try < h {
                    h.max(h_next)
                } else {
                    h_next
                };
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
                // A switching function changing sign inside the substep (a
                // kink or jump of the rates that the error estimate sees):
                // the retry ends just past the first switch, once.
                let switch = match &other {
                    Some((x_new, _)) if switches > 0 && !located => {
                        sys.switch_values(x_new, &mut z_new[..switches]);
                        first_sign_change(&z_now[..switches], &z_new[..switches])
                    }
                    _ => None,
                }
                .map(|theta| (h_try * theta * (1.0 + SWITCH_MARGIN)).max(h_try * SWITCH_FLOOR))
                .filter(|&h_switch| h_switch > h_min && h_switch < SWITCH_USEFUL * h_try);
                located = switch.is_some();
                h = match (switch, other) {
                    (Some(h_switch), _) => h_switch,
                    (None, Some((_, e))) if e.is_finite() => {
                        h_try * (0.9 / e.cbrt()).clamp(0.1, 0.9)
                    }
                    // Singular W or a non-finite result: cut hard.
                    _ => h_try * 0.25,
                };
                // An old Jacobian may be what failed: the retry takes a
                // fresh one (see SUSPECT_AGE).
                if !fresh_jacobian && r.jac_age >= SUSPECT_AGE {
                    r.jac_valid = false;
                }
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

/// [`Method::FixedCost`](super::Method): `fixed_substeps` equal Rodas3
/// substeps with one evaluation of `f` and the Jacobian and one LU at the
/// start; no error estimate, no rejection. Work per call for `n`
/// substeps: one evaluation of `f` with the Jacobian, one LU, `3n - 1`
/// further evaluations of `f` and `4n` solves.
pub(super) fn fixed_cost<S: OdeSystem<N>, const N: usize>(
    sys: &S,
    x: &mut SVector<f64, N>,
    duration: f64,
    settings: &SolverSettings,
    carried: &mut Carried<N>,
    stats: &mut Stats,
) -> Result<(), SolverError> {
    let tableau = &RODAS3;
    let n = settings.fixed_substeps.max(1);
    let h = duration / f64::from(n);
    let active = sys.active_states().min(N);
    let r = reuse_of(carried);
    let mut f = r.refresh(sys, x, stats);
    if !r.factor(h, tableau.gamma, active) {
        r.forget();
        return Err(SolverError::SingularMatrix { t: 0.0 });
    }
    stats.factorizations += 1;
    let nominal = sys.nominal();
    r.used(active, &nominal);
    for i in 0..n {
        if i > 0 {
            f = sys.rhs(x);
            stats.rhs_evals += 1;
            r.used(active, &nominal);
        }
        let Some((x_new, _)) = r.step(tableau, sys, x, &f, h, stats) else {
            r.forget();
            return Err(SolverError::NotFinite {
                t: f64::from(i + 1) * h,
            });
        };
        *x = x_new;
        stats.accepted += 1;
        r.jac_age += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{Method, advance};
    use super::*;
    use nalgebra::Vector2;

    /// x0' = -x0^2 (x0 = 1/(1+t)), x1' = -x1 (x1 = e^-t); the Jacobian is
    /// scaled by `jacobian_scale`, to test the W property.
    struct Decay {
        jacobian_scale: f64,
    }
    impl OdeSystem<2> for Decay {
        fn rhs(&self, x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::new(-x[0] * x[0], -x[1])
        }
        fn rhs_and_jacobian_into(
            &self,
            x: &Vector2<f64>,
            j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            let analytic = {
                j[(0, 0)] = -2.0 * x[0] * self.jacobian_scale;
                j[(1, 1)] = -self.jacobian_scale;
                true
            };
            (self.rhs(x), analytic)
        }
    }

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
            let f = sys.rhs(&x);
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

    #[test]
    fn fixed_cost_does_the_same_work_every_call() {
        let sys = Decay {
            jacobian_scale: 1.0,
        };
        let settings = SolverSettings {
            method: Method::FixedCost,
            fixed_substeps: 3,
            ..Default::default()
        };
        let mut x = Vector2::new(1.0, 1.0);
        let mut carried = Carried::default();
        let mut previous = Stats::default();
        let mut stats = Stats::default();
        for _ in 0..20 {
            advance(&sys, &mut x, 0.1, &settings, &mut carried, &mut stats).unwrap();
            assert_eq!(stats.jacobian_evals - previous.jacobian_evals, 1);
            assert_eq!(stats.factorizations - previous.factorizations, 1);
            // f with the Jacobian, then 3n - 1 more.
            assert_eq!(stats.rhs_evals - previous.rhs_evals, 1 + 8);
            assert_eq!(stats.accepted - previous.accepted, 3);
            assert_eq!(stats.rejected, 0);
            previous = stats;
        }
        let exact = Vector2::new(1.0 / 3.0, (-2.0f64).exp());
        assert!((x - exact).norm() < 1e-4, "{x} vs {exact}");
        // Rodas3's order 3 at one substep per call.
        let mut error = |n: u32| {
            let settings = SolverSettings {
                method: Method::FixedCost,
                ..Default::default()
            };
            let mut x = Vector2::new(1.0, 1.0);
            let mut carried = Carried::default();
            for _ in 0..n {
                let d = 2.0 / f64::from(n);
                advance(&sys, &mut x, d, &settings, &mut carried, &mut stats).unwrap();
            }
            (x - exact).norm()
        };
        let order = (error(40) / error(80)).log2();
        assert!((order - 3.0).abs() < 0.2, "order {order}");
    }

    /// A linear system with eigenvalues near -1.7 and -1e6.
    struct Stiff;
    impl OdeSystem<2> for Stiff {
        fn rhs(&self, x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::new(-x[0] + x[1], -1e6 * (x[1] - x[0].cos()))
        }
        fn rhs_and_jacobian_into(
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
            (self.rhs(x), analytic)
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
        clamps: [super::super::Clamp; 1],
    }
    impl Closing {
        fn new(declared: bool) -> Self {
            Closing {
                clamps: [super::super::Clamp {
                    state: 0,
                    lower: if declared { 0.0 } else { f64::NEG_INFINITY },
                    upper: f64::INFINITY,
                }],
            }
        }
    }
    impl OdeSystem<2> for Closing {
        fn rhs(&self, x: &Vector2<f64>) -> Vector2<f64> {
            let held = x[0] <= 0.0;
            Vector2::new(if held { 0.0 } else { -1.0 }, -x[1])
        }
        fn rhs_and_jacobian_into(
            &self,
            _x: &Vector2<f64>,
            j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            let analytic = {
                j[(1, 1)] = -1.0;
                true
            };
            (self.rhs(_x), analytic)
        }
        fn clamps(&self) -> &[super::super::Clamp] {
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

    #[test]
    fn a_singular_iteration_matrix_is_an_error_of_the_fixed_method() {
        // f = x / (h gamma) makes W = I - h gamma J singular.
        struct Singular;
        impl OdeSystem<1> for Singular {
            fn rhs(&self, x: &SVector<f64, 1>) -> SVector<f64, 1> {
                x * 2.0
            }
            fn rhs_and_jacobian_into(
                &self,
                x: &SVector<f64, 1>,
                j: &mut SMatrix<f64, 1, 1>,
            ) -> (SVector<f64, 1>, bool) {
                j[(0, 0)] = 2.0;
                (self.rhs(x), true)
            }
        }
        let settings = SolverSettings {
            method: Method::FixedCost,
            ..Default::default()
        };
        let mut x = SVector::<f64, 1>::new(1.0);
        let r = advance(
            &Singular,
            &mut x,
            1.0,
            &settings,
            &mut Carried::default(),
            &mut Stats::default(),
        );
        assert!(
            matches!(r, Err(SolverError::SingularMatrix { .. })),
            "{r:?}"
        );
        assert!(r.unwrap_err().to_string().contains("singular"));
    }

    /// x0' = 1 (a clock), x1' = max(0, x0 - 0.5): a kink of the rate where
    /// the switching function x0 - 0.5 changes sign (declared or not), like
    /// a valve edge opening.
    struct Kink {
        declared: bool,
    }
    impl OdeSystem<2> for Kink {
        fn rhs(&self, x: &Vector2<f64>) -> Vector2<f64> {
            Vector2::new(1.0, (x[0] - 0.5).max(0.0))
        }
        fn rhs_and_jacobian_into(
            &self,
            _x: &Vector2<f64>,
            _j: &mut SMatrix<f64, 2, 2>,
        ) -> (Vector2<f64>, bool) {
            let analytic = { true };
            (self.rhs(_x), analytic)
        }
        fn switch_count(&self) -> usize {
            usize::from(self.declared)
        }
        fn switch_values(&self, x: &Vector2<f64>, z: &mut [f64]) {
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
    fn a_segment_interpolates_a_cubic_exactly_and_keeps_its_ends() {
        // x(t) = t^3 - 3t at t = 0.2 and 1 (the earlier points), 1.5 and 3.5.
        let x = |t: f64| SVector::<f64, 1>::from([t * t * t - 3.0 * t]);
        let seg = Segment::<1> {
            xq: x(0.2),
            hq: 0.8,
            xp: x(1.0),
            hp: 0.5,
            x0: x(1.5),
            x1: x(3.5),
            f1: SVector::zeros(),
            h: 2.0,
            at: 0.0,
        };
        for at in [0.0, 0.3, 1.0, 1.7, 2.0] {
            assert!((seg.state_at(at) - x(1.5 + at)).norm() < 1e-12, "at {at}");
        }
        assert_eq!(seg.state_at(2.0), seg.x1);
        // With one earlier point: the parabola through the three.
        let q = |t: f64| SVector::<f64, 1>::from([t * t - 3.0 * t]);
        let parabola = Segment {
            xp: q(1.0),
            x0: q(1.5),
            x1: q(3.5),
            hq: 0.0,
            ..seg
        };
        assert!((parabola.state_at(0.7) - q(2.2)).norm() < 1e-12);
        // With none: the chord.
        let chord = Segment {
            hp: 0.0,
            ..parabola
        };
        assert!((chord.state_at(1.0) - (chord.x0 + chord.x1) * 0.5).norm() < 1e-12);
        assert!(seg.is_valid() && parabola.is_valid() && chord.is_valid());
        assert!(!Segment { at: 2.5, ..seg }.is_valid());
        assert!(
            !Segment {
                h: 0.0,
                at: 0.0,
                ..seg
            }
            .is_valid()
        );
        assert!(!Segment { hp: -1.0, ..seg }.is_valid());
        assert!(
            !Segment {
                hq: f64::NAN,
                ..seg
            }
            .is_valid()
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
