//! `doStep` and the input setters allocate nothing on the heap, with every
//! integrator, with the physics, with each trained model of pv and with
//! each whole-actuator model.

/// The FMU's resources folder: the valve drive's trained small volumes and
/// this crate's whole-actuator models, merged as the FMU carries them.
fn resources() -> std::path::PathBuf {
    let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    fmu_core::testing::merged_resources(
        "valve-actuator-no-alloc",
        &[
            crate_dir.join("resources"),
            crate_dir.join("../valve-drive/resources"),
        ],
    )
}

fmu_core::no_allocation_test!(
    valve_actuator::ValveActuator,
    resources = &resources(),
    configurations = [
        &[("pv_surrogate", 1.0)],
        &[("pv_surrogate", 2.0)],
        &[("actuator_surrogate", 1.0)],
        &[("actuator_surrogate", 2.0)]
    ]
);
