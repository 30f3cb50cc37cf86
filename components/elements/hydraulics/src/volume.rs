//! A lumped fluid volume (lumped fluid theory, E5 of the orifice chain).

use crate::fluid::BulkModulus;

/// A rigid lumped volume whose pressure follows
/// `dp/dt = B(p) / V * (sum of inflows)` (E5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Volume {
    /// Volume, m3.
    pub volume: f64,
}

impl Volume {
    /// Pressure rate (Pa/s) for net inflow `q_net` (m3/s) at pressure `p` (Pa).
    pub fn pressure_rate(&self, fluid: &BulkModulus, p: f64, q_net: f64) -> f64 {
        fluid.value(p) / self.volume * q_net
    }

    /// Partial derivative of the pressure rate with respect to the pressure
    /// through the bulk modulus only (1/s), for net inflow `q_net`.
    pub fn rate_slope_pressure(&self, fluid: &BulkModulus, p: f64, q_net: f64) -> f64 {
        fluid.derivative(p) / self.volume * q_net
    }

    /// Partial derivative of the pressure rate with respect to the net
    /// inflow (Pa/m3), i.e. the hydraulic stiffness B(p)/V.
    pub fn stiffness(&self, fluid: &BulkModulus, p: f64) -> f64 {
        fluid.value(p) / self.volume
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pressure_rate_is_bulk_modulus_over_volume_times_flow() {
        let fluid = BulkModulus::reference_oil();
        let v = Volume { volume: 1e-5 };
        let p = 3e6;
        let q = 2e-5;
        assert_eq!(v.pressure_rate(&fluid, p, q), fluid.value(p) / 1e-5 * q);
        assert_eq!(v.stiffness(&fluid, p) * q, v.pressure_rate(&fluid, p, q));
        let h = 10.0;
        let fd =
            (v.pressure_rate(&fluid, p + h, q) - v.pressure_rate(&fluid, p - h, q)) / (2.0 * h);
        assert!((fd - v.rate_slope_pressure(&fluid, p, q)).abs() < 1e-6 * fd.abs());
    }
}
