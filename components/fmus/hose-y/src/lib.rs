//! HoseY: the hydraulic hose in causal form Y (`hose-line/MODEL.md`); the
//! model and its table are [`hose_line::HoseY`].

fmu_core::export_fmu!(hose_line::HoseY);
