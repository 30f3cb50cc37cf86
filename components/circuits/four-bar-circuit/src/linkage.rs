//! The four-bar linkage and the cylinder's pins (`MODEL.md` M1-M7): a table
//! for the mechanics crate (bodies crank, coupler, rocker; joints at
//! A, B, P, C; the crank angle independent), the start on the upper
//! assembly branch, the cylinder's length, rate and generalised force, and
//! what the rates need of all this tabulated over the crank angle
//! ([`table`], M7).

use crate::params::LinkageParams;
use fmu_core::nalgebra::{SVector, Vector2};
use mechanics::{Anchor, Body, Continuation, Kinematics, Mechanism, Revolute};
use std::ops::Deref;

mod table;

/// Coordinates of the linkage: `(x, y, phi)` of crank, coupler, rocker.
pub type Coordinates = SVector<f64, 9>;

/// Index of the crank angle θ in the coordinates.
pub const THETA: usize = 2;
/// Index of the coupler angle φ2.
pub const PHI2: usize = 5;
/// Index of the rocker angle φ3.
pub const PHI3: usize = 8;

/// The linkage with its cylinder pins and its warm-start table.
#[derive(Debug, Clone, PartialEq)]
pub struct Linkage {
    mech: Mechanism<9, 1>,
    warm: Continuation<9>,
    /// The cylinder's ground pin D.
    pin_ground: Anchor,
    /// The cylinder's rod pin G, the crank's centre.
    pin_rod: Anchor,
    /// Crank angle where the cylinder's pin-to-pin length is `s0`, rad.
    pub theta0: f64,
    /// The dynamics over the warm-start grid ([`table`]).
    table: table::Table,
}

/// What the rates need of the linkage at one state `(θ, θ')`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dynamics {
    /// Cylinder pin-to-pin length s, m.
    pub s: f64,
    /// ds/dθ, m/rad.
    pub ds: f64,
    /// s' = ds/dθ θ', m/s.
    pub s_dot: f64,
    /// Generalised mass R^T M R, kg m2.
    pub mass: f64,
    /// θ'' without cylinder force, rad/s2.
    pub theta_ddot_free: f64,
    /// d θ'' / d θ' at fixed force (the velocity-squared terms), 1/s.
    pub dtheta_ddot_domega: f64,
}

/// The linkage at one state `(θ, θ')`, evaluated exactly: its
/// coordinates and [`Dynamics`] (whose fields and methods it lends).
#[derive(Debug, Clone)]
pub struct LinkageEval {
    /// The assembled coordinates and their velocities.
    pub kin: Kinematics<9, 1>,
    /// What the rates need.
    pub dynamics: Dynamics,
}

impl Deref for LinkageEval {
    type Target = Dynamics;

    fn deref(&self) -> &Dynamics {
        &self.dynamics
    }
}

/// Derivatives of the linkage's quantities with respect to θ (M4, M6),
/// for the analytic Jacobian.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThetaDerivatives {
    /// d2s/dθ2, m/rad2.
    pub dds: f64,
    /// d(mass)/dθ, kg m2/rad.
    pub mass: f64,
    /// d θ''/dθ without cylinder force, at fixed θ', 1/s2.
    pub theta_ddot_free: f64,
}

impl ThetaDerivatives {
    /// d θ''/dθ at fixed θ' and cylinder force `force`.
    pub fn theta_ddot(&self, e: &Dynamics, force: f64) -> f64 {
        self.theta_ddot_free + force * (self.dds * e.mass - e.ds * self.mass) / (e.mass * e.mass)
    }
}

impl Dynamics {
    /// θ'' with cylinder force `force` (N, positive extends; M5: it enters
    /// as the generalised force F ds/dθ).
    pub fn theta_ddot(&self, force: f64) -> f64 {
        self.theta_ddot_free + force * self.ds / self.mass
    }

    /// The cylinder force that would hold the linkage still here
    /// (against gravity and the velocity terms), N.
    pub fn holding_force(&self) -> f64 {
        -self.theta_ddot_free * self.mass / self.ds
    }

    /// d θ'' / dF, rad/(s2 N).
    pub fn dtheta_ddot_dforce(&self) -> f64 {
        self.ds / self.mass
    }
}

/// The grid of the warm starts and of the dynamics' table, degrees of
/// crank angle.
const WARM_STEP_DEGREES: f64 = 0.5;

/// [`Dynamics`] and [`ThetaDerivatives`] at rate θ' from the interpolated
/// quantities: M θ'' = G - C θ'^2 + F ds/dθ.
fn interpolated(v: &table::Interpolated, omega: f64) -> (Dynamics, ThetaDerivatives) {
    let [s, ds, dds] = v.s;
    let [mass, dmass] = v.m;
    let free = (v.g[0] - v.c[0] * omega * omega) / mass;
    (
        Dynamics {
            s,
            ds,
            s_dot: ds * omega,
            mass,
            theta_ddot_free: free,
            dtheta_ddot_domega: -2.0 * v.c[0] * omega / mass,
        },
        ThetaDerivatives {
            dds,
            mass: dmass,
            theta_ddot_free: (v.g[1] - v.c[1] * omega * omega - free * dmass) / mass,
        },
    )
}

fn bar_guess(start: Vector2<f64>, end: Vector2<f64>) -> (f64, f64, f64) {
    let c = 0.5 * (start + end);
    let d = end - start;
    (c.x, c.y, d.y.atan2(d.x))
}

impl Linkage {
    /// Builds the table (M1) and finds the start: the crank angle θ0 where
    /// the cylinder is `s0` long, nearest to the crank pointing along +x,
    /// on the upper assembly branch. An error when the bars cannot close the
    /// loop there or the cylinder cannot reach `s0`.
    pub fn new(p: &LinkageParams, s0: f64) -> Result<Self, String> {
        let a = Vector2::new(p.Ax, p.Ay);
        let c = Vector2::new(p.Cx, p.Cy);
        let mech = Mechanism::new(
            vec![
                Body::slender_bar(p.L1, p.m1),
                Body::slender_bar(p.L2, p.m2),
                Body::slender_bar(p.L3, p.m3),
            ],
            vec![
                Revolute {
                    a: Anchor::Ground(a),
                    b: Anchor::on(0, -p.L1 / 2.0, 0.0),
                },
                Revolute {
                    a: Anchor::on(0, p.L1 / 2.0, 0.0),
                    b: Anchor::on(1, -p.L2 / 2.0, 0.0),
                },
                Revolute {
                    a: Anchor::on(1, p.L2 / 2.0, 0.0),
                    b: Anchor::on(2, p.L3 / 2.0, 0.0),
                },
                Revolute {
                    a: Anchor::Ground(c),
                    b: Anchor::on(2, -p.L3 / 2.0, 0.0),
                },
            ],
            [THETA],
            Vector2::new(0.0, -p.g),
        )?;
        // Upper branch at θ = 0: the coupler's far end P where the circles
        // about B (radius L2) and C (radius L3) meet, on the left of B -> C.
        let b = a + Vector2::new(p.L1, 0.0);
        let bc = c - b;
        let d = bc.norm();
        if !(d < p.L2 + p.L3 && d > (p.L2 - p.L3).abs()) {
            return Err(format!(
                "the coupler (L2 = {} m) and the rocker (L3 = {} m) cannot reach each other across {d:.4} m at θ = 0: the loop does not close",
                p.L2, p.L3
            ));
        }
        let along = (p.L2 * p.L2 - p.L3 * p.L3 + d * d) / (2.0 * d);
        let h = (p.L2 * p.L2 - along * along).max(0.0).sqrt();
        let e = bc / d;
        let tip = b + e * along + Vector2::new(-e.y, e.x) * h;
        let (x1, y1, f1) = bar_guess(a, b);
        let (x2, y2, f2) = bar_guess(b, tip);
        let (x3, y3, f3) = bar_guess(c, tip);
        let guess = SVector::from([x1, y1, f1, x2, y2, f2, x3, y3, f3]);
        let (q, _) = mech.assemble(&SVector::from([0.0]), &guess)?;
        let warm = Continuation::build(
            &mech,
            &q,
            std::f64::consts::PI,
            WARM_STEP_DEGREES.to_radians(),
        )?;
        let mut linkage = Linkage {
            mech,
            warm,
            pin_ground: Anchor::ground(p.Dx, p.Dy),
            pin_rod: Anchor::on(0, 0.0, 0.0),
            theta0: 0.0,
            table: table::Table::new(0.0, 1.0, Vec::new()),
        };
        linkage.theta0 = linkage.theta_at_length(s0)?;
        linkage.table = linkage.tabulate()?;
        Ok(linkage)
    }

    /// The table of [`table`] on the warm-start grid.
    fn tabulate(&self) -> Result<table::Table, String> {
        let (first, last) = self.warm.range();
        let step = WARM_STEP_DEGREES.to_radians();
        let n = ((last - first) / step).round() as usize + 1;
        let mut nodes = Vec::with_capacity(n);
        for i in 0..n {
            nodes.push(self.node(first + step * i as f64)?);
        }
        Ok(table::Table::new(first, step, nodes))
    }

    /// The exact values and θ-derivatives of one node of the table: with
    /// `R`, `dR`, `d2R` the velocity transformation and its derivatives,
    /// M = R^T M R, C = R^T M dR, G = R^T Q_g, dM = 2 C,
    /// dC = dR^T M dR + R^T M d2R, dG = dR^T Q_g, d2G = d2R^T Q_g; d2C
    /// (which would need the third derivative of `R`) by the fourth-order
    /// central difference of the exact dC over ±1e-3 and ±2e-3 rad (its
    /// error, about 1e-12 relative, enters the interpolant with the weight
    /// of a cell's width squared).
    fn node(&self, theta: f64) -> Result<table::Node, String> {
        let node = self.exact(theta)?;
        let dc = node.c[1];
        let delta = 1e-3;
        let dc_at = |t: f64| self.exact(t).map(|n| n.c[1]);
        let (p1, m1) = (dc_at(theta + delta)?, dc_at(theta - delta)?);
        let (p2, m2) = (dc_at(theta + 2.0 * delta)?, dc_at(theta - 2.0 * delta)?);
        let d2c = (8.0 * (p1 - m1) - (p2 - m2)) / (12.0 * delta);
        Ok(table::Node {
            c: [node.c[0], dc, d2c],
            ..node
        })
    }

    /// [`Linkage::node`] without d2C (left 0).
    fn exact(&self, theta: f64) -> Result<table::Node, String> {
        let one = SVector::from([1.0]);
        let (kin, _) = self
            .mech
            .solve(&SVector::from([theta]), &one, &self.warm.guess(theta))?;
        Ok(self.quantities(&kin))
    }

    /// [`Linkage::exact`] from kinematics solved at its crank angle (at any
    /// rate: R and its derivatives do not depend on it).
    fn quantities(&self, kin: &Kinematics<9, 1>) -> table::Node {
        let r = kin.r.column(0).into_owned();
        let dr = self.mech.dr_dz(kin, 0, 0);
        let d2r = self.mech.d2r_dz2(kin, &dr);
        let (s, s1, s2) =
            self.mech
                .distance_derivatives(&kin.q, &r, &dr, &self.pin_ground, &self.pin_rod);
        let m = self.mech.mass_diagonal();
        let qg = self.mech.gravity_forces();
        let mass = r.dot(&m.component_mul(&r));
        let c = r.dot(&m.component_mul(&dr));
        let dc = dr.dot(&m.component_mul(&dr)) + r.dot(&m.component_mul(&d2r));
        table::Node {
            s: [s, s1, s2],
            m: [mass, 2.0 * c, 2.0 * dc],
            g: [r.dot(&qg), dr.dot(&qg), d2r.dot(&qg)],
            c: [c, dc, 0.0],
        }
    }

    /// What the rates need at crank angle θ and rate θ': interpolated in
    /// the table ([`table`]), evaluated exactly outside it.
    pub fn dynamics(&self, theta: f64, omega: f64) -> Result<Dynamics, String> {
        match self.table.at(theta) {
            Some(v) => Ok(interpolated(&v, omega).0),
            None => Ok(self.eval(theta, omega)?.dynamics),
        }
    }

    /// [`Linkage::dynamics`] and its θ derivatives (those of the
    /// interpolants inside the table).
    pub fn dynamics_with_derivatives(
        &self,
        theta: f64,
        omega: f64,
    ) -> Result<(Dynamics, ThetaDerivatives), String> {
        match self.table.at(theta) {
            Some(v) => Ok(interpolated(&v, omega)),
            None => {
                let (e, d) = self.eval_with_derivatives(theta, omega)?;
                Ok((e.dynamics, d))
            }
        }
    }

    /// The mechanism table.
    pub fn mechanism(&self) -> &Mechanism<9, 1> {
        &self.mech
    }

    /// Assembled coordinates at crank angle θ (M2), warm-started from the
    /// continuation table.
    pub fn assemble(&self, theta: f64) -> Result<Coordinates, String> {
        Ok(self
            .mech
            .assemble(&SVector::from([theta]), &self.warm.guess(theta))?
            .0)
    }

    /// Cylinder length and ds/dθ at crank angle θ.
    pub fn length(&self, theta: f64) -> Result<(f64, f64), String> {
        let q = self.assemble(theta)?;
        let k = self.mech.kinematics(&q, &SVector::from([1.0]))?;
        let (s, grad) = self.mech.distance(&q, &self.pin_ground, &self.pin_rod);
        Ok((s, grad.dot(&k.r.column(0))))
    }

    /// The crank angle where the cylinder is `s` long, by Newton from θ = 0.
    pub fn theta_at_length(&self, s: f64) -> Result<f64, String> {
        let mut theta = 0.0f64;
        for _ in 0..50 {
            let (l, ds) = self.length(theta)?;
            let step = (l - s) / ds;
            if !step.is_finite() {
                break;
            }
            theta -= step;
            if step.abs() < 1e-15 {
                return Ok(theta);
            }
        }
        let (l, _) = self.length(theta)?;
        if (l - s).abs() < 1e-12 {
            return Ok(theta);
        }
        Err(format!(
            "the cylinder cannot be {s} m long near θ = 0 (between its pins D and G)"
        ))
    }

    /// Evaluates the linkage at crank angle θ and rate θ' (M2-M6).
    pub fn eval(&self, theta: f64, omega: f64) -> Result<LinkageEval, String> {
        let (kin, _) = self.mech.solve(
            &SVector::from([theta]),
            &SVector::from([omega]),
            &self.warm.guess(theta),
        )?;
        let (s, grad) = self.mech.distance_at(&kin, &self.pin_ground, &self.pin_rod);
        let r = kin.r.column(0);
        let ds = grad.dot(&r);
        let m = self.mech.motion(&kin, &SVector::zeros());
        let mass = m.mass[(0, 0)];
        // M5: θ'' mass = R^T Q_g - R^T M a0 with a0 = dR/dθ θ'^2, so the
        // velocity term's derivative is 2 (R^T M a0) / (mass θ') (taken
        // directly, not as a difference, so that small θ' lose nothing).
        let velocity_term = r.dot(&self.mech.mass_diagonal().component_mul(&kin.a0));
        let dtheta_ddot_domega = if omega != 0.0 {
            -2.0 * velocity_term / (mass * omega)
        } else {
            0.0
        };
        Ok(LinkageEval {
            dynamics: Dynamics {
                s,
                ds,
                s_dot: ds * omega,
                mass,
                theta_ddot_free: m.zddot[0],
                dtheta_ddot_domega,
            },
            kin,
        })
    }

    /// [`Linkage::eval`] and the θ derivatives: with `G = R^T Q_g` and
    /// `C = R^T M dR/dθ` (so that mass θ'' = G - C θ'^2 + F ds/dθ),
    /// d(mass)/dθ = 2 C, dG/dθ = dR^T Q_g, dC/dθ = dR^T M dR + R^T M d2R
    /// ([`Linkage::quantities`], the same formulas as the table's).
    pub fn eval_with_derivatives(
        &self,
        theta: f64,
        omega: f64,
    ) -> Result<(LinkageEval, ThetaDerivatives), String> {
        let e = self.eval(theta, omega)?;
        let d = interpolated(
            &table::Interpolated::at_node(&self.quantities(&e.kin)),
            omega,
        )
        .1;
        Ok((e, d))
    }

    /// The cylinder force that holds the linkage at rest at crank angle θ
    /// (against gravity), N.
    pub fn holding_force(&self, theta: f64) -> Result<f64, String> {
        Ok(self.eval(theta, 0.0)?.holding_force())
    }

    /// The loop residual |Φ| of every joint at assembled coordinates `q`,
    /// m (an output, not needed by the rates).
    pub fn residual(&self, q: &Coordinates) -> f64 {
        self.mech.loop_residual(q)
    }

    /// Kinetic plus potential energy at assembled coordinates `q` and crank
    /// rate θ' with the dynamics `d` there (`M θ'^2 / 2` is the kinetic
    /// energy `q'^T M q' / 2` with `q' = R θ'`), J.
    pub fn energy_at(&self, q: &Coordinates, d: &Dynamics, omega: f64) -> f64 {
        0.5 * d.mass * omega * omega + self.mech.potential_energy(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::four_bar::Params;
    use fmu_core::Record;

    fn linkage() -> Linkage {
        let p = Params::defaults();
        p.linkage.linkage(p.hydraulics.s0).unwrap()
    }

    /// Crank angles spread over the table without falling on its nodes.
    fn angles(l: &Linkage, n: usize) -> Vec<f64> {
        let (lo, hi) = l.warm.range();
        (0..n)
            .map(|i| lo + (hi - lo) * ((i as f64 + 0.5) * 0.618_033_988_75).fract())
            .collect()
    }

    #[test]
    fn the_table_agrees_with_the_exact_evaluation() {
        let l = linkage();
        let rel = |a: f64, b: f64, scale: f64| (a - b).abs() / scale;
        let (mut worst, mut worst_d) = (0.0f64, 0.0f64);
        for theta in angles(&l, 3000) {
            for omega in [-2.0, 0.0, 0.7] {
                let (t, td) = l.dynamics_with_derivatives(theta, omega).unwrap();
                let (e, ed) = l.eval_with_derivatives(theta, omega).unwrap();
                let acc = e.theta_ddot_free.abs().max(1.0);
                for err in [
                    rel(t.s, e.s, e.s),
                    rel(t.ds, e.ds, e.ds.abs().max(0.1)),
                    rel(t.s_dot, e.s_dot, e.ds.abs().max(0.1)),
                    rel(t.mass, e.mass, e.mass),
                    rel(t.theta_ddot_free, e.theta_ddot_free, acc),
                    rel(t.dtheta_ddot_domega, e.dtheta_ddot_domega, 1.0),
                ] {
                    worst = worst.max(err);
                }
                for err in [
                    rel(td.dds, ed.dds, e.ds.abs().max(0.1)),
                    rel(td.mass, ed.mass, e.mass),
                    rel(td.theta_ddot_free, ed.theta_ddot_free, acc),
                ] {
                    worst_d = worst_d.max(err);
                }
            }
        }
        assert!(worst < 1e-11, "values: {worst:e}");
        assert!(worst_d < 1e-8, "θ derivatives: {worst_d:e}");
    }

    #[test]
    fn the_tables_derivatives_are_those_of_its_values() {
        // The Jacobian of the interpolated rates is exact: central
        // differences of the interpolants give their derivatives.
        let l = linkage();
        let h = 1e-6;
        for theta in angles(&l, 200) {
            let omega = 1.3;
            let (_, d) = l.dynamics_with_derivatives(theta, omega).unwrap();
            let p = l.dynamics(theta + h, omega).unwrap();
            let m = l.dynamics(theta - h, omega).unwrap();
            let c = l.dynamics(theta, omega).unwrap();
            assert!(((p.ds - m.ds) / (2.0 * h) - d.dds).abs() < 1e-6 * c.ds.abs().max(0.1));
            assert!(((p.mass - m.mass) / (2.0 * h) - d.mass).abs() < 1e-6 * c.mass);
            let fd = (p.theta_ddot_free - m.theta_ddot_free) / (2.0 * h);
            assert!(
                (fd - d.theta_ddot_free).abs() < 1e-6 * c.theta_ddot_free.abs().max(1.0),
                "θ = {theta}: {fd} vs {}",
                d.theta_ddot_free
            );
        }
    }

    #[test]
    fn outside_the_table_the_linkage_is_evaluated_exactly() {
        let l = linkage();
        let (_, hi) = l.warm.range();
        let theta = hi + 0.01;
        assert!(l.table.at(theta).is_none());
        let d = l.dynamics(theta, 0.5).unwrap();
        assert_eq!(d, l.eval(theta, 0.5).unwrap().dynamics);
    }
}
