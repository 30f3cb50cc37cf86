//! The model description of a hydraulic-circuit FMU: one variable table and
//! its metadata ([`ModelDescription`]), written as FMI 2.0 and FMI 3.0
//! `modelDescription.xml`, read back for tests and tools, and documented as an
//! HTML page.

pub mod model;

pub use model::*;
