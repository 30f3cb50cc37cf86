//! HoseZ: the hydraulic hose in causal form Z (`hose-line/MODEL.md`); the
//! model and its table are [`hose_line::HoseZ`].

fmu_core::export_fmu!(hose_line::HoseZ);
