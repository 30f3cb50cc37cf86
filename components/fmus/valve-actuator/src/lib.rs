//! ValveActuator: its model and table are [`valve_drive::ValveActuator`] (`circuits/valve-drive/MODEL.md`);
//! this crate exports it as an FMU.

fmu_core::export_fmu!(valve_drive::ValveActuator);
