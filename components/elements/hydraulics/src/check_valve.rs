//! Check (non-return) valve: a spring-loaded poppet that passes flow from
//! its inlet to its outlet once the pressure drop exceeds the cracking
//! pressure, and blocks the reverse direction.
//!
//! With `dp = p_in - p_out` and `x = (dp - p_crack) / p_band`,
//!
//! ```text
//! Q(dp) = s(x) f_K(dp) + g_leak dp
//! s(x)  = 0              for x <= 0  (seated)
//!         3 x^2 - 2 x^3  for 0 < x < 1
//!         1              for x >= 1  (fully open)
//! ```
//!
//! where `f_K` is the regularised sharp-edged orifice law of
//! [`crate::orifice`] with the fully open flow coefficient `K`.
//!
//! Source: the flow through the open poppet is the turbulent orifice
//! equation (Merritt, Hydraulic Control Systems, 1967). Quasi-statically the
//! poppet lifts against its spring once the pressure force exceeds the
//! preload (the cracking pressure) and its lift, and with it the flow area,
//! grows with the pressure drop until the poppet reaches its stop: the
//! pressure-override characteristic of poppet valves (Manring, Hydraulic
//! Control Systems, 2005). Here the whole lift happens over the band
//! `[p_crack, p_crack + p_band]`.
//!
//! Choices, and why:
//! - The opening fraction `s` is the cubic smoothstep rather than the
//!   linear ramp a spring gives: both go from 0 to 1 over the band, but the
//!   ramp puts kinks into `Q(dp)` at both ends, which cost Newton iterations
//!   and step rejections in an implicit integrator. The smoothstep has zero
//!   slope at both ends, is monotone and stays in `[0, 1]`, so `Q` and
//!   `dQ/d(dp)` are continuous (only the curvature jumps, at the two
//!   switching points that [`CheckValve::switching`] reports).
//! - Seated, the law alone would pass nothing and have zero slope: a node
//!   bounded only by closed valves would have no equation fixing its
//!   pressure in a steady-state (initialisation) solve, a singular
//!   Jacobian. The leakage conductance `g_leak` (laminar seat leakage, in
//!   both directions) keeps `dQ/d(dp) >= g_leak > 0` everywhere. Make it
//!   small against the open valve's slope: e.g. 1e-13 m3/(s Pa) leaks
//!   0.06 L/min at 100 bar. `g_leak = 0` is allowed (an ideal valve) but
//!   loses that property.

use crate::orifice::Orifice;
use crate::validate::{non_negative, positive};

/// The opening fraction `s(x)` of the poppet valves (cubic smoothstep,
/// 0 for `x <= 0`, 1 for `x >= 1`) and its derivative `ds/dx`. `x` is the
/// pressure above cracking in units of the opening band (1).
#[inline]
pub fn smooth_opening(x: f64) -> (f64, f64) {
    if x <= 0.0 {
        (0.0, 0.0)
    } else if x >= 1.0 {
        (1.0, 0.0)
    } else {
        (x * x * (3.0 - 2.0 * x), 6.0 * x * (1.0 - x))
    }
}

/// A check valve: flow from inlet to outlet once `p_in - p_out` exceeds the
/// cracking pressure, opening smoothly over a band; seat leakage both ways.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckValve {
    /// Flow coefficient `K` of the fully open valve, m3/(s sqrt(Pa)).
    pub k: f64,
    /// Transition pressure of the orifice law, Pa: below it the open
    /// valve's flow is laminar-like with a finite slope (only matters when
    /// `p_crack` is smaller than it).
    pub p_tr: f64,
    /// Cracking pressure p_crack, Pa: the pressure drop at which the poppet
    /// leaves its seat.
    pub p_crack: f64,
    /// Opening band p_band, Pa: the poppet is fully open at
    /// `p_crack + p_band`.
    pub p_band: f64,
    /// Seat leakage conductance g_leak, m3/(s Pa).
    pub g_leak: f64,
}

impl CheckValve {
    /// A check valve with checked parameters: `k`, `p_tr` and `p_band`
    /// positive, `p_crack` and `g_leak` not negative, all finite.
    pub fn new(k: f64, p_tr: f64, p_crack: f64, p_band: f64, g_leak: f64) -> Result<Self, String> {
        let v = CheckValve {
            k,
            p_tr,
            p_crack,
            p_band,
            g_leak,
        };
        v.validate()?;
        Ok(v)
    }

    /// Checks the parameters of a valve built field by field (what
    /// [`CheckValve::new`] does).
    pub fn validate(&self) -> Result<(), String> {
        positive("flow coefficient", "k", self.k, "m3/(s sqrt(Pa))")?;
        positive("orifice transition pressure", "p_tr", self.p_tr, "Pa")?;
        non_negative("cracking pressure", "p_crack", self.p_crack, "Pa")?;
        positive("opening band", "p_band", self.p_band, "Pa")?;
        non_negative("leakage conductance", "g_leak", self.g_leak, "m3/(s Pa)")
    }

    /// Opening fraction (1) at pressure drop `dp` (Pa) and its derivative
    /// with respect to `dp`, 1/Pa.
    #[inline]
    pub fn opening(&self, dp: f64) -> (f64, f64) {
        let (s, ds) = smooth_opening((dp - self.p_crack) / self.p_band);
        (s, ds / self.p_band)
    }

    /// Flow from inlet to outlet (m3/s) at inlet pressure `p_in` and outlet
    /// pressure `p_out` (Pa), with its partials with respect to `p_in` and
    /// `p_out`, m3/(s Pa).
    #[inline]
    pub fn flow(&self, p_in: f64, p_out: f64) -> (f64, f64, f64) {
        let dp = p_in - p_out;
        let (s, ds) = self.opening(dp);
        let mut q = self.g_leak * dp;
        let mut slope = self.g_leak;
        if s > 0.0 {
            let law = Orifice {
                k: self.k,
                p_tr: self.p_tr,
            };
            let (f, df) = law.flow_and_slope(dp);
            q += s * f;
            slope += ds * f + s * df;
        }
        (q, slope, -slope)
    }

    /// The switching functions at `p_in`, `p_out` (Pa): `dp - p_crack`
    /// (the poppet leaves its seat) and `dp - p_crack - p_band` (it reaches
    /// full opening). The flow and its slope are continuous across both;
    /// an integrator with event location may still stop there, since the
    /// law's curvature jumps.
    pub fn switching(&self, p_in: f64, p_out: f64) -> [f64; 2] {
        let x = p_in - p_out - self.p_crack;
        [x, x - self.p_band]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 6 mm seat (Cd 0.65, oil 870 kg/m3), cracking at 3 bar, fully open
    /// 2 bar later.
    fn example() -> CheckValve {
        let k = Orifice::circular(0.65, 6e-3, 870.0, 1e4).k;
        CheckValve::new(k, 1e4, 3e5, 2e5, 1e-13).unwrap()
    }

    fn assert_partials(v: &CheckValve, p_in: f64, p_out: f64) {
        let (_, d_in, d_out) = v.flow(p_in, p_out);
        let h = 1e-4 * v.p_band;
        let fd_in = (v.flow(p_in + h, p_out).0 - v.flow(p_in - h, p_out).0) / (2.0 * h);
        let fd_out = (v.flow(p_in, p_out + h).0 - v.flow(p_in, p_out - h).0) / (2.0 * h);
        let scale = fd_in.abs().max(v.g_leak);
        assert!(
            (d_in - fd_in).abs() <= 1e-5 * scale,
            "d/dp_in at ({p_in}, {p_out}): {d_in} vs {fd_in}"
        );
        assert!(
            (d_out - fd_out).abs() <= 1e-5 * scale,
            "d/dp_out at ({p_in}, {p_out}): {d_out} vs {fd_out}"
        );
    }

    #[test]
    fn partials_agree_with_central_differences() {
        let v = example();
        let p_out = 2e6;
        // Reverse, seated, near cracking on both sides, inside the band,
        // near full opening on both sides, fully open.
        for dp in [
            -5e6, -1e5, 0.0, 1e5, 2.99e5, 3.01e5, 3.5e5, 4.0e5, 4.99e5, 5.01e5, 1e6, 2e7,
        ] {
            assert_partials(&v, p_out + dp, p_out);
        }
        // Cracking below the orifice's transition pressure: the open law's
        // cubic part is reached too.
        let low = CheckValve::new(v.k, 1e4, 2e3, 4e3, 0.0).unwrap();
        for dp in [1.9e3, 2.1e3, 5e3, 5.9e3, 6.1e3, 9.9e3, 1.01e4, 3e4] {
            assert_partials(&low, 1e5 + dp, 1e5);
        }
    }

    #[test]
    fn blocks_reverse_flow_beyond_leakage() {
        let v = example();
        for dp in [-2e7, -1e6, -1e3, 0.0, 1e5, 3e5] {
            let (q, d_in, _) = v.flow(1e6 + dp, 1e6);
            assert_eq!(q, v.g_leak * dp, "{dp}");
            assert_eq!(d_in, v.g_leak);
        }
        // 100 bar reverse: 1e-6 m3/s, 0.06 L/min.
        assert!((v.flow(0.0, 1e7).0 + 1e-6).abs() < 1e-18);
    }

    #[test]
    fn fully_open_is_the_orifice_and_flow_is_monotone_and_continuous() {
        let v = example();
        let orifice = Orifice {
            k: v.k,
            p_tr: v.p_tr,
        };
        let dp = 1e6;
        let q = v.flow(dp, 0.0).0;
        assert!((q - orifice.flow(dp) - v.g_leak * dp).abs() <= 1e-15 * q);
        // About 0.65 * 28.3 mm2 * sqrt(2 * 10 bar / 870) = 0.88 L/s.
        assert!((q / 8.82e-4 - 1.0).abs() < 1e-2, "{q}");
        // Monotone in dp with slope >= g_leak, continuous at both switches.
        let mut prev = f64::NEG_INFINITY;
        for i in 0..=2000 {
            let dp = -1e5 + i as f64 * 400.0;
            let (q, s, _) = v.flow(dp, 0.0);
            assert!(q > prev && s >= v.g_leak, "{dp}");
            prev = q;
        }
        for p in [v.p_crack, v.p_crack + v.p_band] {
            let (a, sa, _) = v.flow(p * (1.0 - 1e-12), 0.0);
            let (b, sb, _) = v.flow(p * (1.0 + 1e-12), 0.0);
            assert!((a - b).abs() <= 1e-9 * b.abs());
            assert!((sa - sb).abs() <= 1e-6 * sb.abs());
        }
        // Half-way through the band: half open.
        assert_eq!(v.opening(v.p_crack + 0.5 * v.p_band).0, 0.5);
    }

    #[test]
    fn switching_changes_sign_at_cracking_and_full_opening() {
        let v = example();
        assert_eq!(v.switching(1e6 + 3e5, 1e6), [0.0, -2e5]);
        assert!(v.switching(1e6, 1e6)[0] < 0.0);
        assert!(v.switching(1e6 + 6e5, 1e6)[1] > 0.0);
    }

    #[test]
    fn constructor_rejects_bad_parameters_by_name() {
        let ok = example();
        let err = CheckValve::new(ok.k, 1e4, -1.0, 2e5, 0.0).unwrap_err();
        assert_eq!(
            err,
            "cracking pressure p_crack = -1 Pa must not be negative"
        );
        let err = CheckValve::new(ok.k, 1e4, 3e5, 0.0, 0.0).unwrap_err();
        assert_eq!(err, "opening band p_band = 0 Pa must be positive");
        let err = CheckValve::new(-1e-6, 1e4, 3e5, 2e5, 0.0).unwrap_err();
        assert_eq!(
            err,
            "flow coefficient k = -1e-6 m3/(s sqrt(Pa)) must be positive"
        );
        let err = CheckValve::new(ok.k, 1e4, 3e5, 2e5, -1e-12).unwrap_err();
        assert!(err.starts_with("leakage conductance g_leak = -1e-12 m3/(s Pa)"));
        let err = CheckValve::new(ok.k, f64::NAN, 3e5, 2e5, 0.0).unwrap_err();
        assert!(err.contains("p_tr") && err.contains("finite"));
        assert!(CheckValve::new(ok.k, 1e4, 0.0, 2e5, 0.0).is_ok());
    }
}
