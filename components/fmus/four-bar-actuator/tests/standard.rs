//! The standard tests every FMU crate runs (fmu_core::standard_tests!):
//! documentation, odd values, coarse explicit steps, the Jacobian against
//! central differences, no allocation in doStep.

fmu_core::standard_tests!(
    four_bar_circuit::FourBarActuator,
    load = [("U_ref", 10.0), ("s_dot", 0.5)],
    steps = 3
);
