//! A minimal FMI 3.0 importer for benchmarks, co-simulation loops and the
//! state estimator: it loads the binary of a packaged `.fmu` (the shipped
//! artifact) and calls its C functions directly, so that timings measure
//! the FMU and nothing else. Co-Simulation always; Model Exchange with
//! directional derivatives when the binary exports it (what the `fmi`
//! crate 0.8 lacks for FMI 3: `fmi3GetDirectionalDerivative`).

use anyhow::{Context, Result, bail};
use model_description::{ParsedDescription, parse_model_description};
use std::ffi::{CStr, CString, c_char, c_void};
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;

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

type InstantiateMe = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const c_char,
    bool,
    bool,
    *mut c_void,
    *const c_void,
) -> *mut c_void;
type SetTime = unsafe extern "C" fn(*mut c_void, f64) -> i32;
type ArrayIn = unsafe extern "C" fn(*mut c_void, *const f64, usize) -> i32;
type ArrayOut = unsafe extern "C" fn(*mut c_void, *mut f64, usize) -> i32;
type UpdateDiscrete = unsafe extern "C" fn(
    *mut c_void,
    *mut bool,
    *mut bool,
    *mut bool,
    *mut bool,
    *mut bool,
    *mut f64,
) -> i32;
type DirectionalDerivative = unsafe extern "C" fn(
    *mut c_void,
    *const u32,
    usize,
    *const u32,
    usize,
    *const f64,
    usize,
    *mut f64,
    usize,
) -> i32;

/// The Model Exchange functions of a binary (all of them, or none).
struct ModelExchange {
    instantiate: InstantiateMe,
    set_time: SetTime,
    set_states: ArrayIn,
    get_states: ArrayOut,
    get_derivatives: ArrayOut,
    get_nominals: ArrayOut,
    enter_event_mode: Unary,
    update_discrete_states: UpdateDiscrete,
    enter_continuous_time_mode: Unary,
    directional_derivative: DirectionalDerivative,
}

impl ModelExchange {
    /// The functions, if the library exports every one.
    ///
    /// # Safety
    /// The symbols must have the FMI 3.0 signatures declared above.
    unsafe fn load(lib: &libloading::Library) -> Option<Self> {
        // SAFETY: per the function's contract.
        unsafe {
            Some(ModelExchange {
                instantiate: *lib.get(b"fmi3InstantiateModelExchange").ok()?,
                set_time: *lib.get(b"fmi3SetTime").ok()?,
                set_states: *lib.get(b"fmi3SetContinuousStates").ok()?,
                get_states: *lib.get(b"fmi3GetContinuousStates").ok()?,
                get_derivatives: *lib.get(b"fmi3GetContinuousStateDerivatives").ok()?,
                get_nominals: *lib.get(b"fmi3GetNominalsOfContinuousStates").ok()?,
                enter_event_mode: *lib.get(b"fmi3EnterEventMode").ok()?,
                update_discrete_states: *lib.get(b"fmi3UpdateDiscreteStates").ok()?,
                enter_continuous_time_mode: *lib.get(b"fmi3EnterContinuousTimeMode").ok()?,
                directional_derivative: *lib.get(b"fmi3GetDirectionalDerivative").ok()?,
            })
        }
    }
}

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
    me: Option<ModelExchange>,
    /// The unpacked `resources/` folder, as FMI 3's `resourcePath` (with a
    /// trailing separator).
    resource_path: CString,
    _lib: libloading::Library,
    _dir: tempfile::TempDir,
}

/// An instance of an [`Fmu3`].
pub struct Instance<'a> {
    fmu: &'a Fmu3,
    ptr: *mut c_void,
    /// The messages of status Discard or worse the FMU logged since the
    /// last failed call (the logger's environment; boxed so that its
    /// address stays put).
    log: Box<Mutex<Vec<String>>>,
}

/// The FMI 3 logger: keeps the messages of status Discard and worse in the
/// instance's list (`env`), so that a failed call can say why.
unsafe extern "C" fn log_message(
    env: *mut c_void,
    status: i32,
    category: *const c_char,
    message: *const c_char,
) {
    if env.is_null() || message.is_null() || status < 2 {
        return;
    }
    // SAFETY: env is the instance's boxed list, alive as long as the
    // instance; the strings are the FMU's NUL-terminated ones.
    let (list, text, category) = unsafe {
        (
            &*(env as *const Mutex<Vec<String>>),
            CStr::from_ptr(message).to_string_lossy().into_owned(),
            if category.is_null() {
                String::new()
            } else {
                CStr::from_ptr(category).to_string_lossy().into_owned()
            },
        )
    };
    if let Ok(mut list) = list.lock()
        && list.len() < 20
    {
        list.push(format!("[{category}] {text}"));
    }
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
        // The resources (trained surrogate weights) where the binary finds
        // them through resourcePath.
        let resources = dir.path().join("resources");
        std::fs::create_dir_all(&resources)?;
        for i in 0..zip.len() {
            let mut entry = zip.by_index(i)?;
            let Some(relative) = entry
                .enclosed_name()
                .and_then(|n| n.strip_prefix("resources").ok().map(Path::to_path_buf))
            else {
                continue;
            };
            if entry.is_dir() || relative.as_os_str().is_empty() {
                continue;
            }
            let target = resources.join(relative);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let mut data = Vec::new();
            entry.read_to_end(&mut data)?;
            std::fs::write(&target, data)?;
        }
        let resource_path = CString::new(format!("{}/", resources.display()))?;
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
                me: ModelExchange::load(&lib),
                description,
                resource_path,
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
        let log = Box::new(Mutex::new(Vec::new()));
        let env = &*log as *const Mutex<Vec<String>> as *mut c_void;
        // SAFETY: valid strings; the logger's environment lives in the
        // instance.
        let ptr = unsafe {
            (self.instantiate)(
                name.as_ptr(),
                token.as_ptr(),
                self.resource_path.as_ptr(),
                false,
                false,
                false,
                false,
                std::ptr::null(),
                0,
                env,
                log_message as *const c_void,
                std::ptr::null(),
            )
        };
        if ptr.is_null() {
            bail!("{}: instantiation refused", self.description.model_name);
        }
        Ok(Instance {
            fmu: self,
            ptr,
            log,
        })
    }
}

impl Fmu3 {
    /// The Model Exchange functions, or an error naming what is missing.
    fn me(&self) -> Result<&ModelExchange> {
        self.me.as_ref().with_context(|| {
            format!(
                "{}: the binary does not export the FMI 3 Model Exchange functions",
                self.description.model_name
            )
        })
    }

    /// Instantiates (no logger) a Model Exchange instance.
    pub fn instantiate_model_exchange(&self, name: &str) -> Result<Instance<'_>> {
        let me = self.me()?;
        let name = CString::new(name)?;
        let token = CString::new(self.description.token.clone())?;
        let log = Box::new(Mutex::new(Vec::new()));
        let env = &*log as *const Mutex<Vec<String>> as *mut c_void;
        // SAFETY: valid strings; the logger's environment lives in the
        // instance.
        let ptr = unsafe {
            (me.instantiate)(
                name.as_ptr(),
                token.as_ptr(),
                self.resource_path.as_ptr(),
                false,
                false,
                env,
                log_message as *const c_void,
            )
        };
        if ptr.is_null() {
            bail!(
                "{}: Model Exchange instantiation refused",
                self.description.model_name
            );
        }
        Ok(Instance {
            fmu: self,
            ptr,
            log,
        })
    }

    /// The number of continuous states (derivatives in the description).
    pub fn state_count(&self) -> usize {
        self.description.continuous_states().len()
    }
}

impl Instance<'_> {
    /// Ok for status OK; otherwise an error naming the call, the status
    /// and what the FMU logged about it.
    fn check(&self, status: i32, what: &str) -> Result<()> {
        if status == 0 {
            return Ok(());
        }
        let said = self
            .log
            .lock()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default();
        if said.is_empty() {
            bail!("{what} returned status {status}")
        }
        bail!("{what} returned status {status}: {}", said.join("; "))
    }

    /// Sets a Float64 variable by name.
    pub fn set(&mut self, name: &str, value: f64) -> Result<()> {
        let vr = self.fmu.vr(name)?;
        // SAFETY: one value reference, one value; live instance.
        self.check(
            unsafe { (self.fmu.set_f64)(self.ptr, &vr, 1, &value, 1) },
            name,
        )
    }

    /// Sets a Float64 variable by value reference (hot loops).
    pub fn set_vr(&mut self, vr: u32, value: f64) -> Result<()> {
        // SAFETY: as above.
        self.check(
            unsafe { (self.fmu.set_f64)(self.ptr, &vr, 1, &value, 1) },
            "fmi3SetFloat64",
        )
    }

    /// Sets a Boolean variable by name.
    pub fn set_bool(&mut self, name: &str, value: bool) -> Result<()> {
        let vr = self.fmu.vr(name)?;
        // SAFETY: as above.
        self.check(
            unsafe { (self.fmu.set_bool)(self.ptr, &vr, 1, &value, 1) },
            name,
        )
    }

    /// Sets an Int32 variable by name.
    pub fn set_int(&mut self, name: &str, value: i32) -> Result<()> {
        let vr = self.fmu.vr(name)?;
        // SAFETY: as above.
        self.check(
            unsafe { (self.fmu.set_i32)(self.ptr, &vr, 1, &value, 1) },
            name,
        )
    }

    /// Gets a Float64 variable by value reference.
    pub fn get_vr(&self, vr: u32) -> Result<f64> {
        let mut v = f64::NAN;
        // SAFETY: as above.
        self.check(
            unsafe { (self.fmu.get_f64)(self.ptr, &vr, 1, &mut v, 1) },
            "fmi3GetFloat64",
        )?;
        Ok(v)
    }

    /// Gets several Float64 variables in one call (one evaluation of the
    /// model for all of them), one value per reference into `values`.
    pub fn get_vrs(&self, vrs: &[u32], values: &mut [f64]) -> Result<()> {
        if vrs.len() != values.len() {
            bail!(
                "{} value references but room for {} values",
                vrs.len(),
                values.len()
            );
        }
        // SAFETY: both arrays with their lengths; live instance.
        self.check(
            unsafe {
                (self.fmu.get_f64)(
                    self.ptr,
                    vrs.as_ptr(),
                    vrs.len(),
                    values.as_mut_ptr(),
                    values.len(),
                )
            },
            "fmi3GetFloat64",
        )
    }

    /// Sets several Float64 variables in one call.
    pub fn set_vrs(&mut self, vrs: &[u32], values: &[f64]) -> Result<()> {
        if vrs.len() != values.len() {
            bail!("{} value references but {} values", vrs.len(), values.len());
        }
        // SAFETY: both arrays with their lengths; live instance.
        self.check(
            unsafe {
                (self.fmu.set_f64)(
                    self.ptr,
                    vrs.as_ptr(),
                    vrs.len(),
                    values.as_ptr(),
                    values.len(),
                )
            },
            "fmi3SetFloat64",
        )
    }

    /// Gets a Float64 variable by name.
    pub fn get(&self, name: &str) -> Result<f64> {
        self.get_vr(self.fmu.vr(name)?)
    }

    /// Enters and exits initialization mode (start 0, given stop time).
    pub fn initialize(&mut self, stop: f64) -> Result<()> {
        // SAFETY: live instance.
        self.check(
            unsafe { (self.fmu.enter_init)(self.ptr, false, 0.0, 0.0, true, stop) },
            "enterInitializationMode",
        )?;
        // SAFETY: live instance.
        self.check(
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
            self.check(
                unsafe { (self.fmu.enter_config)(self.ptr) },
                "enterConfigurationMode",
            )?;
            for (name, value) in &structural {
                self.set_any(name, *value)?;
            }
            // SAFETY: live instance.
            self.check(
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
        self.check(
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

/// Model Exchange (on an instance from
/// [`Fmu3::instantiate_model_exchange`]).
impl Instance<'_> {
    /// Initialization (start 0, the given stop time), the event iteration
    /// and Continuous-Time Mode.
    pub fn initialize_model_exchange(&mut self, stop: f64) -> Result<()> {
        self.initialize(stop)?;
        self.event_iteration()?;
        let me = self.fmu.me()?;
        // SAFETY: live instance.
        self.check(
            unsafe { (me.enter_continuous_time_mode)(self.ptr) },
            "enterContinuousTimeMode",
        )
    }

    /// An event: Event Mode, `change` (set inputs or parameters there),
    /// the event iteration, back to Continuous-Time Mode.
    pub fn event(&mut self, change: impl FnOnce(&mut Self) -> Result<()>) -> Result<()> {
        let me = self.fmu.me()?;
        // SAFETY: live instance.
        self.check(unsafe { (me.enter_event_mode)(self.ptr) }, "enterEventMode")?;
        change(self)?;
        self.event_iteration()?;
        // SAFETY: live instance.
        self.check(
            unsafe { (me.enter_continuous_time_mode)(self.ptr) },
            "enterContinuousTimeMode",
        )
    }

    fn event_iteration(&mut self) -> Result<()> {
        let me = self.fmu.me()?;
        for _ in 0..100 {
            let mut flags = [false; 5];
            let mut next = 0.0;
            let [a, b, c, d, e] = &mut flags;
            // SAFETY: valid out-pointers; live instance.
            self.check(
                unsafe { (me.update_discrete_states)(self.ptr, a, b, c, d, e, &mut next) },
                "updateDiscreteStates",
            )?;
            if flags[1] {
                bail!("the FMU asked to terminate at an event");
            }
            if !flags[0] {
                return Ok(());
            }
        }
        bail!("the event iteration did not settle in 100 rounds")
    }

    /// `fmi3SetTime`, s.
    pub fn set_time(&mut self, t: f64) -> Result<()> {
        // SAFETY: live instance.
        self.check(unsafe { (self.fmu.me()?.set_time)(self.ptr, t) }, "setTime")
    }

    /// `fmi3SetContinuousStates` (one value per state).
    pub fn set_states(&mut self, x: &[f64]) -> Result<()> {
        // SAFETY: the slice's length is passed; live instance.
        self.check(
            unsafe { (self.fmu.me()?.set_states)(self.ptr, x.as_ptr(), x.len()) },
            "setContinuousStates",
        )
    }

    /// `fmi3GetContinuousStates` into `x` (one entry per state).
    pub fn states(&self, x: &mut [f64]) -> Result<()> {
        // SAFETY: as above.
        self.check(
            unsafe { (self.fmu.me()?.get_states)(self.ptr, x.as_mut_ptr(), x.len()) },
            "getContinuousStates",
        )
    }

    /// `fmi3GetContinuousStateDerivatives` into `dx`.
    pub fn derivatives(&self, dx: &mut [f64]) -> Result<()> {
        // SAFETY: as above.
        self.check(
            unsafe { (self.fmu.me()?.get_derivatives)(self.ptr, dx.as_mut_ptr(), dx.len()) },
            "getContinuousStateDerivatives",
        )
    }

    /// `fmi3GetNominalsOfContinuousStates` into `nominal`.
    pub fn nominals(&self, nominal: &mut [f64]) -> Result<()> {
        // SAFETY: as above.
        self.check(
            unsafe { (self.fmu.me()?.get_nominals)(self.ptr, nominal.as_mut_ptr(), nominal.len()) },
            "getNominalsOfContinuousStates",
        )
    }

    /// `fmi3GetDirectionalDerivative`: `sensitivity = d(unknowns)/d(knowns)
    /// * seed`.
    pub fn directional_derivative(
        &self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        // SAFETY: every array with its own length; live instance.
        self.check(
            unsafe {
                (self.fmu.me()?.directional_derivative)(
                    self.ptr,
                    unknowns.as_ptr(),
                    unknowns.len(),
                    knowns.as_ptr(),
                    knowns.len(),
                    seed.as_ptr(),
                    seed.len(),
                    sensitivity.as_mut_ptr(),
                    sensitivity.len(),
                )
            },
            "getDirectionalDerivative",
        )
    }

    /// The Jacobian of the state derivatives with respect to `knowns`
    /// (states or inputs), one directional derivative per column, as rows
    /// of a row-major `n x knowns.len()` matrix.
    pub fn derivative_jacobian(&self, knowns: &[u32]) -> Result<Vec<Vec<f64>>> {
        let ders: Vec<u32> = self
            .fmu
            .description
            .continuous_states()
            .iter()
            .map(|&(_, d)| d)
            .collect();
        let mut rows = vec![vec![0.0; knowns.len()]; ders.len()];
        let mut column = vec![0.0; ders.len()];
        for (j, known) in knowns.iter().enumerate() {
            self.directional_derivative(&ders, std::slice::from_ref(known), &[1.0], &mut column)?;
            for (row, value) in rows.iter_mut().zip(&column) {
                row[j] = *value;
            }
        }
        Ok(rows)
    }
}

impl<'a> Instance<'a> {
    /// Takes an FMU state snapshot.
    pub fn snapshot(&self) -> Result<Snapshot<'a>> {
        let mut ptr = std::ptr::null_mut();
        // SAFETY: live instance, valid out-pointer.
        self.check(
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
