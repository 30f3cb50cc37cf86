//! A minimal FMI 3.0 Co-Simulation importer for benchmarks and co-simulation
//! loops: it loads the binary of a packaged `.fmu` (the shipped artifact)
//! and calls its C functions directly, so that timings measure the FMU and
//! nothing else.

use anyhow::{Context, Result, bail};
use model_description::{ParsedDescription, parse_model_description};
use std::ffi::{CString, c_char, c_void};
use std::io::Read;
use std::path::Path;

type Instantiate = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const c_char,
    bool,
    bool,
    bool,
    bool,
    *const u32,
    usize,
    *mut c_void,
    *const c_void,
    *const c_void,
) -> *mut c_void;
type EnterInit = unsafe extern "C" fn(*mut c_void, bool, f64, f64, bool, f64) -> i32;
type Unary = unsafe extern "C" fn(*mut c_void) -> i32;
type Free = unsafe extern "C" fn(*mut c_void);
type GetF64 = unsafe extern "C" fn(*mut c_void, *const u32, usize, *mut f64, usize) -> i32;
type SetF64 = unsafe extern "C" fn(*mut c_void, *const u32, usize, *const f64, usize) -> i32;
type SetBool = unsafe extern "C" fn(*mut c_void, *const u32, usize, *const bool, usize) -> i32;
type SetI32 = unsafe extern "C" fn(*mut c_void, *const u32, usize, *const i32, usize) -> i32;
type GetState = unsafe extern "C" fn(*mut c_void, *mut *mut c_void) -> i32;
type SetState = unsafe extern "C" fn(*mut c_void, *mut c_void) -> i32;
type DoStep = unsafe extern "C" fn(
    *mut c_void,
    f64,
    f64,
    bool,
    *mut bool,
    *mut bool,
    *mut bool,
    *mut f64,
) -> i32;

/// A loaded FMI 3 FMU (its binary and model description).
pub struct Fmu3 {
    /// The parsed model description.
    pub description: ParsedDescription,
    instantiate: Instantiate,
    enter_init: EnterInit,
    exit_init: Unary,
    free: Free,
    get_f64: GetF64,
    set_f64: SetF64,
    set_bool: SetBool,
    set_i32: SetI32,
    do_step: DoStep,
    get_state: GetState,
    set_state: SetState,
    free_state: GetState,
    enter_config: Unary,
    exit_config: Unary,
    _lib: libloading::Library,
    _dir: tempfile::TempDir,
}

/// An instance of an [`Fmu3`].
pub struct Instance<'a> {
    fmu: &'a Fmu3,
    ptr: *mut c_void,
}

/// An FMU state snapshot of an [`Instance`] (freed on drop).
pub struct Snapshot<'a> {
    fmu: &'a Fmu3,
    owner: *mut c_void,
    ptr: *mut c_void,
}

impl Drop for Snapshot<'_> {
    fn drop(&mut self) {
        // SAFETY: a state of the owning instance, freed once.
        unsafe { (self.fmu.free_state)(self.owner, &mut self.ptr) };
    }
}

impl Fmu3 {
    /// Unpacks `fmu` (an FMI 3.0 archive) into a temporary folder and loads
    /// its x86_64-linux binary.
    pub fn load(fmu: &Path) -> Result<Self> {
        let file = std::fs::File::open(fmu).with_context(|| {
            format!(
                "opening {} (run `cargo run --release -p build-fmu`)",
                fmu.display()
            )
        })?;
        let mut zip = zip::ZipArchive::new(file)?;
        let mut xml = String::new();
        zip.by_name("modelDescription.xml")?
            .read_to_string(&mut xml)?;
        let description = parse_model_description(&xml)?;
        if description.fmi_version != "3.0" {
            bail!(
                "{} is FMI {}, not 3.0",
                fmu.display(),
                description.fmi_version
            );
        }
        let dir = tempfile::tempdir()?;
        let name = format!("binaries/x86_64-linux/{}.so", description.model_identifier);
        let so = dir
            .path()
            .join(format!("{}.so", description.model_identifier));
        let mut bytes = Vec::new();
        zip.by_name(&name)
            .with_context(|| format!("{} has no {name}", fmu.display()))?
            .read_to_end(&mut bytes)?;
        std::fs::write(&so, bytes)?;
        // SAFETY: loading an FMU binary; its initialisers are Rust statics.
        let lib = unsafe { libloading::Library::new(&so) }?;
        // SAFETY: the symbols have the FMI 3.0 signatures declared above.
        unsafe {
            Ok(Fmu3 {
                instantiate: *lib.get::<Instantiate>(b"fmi3InstantiateCoSimulation")?,
                enter_init: *lib.get::<EnterInit>(b"fmi3EnterInitializationMode")?,
                exit_init: *lib.get::<Unary>(b"fmi3ExitInitializationMode")?,
                free: *lib.get::<Free>(b"fmi3FreeInstance")?,
                get_f64: *lib.get::<GetF64>(b"fmi3GetFloat64")?,
                set_f64: *lib.get::<SetF64>(b"fmi3SetFloat64")?,
                set_bool: *lib.get::<SetBool>(b"fmi3SetBoolean")?,
                set_i32: *lib.get::<SetI32>(b"fmi3SetInt32")?,
                do_step: *lib.get::<DoStep>(b"fmi3DoStep")?,
                get_state: *lib.get::<GetState>(b"fmi3GetFMUState")?,
                set_state: *lib.get::<SetState>(b"fmi3SetFMUState")?,
                free_state: *lib.get::<GetState>(b"fmi3FreeFMUState")?,
                enter_config: *lib.get::<Unary>(b"fmi3EnterConfigurationMode")?,
                exit_config: *lib.get::<Unary>(b"fmi3ExitConfigurationMode")?,
                description,
                _lib: lib,
                _dir: dir,
            })
        }
    }

    /// The value reference of a variable.
    pub fn vr(&self, name: &str) -> Result<u32> {
        self.description
            .variable_by_name(name)
            .map(|v| v.value_reference)
            .with_context(|| format!("{} has no variable '{name}'", self.description.model_name))
    }

    /// Instantiates (no logger) a Co-Simulation instance.
    pub fn instantiate(&self, name: &str) -> Result<Instance<'_>> {
        let name = CString::new(name)?;
        let token = CString::new(self.description.token.clone())?;
        // SAFETY: valid strings; FMI 3 allows a null logger.
        let ptr = unsafe {
            (self.instantiate)(
                name.as_ptr(),
                token.as_ptr(),
                std::ptr::null(),
                false,
                false,
                false,
                false,
                std::ptr::null(),
                0,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        if ptr.is_null() {
            bail!("{}: instantiation refused", self.description.model_name);
        }
        Ok(Instance { fmu: self, ptr })
    }
}

fn check(status: i32, what: &str) -> Result<()> {
    if status == 0 {
        Ok(())
    } else {
        bail!("{what} returned status {status}")
    }
}

impl Instance<'_> {
    /// Sets a Float64 variable by name.
    pub fn set(&mut self, name: &str, value: f64) -> Result<()> {
        let vr = self.fmu.vr(name)?;
        // SAFETY: one value reference, one value; live instance.
        check(
            unsafe { (self.fmu.set_f64)(self.ptr, &vr, 1, &value, 1) },
            name,
        )
    }

    /// Sets a Float64 variable by value reference (hot loops).
    pub fn set_vr(&mut self, vr: u32, value: f64) -> Result<()> {
        // SAFETY: as above.
        check(
            unsafe { (self.fmu.set_f64)(self.ptr, &vr, 1, &value, 1) },
            "fmi3SetFloat64",
        )
    }

    /// Sets a Boolean variable by name.
    pub fn set_bool(&mut self, name: &str, value: bool) -> Result<()> {
        let vr = self.fmu.vr(name)?;
        // SAFETY: as above.
        check(
            unsafe { (self.fmu.set_bool)(self.ptr, &vr, 1, &value, 1) },
            name,
        )
    }

    /// Sets an Int32 variable by name.
    pub fn set_int(&mut self, name: &str, value: i32) -> Result<()> {
        let vr = self.fmu.vr(name)?;
        // SAFETY: as above.
        check(
            unsafe { (self.fmu.set_i32)(self.ptr, &vr, 1, &value, 1) },
            name,
        )
    }

    /// Gets a Float64 variable by value reference.
    pub fn get_vr(&self, vr: u32) -> Result<f64> {
        let mut v = f64::NAN;
        // SAFETY: as above.
        check(
            unsafe { (self.fmu.get_f64)(self.ptr, &vr, 1, &mut v, 1) },
            "fmi3GetFloat64",
        )?;
        Ok(v)
    }

    /// Gets a Float64 variable by name.
    pub fn get(&self, name: &str) -> Result<f64> {
        self.get_vr(self.fmu.vr(name)?)
    }

    /// Enters and exits initialization mode (start 0, given stop time).
    pub fn initialize(&mut self, stop: f64) -> Result<()> {
        // SAFETY: live instance.
        check(
            unsafe { (self.fmu.enter_init)(self.ptr, false, 0.0, 0.0, true, stop) },
            "enterInitializationMode",
        )?;
        // SAFETY: live instance.
        check(
            unsafe { (self.fmu.exit_init)(self.ptr) },
            "exitInitializationMode",
        )
    }

    /// Sets parameters by name, entering Configuration Mode for structural
    /// ones (call before [`Instance::initialize`]).
    pub fn set_parameters(&mut self, values: &[(String, f64)]) -> Result<()> {
        let structural: Vec<_> = values
            .iter()
            .filter(|(n, _)| {
                self.fmu
                    .description
                    .variable_by_name(n)
                    .is_some_and(|v| v.structural)
            })
            .collect();
        if !structural.is_empty() {
            // SAFETY: live instance.
            check(
                unsafe { (self.fmu.enter_config)(self.ptr) },
                "enterConfigurationMode",
            )?;
            for (name, value) in &structural {
                self.set_any(name, *value)?;
            }
            // SAFETY: live instance.
            check(
                unsafe { (self.fmu.exit_config)(self.ptr) },
                "exitConfigurationMode",
            )?;
        }
        for (name, value) in values {
            if !structural.iter().any(|(n, _)| n == name) {
                self.set_any(name, *value)?;
            }
        }
        Ok(())
    }

    /// Sets a variable of any of the types the project uses, by name.
    pub fn set_any(&mut self, name: &str, value: f64) -> Result<()> {
        let var = self
            .fmu
            .description
            .variable_by_name(name)
            .with_context(|| format!("no variable '{name}'"))?;
        match var.kind {
            model_description::ParsedType::Boolean => self.set_bool(name, value != 0.0),
            model_description::ParsedType::Integer => self.set_int(name, value as i32),
            _ => self.set(name, value),
        }
    }

    /// Restores a snapshot taken from this instance.
    pub fn restore(&mut self, snapshot: &Snapshot<'_>) -> Result<()> {
        // SAFETY: a live state of this FMU.
        check(
            unsafe { (self.fmu.set_state)(self.ptr, snapshot.ptr) },
            "setFMUState",
        )
    }

    /// One communication step; the FMI status (0 = OK, 2 = Discard, ...).
    pub fn do_step(&mut self, t: f64, h: f64) -> i32 {
        let (mut ev, mut term, mut early, mut last) = (false, false, false, 0.0);
        // SAFETY: valid out-pointers; live instance.
        unsafe {
            (self.fmu.do_step)(
                self.ptr, t, h, true, &mut ev, &mut term, &mut early, &mut last,
            )
        }
    }
}

impl<'a> Instance<'a> {
    /// Takes an FMU state snapshot.
    pub fn snapshot(&self) -> Result<Snapshot<'a>> {
        let mut ptr = std::ptr::null_mut();
        // SAFETY: live instance, valid out-pointer.
        check(
            unsafe { (self.fmu.get_state)(self.ptr, &mut ptr) },
            "getFMUState",
        )?;
        Ok(Snapshot {
            fmu: self.fmu,
            owner: self.ptr,
            ptr,
        })
    }
}

impl Drop for Instance<'_> {
    fn drop(&mut self) {
        // SAFETY: live instance, freed once.
        unsafe { (self.fmu.free)(self.ptr) };
    }
}
