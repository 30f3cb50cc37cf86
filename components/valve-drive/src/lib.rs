//! The pressure-compensated valve drive of seed 000, circuit 2 (model card
//! `valve-cylinder.md`), shared by the `ValveCylinder`, `ValveActuator` and
//! `SlidingMass` FMUs: the hydraulic assembly ([`ValveDrive`], card V1-V5
//! and V7), the sliding carriage with LuGre friction and end stops
//! ([`Carriage`], V6), and their parameter tables.

pub mod carriage;
pub mod doc;
pub mod drive;
pub mod params;

pub use carriage::{Carriage, CarriageEval};
pub use drive::{DriveEval, ValveDrive};
