//! Circuits described in files (`--circuit my_circuit.toml`): read and
//! checked with the same reader the engine uses, each packaged on the
//! smallest engine library that holds its states (see
//! `circuit_file::engine`), with the description in its resources.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// An engine crate: a `cdylib` with `[package.metadata.fluidfmu]
/// engine-capacity = N`.
#[derive(Debug, Clone)]
pub struct Engine {
    /// Cargo package.
    pub package: String,
    /// Library name (file name without prefix and suffix).
    pub lib_name: String,
    /// Most states it holds.
    pub capacity: usize,
}

/// A description file, read and checked.
#[derive(Debug, Clone)]
pub struct Described {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its text, as it goes into the FMU.
    pub text: String,
    /// The model identifier it names.
    pub name: String,
    /// Its number of states.
    pub states: usize,
}

/// The folder of the example descriptions the build command packages
/// along with the written-out circuits (relative to the workspace).
pub const EXAMPLES: &str = "components/circuits/circuit-file/examples";

/// Reads and checks a description; its problems, one per line with file,
/// line and column, as the error.
pub fn read(path: &Path) -> Result<Described> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the description {}", path.display()))?;
    let shown = path.display().to_string();
    match circuit_file::read(&text, &shown) {
        Ok(circuit) => Ok(Described {
            path: path.to_path_buf(),
            name: circuit.name.clone(),
            states: circuit.assembly.state_count(),
            text,
        }),
        Err(problems) => {
            let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
            bail!(
                "{} problem(s) in {shown}; no FMU written:\n  {}",
                lines.len(),
                lines.join("\n  ")
            )
        }
    }
}

/// The example descriptions (`*.toml` in [`EXAMPLES`]), sorted.
pub fn examples(workspace: &Path) -> Result<Vec<PathBuf>> {
    let folder = workspace.join(EXAMPLES);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .with_context(|| format!("listing {}", folder.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// The smallest engine that holds `states` states.
pub fn engine_for<'a>(engines: &'a [Engine], d: &Described) -> Result<&'a Engine> {
    engines
        .iter()
        .filter(|e| e.capacity >= d.states)
        .min_by_key(|e| e.capacity)
        .with_context(|| {
            format!(
                "{}: the circuit has {} states; the largest engine holds {}",
                d.path.display(),
                d.states,
                engines.iter().map(|e| e.capacity).max().unwrap_or(0)
            )
        })
}

/// A copy of the host's engine library of its own for circuit `name`
/// (a loaded library serves one description, and the packaging loads each
/// description's copy), in `scratch`.
pub fn private_copy(lib: &Path, scratch: &Path, name: &str) -> Result<PathBuf> {
    let dir = scratch.join(name);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let copy = dir.join(
        lib.file_name()
            .context("engine library path has no file name")?,
    );
    std::fs::copy(lib, &copy)
        .with_context(|| format!("copying {} to {}", lib.display(), copy.display()))?;
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engines() -> Vec<Engine> {
        [16, 8, 64]
            .into_iter()
            .map(|capacity| Engine {
                package: format!("circuit-engine-{capacity}"),
                lib_name: format!("circuit_engine_{capacity}"),
                capacity,
            })
            .collect()
    }

    fn described(states: usize) -> Described {
        Described {
            path: "x.toml".into(),
            text: String::new(),
            name: "X".into(),
            states,
        }
    }

    #[test]
    fn the_smallest_engine_that_holds_the_states_is_taken() {
        let e = engines();
        assert_eq!(engine_for(&e, &described(3)).unwrap().capacity, 8);
        assert_eq!(engine_for(&e, &described(8)).unwrap().capacity, 8);
        assert_eq!(engine_for(&e, &described(9)).unwrap().capacity, 16);
        let err = engine_for(&e, &described(65)).unwrap_err().to_string();
        assert!(
            err.contains("65 states; the largest engine holds 64"),
            "{err}"
        );
    }

    #[test]
    fn a_bad_description_is_refused_with_its_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.toml");
        std::fs::write(
            &path,
            "[circuit]\nname = \"Bad\"\n\n[parts.p]\ntype = \"Pmup\"\n",
        )
        .unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(err.contains("no FMU written"), "{err}");
        assert!(err.contains("bad.toml:5:"), "{err}");
        assert!(err.contains("Pump") || err.contains("unknown"), "{err}");
    }

    #[test]
    fn the_examples_read() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let files = examples(&root).unwrap();
        assert!(!files.is_empty());
        for f in files {
            let d = read(&f).unwrap();
            assert!(d.states > 0, "{}", f.display());
        }
    }
}
