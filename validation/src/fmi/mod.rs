//! Importing FMUs: the one place that unpacks an FMU archive, loads its
//! binary and declares the C functions a master calls.
//!
//! Layers, lowest first:
//!
//! - [`unpack`]: the archive (the model description, unpacking into a
//!   folder, where the binary of this platform sits).
//! - [`Binary`]: the FMU's shared library, loaded once; the function
//!   tables [`fmi2::Fmi2`], [`fmi3::Fmi3`] and [`fmi3::Fmi3ModelExchange`]
//!   are read from it. Their fields are the raw C function pointers
//!   (`unsafe` to call, every argument passed as C sees it), so that a
//!   hostile master (the reliability suite of `fmu-tests`) can call them
//!   with NULL pointers, in wrong states or with forged FMU states.
//! - The masters on top:
//!   - [`fmu3`]: a minimal FMI 3.0 master over [`fmi3::Fmi3`] for the
//!     benchmarks, the co-simulation loops, the frequency response and the
//!     estimator (timings measure the FMU and nothing else);
//!   - [`master`]: the master of either version on the `fmi` crate (the
//!     `fmi-runner` of the validation harness and the end-to-end tests),
//!     an importer independent of this one for the calls, which uses
//!     [`unpack`] and the function tables' names to check the binary.

pub mod fmi2;
pub mod fmi3;
pub mod fmu3;
pub mod master;
pub mod unpack;

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// An FMI major version of the FMUs (both Co-Simulation, and Model
/// Exchange where the FMU has it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FmiVersion {
    /// FMI 2.0.
    Fmi2,
    /// FMI 3.0.
    Fmi3,
}

impl FmiVersion {
    /// Both versions, FMI 2 first.
    pub const ALL: [FmiVersion; 2] = [FmiVersion::Fmi2, FmiVersion::Fmi3];

    /// The version of a major number (2 or 3).
    pub fn from_major(major: u32) -> Option<Self> {
        match major {
            2 => Some(FmiVersion::Fmi2),
            3 => Some(FmiVersion::Fmi3),
            _ => None,
        }
    }

    /// The major number (2 or 3).
    pub fn major(self) -> u32 {
        match self {
            FmiVersion::Fmi2 => 2,
            FmiVersion::Fmi3 => 3,
        }
    }

    /// The folder under `dist/` (`fmi2`, `fmi3`).
    pub fn dist_folder(self) -> &'static str {
        match self {
            FmiVersion::Fmi2 => "fmi2",
            FmiVersion::Fmi3 => "fmi3",
        }
    }

    /// The function-name prefix of this version's C API (`fmi2`, `fmi3`).
    pub fn prefix(self) -> &'static str {
        self.dist_folder()
    }

    /// The `binaries/` platform folder the standard prescribes for
    /// x86_64 Linux: `linux64` (FMI 2.0, section 2.3) and `x86_64-linux`
    /// (FMI 3.0, section 2.5.1.1).
    pub fn linux_platform_folder(self) -> &'static str {
        match self {
            FmiVersion::Fmi2 => "linux64",
            FmiVersion::Fmi3 => "x86_64-linux",
        }
    }

    /// The `fmiVersion` attribute of `modelDescription.xml`.
    pub fn xml_version(self) -> &'static str {
        match self {
            FmiVersion::Fmi2 => "2.0",
            FmiVersion::Fmi3 => "3.0",
        }
    }
}

impl std::fmt::Display for FmiVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FMI {}.0", self.major())
    }
}

/// The status values of both versions' functions (`fmi2Status`,
/// `fmi3Status`: the same numbers), as the C functions return them.
pub mod status {
    /// `fmi2OK` / `fmi3OK`.
    pub const OK: i32 = 0;
    /// `fmi2Warning` / `fmi3Warning`.
    pub const WARNING: i32 = 1;
    /// `fmi2Discard` / `fmi3Discard`.
    pub const DISCARD: i32 = 2;
    /// `fmi2Error` / `fmi3Error`.
    pub const ERROR: i32 = 3;
    /// `fmi2Fatal` / `fmi3Fatal`.
    pub const FATAL: i32 = 4;
    /// `fmi2Pending` (FMI 2 only).
    pub const PENDING: i32 = 5;

    /// The status's name (`OK`, `Warning`, ...) for messages.
    pub fn name(s: i32) -> String {
        match s {
            OK => "OK".into(),
            WARNING => "Warning".into(),
            DISCARD => "Discard".into(),
            ERROR => "Error".into(),
            FATAL => "Fatal".into(),
            PENDING => "Pending".into(),
            other => format!("invalid status {other}"),
        }
    }
}

/// An FMU's shared library, loaded once; the function tables
/// ([`fmi2::Fmi2`], [`fmi3::Fmi3`], [`fmi3::Fmi3ModelExchange`]) are read
/// from it and are valid as long as it lives.
pub struct Binary {
    library: libloading::Library,
    path: PathBuf,
}

impl Binary {
    /// Loads the shared library at `path` (runs its initialisers: that is
    /// what importing an FMU means).
    pub fn load(path: &Path) -> Result<Binary> {
        // SAFETY: loading an FMU's binary, as any FMI master does.
        let library = unsafe { libloading::Library::new(path) }
            .with_context(|| format!("cannot load {}", path.display()))?;
        Ok(Binary {
            library,
            path: path.to_path_buf(),
        })
    }

    /// Where the library was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The exported function `name` as the function pointer type `T`;
    /// `None` when it is not exported.
    ///
    /// # Safety
    /// `T` must be a function pointer type whose arguments are passed as
    /// the real function's are (same count, pointer for pointer), and the
    /// pointer must not be called after the `Binary` is dropped.
    pub unsafe fn symbol<T: Copy>(&self, name: &str) -> Option<T> {
        // SAFETY: per the caller.
        unsafe { self.library.get::<T>(name.as_bytes()) }
            .ok()
            .map(|s| *s)
    }

    /// Whether the library exports `name`.
    pub fn exports(&self, name: &str) -> bool {
        // SAFETY: the symbol is only looked up, never called.
        unsafe { self.symbol::<unsafe extern "C" fn()>(name) }.is_some()
    }

    /// The names of `names` the library does not export, in their order.
    pub fn missing<'a, S: AsRef<str>>(&self, names: &'a [S]) -> Vec<&'a str> {
        names
            .iter()
            .map(AsRef::as_ref)
            .filter(|name| !self.exports(name))
            .collect()
    }
}

/// Declares a table of C functions read from a [`Binary`]: a struct with one
/// public function-pointer field per function, its C names in `NAMES`, and
/// `load`, which reads them all or returns the names that are missing.
macro_rules! function_table {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident : $sym:literal : $ty:ty,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name {
            $($(#[$fdoc])* #[doc = concat!("`", $sym, "`.")] pub $field: $ty,)*
        }

        impl $name {
            /// The C names of the functions, in the order of the fields.
            pub const NAMES: &'static [&'static str] = &[$($sym,)*];

            /// Every function of the table from `binary`, or the names it
            /// does not export. The pointers must not be called after
            /// `binary` is dropped.
            pub fn load(binary: &$crate::fmi::Binary) -> Result<Self, Vec<&'static str>> {
                let missing = binary.missing(Self::NAMES);
                if !missing.is_empty() {
                    return Err(missing);
                }
                Ok($name {
                    // SAFETY: the symbol is the FMI function of this name,
                    // whose C type the field declares (checked present above).
                    $($field: unsafe { binary.symbol::<$ty>($sym) }.expect("looked up above"),)*
                })
            }
        }
    };
}
pub(crate) use function_table;

/// Where the x86_64 Linux binary of an FMU unpacked into `dir` sits:
/// `binaries/<platform>/<model identifier>.so`.
pub fn linux_binary_path(dir: &Path, version: FmiVersion, model_identifier: &str) -> PathBuf {
    dir.join("binaries")
        .join(version.linux_platform_folder())
        .join(format!("{model_identifier}.so"))
}

#[cfg(test)]
mod tests {
    use super::fmi2::Fmi2;
    use super::fmi3::Fmi3;

    #[test]
    fn the_tables_hold_each_co_simulation_function_once() {
        for (names, count) in [(Fmi2::NAMES, 34), (Fmi3::NAMES, 62)] {
            let mut unique = names.to_vec();
            unique.sort();
            unique.dedup();
            assert_eq!((names.len(), unique.len()), (count, count));
        }
    }
}
