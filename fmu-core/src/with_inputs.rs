//! A model with its inputs held over a communication step, as the
//! integrators see it: the [`Model`] as an [`OdeSystem`].

use crate::model::{Clamp, Model};
use crate::solver::OdeSystem;
use nalgebra::{SMatrix, SVector};

/// A model with its inputs held: the ODE system the integrators advance
/// through one communication step.
pub struct WithInputs<'a, M: Model<N>, const N: usize> {
    /// The model.
    pub model: &'a M,
    /// Its inputs, constant over the step.
    pub inputs: &'a M::Inputs,
    /// How many event indicators the model has
    /// (`M::event_indicators().len()`).
    pub event_indicator_count: usize,
}

impl<M: Model<N>, const N: usize> OdeSystem<N> for WithInputs<'_, M, N> {
    fn rates(&self, x: &SVector<f64, N>) -> SVector<f64, N> {
        self.model.rates(self.inputs, x)
    }

    fn rates_and_jacobian(
        &self,
        x: &SVector<f64, N>,
        j: &mut SMatrix<f64, N, N>,
    ) -> (SVector<f64, N>, bool) {
        self.model.rates_and_jacobian(self.inputs, x, j)
    }

    fn nominal(&self) -> SVector<f64, N> {
        self.model.nominal()
    }

    fn active_states(&self) -> usize {
        self.model.active_states()
    }

    fn clamps(&self) -> &[Clamp] {
        self.model.clamps()
    }

    fn event_indicator_count(&self) -> usize {
        self.event_indicator_count
    }

    fn event_indicator_values(&self, x: &SVector<f64, N>, z: &mut [f64]) {
        self.model.event_indicator_values(self.inputs, x, z);
    }

    fn sample_period(&self) -> Option<f64> {
        self.model.sample_period()
    }

    fn sample(&self, x: &mut SVector<f64, N>) {
        self.model.sample(self.inputs, x);
    }

    fn sampled_only(&self) -> bool {
        self.model.sampled_only()
    }
}
