//! HoseG: the hydraulic hose of seed 004 in causal form G (model card
//! `hose-line.md`); the model is [`hose_line::HoseModel`].

/// The HoseG model.
pub type HoseG = hose_line::HoseModel<1>;

fmu_core::export_fmu!(HoseG, { hose_line::NX });
