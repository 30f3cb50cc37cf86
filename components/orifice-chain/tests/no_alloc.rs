//! `doStep` and the input setters allocate nothing on the heap, with every
//! integrator, with the physics and with each trained model of p2.

fmu_core::no_allocation_test!(
    orifice_chain::OrificeChain,
    resources = &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("resources"),
    configurations = [&[("p2_surrogate", 1.0)], &[("p2_surrogate", 2.0)]]
);
