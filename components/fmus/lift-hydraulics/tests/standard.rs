//! The standard tests every FMU crate runs (fmu_core::standard_tests!):
//! documentation, odd values, coarse explicit steps, the Jacobian against
//! central differences, no allocation in doStep.

fmu_core::standard_tests!(
    lift_circuit::LiftHydraulics,
    load = [("u", 1.0), ("v_p", 1.0)],
    steps = 5
);
