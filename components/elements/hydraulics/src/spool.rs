//! Proportional valve spool dynamics (V1 of the valve drive).

/// Second-order spool: `Us'' = Kv wn^2 U - 2 zeta wn Us' - wn^2 Us`, with the
/// spool signal `Us` in V (proportional to the spool displacement).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProportionalSpool {
    /// Valve gain Kv (1).
    pub gain: f64,
    /// Natural angular frequency wn, rad/s.
    pub omega: f64,
    /// Damping ratio zeta (1).
    pub damping: f64,
}

impl ProportionalSpool {
    /// The spool acceleration `Us''` (V/s^2) for command `u` (V), signal
    /// `us` (V) and its rate `dus` (V/s).
    #[inline]
    pub fn acceleration(&self, u: f64, us: f64, dus: f64) -> f64 {
        let w2 = self.omega * self.omega;
        self.gain * w2 * u - 2.0 * self.damping * self.omega * dus - w2 * us
    }

    /// Partial derivatives of the acceleration with respect to
    /// (`u`, `us`, `dus`), in 1/s^2, 1/s^2 and 1/s.
    pub fn acceleration_partials(&self) -> (f64, f64, f64) {
        let w2 = self.omega * self.omega;
        (self.gain * w2, -w2, -2.0 * self.damping * self.omega)
    }

    /// Steady-state spool signal for a constant command (V).
    pub fn steady_state(&self, u: f64) -> f64 {
        self.gain * u
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_state_and_partials() {
        let s = ProportionalSpool {
            gain: 0.99,
            omega: 331.0,
            damping: 0.62,
        };
        let us = s.steady_state(5.0);
        assert!(s.acceleration(5.0, us, 0.0).abs() < 1e-9);
        let (du, dus, ddus) = s.acceleration_partials();
        let a0 = s.acceleration(1.0, 2.0, 3.0);
        assert!((s.acceleration(2.0, 2.0, 3.0) - a0 - du).abs() < 1e-6);
        assert!((s.acceleration(1.0, 3.0, 3.0) - a0 - dus).abs() < 1e-6);
        assert!((s.acceleration(1.0, 2.0, 4.0) - a0 - ddus).abs() < 1e-6);
    }
}
