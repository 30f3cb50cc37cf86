//! Hydraulic elements the circuit FMUs are assembled from.
//!
//! SI units throughout (Pa, m3/s, m3, m, kg/m3). Every element is plain data
//! with pure functions for its law and the law's derivatives, so that circuit
//! models can write their analytic Jacobians from the same pieces. Nothing
//! here knows about FMI or about the element's neighbours.

pub mod bspline;
pub mod compensator;
pub mod curve_valve;
pub mod cylinder;
pub mod directional_valve;
pub mod end_stop;
pub mod fluid;
pub mod friction;
pub mod hose;
pub mod orifice;
pub mod relief;
pub mod spool;
pub mod trained_volume;
pub mod volume;

pub use bspline::{BSplineCurve, CurvePoint};
pub use compensator::{PressureCompensator, shuttle};
pub use curve_valve::{CurveValve, CurveValveFlows, EdgeFlow};
pub use cylinder::Cylinder;
pub use directional_valve::{DirectionalValve, Opening, ValveFlows};
pub use end_stop::EndStops;
pub use fluid::{BulkModulus, LogBase};
pub use friction::{BrownMcPhee, LuGre, RegularisedCoulomb};
pub use orifice::Orifice;
pub use relief::ReliefValve;
pub use spool::ProportionalSpool;
pub use volume::Volume;
