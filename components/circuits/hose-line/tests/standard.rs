//! The standard tests of the circuits this library exports as FMUs
//! (`fmu_core::standard_tests!`, a module each): the documentation page,
//! odd values, coarse explicit steps, the Jacobian against central
//! differences, no allocation in `doStep`.

fmu_core::standard_tests! {
    hose_g: hose_line::HoseG, load = [], steps = 3;
    hose_h: hose_line::HoseH, load = [], steps = 3;
    hose_y: hose_line::HoseY, load = [], steps = 3;
    hose_z: hose_line::HoseZ, load = [], steps = 3;
}
