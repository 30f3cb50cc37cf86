//! A minimal FMI 3.0 master for benchmarks, co-simulation loops, the
//! frequency response and the state estimator: it loads the binary of a
//! packaged `.fmu` (the shipped artifact) through the raw importer
//! ([`super::fmi3`]) and calls its C functions directly, so that timings
//! measure the FMU and nothing else. Co-Simulation always; Model Exchange
//! when the binary exports it, with directional derivatives (what the
//! `fmi` crate 0.8 lacks for FMI 3: `fmi3GetDirectionalDerivative`).

use super::fmi3::{Fmi3, Fmi3ModelExchange};
use super::{Binary, FmiVersion, linux_binary_path, status, unpack};
use anyhow::{Context, Result, bail};
use model_description::{ParsedDescription, parse_model_description};
use std::ffi::{CStr, CString, c_char, c_void};
use std::path::Path;
use std::sync::Mutex;

/// A loaded FMI 3 FMU (its binary and model description).
pub struct Fmu3 {
    /// The parsed model description.
    pub description: ParsedDescription,
    f: Fmi3,
    me: Option<Fmi3ModelExchange>,
    /// The unpacked `resources/` folder, as FMI 3's `resourcePath` (with a
    /// trailing separator).
    resource_path: CString,
    // Declared after the function tables, which point into it.
    _binary: Binary,
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
        unsafe { (self.fmu.f.free_fmu_state)(self.owner, &mut self.ptr) };
    }
}

impl Fmu3 {
    /// Unpacks `fmu` (an FMI 3.0 archive) into a temporary folder and loads
    /// its x86_64-linux binary.
    pub fn load(fmu: &Path) -> Result<Self> {
        let xml = unpack::read_model_description(fmu)
            .context("run `cargo run --release -p build-fmu` to build the FMUs")?;
        let description = parse_model_description(&xml)?;
        if description.fmi_version != "3.0" {
            bail!(
                "{} is FMI {}, not 3.0",
                fmu.display(),
                description.fmi_version
            );
        }
        let dir = unpack::unpack_to_temp_dir(fmu)?;
        // The resources (trained surrogate weights) are where the binary
        // finds them through resourcePath.
        let resource_path = CString::new(format!("{}/", dir.path().join("resources").display()))?;
        let so = linux_binary_path(dir.path(), FmiVersion::Fmi3, &description.model_identifier);
        let binary = Binary::load(&so)?;
        let f = Fmi3::load(&binary)
            .map_err(|missing| anyhow::anyhow!("{} does not export {missing:?}", so.display()))?;
        Ok(Fmu3 {
            f,
            me: Fmi3ModelExchange::load(&binary).ok(),
            description,
            resource_path,
            _binary: binary,
            _dir: dir,
        })
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
            (self.f.instantiate_co_simulation)(
                name.as_ptr(),
                token.as_ptr(),
                self.resource_path.as_ptr(),
                0,
                0,
                0,
                0,
                std::ptr::null(),
                0,
                env,
                Some(log_message),
                None,
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
    fn me(&self) -> Result<&Fmi3ModelExchange> {
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
                0,
                0,
                env,
                Some(log_message),
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
        if status == status::OK {
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
            unsafe { (self.fmu.f.set_float64)(self.ptr, &vr, 1, &value, 1) },
            name,
        )
    }

    /// Sets a Float64 variable by value reference (hot loops).
    pub fn set_vr(&mut self, vr: u32, value: f64) -> Result<()> {
        // SAFETY: as above.
        self.check(
            unsafe { (self.fmu.f.set_float64)(self.ptr, &vr, 1, &value, 1) },
            "fmi3SetFloat64",
        )
    }

    /// Sets a Boolean variable by name.
    pub fn set_bool(&mut self, name: &str, value: bool) -> Result<()> {
        let vr = self.fmu.vr(name)?;
        // SAFETY: as above.
        self.check(
            unsafe { (self.fmu.f.set_boolean)(self.ptr, &vr, 1, &u8::from(value), 1) },
            name,
        )
    }

    /// Sets an Int32 variable by name.
    pub fn set_int(&mut self, name: &str, value: i32) -> Result<()> {
        let vr = self.fmu.vr(name)?;
        // SAFETY: as above.
        self.check(
            unsafe { (self.fmu.f.set_int32)(self.ptr, &vr, 1, &value, 1) },
            name,
        )
    }

    /// Gets a Float64 variable by value reference.
    pub fn get_vr(&self, vr: u32) -> Result<f64> {
        let mut v = f64::NAN;
        // SAFETY: as above.
        self.check(
            unsafe { (self.fmu.f.get_float64)(self.ptr, &vr, 1, &mut v, 1) },
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
                (self.fmu.f.get_float64)(
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
                (self.fmu.f.set_float64)(
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
            unsafe { (self.fmu.f.enter_initialization_mode)(self.ptr, 0, 0.0, 0.0, 1, stop) },
            "enterInitializationMode",
        )?;
        // SAFETY: live instance.
        self.check(
            unsafe { (self.fmu.f.exit_initialization_mode)(self.ptr) },
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
                unsafe { (self.fmu.f.enter_configuration_mode)(self.ptr) },
                "enterConfigurationMode",
            )?;
            for (name, value) in &structural {
                self.set_any(name, *value)?;
            }
            // SAFETY: live instance.
            self.check(
                unsafe { (self.fmu.f.exit_configuration_mode)(self.ptr) },
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
            unsafe { (self.fmu.f.set_fmu_state)(self.ptr, snapshot.ptr) },
            "setFMUState",
        )
    }

    /// One communication step; the FMI status (0 = OK, 2 = Discard, ...).
    pub fn do_step(&mut self, t: f64, h: f64) -> i32 {
        let (mut ev, mut term, mut early, mut last) = (0, 0, 0, 0.0);
        // SAFETY: valid out-pointers; live instance.
        unsafe {
            (self.fmu.f.do_step)(self.ptr, t, h, 1, &mut ev, &mut term, &mut early, &mut last)
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
        self.check(
            unsafe { (self.fmu.f.enter_event_mode)(self.ptr) },
            "enterEventMode",
        )?;
        change(self)?;
        self.event_iteration()?;
        // SAFETY: live instance.
        self.check(
            unsafe { (me.enter_continuous_time_mode)(self.ptr) },
            "enterContinuousTimeMode",
        )
    }

    fn event_iteration(&mut self) -> Result<()> {
        self.fmu.me()?;
        for _ in 0..100 {
            let mut flags = [0u8; 5];
            let mut next = 0.0;
            let [a, b, c, d, e] = &mut flags;
            // SAFETY: valid out-pointers; live instance.
            self.check(
                unsafe { (self.fmu.f.update_discrete_states)(self.ptr, a, b, c, d, e, &mut next) },
                "updateDiscreteStates",
            )?;
            if flags[1] != 0 {
                bail!("the FMU asked to terminate at an event");
            }
            if flags[0] == 0 {
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
            unsafe { (self.fmu.me()?.set_continuous_states)(self.ptr, x.as_ptr(), x.len()) },
            "setContinuousStates",
        )
    }

    /// `fmi3GetContinuousStates` into `x` (one entry per state).
    pub fn states(&self, x: &mut [f64]) -> Result<()> {
        // SAFETY: as above.
        self.check(
            unsafe { (self.fmu.me()?.get_continuous_states)(self.ptr, x.as_mut_ptr(), x.len()) },
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
                (self.fmu.f.directional_derivative)(
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
            unsafe { (self.fmu.f.get_fmu_state)(self.ptr, &mut ptr) },
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
        unsafe { (self.fmu.f.free_instance)(self.ptr) };
    }
}
