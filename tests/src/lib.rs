//! Shared helpers of the end-to-end FMU tests: where the workspace, the built
//! FMUs and the official FMI headers are. FMU archives are unpacked and
//! their binaries loaded by the one importer, `validation::fmi` (re-exported
//! here as [`extract_fmu`] and [`FmiVersion`]).
//!
//! The validation scenarios, their traces and the error metrics are read
//! and computed by `validation::harness::scenario` (the one Rust reader of the
//! scenario layout), which the tests use directly.
//!
//! The tests themselves live in `tests/tests/`; this library only finds and
//! reads things, it never builds an FMU or decides a verdict.

pub mod reliability;

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The command that builds every FMU into `dist/`.
pub const BUILD_COMMAND: &str = "cargo run --release -p build-fmu";

/// The workspace root (the folder whose `Cargo.toml` has `[workspace]`).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml"))
                .map(|text| text.contains("[workspace]"))
                .unwrap_or(false)
        })
        .unwrap_or(here)
        .to_path_buf()
}

pub use validation::fmi::FmiVersion;

/// Where the packaging tool puts a model's FMU: `dist/<fmiN>/<Model>.fmu`.
pub fn dist_fmu_path(version: FmiVersion, model: &str) -> PathBuf {
    workspace_root()
        .join("dist")
        .join(version.dist_folder())
        .join(format!("{model}.fmu"))
}

/// The FMUs in `<dist>/<fmi2|fmi3>/`, as (model identifier, path), sorted
/// by path; an error that says how to build them when the folder is missing.
pub fn dist_fmus(dist: &Path, version: FmiVersion) -> Result<Vec<(String, PathBuf)>> {
    let folder = dist.join(version.dist_folder());
    let mut fmus: Vec<PathBuf> = std::fs::read_dir(&folder)
        .with_context(|| {
            format!(
                "no FMUs in {} (run `{BUILD_COMMAND}` first)",
                folder.display()
            )
        })?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "fmu"))
        .collect();
    fmus.sort();
    Ok(fmus
        .into_iter()
        .map(|p| {
            let model = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            (model, p)
        })
        .collect())
}

/// The built FMU of `model`, or a panic that says how to build it. The
/// end-to-end tests must never pass silently without an FMU to test.
pub fn require_fmu(version: FmiVersion, model: &str) -> PathBuf {
    let path = dist_fmu_path(version, model);
    assert!(
        path.is_file(),
        "{version} FMU not found at {}: run `{BUILD_COMMAND}` first (from the workspace root)",
        path.display()
    );
    path
}

/// The folder holding the official FMI C headers (`fmi2Functions.h`,
/// `fmi3Functions.h` and their type headers): the `c-code` folder of the
/// FMPy package in the project's venv `target/venv`. It is asked from the
/// venv's Python first, then searched for under `target/venv/lib*/`.
pub fn official_header_dir() -> Result<PathBuf> {
    let root = workspace_root();
    let venv = root.join("target").join("venv");
    let has_headers = |dir: &Path| {
        [
            "fmi2Functions.h",
            "fmi2FunctionTypes.h",
            "fmi3Functions.h",
            "fmi3FunctionTypes.h",
        ]
        .iter()
        .all(|h| dir.join(h).is_file())
    };
    let python = venv.join("bin").join("python");
    if let Ok(out) = Command::new(&python)
        .args([
            "-c",
            "import fmpy, os; print(os.path.dirname(fmpy.__file__))",
        ])
        .output()
        && out.status.success()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("c-code");
        if has_headers(&dir) {
            return Ok(dir);
        }
    }
    // Fallback: target/venv/lib*/python*/site-packages/fmpy/c-code.
    for lib in read_dirs(&venv).filter(|p| file_name_starts(p, "lib")) {
        for py in read_dirs(&lib).filter(|p| file_name_starts(p, "python")) {
            let dir = py.join("site-packages").join("fmpy").join("c-code");
            if has_headers(&dir) {
                return Ok(dir);
            }
        }
    }
    bail!(
        "the official FMI headers were not found: expected FMPy's c-code folder (with \
         fmi2Functions.h and fmi3Functions.h) in the venv {} (create it and `pip install fmpy` \
         there); the headers are read from that package at test time, never copied into the repo",
        venv.display()
    )
}

fn read_dirs(dir: &Path) -> impl Iterator<Item = PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
}

fn file_name_starts(path: &Path, prefix: &str) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(prefix))
}

/// The C function names the official header `<prefix>FunctionTypes.h`
/// declares a function type for: every `typedef ... fmiNXxxTYPE(` gives
/// `fmiNXxx`. Sorted, without duplicates.
pub fn official_function_names(header_dir: &Path, version: FmiVersion) -> Result<Vec<String>> {
    let prefix = version.prefix();
    let path = header_dir.join(format!("{prefix}FunctionTypes.h"));
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let text = strip_c_comments(&text);
    let mut names: Vec<String> = Vec::new();
    // Each statement `typedef <return type> <prefix>XxxTYPE(<params>);`.
    // (A statement may begin with preprocessor lines, so it is read from its
    // last `typedef` on.)
    for statement in text.split(';') {
        let Some(at) = statement.rfind("typedef") else {
            continue;
        };
        let statement = &statement[at..];
        let Some(open) = statement.find('(') else {
            continue;
        };
        let head = statement[..open].trim_end();
        let ident_start = head
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let ident = &head[ident_start..];
        if let Some(name) = ident.strip_suffix("TYPE")
            && name.starts_with(prefix)
            && name.len() > prefix.len()
        {
            names.push(name.to_string());
        }
    }
    names.sort();
    names.dedup();
    if names.is_empty() {
        bail!(
            "{}: no `{prefix}...TYPE` function types found",
            path.display()
        );
    }
    Ok(names)
}

/// Removes `/* ... */` and `// ...` comments from C source.
pub fn strip_c_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    loop {
        let block = rest.find("/*");
        let line = rest.find("//");
        match (block, line) {
            (Some(b), l) if l.is_none_or(|l| b < l) => {
                out.push_str(&rest[..b]);
                out.push(' ');
                rest = rest[b + 2..]
                    .find("*/")
                    .map_or("", |e| &rest[b + 2 + e + 2..]);
            }
            (_, Some(l)) => {
                out.push_str(&rest[..l]);
                rest = rest[l..].find('\n').map_or("", |e| &rest[l + e..]);
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

pub use validation::fmi::unpack::unpack as extract_fmu;

/// A scratch folder for one test under `target/fmu-tests/<name>`, emptied
/// first.
pub fn scratch_dir(name: &str) -> Result<PathBuf> {
    let dir = workspace_root().join("target").join("fmu-tests").join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("cannot empty {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "run `cargo run --release -p build-fmu` first")]
    fn a_missing_fmu_fails_with_the_build_command() {
        require_fmu(FmiVersion::Fmi3, "NoSuchModelEverBuilt");
    }

    #[test]
    fn comments_are_stripped() {
        let c = "a /* b\n c */ d // e\nf /* g */";
        assert_eq!(strip_c_comments(c), "a   d \nf  ");
    }
}
