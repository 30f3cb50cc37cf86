//! A closed-centre 4/3 proportional valve whose four edges follow measured
//! characteristic curves (FourBar `MODEL.md` F7-F8): for a spool signal
//! `U >= 0` the edges P->A and B->T open, for `U < 0` the edges P->B and
//! A->T, each passing `Q = K(|U|) dp / (dp^2 + delta^2)^(1/4)`, an orifice
//! law `K sqrt(dp)` made smooth and invertible through `dp = 0` below the
//! transition pressure `delta`. `K = k_scale N(|U|)` with `N` the edge's
//! B-spline curve.

use crate::bspline::{BSplineCurve, CurvePoint};

/// The four edges in the order of [`CurveValve::curves`].
pub const EDGES: [&str; 4] = ["PA", "AT", "PB", "BT"];

/// The valve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurveValve {
    /// Characteristic curve of each edge, order P->A, A->T, P->B, B->T
    /// (signal in V, dimensionless gain).
    pub curves: [BSplineCurve; 4],
    /// Flow coefficient per unit of the curve, m3/(s Pa^(1/2)).
    pub k_scale: f64,
    /// Transition pressure delta of the regularised law, Pa (> 0).
    pub delta: f64,
}

/// One edge's flow and its partial derivatives.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EdgeFlow {
    /// Flow from the edge's upstream to its downstream port, m3/s.
    pub q: f64,
    /// dQ/d(upstream pressure) = -dQ/d(downstream pressure), m3/(s Pa).
    pub q_dp: f64,
    /// dQ/dU, m3/(s V).
    pub q_u: f64,
}

/// The four edge flows at one operating point.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CurveValveFlows {
    /// P -> A.
    pub pa: EdgeFlow,
    /// A -> T.
    pub at: EdgeFlow,
    /// P -> B.
    pub pb: EdgeFlow,
    /// B -> T.
    pub bt: EdgeFlow,
}

/// The regularised orifice law `g(dp) = dp / (dp^2 + delta^2)^(1/4)` and
/// its slope `(dp^2/2 + delta^2) / (dp^2 + delta^2)^(5/4)`.
pub fn regularised_root(dp: f64, delta: f64) -> (f64, f64) {
    let s = dp * dp + delta * delta;
    // s^(1/4) as two square roots (powf was 3 % of FourBar's time in a
    // profile; the roots agree with it to an ulp or two).
    let q = s.sqrt().sqrt();
    (dp / q, (0.5 * dp * dp + delta * delta) / (s * q))
}

impl CurveValve {
    /// One edge whose curve gives `n` at its opening, with pressure drop
    /// `dp`.
    fn edge(&self, n: CurvePoint, dp: f64) -> EdgeFlow {
        let (g, g_dp) = regularised_root(dp, self.delta);
        EdgeFlow {
            q: self.k_scale * n.value * g,
            q_dp: self.k_scale * n.value * g_dp,
            q_u: self.k_scale * n.slope * g,
        }
    }

    /// The flows at spool signal `u` (V), supply `pp`, chamber pressures
    /// `p1` (A), `p2` (B) and tank `pt` (Pa). Closed edges pass nothing.
    pub fn flows(&self, u: f64, pp: f64, p1: f64, p2: f64, pt: f64) -> CurveValveFlows {
        let mut f = CurveValveFlows::default();
        // The two edges that open together share one curve evaluation when
        // their curves are the same (the presets).
        let pair = |a: usize, b: usize, opening: f64| {
            let na = self.curves[a].eval(opening);
            let nb = if self.curves[b].same_curve(&self.curves[a]) {
                na
            } else {
                self.curves[b].eval(opening)
            };
            (na, nb)
        };
        if u >= 0.0 {
            let (na, nb) = pair(0, 3, u);
            f.pa = self.edge(na, pp - p1);
            f.bt = self.edge(nb, p2 - pt);
        } else {
            let (na, nb) = pair(1, 2, -u);
            f.at = self.edge(na, p1 - pt);
            f.pb = self.edge(nb, pp - p2);
            f.at.q_u = -f.at.q_u;
            f.pb.q_u = -f.pb.q_u;
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linear() -> BSplineCurve {
        BSplineCurve::new(
            &[0.0, 2.0, 4.0, 6.0, 8.0, 10.0],
            &[0.0, 19.0, 38.0, 57.0, 76.0, 95.0],
            3,
        )
        .unwrap()
    }

    fn valve() -> CurveValve {
        CurveValve {
            curves: [linear(); 4],
            k_scale: 4.70e-8 * 10.0 / 95.0,
            delta: 2e4,
        }
    }

    #[test]
    fn full_opening_passes_cv_times_ten_volts_root_dp() {
        let v = valve();
        let f = v.flows(10.0, 7e6, 1e6, 1e6, 1e5);
        let expected = 4.70e-8 * 10.0 * (6e6f64).sqrt();
        assert!((f.pa.q / expected - 1.0).abs() < 1e-5, "{f:?}");
        assert_eq!(f.pb.q, 0.0);
        assert_eq!(f.at.q, 0.0);
        assert!(f.bt.q > 0.0);
        let r = v.flows(-10.0, 7e6, 1e6, 1e6, 1e5);
        assert!((r.pb.q / expected - 1.0).abs() < 1e-5);
        assert_eq!(r.pa.q, 0.0);
        // Closed centre.
        let c = v.flows(0.0, 7e6, 1e6, 1e6, 1e5);
        assert_eq!(c.pa.q + c.bt.q + c.pb.q + c.at.q, 0.0);
    }

    #[test]
    fn partials_agree_with_central_differences() {
        let v = valve();
        for &(u, p1) in &[(3.3, 2e6), (-4.1, 5e6), (7.0, 6.99e6)] {
            let (pp, p2, pt) = (7e6, 3e6, 1e5);
            let f = v.flows(u, pp, p1, p2, pt);
            let hu = 1e-6;
            let fu = |x: f64| v.flows(x, pp, p1, p2, pt);
            let dpa = (fu(u + hu).pa.q - fu(u - hu).pa.q) / (2.0 * hu);
            let dpb = (fu(u + hu).pb.q - fu(u - hu).pb.q) / (2.0 * hu);
            assert!((f.pa.q_u - dpa).abs() <= 1e-6 * dpa.abs().max(1e-9));
            assert!((f.pb.q_u - dpb).abs() <= 1e-6 * dpb.abs().max(1e-9));
            let hp = 1.0;
            let dp1 = (v.flows(u, pp, p1 + hp, p2, pt).pa.q - v.flows(u, pp, p1 - hp, p2, pt).pa.q)
                / (2.0 * hp);
            assert!((-f.pa.q_dp - dp1).abs() <= 1e-6 * dp1.abs().max(1e-15));
        }
    }

    #[test]
    fn regularised_root_is_odd_and_approaches_the_square_root() {
        let (g, _) = regularised_root(1e6, 2e4);
        assert!((g / 1e3 - 1.0).abs() < 1e-3);
        assert_eq!(regularised_root(-5e3, 2e4).0, -regularised_root(5e3, 2e4).0);
        let (_, s0) = regularised_root(0.0, 2e4);
        assert!((s0 - (2e4f64).powf(-0.5)).abs() < 1e-15);
    }
}
