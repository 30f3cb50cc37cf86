//! The FMI layer of every hydraulic-circuit FMU of this project.
//!
//! A circuit implements [`Model`] (its variable table, equations, analytic
//! Jacobian and outputs) and writes one line, [`export_fmu!`], to get every
//! FMI 2.0 and FMI 3.0 Co-Simulation function from the same library. This
//! crate holds the state machine, argument checks, logging through the
//! master's callback, FMU state snapshots and serialization, directional
//! derivatives and the integrators ([`solver`]). It knows nothing of
//! hydraulics.

pub mod export;
pub mod ffi;
pub mod fmi2;
pub mod fmi3;
pub mod instance;
pub mod linalg;
pub mod logging;
pub mod model;
pub mod solver;
pub mod state;
pub mod status;

pub use instance::{FmiVersion, Instance, Phase, checked_description, default_model};
pub use model::{Known, Model, ValueType, Values, full_description};
pub use model_description;
pub use nalgebra;
pub use solver::{Method, OdeSystem, SolverSettings};
pub use status::Status;
