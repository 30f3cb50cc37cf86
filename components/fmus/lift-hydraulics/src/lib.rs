//! LiftHydraulics: its model and table are [`lift_circuit::LiftHydraulics`] (`circuits/lift-circuit/MODEL.md`);
//! this crate exports it as an FMU.

fmu_core::export_fmu!(lift_circuit::LiftHydraulics);
