//! The hydraulics of the four-bar (`MODEL.md` F1-F8): constant-flow pump
//! into the pump line with a relief valve, the closed-centre 4/3 valve on
//! its curves with a first-order spool, the cylinder's two chambers and its
//! seal friction. Given the rod's length `s` and rate `s'` it gives the
//! pressures' rates, the cylinder force and the partial derivatives a
//! stiff solver needs.

use fmu_core::nalgebra::{SMatrix, SVector};
use hydraulics::curve_valve::regularised_root;
use hydraulics::{BrownMcPhee, CurveValve, CurveValveFlows, ReliefValve};

fmu_core::states! {
    /// The hydraulic states: a block of a circuit's state vector.
    pub struct HydraulicStates {
        /// Pump-line pressure, Pa
        pp: nominal 1e7;
        /// Piston-side pressure, Pa
        p1: nominal 1e7;
        /// Rod-side pressure, Pa
        p2: nominal 1e7;
        /// Spool signal, V
        U: nominal 10.0;
    }
}

/// The hydraulic state vector `[pp, p1, p2, U]`.
pub type HydraulicState = SVector<f64, 4>;

/// The hydraulic elements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Actuator {
    /// Piston-side area A1, m2.
    pub a1: f64,
    /// Rod-side area A2, m2.
    pub a2: f64,
    /// Shortest pin-to-pin length, m.
    pub s_min: f64,
    /// Stroke, m.
    pub stroke: f64,
    /// Pump flow, m3/s.
    pub qp: f64,
    /// Tank pressure, Pa.
    pub pt: f64,
    /// Pump-line volume, m3.
    pub vp: f64,
    /// Piston-side line volume, m3.
    pub vh1: f64,
    /// Rod-side line volume, m3.
    pub vh2: f64,
    /// Bulk modulus at zero pressure, Pa.
    pub kp: f64,
    /// Its pressure slope.
    pub k0: f64,
    /// The relief valve.
    pub relief: ReliefValve,
    /// The 4/3 valve.
    pub valve: CurveValve,
    /// Spool time constant, s.
    pub tau: f64,
    /// Seal friction.
    pub friction: BrownMcPhee,
    /// Initial rod-side pressure, Pa.
    pub p2_0: f64,
    /// Pin-to-pin length at the start, m.
    pub s0: f64,
}

/// One evaluation of the hydraulics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActuatorEval {
    /// Rates of `[pp, p1, p2, U]`.
    pub rates: HydraulicState,
    /// Their Jacobian with respect to `[pp, p1, p2, U]`.
    pub jac: SMatrix<f64, 4, 4>,
    /// Their derivative with respect to the length s.
    pub d_s: HydraulicState,
    /// Their derivative with respect to the rate s'.
    pub d_sdot: HydraulicState,
    /// Cylinder force on the rod, F_h = p1 A1 - p2 A2 - F_mu, N.
    pub force: f64,
    /// dF_h/ds', N s/m (the friction's slope, negated).
    pub force_sdot: f64,
    /// Seal friction F_mu, N.
    pub friction: f64,
    /// The valve's edge flows.
    pub flows: CurveValveFlows,
    /// Relief flow, m3/s.
    pub q_relief: f64,
}

impl Actuator {
    /// Where the actuator's equations switch (Model Exchange event
    /// indicators): the closed-centre valve changing its pair of open
    /// edges as the spool signal passes 0 V.
    pub const EVENT_INDICATORS: [fmu_core::EventIndicator; 1] = [fmu_core::EventIndicator {
        name: "spool_centre",
        description: "U + 1e-9 V: zero where the valve switches from P-A/B-T to P-B/A-T (the offset keeps it from being identically 0 at the start at 0 V)",
        offset: 1e-9,
    }];

    /// The values of [`Actuator::EVENT_INDICATORS`] at hydraulic state
    /// `x`, into `z` (1 entry).
    pub fn event_indicator_values(&self, x: &HydraulicState, z: &mut [f64]) {
        z[0] = x[3];
    }

    /// The coefficients derived from the parameters, for fmu-core to check:
    /// the valve's gain scale and the chamber volumes at the start.
    pub fn derived(&self) -> Vec<fmu_core::Derived> {
        let (v1, v2) = self.volumes(self.s0);
        vec![
            fmu_core::Derived::positive(
                "valve gain scale Cd Ad sqrt(2/rho) 10/95",
                "m3/(s V Pa^0.5)",
                self.valve.k_scale,
            ),
            fmu_core::Derived::positive("piston-side volume at the start", "m3", v1),
            fmu_core::Derived::positive("rod-side volume at the start", "m3", v2),
        ]
    }

    /// The bulk modulus β(p) = kp + k0 p (F3) and its slope.
    pub fn bulk(&self, p: f64) -> (f64, f64) {
        (self.kp + self.k0 * p, self.k0)
    }

    /// The chamber volumes at length s (F2): V1 = Vh1 + A1 (s - s_min),
    /// V2 = Vh2 + A2 (s_min + stroke - s).
    pub fn volumes(&self, s: f64) -> (f64, f64) {
        let x = s - self.s_min;
        (
            self.vh1 + self.a1 * x,
            self.vh2 + self.a2 * (self.stroke - x),
        )
    }

    /// The starting state at length s0: at rest, p2 = p2_0, p1 from the
    /// holding force `force` (p1 A1 - p2 A2 = force, F6 at rest), pp where
    /// the relief passes the pump flow (F4), spool closed.
    pub fn initial(&self, force: f64) -> HydraulicState {
        let p1 = (force + self.p2_0 * self.a2) / self.a1;
        let pp = if self.qp > 0.0 {
            self.relief.pressure_for(self.qp)
        } else {
            self.relief.p_crack
        };
        SVector::from([pp, p1, self.p2_0, 0.0])
    }

    /// The derivatives of the rates at state `x` with respect to the bulk
    /// modulus coefficients kp and k0 (F3: each pressure rate is β(p) / V
    /// times a net flow), given those rates.
    pub fn rates_per_bulk(
        &self,
        x: &HydraulicState,
        rates: &HydraulicState,
    ) -> [HydraulicState; 2] {
        let mut kp = HydraulicState::zeros();
        let mut k0 = HydraulicState::zeros();
        for i in 0..3 {
            let beta = self.bulk(x[i]).0;
            kp[i] = rates[i] / beta;
            k0[i] = x[i] * rates[i] / beta;
        }
        [kp, k0]
    }

    /// The derivative of the rates at state `x` and length `s` with respect
    /// to the valve curve's gain N at the present opening |U|, the same
    /// curve on all four edges (F7, F8: an open edge passes
    /// k_scale N g(dp), so dQ/dN = k_scale g(dp); F1, F2 carry it to the
    /// pressures).
    pub fn rates_per_gain(&self, x: &HydraulicState, s: f64) -> HydraulicState {
        let [pp, p1, p2, u] = [x[0], x[1], x[2], x[3]];
        let g = |dp: f64| self.valve.k_scale * regularised_root(dp, self.valve.delta).0;
        let (mut pa, mut at, mut pb, mut bt) = (0.0, 0.0, 0.0, 0.0);
        if u >= 0.0 {
            pa = g(pp - p1);
            bt = g(p2 - self.pt);
        } else {
            at = g(p1 - self.pt);
            pb = g(pp - p2);
        }
        let (v1, v2) = self.volumes(s);
        SVector::from([
            -self.bulk(pp).0 / self.vp * (pa + pb),
            self.bulk(p1).0 / v1 * (pa - at),
            self.bulk(p2).0 / v2 * (pb - bt),
            0.0,
        ])
    }

    /// The rates at state `x`, command `u_ref` (V), length `s` and rate
    /// `s_dot` (F1-F8).
    pub fn eval(&self, u_ref: f64, x: &HydraulicState, s: f64, s_dot: f64) -> ActuatorEval {
        let [pp, p1, p2, u] = [x[0], x[1], x[2], x[3]];
        let f = self.valve.flows(u, pp, p1, p2, self.pt);
        let (q_relief, q_relief_dp) = self.relief.flow(pp);
        let (mut v1, mut v2) = self.volumes(s);
        if !(v1 > 0.0 && v2 > 0.0) {
            // Beyond the stroke the chambers have no volume: no rates.
            v1 = f64::NAN;
            v2 = f64::NAN;
        }
        let (bp, bp_p) = self.bulk(pp);
        let (b1, b1_p) = self.bulk(p1);
        let (b2, b2_p) = self.bulk(p2);
        // F1, F2: net flows into each volume.
        let net_p = self.qp - q_relief - f.pa.q - f.pb.q;
        let net_1 = f.pa.q - f.at.q - self.a1 * s_dot;
        let net_2 = self.a2 * s_dot - f.bt.q + f.pb.q;
        let rates = SVector::from([
            bp / self.vp * net_p,
            b1 / v1 * net_1,
            b2 / v2 * net_2,
            (u_ref - u) / self.tau,
        ]);
        let mut jac = SMatrix::<f64, 4, 4>::zeros();
        let (cp, c1, c2) = (bp / self.vp, b1 / v1, b2 / v2);
        jac[(0, 0)] = bp_p / self.vp * net_p + cp * (-q_relief_dp - f.pa.q_dp - f.pb.q_dp);
        jac[(0, 1)] = cp * f.pa.q_dp;
        jac[(0, 2)] = cp * f.pb.q_dp;
        jac[(0, 3)] = cp * (-f.pa.q_u - f.pb.q_u);
        jac[(1, 0)] = c1 * f.pa.q_dp;
        jac[(1, 1)] = b1_p / v1 * net_1 + c1 * (-f.pa.q_dp - f.at.q_dp);
        jac[(1, 3)] = c1 * (f.pa.q_u - f.at.q_u);
        jac[(2, 0)] = c2 * f.pb.q_dp;
        jac[(2, 2)] = b2_p / v2 * net_2 + c2 * (-f.bt.q_dp - f.pb.q_dp);
        jac[(2, 3)] = c2 * (-f.bt.q_u + f.pb.q_u);
        jac[(3, 3)] = -1.0 / self.tau;
        // dV1/ds = A1, dV2/ds = -A2.
        let d_s = SVector::from([
            0.0,
            -c1 * net_1 * self.a1 / v1,
            c2 * net_2 * self.a2 / v2,
            0.0,
        ]);
        let d_sdot = SVector::from([0.0, -c1 * self.a1, c2 * self.a2, 0.0]);
        let (friction, friction_v) = self.friction.eval(s_dot);
        ActuatorEval {
            rates,
            jac,
            d_s,
            d_sdot,
            force: p1 * self.a1 - p2 * self.a2 - friction,
            force_sdot: -friction_v,
            friction,
            flows: f,
            q_relief,
        }
    }
}
