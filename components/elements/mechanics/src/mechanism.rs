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
#[derive(Debug, Clone, PartialEq)]
pub struct Mechanism<const NQ: usize, const D: usize> {
    bodies: Vec<Body>,
    joints: Vec<Revolute>,
    independent: [usize; D],
    gravity: Vector2<f64>,
    mass: SVector<f64, NQ>,
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
    /// The factorized `[Phi_q; B]` at `q` and its row permutation.
    lu: Rows<NQ>,
    perm: [usize; NQ],
}

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
/// joints of an evaluation (at most `NQ / 3` bodies are used).
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

    /// The body and the world offset `A(phi) p` of a body anchor.
    fn offset(&self, anchor: &Anchor) -> Option<(usize, Vector2<f64>)> {
        match anchor {
            Anchor::Ground(_) => None,
            Anchor::On { body, local } => Some((*body, rotate_sc(self.sc[*body], local))),
        }
    }
}

fn perp(v: &Vector2<f64>) -> Vector2<f64> {
    Vector2::new(-v.y, v.x)
}

impl<const NQ: usize, const D: usize> Mechanism<NQ, D> {
    /// The mechanism of the given bodies and joints with the coordinates
    /// `independent` (indices into `q`: `3 k + 2` is body `k`'s angle)
    /// independent, under `gravity` (m/s2). An error when the table is
    /// inconsistent: `NQ` is not three per body, the joints do not leave
    /// exactly `D` degrees of freedom, an index is out of range, or a mass
    /// or inertia is not positive.
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
        }
        for (i, &c) in independent.iter().enumerate() {
            if c >= NQ || independent[..i].contains(&c) {
                return Err(format!(
                    "independent coordinate {c} is out of range or repeated"
                ));
            }
        }
        if !gravity.iter().all(|v| v.is_finite()) {
            return Err("gravity must be finite".into());
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

    /// The joint equations `Phi(q)` (M1), `2 x joints` values, m; the rows
    /// of the independent coordinates are zero.
    pub fn constraints(&self, q: &SVector<f64, NQ>) -> SVector<f64, NQ> {
        self.constraints_in(q, &self.frame(q))
    }

    fn frame(&self, q: &SVector<f64, NQ>) -> Frame<NQ> {
        Frame::new(q, self.bodies.len())
    }

    fn world(&self, q: &SVector<f64, NQ>, frame: &Frame<NQ>, anchor: &Anchor) -> Vector2<f64> {
        match (anchor, frame.offset(anchor)) {
            (Anchor::Ground(p), _) => *p,
            (_, Some((b, o))) => Vector2::new(q[3 * b], q[3 * b + 1]) + o,
            _ => Vector2::zeros(),
        }
    }

    fn constraints_in(&self, q: &SVector<f64, NQ>, frame: &Frame<NQ>) -> SVector<f64, NQ> {
        let mut phi = SVector::<f64, NQ>::zeros();
        for (j, joint) in self.joints.iter().enumerate() {
            let d = self.world(q, frame, &joint.a) - self.world(q, frame, &joint.b);
            phi[2 * j] = d.x;
            phi[2 * j + 1] = d.y;
        }
        phi
    }

    /// The Euclidean norm of `Phi(q)`, m: how far the loops are from
    /// closed.
    pub fn loop_residual(&self, q: &SVector<f64, NQ>) -> f64 {
        self.constraints(q).norm()
    }

    /// The square matrix `[Phi_q; B]`: the constraint Jacobian with the
    /// rows selecting the independent coordinates below it.
    fn system_matrix(&self, frame: &Frame<NQ>) -> Rows<NQ> {
        let mut j = [[0.0; NQ]; NQ];
        for (r, joint) in self.joints.iter().enumerate() {
            for (anchor, sign) in [(&joint.a, 1.0), (&joint.b, -1.0)] {
                if let Some((body, o)) = frame.offset(anchor) {
                    let k = 3 * body;
                    let t = perp(&o);
                    j[2 * r][k] += sign;
                    j[2 * r + 1][k + 1] += sign;
                    j[2 * r][k + 2] += sign * t.x;
                    j[2 * r + 1][k + 2] += sign * t.y;
                }
            }
        }
        let rows = 2 * self.joints.len();
        for (i, &c) in self.independent.iter().enumerate() {
            j[rows + i][c] = 1.0;
        }
        j
    }

    /// The factorized `[Phi_q; B]`; an error at a singular configuration.
    fn factorized(&self, frame: &Frame<NQ>) -> Result<(Rows<NQ>, [usize; NQ]), String> {
        let mut lu = self.system_matrix(frame);
        let perm = factor_in_place(&mut lu, NQ)
            .ok_or_else(|| "singular configuration: the joints lock".to_string())?;
        Ok((lu, perm))
    }

    /// `(Phi_q u)_q v` with the sign of the acceleration equation: the
    /// velocity-product terms of the joint equations for coordinate
    /// velocities `u` and `v` (for `u = v = q'` it is `Phi_q q''` at
    /// `z'' = 0`, M3).
    fn quadratic(
        &self,
        frame: &Frame<NQ>,
        u: &SVector<f64, NQ>,
        v: &SVector<f64, NQ>,
    ) -> SVector<f64, NQ> {
        let mut g = SVector::<f64, NQ>::zeros();
        for (r, joint) in self.joints.iter().enumerate() {
            for (anchor, sign) in [(&joint.a, 1.0), (&joint.b, -1.0)] {
                if let Some((body, o)) = frame.offset(anchor) {
                    let k = 3 * body + 2;
                    let p = o * (sign * u[k] * v[k]);
                    g[2 * r] += p.x;
                    g[2 * r + 1] += p.y;
                }
            }
        }
        g
    }

    /// Loop closure (M2): the coordinates with independent coordinates `z`
    /// that satisfy `Phi(q) = 0`, by Newton from the warm start `guess`
    /// (which picks the assembly branch). Returns them and the number of
    /// iterations; an error at a singular configuration or when Newton does
    /// not converge (the loop cannot close there).
    pub fn assemble(
        &self,
        z: &SVector<f64, D>,
        guess: &SVector<f64, NQ>,
    ) -> Result<(SVector<f64, NQ>, usize), String> {
        let mut q = *guess;
        for (i, &c) in self.independent.iter().enumerate() {
            q[c] = z[i];
        }
        let scale = 1.0 + q.amax();
        let mut last = f64::INFINITY;
        for it in 0..50 {
            let frame = self.frame(&q);
            let phi = self.constraints_in(&q, &frame);
            if !phi.iter().chain(q.iter()).all(|v| v.is_finite()) {
                break;
            }
            // Converged: at round-off of the mechanism's size, or close to
            // it and no longer halving (round-off decides the last digits).
            let norm = phi.amax();
            if norm <= 16.0 * f64::EPSILON * scale || (norm <= 1e-10 * scale && norm > 0.5 * last) {
                return Ok((q, it));
            }
            last = norm;
            let Ok((lu, perm)) = self.factorized(&frame) else {
                return Err(format!(
                    "singular configuration at z = {:?}: the joints lock",
                    z.as_slice()
                ));
            };
            let mut dq = phi;
            solve_in_place(&lu, &perm, NQ, &mut dq);
            q -= dq;
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
        let frame = self.frame(q);
        let (lu, perm) = self.factorized(&frame)?;
        let rows = 2 * self.joints.len();
        let mut r = SMatrix::<f64, NQ, D>::zeros();
        for i in 0..D {
            let mut col = SVector::<f64, NQ>::zeros();
            col[rows + i] = 1.0;
            solve_in_place(&lu, &perm, NQ, &mut col);
            r.set_column(i, &col);
        }
        let qdot = r * zdot;
        let mut a0 = self.quadratic(&frame, &qdot, &qdot);
        solve_in_place(&lu, &perm, NQ, &mut a0);
        if !a0.iter().chain(r.iter()).all(|v| v.is_finite()) {
            return Err("singular configuration: the joints lock".into());
        }
        Ok(Kinematics {
            q: *q,
            r,
            qdot,
            a0,
            lu,
            perm,
        })
    }

    /// The derivative of the velocity transformation's column `i` with
    /// respect to independent coordinate `j`, `d R_i / d z_j` (M4),
    /// analytic: differentiating `[Phi_q; B] R = [0; I]` gives
    /// `[Phi_q; B] dR_i/dz_j = -(Phi_q R_i)_q R_j`.
    pub fn dr_dz(&self, k: &Kinematics<NQ, D>, i: usize, j: usize) -> SVector<f64, NQ> {
        let ri = k.r.column(i).into_owned();
        let rj = k.r.column(j).into_owned();
        let mut d = self.quadratic(&self.frame(&k.q), &ri, &rj);
        solve_in_place(&k.lu, &k.perm, NQ, &mut d);
        d
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
        let d = self.point(q, b) - self.point(q, a);
        let s = d.norm();
        let e = d / s;
        let mut grad = SVector::<f64, NQ>::zeros();
        for (anchor, sign) in [(a, -1.0), (b, 1.0)] {
            if let Anchor::On { body, local } = anchor {
                let k = 3 * body;
                let t = perp(&rotate(q[k + 2], local));
                grad[k] += sign * e.x;
                grad[k + 1] += sign * e.y;
                grad[k + 2] += sign * e.dot(&t);
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
    /// one-degree-of-freedom mechanism, `d2R/dz2` (M4), analytic:
    /// differentiating `[Phi_q; B] dR/dz = [sum +-A p R_phi^2; 0]` once more
    /// gives `[Phi_q; B] d2R/dz2 = [sum +-(perp(A p) R_phi^3 + 3 A p R_phi
    /// dR_phi); 0]` over the two sides of every joint.
    pub fn d2r_dz2(&self, k: &Kinematics<NQ, 1>, dr: &SVector<f64, NQ>) -> SVector<f64, NQ> {
        let frame = self.frame(&k.q);
        let mut g = SVector::<f64, NQ>::zeros();
        for (r, joint) in self.joints.iter().enumerate() {
            for (anchor, sign) in [(&joint.a, 1.0), (&joint.b, -1.0)] {
                if let Some((body, o)) = frame.offset(anchor) {
                    let i = 3 * body + 2;
                    let (w, dw) = (k.r[(i, 0)], dr[i]);
                    let p = (perp(&o) * (w * w * w) + o * (3.0 * w * dw)) * sign;
                    g[2 * r] += p.x;
                    g[2 * r + 1] += p.y;
                }
            }
        }
        solve_in_place(&k.lu, &k.perm, NQ, &mut g);
        g
    }
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
