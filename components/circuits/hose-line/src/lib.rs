//! A hydraulic hose (`MODEL.md` beside this crate; Grossschmidt and Harf
//! 2017) as `n` lumped segments in series, in the four causal forms a
//! co-simulation may need:
//!
//! | form | inputs | outputs | element order per segment |
//! |---|---|---|---|
//! | H | `Q1`, `p2` | `p1`, `Q2` | C - R - L |
//! | G | `p1`, `Q2` | `Q1`, `p2` | L - R - C |
//! | Y | `p1`, `p2` | `Q1`, `Q2` | L/2 - R/2 - C - R/2 - L/2 |
//! | Z | `Q1`, `Q2` | `p1`, `p2` | C/2 - R/2 - L - R/2 - C/2 |
//!
//! Every form is one [`network::Line`]: compliance nodes (pressures, one
//! block of the state vector) and inertance-resistance branches (flows, the
//! next block), built from the same segment code
//! ([`hydraulics::hose::HoseSegment`]), with one right-hand side and one
//! analytic Jacobian for all forms. Each form has its own table
//! ([`forms`]); the segment count `n` is a structural parameter, the state
//! vector reserves room for the largest `n` and the integrator works on the
//! states in use only.

pub mod forms;
pub mod model;
pub mod network;
pub mod params;

pub use model::{Form, HoseG, HoseH, HoseModel, HoseY, HoseZ, MAX_SEGMENTS, NX};
pub use network::{Boundary, Column, Line, NO_PARTIALS};
pub use params::HoseParams;
