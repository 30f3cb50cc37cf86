//! HoseY: the hydraulic hose of seed 004 in causal form Y (model card
//! `hose-line.md`); the model is [`hose_line::HoseModel`].

/// The HoseY model.
pub type HoseY = hose_line::HoseModel<2>;

fmu_core::export_fmu!(HoseY, { hose_line::NX });
