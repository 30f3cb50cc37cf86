//! Sharp-edged orifice with the regularised two-regime turbulent law
//! (E1 of the orifice chain and E2).

/// A sharp-edged orifice: `Q = K sign(dp) sqrt(|dp|)` above the transition
/// pressure `p_tr`, a cubic with the same value and slope at `|dp| = p_tr`
/// and a finite slope at zero below it (E2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Orifice {
    /// Flow coefficient `K = Cd * A * sqrt(2/rho)` in m3/s/sqrt(Pa) (E1).
    pub k: f64,
    /// Transition pressure of the regularised law, Pa.
    pub p_tr: f64,
}

impl Orifice {
    /// A circular sharp-edged orifice of diameter `d` (m) with discharge
    /// coefficient `cd` (1) in oil of density `rho` (kg/m3), E1.
    pub fn circular(cd: f64, d: f64, rho: f64, p_tr: f64) -> Self {
        let area = std::f64::consts::PI / 4.0 * d * d;
        Orifice {
            k: cd * area * (2.0 / rho).sqrt(),
            p_tr,
        }
    }

    /// Slope of E2's law at zero pressure drop, `1.25 K / sqrt(p_tr)`,
    /// m3/(s Pa): the largest slope of the law, finite only for a
    /// transition pressure that is not vanishingly small.
    pub fn laminar_slope(&self) -> f64 {
        1.25 * self.k / self.p_tr.sqrt()
    }

    /// Coefficient of the cubic term of E2's law, `K / (4 p_tr^2
    /// sqrt(p_tr))`, m3/(s Pa^3).
    pub fn cubic_coefficient(&self) -> f64 {
        self.k / (4.0 * self.p_tr * self.p_tr * self.p_tr.sqrt())
    }

    /// Flow through the orifice (m3/s, positive from the high-pressure side
    /// when `dp` = upstream minus downstream pressure, Pa, is positive).
    #[inline]
    pub fn flow(&self, dp: f64) -> f64 {
        let a = dp.abs();
        if a >= self.p_tr {
            self.k * dp.signum() * a.sqrt()
        } else {
            let s = self.p_tr.sqrt();
            self.k * (1.25 / s * dp - dp * dp * dp / (4.0 * self.p_tr * self.p_tr * s))
        }
    }

    /// [`flow`](Self::flow) and [`slope`](Self::slope) together, with one
    /// square root in the turbulent regime (the hot path of the valves).
    pub fn flow_and_slope(&self, dp: f64) -> (f64, f64) {
        let a = dp.abs();
        if a >= self.p_tr {
            let r = a.sqrt();
            (self.k * dp.signum() * r, 0.5 * self.k / r)
        } else {
            (self.flow(dp), self.slope(dp))
        }
    }

    /// dQ/d(dp) in m3/s/Pa: finite everywhere, 1.25 K / sqrt(p_tr) at zero.
    #[inline]
    pub fn slope(&self, dp: f64) -> f64 {
        let a = dp.abs();
        if a >= self.p_tr {
            0.5 * self.k / a.sqrt()
        } else {
            let s = self.p_tr.sqrt();
            self.k * (1.25 / s - 0.75 * dp * dp / (self.p_tr * self.p_tr * s))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example_orifice() -> Orifice {
        Orifice::circular(0.6, 1e-3, 900.0, 1e4)
    }

    #[test]
    fn coefficient_from_e1() {
        let o = example_orifice();
        let expected = 0.6 * std::f64::consts::PI / 4.0 * 1e-6 * (2.0f64 / 900.0).sqrt();
        assert!((o.k - expected).abs() < 1e-20);
        // The model description: with ps = 10 MPa split in three equal drops, Q = 4.055e-5 m3/s.
        assert!((o.flow(1e7 / 3.0) / 4.055e-5 - 1.0).abs() < 1e-3);
    }

    #[test]
    fn value_and_slope_continuous_at_transition() {
        let o = example_orifice();
        for sign in [-1.0, 1.0] {
            let below = o.flow(sign * o.p_tr * (1.0 - 1e-12));
            let above = o.flow(sign * o.p_tr * (1.0 + 1e-12));
            assert!((below - above).abs() < 1e-9 * above.abs());
            let sb = o.slope(sign * o.p_tr * (1.0 - 1e-12));
            let sa = o.slope(sign * o.p_tr * (1.0 + 1e-12));
            assert!((sb - sa).abs() < 1e-9 * sa.abs());
        }
    }

    #[test]
    fn finite_slope_at_zero_and_odd_symmetry() {
        let o = example_orifice();
        assert_eq!(o.flow(0.0), 0.0);
        assert!((o.slope(0.0) - 1.25 * o.k / o.p_tr.sqrt()).abs() < 1e-20);
        for dp in [1.0, 3e3, 2e4, 5e6] {
            assert_eq!(o.flow(-dp), -o.flow(dp));
        }
    }

    #[test]
    fn flow_and_slope_agree_with_the_separate_functions() {
        let o = example_orifice();
        for dp in [-2e6_f64, -1e4, -5e3, 0.0, 7.0, 1e4, 3e6] {
            let (q, s) = o.flow_and_slope(dp);
            assert!((q - o.flow(dp)).abs() <= 1e-15 * q.abs());
            assert!((s - o.slope(dp)).abs() <= 1e-15 * s.abs());
        }
    }

    #[test]
    fn slope_matches_finite_difference() {
        let o = example_orifice();
        for dp in [-2e6_f64, -5e3, -1.0, 0.0, 7.0, 9e3, 1.1e4, 3e6] {
            let h = 1e-3_f64.max(dp.abs() * 1e-7);
            let fd = (o.flow(dp + h) - o.flow(dp - h)) / (2.0 * h);
            assert!((fd - o.slope(dp)).abs() <= 1e-6 * fd.abs());
        }
    }
}
