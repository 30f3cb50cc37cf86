//! HoseH: the hydraulic hose in causal form H (`hose-line/MODEL.md`); the
//! model and its table are [`hose_line::HoseH`].

fmu_core::export_fmu!(hose_line::HoseH);
