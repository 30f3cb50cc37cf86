//! OrificeChain: its model and table are [`orifice_circuit::OrificeChain`] (`circuits/orifice-circuit/MODEL.md`);
//! this crate exports it as an FMU.

fmu_core::export_fmu!(orifice_circuit::OrificeChain);
