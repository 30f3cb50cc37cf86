//! The packaged FMUs as archives: the Linux x86_64 binary sits in the
//! platform folder each standard prescribes (`binaries/linux64/` for FMI
//! 2.0, `binaries/x86_64-linux/` for FMI 3.0) under the model identifier's
//! name, no shared library sits outside the platforms' folders,
//! and it exports every function the official FMI 2.0 and FMI 3.0 headers
//! declare (one binary serves both versions, so both lists are checked in
//! each FMU), as a master's `dlsym` would look them up.

use anyhow::{Context, Result, anyhow, ensure};
use fmu_tests::{
    FmiVersion, extract_fmu, official_function_names, official_header_dir, require_fmu, scratch_dir,
};
use model_description::parse_model_description;
use std::ffi::{CStr, c_char};
use std::path::PathBuf;
use validation::fmi::Binary;

const MODEL: &str = "OrificeChain";

/// Unpacks the FMU of `version` and returns the path of its binary after
/// checking where it sits in the archive.
fn unpacked_binary(version: FmiVersion) -> Result<PathBuf> {
    let fmu = require_fmu(version, MODEL);
    let dir = scratch_dir(&format!("exports-{}", version.prefix()))?;
    let entries = extract_fmu(&fmu, &dir)?;
    let xml = std::fs::read_to_string(dir.join("modelDescription.xml"))
        .with_context(|| format!("{} has no modelDescription.xml", fmu.display()))?;
    let description = parse_model_description(&xml).map_err(|e| anyhow!("{e}"))?;
    ensure!(
        description.fmi_version == version.xml_version(),
        "{}: fmiVersion is {}",
        fmu.display(),
        description.fmi_version
    );
    let expected = format!(
        "binaries/{}/{}.so",
        version.linux_platform_folder(),
        description.model_identifier
    );
    ensure!(
        entries.contains(&expected),
        "{version}: {expected} is not in {}; the archive holds {entries:?}",
        fmu.display()
    );
    // The other platforms' binaries sit in their own folders (Linux
    // aarch64 in `aarch64-linux` for both versions, Windows in `win64` /
    // `x86_64-windows`); a shared library anywhere else is misplaced, such
    // as the other FMI version's x86_64 folder.
    let windows = match version {
        FmiVersion::Fmi2 => "win64",
        FmiVersion::Fmi3 => "x86_64-windows",
    };
    let allowed = [
        expected.clone(),
        format!("binaries/aarch64-linux/{}.so", description.model_identifier),
        format!("binaries/{windows}/{}.dll", description.model_identifier),
    ];
    let misplaced: Vec<&String> = entries
        .iter()
        .filter(|e| (e.ends_with(".so") || e.ends_with(".dll")) && !allowed.contains(e))
        .collect();
    ensure!(
        misplaced.is_empty(),
        "{version}: shared libraries outside the platform folders {allowed:?}: {misplaced:?}"
    );
    Ok(dir.join(expected))
}

/// Every official function name that the binary does not export.
fn missing_exports(binary: &Binary, names: &[String]) -> Vec<String> {
    binary
        .missing(names)
        .into_iter()
        .map(String::from)
        .collect()
}

/// Calls a `const char* f(void)` export (`fmi2GetVersion` and the like).
fn call_string_function(binary: &Binary, name: &str) -> Result<String> {
    // SAFETY: the official headers declare these functions as
    // `const char* f(void)`, returning a static string; the library stays
    // loaded during the call.
    let text = unsafe {
        let f = binary
            .symbol::<unsafe extern "C" fn() -> *const c_char>(name)
            .ok_or_else(|| anyhow!("{name} is not exported"))?;
        let p = f();
        ensure!(!p.is_null(), "{name}() returned NULL");
        CStr::from_ptr(p).to_string_lossy().into_owned()
    };
    Ok(text)
}

fn check_exports(version: FmiVersion) -> Result<()> {
    let binary = Binary::load(&unpacked_binary(version)?)?;
    let headers = official_header_dir()?;
    for api in FmiVersion::ALL {
        let names = official_function_names(&headers, api)?;
        let missing = missing_exports(&binary, &names);
        ensure!(
            missing.is_empty(),
            "the binary of the {version} FMU lacks {} of the {} {api} functions: {missing:?}",
            missing.len(),
            names.len()
        );
    }
    ensure!(call_string_function(&binary, "fmi2GetVersion")? == "2.0");
    ensure!(call_string_function(&binary, "fmi2GetTypesPlatform")? == "default");
    ensure!(call_string_function(&binary, "fmi3GetVersion")? == "3.0");
    Ok(())
}

#[test]
fn fmi2_fmu_binary_is_in_linux64_and_exports_every_fmi_function() -> Result<()> {
    check_exports(FmiVersion::Fmi2)
}

#[test]
fn fmi3_fmu_binary_is_in_x86_64_linux_and_exports_every_fmi_function() -> Result<()> {
    check_exports(FmiVersion::Fmi3)
}
