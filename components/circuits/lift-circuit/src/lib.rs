//! The valve-controlled lifting cylinder of Strashnov et al. (2023)
//! (`MODEL.md` beside this crate), shared by the `LiftActuator` and
//! `LiftHydraulics` FMUs: the hydraulics ([`LiftDrive`], L1-L5: spool,
//! overlapped 4/3 valve, two chambers) and the loaded piston ([`Piston`],
//! L6), their state blocks and their parameter groups, declared once for
//! both tables.

pub mod drive;
pub mod lift_actuator;
pub mod lift_hydraulics;
pub mod params;
pub mod parts;
pub mod piston;

pub use drive::{LiftDrive, LiftDriveEval, LiftDriveState, LiftDriveStates};
pub use lift_actuator::LiftActuator;
pub use lift_hydraulics::LiftHydraulics;
pub use params::{CylinderParams, PistonParams, ValveParams};
pub use piston::{Piston, PistonEval, PistonState, PistonStates};
