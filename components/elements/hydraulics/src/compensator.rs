//! Pressure compensator with the semi-empirical throttle-coefficient
//! dynamics (V3 of the valve drive) and the shuttle valve feeding it.

use crate::orifice::Orifice;

/// Shuttle valve: passes the higher of two pressures, `psh = max(p1, p2)`.
/// Returns the pressure and its partials with respect to `p1` and `p2`.
#[inline]
pub fn shuttle(p1: f64, p2: f64) -> (f64, f64, f64) {
    if p1 >= p2 {
        (p1, 1.0, 0.0)
    } else {
        (p2, 0.0, 1.0)
    }
}

/// The compensator throttle between the supply `ps` and the small volume
/// `pv`: flow `Qv = K f(ps - pv)` and
/// `K' = [C5 - (pv - psh) - (C1 + C2 (ps - pv)/1e5) K] / C3`, with `K`
/// clamped to `[0, k_max]` (anti-windup: while clamped and pushed outward
/// the derivative is zero). The `(ps - pv)` of the C2 term is in bar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PressureCompensator {
    /// C1 (1/s per unit K... empirical, Pa s / (m3/(s sqrt(Pa))) scale).
    pub c1: f64,
    /// C2, per bar of pressure drop.
    pub c2: f64,
    /// C3 (empirical time scale).
    pub c3: f64,
    /// C5: the pressure margin the compensator holds, Pa.
    pub c5: f64,
    /// Largest throttle coefficient (fully open), m3/(s sqrt(Pa)).
    pub k_max: f64,
    /// Transition pressure of the orifice law, Pa.
    pub p_tr: f64,
}

/// Rate of the throttle coefficient and its partials.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompensatorRate {
    /// dK/dt, m3/(s^2 sqrt(Pa)).
    pub dk: f64,
    /// d(dK/dt)/dK, 1/s.
    pub d_k: f64,
    /// d(dK/dt)/d(pv).
    pub d_pv: f64,
    /// d(dK/dt)/d(psh).
    pub d_psh: f64,
}

impl PressureCompensator {
    /// The throttle coefficient actually used for the flow: K clamped.
    pub fn effective_k(&self, k: f64) -> f64 {
        k.clamp(0.0, self.k_max)
    }

    /// Flow through the throttle (m3/s) and its partials with respect to
    /// `k` and `pv`.
    #[inline]
    pub fn flow(&self, k: f64, ps: f64, pv: f64) -> (f64, f64, f64) {
        let law = Orifice {
            k: 1.0,
            p_tr: self.p_tr,
        };
        let ke = self.effective_k(k);
        let dk = if k > 0.0 && k < self.k_max { 1.0 } else { 0.0 };
        let f = law.flow(ps - pv);
        (ke * f, dk * f, -ke * law.slope(ps - pv))
    }

    /// dK/dt (V3) with the clamp's anti-windup.
    #[inline]
    pub fn rate(&self, k: f64, ps: f64, pv: f64, psh: f64) -> CompensatorRate {
        let gain = self.c1 + self.c2 * (ps - pv) / 1e5;
        let raw = (self.c5 - (pv - psh) - gain * k) / self.c3;
        let held = (k <= 0.0 && raw < 0.0) || (k >= self.k_max && raw > 0.0);
        if held {
            CompensatorRate {
                dk: 0.0,
                d_k: 0.0,
                d_pv: 0.0,
                d_psh: 0.0,
            }
        } else {
            CompensatorRate {
                dk: raw,
                d_k: -gain / self.c3,
                d_pv: (-1.0 + self.c2 / 1e5 * k) / self.c3,
                d_psh: 1.0 / self.c3,
            }
        }
    }

    /// The throttle coefficient at which dK/dt = 0 for given pressures.
    pub fn equilibrium_k(&self, ps: f64, pv: f64, psh: f64) -> f64 {
        (self.c5 - (pv - psh)) / (self.c1 + self.c2 * (ps - pv) / 1e5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> PressureCompensator {
        PressureCompensator {
            c1: 4.65e7,
            c2: -1.79e4,
            c3: 4.0e11,
            c5: 1e6,
            k_max: 5e-8,
            p_tr: 1e5,
        }
    }

    #[test]
    fn holds_its_margin_at_equilibrium() {
        let c = example();
        // With K at equilibrium and pv - psh = C5 - gain K.
        let (ps, pv, psh) = (1.4e7, 6e6, 5e6);
        let k = c.equilibrium_k(ps, pv, psh);
        assert!(c.rate(k, ps, pv, psh).dk.abs() < 1e-20);
        // K = 0 equilibrium: margin exactly C5 = 10 bar.
        assert_eq!(c.equilibrium_k(ps, 6e6, 5e6), 0.0);
    }

    #[test]
    fn clamp_holds_k_inside_its_range() {
        let c = example();
        // Margin too high -> wants to close; at K = 0 it is held.
        assert_eq!(c.rate(0.0, 1.4e7, 1.3e7, 1e6).dk, 0.0);
        assert!(c.rate(1e-9, 1.4e7, 1.3e7, 1e6).dk < 0.0);
        assert_eq!(c.rate(5e-8, 1.4e7, 1e6, 1e6).dk, 0.0);
        assert_eq!(c.flow(-1e-9, 1.4e7, 1e7).0, 0.0);
    }

    #[test]
    fn partials_match_finite_differences() {
        let c = example();
        let (k, ps, pv, psh) = (2e-9, 1.4e7, 8e6, 5e6);
        let r = c.rate(k, ps, pv, psh);
        let h = 1e-10;
        assert!(
            ((c.rate(k + h, ps, pv, psh).dk - c.rate(k - h, ps, pv, psh).dk) / (2.0 * h) - r.d_k)
                .abs()
                < 1e-6 * r.d_k.abs()
        );
        let h = 10.0;
        assert!(
            ((c.rate(k, ps, pv + h, psh).dk - c.rate(k, ps, pv - h, psh).dk) / (2.0 * h) - r.d_pv)
                .abs()
                < 1e-6 * r.d_pv.abs()
        );
        assert!(
            ((c.rate(k, ps, pv, psh + h).dk - c.rate(k, ps, pv, psh - h).dk) / (2.0 * h) - r.d_psh)
                .abs()
                < 1e-6 * r.d_psh.abs()
        );
        let (q, dq_k, dq_pv) = c.flow(k, ps, pv);
        assert!(q > 0.0);
        assert!(
            ((c.flow(k, ps, pv + h).0 - c.flow(k, ps, pv - h).0) / (2.0 * h) - dq_pv).abs()
                < 1e-6 * dq_pv.abs()
        );
        assert!((dq_k - q / k).abs() < 1e-9 * dq_k);
        assert_eq!(shuttle(3.0, 2.0), (3.0, 1.0, 0.0));
        assert_eq!(shuttle(1.0, 2.0), (2.0, 0.0, 1.0));
    }
}
