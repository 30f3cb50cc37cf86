//! The lift actuator's hydraulics (`MODEL.md` L1-L5): the second-order
//! spool, the 4/3 valve with positive overlap to supply and negative
//! overlap to tank, and the two cylinder chambers.
//!
//! States, in this order: `x_v` (m), `dx_v` (m/s), `p_A`, `p_B` (Pa). The
//! piston position and velocity come from outside (the piston, or the FMU's
//! inputs).

use LiftDriveStates as S;
use fmu_core::Derived;
use fmu_core::nalgebra::{SMatrix, SVector};
use hydraulics::{Cylinder, DirectionalValve, ProportionalSpool};

fmu_core::states! {
    /// The hydraulic states (L1, L5): a block of a circuit's state vector.
    pub struct LiftDriveStates {
        /// Spool position, m
        x_v: nominal 1e-2;
        /// Spool velocity, m/s
        dx_v: nominal 1.0;
        /// Chamber A (piston side) pressure, Pa
        p_A: nominal 1e6;
        /// Chamber B (rod side) pressure, Pa
        p_B: nominal 1e6;
    }
}

/// The hydraulic state vector.
pub type LiftDriveState = SVector<f64, 4>;

/// Spool, valve and chambers of the lift actuator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiftDrive {
    /// Supply pressure p_S, Pa (ideal source).
    pub ps: f64,
    /// Tank pressure p_T, Pa.
    pub pt: f64,
    /// Spool (L1): gain K_v in m per unit of command, so its state is the
    /// spool position in m.
    pub spool: ProportionalSpool,
    /// The valve (L2-L4): its flow constant is c_v (per m of opening) and
    /// its overlaps act on x_v / K_v.
    pub valve: DirectionalValve,
    /// The chambers (L5).
    pub cylinder: Cylinder,
    /// Bulk modulus beta, Pa (constant).
    pub beta: f64,
    /// Initial hydraulic state.
    pub initial: LiftDriveState,
}

/// Rates, flows and (when asked for) partial derivatives at one point.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LiftDriveEval {
    /// Time derivatives of the four hydraulic states.
    pub rates: LiftDriveState,
    /// d(rates)/d(hydraulic states), row = rate.
    pub jac: SMatrix<f64, 4, 4>,
    /// d(rates)/d(piston position).
    pub d_x: LiftDriveState,
    /// d(rates)/d(piston velocity).
    pub d_v: LiftDriveState,
    /// d(rates)/d(command u).
    pub d_u: LiftDriveState,
    /// Flow into chamber A, Q_A (L4), m3/s.
    pub q_a: f64,
    /// Flow into chamber B, Q_B (L4), m3/s.
    pub q_b: f64,
}

impl LiftDrive {
    /// Where the drive's equations switch (Model Exchange event
    /// indicators): the four metering edges of the spool opening or
    /// closing (L3).
    pub const EVENT_INDICATORS: [fmu_core::EventIndicator; 4] = [
        fmu_core::EventIndicator {
            name: "edge_PA",
            description: "opening of the P-A edge before the cut at zero, m of spool travel (L3)",
            offset: 0.0,
        },
        fmu_core::EventIndicator {
            name: "edge_PB",
            description: "opening of the P-B edge before the cut at zero, m of spool travel (L3)",
            offset: 0.0,
        },
        fmu_core::EventIndicator {
            name: "edge_AT",
            description: "opening of the A-T edge before the cut at zero, m of spool travel (L3)",
            offset: 0.0,
        },
        fmu_core::EventIndicator {
            name: "edge_BT",
            description: "opening of the B-T edge before the cut at zero, m of spool travel (L3)",
            offset: 0.0,
        },
    ];

    /// The values of [`LiftDrive::EVENT_INDICATORS`] at hydraulic state
    /// `s`, into `z` (4 entries).
    pub fn event_indicator_values(&self, s: &LiftDriveState, z: &mut [f64]) {
        z[..4].copy_from_slice(&self.valve.edge_switching(s[S::x_v]));
    }

    /// The coefficients the hydraulics derive from their parameters, for
    /// fmu-core's check at configuration ([`fmu_core::Model::derived`]).
    pub fn derived(&self) -> Vec<Derived> {
        let c = &self.cylinder;
        vec![
            Derived::positive(
                "omega_v^2 of the spool (L1)",
                "1/s2",
                self.spool.omega.powi(2),
            ),
            Derived::finite(
                "2 D_v omega_v of the spool (L1)",
                "1/s",
                2.0 * self.spool.damping * self.spool.omega,
            ),
            Derived::positive(
                "p_tr^-2.5 of the valve edges (L3)",
                "Pa^-2.5",
                1.0 / (self.valve.p_tr.powi(2) * self.valve.p_tr.sqrt()),
            ),
            Derived::finite(
                "c_v K_v sqrt(p_S - p_T), the full-opening flow scale (L4)",
                "m3/s",
                self.valve.cv * self.spool.gain * (self.ps - self.pt).abs().sqrt(),
            ),
            Derived::positive(
                "chamber A volume at full stroke (L5)",
                "m3",
                c.volume_a(c.stroke),
            ),
            Derived::positive("chamber B volume at x_p = 0 (L5)", "m3", c.volume_b(0.0)),
            Derived::positive(
                "beta/V_A, chamber A's stiffness at x_p = 0 (L5)",
                "Pa/m3",
                self.beta / c.v_dead_a,
            ),
            Derived::positive(
                "beta/V_B, chamber B's stiffness at full stroke (L5)",
                "Pa/m3",
                self.beta / c.v_dead_b,
            ),
        ]
    }

    /// Hydraulic force on the piston, p_A S_A - p_B S_B (N, positive
    /// extending).
    #[inline]
    pub fn force(&self, s: &LiftDriveState) -> f64 {
        self.cylinder.force(s[S::p_A], s[S::p_B])
    }

    /// The gradient of [`force`](Self::force) with respect to the
    /// hydraulic states.
    pub fn force_gradient(&self) -> LiftDriveState {
        let mut g = LiftDriveState::zeros();
        g[S::p_A] = self.cylinder.a1;
        g[S::p_B] = -self.cylinder.a2;
        g
    }

    /// Rates (L1, L4, L5) and their partials for command `u`, hydraulic
    /// state `s`, piston position `x` (m) and velocity `v` (m/s).
    pub fn eval(&self, u: f64, s: &LiftDriveState, x: f64, v: f64) -> LiftDriveEval {
        self.evaluate::<true>(u, s, x, v)
    }

    /// The rates and flows of [`eval`](Self::eval) without the partial
    /// derivatives: the integrators' right-hand side.
    pub fn rates(&self, u: f64, s: &LiftDriveState, x: f64, v: f64) -> LiftDriveEval {
        self.evaluate::<false>(u, s, x, v)
    }

    /// One set of equations for both; the partials are formed when
    /// `PARTIALS` (a compile-time choice).
    fn evaluate<const PARTIALS: bool>(
        &self,
        u: f64,
        s: &LiftDriveState,
        x: f64,
        v: f64,
    ) -> LiftDriveEval {
        let mut e = LiftDriveEval::default();
        // L1: spool.
        e.rates[S::x_v] = s[S::dx_v];
        e.rates[S::dx_v] = self.spool.acceleration(u, s[S::x_v], s[S::dx_v]);
        // L2-L4: the valve's flows. The element's q_b is the flow out of
        // B; Q_B of MODEL.md points into B.
        let f = self
            .valve
            .flows(s[S::x_v], self.ps, s[S::p_A], s[S::p_B], self.pt);
        e.q_a = f.q_a;
        e.q_b = -f.q_b;
        // L5: chambers.
        let c = &self.cylinder;
        let (va, vb) = (c.volume_a(x), c.volume_b(x));
        let n_a = e.q_a - c.a1 * v;
        let n_b = e.q_b + c.a2 * v;
        e.rates[S::p_A] = self.beta / va * n_a;
        e.rates[S::p_B] = self.beta / vb * n_b;
        if !PARTIALS {
            return e;
        }
        let (a_u, a_x, a_dx) = self.spool.acceleration_partials();
        e.jac[(S::x_v, S::dx_v)] = 1.0;
        e.jac[(S::dx_v, S::x_v)] = a_x;
        e.jac[(S::dx_v, S::dx_v)] = a_dx;
        e.d_u[S::dx_v] = a_u;
        // The valve's partials are columns (spool, supply, A, B).
        let (ka, kb) = (self.beta / va, -self.beta / vb);
        for (col, state) in [(0, S::x_v), (2, S::p_A), (3, S::p_B)] {
            e.jac[(S::p_A, state)] = ka * f.partials[0][col];
            e.jac[(S::p_B, state)] = kb * f.partials[1][col];
        }
        e.d_x[S::p_A] = -self.beta * n_a / (va * va) * c.dvolume_a(x);
        e.d_x[S::p_B] = -self.beta * n_b / (vb * vb) * c.dvolume_b(x);
        e.d_v[S::p_A] = -self.beta / va * c.a1;
        e.d_v[S::p_B] = self.beta / vb * c.a2;
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{CylinderParams, ValveParams};
    use fmu_core::Record;

    fn drive() -> LiftDrive {
        LiftDrive::new(&ValveParams::defaults(), &CylinderParams::defaults()).unwrap()
    }

    /// States on every branch: supply edge open (u > 0) and closed, both
    /// tank edges open at the centre, P-B open (u < 0), pressure drops
    /// inside and outside the orifice law's laminar band.
    fn points() -> Vec<(LiftDriveState, f64, f64, f64)> {
        vec![
            ([0.008, 0.3, 5.9e6, 1.1e6].into(), 0.6, 4.1, 1.0),
            ([0.0, 0.0, 1.02e5, 0.995e5].into(), 0.0, 0.0, 0.0),
            ([-0.006, -0.2, 3e6, 6e6].into(), 0.4, -2.0, -0.8),
            ([0.001, 0.05, 2e5, 1.5e5].into(), 0.9, 0.3, 0.2),
        ]
    }

    #[test]
    fn jacobian_matches_finite_differences() {
        let d = drive();
        for (s, x, v, u) in points() {
            let e = d.eval(u, &s, x, v);
            for k in 0..4 {
                let h = [1e-9, 1e-6, 1.0, 1.0][k];
                let (mut up, mut dn) = (s, s);
                up[k] += h;
                dn[k] -= h;
                let (a, b) = (d.rates(u, &up, x, v), d.rates(u, &dn, x, v));
                for r in 0..4 {
                    let fd = (a.rates[r] - b.rates[r]) / (2.0 * h);
                    assert!(
                        (fd - e.jac[(r, k)]).abs() <= 1e-5 * fd.abs().max(1.0),
                        "d rate{r}/d s{k} at {s:?}: {} vs {fd}",
                        e.jac[(r, k)]
                    );
                }
            }
            for (which, h) in [(0, 1e-7), (1, 1e-7), (2, 1e-7)] {
                let at = |dh: f64| match which {
                    0 => d.rates(u, &s, x + dh, v),
                    1 => d.rates(u, &s, x, v + dh),
                    _ => d.rates(u + dh, &s, x, v),
                };
                let (a, b) = (at(h), at(-h));
                let analytic = [e.d_x, e.d_v, e.d_u][which];
                for r in 0..4 {
                    let fd = (a.rates[r] - b.rates[r]) / (2.0 * h);
                    assert!(
                        (fd - analytic[r]).abs() <= 1e-5 * fd.abs().max(1.0),
                        "d rate{r}/d input{which}: {} vs {fd}",
                        analytic[r]
                    );
                }
            }
        }
    }

    #[test]
    fn rates_without_partials_are_the_rates_of_eval() {
        let d = drive();
        for (s, x, v, u) in points() {
            let (full, bare) = (d.eval(u, &s, x, v), d.rates(u, &s, x, v));
            assert_eq!(
                (full.rates, full.q_a, full.q_b),
                (bare.rates, bare.q_a, bare.q_b)
            );
        }
    }

    #[test]
    fn flows_follow_the_overlaps_and_the_orifice_law() {
        let d = drive();
        let cv = std::f64::consts::PI * 0.005 * 0.61 * (2.0f64 / 800.0).sqrt();
        // Centred spool: the negative overlap vents both chambers to tank
        // (f_TA = f_TB = c2), the supply edges are closed.
        let s = LiftDriveState::from([0.0, 0.0, 1.1e6, 2.1e6]);
        let e = d.rates(0.0, &s, 0.5, 0.0);
        assert!((e.q_a - (-cv * 0.00833 * 0.2 * 1e6f64.sqrt())).abs() < 1e-12);
        assert!((e.q_b - (-cv * 0.00833 * 0.2 * 2e6f64.sqrt())).abs() < 1e-12);
        // Full opening (xi = 1): P-A at 1 - c1, B-T at 1 + c2, A-T shut.
        let s = LiftDriveState::from([0.00833, 0.0, 5.9e6, 1.1e6]);
        let e = d.rates(1.0, &s, 0.5, 0.0);
        let qa = cv * 0.00833 * 0.95 * 1.7e6f64.sqrt();
        let qb = -cv * 0.00833 * 1.2 * 1e6f64.sqrt();
        assert!((e.q_a / qa - 1.0).abs() < 1e-12, "{} vs {qa}", e.q_a);
        assert!((e.q_b / qb - 1.0).abs() < 1e-12, "{} vs {qb}", e.q_b);
        // Inside the positive overlap no supply flow reaches either side.
        let s = LiftDriveState::from([0.04 * 0.00833, 0.0, 1e5, 1e5]);
        let e = d.rates(0.0, &s, 0.5, 0.0);
        assert_eq!((e.q_a, e.q_b), (0.0, 0.0));
    }

    #[test]
    fn chamber_b_keeps_its_volume_over_the_whole_stroke() {
        // MODEL.md's replacement (R2) for the printed V_B - x_p S_B,
        // which vanishes at 0.254 m.
        let d = drive();
        assert!((d.cylinder.volume_b(1.0) - 3e-4).abs() < 1e-15);
        assert!((d.cylinder.volume_b(0.0) - (3e-4 + 1.18e-3)).abs() < 1e-15);
        assert!((d.cylinder.volume_a(1.0) - (3e-4 + 1.18e-3)).abs() < 1e-15);
    }
}
