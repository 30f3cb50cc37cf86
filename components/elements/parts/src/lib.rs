//! The library of parts a circuit described in a file is assembled from.
//!
//! Each part is a [`fmu_core::compose::Part`] built from SI parameters by
//! `new(...) -> Result<Self, String>` (an error names the parameter, its
//! value and its unit), with the law of an element of the `hydraulics` or
//! `mechanics` crates, its analytic partial derivatives, the dependencies
//! of each value it computes, its event indicators where the law switches
//! and its initial state. A part never knows its neighbours: its ports are
//! named by what flows through them, and the
//! [`fmu_core::compose::Builder`] connects them into nodes.
//!
//! Conventions (those of [`fmu_core::compose`]): pressures in Pa (gauge),
//! flows in m3/s, positions in m, angles in rad; a through value (flow,
//! force, torque) counts positive *into* the part at its port. A part that
//! sets a node's pressure (motion) is a volume (body): [`Tank`],
//! [`PressureSource`], [`Chamber`], [`Accumulator`], [`ChamberCylinder`]
//! (the volume of its two chambers); [`Inertia`]; [`Mass`], [`LuGreMass`];
//! a [`Hose`] at the ends where its form sets the pressure.
//! The others set the flows (forces, torques) from the pressures and
//! motions they are given: [`Orifice`], [`ReliefValve`], [`CheckValve`],
//! [`CounterbalanceValve`], [`ConstantFlowPump`],
//! [`FixedDisplacementPump`], [`FixedDisplacementMotor`], [`Cylinder`],
//! [`DirectionalValve`], [`PressureCompensator`]. The [`Spool`] sets a signal from its states.
//! Every node needs exactly one part (or FMU input) that sets its across
//! values: two valves meet in a chamber.
//!
//! | part | ports (causality) | states |
//! |------|-------------------|--------|
//! | [`Tank`] | `T` (pressure) | |
//! | [`PressureSource`] | `P` (pressure) | |
//! | [`Orifice`] | `A`, `B` (flow) | |
//! | [`Chamber`] | `A` (pressure) | `p` |
//! | [`ReliefValve`] | `P`, `T` (flow) | |
//! | [`CheckValve`] | `A`, `B` (flow) | |
//! | [`CounterbalanceValve`] | `load`, `out`, `pilot` (flow) | |
//! | [`ConstantFlowPump`] | `P`, `T` (flow) | |
//! | [`FixedDisplacementPump`] | `P`, `T` (flow), `shaft` (torque) | |
//! | [`FixedDisplacementMotor`] | `A`, `B` (flow), `shaft` (torque) | |
//! | [`Inertia`] | `shaft` (angle, speed) | `phi`, `w` |
//! | [`Accumulator`] | `A` (pressure) | `p` |
//! | [`Cylinder`] | `A`, `B` (flow), `rod` (force) | |
//! | [`ChamberCylinder`] | `A`, `B` (pressure), `rod` (force) | `p_A`, `p_B` |
//! | [`DirectionalValve`] | `P`, `A`, `B`, `T` (flow), `Us` (signal in) | |
//! | [`Spool`] | `U` (signal in), `Us` (signal out) | `Us`, `dUs` |
//! | [`Mass`] | `rod` (position, velocity) | `s`, `v` |
//! | [`LuGreMass`] | `rod` (position, velocity) | `s`, `v`, `z` |
//! | [`PressureCompensator`] | `P`, `A`, `LA`, `LB` (flow) | `K` |
//! | [`Hose`] (forms H, G, Y, Z) | `A`, `B` (H: pressure, flow; G: flow, pressure; Y: flow, flow; Z: pressure, pressure) | `p1`.., `q1`.. |

mod accumulator;
mod chamber;
mod chamber_cylinder;
mod check;
mod check_valve;
mod compensator;
mod constant_flow_pump;
mod counterbalance_valve;
mod cylinder;
mod directional_valve;
mod hose;
mod inertia;
mod lugre_mass;
mod mass;
mod motor;
mod orifice;
mod pressure_source;
mod pump;
mod relief_valve;
mod spool;
mod tank;

pub use accumulator::Accumulator;
pub use chamber::Chamber;
pub use chamber_cylinder::ChamberCylinder;
pub use check_valve::CheckValve;
pub use compensator::PressureCompensator;
pub use constant_flow_pump::ConstantFlowPump;
pub use counterbalance_valve::CounterbalanceValve;
pub use cylinder::Cylinder;
pub use directional_valve::DirectionalValve;
pub use hose::{Hose, HoseForm, MAX_SEGMENTS as HOSE_MAX_SEGMENTS};
pub use inertia::Inertia;
pub use lugre_mass::LuGreMass;
pub use mass::Mass;
pub use motor::FixedDisplacementMotor;
pub use orifice::Orifice;
pub use pressure_source::PressureSource;
pub use pump::FixedDisplacementPump;
pub use relief_valve::ReliefValve;
pub use spool::Spool;
pub use tank::Tank;
