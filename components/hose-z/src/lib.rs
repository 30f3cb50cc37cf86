//! HoseZ: the hydraulic hose of seed 004 in causal form Z (model card
//! `hose-line.md`); the model is [`hose_line::HoseModel`].

/// The HoseZ model.
pub type HoseZ = hose_line::HoseModel<3>;

fmu_core::export_fmu!(HoseZ, { hose_line::NX });
