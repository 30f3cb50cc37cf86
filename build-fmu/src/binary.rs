//! Checks of a built library before it goes into an FMU, read from the file
//! itself (ELF or PE): it exports every FMI function the host library
//! exports, and a Windows DLL imports only DLLs that every Windows has.

use anyhow::{Context, Result, bail};
use object::{Object, ObjectSymbol};
use std::collections::BTreeSet;

/// The functions a library exports whose names begin with `fmi2`, `fmi3` or
/// `fluidfmu` (the C API and the packaging entry point).
pub fn fmi_exports(bytes: &[u8]) -> Result<BTreeSet<String>> {
    let file = object::File::parse(bytes).context("not an ELF or PE library")?;
    let mut names = BTreeSet::new();
    let exported = file.exports().context("reading the export table")?;
    for export in exported {
        let name = String::from_utf8_lossy(export.name()).into_owned();
        if is_fmi(&name) {
            names.insert(name);
        }
    }
    // ELF objects list their dynamic symbols; some readers give them only
    // through the dynamic symbol table, so take the defined global ones too.
    for symbol in file.dynamic_symbols() {
        if symbol.is_definition()
            && symbol.is_global()
            && let Ok(name) = symbol.name()
            && is_fmi(name)
        {
            names.insert(name.to_owned());
        }
    }
    Ok(names)
}

fn is_fmi(name: &str) -> bool {
    name.starts_with("fmi2") || name.starts_with("fmi3") || name.starts_with("fluidfmu")
}

/// The DLLs a Windows library imports, lower case.
pub fn imported_dlls(bytes: &[u8]) -> Result<BTreeSet<String>> {
    let file = object::File::parse(bytes).context("not an ELF or PE library")?;
    Ok(file
        .imports()
        .context("reading the import table")?
        .iter()
        .map(|i| String::from_utf8_lossy(i.library()).to_ascii_lowercase())
        .filter(|l| !l.is_empty())
        .collect())
}

/// DLLs that are part of every Windows installation since Windows 8 (the
/// `api-ms-win-*` names are API sets that the loader maps onto them).
fn is_system_dll(name: &str) -> bool {
    const SYSTEM: [&str; 9] = [
        "kernel32.dll",
        "ntdll.dll",
        "msvcrt.dll",
        "advapi32.dll",
        "userenv.dll",
        "ws2_32.dll",
        "bcrypt.dll",
        "bcryptprimitives.dll",
        "shell32.dll",
    ];
    SYSTEM.contains(&name) || (name.starts_with("api-ms-win-") && name.ends_with(".dll"))
}

/// Checks a cross-built library against the host's exports: every FMI
/// function the host library exports must be exported, and a Windows DLL
/// must not need a DLL a plain Windows machine lacks (a MinGW runtime DLL
/// such as `libgcc_s_seh-1.dll` would be the typical one).
pub fn check(bytes: &[u8], host_exports: &BTreeSet<String>, windows: bool) -> Result<()> {
    let exports = fmi_exports(bytes)?;
    let missing: Vec<&str> = host_exports
        .difference(&exports)
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        bail!(
            "{} FMI function(s) not exported: {}",
            missing.len(),
            missing.join(", ")
        );
    }
    if windows {
        let foreign: Vec<String> = imported_dlls(bytes)?
            .into_iter()
            .filter(|d| !is_system_dll(d))
            .collect();
        if !foreign.is_empty() {
            bail!(
                "the DLL imports {} which a plain Windows machine does not have",
                foreign.join(", ")
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_dlls_are_told_from_runtime_dlls() {
        assert!(is_system_dll("kernel32.dll"));
        assert!(is_system_dll("api-ms-win-core-synch-l1-2-0.dll"));
        assert!(!is_system_dll("libgcc_s_seh-1.dll"));
        assert!(!is_system_dll("libwinpthread-1.dll"));
    }

    #[test]
    fn garbage_is_not_a_library() {
        let err = fmi_exports(b"not a library at all").unwrap_err();
        assert!(format!("{err:#}").contains("not an ELF or PE"), "{err:#}");
    }

    #[test]
    fn the_running_test_binary_is_read() {
        // This test executable is an ELF (or PE) file of the host: it
        // parses, and it exports no FMI functions.
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let exports = fmi_exports(&me).unwrap();
        assert!(exports.is_empty(), "{exports:?}");
        let missing = check(&me, &BTreeSet::from(["fmi3DoStep".to_string()]), false)
            .unwrap_err()
            .to_string();
        assert!(missing.contains("fmi3DoStep"), "{missing}");
    }
}
