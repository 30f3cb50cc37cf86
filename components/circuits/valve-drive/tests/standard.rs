//! The standard tests of the circuits this library exports as FMUs
//! (`fmu_core::standard_tests!`, a module each): the documentation page,
//! odd values, coarse explicit steps, the Jacobian against central
//! differences, no allocation in `doStep`.

fmu_core::standard_tests! {
    sliding_mass: valve_drive::SlidingMass, load = [("F", 1e4)], steps = 5;
    valve_actuator: valve_drive::ValveActuator, load = [("U", 5.0), ("v", 0.1)], steps = 5;
    valve_cylinder: valve_drive::ValveCylinder, load = [("U", 5.0)], steps = 5;
}
