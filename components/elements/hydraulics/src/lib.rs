//! Hydraulic elements the circuit FMUs are assembled from.
//!
//! SI units throughout (Pa, m3/s, m3, m, kg/m3, rad/s, N m). Every element
//! is plain data with pure functions for its law and the law's derivatives,
//! so that circuit models can write their analytic Jacobians from the same
//! pieces. Nothing here knows about FMI or about the element's neighbours.
//!
//! The elements: [`fluid`] (bulk modulus), [`orifice`], [`volume`],
//! [`trained_volume`], [`relief`], [`check_valve`], [`counterbalance`]
//! (load-holding valve), [`accumulator`] (gas-charged), [`pump_motor`]
//! (fixed-displacement pump and motor), [`compensator`],
//! [`directional_valve`], [`spool`], [`curve_valve`] and [`bspline`],
//! [`cylinder`], [`friction`], [`end_stop`] and the [`hose`] segments.
//! Constructors `new(...) -> Result<Self, String>` of the newer elements
//! name the offending parameter, its value and its unit.

pub mod accumulator;
pub mod bspline;
pub mod check_valve;
pub mod compensator;
pub mod counterbalance;
pub mod curve_valve;
pub mod cylinder;
pub mod directional_valve;
pub mod end_stop;
pub mod fluid;
pub mod friction;
pub mod hose;
pub mod orifice;
pub mod pump_motor;
pub mod relief;
pub mod spool;
pub mod trained_volume;
pub mod volume;

pub mod validate;

pub use accumulator::{AccumulatorRate, GasAccumulator};
pub use bspline::{BSplineCurve, CurvePoint};
pub use check_valve::{CheckValve, smooth_opening};
pub use compensator::{PressureCompensator, shuttle};
pub use counterbalance::{CounterbalanceFlow, CounterbalanceValve};
pub use curve_valve::{CurveValve, CurveValveFlows, EdgeFlow};
pub use cylinder::Cylinder;
pub use directional_valve::{DirectionalValve, Opening, ValveFlows};
pub use end_stop::EndStops;
pub use fluid::{BulkModulus, LogBase};
pub use friction::{BrownMcPhee, LuGre, RegularisedCoulomb};
pub use orifice::Orifice;
pub use pump_motor::{
    FixedDisplacementMotor, FixedDisplacementPump, MachineEval, displacement_per_radian,
};
pub use relief::ReliefValve;
pub use spool::ProportionalSpool;
pub use volume::Volume;
