//! The FMI 2.0 Co-Simulation C API (`fmi2FunctionTypes.h`), as raw
//! function pointers read from an FMU's [`Binary`](super::Binary).
//!
//! Enums (`fmi2Type`, `fmi2StatusKind`) and `fmi2Boolean` are C `int`s
//! (`i32`), the status is returned as an `i32` ([`super::status`]), an
//! instance or FMU state is a `void*` ([`Ptr`]).

use super::function_table;
use std::ffi::{c_char, c_void};

/// An instance (`fmi2Component`) or an FMU state (`fmi2FMUstate`).
pub type Ptr = *mut c_void;
/// An array of value references.
type Vr = *const u32;

/// `fmi2CallbackLogger`. C declares it variadic (`message` is a printf
/// format); on x86_64 System V a variadic call passes its first integer
/// arguments in the same registers as a plain call, so a logger written
/// with this type reads the first variadic argument as its sixth
/// parameter.
pub type Logger = unsafe extern "C" fn(
    *mut c_void,
    *const c_char,
    i32,
    *const c_char,
    *const c_char,
    *const c_char,
);

/// `fmi2CallbackFunctions`.
#[repr(C)]
pub struct CallbackFunctions {
    /// `logger`.
    pub logger: Option<Logger>,
    /// `allocateMemory` (calloc's contract).
    pub allocate: Option<unsafe extern "C" fn(usize, usize) -> *mut c_void>,
    /// `freeMemory`.
    pub free: Option<unsafe extern "C" fn(*mut c_void)>,
    /// `stepFinished` (asynchronous `doStep`; NULL here).
    pub step_finished: Option<unsafe extern "C" fn(*mut c_void, i32)>,
    /// `componentEnvironment`, passed to the logger.
    pub env: *mut c_void,
}

/// `allocateMemory` as libc's `calloc`.
///
/// # Safety
/// As `calloc`.
pub unsafe extern "C" fn calloc(n: usize, size: usize) -> *mut c_void {
    // SAFETY: plain libc calloc.
    unsafe { libc::calloc(n, size) }
}

/// `freeMemory` as libc's `free`.
///
/// # Safety
/// `p` is null or was returned by [`calloc`].
pub unsafe extern "C" fn free(p: *mut c_void) {
    // SAFETY: per the caller.
    unsafe { libc::free(p) }
}

/// `fmi2GetXxx` of any type, values as bytes (for calls with NULL or
/// foreign value arrays).
pub type GetAny = unsafe extern "C" fn(Ptr, Vr, usize, *mut c_void) -> i32;
/// `fmi2SetXxx` of any type, values as bytes.
pub type SetAny = unsafe extern "C" fn(Ptr, Vr, usize, *const c_void) -> i32;

/// The `fmi2StatusKind` values.
pub mod status_kind {
    /// `fmi2DoStepStatus`.
    pub const DO_STEP_STATUS: i32 = 0;
    /// `fmi2PendingStatus`.
    pub const PENDING_STATUS: i32 = 1;
    /// `fmi2LastSuccessfulTime`.
    pub const LAST_SUCCESSFUL_TIME: i32 = 2;
    /// `fmi2Terminated`.
    pub const TERMINATED: i32 = 3;
}

function_table!(
    /// The functions of the FMI 2.0 Co-Simulation interface (the common
    /// and the Co-Simulation functions): all 34 of them, or a binary is
    /// not an FMI 2.0 Co-Simulation FMU.
    Fmi2 {
        get_types_platform: "fmi2GetTypesPlatform": unsafe extern "C" fn() -> *const c_char,
        get_version: "fmi2GetVersion": unsafe extern "C" fn() -> *const c_char,
        set_debug_logging: "fmi2SetDebugLogging": unsafe extern "C" fn(Ptr, i32, usize, *const *const c_char) -> i32,
        instantiate: "fmi2Instantiate": unsafe extern "C" fn(*const c_char, i32, *const c_char, *const c_char, *const CallbackFunctions, i32, i32) -> Ptr,
        free_instance: "fmi2FreeInstance": unsafe extern "C" fn(Ptr),
        setup_experiment: "fmi2SetupExperiment": unsafe extern "C" fn(Ptr, i32, f64, f64, i32, f64) -> i32,
        enter_initialization_mode: "fmi2EnterInitializationMode": unsafe extern "C" fn(Ptr) -> i32,
        exit_initialization_mode: "fmi2ExitInitializationMode": unsafe extern "C" fn(Ptr) -> i32,
        terminate: "fmi2Terminate": unsafe extern "C" fn(Ptr) -> i32,
        reset: "fmi2Reset": unsafe extern "C" fn(Ptr) -> i32,
        get_real: "fmi2GetReal": unsafe extern "C" fn(Ptr, Vr, usize, *mut f64) -> i32,
        get_integer: "fmi2GetInteger": unsafe extern "C" fn(Ptr, Vr, usize, *mut i32) -> i32,
        get_boolean: "fmi2GetBoolean": unsafe extern "C" fn(Ptr, Vr, usize, *mut i32) -> i32,
        get_string: "fmi2GetString": unsafe extern "C" fn(Ptr, Vr, usize, *mut *const c_char) -> i32,
        set_real: "fmi2SetReal": unsafe extern "C" fn(Ptr, Vr, usize, *const f64) -> i32,
        set_integer: "fmi2SetInteger": unsafe extern "C" fn(Ptr, Vr, usize, *const i32) -> i32,
        set_boolean: "fmi2SetBoolean": unsafe extern "C" fn(Ptr, Vr, usize, *const i32) -> i32,
        set_string: "fmi2SetString": unsafe extern "C" fn(Ptr, Vr, usize, *const *const c_char) -> i32,
        get_fmu_state: "fmi2GetFMUstate": unsafe extern "C" fn(Ptr, *mut Ptr) -> i32,
        set_fmu_state: "fmi2SetFMUstate": unsafe extern "C" fn(Ptr, Ptr) -> i32,
        free_fmu_state: "fmi2FreeFMUstate": unsafe extern "C" fn(Ptr, *mut Ptr) -> i32,
        serialized_size: "fmi2SerializedFMUstateSize": unsafe extern "C" fn(Ptr, Ptr, *mut usize) -> i32,
        serialize: "fmi2SerializeFMUstate": unsafe extern "C" fn(Ptr, Ptr, *mut u8, usize) -> i32,
        deserialize: "fmi2DeSerializeFMUstate": unsafe extern "C" fn(Ptr, *const u8, usize, *mut Ptr) -> i32,
        directional_derivative: "fmi2GetDirectionalDerivative": unsafe extern "C" fn(Ptr, Vr, usize, Vr, usize, *const f64, *mut f64) -> i32,
        set_real_input_derivatives: "fmi2SetRealInputDerivatives": unsafe extern "C" fn(Ptr, Vr, usize, *const i32, *const f64) -> i32,
        get_real_output_derivatives: "fmi2GetRealOutputDerivatives": unsafe extern "C" fn(Ptr, Vr, usize, *const i32, *mut f64) -> i32,
        do_step: "fmi2DoStep": unsafe extern "C" fn(Ptr, f64, f64, i32) -> i32,
        cancel_step: "fmi2CancelStep": unsafe extern "C" fn(Ptr) -> i32,
        get_status: "fmi2GetStatus": unsafe extern "C" fn(Ptr, i32, *mut i32) -> i32,
        get_real_status: "fmi2GetRealStatus": unsafe extern "C" fn(Ptr, i32, *mut f64) -> i32,
        get_integer_status: "fmi2GetIntegerStatus": unsafe extern "C" fn(Ptr, i32, *mut i32) -> i32,
        get_boolean_status: "fmi2GetBooleanStatus": unsafe extern "C" fn(Ptr, i32, *mut i32) -> i32,
        get_string_status: "fmi2GetStringStatus": unsafe extern "C" fn(Ptr, i32, *mut *const c_char) -> i32,
    }
);
