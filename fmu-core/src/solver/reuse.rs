//! What ROS34PW2 and the fixed-cost Rodas3 keep between substeps and
//! communication steps, and when they keep or renew it: the Jacobian, the
//! LU factors of `W = I - h gamma A` and the explicit inverse of `W`.
//!
//! ROS34PW2 (Rang and Angermann 2005) keeps its order with any matrix `A`
//! in place of the Jacobian: an outdated one costs accuracy only through
//! the error estimate, which the step control sees. So the Jacobian is
//! evaluated when there is none, after a substep rejected with one that
//! has served [`SUSPECT_AGE`] substeps, after [`MAX_JACOBIAN_AGE`]
//! accepted substeps, and where the rates change law (a clamp's bound, a
//! located switch); the factors are formed again when the substep size
//! changes (a proposed size at most [`FREEZE`] times the factors' size
//! takes the factors' size instead). From the second substep that uses
//! the same factors on, the stage systems are solved by a product with the
//! explicit inverse of `W` (scaled by the states' nominal values), formed
//! once from the factors: a product has no chain of dependent operations,
//! a substitution has.

use super::jacobian;
use super::stages::{StageMatrix, substep};
use super::tableau::Tableau;
use super::{Carried, OdeSystem, Stats};
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

/// A rejected substep takes a new Jacobian for its retry when the one it
/// used has served this many accepted substeps (an outdated Jacobian may
/// be what failed); a younger one is kept: the rejection came from the
/// step size or a switch, and the retry would evaluate the same matrix.
pub const SUSPECT_AGE: u32 = 3;

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
    pub(crate) fn refresh<S: OdeSystem<N>>(
        &mut self,
        sys: &S,
        x: &SVector<f64, N>,
        stats: &mut Stats,
    ) -> SVector<f64, N> {
        let f = jacobian::evaluate(sys, x, &mut self.jac, stats);
        self.jac_valid = true;
        self.jac_age = 0;
        self.lu_h = 0.0;
        self.lu_ready = false;
        f
    }

    /// Forms and factorizes `W = I - h gamma A` over the leading `active`
    /// states (identity beyond); false when singular.
    pub(crate) fn factor(&mut self, h: f64, gamma: f64, active: usize) -> bool {
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
    pub(crate) fn factors_for(
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
    pub(crate) fn used(&mut self, active: usize, nominal: &SVector<f64, N>) {
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

    /// One substep of `tableau` of size `h` from `x` with `f0 = f(x)` and
    /// the current factors, whose stage systems are those of the
    /// transformed form multiplied by `h gamma` (so that they are solved
    /// with `W`). Returns the new state and the error estimate, or `None`
    /// when a number is not finite.
    pub(crate) fn step<S: OdeSystem<N>>(
        &self,
        tableau: &Tableau,
        sys: &S,
        x: &SVector<f64, N>,
        f0: &SVector<f64, N>,
        h: f64,
        stats: &mut Stats,
    ) -> Option<(SVector<f64, N>, SVector<f64, N>)> {
        let matrix = ScaledByStep {
            reuse: self,
            hg: h * tableau.gamma,
            gamma: tableau.gamma,
        };
        substep(tableau, sys, x, f0, &matrix, stats)
    }

    /// Whether a Jacobian is kept.
    pub(crate) fn has_jacobian(&self) -> bool {
        self.jac_valid
    }

    /// The Jacobian is to be evaluated anew before the next substep (the
    /// state landed on a clamp's bound or past a located switch, where the
    /// rates follow another law).
    pub(crate) fn renew_jacobian(&mut self) {
        self.jac_valid = false;
    }

    /// The size of a substep proposed as `h_try` (not the last of a
    /// communication step): the factors' size when it is at most
    /// [`FREEZE`] times longer than that, so that they are kept.
    pub(crate) fn keeping_factors(&self, h_try: f64, gamma: f64) -> f64 {
        if self.lu_gamma == gamma && h_try > self.lu_h && h_try <= FREEZE * self.lu_h {
            self.lu_h
        } else {
            h_try
        }
    }

    /// Counts a substep taken with the present Jacobian.
    pub(crate) fn age(&mut self) {
        self.jac_age += 1;
    }

    /// After an accepted substep of the adaptive method: the Jacobian ages
    /// by one and is renewed at [`MAX_JACOBIAN_AGE`].
    pub(crate) fn accepted(&mut self) {
        self.age();
        if self.jac_age >= MAX_JACOBIAN_AGE {
            self.jac_valid = false;
        }
    }

    /// After a rejected substep of the adaptive method that used a
    /// Jacobian evaluated before it (`fresh` false): one that has served
    /// [`SUSPECT_AGE`] substeps may be what failed, and the retry takes a
    /// new one.
    pub(crate) fn rejected(&mut self, fresh: bool) {
        if !fresh && self.jac_age >= SUSPECT_AGE {
            self.jac_valid = false;
        }
    }
}

/// The reuse state of `carried`, created at the first step of ROS34PW2 or the
/// fixed-cost method (one allocation per instance).
pub(super) fn reuse_of<const N: usize>(carried: &mut Carried<N>) -> &mut Reuse<N> {
    carried.reuse.get_or_insert_with(|| Box::new(Reuse::new()))
}

/// The stage systems multiplied by `h gamma`, solved with the kept
/// factors of `W = I - h gamma A`.
struct ScaledByStep<'a, const N: usize> {
    reuse: &'a Reuse<N>,
    /// `h gamma`.
    hg: f64,
    /// `gamma`.
    gamma: f64,
}

impl<const N: usize> StageMatrix<N> for ScaledByStep<'_, N> {
    #[inline]
    fn scaled(&self, f: &SVector<f64, N>) -> SVector<f64, N> {
        f * self.hg
    }

    #[inline]
    fn coupling(&self, c: f64) -> f64 {
        c * self.gamma
    }

    #[inline]
    fn solve(&self, active: usize, v: &mut SVector<f64, N>) {
        self.reuse.solve(active, v);
    }
}
