//! One lumped hose segment assembled from fluid, wall, compliance and
//! resistance (H1 of the hose-H6), with the partials the hose models
//! (H7) need for their analytic Jacobians.
//!
//! Pressure dependence: the model description evaluates every segment quantity (C, and
//! through rho, nu and the wall deformation also RL, RT and L) at the
//! segment's mean pressure `p_m = (p_in + p_out) / 2`, the mean of its end
//! pressures, and so must the models to reproduce the model description's reference. The
//! state therefore gives d/dp_m of C, L and R(Q)Q; a model turns them into
//! Jacobian entries with dp_m/dp_in = dp_m/dp_out = 1/2. The L and R(Q)Q
//! pressure terms are small but not negligible for soft walls (relative
//! dL/dp_m at 1e7 Pa: -2.8e-10 1/Pa with x_ref = 3.508e-5 m, -8.2e-9 1/Pa
//! with x_ref = 4e-4 m): dropping them from a Newton matrix only slows
//! convergence, dropping the p_m dependence from the right-hand side changes
//! the model. The model description's equations use `kL L dQ/dt`
//! (not d(L Q)/dt), so no dL/dt term appears.

use super::compliance::HoseCompliance;
use super::fluid::{FluidProperties, HoseFluid};
use super::resistance::{Corrections, HoseResistance, LossCoefficients};
use super::wall::{HoseWall, WallSlope};

/// Vapour pressure of the hose oil, Pa absolute: where
/// [`HoseSegment::pressure_floor`] starts holding the segment's laws. A
/// mineral oil's vapour and air-release pressures lie between a few Pa and
/// a few kPa (the dissolved air comes out first); 1 kPa is a round value
/// in that range. Nothing under normal operation reaches it (the hoses run
/// at 1e5 to 3e7 Pa), so its exact value only shapes what an integrator's
/// trial states see.
pub const VAPOUR_PRESSURE: f64 = 1e3;

/// Parameters of a whole hose (the parameter table of its MODEL.md), SI units except the
/// temperature (degC).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HoseParameters {
    /// Total hose length L_hose, m.
    pub hose_length: f64,
    /// Inner diameter d, m.
    pub d: f64,
    /// Reference pressure of the wall law p_ref, Pa.
    pub p_ref: f64,
    /// Radial wall deformation at p_ref, x_ref, m.
    pub x_ref: f64,
    /// Hysteresis width b, m.
    pub b: f64,
    /// Hysteresis saturation velocity v_lim, m/s.
    pub v_lim: f64,
    /// Wall damping h, N s/m.
    pub h: f64,
    /// Frequency correction coefficient kn (1).
    pub kn: f64,
    /// Resistance correction constant kr1 (1).
    pub kr1: f64,
    /// Resistance correction slope kr2 (1).
    pub kr2: f64,
    /// Local loss coefficient zeta (1), counted once per segment in RT.
    pub zeta: f64,
    /// Turbulent friction coefficient lambda (1).
    pub lambda: f64,
    /// Laminar coefficient Al (1).
    pub al: f64,
    /// Fluid temperature T, degC (sets Af, Bf and alpha).
    pub temperature: f64,
    /// Kinematic viscosity at T, m2/s.
    pub nu0: f64,
    /// Density at 15 degC, kg/m3.
    pub rho15: f64,
    /// Relative air volume at p_m = 0 (1).
    pub vol0: f64,
    /// Polytropic exponent of the air (1).
    pub ka: f64,
    /// Atmospheric pressure of the air law, Pa.
    pub p0: f64,
    /// Which wall slope the compliance uses (the model description's numbers need
    /// [`WallSlope::FrozenStiffness`]).
    pub wall_slope: WallSlope,
}

impl HoseParameters {
    /// Every value of the model description's table: L_hose 2 m, d 0.016 m, p_ref 1e7 Pa,
    /// x_ref 3.508e-5 m (the model description's replacement), b 2e-5 m, v_lim 1e-4 m/s,
    /// h 200 N s/m, kn 0.011, kr1 1.4, kr2 0.10, zeta 2, lambda 0.04, Al 64,
    /// T 40 degC, nu0 46e-6 m2/s, rho15 875 kg/m3, vol0 0.08, ka 1.4,
    /// p0 1e5 Pa; Af, Bf follow from T.
    pub fn reference() -> Self {
        HoseParameters {
            hose_length: 2.0,
            d: 0.016,
            p_ref: 1e7,
            x_ref: 3.508e-5,
            b: 2e-5,
            v_lim: 1e-4,
            h: 200.0,
            kn: 0.011,
            kr1: 1.4,
            kr2: 0.10,
            zeta: 2.0,
            lambda: 0.04,
            al: 64.0,
            temperature: 40.0,
            nu0: 46e-6,
            rho15: 875.0,
            vol0: 0.08,
            ka: 1.4,
            p0: 1e5,
            wall_slope: WallSlope::FrozenStiffness,
        }
    }

    /// The model description's scenario "as stated": the paper's x_ref = 4e-4 m, all else
    /// as [`HoseParameters::reference`].
    pub fn as_stated() -> Self {
        HoseParameters {
            x_ref: 4e-4,
            ..HoseParameters::reference()
        }
    }

    /// Checks that all parameters are finite and physical.
    pub fn check(&self) -> Result<(), String> {
        if !(self.hose_length.is_finite() && self.hose_length > 0.0) {
            return Err(format!("L_hose must be positive, got {}", self.hose_length));
        }
        let c = [self.kn, self.kr1, self.kr2, self.zeta, self.lambda, self.al];
        if !c.iter().all(|v| v.is_finite() && *v >= 0.0) {
            return Err("kn, kr1, kr2, zeta, lambda and Al must be finite and >= 0".into());
        }
        self.fluid().check()?;
        self.wall(1).check()
    }

    /// The fluid (H3), Af and Bf from the temperature.
    pub fn fluid(&self) -> HoseFluid {
        HoseFluid::new(
            self.temperature,
            self.nu0,
            self.rho15,
            self.vol0,
            self.ka,
            self.p0,
        )
    }

    /// The wall of one of `n` segments (length L_hose / n) (H1, H2).
    pub fn wall(&self, n: usize) -> HoseWall {
        HoseWall {
            d: self.d,
            l: self.hose_length / n as f64,
            p_ref: self.p_ref,
            x_ref: self.x_ref,
            b: self.b,
            v_lim: self.v_lim,
            h: self.h,
            slope: self.wall_slope,
        }
    }

    /// The loss coefficients Al, zeta, lambda (H5).
    pub fn losses(&self) -> LossCoefficients {
        LossCoefficients {
            al: self.al,
            zeta: self.zeta,
            lambda: self.lambda,
        }
    }

    /// The correction coefficients kn, kr1, kr2 (H6).
    pub fn corrections(&self) -> Corrections {
        Corrections {
            kn: self.kn,
            kr1: self.kr1,
            kr2: self.kr2,
        }
    }
}

/// One of `n` equal segments of a hose, with its corrections (H1-H6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HoseSegment {
    /// Number of segments of the hose n (1).
    pub n: usize,
    /// Fluid (H3).
    pub fluid: HoseFluid,
    /// Wall of this segment, length l = L_hose / n (H1, H2).
    pub wall: HoseWall,
    /// Loss coefficients (H5).
    pub losses: LossCoefficients,
    /// Inertance correction kL(n) (1) (H6).
    pub k_l: f64,
    /// Compliance correction kC(n) = kL(n) (1) (H6).
    pub k_c: f64,
    /// Resistance correction kr(n) (1) (H6).
    pub k_r: f64,
}

/// A segment evaluated at one mean pressure (and pressure rate, for the
/// hysteresis), with the partials the hose models need.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegmentState {
    /// Mean pressure p_m, Pa.
    pub p_m: f64,
    /// Fluid properties at p_m (H3).
    pub fluid: FluidProperties,
    /// Compliance and its parts (H4; uses x_el, never the hysteresis).
    pub compliance_parts: HoseCompliance,
    /// Wall deformation x used for the flow geometry, m (x_el, or x_el minus
    /// the hysteresis offset).
    pub x: f64,
    /// dx/dp_m of the flow geometry at fixed dp_m/dt, m/Pa.
    pub x_dp: f64,
    /// dx/d(dp_m/dt) of the flow geometry, m s/Pa (0 without hysteresis).
    pub x_drate: f64,
    /// RL, RT, L at D = d + 2x, uncorrected (H5).
    pub flow: HoseResistance,
    /// Compliance correction kC (1).
    pub k_c: f64,
    /// Inertance correction kL (1).
    pub k_l: f64,
    /// Resistance correction kr (1).
    pub k_r: f64,
}

impl HoseSegment {
    /// Segment `1/n` of the hose `params` (length L_hose / n). Fails for
    /// invalid parameters, n = 0, or an n where kr = kr1 - kr2 (n - 1) <= 0
    /// (n >= 15 with the model description's values): a negative resistance.
    pub fn new(params: &HoseParameters, n: usize) -> Result<Self, String> {
        params.check()?;
        if n == 0 {
            return Err("the segment count n must be >= 1".into());
        }
        let corr = params.corrections();
        let k_r = corr.resistance_factor(n);
        if k_r <= 1e-12 {
            return Err(format!(
                "kr = kr1 - kr2 (n - 1) = {k_r:.3} <= 0 for n = {n}: use fewer segments or a smaller kr2"
            ));
        }
        Ok(HoseSegment {
            n,
            fluid: params.fluid(),
            wall: params.wall(n),
            losses: params.losses(),
            k_l: corr.inertance_factor(n),
            k_c: corr.compliance_factor(n),
            k_r,
        })
    }

    /// Segment length l = L_hose / n, m.
    pub fn length(&self) -> f64 {
        self.wall.l
    }

    /// The lowest mean pressure the segment's laws are evaluated at, Pa
    /// (gauge): the oil's vapour pressure [`VAPOUR_PRESSURE`] in absolute
    /// terms, `VAPOUR_PRESSURE - p0`, but not below the other laws' ranges
    /// (`-p_ref / 10` for the wall stiffness, valid above `-p_ref / 9`, and
    /// -1e7 Pa, well above where the viscosity law reaches zero at
    /// -3.3e7 Pa). With the model description's values: -9.9e4 Pa.
    ///
    /// Below it the liquid cavitates: the lumped laws of the model
    /// description do not hold (the air law has its pole at absolute zero,
    /// `p_m = -p0`, and gives NaN beyond; the wall's stiffness law its pole
    /// at `-p_ref / 9`). A hose under normal operation never gets there;
    /// an integrator's trial state can (a Model Exchange master's CVODE
    /// tried -2.3e7 Pa after a flow step of the Z form). So that the rates
    /// stay finite and continuous for every finite state, the segment's
    /// properties (compliance, resistance, inertance, wall deformation,
    /// fluid) are held at their values at this pressure below it, with
    /// zero derivatives with respect to the pressure. At and above it the
    /// laws are evaluated unchanged (bit for bit).
    pub fn pressure_floor(&self) -> f64 {
        (VAPOUR_PRESSURE - self.fluid.p0)
            .max(-0.1 * self.wall.p_ref)
            .max(-1e7)
    }

    /// The segment at mean pressure `p_m` (Pa) without wall hysteresis
    /// (below [`HoseSegment::pressure_floor`], held at the floor).
    pub fn state(&self, p_m: f64) -> SegmentState {
        let floor = self.pressure_floor();
        if p_m < floor {
            return self.state(floor).held_at_floor(p_m);
        }
        let el = self.wall.deformation(p_m);
        self.assemble(p_m, el.x, el.x_dp, 0.0)
    }

    /// The segment at mean pressure `p_m` (Pa) changing at `p_m_rate` (Pa/s),
    /// with the hysteresis offset in the flow geometry (RL, RT, L; H2).
    /// The model description puts its effect on the resonance below 0.2 Hz.
    /// Below [`HoseSegment::pressure_floor`], held at the floor at rest.
    pub fn state_with_hysteresis(&self, p_m: f64, p_m_rate: f64) -> SegmentState {
        let floor = self.pressure_floor();
        if p_m < floor {
            return self.state(floor).held_at_floor(p_m);
        }
        let hx = self.wall.deformation_with_hysteresis(p_m, p_m_rate);
        self.assemble(p_m, hx.x, hx.x_dp, hx.x_drate)
    }

    fn assemble(&self, p_m: f64, x: f64, x_dp: f64, x_drate: f64) -> SegmentState {
        let fluid = self.fluid.properties(p_m);
        let flow = HoseResistance::evaluate(
            &self.losses,
            self.wall.l,
            self.wall.d + 2.0 * x,
            fluid.nu,
            fluid.rho,
        );
        SegmentState {
            p_m,
            fluid,
            compliance_parts: HoseCompliance::evaluate(&self.fluid, &self.wall, p_m),
            x,
            x_dp,
            x_drate,
            flow,
            k_c: self.k_c,
            k_l: self.k_l,
            k_r: self.k_r,
        }
    }
}

impl SegmentState {
    /// This state (evaluated at the pressure floor) as the state at `p_m`
    /// below the floor: the same values, no pressure dependence.
    fn held_at_floor(mut self, p_m: f64) -> SegmentState {
        self.p_m = p_m;
        self.x_dp = 0.0;
        self.x_drate = 0.0;
        self.fluid.nu_dp = 0.0;
        self.fluid.rho_dp = 0.0;
        self.fluid.eps_dpp = 0.0;
        self.compliance_parts.total_dp = 0.0;
        self
    }

    /// Flow diameter D = d + 2x, m.
    pub fn diameter(&self, d: f64) -> f64 {
        d + 2.0 * self.x
    }

    /// Compliance C (uncorrected), m3/Pa (H4).
    pub fn compliance(&self) -> f64 {
        self.compliance_parts.total
    }

    /// dC/dp_m, m3/Pa2.
    pub fn compliance_dp(&self) -> f64 {
        self.compliance_parts.total_dp
    }

    /// Corrected compliance kC C, m3/Pa (the factor of dp/dt in H7).
    pub fn corrected_compliance(&self) -> f64 {
        self.k_c * self.compliance_parts.total
    }

    /// Inertance L (uncorrected), Pa s2/m3 (H5).
    pub fn inertance(&self) -> f64 {
        self.flow.inertance
    }

    /// Corrected inertance kL L, Pa s2/m3 (the factor of dQ/dt in H7).
    pub fn corrected_inertance(&self) -> f64 {
        self.k_l * self.flow.inertance
    }

    /// dL/dp_m through rho and the geometry, Pa s2/m3/Pa.
    pub fn inertance_dp(&self) -> f64 {
        self.flow.inertance * self.fluid.rho_dp / self.fluid.rho
            + self.flow.inertance_dd * 2.0 * self.x_dp
    }

    /// dL/d(dp_m/dt) through the hysteresis, Pa s3/m3/Pa.
    pub fn inertance_drate(&self) -> f64 {
        self.flow.inertance_dd * 2.0 * self.x_drate
    }

    /// Pressure drop `R(Q) Q = kr (RL + RT |Q|) Q` of flow `q` (m3/s), Pa
    /// (H6; kr included).
    pub fn loss(&self, q: f64) -> f64 {
        self.flow.pressure_drop(self.k_r, q)
    }

    /// d(R(Q) Q)/dQ = kr (RL + 2 RT |Q|), Pa s/m3.
    pub fn loss_dq(&self, q: f64) -> f64 {
        self.flow.pressure_drop_dq(self.k_r, q)
    }

    /// d(R(Q) Q)/dp_m at fixed Q, through nu, rho and the geometry (1).
    pub fn loss_dp(&self, q: f64) -> f64 {
        let rho_log = self.fluid.rho_dp / self.fluid.rho;
        let nu_log = self.fluid.nu_dp / self.fluid.nu;
        let dd = 2.0 * self.x_dp;
        let rl = self.flow.laminar * (nu_log + rho_log) + self.flow.laminar_dd * dd;
        let rt = self.flow.turbulent * rho_log + self.flow.turbulent_dd * dd;
        self.k_r * (rl + rt * q.abs()) * q
    }

    /// d(R(Q) Q)/d(dp_m/dt) through the hysteresis, s.
    pub fn loss_drate(&self, q: f64) -> f64 {
        self.flow.pressure_drop_dd(self.k_r, q) * 2.0 * self.x_drate
    }

    /// Effective bulk modulus V_H / C, Pa.
    pub fn effective_bulk_modulus(&self) -> f64 {
        self.compliance_parts.effective_bulk_modulus()
    }

    /// Wave speed `c = sqrt(K / rho)`, m/s.
    pub fn wave_speed(&self) -> f64 {
        (self.effective_bulk_modulus() / self.fluid.rho).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn reference_parameters() {
        let p = HoseParameters::reference();
        assert!(p.check().is_ok());
        assert_eq!(p.x_ref, 3.508e-5);
        let s = HoseParameters::as_stated();
        assert_eq!(s.x_ref, 4e-4);
        assert_eq!(
            HoseParameters {
                x_ref: 3.508e-5,
                ..s
            },
            p
        );
        let f = p.fluid();
        assert!((f.af - 13.0).abs() < 1e-12 && rel(f.bf, 1.64e9) < 1e-15);
        assert_eq!(p.wall(7).l, 2.0 / 7.0);
        assert!(HoseParameters { d: -1.0, ..p }.check().is_err());
        assert!(HoseParameters { kn: f64::NAN, ..p }.check().is_err());
    }

    /// Below the pressure floor (cavitation) the segment is held at its
    /// floor values, continuous there and finite down to any pressure; at
    /// and above the floor it is the plain evaluation (at -2e5 Pa the air
    /// law alone would be NaN: its pole is at -p0 = -1e5 Pa).
    #[test]
    fn below_the_pressure_floor_the_laws_are_held_finite() {
        let p = HoseParameters::reference();
        let s = HoseSegment::new(&p, 7).unwrap();
        let floor = s.pressure_floor();
        assert_eq!(floor, VAPOUR_PRESSURE - 1e5);
        assert!(p.fluid().air(1.0, -2e5).volume.is_nan());
        let at = s.state(floor);
        for p_m in [floor - 1e-6, -2e5, -2.3e7, -1e300, f64::MIN] {
            let below = s.state(p_m);
            assert_eq!(below.p_m, p_m);
            assert_eq!(below.compliance(), at.compliance());
            assert_eq!(below.corrected_inertance(), at.corrected_inertance());
            assert_eq!(below.loss(1e-4), at.loss(1e-4));
            assert_eq!(below.compliance_dp(), 0.0);
            assert_eq!(below.inertance_dp(), 0.0);
            assert_eq!(below.loss_dp(1e-4), 0.0);
            assert!(below.compliance() > 0.0 && below.corrected_inertance() > 0.0);
        }
        // Above the floor: exactly the laws (x_el and the fluid at p_m).
        let above = s.state(1e6);
        assert_eq!(above.x, s.wall.deformation(1e6).x);
        assert_eq!(above.fluid, s.fluid.properties(1e6));
        assert_ne!(above.compliance(), at.compliance());
        assert!(s.state_with_hysteresis(-5e5, 1e9).compliance() == at.compliance());
    }

    #[test]
    fn segment_count_limits() {
        let p = HoseParameters::reference();
        assert!(HoseSegment::new(&p, 0).is_err());
        assert!(HoseSegment::new(&p, 14).is_ok());
        assert!(HoseSegment::new(&p, 15).unwrap_err().contains("kr"));
        let s = HoseSegment::new(&p, 1).unwrap();
        assert!((s.k_l - 2.0 / PI).abs() < 1e-15);
        assert_eq!(s.k_c, s.k_l);
        assert_eq!(s.k_r, 1.4);
    }

    /// Operating point Q = 5e-4 m3/s, p_m = 1e7 Pa, n = 1 (l = 2 m).
    #[test]
    fn operating_point_values() {
        let seg = HoseSegment::new(&HoseParameters::reference(), 1).unwrap();
        let st = seg.state(1e7);
        let d = st.diameter(0.016);
        assert!(rel(d, 0.016 + 2.0 * 3.508e-5) < 1e-12);
        assert!(rel(st.flow.laminar, 7.0565e7) < 1e-4);
        assert!(rel(st.flow.turbulent, 7.3132e10) < 1e-4);
        assert!(rel(st.inertance(), 8.5027e6) < 1e-4);
        let q = 5e-4;
        let dp = 1.4 * (st.flow.laminar + st.flow.turbulent * q) * q;
        assert!(rel(st.loss(q), dp) < 1e-15);
        assert!(rel(st.loss(q), 7.4992e4) < 1e-4);
        assert!(rel(st.compliance(), 6.54e-13) < 1e-3);
        assert!((st.wave_speed() - 848.0).abs() < 0.5);
        assert!(rel(st.corrected_compliance(), 2.0 / PI * st.compliance()) < 1e-15);
        assert!(rel(st.corrected_inertance(), 2.0 / PI * st.inertance()) < 1e-15);
    }

    #[test]
    fn segments_scale_with_length() {
        let p = HoseParameters::reference();
        let one = HoseSegment::new(&p, 1).unwrap().state(1e7);
        let seven = HoseSegment::new(&p, 7).unwrap().state(1e7);
        assert!(rel(7.0 * seven.compliance(), one.compliance()) < 1e-12);
        assert!(rel(7.0 * seven.inertance(), one.inertance()) < 1e-12);
        assert!(rel(7.0 * seven.flow.laminar, one.flow.laminar) < 1e-12);
        // zeta is a per-segment loss: RT does not scale with l.
        assert!(7.0 * seven.flow.turbulent > one.flow.turbulent);
    }

    #[test]
    fn pressure_partials_match_finite_differences() {
        for params in [HoseParameters::reference(), HoseParameters::as_stated()] {
            let seg = HoseSegment::new(&params, 3).unwrap();
            for p in [0.0, 2e6, 1e7] {
                let h = 1e-4 * (p + 1e5);
                let (lo, hi, st) = (seg.state(p - h), seg.state(p + h), seg.state(p));
                let fd = |a: f64, b: f64| (b - a) / (2.0 * h);
                assert!(rel(fd(lo.inertance(), hi.inertance()), st.inertance_dp()) < 1e-6);
                assert!(rel(fd(lo.compliance(), hi.compliance()), st.compliance_dp()) < 1e-6);
                for q in [-5e-4, 1e-6, 5e-4] {
                    assert!(rel(fd(lo.loss(q), hi.loss(q)), st.loss_dp(q)) < 1e-6);
                    let hq = 1e-9;
                    let fq = (st.loss(q + hq) - st.loss(q - hq)) / (2.0 * hq);
                    assert!(rel(fq, st.loss_dq(q)) < 1e-6);
                }
            }
        }
    }

    #[test]
    fn hysteresis_changes_only_the_flow_geometry() {
        let seg = HoseSegment::new(&HoseParameters::reference(), 1).unwrap();
        let (p, rate, q) = (1e7, 2e7, 5e-4);
        let still = seg.state_with_hysteresis(p, 0.0);
        assert_eq!(
            (still.x, still.x_dp, still.flow),
            (seg.state(p).x, seg.state(p).x_dp, seg.state(p).flow)
        );
        let st = seg.state_with_hysteresis(p, rate);
        let plain = seg.state(p);
        assert_eq!(st.compliance_parts, plain.compliance_parts);
        assert!(st.x < plain.x && st.inertance() > plain.inertance());
        let (hp, hr) = (1e3, 1e3);
        let a = |pp: f64, r: f64| seg.state_with_hysteresis(pp, r);
        let fd_p = (a(p + hp, rate).loss(q) - a(p - hp, rate).loss(q)) / (2.0 * hp);
        assert!(rel(fd_p, st.loss_dp(q)) < 1e-6);
        let fd_r = (a(p, rate + hr).loss(q) - a(p, rate - hr).loss(q)) / (2.0 * hr);
        assert!(rel(fd_r, st.loss_drate(q)) < 1e-6);
        let fd_l = (a(p, rate + hr).inertance() - a(p, rate - hr).inertance()) / (2.0 * hr);
        assert!(rel(fd_l, st.inertance_drate()) < 1e-6);
        let fd_lp = (a(p + hp, rate).inertance() - a(p - hp, rate).inertance()) / (2.0 * hp);
        assert!(rel(fd_lp, st.inertance_dp()) < 1e-6);
        // Bound: a permanently saturated offset b = 2e-5 m raises L by
        // 4 b / D = 0.5 % and lowers the corrected n = 1 resonance by 0.26 Hz
        // (the model description's simulated effect, offset not saturated, is < 0.2 Hz).
        let sat = seg.state_with_hysteresis(p, 1e12);
        let f = |s: &SegmentState| {
            1.0 / (2.0 * PI * (s.corrected_inertance() * s.corrected_compliance()).sqrt())
        };
        let shift = f(&plain) - f(&sat);
        assert!(shift > 0.2 && shift < 0.3, "shift {shift} Hz");
    }
}
