//! The FMI layer of every hydraulic-circuit FMU.
pub mod linalg;
pub mod solver;
