//! The pressure-compensated valve drive of Ustinov et al. (2022), circuit
//! 2 (`MODEL.md` beside this crate), shared by the `ValveCylinder`,
//! `ValveActuator` and `SlidingMass` FMUs: the hydraulic assembly
//! ([`ValveDrive`], V1-V5 and V7) and the sliding carriage with LuGre
//! friction and end stops ([`Carriage`], V6), their state groups, and
//! their parameter groups, declared once for the three tables.

pub mod carriage;
pub mod drive;
pub mod params;

pub use carriage::{Carriage, CarriageEval, CarriageState, CarriageStates};
pub use drive::{DriveEval, DriveState, DriveStates, SmallVolume, ValveDrive};
pub use params::{CarriageParams, DriveParams};
