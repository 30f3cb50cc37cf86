//! The reliability suite: a hostile FMI master on the built FMUs (see
//! `fmu_tests::reliability` and `--help`).

fn main() {
    std::process::exit(fmu_tests::reliability::main());
}
