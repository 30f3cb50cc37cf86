//! Hydraulic elements the circuit FMUs are assembled from.
//!
//! SI units throughout (Pa, m3/s, m3, m, kg/m3). Every element is plain data
//! with pure functions for its law and the law's derivatives, so that circuit
//! models can write their analytic Jacobians from the same pieces. Nothing
//! here knows about FMI or about the element's neighbours.

pub mod fluid;
pub mod orifice;
pub mod volume;

pub use fluid::{BulkModulus, LogBase};
pub use orifice::Orifice;
pub use volume::Volume;
