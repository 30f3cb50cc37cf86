//! What the validation harness and every other tool read and show: the
//! scenarios, their reference traces and the error metrics ([`scenario`],
//! in the FMI Cross-Check layout), display units ([`units`]), PNG plots
//! ([`plot`]), and the in-Rust master's Model Exchange integrator
//! ([`me_stepper`]). The in-Rust master of the harness, `fmi-runner`, is in
//! `bin/`; its FMI layer is [`crate::fmi::master`].

pub mod me_stepper;
pub mod plot;
pub mod scenario;
pub mod units;
