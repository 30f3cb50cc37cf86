//! HoseG: the hydraulic hose in causal form G (`hose-line/MODEL.md`); the
//! model and its table are [`hose_line::HoseG`].

fmu_core::export_fmu!(hose_line::HoseG);
