//! The mechanism table and its kinematics and dynamics (FourBar `MODEL.md`
//! M1-M6).

use fixed_linalg::{Rows, factor_in_place, solve_in_place};
use nalgebra::{SMatrix, SVector, Vector2};

/// A rigid body, described about its centre of mass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body {
    /// Mass, kg.
    pub mass: f64,
    /// Moment of inertia about the centre of mass, kg m2.
    pub inertia: f64,
}

impl Body {
    /// A uniform slender bar of the given length and mass
    /// (`I = m L^2 / 12`); its local x axis runs along the bar, its ends at
    /// `(-L/2, 0)` and `(L/2, 0)`.
    pub fn slender_bar(length: f64, mass: f64) -> Self {
        Body {
            mass,
            inertia: mass * length * length / 12.0,
        }
    }
}

/// A point a joint or a force element attaches to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Anchor {
    /// A fixed point of the ground, world coordinates, m.
    Ground(Vector2<f64>),
    /// A point of a body, in the body's frame (origin at the centre of
    /// mass), m.
    On {
        /// Index of the body in the table.
        body: usize,
        /// The point in the body's frame.
        local: Vector2<f64>,
    },
}

impl Anchor {
    /// The ground point `(x, y)`.
    pub fn ground(x: f64, y: f64) -> Self {
        Anchor::Ground(Vector2::new(x, y))
    }

    /// The point `(x, y)` of body `body`.
    pub fn on(body: usize, x: f64, y: f64) -> Self {
        Anchor::On {
            body,
            local: Vector2::new(x, y),
        }
    }
}

/// A revolute joint: two anchors that coincide (two constraint equations).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Revolute {
    /// One side.
    pub a: Anchor,
    /// The other side.
    pub b: Anchor,
}

/// A planar mechanism with `NQ` coordinates (three per body: the centre's
/// `x`, `y` and the angle `phi`) and `D` degrees of freedom.
///
/// Inside, it works in joint coordinates: the joints form a tree from the
/// ground (one joint per body, found at construction) and the remaining
/// *cut* joints close the loops. Each body's angle is a coordinate; each
/// centre, and each point a joint or a force attaches to, is the ground
/// point at the tree's root plus one rotated arm per body on its path (the
/// recursion of the tree, evaluated once at construction into these arms).
/// Only the cut joints are constraint equations, two each: `B - D` of them
/// for `B` bodies (two for a four-bar, against eight in body coordinates),
/// solved for the `B - D` dependent angles.
#[derive(Debug, Clone, PartialEq)]
pub struct Mechanism<const NQ: usize, const D: usize> {
    bodies: Vec<Body>,
    joints: Vec<Revolute>,
    independent: [usize; D],
    gravity: Vector2<f64>,
    mass: SVector<f64, NQ>,
    /// Each body's centre as a function of the angles.
    centres: Vec<Arms>,
    /// Each cut joint's gap `a - b` as a function of the angles.
    cuts: Vec<Arms>,
    /// The bodies whose angles are dependent, in the order of the unknowns
    /// of the cut joints' equations.
    dependent: Vec<usize>,
    /// For each body, its column among the dependent angles (or none).
    column: [Option<usize>; NQ],
}

/// A point of the mechanism as a function of the bodies' angles:
/// `origin + sum A(phi_j) arm_j` over the bodies `j` on its path from the
/// ground (a constant vector in each body's frame).
#[derive(Debug, Clone, PartialEq)]
struct Arms {
    origin: Vector2<f64>,
    arms: Vec<(usize, Vector2<f64>)>,
}

impl Arms {
    fn at(origin: Vector2<f64>) -> Self {
        Arms {
            origin,
            arms: Vec::new(),
        }
    }

    /// Adds `sign` times an arm on body `j` (merged with one already there).
    fn add(&mut self, j: usize, arm: Vector2<f64>, sign: f64) {
        match self.arms.iter_mut().find(|(b, _)| *b == j) {
            Some((_, a)) => *a += arm * sign,
            None => self.arms.push((j, arm * sign)),
        }
    }

    /// `self - other`.
    fn minus(&self, other: &Arms) -> Arms {
        let mut d = self.clone();
        d.origin -= other.origin;
        for &(j, arm) in &other.arms {
            d.add(j, arm, -1.0);
        }
        d.arms.retain(|(_, a)| a.x != 0.0 || a.y != 0.0);
        d
    }

    /// The point.
    fn value<const NQ: usize>(&self, frame: &Frame<NQ>) -> Vector2<f64> {
        let mut p = self.origin;
        for (j, arm) in &self.arms {
            p += rotate_sc(frame.sc[*j], arm);
        }
        p
    }

    /// `sum perp(A_j arm_j) a_j + A_j arm_j b_j`: the point's time
    /// derivatives are of this form (first: `a = phi'`, `b = 0`; second:
    /// `a = phi''`, `b = -phi'^2`; third: `a = phi''' - phi'^3`,
    /// `b = -3 phi' phi''`), because `d/dphi A(phi) p = perp(A(phi) p)`.
    fn combine<const NQ: usize>(
        &self,
        frame: &Frame<NQ>,
        a: &[f64; NQ],
        b: &[f64; NQ],
    ) -> Vector2<f64> {
        let mut v = Vector2::zeros();
        for (j, arm) in &self.arms {
            let o = rotate_sc(frame.sc[*j], arm);
            v += perp(&o) * a[*j] + o * b[*j];
        }
        v
    }
}

/// The position-level and velocity-level solution at one instant.
#[derive(Debug, Clone)]
pub struct Kinematics<const NQ: usize, const D: usize> {
    /// Coordinates, assembled.
    pub q: SVector<f64, NQ>,
    /// Velocity transformation `R = dq/dz` (`q' = R z'`).
    pub r: SMatrix<f64, NQ, D>,
    /// Coordinate velocities.
    pub qdot: SVector<f64, NQ>,
    /// The velocity-squared accelerations: `q'' = R z'' + a0`.
    pub a0: SVector<f64, NQ>,
    /// The bodies' `(sin phi, cos phi)` at `q`.
    frame: Frame<NQ>,
    /// The factorized dependent block of the cut joints' Jacobian and its
    /// row permutation.
    lu: Rows<MAX_DEPENDENT>,
    perm: [usize; MAX_DEPENDENT],
}

/// Most dependent angles a mechanism may have: two per closed loop, so
/// two loops (a boom lifted by two cylinders has two). The factorization of
/// their equations travels with each [`Kinematics`], so it is kept small.
pub const MAX_DEPENDENT: usize = 4;

/// The equations of motion in the independent coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motion<const D: usize> {
    /// `R^T M R`, kg m2 (or kg for a sliding coordinate).
    pub mass: SMatrix<f64, D, D>,
    /// `R^T (Q - M a0)`, the generalised force.
    pub force: SVector<f64, D>,
    /// The independent accelerations.
    pub zddot: SVector<f64, D>,
}

fn rotate(phi: f64, p: &Vector2<f64>) -> Vector2<f64> {
    rotate_sc(phi.sin_cos(), p)
}

fn rotate_sc((s, c): (f64, f64), p: &Vector2<f64>) -> Vector2<f64> {
    Vector2::new(c * p.x - s * p.y, s * p.x + c * p.y)
}

/// `(sin phi, cos phi)` of every body at one `q`, computed once for all the
/// points of an evaluation (at most `NQ / 3` bodies are used).
#[derive(Debug, Clone, Copy)]
struct Frame<const NQ: usize> {
    sc: [(f64, f64); NQ],
}

impl<const NQ: usize> Frame<NQ> {
    fn new(q: &SVector<f64, NQ>, bodies: usize) -> Self {
        let mut sc = [(0.0, 1.0); NQ];
        for (k, v) in sc.iter_mut().enumerate().take(bodies) {
            *v = q[3 * k + 2].sin_cos();
        }
        Frame { sc }
    }
}

fn perp(v: &Vector2<f64>) -> Vector2<f64> {
    Vector2::new(-v.y, v.x)
}

impl<const NQ: usize, const D: usize> Mechanism<NQ, D> {
    /// The mechanism of the given bodies and joints with the coordinates
    /// `independent` (indices into `q`: `3 k + 2` is body `k`'s angle; only
    /// angles can be independent) independent, under `gravity` (m/s2). An
    /// error when the table is inconsistent: `NQ` is not three per body,
    /// the joints do not leave exactly `D` degrees of freedom, an index is
    /// out of range, a body is not joined to the ground through the
    /// joints, or a mass or inertia is not positive.
    pub fn new(
        bodies: Vec<Body>,
        joints: Vec<Revolute>,
        independent: [usize; D],
        gravity: Vector2<f64>,
    ) -> Result<Self, String> {
        if NQ != 3 * bodies.len() {
            return Err(format!(
                "{} bodies need {} coordinates, the mechanism has {NQ}",
                bodies.len(),
                3 * bodies.len()
            ));
        }
        if 2 * joints.len() + D != NQ {
            return Err(format!(
                "{} revolute joints on {} bodies leave {} degrees of freedom, not {D}",
                joints.len(),
                bodies.len(),
                NQ as i64 - 2 * joints.len() as i64
            ));
        }
        for (k, b) in bodies.iter().enumerate() {
            if !(b.mass.is_finite() && b.mass > 0.0 && b.inertia.is_finite() && b.inertia > 0.0) {
                return Err(format!(
                    "body {}: mass {} kg and inertia {} kg m2 must be finite and above zero",
                    k + 1,
                    b.mass,
                    b.inertia
                ));
            }
        }
        for (j, joint) in joints.iter().enumerate() {
            for anchor in [joint.a, joint.b] {
                let ok = match anchor {
                    Anchor::Ground(p) => p.iter().all(|v| v.is_finite()),
                    Anchor::On { body, local } => {
                        body < bodies.len() && local.iter().all(|v| v.is_finite())
                    }
                };
                if !ok {
                    return Err(format!(
                        "joint {}: an anchor names a body that does not exist or a point that is not finite",
                        j + 1
                    ));
                }
            }
            let same = match (joint.a, joint.b) {
                (Anchor::Ground(_), Anchor::Ground(_)) => true,
                (Anchor::On { body: a, .. }, Anchor::On { body: b, .. }) => a == b,
                _ => false,
            };
            if same {
                return Err(format!(
                    "joint {}: both sides are on the same {}",
                    j + 1,
                    if matches!(joint.a, Anchor::Ground(_)) {
                        "ground"
                    } else {
                        "body"
                    }
                ));
            }
        }
        for (i, &c) in independent.iter().enumerate() {
            if c >= NQ || independent[..i].contains(&c) {
                return Err(format!(
                    "independent coordinate {c} is out of range or repeated"
                ));
            }
            if c % 3 != 2 {
                return Err(format!(
                    "independent coordinate {c} is a position: only a body's angle (3 k + 2) can be independent"
                ));
            }
        }
        if !gravity.iter().all(|v| v.is_finite()) {
            return Err("gravity must be finite".into());
        }
        let (centres, cuts) = tree(&bodies, &joints)?;
        if 2 * cuts.len() > MAX_DEPENDENT {
            return Err(format!(
                "{} closed loops: at most {} are supported",
                cuts.len(),
                MAX_DEPENDENT / 2
            ));
        }
        let mut column = [None; NQ];
        let mut dependent = Vec::new();
        for k in 0..bodies.len() {
            if !independent.contains(&(3 * k + 2)) {
                column[k] = Some(dependent.len());
                dependent.push(k);
            }
        }
        let mut mass = SVector::<f64, NQ>::zeros();
        for (k, b) in bodies.iter().enumerate() {
            mass[3 * k] = b.mass;
            mass[3 * k + 1] = b.mass;
            mass[3 * k + 2] = b.inertia;
        }
        Ok(Mechanism {
            bodies,
            joints,
            independent,
            gravity,
            mass,
            centres,
            cuts,
            dependent,
            column,
        })
    }

    /// The bodies.
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// The independent coordinates of `q`.
    pub fn independent(&self, q: &SVector<f64, NQ>) -> SVector<f64, D> {
        SVector::from_fn(|i, _| q[self.independent[i]])
    }

    /// World position of an anchor at coordinates `q`.
    pub fn point(&self, q: &SVector<f64, NQ>, anchor: &Anchor) -> Vector2<f64> {
        match anchor {
            Anchor::Ground(p) => *p,
            Anchor::On { body, local } => {
                let k = 3 * body;
                Vector2::new(q[k], q[k + 1]) + rotate(q[k + 2], local)
            }
        }
    }

    /// World velocity of an anchor at coordinates `q`, velocities `qdot`.
    pub fn point_velocity(
        &self,
        q: &SVector<f64, NQ>,
        qdot: &SVector<f64, NQ>,
        anchor: &Anchor,
    ) -> Vector2<f64> {
        match anchor {
            Anchor::Ground(_) => Vector2::zeros(),
            Anchor::On { body, local } => {
                let k = 3 * body;
                Vector2::new(qdot[k], qdot[k + 1]) + perp(&rotate(q[k + 2], local)) * qdot[k + 2]
            }
        }
    }

    /// The joint equations `Phi(q)` of every joint (M1), `2 x joints`
    /// values, m; the rows of the independent coordinates are zero. At
    /// assembled coordinates the tree joints hold by construction and the
    /// cut joints to the loop closure's tolerance.
    pub fn constraints(&self, q: &SVector<f64, NQ>) -> SVector<f64, NQ> {
        let frame = self.frame(q);
        let point = |anchor: &Anchor| match anchor {
            Anchor::Ground(p) => *p,
            Anchor::On { body, local } => {
                Vector2::new(q[3 * body], q[3 * body + 1]) + rotate_sc(frame.sc[*body], local)
            }
        };
        let mut phi = SVector::<f64, NQ>::zeros();
        for (j, joint) in self.joints.iter().enumerate() {
            let d = point(&joint.a) - point(&joint.b);
            phi[2 * j] = d.x;
            phi[2 * j + 1] = d.y;
        }
        phi
    }

    fn frame(&self, q: &SVector<f64, NQ>) -> Frame<NQ> {
        Frame::new(q, self.bodies.len())
    }

    /// The Euclidean norm of `Phi(q)`, m: how far the loops are from
    /// closed.
    pub fn loop_residual(&self, q: &SVector<f64, NQ>) -> f64 {
        self.constraints(q).norm()
    }

    /// The cut joints' Jacobian with respect to the dependent angles,
    /// factorized (rows and columns past `B - D` are the identity); an
    /// error at a singular configuration.
    #[allow(clippy::type_complexity)]
    #[inline(always)]
    fn factorized(
        &self,
        frame: &Frame<NQ>,
    ) -> Result<(Rows<MAX_DEPENDENT>, [usize; MAX_DEPENDENT]), String> {
        let mut g = [[0.0; MAX_DEPENDENT]; MAX_DEPENDENT];
        for (c, cut) in self.cuts.iter().enumerate() {
            for (j, arm) in &cut.arms {
                if let Some(m) = self.column[*j] {
                    let t = perp(&rotate_sc(frame.sc[*j], arm));
                    g[2 * c][m] = t.x;
                    g[2 * c + 1][m] = t.y;
                }
            }
        }
        for (i, row) in g.iter_mut().enumerate().skip(self.dependent.len()) {
            row[i] = 1.0;
        }
        let perm = factor_in_place(&mut g, self.dependent.len())
            .ok_or_else(|| "singular configuration: the joints lock".to_string())?;
        Ok((g, perm))
    }

    /// Completes `a` (the coefficients of the derivative's `perp` terms,
    /// [`Arms::combine`]) at the dependent angles so that every cut
    /// joint's derivative of that order vanishes: the entries given are
    /// kept and the dependent ones receive the solution of
    /// `G x = -sum_cuts combine(a, b)`.
    #[inline(always)]
    fn complete(
        &self,
        frame: &Frame<NQ>,
        lu: &Rows<MAX_DEPENDENT>,
        perm: &[usize; MAX_DEPENDENT],
        a: &mut [f64; NQ],
        b: &[f64; NQ],
    ) {
        let mut rhs = SVector::<f64, MAX_DEPENDENT>::zeros();
        for (c, cut) in self.cuts.iter().enumerate() {
            let v = cut.combine(frame, a, b);
            rhs[2 * c] = -v.x;
            rhs[2 * c + 1] = -v.y;
        }
        solve_in_place(lu, perm, self.dependent.len(), &mut rhs);
        for (m, &j) in self.dependent.iter().enumerate() {
            a[j] += rhs[m];
        }
    }

    /// The coordinates' derivative whose angle part gives `a` and `b` (in
    /// [`Arms::combine`]'s form) and whose angles are `angles`.
    #[inline(always)]
    fn cartesian(
        &self,
        frame: &Frame<NQ>,
        a: &[f64; NQ],
        b: &[f64; NQ],
        angles: &[f64; NQ],
    ) -> SVector<f64, NQ> {
        let mut v = SVector::<f64, NQ>::zeros();
        for (k, centre) in self.centres.iter().enumerate() {
            let p = centre.combine(frame, a, b);
            v[3 * k] = p.x;
            v[3 * k + 1] = p.y;
            v[3 * k + 2] = angles[k];
        }
        v
    }

    /// Loop closure (M2): the coordinates with independent coordinates `z`
    /// that satisfy `Phi(q) = 0`, by Newton on the dependent angles from the
    /// warm start `guess` (whose angles pick the assembly branch). Returns
    /// them and the number of iterations; an error at a singular
    /// configuration or when Newton does not converge (the loop cannot
    /// close there).
    pub fn assemble(
        &self,
        z: &SVector<f64, D>,
        guess: &SVector<f64, NQ>,
    ) -> Result<(SVector<f64, NQ>, usize), String> {
        self.assemble_in(z, guess).map(|(q, it, _)| (q, it))
    }

    /// Loop closure and velocity transformation at once ([`Mechanism::assemble`]
    /// then [`Mechanism::kinematics`], the sines and cosines of the
    /// assembled angles computed once): the kinematics and the number of
    /// Newton iterations.
    #[inline(always)]
    pub fn solve(
        &self,
        z: &SVector<f64, D>,
        zdot: &SVector<f64, D>,
        guess: &SVector<f64, NQ>,
    ) -> Result<(Kinematics<NQ, D>, usize), String> {
        let (q, it, frame) = self.assemble_in(z, guess)?;
        Ok((self.kinematics_in(&q, frame, zdot)?, it))
    }

    /// [`Mechanism::assemble`], with the frame of the assembled angles.
    #[inline(always)]
    fn assemble_in(
        &self,
        z: &SVector<f64, D>,
        guess: &SVector<f64, NQ>,
    ) -> Result<(SVector<f64, NQ>, usize, Frame<NQ>), String> {
        let mut q = *guess;
        for (i, &c) in self.independent.iter().enumerate() {
            q[c] = z[i];
        }
        let scale = 1.0 + q.amax();
        let mut last = f64::INFINITY;
        for it in 0..50 {
            let frame = self.frame(&q);
            let mut phi = SVector::<f64, MAX_DEPENDENT>::zeros();
            let mut norm = 0.0f64;
            for (c, cut) in self.cuts.iter().enumerate() {
                let d = cut.value(&frame);
                phi[2 * c] = d.x;
                phi[2 * c + 1] = d.y;
                norm = norm.max(d.x.abs()).max(d.y.abs());
            }
            if !(norm.is_finite() && q.iter().all(|v| v.is_finite())) {
                break;
            }
            // Converged: at round-off of the mechanism's size, or close to
            // it and no longer halving (round-off decides the last digits).
            if norm <= 16.0 * f64::EPSILON * scale || (norm <= 1e-10 * scale && norm > 0.5 * last) {
                for (k, centre) in self.centres.iter().enumerate() {
                    let p = centre.value(&frame);
                    q[3 * k] = p.x;
                    q[3 * k + 1] = p.y;
                }
                return Ok((q, it, frame));
            }
            last = norm;
            let Ok((lu, perm)) = self.factorized(&frame) else {
                return Err(format!(
                    "singular configuration at z = {:?}: the joints lock",
                    z.as_slice()
                ));
            };
            solve_in_place(&lu, &perm, self.dependent.len(), &mut phi);
            for (m, &j) in self.dependent.iter().enumerate() {
                q[3 * j + 2] -= phi[m];
            }
        }
        Err(format!(
            "the loop does not close at z = {:?} (Newton did not converge: |Phi| = {:.3e} m)",
            z.as_slice(),
            self.loop_residual(&q)
        ))
    }

    /// Velocity transformation (M3) at assembled coordinates `q` with
    /// independent velocities `zdot`: `R`, `q'` and `a0`.
    pub fn kinematics(
        &self,
        q: &SVector<f64, NQ>,
        zdot: &SVector<f64, D>,
    ) -> Result<Kinematics<NQ, D>, String> {
        self.kinematics_in(q, self.frame(q), zdot)
    }

    /// [`Mechanism::kinematics`] with the frame of `q`.
    #[inline(always)]
    fn kinematics_in(
        &self,
        q: &SVector<f64, NQ>,
        frame: Frame<NQ>,
        zdot: &SVector<f64, D>,
    ) -> Result<Kinematics<NQ, D>, String> {
        let (lu, perm) = self.factorized(&frame)?;
        let zero = [0.0; NQ];
        let mut r = SMatrix::<f64, NQ, D>::zeros();
        let mut omega = [0.0; NQ];
        for i in 0..D {
            // Column i: the independent angle i moves at unit rate.
            let mut a = [0.0; NQ];
            a[self.independent[i] / 3] = 1.0;
            self.complete(&frame, &lu, &perm, &mut a, &zero);
            r.set_column(i, &self.cartesian(&frame, &a, &zero, &a));
            for (w, v) in omega.iter_mut().zip(a) {
                *w += v * zdot[i];
            }
        }
        let qdot = r * zdot;
        // a0: the accelerations at z'' = 0; b = -phi'^2.
        let mut b = [0.0; NQ];
        for (bk, w) in b.iter_mut().zip(omega) {
            *bk = -w * w;
        }
        let mut a = [0.0; NQ];
        self.complete(&frame, &lu, &perm, &mut a, &b);
        let a0 = self.cartesian(&frame, &a, &b, &a);
        if !a0.iter().chain(r.iter()).all(|v| v.is_finite()) {
            return Err("singular configuration: the joints lock".into());
        }
        Ok(Kinematics {
            q: *q,
            r,
            qdot,
            a0,
            frame,
            lu,
            perm,
        })
    }

    /// The derivative of the velocity transformation's column `i` with
    /// respect to independent coordinate `j`, `d R_i / d z_j` (M4),
    /// analytic: the second derivative of every point along `z_i` and
    /// `z_j` is `sum perp(A_k arm_k) dR_k + A_k arm_k (-R_ki R_kj)` over
    /// the bodies on its path, zero at the cut joints.
    pub fn dr_dz(&self, k: &Kinematics<NQ, D>, i: usize, j: usize) -> SVector<f64, NQ> {
        let mut b = [0.0; NQ];
        for (body, bk) in b.iter_mut().enumerate().take(self.bodies.len()) {
            *bk = -k.r[(3 * body + 2, i)] * k.r[(3 * body + 2, j)];
        }
        let mut a = [0.0; NQ];
        self.complete(&k.frame, &k.lu, &k.perm, &mut a, &b);
        self.cartesian(&k.frame, &a, &b, &a)
    }

    /// The diagonal of the mass matrix `M`: `(m, m, I)` per body.
    pub fn mass_diagonal(&self) -> &SVector<f64, NQ> {
        &self.mass
    }

    /// World acceleration of an anchor for coordinate velocities `qdot`
    /// and accelerations `qddot`: `r'' + perp(A p) phi'' - A p phi'^2`.
    pub fn point_acceleration(
        &self,
        q: &SVector<f64, NQ>,
        qdot: &SVector<f64, NQ>,
        qddot: &SVector<f64, NQ>,
        anchor: &Anchor,
    ) -> Vector2<f64> {
        match anchor {
            Anchor::Ground(_) => Vector2::zeros(),
            Anchor::On { body, local } => {
                let k = 3 * body;
                let o = rotate(q[k + 2], local);
                Vector2::new(qddot[k], qddot[k + 1]) + perp(&o) * qddot[k + 2]
                    - o * (qdot[k + 2] * qdot[k + 2])
            }
        }
    }

    /// The distance between two anchors and its first two time
    /// derivatives for coordinate velocities `qdot` and accelerations
    /// `qddot` (with `qdot = R`, `qddot = dR/dz` these are `s`, `ds/dz`,
    /// `d2s/dz2`): `s'' = (|d'|^2 - (e.d')^2) / s + e.d''`.
    pub fn distance_derivatives(
        &self,
        q: &SVector<f64, NQ>,
        qdot: &SVector<f64, NQ>,
        qddot: &SVector<f64, NQ>,
        a: &Anchor,
        b: &Anchor,
    ) -> (f64, f64, f64) {
        let d = self.point(q, b) - self.point(q, a);
        let s = d.norm();
        let e = d / s;
        let dd = self.point_velocity(q, qdot, b) - self.point_velocity(q, qdot, a);
        let ddd =
            self.point_acceleration(q, qdot, qddot, b) - self.point_acceleration(q, qdot, qddot, a);
        let along = e.dot(&dd);
        (
            s,
            along,
            (dd.norm_squared() - along * along) / s + e.dot(&ddd),
        )
    }

    /// The generalised forces of gravity on the coordinates, N (and N m).
    pub fn gravity_forces(&self) -> SVector<f64, NQ> {
        let mut f = SVector::<f64, NQ>::zeros();
        for (k, b) in self.bodies.iter().enumerate() {
            f[3 * k] = b.mass * self.gravity.x;
            f[3 * k + 1] = b.mass * self.gravity.y;
        }
        f
    }

    /// Equations of motion (M5): `R^T M R z'' = R^T (Q - M a0)` with `Q`
    /// gravity plus `applied` (generalised forces on the coordinates, e.g.
    /// from [`Mechanism::distance`]).
    pub fn motion(&self, k: &Kinematics<NQ, D>, applied: &SVector<f64, NQ>) -> Motion<D> {
        let mr = SMatrix::<f64, NQ, D>::from_fn(|a, b| self.mass[a] * k.r[(a, b)]);
        let mass = k.r.transpose() * mr;
        let q = self.gravity_forces() + applied - self.mass.component_mul(&k.a0);
        let force = k.r.transpose() * q;
        let mut rows = [[0.0; D]; D];
        for (a, row) in rows.iter_mut().enumerate() {
            for (b, v) in row.iter_mut().enumerate() {
                *v = mass[(a, b)];
            }
        }
        let mut zddot = force;
        match factor_in_place(&mut rows, D) {
            Some(perm) => solve_in_place(&rows, &perm, D, &mut zddot),
            None => zddot = SVector::repeat(f64::NAN),
        }
        Motion { mass, force, zddot }
    }

    /// Distance between two anchors (a cylinder's pin-to-pin length), m,
    /// and its gradient `ds/dq`: a force `F` along the line (positive
    /// pushing the anchors apart) adds `F ds/dq` to the generalised forces,
    /// and `s' = ds/dq q'`.
    pub fn distance(
        &self,
        q: &SVector<f64, NQ>,
        a: &Anchor,
        b: &Anchor,
    ) -> (f64, SVector<f64, NQ>) {
        self.distance_in(q, &self.frame(q), a, b)
    }

    /// [`Mechanism::distance`] at the coordinates of `k` (with the sines
    /// and cosines computed there).
    pub fn distance_at(
        &self,
        k: &Kinematics<NQ, D>,
        a: &Anchor,
        b: &Anchor,
    ) -> (f64, SVector<f64, NQ>) {
        self.distance_in(&k.q, &k.frame, a, b)
    }

    #[inline(always)]
    fn distance_in(
        &self,
        q: &SVector<f64, NQ>,
        frame: &Frame<NQ>,
        a: &Anchor,
        b: &Anchor,
    ) -> (f64, SVector<f64, NQ>) {
        // Each anchor's world point and its offset from its body's centre.
        let at = |anchor: &Anchor| match anchor {
            Anchor::Ground(p) => (*p, Vector2::zeros()),
            Anchor::On { body, local } => {
                let o = rotate_sc(frame.sc[*body], local);
                (Vector2::new(q[3 * body], q[3 * body + 1]) + o, o)
            }
        };
        let ((pa, oa), (pb, ob)) = (at(a), at(b));
        let d = pb - pa;
        let s = d.norm();
        let e = d / s;
        let mut grad = SVector::<f64, NQ>::zeros();
        for (anchor, o, sign) in [(a, oa, -1.0), (b, ob, 1.0)] {
            if let Anchor::On { body, .. } = anchor {
                let k = 3 * body;
                grad[k] += sign * e.x;
                grad[k + 1] += sign * e.y;
                grad[k + 2] += sign * e.dot(&perp(&o));
            }
        }
        (s, grad)
    }

    /// Kinetic energy `q'^T M q' / 2`, J.
    pub fn kinetic_energy(&self, qdot: &SVector<f64, NQ>) -> f64 {
        0.5 * qdot.dot(&self.mass.component_mul(qdot))
    }

    /// Potential energy of gravity, zero at the origin, J.
    pub fn potential_energy(&self, q: &SVector<f64, NQ>) -> f64 {
        -self.gravity_forces().dot(q)
    }
}

impl<const NQ: usize> Mechanism<NQ, 1> {
    /// The second derivative of the velocity transformation of a
    /// one-degree-of-freedom mechanism, `d2R/dz2` (M4), analytic: the third
    /// derivative of every point along `z` is `sum perp(A_k arm_k)
    /// (d2R_k - R_k^3) - A_k arm_k 3 R_k dR_k` over the bodies on its
    /// path, zero at the cut joints.
    pub fn d2r_dz2(&self, k: &Kinematics<NQ, 1>, dr: &SVector<f64, NQ>) -> SVector<f64, NQ> {
        let (mut a, mut b, mut cube) = ([0.0; NQ], [0.0; NQ], [0.0; NQ]);
        for body in 0..self.bodies.len() {
            let (w, dw) = (k.r[(3 * body + 2, 0)], dr[3 * body + 2]);
            cube[body] = w * w * w;
            a[body] = -cube[body];
            b[body] = -3.0 * w * dw;
        }
        self.complete(&k.frame, &k.lu, &k.perm, &mut a, &b);
        let mut angles = [0.0; NQ];
        for body in 0..self.bodies.len() {
            angles[body] = a[body] + cube[body];
        }
        self.cartesian(&k.frame, &a, &b, &angles)
    }
}

/// The joint tree from the ground: each body's centre as arms over the
/// bodies on its path, and the gaps of the joints left over (the cut
/// joints, which close the loops). An error when a body cannot be reached
/// from the ground through the joints.
fn tree(bodies: &[Body], joints: &[Revolute]) -> Result<(Vec<Arms>, Vec<Arms>), String> {
    let mut centres: Vec<Option<Arms>> = vec![None; bodies.len()];
    let mut used = vec![false; joints.len()];
    // The point an anchor names, once its body is placed.
    let point = |centres: &[Option<Arms>], anchor: &Anchor| -> Option<Arms> {
        match anchor {
            Anchor::Ground(p) => Some(Arms::at(*p)),
            Anchor::On { body, local } => centres[*body].as_ref().map(|c| {
                let mut p = c.clone();
                p.add(*body, *local, 1.0);
                p
            }),
        }
    };
    loop {
        let mut grew = false;
        for (j, joint) in joints.iter().enumerate() {
            if used[j] {
                continue;
            }
            for (from, to) in [(&joint.a, &joint.b), (&joint.b, &joint.a)] {
                let Anchor::On { body, local } = to else {
                    continue;
                };
                if centres[*body].is_some() {
                    continue;
                }
                if let Some(mut p) = point(&centres, from) {
                    // The body hangs from the joint: centre = joint - A local.
                    p.add(*body, *local, -1.0);
                    centres[*body] = Some(p);
                    used[j] = true;
                    grew = true;
                    break;
                }
            }
        }
        if !grew {
            break;
        }
    }
    let mut placed = Vec::with_capacity(bodies.len());
    for (k, c) in centres.iter().enumerate() {
        match c {
            Some(c) => placed.push(c.clone()),
            None => {
                return Err(format!(
                    "body {} is not joined to the ground through the joints",
                    k + 1
                ));
            }
        }
    }
    let mut cuts = Vec::new();
    for (j, joint) in joints.iter().enumerate() {
        if !used[j] {
            let some = |a: &Anchor| point(&centres, a).ok_or("a cut joint names a body not placed");
            cuts.push(some(&joint.a)?.minus(&some(&joint.b)?));
        }
    }
    Ok((placed, cuts))
}

/// Warm starts for a one-degree-of-freedom mechanism: assembled
/// configurations on an even grid of the independent coordinate, built once
/// by continuation along one assembly branch, each with its velocity
/// transformation `R` and `dR/dz`. The guess for `z` is the nearest entry's
/// second-order Taylor step to `z`, so Newton starts within about
/// `(h/2)^3` of the solution (one iteration on a fine grid) and the result
/// depends on `z` alone (an FMU stepped from a restored state repeats
/// itself bit for bit).
#[derive(Debug, Clone, PartialEq)]
pub struct Continuation<const NQ: usize> {
    first: f64,
    step: f64,
    entries: Vec<[SVector<f64, NQ>; 3]>,
}

impl<const NQ: usize> Continuation<NQ> {
    /// Follows the branch of the assembled configuration `start` over
    /// `z in [z_start - half_range, z_start + half_range]` in steps `step`,
    /// stopping early where the loop can no longer close.
    pub fn build(
        mech: &Mechanism<NQ, 1>,
        start: &SVector<f64, NQ>,
        half_range: f64,
        step: f64,
    ) -> Result<Self, String> {
        if !(step > 0.0 && half_range >= step && (half_range / step) < 1e5) {
            return Err(format!(
                "continuation range {half_range} and step {step} must be positive, range >= step"
            ));
        }
        let z0 = mech.independent(start)[0];
        let entry = |q: &SVector<f64, NQ>| -> Result<[SVector<f64, NQ>; 3], String> {
            let k = mech.kinematics(q, &SVector::from([1.0]))?;
            Ok([*q, k.r.column(0).into_owned(), k.a0])
        };
        let (q0, _) = mech.assemble(&SVector::from([z0]), start)?;
        let e0 = entry(&q0)?;
        let n = (half_range / step).floor() as usize;
        let mut sides: [Vec<[SVector<f64, NQ>; 3]>; 2] = [Vec::new(), Vec::new()];
        for (side, dir) in [(0usize, -1.0f64), (1, 1.0)] {
            let mut last = e0;
            for i in 1..=n {
                let z = z0 + dir * step * i as f64;
                let d = dir * step;
                let guess = last[0] + last[1] * d + last[2] * (0.5 * d * d);
                let Ok((q, _)) = mech.assemble(&SVector::from([z]), &guess) else {
                    break;
                };
                let Ok(e) = entry(&q) else {
                    break;
                };
                last = e;
                sides[side].push(e);
            }
        }
        let below = sides[0].len();
        let mut entries: Vec<_> = sides[0].drain(..).rev().collect();
        entries.push(e0);
        entries.append(&mut sides[1]);
        Ok(Continuation {
            first: z0 - step * below as f64,
            step,
            entries,
        })
    }

    /// The range of `z` the table covers.
    pub fn range(&self) -> (f64, f64) {
        (
            self.first,
            self.first + self.step * (self.entries.len() - 1) as f64,
        )
    }

    /// The warm start for `z`: the nearest entry's Taylor step
    /// `q + R d + dR/dz d^2 / 2`.
    pub fn guess(&self, z: f64) -> SVector<f64, NQ> {
        let x = ((z - self.first) / self.step).round();
        let i = if x.is_finite() {
            x.clamp(0.0, (self.entries.len() - 1) as f64) as usize
        } else {
            0
        };
        let [q, r, dr] = &self.entries[i];
        let d = z - (self.first + self.step * i as f64);
        q + r * d + dr * (0.5 * d * d)
    }
}

#[cfg(test)]
mod tests;
