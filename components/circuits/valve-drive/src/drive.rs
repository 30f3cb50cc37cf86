//! The hydraulic assembly: spool, pressure compensator with shuttle valve,
//! small volume, 4/3 valve and the two cylinder chambers (V1-V5, V7).
//!
//! Hydraulic states, in this order: `Us` (V), `dUs` (V/s), `K`
//! (m3/(s sqrt(Pa))), `p1`, `p2`, `pv` (Pa). The rod position `x` and
//! velocity `v` come from outside (the carriage, or the FMU's inputs).

use DriveStates as S;
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Clamp, Derived, EventIndicator};
use hydraulics::trained_volume::{FlowsAt, TrainedVolume};
use hydraulics::{
    BulkModulus, Cylinder, DirectionalValve, PressureCompensator, ProportionalSpool, shuttle,
};

fmu_core::states! {
    /// The drive's hydraulic states (V1, V3, V5): a block of a circuit's
    /// state vector.
    pub struct DriveStates {
        /// Spool signal, V
        Us: nominal 10.0;
        /// Its rate, V/s
        dUs: nominal 1e3;
        /// Compensator throttle coefficient, m3/(s sqrt(Pa)); nominal: the
        /// default full opening Kmax (the absolute tolerance of K near its
        /// clamp at 0 then weighs a flow error of about 1e-9 m3/s, not
        /// 1e-11; measured: a third fewer rejected substeps)
        K: nominal 5e-8;
        /// Chamber A pressure, Pa
        p1: nominal 1e6;
        /// Chamber B pressure, Pa
        p2: nominal 1e6;
        /// Small-volume pressure, Pa
        pv: nominal 1e6;
    }
}

/// The drive's hydraulic state vector.
pub type DriveState = SVector<f64, 6>;

/// How the pressure `pv` in the small volume between compensator and valve
/// is computed: the part of the drive whose law is chosen by parameters
/// (`quasi_static`, `pv_surrogate`).
#[derive(Debug, Clone, PartialEq)]
pub enum SmallVolume {
    /// `pv` is a state: `dpv/dt = B(pv)/Vv (Qv - Q3)` (V5, third line),
    /// with the volume Vv in m3. Stiff: its eigenvalue is of order -1e6 1/s.
    Dynamic {
        /// The small volume Vv, m3.
        volume: f64,
    },
    /// `pv` from the flow balance `Qv = Q3` (V7): no state, no stiffness.
    QuasiStatic,
    /// `pv` from a trained surrogate (NARX network or LOLIMOT model) with
    /// inputs `Qv`, `Q3`, `B(pv)`, `Vv` and `pv` one period earlier: a
    /// sampled state, held over each sample period (its rate is zero) and
    /// renewed at the period's end ([`ValveDrive::sample_pv`]).
    Trained(TrainedVolume),
}

/// The slot name and the input and output names a weights file for the
/// small volume must carry (checked when it is loaded).
pub const PV_SLOT: (&str, [&str; 5], [&str; 1]) = (
    "valve-drive/pv",
    ["Qv", "Q3", "B", "Vv", "pv_prev"],
    ["pv_change"],
);

/// The pressure-compensated valve drive.
#[derive(Debug, Clone, PartialEq)]
pub struct ValveDrive {
    /// Supply pressure, Pa.
    pub ps: f64,
    /// Tank pressure, Pa.
    pub pt: f64,
    /// Spool dynamics (V1).
    pub spool: ProportionalSpool,
    /// Compensator (V3).
    pub compensator: PressureCompensator,
    /// Directional valve (V4).
    pub valve: DirectionalValve,
    /// Cylinder chambers (V5).
    pub cylinder: Cylinder,
    /// Bulk-modulus law (E4 of the orifice chain).
    pub fluid: BulkModulus,
    /// The small volume between compensator and valve.
    pub small_volume: SmallVolume,
    /// Initial hydraulic state.
    pub initial: DriveState,
}

/// Rates and flows of the drive at one point: what the integrators'
/// right-hand side needs, several times per Jacobian.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DriveRates {
    /// Time derivatives of the six hydraulic states.
    pub rates: DriveState,
    /// The small-volume pressure in force (the state, or the quasi-static
    /// solution), Pa.
    pub pv: f64,
    /// Compensator flow Qv, m3/s.
    pub qv: f64,
    /// Flow into chamber A (Q1), m3/s.
    pub q1: f64,
    /// Flow out of chamber B (Q2), m3/s.
    pub q2: f64,
    /// Flow from the small volume into the valve (Q3), m3/s.
    pub q3: f64,
}

/// The partial derivatives of the drive's rates at one point.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct DrivePartials {
    jac: SMatrix<f64, 6, 6>,
    d_x: DriveState,
    d_v: DriveState,
    d_u: DriveState,
}

/// Rates, flows and partial derivatives of the drive at one point.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DriveEval {
    /// Time derivatives of the six hydraulic states.
    pub rates: DriveState,
    /// d(rates)/d(hydraulic states), row = rate.
    pub jac: SMatrix<f64, 6, 6>,
    /// d(rates)/d(rod position x).
    pub d_x: DriveState,
    /// d(rates)/d(rod velocity v).
    pub d_v: DriveState,
    /// d(rates)/d(command U).
    pub d_u: DriveState,
    /// The small-volume pressure in force (the state, or the quasi-static
    /// solution), Pa.
    pub pv: f64,
    /// Compensator flow Qv, m3/s.
    pub qv: f64,
    /// Flow into chamber A (Q1), m3/s.
    pub q1: f64,
    /// Flow out of chamber B (Q2), m3/s.
    pub q2: f64,
    /// Flow from the small volume into the valve (Q3), m3/s.
    pub q3: f64,
}

impl ValveDrive {
    /// Where the drive's equations switch (Model Exchange event
    /// indicators), in the order of [`ValveDrive::event_indicator_values`]:
    /// the four valve edges opening or closing (V4) and the shuttle valve
    /// changing sides (V2).
    ///
    /// The compensator's clamp (V3) has none on purpose: with its
    /// anti-windup the throttle coefficient slides along a bound for long
    /// stretches (the valve closed, the throttle shut), so an indicator
    /// `K` or `Kmax - K` would cross zero at every round-off of the
    /// master's integrator and stop it thousands of times (FMPy's CVODE
    /// lost the pressures' accuracy after such chattering in the
    /// ValveActuator scenario); the jump of K's rate there is left to the
    /// master's error control, which meets the bounds without it.
    pub const EVENT_INDICATORS: [EventIndicator; 5] = [
        EventIndicator {
            name: "edge_PA",
            description: "opening of the P-A edge before the cut at zero, V (V4)",
            offset: 0.0,
        },
        EventIndicator {
            name: "edge_PB",
            description: "opening of the P-B edge before the cut at zero, V (V4)",
            offset: 0.0,
        },
        EventIndicator {
            name: "edge_AT",
            description: "opening of the A-T edge before the cut at zero, V (V4)",
            offset: 0.0,
        },
        EventIndicator {
            name: "edge_BT",
            description: "opening of the B-T edge before the cut at zero, V (V4)",
            offset: 0.0,
        },
        EventIndicator {
            name: "shuttle",
            description: "p1 - p2 + 1e-3 Pa: the shuttle valve passes the higher one (V2; the offset keeps it from being identically 0 at the start at equal pressures)",
            offset: 1e-3,
        },
    ];

    /// The values of [`ValveDrive::EVENT_INDICATORS`] at hydraulic state
    /// `s`, into `z` (5 entries).
    pub fn event_indicator_values(&self, s: &DriveState, z: &mut [f64]) {
        z[..4].copy_from_slice(&self.valve.edge_switching(s[S::Us]));
        z[4] = s[S::p1] - s[S::p2];
    }

    /// The coefficients the drive derives from its parameters, for
    /// fmu-core's check at configuration ([`fmu_core::Model::derived`]).
    pub fn derived(&self) -> Vec<Derived> {
        let orifice_law = |p_tr: f64| 1.0 / (p_tr * p_tr * p_tr.sqrt());
        let mut d = vec![
            Derived::positive("wn^2 of the spool (V1)", "1/s2", self.spool.omega.powi(2)),
            Derived::finite(
                "2 zeta wn of the spool (V1)",
                "1/s",
                2.0 * self.spool.damping * self.spool.omega,
            ),
            Derived::positive(
                "p_tr^-2.5 of the valve edges (E2)",
                "Pa^-2.5",
                orifice_law(self.valve.p_tr),
            ),
            Derived::positive(
                "p_tr^-2.5 of the compensator (E2)",
                "Pa^-2.5",
                orifice_law(self.compensator.p_tr),
            ),
            Derived::finite(
                "cv sqrt(ps - pt) of the valve (V4)",
                "m3/(s V)",
                self.valve.cv * (self.ps - self.pt).abs().sqrt(),
            ),
            Derived::positive(
                "chamber A volume at full stroke (V5)",
                "m3",
                self.cylinder.volume_a(self.cylinder.stroke),
            ),
            Derived::positive(
                "chamber B volume at full stroke (V5)",
                "m3",
                self.cylinder.volume_b(0.0),
            ),
            Derived::positive(
                "B(ps)/V_dead, the chambers' stiffness (V5)",
                "Pa/m3",
                self.fluid.value(self.ps) / self.cylinder.v_dead_a.min(self.cylinder.v_dead_b),
            ),
        ];
        if let SmallVolume::Dynamic { volume } = self.small_volume {
            d.push(Derived::positive(
                "B(ps)/Vv, the small volume's stiffness (V5)",
                "Pa/m3",
                self.fluid.value(self.ps) / volume,
            ));
        }
        d
    }

    /// The clamp of the compensator's throttle coefficient (V3: `K` held
    /// in `[0, k_max]`, its rate cut to zero while pushed outward), for
    /// the state `K` at index `k_index` of a circuit's state vector: the
    /// real-time integrator ends a substep on the bound instead of
    /// rejecting substeps across the jump of the rate.
    pub fn throttle_clamp(&self, k_index: usize) -> Clamp {
        Clamp {
            state: k_index,
            lower: 0.0,
            upper: self.compensator.k_max,
        }
    }

    /// The sample period of a trained small volume, s; `None` when `pv`
    /// follows the physics.
    pub fn sample_period(&self) -> Option<f64> {
        match &self.small_volume {
            SmallVolume::Trained(t) => Some(t.period()),
            _ => None,
        }
    }

    /// The small-volume pressure at the end of a sample period (a trained
    /// small volume, see [`SmallVolume::Trained`]): the root of
    /// `pv = S(Qv(pv), Q3(pv), B(pv), Vv, pv_prev)` with the other states
    /// at `s` and `pv_prev = s[pv]`, the value held over the period. The
    /// state's own `pv` when the drive has no trained volume.
    pub fn sample_pv(&self, s: &DriveState) -> f64 {
        let SmallVolume::Trained(trained) = &self.small_volume else {
            return s[S::pv];
        };
        let lo = self.pt.min(s[S::p1]).min(s[S::p2]).min(self.ps);
        let hi = self.ps.max(s[S::p1]).max(s[S::p2]);
        trained.next_pressure(s[S::pv], (lo, hi), |pv| {
            let (qv, _, dqv) = self.compensator.flow(s[S::K], self.ps, pv);
            let f = self.valve.flows(s[S::Us], pv, s[S::p1], s[S::p2], self.pt);
            FlowsAt {
                q_in: qv,
                dq_in: dqv,
                q_out: f.q_p,
                dq_out: f.partials[2][1],
                bulk: self.fluid.value(pv),
                dbulk: self.fluid.derivative(pv),
            }
        })
    }

    /// Hydraulic force on the rod, N (positive extending).
    #[inline]
    pub fn force(&self, s: &DriveState) -> f64 {
        self.cylinder.force(s[S::p1], s[S::p2])
    }

    /// The quasi-static small-volume pressure (V7): the root of
    /// `Qv(pv) = Q3(pv)`, bracketed and found by safeguarded Newton, with
    /// its partial derivatives with respect to (Us, K, p1, p2).
    pub fn quasi_static_pv(&self, s: &DriveState) -> (f64, [f64; 4]) {
        let g = |pv: f64| {
            let (qv, _, dqv) = self.compensator.flow(s[S::K], self.ps, pv);
            let f = self.valve.flows(s[S::Us], pv, s[S::p1], s[S::p2], self.pt);
            (qv - f.q_p, dqv - f.partials[2][1])
        };
        let mut lo = self.pt.min(s[S::p1]).min(s[S::p2]).min(self.ps);
        let mut hi = self.ps.max(s[S::p1]).max(s[S::p2]);
        let (_, d_lo) = g(lo);
        let (_, d_hi) = g(hi);
        if d_lo == 0.0 && d_hi == 0.0 && g(0.5 * (lo + hi)).1 == 0.0 {
            // Throttle and valve both closed: pv is undetermined; hold the
            // compensator's margin above the load pressure.
            let (psh, a, b) = shuttle(s[S::p1], s[S::p2]);
            let pv = (psh + self.compensator.c5).clamp(lo, hi);
            return (pv, [0.0, 0.0, a, b]);
        }
        let mut pv = 0.5 * (lo + hi);
        for _ in 0..100 {
            let (r, dr) = g(pv);
            if r > 0.0 {
                lo = pv;
            } else {
                hi = pv;
            }
            let newton = if dr < 0.0 { pv - r / dr } else { f64::NAN };
            let next = if newton > lo && newton < hi {
                newton
            } else {
                0.5 * (lo + hi)
            };
            let done = (next - pv).abs() <= 1e-10 * self.ps.abs().max(1.0);
            pv = next;
            if done || hi - lo <= 1e-12 * self.ps.abs().max(1.0) {
                break;
            }
        }
        // Implicit-function partials: dpv/dy = -(dg/dy)/(dg/dpv).
        let (_, dqv_k, dqv_pv) = self.compensator.flow(s[S::K], self.ps, pv);
        let f = self.valve.flows(s[S::Us], pv, s[S::p1], s[S::p2], self.pt);
        let dg_pv = dqv_pv - f.partials[2][1];
        if dg_pv >= 0.0 {
            return (pv, [0.0; 4]);
        }
        let d = |dg: f64| -dg / dg_pv;
        (
            pv,
            [
                d(-f.partials[2][0]),
                d(dqv_k),
                d(-f.partials[2][2]),
                d(-f.partials[2][3]),
            ],
        )
    }

    /// Rates (V1, V3, V4, V5) and their partials for command `u` (V),
    /// hydraulic state `s`, rod position `x` (m) and velocity `v` (m/s).
    pub fn eval(&self, u: f64, s: &DriveState, x: f64, v: f64) -> DriveEval {
        let mut p = DrivePartials::default();
        let r = self.evaluate::<true>(u, s, x, v, Some(&mut p));
        DriveEval {
            rates: r.rates,
            jac: p.jac,
            d_x: p.d_x,
            d_v: p.d_v,
            d_u: p.d_u,
            pv: r.pv,
            qv: r.qv,
            q1: r.q1,
            q2: r.q2,
            q3: r.q3,
        }
    }

    /// The rates, flows and `pv` of [`eval`](Self::eval) without the
    /// partial derivatives: the integrators' right-hand side, evaluated
    /// several times per Jacobian.
    pub fn rates(&self, u: f64, s: &DriveState, x: f64, v: f64) -> DriveRates {
        self.evaluate::<false>(u, s, x, v, None)
    }

    /// One set of equations for both: the partial derivatives are formed
    /// into `partials` when `PARTIALS` (a compile-time choice, so that the
    /// right-hand side carries no trace of them).
    fn evaluate<const PARTIALS: bool>(
        &self,
        u: f64,
        s: &DriveState,
        x: f64,
        v: f64,
        mut partials: Option<&mut DrivePartials>,
    ) -> DriveRates {
        let mut e = DriveRates::default();
        // V1: spool.
        e.rates[S::Us] = s[S::dUs];
        e.rates[S::dUs] = self.spool.acceleration(u, s[S::Us], s[S::dUs]);
        if let Some(p) = partials.as_deref_mut().filter(|_| PARTIALS) {
            let (a_u, a_us, a_dus) = self.spool.acceleration_partials();
            p.jac[(S::Us, S::dUs)] = 1.0;
            p.jac[(S::dUs, S::Us)] = a_us;
            p.jac[(S::dUs, S::dUs)] = a_dus;
            p.d_u[S::dUs] = a_u;
        }

        // The small-volume pressure in force, with d(pv)/d(state).
        let mut dpv = [0.0; 6];
        let pv = match self.small_volume {
            SmallVolume::QuasiStatic => {
                let (pv, d) = self.quasi_static_pv(s);
                dpv[S::Us] = d[0];
                dpv[S::K] = d[1];
                dpv[S::p1] = d[2];
                dpv[S::p2] = d[3];
                pv
            }
            SmallVolume::Dynamic { .. } | SmallVolume::Trained(_) => {
                dpv[S::pv] = 1.0;
                s[S::pv]
            }
        };
        e.pv = pv;

        // V4: valve flows; partials columns (us, pv, p1, p2).
        let f = self.valve.flows(s[S::Us], pv, s[S::p1], s[S::p2], self.pt);
        let (q1, q2, q3) = (f.q_a, f.q_b, f.q_p);

        // V3: compensator throttle and its coefficient dynamics.
        let (psh, dpsh_1, dpsh_2) = shuttle(s[S::p1], s[S::p2]);
        let (qv, dqv_k, dqv_pv) = self.compensator.flow(s[S::K], self.ps, pv);
        let rate = self.compensator.rate(s[S::K], self.ps, pv, psh);
        e.rates[S::K] = rate.dk;

        // V5: chamber pressures.
        let cyl = &self.cylinder;
        let b = &self.fluid;
        let (va, vb) = (cyl.volume_a(x), cyl.volume_b(x));
        let (b1, b2) = (b.value(s[S::p1]), b.value(s[S::p2]));
        let n1 = q1 - cyl.a1 * v;
        let n2 = cyl.a2 * v - q2;
        e.rates[S::p1] = b1 / va * n1;
        e.rates[S::p2] = b2 / vb * n2;

        // V5 (third) or V7: the small volume.
        let n5 = qv - q3;
        let (bv, vv) = match self.small_volume {
            SmallVolume::Dynamic { volume } => (b.value(pv), volume),
            SmallVolume::QuasiStatic | SmallVolume::Trained(_) => (0.0, 1.0),
        };
        if let SmallVolume::Dynamic { .. } = self.small_volume {
            e.rates[S::pv] = bv / vv * n5;
        }
        e.qv = qv;
        e.q1 = q1;
        e.q2 = q2;
        e.q3 = q3;
        let Some(p) = partials.filter(|_| PARTIALS) else {
            return e;
        };

        // Partials, term by term from the rates above (chain rule through
        // pv where it is the quasi-static solution).
        let total = |row: usize| {
            let fp = f.partials[row];
            let mut d = [0.0; 6];
            d[S::Us] = fp[0];
            d[S::p1] = fp[2];
            d[S::p2] = fp[3];
            for (k, dk) in d.iter_mut().enumerate() {
                *dk += fp[1] * dpv[k];
            }
            d
        };
        let (dq1, dq2, dq3) = (total(0), total(1), total(2));
        for k in 0..6 {
            p.jac[(S::K, k)] = rate.d_pv * dpv[k];
        }
        p.jac[(S::K, S::K)] += rate.d_k;
        p.jac[(S::K, S::p1)] += rate.d_psh * dpsh_1;
        p.jac[(S::K, S::p2)] += rate.d_psh * dpsh_2;
        let mut dqv = [0.0; 6];
        for k in 0..6 {
            dqv[k] = dqv_pv * dpv[k];
        }
        dqv[S::K] += dqv_k;
        for k in 0..6 {
            p.jac[(S::p1, k)] = b1 / va * dq1[k];
            p.jac[(S::p2, k)] = -b2 / vb * dq2[k];
        }
        p.jac[(S::p1, S::p1)] += b.derivative(s[S::p1]) / va * n1;
        p.jac[(S::p2, S::p2)] += b.derivative(s[S::p2]) / vb * n2;
        p.d_x[S::p1] = -b1 * n1 / (va * va) * cyl.dvolume_a(x);
        p.d_x[S::p2] = -b2 * n2 / (vb * vb) * cyl.dvolume_b(x);
        p.d_v[S::p1] = -b1 / va * cyl.a1;
        p.d_v[S::p2] = b2 / vb * cyl.a2;
        if let SmallVolume::Dynamic { .. } = self.small_volume {
            for k in 0..6 {
                p.jac[(S::pv, k)] = bv / vv * (dqv[k] - dq3[k]);
            }
            p.jac[(S::pv, S::pv)] += b.derivative(pv) / vv * n5;
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::DriveParams;
    use fmu_core::Record;

    fn drive(quasi_static: bool) -> ValveDrive {
        let mut p = DriveParams::defaults();
        p.quasi_static = quasi_static;
        let folder = fmu_core::ResourceFolder::Unavailable("unit test".into());
        p.drive(&fmu_core::Context::new(&folder)).unwrap()
    }

    fn states() -> Vec<(DriveState, f64, f64, f64)> {
        vec![
            ([6.0, 10.0, 2e-9, 6e6, 3e6, 7.2e6].into(), 0.5, 0.03, 9.0),
            (
                [-5.0, -3.0, 8e-10, 4e6, 8e6, 9.1e6].into(),
                0.4,
                -0.02,
                -6.0,
            ),
            ([3.1, 0.0, 1e-9, 9e6, 2e6, 1.05e7].into(), 0.9, 0.0, 3.0),
        ]
    }

    #[test]
    fn jacobian_matches_finite_differences() {
        for qs in [false, true] {
            let d = drive(qs);
            for (s, x, v, u) in states() {
                let e = d.eval(u, &s, x, v);
                for k in 0..6 {
                    if qs && k == S::pv {
                        continue;
                    }
                    // K enters linearly: a larger step avoids round-off.
                    let rel = if k == S::K { 1e-3 } else { 1e-6 };
                    let nominal = [1.0, 10.0, 1e-9, 1e5, 1e5, 1e5][k];
                    let h = rel * s[k].abs().max(nominal);
                    let mut up = s;
                    let mut dn = s;
                    up[k] += h;
                    dn[k] -= h;
                    let (a, b) = (d.eval(u, &up, x, v), d.eval(u, &dn, x, v));
                    for r in 0..6 {
                        let fd = (a.rates[r] - b.rates[r]) / (2.0 * h);
                        let scale = e
                            .jac
                            .row(r)
                            .iter()
                            .map(|j| j.abs() * s[k].abs().max(1e-12))
                            .fold(0.0, f64::max);
                        assert!(
                            (fd - e.jac[(r, k)]).abs() * s[k].abs().max(1e-12)
                                <= 1e-5 * scale.max(1e-30),
                            "qs {qs} d rate{r} / d s{k}: {} vs {fd}",
                            e.jac[(r, k)]
                        );
                    }
                }
                let hx = 1e-7;
                let (a, b) = (d.eval(u, &s, x + hx, v), d.eval(u, &s, x - hx, v));
                let hv = 1e-7;
                let (c, g) = (d.eval(u, &s, x, v + hv), d.eval(u, &s, x, v - hv));
                for r in 0..6 {
                    let fdx = (a.rates[r] - b.rates[r]) / (2.0 * hx);
                    let fdv = (c.rates[r] - g.rates[r]) / (2.0 * hv);
                    assert!(
                        (fdx - e.d_x[r]).abs() <= 1e-5 * fdx.abs().max(1.0),
                        "d rate{r}/dx"
                    );
                    assert!(
                        (fdv - e.d_v[r]).abs() <= 1e-5 * fdv.abs().max(1.0),
                        "d rate{r}/dv"
                    );
                }
            }
        }
    }

    #[test]
    fn rates_without_partials_are_the_rates_of_eval() {
        for qs in [false, true] {
            let d = drive(qs);
            for (s, x, v, u) in states() {
                let (full, bare) = (d.eval(u, &s, x, v), d.rates(u, &s, x, v));
                assert_eq!(full.rates, bare.rates);
                assert_eq!(
                    (full.pv, full.qv, full.q1, full.q2, full.q3),
                    (bare.pv, bare.qv, bare.q1, bare.q2, bare.q3)
                );
            }
        }
    }

    #[test]
    fn quasi_static_pressure_balances_the_flows() {
        let d = drive(true);
        for (s, x, v, u) in states() {
            let e = d.eval(u, &s, x, v);
            assert!(
                (e.qv - e.q3).abs() <= 1e-9 * e.qv.abs().max(1e-12),
                "{} vs {}",
                e.qv,
                e.q3
            );
            assert_eq!(e.rates[S::pv], 0.0);
        }
    }

    #[test]
    fn compensator_holds_ten_bar_at_equilibrium() {
        // With the valve open and K at its equilibrium for pv = psh + C5
        // (K small), dK/dt = 0 and the margin is C5 - gain K.
        let d = drive(false);
        let s = DriveState::from([6.0, 0.0, 0.0, 6e6, 3e6, 7e6]);
        let e = d.eval(0.0, &s, 0.5, 0.0);
        // At K = 0 with pv - psh = C5 the throttle is held (no windup).
        assert_eq!(e.rates[S::K], 0.0);
    }
}
