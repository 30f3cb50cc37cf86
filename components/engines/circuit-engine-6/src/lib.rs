//! The engine for described circuits of up to 6 states: the FMI C API of
//! [`circuit_file::engine::Engine`], whose table `build-fmu --circuit`
//! installs from a description file (see that module).

fmu_core::export_read_fmu!(circuit_file::engine::Engine<6>);
