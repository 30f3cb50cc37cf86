//! `doStep` and the input setters allocate nothing on the heap, with every
//! integrator, with the physics and with each trained model of pv.

fmu_core::no_allocation_test!(
    valve_cylinder::ValveCylinder,
    resources = &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../valve-drive/resources"),
    configurations = [&[("pv_surrogate", 1.0)], &[("pv_surrogate", 2.0)]]
);
