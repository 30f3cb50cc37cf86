//! A minimal master for tests that call the exported FMI functions of the
//! test model `Relaxation` directly, in process, with a logger that records
//! every message.
#![allow(dead_code)]

pub mod relaxation;

use fmu_core::fmi2::{fmi2CallbackFunctions, fmi2Component};
use fmu_core::fmi3::fmi3Instance;
use relaxation as oc;
use std::ffi::{CStr, CString, c_char, c_void};
use std::sync::Mutex;

/// FMI status codes.
pub const OK: i32 = 0;
pub const DISCARD: i32 = 2;
pub const ERROR: i32 = 3;

/// One recorded log message: (status, category, text).
pub type Message = (i32, String, String);

/// Messages recorded by the loggers; the master passes a pointer to it as
/// the environment.
pub struct LogBook(pub Mutex<Vec<Message>>);

impl LogBook {
    pub fn new() -> Box<Self> {
        Box::new(LogBook(Mutex::new(Vec::new())))
    }
    pub fn take(&self) -> Vec<Message> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
    /// Whether a message containing `needle` was logged since the last take.
    pub fn saw(&self, needle: &str) -> bool {
        self.take().iter().any(|(_, _, m)| m.contains(needle))
    }
}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: the FMU passes NUL-terminated strings.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// FMI 2 logger. The FMI 2 logger type is variadic; the FMU always calls it
/// with the format "%s" and exactly one string argument, which on x86_64
/// (System V) arrives exactly like a sixth fixed argument, so a fixed-arity
/// function stands in for the variadic one (stable Rust cannot define
/// variadic functions).
unsafe extern "C" fn fmi2_logger(
    env: *mut c_void,
    _name: *const c_char,
    status: i32,
    category: *const c_char,
    format: *const c_char,
    arg: *const c_char,
) {
    assert_eq!(text(format), "%s");
    // SAFETY: env is the LogBook the test passed.
    let book = unsafe { &*(env as *const LogBook) };
    book.0
        .lock()
        .unwrap()
        .push((status, text(category), text(arg)));
}

pub unsafe extern "C" fn fmi3_logger(
    env: *mut c_void,
    status: i32,
    category: *const c_char,
    message: *const c_char,
) {
    // SAFETY: env is the LogBook the test passed.
    let book = unsafe { &*(env as *const LogBook) };
    book.0
        .lock()
        .unwrap()
        .push((status, text(category), text(message)));
}
/// The instantiation token the FMU expects.
pub fn token() -> CString {
    let desc = fmu_core::full_description::<oc::Relaxation, { oc::NX }>();
    CString::new(desc.instantiation_token()).unwrap()
}

/// The value reference of a variable, by name.
pub fn vr(name: &str) -> u32 {
    fmu_core::full_description::<oc::Relaxation, { oc::NX }>()
        .variable_by_name(name)
        .unwrap_or_else(|| panic!("no variable {name}"))
        .value_reference
}

/// An FMI 2 Co-Simulation instance of the test model.
pub struct Fmi2 {
    pub c: fmi2Component,
    pub log: Box<LogBook>,
    _callbacks: Box<fmi2CallbackFunctions>,
}

impl Fmi2 {
    pub fn callbacks(log: &LogBook) -> Box<fmi2CallbackFunctions> {
        // SAFETY: see fmi2_logger: same ABI for the one call shape used.
        let logger = unsafe {
            std::mem::transmute::<
                unsafe extern "C" fn(
                    *mut c_void,
                    *const c_char,
                    i32,
                    *const c_char,
                    *const c_char,
                    *const c_char,
                ),
                fmu_core::logging::Fmi2Logger,
            >(fmi2_logger)
        };
        Box::new(fmi2CallbackFunctions {
            logger: Some(logger),
            allocateMemory: None,
            freeMemory: None,
            stepFinished: None,
            componentEnvironment: log as *const LogBook as *mut c_void,
        })
    }

    /// Instantiates; panics if refused.
    pub fn new() -> Self {
        Self::try_new(&token(), 1).expect("instantiation refused")
    }

    /// Instantiates with a given token and fmuType; the log book of a
    /// refusal is returned as the error.
    pub fn try_new(token: &CStr, fmu_type: i32) -> Result<Self, Vec<Message>> {
        Self::with_resources(token, fmu_type, None)
    }

    /// Instantiates with a resource location URI (NULL when `None`).
    pub fn with_resources(
        token: &CStr,
        fmu_type: i32,
        resources: Option<&CStr>,
    ) -> Result<Self, Vec<Message>> {
        let log = LogBook::new();
        let callbacks = Self::callbacks(&log);
        let name = CString::new("test").unwrap();
        // SAFETY: valid arguments per the FMI 2 standard.
        let c = unsafe {
            oc::fmi2Instantiate(
                name.as_ptr(),
                fmu_type,
                token.as_ptr(),
                resources.map_or(std::ptr::null(), CStr::as_ptr),
                &*callbacks,
                0,
                1,
            )
        };
        if c.is_null() {
            Err(log.take())
        } else {
            Ok(Fmi2 {
                c,
                log,
                _callbacks: callbacks,
            })
        }
    }

    /// Instantiated, initialized at t = 0 and ready to step.
    pub fn initialized() -> Self {
        let f = Self::new();
        f.init();
        f
    }

    pub fn init(&self) {
        // SAFETY: live instance.
        unsafe {
            assert_eq!(oc::fmi2SetupExperiment(self.c, 0, 0.0, 0.0, 0, 0.0), OK);
            assert_eq!(oc::fmi2EnterInitializationMode(self.c), OK);
            assert_eq!(oc::fmi2ExitInitializationMode(self.c), OK);
        }
    }

    pub fn get(&self, vr: u32) -> f64 {
        let mut v = f64::NAN;
        // SAFETY: one vr, one value.
        assert_eq!(unsafe { oc::fmi2GetReal(self.c, &vr, 1, &mut v) }, OK);
        v
    }

    pub fn get_many(&self, vrs: &[u32]) -> Vec<f64> {
        let mut v = vec![f64::NAN; vrs.len()];
        // SAFETY: arrays of the same length.
        assert_eq!(
            unsafe { oc::fmi2GetReal(self.c, vrs.as_ptr(), vrs.len(), v.as_mut_ptr()) },
            OK
        );
        v
    }

    pub fn set(&self, vr: u32, value: f64) -> i32 {
        // SAFETY: one vr, one value.
        unsafe { oc::fmi2SetReal(self.c, &vr, 1, &value) }
    }

    pub fn get_int(&self, vr: u32) -> i32 {
        let mut v = i32::MIN;
        // SAFETY: one vr, one value.
        assert_eq!(unsafe { oc::fmi2GetInteger(self.c, &vr, 1, &mut v) }, OK);
        v
    }

    pub fn set_int(&self, vr: u32, value: i32) -> i32 {
        // SAFETY: one vr, one value.
        unsafe { oc::fmi2SetInteger(self.c, &vr, 1, &value) }
    }

    pub fn set_bool(&self, vr: u32, value: bool) -> i32 {
        let v = i32::from(value);
        // SAFETY: one vr, one value.
        unsafe { oc::fmi2SetBoolean(self.c, &vr, 1, &v) }
    }

    pub fn step(&self, t: f64, h: f64) -> i32 {
        // SAFETY: live instance.
        unsafe { oc::fmi2DoStep(self.c, t, h, 1) }
    }

    /// Steps n times by h from t0; returns the time reached.
    pub fn run(&self, t0: f64, h: f64, n: usize) -> f64 {
        let mut t = t0;
        for _ in 0..n {
            assert_eq!(self.step(t, h), OK, "step at {t}: {:?}", self.log.take());
            t += h;
        }
        t
    }

    pub fn time(&self) -> f64 {
        self.get(vr("time"))
    }
}

impl Drop for Fmi2 {
    fn drop(&mut self) {
        // SAFETY: live instance, freed once.
        unsafe { oc::fmi2FreeInstance(self.c) };
    }
}

/// An FMI 3 Co-Simulation instance of the test model.
pub struct Fmi3 {
    pub c: fmi3Instance,
    pub log: Box<LogBook>,
}

impl Fmi3 {
    pub fn try_new(token: &CStr) -> Result<Self, Vec<Message>> {
        Self::with_resources(token, None)
    }

    /// Instantiates with a resource path (NULL when `None`).
    pub fn with_resources(token: &CStr, resources: Option<&CStr>) -> Result<Self, Vec<Message>> {
        let log = LogBook::new();
        let name = CString::new("test3").unwrap();
        // SAFETY: valid arguments per the FMI 3 standard.
        let c = unsafe {
            oc::fmi3InstantiateCoSimulation(
                name.as_ptr(),
                token.as_ptr(),
                resources.map_or(std::ptr::null(), CStr::as_ptr),
                0,
                1,
                0,
                0,
                std::ptr::null(),
                0,
                &*log as *const LogBook as *mut c_void,
                Some(fmi3_logger),
                None,
            )
        };
        if c.is_null() {
            Err(log.take())
        } else {
            Ok(Fmi3 { c, log })
        }
    }

    pub fn initialized() -> Self {
        let f = Self::try_new(&token()).expect("instantiation refused");
        // SAFETY: live instance.
        unsafe {
            assert_eq!(
                oc::fmi3EnterInitializationMode(f.c, 0, 0.0, 0.0, 0, 0.0),
                OK
            );
            assert_eq!(oc::fmi3ExitInitializationMode(f.c), OK);
        }
        f
    }

    pub fn get(&self, vr: u32) -> f64 {
        let mut v = f64::NAN;
        // SAFETY: one vr, one value.
        assert_eq!(unsafe { oc::fmi3GetFloat64(self.c, &vr, 1, &mut v, 1) }, OK);
        v
    }

    pub fn set(&self, vr: u32, value: f64) -> i32 {
        // SAFETY: one vr, one value.
        unsafe { oc::fmi3SetFloat64(self.c, &vr, 1, &value, 1) }
    }

    pub fn set_int(&self, vr: u32, value: i32) -> i32 {
        // SAFETY: one vr, one value.
        unsafe { oc::fmi3SetInt32(self.c, &vr, 1, &value, 1) }
    }

    /// doStep; returns (status, lastSuccessfulTime).
    pub fn step(&self, t: f64, h: f64) -> (i32, f64) {
        let (mut ev, mut term, mut early, mut last) = (9u8, 9u8, 9u8, f64::NAN);
        // SAFETY: all out-pointers valid.
        let s =
            unsafe { oc::fmi3DoStep(self.c, t, h, 1, &mut ev, &mut term, &mut early, &mut last) };
        if s == OK {
            assert_eq!((ev, term, early), (0, 0, 0));
        }
        (s, last)
    }
}

impl Drop for Fmi3 {
    fn drop(&mut self) {
        // SAFETY: live instance, freed once.
        unsafe { oc::fmi3FreeInstance(self.c) };
    }
}

/// FNV-1a 64, the checksum of the serialized FMU state format (what a
/// forger recomputes after changing a field).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
