//! FourBar: its model and table are [`four_bar_circuit::FourBar`] (`circuits/four-bar-circuit/MODEL.md`);
//! this crate exports it as an FMU.

fmu_core::export_fmu!(four_bar_circuit::FourBar);
