//! `doStep` and the input setter allocate nothing on the heap, with every
//! integrator.

fmu_core::no_allocation_test!(sliding_mass::SlidingMass);
