//! The standard tests of the circuits this library exports as FMUs
//! (`fmu_core::standard_tests!`, a module each): the documentation page,
//! odd values, coarse explicit steps, the Jacobian against central
//! differences, no allocation in `doStep`.

fmu_core::standard_tests! {
    four_bar: four_bar_circuit::FourBar, load = [("U_ref", 10.0)], steps = 3;
    four_bar_actuator: four_bar_circuit::FourBarActuator, load = [("U_ref", 10.0), ("s_dot", 0.5)], steps = 3;
    four_bar_mechanism: four_bar_circuit::FourBarMechanism, load = [("F", 2e4)], steps = 3;
    four_bar_twin: four_bar_circuit::FourBarTwin, load = [], steps = 3;
}
