//! Planar rigid-body mechanisms with closed loops, for circuits whose
//! actuators move linkages (FourBar `MODEL.md` M1-M6).
//!
//! A mechanism is a table: bodies (mass and inertia about the centre of
//! mass), revolute joints between points of bodies or of the ground, and the
//! coordinates chosen as independent. Each body's pose is `(x, y, phi)` of
//! its centre of mass, so the coordinate vector holds `NQ = 3 x bodies`
//! values; the joints give `NQ - D` constraint equations `Phi(q) = 0` and
//! the `D` independent coordinates `z` fix the rest. From that table alone
//! this crate solves the loop closure (Newton, warm-started), the velocity
//! transformation `q' = R(q) z'` with `q'' = R z'' + a0`, its derivative
//! `dR/dz`, and the equations of motion projected on the independent
//! coordinates, `R^T M R z'' = R^T (Q - M a0)` (the semi-recursive
//! formulation of Khadim et al. (2021) reduces to this for a single loop). A
//! second closed loop — a boom lifted by two cylinders, a crane — is a new
//! table, not new code.
//!
//! A shaft's rotating load (inertia, viscous damping, regularised dry
//! friction and a load torque, driven by a hydraulic motor's torque) is the
//! [`rotational`] element.
//!
//! SI units (m, kg, rad, N). Fixed-size numerics: nothing in the evaluation
//! allocates.

pub mod mechanism;
pub mod rotational;

pub use mechanism::{Anchor, Body, Continuation, Kinematics, Mechanism, Motion, Revolute};
pub use rotational::{RotationalLoad, RotationalRate};
