//! Small systems with known solutions that the integrators' tests share.

use super::OdeSystem;
use nalgebra::{SMatrix, Vector2};

/// x0' = -x0^2 (x0 = 1/(1+t)), x1' = -x1 (x1 = e^-t); the Jacobian it
/// reports is the true one scaled by `jacobian_scale` (1: exact; others
/// test the W property of the Rosenbrock-W methods).
pub(super) struct Decay {
    pub(super) jacobian_scale: f64,
}

impl Decay {
    /// With its exact Jacobian.
    pub(super) const EXACT: Decay = Decay {
        jacobian_scale: 1.0,
    };
}

impl OdeSystem<2> for Decay {
    fn rates(&self, x: &Vector2<f64>) -> Vector2<f64> {
        Vector2::new(-x[0] * x[0], -x[1])
    }
    fn rates_and_jacobian(
        &self,
        x: &Vector2<f64>,
        j: &mut SMatrix<f64, 2, 2>,
    ) -> (Vector2<f64>, bool) {
        *j = SMatrix::<f64, 2, 2>::new(
            -2.0 * x[0] * self.jacobian_scale,
            0.0,
            0.0,
            -self.jacobian_scale,
        );
        (self.rates(x), true)
    }
}
