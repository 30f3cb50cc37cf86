//! A pressure-relief valve with a smooth opening (FourBar `MODEL.md` F4):
//! `Q = K_R softplus(p - p_cr)`, `softplus(x) = w ln(1 + exp(x / w))`, a
//! linear flow-pressure law above the cracking pressure `p_cr`, rounded
//! over a band of width `w` so that its derivative is continuous.

/// The relief valve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReliefValve {
    /// Cracking pressure p_cr, Pa.
    pub p_crack: f64,
    /// Flow gain K_R above the cracking pressure, m3/(s Pa).
    pub gain: f64,
    /// Width w of the rounded opening, Pa (> 0).
    pub smoothing: f64,
}

impl ReliefValve {
    /// Flow through the valve at inlet pressure `p` (outlet at tank), m3/s,
    /// and its derivative with respect to `p`, m3/(s Pa).
    pub fn flow(&self, p: f64) -> (f64, f64) {
        let x = (p - self.p_crack) / self.smoothing;
        // ln(1 + e^x) without overflow for large x; the slope is the logistic.
        let softplus = if x > 30.0 {
            x + (-x).exp().ln_1p()
        } else {
            x.exp().ln_1p()
        };
        let logistic = if x >= 0.0 {
            1.0 / (1.0 + (-x).exp())
        } else {
            let e = x.exp();
            e / (1.0 + e)
        };
        (self.gain * self.smoothing * softplus, self.gain * logistic)
    }

    /// The inlet pressure at which the valve passes `q` (m3/s, > 0): the
    /// inverse of [`ReliefValve::flow`].
    pub fn pressure_for(&self, q: f64) -> f64 {
        let y = q / (self.gain * self.smoothing);
        // softplus^-1(y) = ln(e^y - 1) = y + ln(1 - e^-y).
        self.p_crack + self.smoothing * (y + (-(-y).exp()).ln_1p())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FOUR_BAR: ReliefValve = ReliefValve {
        p_crack: 7.0e6,
        gain: 1.667e-9,
        smoothing: 2e4,
    };

    #[test]
    fn passes_the_pump_flow_at_the_papers_initial_pressure() {
        let p = FOUR_BAR.pressure_for(1e-3);
        assert!((p - 7.6e6).abs() < 1e3, "{p}");
        assert!((FOUR_BAR.flow(p).0 - 1e-3).abs() < 1e-15);
        // Closed well below cracking; linear well above.
        assert!(FOUR_BAR.flow(6.0e6).0 < 1e-20);
        assert!((FOUR_BAR.flow(8.0e6).1 - FOUR_BAR.gain).abs() < 1e-20);
    }

    #[test]
    fn slope_agrees_with_central_differences() {
        for p in [6.9e6, 6.99e6, 7.0e6, 7.01e6, 7.2e6] {
            let h = 1.0;
            let fd = (FOUR_BAR.flow(p + h).0 - FOUR_BAR.flow(p - h).0) / (2.0 * h);
            assert!(
                (FOUR_BAR.flow(p).1 - fd).abs() <= 1e-6 * FOUR_BAR.gain,
                "{p}"
            );
        }
    }
}
