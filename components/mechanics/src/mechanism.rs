//! The mechanism table and its kinematics and dynamics (FourBar `MODEL.md`
//! M1-M6).

use nalgebra::{Const, DimMin, SMatrix, SVector, Vector2};

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
    system: SMatrix<f64, NQ, NQ>,
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
    let (s, c) = phi.sin_cos();
    Vector2::new(c * p.x - s * p.y, s * p.x + c * p.y)
}

fn perp(v: &Vector2<f64>) -> Vector2<f64> {
    Vector2::new(-v.y, v.x)
}

impl<const NQ: usize, const D: usize> Mechanism<NQ, D>
where
    Const<NQ>: DimMin<Const<NQ>, Output = Const<NQ>>,
    Const<D>: DimMin<Const<D>, Output = Const<D>>,
{
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
        let mut phi = SVector::<f64, NQ>::zeros();
        for (j, joint) in self.joints.iter().enumerate() {
            let d = self.point(q, &joint.a) - self.point(q, &joint.b);
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
    fn system_matrix(&self, q: &SVector<f64, NQ>) -> SMatrix<f64, NQ, NQ> {
        let mut j = SMatrix::<f64, NQ, NQ>::zeros();
        for (r, joint) in self.joints.iter().enumerate() {
            for (anchor, sign) in [(&joint.a, 1.0), (&joint.b, -1.0)] {
                if let Anchor::On { body, local } = anchor {
                    let k = 3 * body;
                    let t = perp(&rotate(q[k + 2], local));
                    j[(2 * r, k)] += sign;
                    j[(2 * r + 1, k + 1)] += sign;
                    j[(2 * r, k + 2)] += sign * t.x;
                    j[(2 * r + 1, k + 2)] += sign * t.y;
                }
            }
        }
        let rows = 2 * self.joints.len();
        for (i, &c) in self.independent.iter().enumerate() {
            j[(rows + i, c)] = 1.0;
        }
        j
    }

    /// `(Phi_q u)_q v` with the sign of the acceleration equation: the
    /// velocity-product terms of the joint equations for coordinate
    /// velocities `u` and `v` (for `u = v = q'` it is `Phi_q q''` at
    /// `z'' = 0`, M3).
    fn quadratic(
        &self,
        q: &SVector<f64, NQ>,
        u: &SVector<f64, NQ>,
        v: &SVector<f64, NQ>,
    ) -> SVector<f64, NQ> {
        let mut g = SVector::<f64, NQ>::zeros();
        for (r, joint) in self.joints.iter().enumerate() {
            for (anchor, sign) in [(&joint.a, 1.0), (&joint.b, -1.0)] {
                if let Anchor::On { body, local } = anchor {
                    let k = 3 * body;
                    let p = rotate(q[k + 2], local) * (sign * u[k + 2] * v[k + 2]);
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
            let phi = self.constraints(&q);
            if !phi.iter().chain(q.iter()).all(|v| v.is_finite()) {
                break;
            }
            let norm = phi.amax();
            // Converged: at round-off, or no longer improving near it.
            if norm <= 4.0 * f64::EPSILON * scale || (norm <= 1e-12 * scale && norm >= last) {
                return Ok((q, it));
            }
            last = norm;
            let lu = self.system_matrix(&q).lu();
            match lu.solve(&phi) {
                Some(dq) => q -= dq,
                None => {
                    return Err(format!(
                        "singular configuration at z = {:?}: the joints lock",
                        z.as_slice()
                    ));
                }
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
        let system = self.system_matrix(q);
        let lu = system.lu();
        let mut rhs = SMatrix::<f64, NQ, D>::zeros();
        let rows = 2 * self.joints.len();
        for i in 0..D {
            rhs[(rows + i, i)] = 1.0;
        }
        let r = lu
            .solve(&rhs)
            .ok_or_else(|| "singular configuration: the joints lock".to_string())?;
        let qdot = r * zdot;
        let a0 = lu
            .solve(&self.quadratic(q, &qdot, &qdot))
            .ok_or_else(|| "singular configuration: the joints lock".to_string())?;
        Ok(Kinematics {
            q: *q,
            r,
            qdot,
            a0,
            system,
        })
    }

    /// The derivative of the velocity transformation's column `i` with
    /// respect to independent coordinate `j`, `d R_i / d z_j` (M4),
    /// analytic: differentiating `[Phi_q; B] R = [0; I]` gives
    /// `[Phi_q; B] dR_i/dz_j = -(Phi_q R_i)_q R_j`.
    pub fn dr_dz(&self, k: &Kinematics<NQ, D>, i: usize, j: usize) -> SVector<f64, NQ> {
        let ri = k.r.column(i).into_owned();
        let rj = k.r.column(j).into_owned();
        k.system
            .lu()
            .solve(&self.quadratic(&k.q, &ri, &rj))
            .unwrap_or_else(SVector::zeros)
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
        let zddot = mass
            .lu()
            .solve(&force)
            .unwrap_or_else(|| SVector::repeat(f64::NAN));
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

/// Warm starts for a one-degree-of-freedom mechanism: assembled
/// configurations on an even grid of the independent coordinate, built once
/// by continuation along one assembly branch. The guess for `z` is the
/// nearest entry moved to `z` along its velocity transformation, so Newton
/// starts within `(h/2)^2` of the solution and the result depends on `z`
/// alone (an FMU stepped from a restored state repeats itself bit for bit).
#[derive(Debug, Clone, PartialEq)]
pub struct Continuation<const NQ: usize> {
    first: f64,
    step: f64,
    entries: Vec<(SVector<f64, NQ>, SVector<f64, NQ>)>,
}

impl<const NQ: usize> Continuation<NQ>
where
    Const<NQ>: DimMin<Const<NQ>, Output = Const<NQ>>,
{
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
        let (q0, _) = mech.assemble(&SVector::from([z0]), start)?;
        let r0 = mech
            .kinematics(&q0, &SVector::zeros())?
            .r
            .column(0)
            .into_owned();
        let n = (half_range / step).floor() as usize;
        let mut sides: [Vec<(SVector<f64, NQ>, SVector<f64, NQ>)>; 2] = [Vec::new(), Vec::new()];
        for (side, dir) in [(0usize, -1.0f64), (1, 1.0)] {
            let (mut q, mut r) = (q0, r0);
            for i in 1..=n {
                let z = z0 + dir * step * i as f64;
                let guess = q + r * (dir * step);
                let Ok((qn, _)) = mech.assemble(&SVector::from([z]), &guess) else {
                    break;
                };
                let Ok(k) = mech.kinematics(&qn, &SVector::zeros()) else {
                    break;
                };
                q = qn;
                r = k.r.column(0).into_owned();
                sides[side].push((q, r));
            }
        }
        let below = sides[0].len();
        let mut entries: Vec<_> = sides[0].drain(..).rev().collect();
        entries.push((q0, r0));
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

    /// The warm start for `z`: the nearest entry, moved along `R`.
    pub fn guess(&self, z: f64) -> SVector<f64, NQ> {
        let x = ((z - self.first) / self.step).round();
        let i = if x.is_finite() {
            x.clamp(0.0, (self.entries.len() - 1) as f64) as usize
        } else {
            0
        };
        let (q, r) = &self.entries[i];
        let zi = self.first + self.step * i as f64;
        q + r * (z - zi)
    }
}

#[cfg(test)]
mod tests;
