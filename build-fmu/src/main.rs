//! `build-fmu`: builds every circuit crate of the workspace in release mode
//! and writes `dist/fmi2/<Model>.fmu` and `dist/fmi3/<Model>.fmu`.
//!
//! A circuit crate is any workspace package with a
//! `[package.metadata.fluidfmu] model-identifier = "..."` table and a
//! `cdylib` target. The packaging asks the built library itself for its
//! model description and documentation (`fluidfmu_artifact`), so the XML
//! always matches the binary; the files of the crate's `resources/` folder
//! (trained surrogate weights, tables) go into the FMU's `resources/`.
//!
//! Besides the host's binary, every FMU carries the binaries of the other
//! platforms of [`package::PLATFORMS`] (Windows x86_64, Linux aarch64, Linux
//! x86_64). What a platform lacks is installed first where this machine can
//! (the Rust target with rustup; the cross linker with apt-get when running
//! as root: [`toolchain`]); a platform still lacking something is skipped
//! with one line naming the command that would install it.
//! Binaries are stripped of debug info unless `--keep-debug`.

use anyhow::{Context, Result, bail};
use clap::Parser;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

mod binary;
mod described;
mod icons;
mod package;
mod ssp;
mod toolchain;

use package::{Binary, PLATFORMS, Platform};
use toolchain::{Abilities, Missing};

/// Build the circuits' shared libraries and package them as FMI 2.0 and
/// FMI 3.0 Co-Simulation FMUs.
#[derive(Parser, Debug)]
#[command(version, about, long_about = None)]
struct Args {
    /// Output folder; FMUs go to <OUT>/fmi2/ and <OUT>/fmi3/.
    #[arg(long, default_value = "dist")]
    out: PathBuf,
    /// Build only these models (model identifiers, e.g. OrificeChain); all by default.
    #[arg(long = "model", value_name = "MODEL")]
    models: Vec<String>,
    /// A circuit description file (TOML, see docs/circuit-files.md) to
    /// package as an FMU on the precompiled engine (repeatable). With only
    /// --circuit, only these are built; with neither --circuit nor --model,
    /// every circuit crate and every example description are.
    #[arg(long = "circuit", value_name = "FILE")]
    circuits: Vec<PathBuf>,
    /// Build with the dev profile instead of release (faster to compile, much slower to run).
    #[arg(long)]
    debug: bool,
    /// Do not run cargo build; package the libraries already built.
    #[arg(long)]
    skip_build: bool,
    /// List the circuits found and exit.
    #[arg(long)]
    list: bool,
    /// Platforms to put binaries for into the FMUs, as FMI 3 platform
    /// tuples: x86_64-linux, x86_64-windows, aarch64-linux (comma separated
    /// or repeated). Default: all three, installing what they lack where
    /// this machine can (see --no-install), with a line for each one that
    /// is still skipped and the command that would install what it lacks.
    /// A platform asked for by name that cannot be built is an error.
    #[arg(long, value_delimiter = ',', value_name = "PLATFORM")]
    platforms: Vec<String>,
    /// Keep the binaries' debug info (line tables; about 6x larger).
    #[arg(long)]
    keep_debug: bool,
    /// Install nothing: without this, a missing Rust target is added with
    /// rustup and, when running as root, a missing cross linker with
    /// apt-get; with it, such a platform is skipped with the command that
    /// would install what it lacks.
    #[arg(long)]
    no_install: bool,
}

/// The cargo profile of the FMUs' binaries (`[profile.fmu]` in the
/// workspace's Cargo.toml: the release settings, in a folder of its own).
const FMU_PROFILE: &str = "fmu";

/// A circuit crate found in the workspace.
#[derive(Debug, Clone)]
struct Circuit {
    package: String,
    lib_name: String,
    model_identifier: String,
    /// The folders whose files go into the FMU's `resources/`: the crate's
    /// own `resources/` and the shared ones its
    /// `[package.metadata.fluidfmu] resources = [...]` names (relative to
    /// the crate; trained weights that several circuits use).
    resources: Vec<PathBuf>,
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// What `cargo metadata` says: the circuit crates, the engine crates, the
/// target directory and the workspace's root.
struct Workspace {
    circuits: Vec<Circuit>,
    engines: Vec<described::Engine>,
    target_dir: PathBuf,
    root: PathBuf,
}

/// The cdylib target's library name of a package.
fn cdylib_name(pkg: &serde_json::Value, name: &str) -> Result<String> {
    let lib = pkg["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| {
            t["crate_types"]
                .as_array()
                .is_some_and(|k| k.iter().any(|c| c == "cdylib"))
        })
        .with_context(|| format!("package {name} declares an FMU but has no cdylib target"))?;
    Ok(lib["name"].as_str().unwrap_or_default().replace('-', "_"))
}

/// Finds the circuit crates and the target directory with `cargo metadata`.
fn discover() -> Result<Workspace> {
    let out = Command::new(cargo())
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .context("running `cargo metadata`")?;
    if !out.status.success() {
        bail!(
            "`cargo metadata` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("parsing `cargo metadata` output")?;
    let target_dir = PathBuf::from(
        meta["target_directory"]
            .as_str()
            .context("no target_directory in cargo metadata")?,
    );
    let root = PathBuf::from(
        meta["workspace_root"]
            .as_str()
            .context("no workspace_root in cargo metadata")?,
    );
    let mut circuits = Vec::new();
    let mut engines = Vec::new();
    for pkg in meta["packages"].as_array().into_iter().flatten() {
        let name = pkg["name"].as_str().unwrap_or_default().to_owned();
        if let Some(capacity) = pkg["metadata"]["fluidfmu"]["engine-capacity"].as_u64() {
            engines.push(described::Engine {
                lib_name: cdylib_name(pkg, &name)?,
                package: name,
                capacity: usize::try_from(capacity)?,
            });
            continue;
        }
        let Some(id) = pkg["metadata"]["fluidfmu"]["model-identifier"].as_str() else {
            continue;
        };
        let lib_name = cdylib_name(pkg, &name)?;
        let crate_dir = Path::new(pkg["manifest_path"].as_str().unwrap_or_default())
            .parent()
            .map(Path::to_path_buf)
            .with_context(|| format!("package {name} has no manifest path"))?;
        let mut resources = vec![crate_dir.join("resources")];
        for shared in pkg["metadata"]["fluidfmu"]["resources"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let folder = shared.as_str().with_context(|| {
                format!("package {name}: metadata.fluidfmu.resources holds a non-string {shared}")
            })?;
            let path = crate_dir.join(folder);
            if !path.is_dir() {
                bail!(
                    "package {name}: the resource folder {} named in its Cargo.toml does not exist",
                    path.display()
                );
            }
            resources.push(path);
        }
        circuits.push(Circuit {
            package: name,
            lib_name,
            model_identifier: id.to_owned(),
            resources,
        });
    }
    circuits.sort_by(|a, b| a.model_identifier.cmp(&b.model_identifier));
    engines.sort_by_key(|e| e.capacity);
    Ok(Workspace {
        circuits,
        engines,
        target_dir,
        root,
    })
}

fn main() -> Result<()> {
    let args = Args::parse();
    let started = Instant::now();
    let Workspace {
        mut circuits,
        engines,
        target_dir,
        root,
    } = discover()?;
    if circuits.is_empty() {
        bail!("no circuit crates found (packages with [package.metadata.fluidfmu])");
    }
    if args.list {
        for c in &circuits {
            println!("{:<24} package {}", c.model_identifier, c.package);
        }
        for e in &engines {
            println!(
                "{:<24} package {} (engine, up to {} states)",
                "-", e.package, e.capacity
            );
        }
        for f in described::examples(&root)? {
            println!("{:<24} example description {}", "-", f.display());
        }
        return Ok(());
    }
    if !args.models.is_empty() {
        for m in &args.models {
            if !circuits.iter().any(|c| &c.model_identifier == m) {
                let known: Vec<_> = circuits
                    .iter()
                    .map(|c| c.model_identifier.as_str())
                    .collect();
                bail!("unknown model '{m}'; known models: {}", known.join(", "));
            }
        }
        circuits.retain(|c| args.models.contains(&c.model_identifier));
    } else if !args.circuits.is_empty() {
        circuits.clear();
    }
    // The descriptions: the files named, or with neither --model nor
    // --circuit every example; each read and checked before anything is
    // built, so that a bad one costs no build.
    let files = if args.circuits.is_empty() && args.models.is_empty() {
        described::examples(&root)?
    } else {
        args.circuits.clone()
    };
    let mut descriptions = Vec::new();
    let mut problems = Vec::new();
    for f in &files {
        match described::read(f) {
            Ok(d) => descriptions.push(d),
            Err(e) => problems.push(format!("{e:#}")),
        }
    }
    if !problems.is_empty() {
        bail!("{}", problems.join("\n"));
    }
    for (k, d) in descriptions.iter().enumerate() {
        let clash = circuits
            .iter()
            .map(|c| c.model_identifier.as_str())
            .chain(descriptions[..k].iter().map(|e| e.name.as_str()))
            .any(|n| n == d.name);
        if clash {
            bail!(
                "{}: the model identifier '{}' is taken already (by a circuit crate or another \
                 description); rename it under [circuit]",
                d.path.display(),
                d.name
            );
        }
    }
    let mut used_engines: Vec<described::Engine> = Vec::new();
    for d in &descriptions {
        let e = described::engine_for(&engines, d)?;
        if !used_engines.iter().any(|u| u.package == e.package) {
            used_engines.push(e.clone());
        }
    }
    // The build command (neither option) builds every engine, so that a
    // later --circuit only packages.
    if args.circuits.is_empty() && args.models.is_empty() {
        used_engines = engines.clone();
    }
    let host = Platform::host()?;
    let platforms = choose_platforms(&args.platforms, host, args.no_install)?;
    // The FMUs' binaries have a profile of their own (`fmu`, the release
    // settings), so that the test command's release build of the whole
    // workspace, whose dependencies carry more features, never writes over
    // them (a cdylib's file name has no hash) and neither build undoes the
    // other.
    let profile = if args.debug { "debug" } else { FMU_PROFILE };
    let packages: Vec<&str> = (circuits.iter().map(|c| c.package.as_str()))
        .chain(used_engines.iter().map(|e| e.package.as_str()))
        .collect();
    if !args.skip_build && !packages.is_empty() {
        println!(
            "building {} circuit(s) and {} engine(s) ({profile}) for {}: {}",
            circuits.len(),
            used_engines.len(),
            platforms
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", "),
            (circuits.iter().map(|c| c.model_identifier.as_str()))
                .chain(used_engines.iter().map(|e| e.package.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        );
        // The host's library is always built: the model description and
        // documentation are read from it.
        cargo_build(&packages, args.debug, None)?;
        for p in platforms.iter().filter(|p| **p != host) {
            let t = Instant::now();
            cargo_build(&packages, args.debug, Some(*p))?;
            println!(
                "built for {} ({}) in {:.0} s",
                p.name,
                p.rust_target,
                t.elapsed().as_secs_f64()
            );
        }
    }
    let total = (circuits.len() + descriptions.len()) * 2;
    let mut done = 0;
    let mut failures = Vec::new();
    let mut report = |name: &str, packaged: Result<Vec<package::Written>>| match packaged {
        Ok(written) => {
            for w in written {
                done += 1;
                let extra = match w.resources {
                    0 => String::new(),
                    n => format!(", {n} resource file(s)"),
                };
                println!(
                    "[{done}/{total}] {:<20} {} -> {} ({:.0} kB, {} platform(s){extra})",
                    name,
                    w.version,
                    w.path.display(),
                    w.bytes as f64 / 1024.0,
                    platforms.len()
                );
            }
        }
        Err(e) => {
            eprintln!("error: {name}: {e:#}");
            failures.push(name.to_owned());
        }
    };
    for c in &circuits {
        let lib = target_dir
            .join(profile)
            .join(host.library_file(&c.lib_name));
        let packaged = collect_binaries(
            &c.lib_name,
            &lib,
            &platforms,
            host,
            &target_dir,
            profile,
            &args,
        )
        .and_then(|binaries| {
            package::package_circuit(
                &lib,
                &c.model_identifier,
                &binaries,
                &c.resources,
                &args.out,
            )
        });
        report(&c.model_identifier, packaged);
    }
    for d in &descriptions {
        let e = described::engine_for(&engines, d)?;
        let lib = target_dir
            .join(profile)
            .join(host.library_file(&e.lib_name));
        let scratch = target_dir.join(profile).join("described");
        let packaged = collect_binaries(
            &e.lib_name,
            &lib,
            &platforms,
            host,
            &target_dir,
            profile,
            &args,
        )
        .and_then(|binaries| {
            let copy = described::private_copy(&lib, &scratch, &d.name)?;
            package::package_described(&copy, &d.name, &binaries, &d.text, &args.out)
        });
        report(&d.name, packaged);
    }
    if !failures.is_empty() {
        bail!(
            "{} model(s) failed: {}",
            failures.len(),
            failures.join(", ")
        );
    }
    // The coupled set-ups whose models were all built, as SSP archives.
    let built: Vec<String> = circuits
        .iter()
        .map(|c| c.model_identifier.clone())
        .collect();
    for setup in ssp::SETUPS.iter().filter(|s| s.uses_only(&built)) {
        let path = ssp::write(setup, &args.out.join("fmi2"), &args.out.join("ssp"))
            .with_context(|| format!("writing the SSP of {}", setup.name))?;
        println!(
            "SSP {:<34} -> {} ({:.0} kB)",
            setup.name,
            path.display(),
            std::fs::metadata(&path)?.len() as f64 / 1024.0
        );
    }
    println!(
        "{done} FMU(s) written to {} in {:.1} s",
        display_path(&args.out),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The platforms to build: the ones named, each of which must be buildable,
/// or else every platform, installing what is missing where this machine
/// can (unless `no_install`), with one line for each one still skipped.
fn choose_platforms(named: &[String], host: Platform, no_install: bool) -> Result<Vec<Platform>> {
    let wanted: Vec<Platform> = if named.is_empty() {
        PLATFORMS.to_vec()
    } else {
        let mut chosen = Vec::new();
        for name in named {
            let p = Platform::named(name.trim())?;
            if !chosen.contains(&p) {
                chosen.push(p);
            }
        }
        chosen
    };
    let mut sysroot = toolchain::rust_sysroot();
    let lacks: Vec<Missing> = wanted
        .iter()
        .flat_map(|&p| toolchain::missing(p, host, sysroot.as_deref()))
        .collect();
    if !no_install {
        let fixable = toolchain::installable(&lacks, Abilities::here());
        if !fixable.is_empty() {
            toolchain::install(&fixable)?;
            sysroot = toolchain::rust_sysroot();
        }
    }
    let mut chosen = Vec::new();
    for p in wanted {
        let lacks = toolchain::missing(p, host, sysroot.as_deref());
        match toolchain::why_not(p, &lacks, toolchain::running_as_root()) {
            None => chosen.push(p),
            Some(why) if !named.is_empty() => bail!("cannot build for {why}"),
            Some(why) => println!("platform skipped: {why}"),
        }
    }
    Ok(chosen)
}

/// `cargo build` of the packages (circuits, engines), for the host (`None`) or cross-built for
/// a platform with its linker.
fn cargo_build(packages: &[&str], debug: bool, cross: Option<Platform>) -> Result<()> {
    let mut cmd = Command::new(cargo());
    cmd.arg("build");
    if !debug {
        cmd.args(["--profile", FMU_PROFILE]);
    }
    if let Some(p) = cross {
        cmd.args(["--target", p.rust_target]);
        let var = format!(
            "CARGO_TARGET_{}_LINKER",
            p.rust_target.to_uppercase().replace('-', "_")
        );
        if std::env::var_os(&var).is_none() {
            cmd.env(var, p.cross_linker.0);
        }
    }
    for p in packages {
        cmd.args(["-p", p]);
    }
    let status = cmd.status().context("running cargo build")?;
    if !status.success() {
        bail!(
            "cargo build{} failed ({status})",
            cross
                .map(|p| format!(" for {}", p.rust_target))
                .unwrap_or_default()
        );
    }
    Ok(())
}

/// Every chosen platform's binary of a circuit: read, stripped of debug
/// info (unless `--keep-debug`) and checked against the host's exports.
fn collect_binaries(
    lib_name: &str,
    host_lib: &Path,
    platforms: &[Platform],
    host: Platform,
    target_dir: &Path,
    profile: &str,
    args: &Args,
) -> Result<Vec<Binary>> {
    let host_bytes =
        std::fs::read(host_lib).with_context(|| format!("reading {}", host_lib.display()))?;
    let host_exports = binary::fmi_exports(&host_bytes)
        .with_context(|| format!("reading {}", host_lib.display()))?;
    let mut binaries = Vec::new();
    for &p in platforms {
        let lib = if p == host {
            host_lib.to_path_buf()
        } else {
            target_dir
                .join(p.rust_target)
                .join(profile)
                .join(p.library_file(lib_name))
        };
        if !lib.exists() {
            bail!(
                "library {} not found (build it first, or drop --skip-build)",
                lib.display()
            );
        }
        let bytes = if args.keep_debug {
            std::fs::read(&lib).with_context(|| format!("reading {}", lib.display()))?
        } else {
            let tool = if p == host { "strip" } else { p.strip };
            strip(&lib, tool, &target_dir.join("stripped").join(p.name))?
        };
        binary::check(&bytes, &host_exports, p.lib_suffix == ".dll")
            .with_context(|| format!("{} binary {}", p.name, lib.display()))?;
        binaries.push(Binary { platform: p, bytes });
    }
    Ok(binaries)
}

/// The library without its debug info (`strip --strip-debug`; the symbol
/// table stays, so profilers still name functions).
fn strip(lib: &Path, tool: &str, scratch: &Path) -> Result<Vec<u8>> {
    std::fs::create_dir_all(scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let out = scratch.join(lib.file_name().context("library path has no file name")?);
    let status = Command::new(tool)
        .arg("--strip-debug")
        .arg("-o")
        .arg(&out)
        .arg(lib)
        .status()
        .with_context(|| format!("running {tool} (or pass --keep-debug)"))?;
    if !status.success() {
        bail!("{tool} --strip-debug {} failed ({status})", lib.display());
    }
    std::fs::read(&out).with_context(|| format!("reading {}", out.display()))
}

fn display_path(p: &Path) -> String {
    std::fs::canonicalize(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_platform_names_are_refused_with_the_known_ones() {
        let err = choose_platforms(&["x86_64-plan9".into()], Platform::host().unwrap(), true)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown platform 'x86_64-plan9'"), "{err}");
        assert!(err.contains("aarch64-linux"), "{err}");
    }

    #[test]
    fn the_host_alone_can_always_be_chosen() {
        let host = Platform::host().unwrap();
        let chosen = choose_platforms(&[host.name.to_string()], host, true).unwrap();
        assert_eq!(chosen, vec![host]);
    }
}
