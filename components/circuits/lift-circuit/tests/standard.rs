//! The standard tests of the circuits this library exports as FMUs
//! (`fmu_core::standard_tests!`, a module each): the documentation page,
//! odd values, coarse explicit steps, the Jacobian against central
//! differences, no allocation in `doStep`.

fmu_core::standard_tests! {
    lift_actuator: lift_circuit::LiftActuator, load = [("u", 1.0)], steps = 5;
    lift_hydraulics: lift_circuit::LiftHydraulics, load = [("u", 1.0), ("v_p", 1.0)], steps = 5;
}
