//! The hydraulically driven four-bar of Khadim et al. (2021) (`MODEL.md`
//! beside this crate), shared by the `FourBar`, `FourBarActuator` and
//! `FourBarMechanism` FMUs: the linkage ([`Linkage`], M1-M7, a table for the
//! mechanics crate), the hydraulics ([`Actuator`], F1-F8) with their
//! state block, and their parameter groups, declared once for the three
//! tables.

pub mod actuator;
pub mod coupled;
pub mod four_bar;
pub mod four_bar_actuator;
pub mod four_bar_mechanism;
pub mod four_bar_twin;
pub mod linkage;
pub mod params;

pub use actuator::{Actuator, ActuatorEval, HydraulicState, HydraulicStates};
pub use four_bar::FourBar;
pub use four_bar_actuator::FourBarActuator;
pub use four_bar_mechanism::FourBarMechanism;
pub use four_bar_twin::FourBarTwin;
pub use linkage::{Dynamics, Linkage, LinkageEval, ThetaDerivatives};
pub use params::{BulkParams, CurveParams, HydraulicParams, LinkageParams, PRESETS};
