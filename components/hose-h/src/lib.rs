//! HoseH: the hydraulic hose of seed 004 in causal form H (model card
//! `hose-line.md`); the model is [`hose_line::HoseModel`].

/// The HoseH model.
pub type HoseH = hose_line::HoseModel<0>;

fmu_core::export_fmu!(HoseH, { hose_line::NX });
