//! `build-fmu`: builds every circuit crate of the workspace in release mode
//! and writes `dist/fmi2/<Model>.fmu` and `dist/fmi3/<Model>.fmu`.
//!
//! A circuit crate is any workspace package with a
//! `[package.metadata.fluidfmu] model-identifier = "..."` table and a
//! `cdylib` target. The packaging asks the built library itself for its
//! model description and documentation (`fluidfmu_artifact`), so the XML
//! always matches the binary; the files of the crate's `resources/` folder
//! (trained surrogate weights, tables) go into the FMU's `resources/`.

use anyhow::{Context, Result, bail};
use clap::Parser;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

mod package;

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
    /// Build with the dev profile instead of release (faster to compile, much slower to run).
    #[arg(long)]
    debug: bool,
    /// Do not run cargo build; package the libraries already built.
    #[arg(long)]
    skip_build: bool,
    /// List the circuits found and exit.
    #[arg(long)]
    list: bool,
}

/// A circuit crate found in the workspace.
#[derive(Debug, Clone)]
struct Circuit {
    package: String,
    lib_name: String,
    model_identifier: String,
    /// The crate's folder (its `resources/` folder goes into the FMU).
    crate_dir: PathBuf,
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// Finds the circuit crates and the target directory with `cargo metadata`.
fn discover() -> Result<(Vec<Circuit>, PathBuf)> {
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
    let mut circuits = Vec::new();
    for pkg in meta["packages"].as_array().into_iter().flatten() {
        let Some(id) = pkg["metadata"]["fluidfmu"]["model-identifier"].as_str() else {
            continue;
        };
        let name = pkg["name"].as_str().unwrap_or_default().to_owned();
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
        let crate_dir = Path::new(pkg["manifest_path"].as_str().unwrap_or_default())
            .parent()
            .map(Path::to_path_buf)
            .with_context(|| format!("package {name} has no manifest path"))?;
        circuits.push(Circuit {
            package: name,
            lib_name: lib["name"].as_str().unwrap_or_default().replace('-', "_"),
            model_identifier: id.to_owned(),
            crate_dir,
        });
    }
    circuits.sort_by(|a, b| a.model_identifier.cmp(&b.model_identifier));
    Ok((circuits, target_dir))
}

fn main() -> Result<()> {
    let args = Args::parse();
    let started = Instant::now();
    let (mut circuits, target_dir) = discover()?;
    if circuits.is_empty() {
        bail!("no circuit crates found (packages with [package.metadata.fluidfmu])");
    }
    if args.list {
        for c in &circuits {
            println!("{:<24} package {}", c.model_identifier, c.package);
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
    }
    let platform = package::Platform::host()?;
    let profile = if args.debug { "debug" } else { "release" };
    if !args.skip_build {
        println!(
            "building {} circuit(s) ({profile}): {}",
            circuits.len(),
            circuits
                .iter()
                .map(|c| c.model_identifier.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut cmd = Command::new(cargo());
        cmd.arg("build");
        if !args.debug {
            cmd.arg("--release");
        }
        for c in &circuits {
            cmd.args(["-p", &c.package]);
        }
        let status = cmd.status().context("running cargo build")?;
        if !status.success() {
            bail!("cargo build failed ({status})");
        }
    }
    let total = circuits.len() * 2;
    let mut done = 0;
    let mut failures = Vec::new();
    for c in &circuits {
        let lib = target_dir.join(profile).join(format!(
            "{}{}{}",
            platform.lib_prefix, c.lib_name, platform.lib_suffix
        ));
        let resources = c.crate_dir.join("resources");
        match package::package_circuit(&lib, &c.model_identifier, &platform, &resources, &args.out)
        {
            Ok(written) => {
                for w in written {
                    done += 1;
                    let extra = match w.resources {
                        0 => String::new(),
                        n => format!(", {n} resource file(s)"),
                    };
                    println!(
                        "[{done}/{total}] {:<20} {} -> {} ({:.0} kB{extra})",
                        c.model_identifier,
                        w.version,
                        w.path.display(),
                        w.bytes as f64 / 1024.0
                    );
                }
            }
            Err(e) => {
                eprintln!("error: {}: {e:#}", c.model_identifier);
                failures.push(c.model_identifier.clone());
            }
        }
    }
    if !failures.is_empty() {
        bail!(
            "{} model(s) failed: {}",
            failures.len(),
            failures.join(", ")
        );
    }
    println!(
        "{done} FMU(s) written to {} in {:.1} s",
        display_path(&args.out),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn display_path(p: &Path) -> String {
    std::fs::canonicalize(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}
