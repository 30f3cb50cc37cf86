//! Planar rigid-body mechanisms with closed loops, for circuits whose
//! actuators move linkages (FourBar `MODEL.md` M1-M6).
//!
//! A mechanism is a table: bodies (mass and inertia about the centre of
//! mass), revolute joints between points of bodies or of the ground, and the
//! body angles chosen as independent. Each body's pose is `(x, y, phi)` of
//! its centre of mass, so the coordinate vector the caller sees holds
//! `NQ = 3 x bodies` values, and the `D` independent coordinates `z` fix
//! them. Inside, the crate works in joint coordinates (the double-step
//! semi-recursive idea of Khadim et al. (2021), with the bodies' absolute
//! angles as the joint coordinates): the joints form a tree from the
//! ground, each point of the mechanism is a ground point plus one rotated
//! arm per body on its path, and only the joints left out of the tree (one
//! per closed loop) are constraint equations, two each, solved for the
//! dependent angles. For a four-bar that is a 2 x 2 Newton step instead of
//! an 8 x 8 one in body coordinates. From the table alone the crate solves
//! the loop closure (Newton, warm-started), the velocity transformation
//! `q' = R(q) z'` with `q'' = R z'' + a0`, its derivatives `dR/dz` (and
//! `d2R/dz2` for one degree of freedom), and the equations of motion
//! projected on the independent coordinates, `R^T M R z'' = R^T (Q - M a0)`.
//! A second closed loop (a boom lifted by two cylinders) or an open chain
//! is a new table, not new code; every body must hang from the ground
//! through the joints, and at most [`mechanism::MAX_DEPENDENT`] / 2 loops
//! are closed.
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
