//! Packaging one built circuit library into FMI 2.0 and FMI 3.0 archives.

use anyhow::{Context, Result, bail};
use model_description::{parse_model_description, parse_terminals};
use std::ffi::{CStr, c_char};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A platform an FMU can carry a binary for: where the binary goes inside
/// the archive per FMI version, and how to build it with cargo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Platform {
    /// FMI 3 platform tuple, also the name `--platforms` takes.
    pub name: &'static str,
    /// FMI 2 platform folder (`linux64`, `win64`, `darwin64`; FMI 2 names no
    /// folder for Linux aarch64, so it gets its FMI 3 tuple, which FMI 2.0.5
    /// recommends for platforms the standard does not name).
    pub fmi2_folder: &'static str,
    /// FMI 3 platform folder (the tuple).
    pub fmi3_folder: &'static str,
    /// Shared library file name prefix (`lib` on Unix).
    pub lib_prefix: &'static str,
    /// Shared library extension with the dot.
    pub lib_suffix: &'static str,
    /// Rust target triple.
    pub rust_target: &'static str,
    /// The C compiler that links for this platform when cross-building, and
    /// the Debian package that has it.
    pub cross_linker: (&'static str, &'static str),
    /// The binutils `strip` for this platform's object format.
    pub strip: &'static str,
}

/// Every platform build-fmu knows; the host is one of them, the others are
/// cross-built when their Rust target and linker are installed.
pub const PLATFORMS: [Platform; 3] = [
    Platform {
        name: "x86_64-linux",
        fmi2_folder: "linux64",
        fmi3_folder: "x86_64-linux",
        lib_prefix: "lib",
        lib_suffix: ".so",
        rust_target: "x86_64-unknown-linux-gnu",
        cross_linker: ("x86_64-linux-gnu-gcc", "gcc-x86-64-linux-gnu"),
        strip: "x86_64-linux-gnu-strip",
    },
    Platform {
        name: "x86_64-windows",
        fmi2_folder: "win64",
        fmi3_folder: "x86_64-windows",
        lib_prefix: "",
        lib_suffix: ".dll",
        rust_target: "x86_64-pc-windows-gnu",
        cross_linker: ("x86_64-w64-mingw32-gcc", "gcc-mingw-w64-x86-64"),
        strip: "x86_64-w64-mingw32-strip",
    },
    Platform {
        name: "aarch64-linux",
        fmi2_folder: "aarch64-linux",
        fmi3_folder: "aarch64-linux",
        lib_prefix: "lib",
        lib_suffix: ".so",
        rust_target: "aarch64-unknown-linux-gnu",
        cross_linker: ("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu"),
        strip: "aarch64-linux-gnu-strip",
    },
];

impl Platform {
    /// The platform this tool runs on; its library is always built, since
    /// the model description and documentation are read from it.
    pub fn host() -> Result<Self> {
        use std::env::consts::{ARCH, OS};
        let name = format!("{ARCH}-{OS}");
        Self::named(&name).with_context(|| {
            format!(
                "unsupported host platform {name}: build-fmu runs on {}",
                PLATFORMS.map(|p| p.name).join(", ")
            )
        })
    }

    /// The platform with this FMI 3 tuple.
    pub fn named(name: &str) -> Result<Self> {
        PLATFORMS
            .iter()
            .find(|p| p.name == name)
            .copied()
            .with_context(|| {
                format!(
                    "unknown platform '{name}'; known: {}",
                    PLATFORMS.map(|p| p.name).join(", ")
                )
            })
    }

    /// The shared library's file name for a crate's library `lib_name`.
    pub fn library_file(&self, lib_name: &str) -> String {
        format!("{}{lib_name}{}", self.lib_prefix, self.lib_suffix)
    }
}

/// One platform's binary of a circuit, ready to go into the archives.
pub struct Binary {
    /// Its platform.
    pub platform: Platform,
    /// The library's bytes (stripped of debug info unless asked not to).
    pub bytes: Vec<u8>,
}

/// One archive written.
pub struct Written {
    /// "FMI 2.0" or "FMI 3.0".
    pub version: &'static str,
    /// Path of the .fmu.
    pub path: PathBuf,
    /// Size in bytes.
    pub bytes: u64,
    /// Number of files under `resources/`.
    pub resources: usize,
}

const ERROR: i32 = 4;
/// `fluidfmu_artifact` kind of the FMI 3 terminalsAndIcons.xml.
const TERMINALS_XML: i32 = 5;

/// The files under `folder` (recursively, sorted) as `resources/<relative
/// path>` archive entries; none when the folder does not exist.
pub fn resource_entries(folder: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let mut entries = Vec::new();
    if !folder.exists() {
        return Ok(entries);
    }
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let listing =
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
        for entry in listing {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(folder).unwrap_or(&path);
                let name: Vec<String> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                let data =
                    std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
                entries.push((format!("resources/{}", name.join("/")), data));
            }
        }
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(entries)
}

/// The files of several resource folders merged (see [`resource_entries`]);
/// a file name that two folders both have is an error, never a silent
/// choice.
pub fn merged_resource_entries(folders: &[PathBuf]) -> Result<Vec<(String, Vec<u8>)>> {
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    for folder in folders {
        for entry in resource_entries(folder)? {
            if entries.iter().any(|(name, _)| *name == entry.0) {
                bail!(
                    "two resource folders both have {} (the second is {}): rename one",
                    entry.0,
                    folder.display()
                );
            }
            entries.push(entry);
        }
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(entries)
}

/// Loads the host library `lib`, asks it for its artifacts and writes both
/// archives with every platform's binary of `binaries`, and the files of
/// the `resources` folders (the circuit crate's `resources/` folder and
/// the shared ones its Cargo.toml names) under `resources/`.
pub fn package_circuit(
    lib: &Path,
    model_identifier: &str,
    binaries: &[Binary],
    resources: &[PathBuf],
    out: &Path,
) -> Result<Vec<Written>> {
    package(lib, model_identifier, binaries, resources, None, out)
}

/// A description file's circuit on an engine library (see
/// `circuit_file::engine`): `lib` is the host's engine library (a copy
/// of its own, since a loaded library serves one description), into which
/// the description is installed before its artifacts are read; the
/// description and its digest go into the FMU's `resources/`.
pub fn package_described(
    lib: &Path,
    model_identifier: &str,
    binaries: &[Binary],
    description: &str,
    out: &Path,
) -> Result<Vec<Written>> {
    package(lib, model_identifier, binaries, &[], Some(description), out)
}

fn package(
    lib: &Path,
    model_identifier: &str,
    binaries: &[Binary],
    resources: &[PathBuf],
    description: Option<&str>,
    out: &Path,
) -> Result<Vec<Written>> {
    if !lib.exists() {
        bail!(
            "library {} not found (build it first, or drop --skip-build)",
            lib.display()
        );
    }
    let artifacts = read_artifacts(lib, description)?;
    if !artifacts[ERROR as usize].is_empty() {
        bail!(
            "the model's variable table is inconsistent:\n  {}",
            artifacts[ERROR as usize].replace('\n', "\n  ")
        );
    }
    if artifacts[0] != model_identifier {
        bail!(
            "the library calls itself '{}' but Cargo.toml says model-identifier = '{}'",
            artifacts[0],
            model_identifier
        );
    }
    let mut resource_files = merged_resource_entries(resources)?;
    if let Some(text) = description {
        use circuit_file::engine::{DESCRIPTION_FILE, DIGEST_FILE, digest};
        resource_files.push((
            format!("resources/{DESCRIPTION_FILE}"),
            text.as_bytes().to_vec(),
        ));
        resource_files.push((
            format!("resources/{DIGEST_FILE}"),
            format!("{}\n", digest(text)).into_bytes(),
        ));
    }
    // FMI 3 only: the terminals and the icons.
    let terminals_xml = &artifacts[TERMINALS_XML as usize];
    let terminals = parse_terminals(terminals_xml)
        .context("the library's terminalsAndIcons.xml does not parse")?;
    let icon_files = crate::icons::files(model_identifier, &terminals)?;
    let mut written = Vec::new();
    for (version, xml, sub) in [
        ("FMI 2.0", &artifacts[1], "fmi2"),
        ("FMI 3.0", &artifacts[2], "fmi3"),
    ] {
        let parsed = parse_model_description(xml)
            .with_context(|| format!("the library's {version} model description does not parse"))?;
        if parsed.model_identifier != model_identifier {
            bail!(
                "{version} model description names identifier '{}'",
                parsed.model_identifier
            );
        }
        let dir = out.join(sub);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let path = dir.join(format!("{model_identifier}.fmu"));
        let binary_names: Vec<String> = binaries
            .iter()
            .map(|b| {
                let folder = match sub {
                    "fmi2" => b.platform.fmi2_folder,
                    _ => b.platform.fmi3_folder,
                };
                format!(
                    "binaries/{folder}/{model_identifier}{}",
                    b.platform.lib_suffix
                )
            })
            .collect();
        let mut entries: Vec<(&str, &[u8])> = vec![("modelDescription.xml", xml.as_bytes())];
        entries.extend(
            binary_names
                .iter()
                .zip(binaries)
                .map(|(n, b)| (n.as_str(), b.bytes.as_slice())),
        );
        entries.push(("documentation/index.html", artifacts[3].as_bytes()));
        if sub == "fmi3" {
            entries.push((
                "terminalsAndIcons/terminalsAndIcons.xml",
                terminals_xml.as_bytes(),
            ));
            entries.extend(icon_files.iter().map(|(n, d)| (n.as_str(), d.as_slice())));
        }
        entries.extend(
            resource_files
                .iter()
                .map(|(n, d)| (n.as_str(), d.as_slice())),
        );
        write_zip(&path, &entries)?;
        let bytes = std::fs::metadata(&path)?.len();
        written.push(Written {
            version,
            path,
            bytes,
            resources: resource_files.len(),
        });
    }
    Ok(written)
}

/// Calls `fluidfmu_artifact(kind)` for kinds 0..=5 of a freshly loaded
/// library, after installing `description` into it (an engine library).
fn read_artifacts(lib: &Path, description: Option<&str>) -> Result<Vec<String>> {
    // SAFETY: loading one of this workspace's own circuit libraries, whose
    // initialisers do nothing but set up Rust statics.
    let library = unsafe { libloading::Library::new(lib) }
        .with_context(|| format!("loading {}", lib.display()))?;
    if let Some(text) = description {
        type InstallFn = unsafe extern "C" fn(*const c_char) -> *const c_char;
        // SAFETY: the symbol has this signature (fmu_core::export_read_fmu!).
        let install: libloading::Symbol<InstallFn> = unsafe { library.get(b"fluidfmu_install") }
            .with_context(|| format!("{} is not an engine library", lib.display()))?;
        let text = std::ffi::CString::new(text).context("the description holds a NUL byte")?;
        // SAFETY: a NUL-terminated string; the answer is NULL or a string
        // owned by the library, valid until the next call.
        let err = unsafe { install(text.as_ptr()) };
        if !err.is_null() {
            // SAFETY: as above.
            let why = unsafe { CStr::from_ptr(err) }
                .to_string_lossy()
                .into_owned();
            bail!(
                "the engine refuses the description:\n  {}",
                why.replace('\n', "\n  ")
            );
        }
    }
    type ArtifactFn = unsafe extern "C" fn(i32) -> *const c_char;
    // SAFETY: the symbol has this signature (generated by fmu_core::export_fmu!).
    let artifact: libloading::Symbol<ArtifactFn> = unsafe { library.get(b"fluidfmu_artifact") }
        .with_context(|| {
            format!(
                "{} does not export fluidfmu_artifact (is fmu_core::export_fmu! missing?)",
                lib.display()
            )
        })?;
    let mut out = Vec::new();
    for kind in 0..=TERMINALS_XML {
        // SAFETY: returns a pointer to a NUL-terminated string owned by the
        // library (a static), valid while the library stays loaded.
        let ptr = unsafe { artifact(kind) };
        if ptr.is_null() {
            bail!("fluidfmu_artifact({kind}) returned NULL");
        }
        // SAFETY: as above.
        out.push(
            unsafe { CStr::from_ptr(ptr) }
                .to_string_lossy()
                .into_owned(),
        );
    }
    Ok(out)
}

/// Writes a zip archive of `entries` (name, bytes), deflated, through a
/// `.part` file renamed at the end so a failed write leaves no archive.
pub fn write_zip(path: &Path, entries: &[(&str, &[u8])]) -> Result<()> {
    let tmp = path.with_extension("fmu.part");
    let file =
        std::fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o644);
    for (name, data) in entries {
        zip.start_file(*name, options)?;
        zip.write_all(data)?;
    }
    zip.finish()?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_are_collected_recursively_with_archive_names() {
        let dir = tempfile::tempdir().unwrap();
        let res = dir.path().join("resources");
        std::fs::create_dir_all(res.join("nets")).unwrap();
        std::fs::write(res.join("weights.bin"), [1u8, 2, 3]).unwrap();
        std::fs::write(res.join("nets").join("pv.json"), b"{}").unwrap();
        let entries = resource_entries(&res).unwrap();
        let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["resources/nets/pv.json", "resources/weights.bin"]);
        assert_eq!(entries[1].1, [1, 2, 3]);
        assert!(
            resource_entries(&dir.path().join("none"))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn shared_resource_folders_merge_and_a_clash_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let (own, shared) = (dir.path().join("own"), dir.path().join("shared"));
        std::fs::create_dir_all(&own).unwrap();
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::write(own.join("b.txt"), b"own").unwrap();
        std::fs::write(shared.join("a.txt"), b"shared").unwrap();
        let folders = [own.clone(), shared.clone(), dir.path().join("none")];
        let entries = merged_resource_entries(&folders).unwrap();
        let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["resources/a.txt", "resources/b.txt"]);
        std::fs::write(shared.join("b.txt"), b"clash").unwrap();
        let err = merged_resource_entries(&folders).unwrap_err().to_string();
        assert!(err.contains("resources/b.txt"), "{err}");
    }
}
