//! The FMI layer of every hydraulic-circuit FMU of this project.
//!
//! A circuit declares its variables once with [`circuit!`] (the table:
//! value references, both model descriptions, range checks and typed
//! parameter, input and output structs come from it), implements [`Model`]
//! (configure from the typed parameters and the FMU's [`Context`], initial
//! state, rates, optionally the analytic Jacobian, outputs), and writes one
//! line, [`export_fmu!`], to get every FMI 2.0 and FMI 3.0 function
//! (Co-Simulation and Model Exchange) from the same library. This crate
//! holds the state machine, argument checks, logging through the master's callback, FMU state
//! snapshots and serialization, directional derivatives, the named state
//! [`blocks`] elements fill, and the integrators ([`solver`]). It knows
//! nothing of hydraulics.

pub mod blocks;
pub mod compose;
pub mod context;
pub mod description;
pub mod export;
pub mod ffi;
pub mod fmi2;
pub mod fmi3;
pub mod instance;
pub use fixed_linalg as linalg;
pub mod logging;
pub mod model;
pub mod solver;
pub mod solver_params;
pub mod status;
pub mod table;
pub mod testing;
pub mod with_inputs;

pub use blocks::{Block, BlockJacobian, DynBlock, StateGroup};
pub use context::{Context, ResourceFolder};
pub use description::full_description;
pub use instance::{
    FmiVersion, Instance, Interface, Phase, ValueType, Values, checked_description, default_model,
};
pub use model::{Derived, EventIndicator, Known, Model};
pub use model_description;
pub use nalgebra;
pub use solver::{Clamp, Method, OdeSystem, SolverSettings};
pub use status::Status;
pub use table::{Record, Table};
pub use with_inputs::WithInputs;
