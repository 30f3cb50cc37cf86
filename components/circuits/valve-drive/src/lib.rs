//! The pressure-compensated valve drive of Ustinov et al. (2022), circuit
//! 2 (`MODEL.md` beside this crate), shared by the `ValveCylinder`,
//! `ValveActuator` and `SlidingMass` FMUs: the hydraulic assembly
//! ([`ValveDrive`], V1-V5 and V7) and the sliding carriage with LuGre
//! friction and end stops ([`Carriage`], V6), their state groups, and
//! their parameter groups, declared once for the three tables.

pub mod carriage;
pub mod drive;
pub mod params;
pub mod parts;
pub mod sliding_mass;
pub mod trained_actuator;
pub mod valve_actuator;
pub mod valve_cylinder;

pub use carriage::{Carriage, CarriageEval, CarriageState, CarriageStates};
pub use drive::{DriveEval, DriveState, DriveStates, SmallVolume, ValveDrive};
pub use params::{CarriageParams, DriveParams};
pub use sliding_mass::SlidingMass;
pub use trained_actuator::{ACTUATOR_SLOT, SpoolStep, TrainedActuator};
pub use valve_actuator::ValveActuator;
pub use valve_cylinder::ValveCylinder;

use fmu_core::model_description::{Side, Terminal};

/// The drive's supply and tank ports (FMI 3 terminals), the same in every
/// FMU that holds the drive: `P` (`ps`, the compensator's inflow `Qv`) and
/// `T` (`pt`, the valve's return flow `QT`), under the icon.
pub fn supply_and_tank_ports() -> Vec<Terminal> {
    vec![
        Terminal::hydraulic_port(
            "P",
            "Supply port: the pump pressure ps and the flow Qv the compensator draws",
            "ps",
            "Qv",
            true,
            Side::Bottom,
        ),
        Terminal::hydraulic_port(
            "T",
            "Tank port: the tank pressure pt and the flow QT the valve returns",
            "pt",
            "QT",
            false,
            Side::Bottom,
        ),
    ]
}
