//! What a platform needs to be built here, and installing what is missing.
//!
//! A platform other than the host needs its Rust standard library (the
//! target, from `rustup target add`) and a cross C toolchain (its linker
//! and `strip`, from a Debian package). On a fresh machine build-fmu adds
//! the Rust targets itself and, when it runs as root on a machine with
//! `apt-get`, the cross toolchains too; anything it cannot install is
//! named with the one command that would.

use crate::package::Platform;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One thing a platform lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// The Rust target's standard library (`rustup target add <target>`).
    RustTarget(&'static str),
    /// A program of a Debian package (the cross linker or its `strip`).
    Program {
        /// The program looked for on PATH.
        program: &'static str,
        /// The Debian package that has it.
        package: &'static str,
    },
}

/// What this machine can do about missing pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abilities {
    /// `rustup` is on PATH.
    pub rustup: bool,
    /// Running as root with `apt-get` on PATH.
    pub apt_as_root: bool,
}

impl Abilities {
    /// The abilities of this process on this machine.
    pub fn here() -> Self {
        Self {
            rustup: on_path("rustup"),
            apt_as_root: on_path("apt-get") && running_as_root(),
        }
    }
}

/// What `p` lacks to be built here (nothing for the host).
pub fn missing(p: Platform, host: Platform, sysroot: Option<&Path>) -> Vec<Missing> {
    let mut lacks = Vec::new();
    if p == host {
        return lacks;
    }
    if let Some(root) = sysroot
        && !root.join("lib/rustlib").join(p.rust_target).is_dir()
    {
        lacks.push(Missing::RustTarget(p.rust_target));
    }
    let (linker, package) = p.cross_linker;
    for program in [linker, p.strip] {
        if !on_path(program) {
            lacks.push(Missing::Program { program, package });
        }
    }
    lacks
}

/// The commands that would install `lacks`: `rustup target add ...` and
/// `apt-get install ...`, each package and target named once.
pub fn install_commands(lacks: &[Missing]) -> Vec<String> {
    let mut targets: Vec<&str> = Vec::new();
    let mut packages: Vec<&str> = Vec::new();
    for m in lacks {
        match m {
            Missing::RustTarget(t) if !targets.contains(t) => targets.push(t),
            Missing::Program { package, .. } if !packages.contains(package) => {
                packages.push(package)
            }
            _ => {}
        }
    }
    let mut commands = Vec::new();
    if !targets.is_empty() {
        commands.push(format!("rustup target add {}", targets.join(" ")));
    }
    if !packages.is_empty() {
        commands.push(format!("apt-get install {}", packages.join(" ")));
    }
    commands
}

/// One line saying why `p` cannot be built and what to run (`apt-get`
/// through `sudo` unless `as_root`), or `None` when it lacks nothing.
pub fn why_not(p: Platform, lacks: &[Missing], as_root: bool) -> Option<String> {
    if lacks.is_empty() {
        return None;
    }
    let what: Vec<String> = lacks
        .iter()
        .map(|m| match m {
            Missing::RustTarget(t) => format!("the Rust target {t}"),
            Missing::Program { program, .. } => program.to_string(),
        })
        .collect();
    let commands: Vec<String> = install_commands(lacks)
        .into_iter()
        .map(|c| match c.starts_with("apt-get") && !as_root {
            true => format!("sudo {c}"),
            false => c,
        })
        .collect();
    Some(format!(
        "{} lacks {}; run `{}`, then the build command again",
        p.name,
        what.join(", "),
        commands.join(" && ")
    ))
}

/// The part of `lacks` this machine can install by itself.
pub fn installable(lacks: &[Missing], can: Abilities) -> Vec<Missing> {
    lacks
        .iter()
        .filter(|m| match m {
            Missing::RustTarget(_) => can.rustup,
            Missing::Program { .. } => can.apt_as_root,
        })
        .cloned()
        .collect()
}

/// Installs `lacks` (Rust targets with rustup, packages with apt-get),
/// printing each command before it runs.
pub fn install(lacks: &[Missing]) -> Result<()> {
    for command in install_commands(lacks) {
        println!("installing: {command}");
        let words: Vec<&str> = command.split(' ').collect();
        if words[0] == "apt-get" {
            // Fresh machines often have empty package lists.
            run(
                Command::new("apt-get").args(["update", "-qq"]),
                "apt-get update",
            )?;
            run(
                Command::new("apt-get")
                    .args(["install", "-y", "-qq"])
                    .args(&words[2..])
                    .env("DEBIAN_FRONTEND", "noninteractive"),
                &command,
            )?;
        } else {
            run(Command::new(words[0]).args(&words[1..]), &command)?;
        }
    }
    Ok(())
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd.status().with_context(|| format!("running `{what}`"))?;
    if !status.success() {
        bail!("`{what}` failed ({status})");
    }
    Ok(())
}

/// `rustc --print sysroot`, if rustc answers.
pub fn rust_sysroot() -> Option<PathBuf> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// Whether an executable of this name is in a folder of PATH.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// Whether this process runs as root (`id -u` prints 0; false where there
/// is no `id`).
pub fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "0")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package::PLATFORMS;

    #[test]
    fn a_platform_without_its_rust_target_lacks_it() {
        let host = Platform::host().unwrap();
        let sysroot = tempfile::tempdir().unwrap();
        for p in PLATFORMS {
            let lacks = missing(p, host, Some(sysroot.path()));
            if p == host {
                assert!(lacks.is_empty(), "the host is always buildable");
                assert_eq!(why_not(p, &lacks, false), None);
            } else {
                assert!(lacks.contains(&Missing::RustTarget(p.rust_target)));
                let why = why_not(p, &lacks, true).unwrap();
                assert!(
                    why.contains(&format!("rustup target add {}", p.rust_target)),
                    "{why}"
                );
            }
        }
    }

    #[test]
    fn install_commands_name_each_target_and_package_once() {
        let lacks = [
            Missing::RustTarget("x86_64-pc-windows-gnu"),
            Missing::Program {
                program: "x86_64-w64-mingw32-gcc",
                package: "gcc-mingw-w64-x86-64",
            },
            Missing::Program {
                program: "x86_64-w64-mingw32-strip",
                package: "gcc-mingw-w64-x86-64",
            },
            Missing::RustTarget("aarch64-unknown-linux-gnu"),
            Missing::Program {
                program: "aarch64-linux-gnu-gcc",
                package: "gcc-aarch64-linux-gnu",
            },
        ];
        assert_eq!(
            install_commands(&lacks),
            [
                "rustup target add x86_64-pc-windows-gnu aarch64-unknown-linux-gnu",
                "apt-get install gcc-mingw-w64-x86-64 gcc-aarch64-linux-gnu",
            ]
        );
    }

    #[test]
    fn only_what_the_machine_can_install_is_installed() {
        let lacks = [
            Missing::RustTarget("x86_64-pc-windows-gnu"),
            Missing::Program {
                program: "x86_64-w64-mingw32-gcc",
                package: "gcc-mingw-w64-x86-64",
            },
        ];
        let user = Abilities {
            rustup: true,
            apt_as_root: false,
        };
        assert_eq!(installable(&lacks, user), &lacks[..1]);
        let root = Abilities {
            rustup: true,
            apt_as_root: true,
        };
        assert_eq!(installable(&lacks, root), lacks);
        let bare = Abilities {
            rustup: false,
            apt_as_root: false,
        };
        assert!(installable(&lacks, bare).is_empty());
        // What is left is named with the command that installs it.
        let p = Platform::named("x86_64-windows").unwrap();
        let why = why_not(p, &lacks[1..], false).unwrap();
        assert!(
            why.contains("`sudo apt-get install gcc-mingw-w64-x86-64`"),
            "{why}"
        );
        let why = why_not(p, &lacks[1..], true).unwrap();
        assert!(
            why.contains("`apt-get install gcc-mingw-w64-x86-64`"),
            "{why}"
        );
        assert!(why.contains("x86_64-w64-mingw32-gcc"), "{why}");
    }
}
