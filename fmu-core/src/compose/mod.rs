//! Circuits assembled from parts with ports.
//!
//! A [`Part`] is an element or a group of elements (a chamber, a valve, a
//! spool, a cylinder, a hose segment, a body with friction and end stops,
//! a linkage): its states, its [`Port`]s (hydraulic, translational,
//! rotational, signal) and its equations with their analytic partial
//! derivatives, its event indicators, its derived coefficients and its
//! initial state. A circuit is a list of parts and the nodes connecting
//! their ports ([`Builder`]); the [`Assembly`] it builds lays out the
//! state vector, checks the causality of every node, and evaluates the
//! rates with the Jacobian of the whole from the parts' partial
//! derivatives, the event indicators, the derived coefficients and the
//! initial state.
//!
//! The same assembly serves a circuit written in Rust (its `configure`
//! builds it from the parameters) and one described in a file and read at
//! run time: parts are trait objects, the layout is computed once when the
//! circuit is built, and an evaluation allocates nothing.

mod assembly;
mod builder;
mod flange;
mod part;
mod plan;
mod port;

pub use assembly::Assembly;
pub use builder::Builder;
pub use flange::{Actuator, ActuatorEval, ActuatorPart, Body, BodyEval, BodyPart};
pub use part::{Dependencies, Output, Part, PartClamp, Partials, StateSpec};
pub use port::{Causality, Domain, Port};
