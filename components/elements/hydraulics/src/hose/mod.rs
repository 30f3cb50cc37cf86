//! Hydraulic hose as n lumped segments (the hose, Grossschmidt and Harf (2017)).
//!
//! One segment of length `l = L_hose / n` has a compliance C (oil, entrained
//! air and the radially deforming wall), a flow resistance
//! `R = kr (RL + RT |Q|)` and an inertance L, all functions of the segment's
//! mean pressure `p_m` (the mean of its end pressures). The pieces:
//!
//! - [`fluid`]: viscosity, compression and density of the oil, air volume
//!   and air compliance (H3, and C_A of H4);
//! - [`wall`]: wall stiffness, quasi-static wall deformation and the
//!   saturated viscous hysteresis (H1, H2);
//! - [`compliance`]: the segment compliance C and dC/dp_m (H4);
//! - [`resistance`]: RL, RT, L and the n-dependent corrections kL, kC, kr
//!   (H5, H6);
//! - [`segment`]: the model description's parameter set and one assembled segment with the
//!   partials the hose models (H7) need for their Jacobians;
//! - [`ladder`]: analytic checks of the lumped ladder (wave speed, quarter
//!   wave, first mode of the undamped n-segment ladder).
//!
//! SI units throughout, except the temperature in degC as the model description states it.

pub mod compliance;
pub mod fluid;
pub mod ladder;
pub mod resistance;
pub mod segment;
pub mod wall;

pub use compliance::{HoseCompliance, initial_air_volume};
pub use fluid::{AirVolume, FluidProperties, HoseFluid, hlp_compressibility};
pub use ladder::{
    ladder_wave_speed, lumped_ladder_first_mode, lumped_resonance, quarter_wave_frequency,
};
pub use resistance::{Corrections, HoseResistance, LossCoefficients};
pub use segment::{HoseParameters, HoseSegment, SegmentState};
pub use wall::{
    HoseWall, Hysteresis, HystereticDeformation, WallDeformation, WallSlope, WallStiffness,
};
