//! The standard tests of the circuits this library exports as FMUs
//! (`fmu_core::standard_tests!`, a module each): the documentation page,
//! odd values, coarse explicit steps, the Jacobian against central
//! differences, no allocation in `doStep`.

fmu_core::standard_tests! {
    orifice_chain: orifice_circuit::OrificeChain, load = [], steps = 5;
}
