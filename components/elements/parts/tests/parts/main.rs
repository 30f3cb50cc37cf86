//! The parts in small circuits built with the Builder: every part's
//! partial derivatives against central differences of the assembled rates
//! (`jacobians`), circuits of several parts against their analytic steady
//! states (`physics`), and the causality the ports declare (`causality`).

mod across_states;
mod causality;
mod common;
mod hose;
mod jacobians;
mod physics;
