//! `doStep` and the input setters allocate nothing on the heap, with every
//! integrator.

fmu_core::no_allocation_test!(valve_actuator::ValveActuator);
