//! The hostile master's view of a built FMU binary: the FMI 2.0 and 3.0
//! function tables of the one raw importer (`validation::fmi`), and a
//! version-neutral instance wrapper with a logger that counts the FMU's
//! messages (never prints them).

use super::xml::{Description, Ty};
use anyhow::{Context, Result, anyhow, bail};
use std::ffi::{CStr, CString, c_char, c_void};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
pub(crate) use validation::fmi::fmi2::status_kind as kind;
use validation::fmi::fmi2::{self, Fmi2};
use validation::fmi::fmi3::{self, Fmi3, Fmi3ModelExchange};
pub(crate) use validation::fmi::status::{DISCARD, ERROR, FATAL, OK, WARNING};
use validation::fmi::{Binary, FmiVersion, linux_binary_path};

/// Raw pointer alias for an instance or FMU state.
pub(crate) type Ptr = *mut c_void;

/// A status for messages.
pub(crate) fn status_name(s: i32) -> String {
    validation::fmi::status::name(s)
}

/// Where an instance's messages go: counted, the last one kept for
/// failure reports.
#[derive(Default)]
pub(crate) struct LogSink {
    count: AtomicUsize,
    last: Mutex<String>,
}

impl LogSink {
    pub(crate) fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    pub(crate) fn last(&self) -> String {
        self.last.lock().map(|s| s.clone()).unwrap_or_default()
    }

    fn record(&self, status: i32, message: String) {
        self.count.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut last) = self.last.lock() {
            *last = format!("[{}] {message}", status_name(status));
        }
    }
}

/// # Safety
/// `p` must be null or a NUL-terminated string.
unsafe fn text(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: per the caller.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// The FMI 2 logger. C declares it variadic (`message` is a printf format);
/// on x86_64 System V a variadic call passes its first integer arguments in
/// the same registers as a plain call, so the first variadic argument is
/// read as the sixth parameter — and only used when the format is exactly
/// `"%s"` (the one format this project's FMUs use), never interpreted
/// otherwise.
unsafe extern "C" fn fmi2_logger(
    env: *mut c_void,
    _instance_name: *const c_char,
    status: i32,
    _category: *const c_char,
    message: *const c_char,
    first_argument: *const c_char,
) {
    if env.is_null() {
        return;
    }
    // SAFETY: env is the LogSink this suite passed as componentEnvironment.
    let sink = unsafe { &*(env as *const LogSink) };
    // SAFETY: the FMU passes C strings.
    let format = unsafe { text(message) };
    let message = if format == "%s" {
        // SAFETY: a "%s" format has one string argument.
        unsafe { text(first_argument) }
    } else {
        format
    };
    sink.record(status, message);
}

/// The FMI 3 log message callback.
unsafe extern "C" fn fmi3_logger(
    env: *mut c_void,
    status: i32,
    _category: *const c_char,
    message: *const c_char,
) {
    if env.is_null() {
        return;
    }
    // SAFETY: env is the LogSink this suite passed as instanceEnvironment.
    let sink = unsafe { &*(env as *const LogSink) };
    // SAFETY: the FMU passes a C string.
    sink.record(status, unsafe { text(message) });
}

/// `fmi2CallbackFunctions` with the counting logger writing into `sink`
/// (or no logger) and libc's allocator.
pub(crate) fn fmi2_callbacks(sink: *const LogSink, with_logger: bool) -> fmi2::CallbackFunctions {
    fmi2::CallbackFunctions {
        logger: if with_logger { Some(fmi2_logger) } else { None },
        allocate: Some(fmi2::calloc),
        free: Some(fmi2::free),
        step_finished: None,
        env: sink as *mut c_void,
    }
}

/// One FMU binary with the functions of its FMI version.
pub(crate) struct Lib {
    pub(crate) desc: Description,
    /// `file://` URI (FMI 2) or path with a trailing slash (FMI 3) of the
    /// unpacked `resources/` folder.
    resources: CString,
    token: CString,
    pub(crate) f2: Option<Fmi2>,
    pub(crate) f3: Option<Fmi3>,
    me3: Option<Fmi3ModelExchange>,
    // Declared after the function tables, which point into it.
    binary: Binary,
}

impl Lib {
    /// Loads the binary of an unpacked FMU (`dir` holds
    /// `modelDescription.xml`).
    pub(crate) fn load(dir: &Path) -> Result<Lib> {
        let xml_path = dir.join("modelDescription.xml");
        let xml = std::fs::read_to_string(&xml_path)
            .with_context(|| format!("cannot read {}", xml_path.display()))?;
        let desc = super::xml::parse(&xml)
            .with_context(|| format!("cannot parse {}", xml_path.display()))?;
        let version = if desc.fmi3 {
            FmiVersion::Fmi3
        } else {
            FmiVersion::Fmi2
        };
        let binary = Binary::load(&linux_binary_path(dir, version, &desc.model_identifier))?;
        let res_dir = dir.join("resources");
        let resources = if desc.fmi3 {
            format!("{}/", res_dir.display())
        } else {
            format!("file://{}", res_dir.display())
        };
        let missing = |names: Vec<&str>| anyhow!("symbols missing: {names:?}");
        let (f2, f3, me3) = if desc.fmi3 {
            // The Model Exchange instantiation is called too (it must refuse
            // or work as the model description says).
            let me3 = Fmi3ModelExchange::load(&binary).map_err(missing)?;
            (None, Some(Fmi3::load(&binary).map_err(missing)?), Some(me3))
        } else {
            (Some(Fmi2::load(&binary).map_err(missing)?), None, None)
        };
        Ok(Lib {
            resources: CString::new(resources)?,
            token: CString::new(desc.token.clone())?,
            desc,
            f2,
            f3,
            me3,
            binary,
        })
    }

    /// Whether this is the FMI 3 interface.
    pub(crate) fn fmi3(&self) -> bool {
        self.desc.fmi3
    }

    /// The FMI 2 table (panics on an FMI 3 library: a suite bug).
    pub(crate) fn v2(&self) -> &Fmi2 {
        self.f2
            .as_ref()
            .expect("FMI 2 function on an FMI 3 library")
    }

    /// The FMI 3 table.
    pub(crate) fn v3(&self) -> &Fmi3 {
        self.f3
            .as_ref()
            .expect("FMI 3 function on an FMI 2 library")
    }

    /// A new instance (Instantiated), or an error with the FMU's message.
    pub(crate) fn instantiate(&self, name: &str) -> Result<Inst<'_>> {
        let sink = Box::new(LogSink::default());
        let cname = CString::new(name)?;
        let mut callbacks = None;
        let ptr = if let Some(f) = &self.f2 {
            let cb = Box::new(fmi2_callbacks(&*sink, true));
            // SAFETY: valid strings and callbacks that outlive the instance
            // (kept in the Inst).
            let p = unsafe {
                (f.instantiate)(
                    cname.as_ptr(),
                    1,
                    self.token.as_ptr(),
                    self.resources.as_ptr(),
                    &*cb,
                    0,
                    0,
                )
            };
            callbacks = Some(cb);
            p
        } else {
            let f = self.v3();
            // SAFETY: valid strings; the environment is the boxed sink.
            unsafe {
                (f.instantiate_co_simulation)(
                    cname.as_ptr(),
                    self.token.as_ptr(),
                    self.resources.as_ptr(),
                    0,
                    0,
                    0,
                    0,
                    std::ptr::null(),
                    0,
                    &*sink as *const LogSink as *mut c_void,
                    Some(fmi3_logger),
                    None,
                )
            }
        };
        if ptr.is_null() {
            bail!("instantiate returned NULL: {}", sink.last());
        }
        Ok(Inst {
            lib: self,
            ptr,
            sink,
            _callbacks: callbacks,
        })
    }

    /// Raw instantiate for NULL/garbage argument tests: the returned
    /// pointer (freed here if not null) and the messages logged.
    pub(crate) fn instantiate_raw(
        &self,
        name: *const c_char,
        token: *const c_char,
        model_exchange: bool,
        with_logger: bool,
        null_callbacks: bool,
    ) -> (bool, usize) {
        let sink = Box::new(LogSink::default());
        let ptr = if let Some(f) = &self.f2 {
            let cb = fmi2_callbacks(&*sink, with_logger);
            let cbp: *const fmi2::CallbackFunctions = if null_callbacks {
                std::ptr::null()
            } else {
                &cb
            };
            // SAFETY: strings are null or valid; callbacks null or valid.
            unsafe {
                (f.instantiate)(
                    name,
                    if model_exchange { 0 } else { 1 },
                    token,
                    self.resources.as_ptr(),
                    cbp,
                    0,
                    0,
                )
            }
        } else {
            let f = self.v3();
            let env = &*sink as *const LogSink as *mut c_void;
            let log = if with_logger {
                Some(fmi3_logger as fmi3::LogMessage)
            } else {
                None
            };
            if model_exchange {
                // SAFETY: strings null or valid.
                unsafe {
                    (self.me3.expect("loaded with the FMI 3 table").instantiate)(
                        name,
                        token,
                        self.resources.as_ptr(),
                        0,
                        0,
                        env,
                        log,
                    )
                }
            } else {
                // SAFETY: strings null or valid.
                unsafe {
                    (f.instantiate_co_simulation)(
                        name,
                        token,
                        self.resources.as_ptr(),
                        0,
                        0,
                        0,
                        0,
                        std::ptr::null(),
                        0,
                        env,
                        log,
                        None,
                    )
                }
            }
        };
        let created = !ptr.is_null();
        if created {
            // SAFETY: a live instance of this library.
            unsafe {
                match (&self.f2, &self.f3) {
                    (Some(f), _) => (f.free_instance)(ptr),
                    (_, Some(f)) => (f.free_instance)(ptr),
                    _ => {}
                }
            }
        }
        (created, sink.count())
    }

    /// A function of the binary under an erased signature of the same
    /// ABI (pointers as `void*`); `None` when it is not exported.
    ///
    /// # Safety
    /// `T` must be a function pointer type whose arguments are passed as the
    /// real function's are (same count, pointer for pointer).
    pub(crate) unsafe fn symbol<T: Copy>(&self, name: &str) -> Option<T> {
        // SAFETY: per the caller.
        unsafe { self.binary.symbol::<T>(name) }
    }

    /// FMI 3 instantiateCoSimulation with `requiredIntermediateVariables`
    /// NULL and a count of 1: whether an instance came back (freed here)
    /// and the messages logged.
    pub(crate) fn instantiate_null_intermediate(&self) -> (bool, usize) {
        let f = self.v3();
        let sink = Box::new(LogSink::default());
        // SAFETY: valid strings; the NULL array is the attack.
        let ptr = unsafe {
            (f.instantiate_co_simulation)(
                c"hostile".as_ptr(),
                self.token.as_ptr(),
                self.resources.as_ptr(),
                0,
                0,
                0,
                0,
                std::ptr::null(),
                1,
                &*sink as *const LogSink as *mut c_void,
                Some(fmi3_logger),
                None,
            )
        };
        let created = !ptr.is_null();
        if created {
            // SAFETY: a live instance of this library.
            unsafe { (f.free_instance)(ptr) };
        }
        (created, sink.count())
    }

    /// The instantiation token as a C string.
    pub(crate) fn token_ptr(&self) -> *const c_char {
        self.token.as_ptr()
    }
}

/// A live instance; freed on drop.
pub(crate) struct Inst<'a> {
    pub(crate) lib: &'a Lib,
    pub(crate) ptr: Ptr,
    pub(crate) sink: Box<LogSink>,
    _callbacks: Option<Box<fmi2::CallbackFunctions>>,
}

// SAFETY: an instance is used by one thread at a time (moved, never shared).
unsafe impl Send for Inst<'_> {}

impl Drop for Inst<'_> {
    fn drop(&mut self) {
        // SAFETY: a live instance of this library, freed once.
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.free_instance)(self.ptr),
                (_, Some(f)) => (f.free_instance)(self.ptr),
                _ => {}
            }
        }
    }
}

// Every call below goes to a live instance of this library with arrays of
// the length passed; the FMI functions have exactly these C types.
#[allow(clippy::undocumented_unsafe_blocks)]
impl Inst<'_> {
    /// Messages logged so far.
    pub(crate) fn messages(&self) -> usize {
        self.sink.count()
    }

    /// The last message logged.
    pub(crate) fn last_message(&self) -> String {
        self.sink.last()
    }

    /// `Ok` when a call returned OK; otherwise an error naming the call,
    /// its status and the FMU's last message.
    pub(crate) fn expect_ok(&self, what: &str, status: i32) -> Result<(), String> {
        if status == OK {
            Ok(())
        } else {
            Err(format!(
                "{what} returned {} ({})",
                status_name(status),
                self.last_message()
            ))
        }
    }

    /// FMI 2 setupExperiment + enterInitializationMode, or FMI 3
    /// enterInitializationMode; no tolerance, no stop time.
    pub(crate) fn enter_init(&self, start: f64) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => {
                    let s = (f.setup_experiment)(self.ptr, 0, 0.0, start, 0, 0.0);
                    if s != OK {
                        return s;
                    }
                    (f.enter_initialization_mode)(self.ptr)
                }
                (_, Some(f)) => (f.enter_initialization_mode)(self.ptr, 0, 0.0, start, 0, 0.0),
                _ => ERROR,
            }
        }
    }

    pub(crate) fn exit_init(&self) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.exit_initialization_mode)(self.ptr),
                (_, Some(f)) => (f.exit_initialization_mode)(self.ptr),
                _ => ERROR,
            }
        }
    }

    pub(crate) fn terminate(&self) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.terminate)(self.ptr),
                (_, Some(f)) => (f.terminate)(self.ptr),
                _ => ERROR,
            }
        }
    }

    pub(crate) fn reset(&self) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.reset)(self.ptr),
                (_, Some(f)) => (f.reset)(self.ptr),
                _ => ERROR,
            }
        }
    }

    /// FMI 3 enterConfigurationMode.
    pub(crate) fn enter_config(&self) -> i32 {
        unsafe { (self.lib.v3().enter_configuration_mode)(self.ptr) }
    }

    /// FMI 3 exitConfigurationMode.
    pub(crate) fn exit_config(&self) -> i32 {
        unsafe { (self.lib.v3().exit_configuration_mode)(self.ptr) }
    }

    pub(crate) fn do_step(&self, t: f64, h: f64) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.do_step)(self.ptr, t, h, 0),
                (_, Some(f)) => {
                    let (mut a, mut b, mut c, mut last) = (0u8, 0u8, 0u8, 0.0);
                    (f.do_step)(self.ptr, t, h, 0, &mut a, &mut b, &mut c, &mut last)
                }
                _ => ERROR,
            }
        }
    }

    /// Gets values of one type as f64 (Booleans as 0/1, raw integers).
    pub(crate) fn get(&self, ty: Ty, vrs: &[u32]) -> (i32, Vec<f64>) {
        let n = vrs.len();
        unsafe {
            match (&self.lib.f2, &self.lib.f3, ty) {
                (Some(f), _, Ty::Real) => {
                    let mut v = vec![0.0; n];
                    let s = (f.get_real)(self.ptr, vrs.as_ptr(), n, v.as_mut_ptr());
                    (s, v)
                }
                (Some(f), _, Ty::Integer | Ty::Boolean) => {
                    let mut v = vec![0i32; n];
                    let g = if ty == Ty::Integer {
                        f.get_integer
                    } else {
                        f.get_boolean
                    };
                    let s = g(self.ptr, vrs.as_ptr(), n, v.as_mut_ptr());
                    (s, v.into_iter().map(f64::from).collect())
                }
                (_, Some(f), Ty::Real) => {
                    let mut v = vec![0.0; n];
                    let s = (f.get_float64)(self.ptr, vrs.as_ptr(), n, v.as_mut_ptr(), n);
                    (s, v)
                }
                (_, Some(f), Ty::Integer) => {
                    let mut v = vec![0i32; n];
                    let s = (f.get_int32)(self.ptr, vrs.as_ptr(), n, v.as_mut_ptr(), n);
                    (s, v.into_iter().map(f64::from).collect())
                }
                (_, Some(f), Ty::Boolean) => {
                    let mut v = vec![0u8; n];
                    let s = (f.get_boolean)(self.ptr, vrs.as_ptr(), n, v.as_mut_ptr(), n);
                    (s, v.into_iter().map(f64::from).collect())
                }
                _ => (ERROR, vec![]),
            }
        }
    }

    /// Sets one Real/Float64 value.
    pub(crate) fn set_real(&self, vr: u32, value: f64) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.set_real)(self.ptr, &vr, 1, &value),
                (_, Some(f)) => (f.set_float64)(self.ptr, &vr, 1, &value, 1),
                _ => ERROR,
            }
        }
    }

    /// Sets one Integer/Int32 value.
    pub(crate) fn set_int(&self, vr: u32, value: i32) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.set_integer)(self.ptr, &vr, 1, &value),
                (_, Some(f)) => (f.set_int32)(self.ptr, &vr, 1, &value, 1),
                _ => ERROR,
            }
        }
    }

    /// Sets one Boolean: FMI 2 an `int`, FMI 3 the raw byte of a C `bool`
    /// (the low byte of `value`).
    pub(crate) fn set_bool(&self, vr: u32, value: i32) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.set_boolean)(self.ptr, &vr, 1, &value),
                (_, Some(f)) => {
                    let b = value as u8;
                    (f.set_boolean)(self.ptr, &vr, 1, &b, 1)
                }
                _ => ERROR,
            }
        }
    }

    /// Sets a value of the variable's type (`value` converted to it).
    pub(crate) fn set(&self, ty: Ty, vr: u32, value: f64) -> i32 {
        match ty {
            Ty::Real => self.set_real(vr, value),
            Ty::Integer => self.set_int(vr, value as i32),
            Ty::Boolean => self.set_bool(vr, value as i32),
        }
    }

    /// getFMUstate into a new state (null on failure) and the status.
    pub(crate) fn get_state(&self) -> (i32, Ptr) {
        let mut st: Ptr = std::ptr::null_mut();
        let s = unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.get_fmu_state)(self.ptr, &mut st),
                (_, Some(f)) => (f.get_fmu_state)(self.ptr, &mut st),
                _ => ERROR,
            }
        };
        (s, st)
    }

    pub(crate) fn set_state(&self, st: Ptr) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.set_fmu_state)(self.ptr, st),
                (_, Some(f)) => (f.set_fmu_state)(self.ptr, st),
                _ => ERROR,
            }
        }
    }

    pub(crate) fn free_state(&self, st: &mut Ptr) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.free_fmu_state)(self.ptr, st),
                (_, Some(f)) => (f.free_fmu_state)(self.ptr, st),
                _ => ERROR,
            }
        }
    }

    pub(crate) fn serialized_size(&self, st: Ptr, size: *mut usize) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.serialized_size)(self.ptr, st, size),
                (_, Some(f)) => (f.serialized_size)(self.ptr, st, size),
                _ => ERROR,
            }
        }
    }

    pub(crate) fn serialize_into(&self, st: Ptr, buf: *mut u8, size: usize) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.serialize)(self.ptr, st, buf, size),
                (_, Some(f)) => (f.serialize)(self.ptr, st, buf, size),
                _ => ERROR,
            }
        }
    }

    pub(crate) fn deserialize_raw(&self, buf: *const u8, size: usize, out: *mut Ptr) -> i32 {
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.deserialize)(self.ptr, buf, size, out),
                (_, Some(f)) => (f.deserialize)(self.ptr, buf, size, out),
                _ => ERROR,
            }
        }
    }

    /// Deserializes bytes into a new state: status and state (null unless
    /// OK).
    pub(crate) fn deserialize(&self, bytes: &[u8]) -> (i32, Ptr) {
        let mut st: Ptr = std::ptr::null_mut();
        let s = self.deserialize_raw(bytes.as_ptr(), bytes.len(), &mut st);
        (s, st)
    }

    /// The serialized bytes of the instance's current state.
    pub(crate) fn serialize_now(&self) -> Result<Vec<u8>> {
        let (s, mut st) = self.get_state();
        if s != OK || st.is_null() {
            bail!("getFMUstate returned {}", status_name(s));
        }
        let out = self.serialize_state(st);
        self.free_state(&mut st);
        out
    }

    /// The serialized bytes of a state.
    pub(crate) fn serialize_state(&self, st: Ptr) -> Result<Vec<u8>> {
        let mut size = 0usize;
        let s = self.serialized_size(st, &mut size);
        if s != OK {
            bail!("serializedFMUstateSize returned {}", status_name(s));
        }
        let mut buf = vec![0u8; size];
        let s = self.serialize_into(st, buf.as_mut_ptr(), size);
        if s != OK {
            bail!("serializeFMUstate returned {}", status_name(s));
        }
        Ok(buf)
    }

    /// Directional derivative with valid arrays.
    pub(crate) fn directional_derivative(&self, unknowns: &[u32], knowns: &[u32]) -> i32 {
        let seed = vec![1.0; knowns.len()];
        let mut out = vec![0.0; unknowns.len()];
        unsafe {
            match (&self.lib.f2, &self.lib.f3) {
                (Some(f), _) => (f.directional_derivative)(
                    self.ptr,
                    unknowns.as_ptr(),
                    unknowns.len(),
                    knowns.as_ptr(),
                    knowns.len(),
                    seed.as_ptr(),
                    out.as_mut_ptr(),
                ),
                (_, Some(f)) => (f.directional_derivative)(
                    self.ptr,
                    unknowns.as_ptr(),
                    unknowns.len(),
                    knowns.as_ptr(),
                    knowns.len(),
                    seed.as_ptr(),
                    seed.len(),
                    out.as_mut_ptr(),
                    out.len(),
                ),
                _ => ERROR,
            }
        }
    }
}
