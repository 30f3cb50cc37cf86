//! LiftActuator: its model and table are [`lift_circuit::LiftActuator`] (`circuits/lift-circuit/MODEL.md`);
//! this crate exports it as an FMU.

fmu_core::export_fmu!(lift_circuit::LiftActuator);
