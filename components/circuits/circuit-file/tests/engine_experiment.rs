//! An engine FMU's default experiment is its description's: the start
//! time, stop time, step and tolerance of `[experiment]` in the model
//! description, and the tolerance as the start value of the solver
//! parameter `rtol` (what the FMU runs at when the master sets no
//! tolerance). In a test binary of its own: an engine library serves one
//! description per process.

use circuit_file::engine::Engine;
use fmu_core::export::ReadTable;
use model_description::VariableType;

#[test]
fn the_descriptions_experiment_is_the_fmus_default_experiment() {
    let path = format!("{}/examples/pump_relief.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("start_time = \"0 s\"", "start_time = \"0.5 s\"")
        .replace("tolerance = 1e-6", "tolerance = 1e-8");
    assert!(text.contains("tolerance = 1e-8") && text.contains("0.5 s"));
    Engine::<8>::install(&text).unwrap();
    let md = fmu_core::full_description::<Engine<8>, 8>();
    let e = md.default_experiment;
    assert_eq!(
        (e.start_time, e.stop_time, e.step_size, e.tolerance),
        (0.5, 10.0, 1e-3, 1e-8)
    );
    let rtol = md
        .variables
        .iter()
        .find(|v| v.name == "rtol")
        .expect("the solver parameter rtol");
    let VariableType::Real { start, .. } = &rtol.kind else {
        panic!("rtol is not real: {:?}", rtol.kind)
    };
    assert_eq!(*start, Some(1e-8));

    // The FMU's instance starts at that rtol.
    let dir = std::env::temp_dir().join(format!("engine-experiment-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(circuit_file::engine::DESCRIPTION_FILE), &text).unwrap();
    std::fs::write(
        dir.join(circuit_file::engine::DIGEST_FILE),
        circuit_file::engine::digest(&text),
    )
    .unwrap();
    let mut master = fmu_core::testing::TestMaster::<Engine<8>, 8>::with_resources(&dir);
    master.enter_initialization().unwrap();
    assert_eq!(master.get("rtol").unwrap(), 1e-8);
    std::fs::remove_dir_all(&dir).unwrap();
}
