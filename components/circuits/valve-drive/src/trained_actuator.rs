//! The whole-actuator surrogate (V9 of `MODEL.md`): the drive advanced by
//! one fixed sample period (10 ms as shipped) at a fixed, small cost, for
//! hardware-in-the-loop rigs and twins with many actuators.
//!
//! Per period, with the command `U`, the rod position `x` and velocity `v`
//! held:
//!
//! 1. the spool (V1, linear) is advanced exactly: `(Us, dUs)` at the end and
//!    at [`NODES`] points inside the period are fixed linear combinations of
//!    `Us`, `dUs` and `U` at the start ([`SpoolStep`]), from which the mean
//!    openings of the supply edges P-A and P-B over the period follow (V4);
//! 2. a trained model `S` gives the mean valve flows into chamber A and out
//!    of chamber B over the period and the small-volume pressure at its end
//!    from those openings, the opening at the end, the three pressures at
//!    the start, `x` and `v` ([`ACTUATOR_SLOT`]): the compensator, the small
//!    volume and the metering edges, the fast and nonlinear part;
//! 3. the chamber pressures follow from the flows by the chamber balance
//!    (V5) integrated over the period with the bulk modulus at the
//!    period's mid-pressure ([`chamber_step`]); the training targets come
//!    from the physics through the same formula read backwards
//!    ([`mean_net_flow`]), so the model and the balance fit together
//!    exactly.
//!
//! The force is a small difference of two large piston forces
//! (`p1 A1 - p2 A2`); integrating the chambers from flows keeps it
//! accurate where a model that gave the pressures directly would have to
//! be a hundred times more precise.

use crate::drive::{DriveState, DriveStates as S, ValveDrive};
use fmu_core::nalgebra::Matrix3;
use hydraulics::{BulkModulus, ProportionalSpool};
use std::sync::Arc;
use surrogates::Surrogate;

/// Number of points inside a period at which the spool's opening is
/// averaged (midpoint rule).
pub const NODES: usize = 8;

/// The slot name and the input and output names a whole-actuator weights
/// file must carry.
///
/// Inputs: the mean openings of the P-A and P-B edges over the period (V),
/// the signed opening at its end (P-A minus P-B, V), `p1`, `p2`, `pv` at
/// the start (Pa), `x` (m) and `v` (m/s). Outputs: the mean flow into
/// chamber A and out of chamber B over the period (m3/s) and `pv` at its
/// end (Pa).
pub const ACTUATOR_SLOT: (&str, [&str; 11], [&str; 3]) = (
    "valve-drive/actuator",
    [
        "open_PA", "open_PB", "open_end", "p1", "p2", "pv", "x", "v", "Q1_base", "Q2_base",
        "pv_base",
    ],
    ["Q1_fix", "Q2_fix", "pv_fix"],
);

/// Number of model inputs.
pub const N_FEATURES: usize = 11;

/// The exact one-period map of the spool (V1) with the command held:
/// `(Us, dUs)` at the end and `Us` at the [`NODES`] midpoints of the
/// period, each a linear combination of `(Us, dUs, U)` at its start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpoolStep {
    /// Rows: `Us` and `dUs` at the end; columns: `Us`, `dUs`, `U`.
    end: [[f64; 3]; 2],
    /// `Us` at node `j` (time `(j + 1/2) T / NODES`).
    nodes: [[f64; 3]; NODES],
}

impl SpoolStep {
    /// The map for `spool` over `period` seconds: the matrix exponential of
    /// the spool's linear system (with `U' = 0` appended), by 4th-order
    /// Taylor steps of a 400th of the node spacing (error far below 1e-12
    /// for any `wn T` the parameters allow in a 10 ms period).
    pub fn new(spool: &ProportionalSpool, period: f64) -> Self {
        let (a_u, a_us, a_dus) = spool.acceleration_partials();
        let a = Matrix3::new(0.0, 1.0, 0.0, a_us, a_dus, a_u, 0.0, 0.0, 0.0);
        let sub = 400 * NODES;
        let h = period / (2 * sub) as f64;
        let ha = a * h;
        let taylor = Matrix3::identity()
            + ha * (Matrix3::identity()
                + ha / 2.0 * (Matrix3::identity() + ha / 3.0 * (Matrix3::identity() + ha / 4.0)));
        let mut phi = Matrix3::identity();
        let row = |m: &Matrix3<f64>, r: usize| [m[(r, 0)], m[(r, 1)], m[(r, 2)]];
        let mut nodes = [[0.0; 3]; NODES];
        // 2 * sub half-steps: node j sits after (2 j + 1) * 400 of them.
        for k in 1..=2 * sub {
            phi = taylor * phi;
            if k % 400 == 0 && (k / 400) % 2 == 1 {
                nodes[k / 800] = row(&phi, 0);
            }
        }
        SpoolStep {
            end: [row(&phi, 0), row(&phi, 1)],
            nodes,
        }
    }

    /// `(Us, dUs)` at the end of the period.
    #[inline]
    pub fn advance(&self, us: f64, dus: f64, u: f64) -> (f64, f64) {
        let c = |r: &[f64; 3]| r[0] * us + r[1] * dus + r[2] * u;
        (c(&self.end[0]), c(&self.end[1]))
    }

    /// The mean openings of the P-A and P-B edges over the period (V).
    #[inline]
    pub fn mean_openings(&self, drive: &ValveDrive, us: f64, dus: f64, u: f64) -> [f64; 2] {
        let mut sum = [0.0; 2];
        for r in &self.nodes {
            let e = drive.valve.edges(r[0] * us + r[1] * dus + r[2] * u);
            sum[0] += e[0].0;
            sum[1] += e[1].0;
        }
        [sum[0] / NODES as f64, sum[1] / NODES as f64]
    }

    /// The model's inputs ([`ACTUATOR_SLOT`]) at the start of a period with
    /// hydraulic state `s`, command `u`, rod position `x` and velocity `v`:
    /// the mean openings of P-A and P-B, the signed opening at the end, the
    /// pressures, `x`, `v`, and the baseline ([`baseline`]).
    #[inline]
    pub fn features(
        &self,
        drive: &ValveDrive,
        u: f64,
        s: &DriveState,
        x: f64,
        v: f64,
    ) -> [f64; N_FEATURES] {
        let [pa, pb] = self.mean_openings(drive, s[S::Us], s[S::dUs], u);
        let (us_end, _) = self.advance(s[S::Us], s[S::dUs], u);
        let e = drive.valve.edges(us_end);
        let open_end = e[0].0 - e[1].0;
        let (p1, p2, pv) = (s[S::p1], s[S::p2], s[S::pv]);
        let [q1, q2, pv_base] = baseline(drive, [pa, pb, open_end], p1, p2, pv);
        [pa, pb, open_end, p1, p2, pv, x, v, q1, q2, pv_base]
    }
}

/// The physics' estimate that the trained model corrects: the compensator
/// settled (`pv = max(p1, p2) + C5`, at most `ps`: V3 at equilibrium, whose
/// `C1`, `C2` terms are a few pascals), the metering edges (V4) with the
/// period's mean openings `open[0]` (P-A, and B-T with the deadband) and
/// `open[1]` (P-B, A-T) at the start pressures; `pv` at the end is that
/// settled value where the valve ends open (`open[2]`), else at least
/// the value at the start ([`pv_base`]; the step itself takes it at the
/// end pressures). The
/// model learns what this misses: the compensator's and the small
/// volume's transients, the pressures' change within the period.
#[inline]
pub fn baseline(drive: &ValveDrive, open: [f64; 3], p1: f64, p2: f64, pv: f64) -> [f64; 3] {
    let f = |dp: f64| {
        hydraulics::Orifice {
            k: drive.valve.cv,
            p_tr: drive.valve.p_tr,
        }
        .flow(dp)
    };
    let settled = (p1.max(p2) + drive.compensator.c5).min(drive.ps);
    let pt = drive.pt;
    let q1 = open[0] * f(settled - p1) - open[1] * f(p1 - pt);
    let q2 = open[0] * f(p2 - pt) - open[1] * f(settled - p2);
    [q1, q2, pv_base(drive, open[2], p1, p2, pv)]
}

/// The baseline of `pv` at the end of a period: the settled compensator
/// (`max(p1, p2) + C5`, at most `ps`) with the chamber pressures `p1`, `p2`
/// where the valve ends open (`open_end` not zero); where it ends closed,
/// the throttle only fills the small volume up to that value, so `pv` is
/// the larger of it and the value `pv` at the start.
#[inline]
pub fn pv_base(drive: &ValveDrive, open_end: f64, p1: f64, p2: f64, pv: f64) -> f64 {
    let settled = (p1.max(p2) + drive.compensator.c5).min(drive.ps);
    if open_end != 0.0 {
        settled
    } else {
        pv.max(settled)
    }
}

/// The chamber balance of V5 over one period: the pressure at the end from
/// the pressure `p` at the start and the constant net inflow `q_net` (m3/s)
/// into the volume `volume` (m3), `p' = p + B((p + p')/2) / volume ·
/// q_net · period`, solved by fixed-point iteration (each iteration cuts
/// the error by about half the relative change of B over the period, a
/// few per cent at most: four leave less than a part in 1e6 of the
/// change).
#[inline]
pub fn chamber_step(fluid: &BulkModulus, p: f64, q_net: f64, volume: f64, period: f64) -> f64 {
    let dv = q_net * period / volume;
    let mut next = p + fluid.value(p) * dv;
    for _ in 0..4 {
        next = p + fluid.value(0.5 * (p + next)) * dv;
    }
    next
}

/// The net inflow that takes a chamber of `volume` from `p` to `next` in
/// one period by [`chamber_step`]'s formula: how the training data read the
/// mean flows off the physics' pressures.
pub fn mean_net_flow(fluid: &BulkModulus, p: f64, next: f64, volume: f64, period: f64) -> f64 {
    volume * (next - p) / (fluid.value(0.5 * (p + next)) * period)
}

/// A trained whole actuator: the spool map and the model of the flows.
#[derive(Debug, Clone)]
pub struct TrainedActuator {
    /// The exact spool map over one period.
    pub spool: SpoolStep,
    /// The trained model ([`ACTUATOR_SLOT`]); its sample period is the
    /// actuator's.
    pub model: Arc<Surrogate>,
}

impl PartialEq for TrainedActuator {
    fn eq(&self, other: &Self) -> bool {
        self.spool == other.spool && Arc::ptr_eq(&self.model, &other.model)
    }
}

impl TrainedActuator {
    /// The actuator for `drive`'s spool with `model`.
    pub fn new(drive: &ValveDrive, model: Arc<Surrogate>) -> Self {
        TrainedActuator {
            spool: SpoolStep::new(&drive.spool, model.period()),
            model,
        }
    }

    /// The actuator for `drive` with the weights file `file` of the FMU's
    /// resources, checked (checksum, slot, input and output names).
    pub fn load(
        drive: &ValveDrive,
        context: &fmu_core::Context,
        file: &str,
    ) -> Result<Self, String> {
        let (slot, inputs, outputs) = ACTUATOR_SLOT;
        let model = Surrogate::load(&context.read_resource(file)?, file, slot, &inputs, &outputs)?;
        Ok(Self::new(drive, Arc::new(model)))
    }

    /// The sample period, s.
    pub fn period(&self) -> f64 {
        self.model.period()
    }

    /// The hydraulic state one period later (V9): spool exact, flows and
    /// `pv` from the model, chambers by [`chamber_step`]. `K` keeps its
    /// value (the model stands in for the compensator). Allocates nothing.
    #[inline]
    pub fn step(&self, drive: &ValveDrive, u: f64, s: &DriveState, x: f64, v: f64) -> DriveState {
        let features = self.spool.features(drive, u, s, x, v);
        let mut fix = [0.0; 3];
        self.model.eval(&features, &mut fix);
        let (q1, q2) = (features[8] + fix[0], features[9] + fix[1]);
        let t = self.period();
        let c = &drive.cylinder;
        let mut next = *s;
        (next[S::Us], next[S::dUs]) = self.spool.advance(s[S::Us], s[S::dUs], u);
        next[S::p1] = chamber_step(&drive.fluid, s[S::p1], q1 - c.a1 * v, c.volume_a(x), t);
        next[S::p2] = chamber_step(&drive.fluid, s[S::p2], c.a2 * v - q2, c.volume_b(x), t);
        let pv = pv_base(drive, features[2], next[S::p1], next[S::p2], s[S::pv]) + fix[2];
        let lo = drive.pt.min(drive.ps);
        let hi = drive.ps.max(next[S::p1]).max(next[S::p2]);
        next[S::pv] = if pv.is_finite() { pv.clamp(lo, hi) } else { pv };
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::DriveParams;
    use fmu_core::Record;

    fn drive() -> ValveDrive {
        let folder = fmu_core::ResourceFolder::Unavailable("unit test".into());
        DriveParams::defaults()
            .drive(&fmu_core::Context::new(&folder))
            .unwrap()
    }

    /// V1 by classical RK4 with `n` steps over `t` seconds.
    fn spool_rk4(
        spool: &ProportionalSpool,
        mut us: f64,
        mut dus: f64,
        u: f64,
        t: f64,
    ) -> (f64, f64) {
        let n = 20_000;
        let h = t / n as f64;
        let f = |us: f64, dus: f64| (dus, spool.acceleration(u, us, dus));
        for _ in 0..n {
            let k1 = f(us, dus);
            let k2 = f(us + h / 2.0 * k1.0, dus + h / 2.0 * k1.1);
            let k3 = f(us + h / 2.0 * k2.0, dus + h / 2.0 * k2.1);
            let k4 = f(us + h * k3.0, dus + h * k3.1);
            us += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
            dus += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
        }
        (us, dus)
    }

    #[test]
    fn the_spool_map_is_the_exact_solution_of_v1() {
        let d = drive();
        let step = SpoolStep::new(&d.spool, 0.01);
        for (us, dus, u) in [(0.0, 0.0, 7.0), (3.0, -400.0, -9.5), (-8.0, 1500.0, 0.0)] {
            let (a, b) = step.advance(us, dus, u);
            let (ea, eb) = spool_rk4(&d.spool, us, dus, u, 0.01);
            assert!(
                (a - ea).abs() < 1e-9 && (b - eb).abs() < 1e-6,
                "{a} {b} vs {ea} {eb}"
            );
            // The nodes sit at the midpoints of eight equal parts.
            for (j, node) in step.nodes.iter().enumerate() {
                let t = (j as f64 + 0.5) * 0.01 / NODES as f64;
                let want = spool_rk4(&d.spool, us, dus, u, t).0;
                let got = node[0] * us + node[1] * dus + node[2] * u;
                assert!((got - want).abs() < 1e-9, "node {j}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn mean_openings_follow_the_deadband() {
        let d = drive();
        let step = SpoolStep::new(&d.spool, 0.01);
        // Settled at 8 V: P-A open by 8 - Ud = 6 V all period, P-B shut.
        let [pa, pb] = step.mean_openings(&d, 0.99 * 8.0, 0.0, 8.0);
        assert!(
            (pa - (0.99 * 8.0 - 2.0)).abs() < 1e-12 && pb == 0.0,
            "{pa} {pb}"
        );
        // Inside the deadband nothing opens.
        assert_eq!(step.mean_openings(&d, 1.0, 0.0, 1.5), [0.0, 0.0]);
        // Leaving the deadband from rest: open part of the period only,
        // less on average than at its end.
        let [pa, _] = step.mean_openings(&d, 0.0, 0.0, -9.0);
        let (us_end, _) = step.advance(0.0, 0.0, -9.0);
        let [_, pb] = step.mean_openings(&d, 0.0, 0.0, -9.0);
        assert!(pa == 0.0 && pb > 0.0 && pb < -us_end - 2.0, "{pb} {us_end}");
    }

    #[test]
    fn chamber_step_integrates_the_balance_and_mean_net_flow_inverts_it() {
        let d = drive();
        for (p, q, v) in [
            (9e5, 4e-5, 1.2e-3),
            (1.2e7, -6e-5, 1.0e-3),
            (3e6, 1e-7, 1.8e-3),
        ] {
            let next = chamber_step(&d.fluid, p, q, v, 0.01);
            // dp/dt = B(p)/V q by RK4 in 1000 steps.
            let (mut e, h) = (p, 1e-5);
            let f = |p: f64| d.fluid.value(p) / v * q;
            for _ in 0..1000 {
                let k1 = f(e);
                let k2 = f(e + h / 2.0 * k1);
                let k3 = f(e + h / 2.0 * k2);
                let k4 = f(e + h * k3);
                e += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
            }
            // The midpoint rule's error: below 0.1 % of the change even
            // where B changes fastest (low pressure; 0.07 % from 9 bar).
            // It never reaches the model: the data read the flows off the
            // physics by the same formula backwards.
            assert!((next - e).abs() < 1e-3 * (e - p).abs(), "{next} vs {e}");
            let back = mean_net_flow(&d.fluid, p, next, v, 0.01);
            assert!((back - q).abs() < 1e-6 * q.abs(), "{back} vs {q}");
        }
    }

    #[test]
    fn the_baseline_is_the_settled_compensator_and_the_metering_edges() {
        let d = drive();
        let c5 = d.compensator.c5;
        // Extending with p1 the higher pressure: 10 bar across P-A.
        let [q1, q2, pv] = baseline(&d, [6.0, 0.0, 6.0], 5e6, 2e6, 3e6);
        assert!((pv - (5e6 + c5)).abs() < 1e-6, "{pv}");
        assert!((q1 - d.valve.cv * 6.0 * c5.sqrt()).abs() < 1e-15, "{q1}");
        assert!(
            (q2 - d.valve.cv * 6.0 * (2e6 - d.pt).sqrt()).abs() < 1e-15,
            "{q2}"
        );
        // Closed: no flow, pv held above the settled value.
        let [q1, q2, pv] = baseline(&d, [0.0, 0.0, 0.0], 5e6, 2e6, 9e6);
        assert_eq!((q1, q2, pv), (0.0, 0.0, 9e6));
        assert_eq!(pv_base(&d, 0.0, 5e6, 2e6, 1e6), 5e6 + c5);
        // The supply caps the settled value.
        assert_eq!(pv_base(&d, 3.0, 1.38e7, 2e6, 1e6), d.ps);
    }
}
