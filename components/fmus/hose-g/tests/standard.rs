//! The standard tests every FMU crate runs (fmu_core::standard_tests!):
//! documentation, odd values, coarse explicit steps, the Jacobian against
//! central differences, no allocation in doStep.

fmu_core::standard_tests!(hose_line::HoseG, load = [], steps = 3);
