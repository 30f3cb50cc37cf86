//! The radially deforming hose wall of one segment: pressure-dependent
//! stiffness (H1 of the hose), quasi-static deformation and the saturated
//! viscous hysteresis (H2).

use std::f64::consts::{LN_10, PI};

/// Which slope dx/dp_m the compliance (H4) uses for the wall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WallSlope {
    /// The paper's eq 30 with h/dt -> 0: `A0 k / (k - 2 pi l p_m)^2`, i.e.
    /// the derivative of x_el with the stiffness k held at its current value.
    /// This is what the model description's reference numbers use (6.54e-13 m3/Pa, 106.0 Hz
    /// for the default hose); it is the default.
    FrozenStiffness,
    /// The total derivative of x_el(p_m) including dk/dp_m:
    /// `A0 (k - p_m dk/dp_m) / (k - 2 pi l p_m)^2`. Stiffer: for the default
    /// hose at 1e7 Pa it gives 6.08e-13 m3/Pa and 110.0 Hz instead.
    Tangent,
}

/// The wall of one hose segment (H1, H2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HoseWall {
    /// Inner diameter of the undeformed hose d, m.
    pub d: f64,
    /// Segment length l, m.
    pub l: f64,
    /// Reference pressure of the wall law p_ref, Pa.
    pub p_ref: f64,
    /// Radial wall deformation at p_ref, x_ref, m.
    pub x_ref: f64,
    /// Hysteresis width b, m.
    pub b: f64,
    /// Saturation velocity of the hysteresis v_lim, m/s.
    pub v_lim: f64,
    /// Wall damping h, N s/m (only its time constant h/k is reported: the
    /// model description treats the wall as quasi-static).
    pub h: f64,
    /// The slope the compliance uses.
    pub slope: WallSlope,
}

/// Wall stiffness and its pressure derivatives (H1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallStiffness {
    /// Radial stiffness k, N/m.
    pub k: f64,
    /// dk/dp_m, m2 (N/m per Pa).
    pub k_dp: f64,
    /// d2k/dp_m2, m2/Pa.
    pub k_dpp: f64,
}

/// Quasi-static wall deformation at one mean pressure (H2, no hysteresis).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallDeformation {
    /// Mean radial deformation `x_el = p_m pi d l / (k - 2 pi l p_m)`, m.
    pub x: f64,
    /// Total derivative dx_el/dp_m (includes dk/dp_m), m/Pa. Use this for
    /// the geometry's Jacobian and for the wall velocity.
    pub x_dp: f64,
    /// Total second derivative d2x_el/dp_m2, m/Pa2.
    pub x_dpp: f64,
    /// The slope dx/dp_m the compliance uses (per [`WallSlope`]), m/Pa.
    pub slope: f64,
    /// d(slope)/dp_m, m/Pa2.
    pub slope_dp: f64,
}

/// The hysteresis offset `b sat(v_w / v_lim)` (H2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hysteresis {
    /// Offset subtracted from x_el, m.
    pub offset: f64,
    /// d(offset)/d v_w, s (b / v_lim inside the linear band, 0 outside).
    pub offset_dv: f64,
}

/// Wall deformation with hysteresis and its partials (H2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HystereticDeformation {
    /// `x = x_el - b sat(v_w / v_lim)`, m.
    pub x: f64,
    /// dx/dp_m at fixed dp_m/dt, m/Pa.
    pub x_dp: f64,
    /// dx/d(dp_m/dt) at fixed p_m, m s/Pa.
    pub x_drate: f64,
}

impl HoseWall {
    /// Checks that the wall constants are finite and physical.
    pub fn check(&self) -> Result<(), String> {
        let all = [
            self.d, self.l, self.p_ref, self.x_ref, self.b, self.v_lim, self.h,
        ];
        if !all.iter().all(|v| v.is_finite()) {
            return Err("hose wall constants must be finite".into());
        }
        if self.d <= 0.0 || self.l <= 0.0 || self.p_ref <= 0.0 || self.x_ref <= 0.0 {
            return Err("d, l, p_ref and x_ref must be positive".into());
        }
        if self.b < 0.0 || self.v_lim <= 0.0 || self.h < 0.0 {
            return Err("b and h must be >= 0 and v_lim > 0".into());
        }
        Ok(())
    }

    /// Inner wall area of the undeformed segment `A0 = pi d l`, m2.
    pub fn inner_area(&self) -> f64 {
        PI * self.d * self.l
    }

    /// Reference area `A_ref = pi (d + 2 x_ref) l`, m2 (H1).
    pub fn reference_area(&self) -> f64 {
        PI * (self.d + 2.0 * self.x_ref) * self.l
    }

    /// Reference stiffness `k_ref = p_ref A_ref / x_ref`, N/m (H1).
    pub fn reference_stiffness(&self) -> f64 {
        self.p_ref * self.reference_area() / self.x_ref
    }

    /// Stiffness `k = k_ref / 3 (1 + log10(90 p_m / p_ref + 10))` at mean
    /// pressure `p_m` (Pa), with its derivatives (H1). Valid for
    /// `p_m > -p_ref / 9`; k(0) = 2/3 k_ref, k(p_ref) = k_ref.
    pub fn stiffness(&self, p_m: f64) -> WallStiffness {
        let k3 = self.reference_stiffness() / 3.0;
        let c = 90.0 / self.p_ref;
        let arg = c * p_m + 10.0;
        WallStiffness {
            k: k3 * (1.0 + arg.log10()),
            k_dp: k3 * c / (arg * LN_10),
            k_dpp: -k3 * c * c / (arg * arg * LN_10),
        }
    }

    /// Quasi-static deformation `x_el = p_m pi d l / (k - 2 pi l p_m)` at mean
    /// pressure `p_m` (Pa) with its derivatives and the compliance slope
    /// (H2, the paper's eq 12 with h/dt -> 0). Valid while
    /// `k > 2 pi l p_m` (above 1e8 Pa for the model description's hoses).
    pub fn deformation(&self, p_m: f64) -> WallDeformation {
        let s = self.stiffness(p_m);
        let a0 = self.inner_area();
        let tl = 2.0 * PI * self.l;
        let den = s.k - tl * p_m;
        let den_dp = s.k_dp - tl;
        // Total derivative: x' = A0 (k - p k') / den^2.
        let num = s.k - p_m * s.k_dp;
        let num_dp = -p_m * s.k_dpp;
        let x_dp = a0 * num / (den * den);
        let x_dpp = a0 * (num_dp * den - 2.0 * num * den_dp) / (den * den * den);
        let (slope, slope_dp) = match self.slope {
            // Frozen k (paper eq 30): A0 k / den^2.
            WallSlope::FrozenStiffness => (
                a0 * s.k / (den * den),
                a0 * (s.k_dp * den - 2.0 * s.k * den_dp) / (den * den * den),
            ),
            WallSlope::Tangent => (x_dp, x_dpp),
        };
        WallDeformation {
            x: p_m * a0 / den,
            x_dp,
            x_dpp,
            slope,
            slope_dp,
        }
    }

    /// Radial wall velocity `v_w = (dx_el/dp_m) dp_m/dt`, m/s, at mean
    /// pressure `p_m` (Pa) changing at `p_m_rate` (Pa/s) (H2).
    pub fn wall_velocity(&self, p_m: f64, p_m_rate: f64) -> f64 {
        self.deformation(p_m).x_dp * p_m_rate
    }

    /// Hysteresis offset `b sat(v_w / v_lim)` for wall velocity `v_w` (m/s):
    /// a saturated viscous term, linear for |v_w| < v_lim (H2; not
    /// Coulomb friction).
    pub fn hysteresis(&self, v_w: f64) -> Hysteresis {
        let u = v_w / self.v_lim;
        if u.abs() < 1.0 {
            Hysteresis {
                offset: self.b * u,
                offset_dv: self.b / self.v_lim,
            }
        } else {
            Hysteresis {
                offset: self.b * u.signum(),
                offset_dv: 0.0,
            }
        }
    }

    /// Deformation with hysteresis `x = x_el - b sat(v_w / v_lim)`,
    /// `v_w = (dx_el/dp_m) dp_m/dt`, at mean pressure `p_m` (Pa) changing at
    /// `p_m_rate` (Pa/s), with its partials (H2). The model description uses it only
    /// for the flow geometry (RL, RT, L), not for the compliance.
    pub fn deformation_with_hysteresis(&self, p_m: f64, p_m_rate: f64) -> HystereticDeformation {
        let el = self.deformation(p_m);
        let hy = self.hysteresis(el.x_dp * p_m_rate);
        HystereticDeformation {
            x: el.x - hy.offset,
            x_dp: el.x_dp - hy.offset_dv * el.x_dpp * p_m_rate,
            x_drate: -hy.offset_dv * el.x_dp,
        }
    }

    /// Time constant of the wall dynamics h / k at mean pressure `p_m`, s
    /// (model description: ~1e-7 s, so the wall is treated as quasi-static).
    pub fn damping_time_constant(&self, p_m: f64) -> f64 {
        self.h / self.stiffness(p_m).k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wall(x_ref: f64, slope: WallSlope) -> HoseWall {
        HoseWall {
            d: 0.016,
            l: 2.0,
            p_ref: 1e7,
            x_ref,
            b: 2e-5,
            v_lim: 1e-4,
            h: 200.0,
            slope,
        }
    }

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn stiffness_law_at_zero_and_reference_pressure() {
        for x_ref in [3.508e-5, 4e-4] {
            let w = wall(x_ref, WallSlope::FrozenStiffness);
            let k_ref = w.reference_stiffness();
            assert!(rel(k_ref, 1e7 * PI * (0.016 + 2.0 * x_ref) * 2.0 / x_ref) < 1e-15);
            // log10: k(0) = k_ref/3 (1 + log10 10) = 2/3 k_ref exactly.
            assert!(rel(w.stiffness(0.0).k, 2.0 / 3.0 * k_ref) < 1e-15);
            assert!(rel(w.stiffness(1e7).k, k_ref) < 1e-15);
        }
        // Default hose: k_ref = 2.878e10 N/m, h/k ~ 7e-9 s (quasi-static).
        let w = wall(3.508e-5, WallSlope::FrozenStiffness);
        assert!(rel(w.reference_stiffness(), 2.8783e10) < 1e-4);
        assert!(w.damping_time_constant(1e7) < 1e-7);
    }

    #[test]
    fn deformation_at_reference_pressure_is_x_ref() {
        // With k(p_ref) = k_ref the law returns x_ref algebraically:
        // p_ref pi d l / (p_ref pi (d + 2 x_ref) l / x_ref - 2 pi l p_ref) = x_ref.
        for x_ref in [3.508e-5, 4e-4] {
            let w = wall(x_ref, WallSlope::FrozenStiffness);
            let x = w.deformation(1e7).x;
            assert!(rel(x, x_ref) < 1e-12, "x_el(p_ref) = {x:e}");
            assert_eq!(w.deformation(0.0).x, 0.0);
        }
    }

    #[test]
    fn derivatives_match_finite_differences() {
        for x_ref in [3.508e-5, 4e-4] {
            for p in [-1e5_f64, 0.0, 3e5, 4e6, 1e7, 2.5e7] {
                let h = 1e-4 * (p.abs() + 1e5);
                let wt = wall(x_ref, WallSlope::Tangent);
                let wf = wall(x_ref, WallSlope::FrozenStiffness);
                let fd = |g: &dyn Fn(f64) -> f64| (g(p + h) - g(p - h)) / (2.0 * h);
                let s = wt.stiffness(p);
                assert!(rel(fd(&|q| wt.stiffness(q).k), s.k_dp) < 1e-7);
                assert!(rel(fd(&|q| wt.stiffness(q).k_dp), s.k_dpp) < 1e-7);
                let d = wt.deformation(p);
                assert!(rel(fd(&|q| wt.deformation(q).x), d.x_dp) < 1e-7);
                assert!(rel(fd(&|q| wt.deformation(q).x_dp), d.x_dpp) < 1e-6);
                assert_eq!((d.slope, d.slope_dp), (d.x_dp, d.x_dpp));
                let f = wf.deformation(p);
                assert_eq!(f.x_dp, d.x_dp);
                assert!(rel(fd(&|q| wf.deformation(q).slope), f.slope_dp) < 1e-6);
                // The frozen-stiffness slope exceeds the tangent for p > 0 (k' > 0).
                if p > 0.0 {
                    assert!(f.slope > d.x_dp);
                }
            }
        }
    }

    #[test]
    fn hysteresis_is_a_saturated_viscous_term() {
        let w = wall(3.508e-5, WallSlope::FrozenStiffness);
        assert_eq!(w.hysteresis(0.0).offset, 0.0);
        assert!(rel(w.hysteresis(5e-5).offset, 1e-5) < 1e-12);
        assert_eq!(w.hysteresis(3e-4).offset, 2e-5);
        assert_eq!(w.hysteresis(-3e-4).offset, -2e-5);
        assert_eq!(w.hysteresis(3e-4).offset_dv, 0.0);
        assert!(rel(w.hysteresis(-5e-5).offset_dv, 0.2) < 1e-12);
        // Rising pressure -> positive wall velocity -> wall lags x_el.
        let p = 1e7;
        let rate = 1e7; // Pa/s
        let v = w.wall_velocity(p, rate);
        assert!(v > 0.0 && v < 1e-4);
        let hx = w.deformation_with_hysteresis(p, rate);
        assert!(hx.x < w.deformation(p).x);
        // Partials against finite differences inside the linear band.
        let hp = 1e2;
        let fd_p = (w.deformation_with_hysteresis(p + hp, rate).x
            - w.deformation_with_hysteresis(p - hp, rate).x)
            / (2.0 * hp);
        assert!(rel(fd_p, hx.x_dp) < 1e-6);
        let hr = 1e2;
        let fd_r = (w.deformation_with_hysteresis(p, rate + hr).x
            - w.deformation_with_hysteresis(p, rate - hr).x)
            / (2.0 * hr);
        assert!(rel(fd_r, hx.x_drate) < 1e-6);
        // Saturated: the offset is constant, x_dp equals the elastic slope.
        let sat = w.deformation_with_hysteresis(p, 1e12);
        assert_eq!(sat.x_drate, 0.0);
        assert_eq!(sat.x_dp, w.deformation(p).x_dp);
    }

    #[test]
    fn check_rejects_bad_constants() {
        assert!(wall(4e-4, WallSlope::Tangent).check().is_ok());
        let bad = HoseWall {
            x_ref: 0.0,
            ..wall(4e-4, WallSlope::Tangent)
        };
        assert!(bad.check().is_err());
    }
}
