//! The FMI 3.0 C API (`fmi3FunctionTypes.h`), as raw function pointers
//! read from an FMU's [`Binary`](super::Binary): the Co-Simulation
//! interface ([`Fmi3`]) and what Model Exchange adds ([`Fmi3ModelExchange`]).
//!
//! `fmi3Boolean` (C `bool`) is passed as its byte (`u8`), so that a caller
//! can pass any byte and read whatever the FMU wrote; enums are C `int`s,
//! the status is returned as an `i32` ([`super::status`]), an instance or
//! FMU state is a `void*` ([`Ptr`]). The getters and setters of the types
//! this project's FMUs have no variables of (Float32, the 8-, 16- and
//! 64-bit integers, UInt32, String) take their values as bytes
//! ([`GetAny`], [`SetAny`]).

use super::function_table;
use std::ffi::{c_char, c_void};

/// An instance (`fmi3Instance`) or an FMU state (`fmi3FMUState`).
pub type Ptr = *mut c_void;
/// An array of value references.
type Vr = *const u32;
/// `fmi3Boolean`, as its byte.
pub type Boolean = u8;

/// `fmi3LogMessageCallback`: (instance environment, status, category,
/// message).
pub type LogMessage = unsafe extern "C" fn(*mut c_void, i32, *const c_char, *const c_char);

/// `fmi3IntermediateUpdateCallback`.
pub type IntermediateUpdate = unsafe extern "C" fn(
    *mut c_void,
    f64,
    Boolean,
    Boolean,
    Boolean,
    Boolean,
    *mut Boolean,
    *mut f64,
) -> i32;

/// `fmi3GetXxx` of the typed getters with a `nValues` argument, values as
/// bytes.
pub type GetAny = unsafe extern "C" fn(Ptr, Vr, usize, *mut c_void, usize) -> i32;
/// `fmi3SetXxx` of the typed setters with a `nValues` argument, values as
/// bytes.
pub type SetAny = unsafe extern "C" fn(Ptr, Vr, usize, *const c_void, usize) -> i32;

function_table!(
    /// The functions of the FMI 3.0 Co-Simulation interface (the common
    /// and the Co-Simulation functions): all 62 of them, or a binary is
    /// not an FMI 3.0 Co-Simulation FMU.
    Fmi3 {
        get_version: "fmi3GetVersion": unsafe extern "C" fn() -> *const c_char,
        set_debug_logging: "fmi3SetDebugLogging": unsafe extern "C" fn(Ptr, Boolean, usize, *const *const c_char) -> i32,
        /// (name, instantiation token, resource path, visible, logging on,
        /// event mode used, early return allowed, required intermediate
        /// variables and their count, instance environment, logger,
        /// intermediate update).
        instantiate_co_simulation: "fmi3InstantiateCoSimulation": unsafe extern "C" fn(*const c_char, *const c_char, *const c_char, Boolean, Boolean, Boolean, Boolean, Vr, usize, *mut c_void, Option<LogMessage>, Option<IntermediateUpdate>) -> Ptr,
        free_instance: "fmi3FreeInstance": unsafe extern "C" fn(Ptr),
        /// (instance, tolerance defined, tolerance, start time, stop time
        /// defined, stop time).
        enter_initialization_mode: "fmi3EnterInitializationMode": unsafe extern "C" fn(Ptr, Boolean, f64, f64, Boolean, f64) -> i32,
        exit_initialization_mode: "fmi3ExitInitializationMode": unsafe extern "C" fn(Ptr) -> i32,
        enter_event_mode: "fmi3EnterEventMode": unsafe extern "C" fn(Ptr) -> i32,
        terminate: "fmi3Terminate": unsafe extern "C" fn(Ptr) -> i32,
        reset: "fmi3Reset": unsafe extern "C" fn(Ptr) -> i32,
        get_float32: "fmi3GetFloat32": GetAny,
        get_float64: "fmi3GetFloat64": unsafe extern "C" fn(Ptr, Vr, usize, *mut f64, usize) -> i32,
        get_int8: "fmi3GetInt8": GetAny,
        get_uint8: "fmi3GetUInt8": GetAny,
        get_int16: "fmi3GetInt16": GetAny,
        get_uint16: "fmi3GetUInt16": GetAny,
        get_int32: "fmi3GetInt32": unsafe extern "C" fn(Ptr, Vr, usize, *mut i32, usize) -> i32,
        get_uint32: "fmi3GetUInt32": GetAny,
        get_int64: "fmi3GetInt64": GetAny,
        get_uint64: "fmi3GetUInt64": GetAny,
        get_boolean: "fmi3GetBoolean": unsafe extern "C" fn(Ptr, Vr, usize, *mut Boolean, usize) -> i32,
        get_string: "fmi3GetString": GetAny,
        get_binary: "fmi3GetBinary": unsafe extern "C" fn(Ptr, Vr, usize, *mut usize, *mut *const u8, usize) -> i32,
        get_clock: "fmi3GetClock": unsafe extern "C" fn(Ptr, Vr, usize, *mut Boolean) -> i32,
        set_float32: "fmi3SetFloat32": SetAny,
        set_float64: "fmi3SetFloat64": unsafe extern "C" fn(Ptr, Vr, usize, *const f64, usize) -> i32,
        set_int8: "fmi3SetInt8": SetAny,
        set_uint8: "fmi3SetUInt8": SetAny,
        set_int16: "fmi3SetInt16": SetAny,
        set_uint16: "fmi3SetUInt16": SetAny,
        set_int32: "fmi3SetInt32": unsafe extern "C" fn(Ptr, Vr, usize, *const i32, usize) -> i32,
        set_uint32: "fmi3SetUInt32": SetAny,
        set_int64: "fmi3SetInt64": SetAny,
        set_uint64: "fmi3SetUInt64": SetAny,
        set_boolean: "fmi3SetBoolean": unsafe extern "C" fn(Ptr, Vr, usize, *const Boolean, usize) -> i32,
        set_string: "fmi3SetString": SetAny,
        set_binary: "fmi3SetBinary": unsafe extern "C" fn(Ptr, Vr, usize, *const usize, *const *const u8, usize) -> i32,
        set_clock: "fmi3SetClock": unsafe extern "C" fn(Ptr, Vr, usize, *const Boolean) -> i32,
        get_number_of_variable_dependencies: "fmi3GetNumberOfVariableDependencies": unsafe extern "C" fn(Ptr, u32, *mut usize) -> i32,
        /// (instance, dependent, element indices of the dependent,
        /// independents, their element indices, dependency kinds, count).
        get_variable_dependencies: "fmi3GetVariableDependencies": unsafe extern "C" fn(Ptr, u32, *mut usize, *mut u32, *mut usize, *mut i32, usize) -> i32,
        get_fmu_state: "fmi3GetFMUState": unsafe extern "C" fn(Ptr, *mut Ptr) -> i32,
        set_fmu_state: "fmi3SetFMUState": unsafe extern "C" fn(Ptr, Ptr) -> i32,
        free_fmu_state: "fmi3FreeFMUState": unsafe extern "C" fn(Ptr, *mut Ptr) -> i32,
        serialized_size: "fmi3SerializedFMUStateSize": unsafe extern "C" fn(Ptr, Ptr, *mut usize) -> i32,
        serialize: "fmi3SerializeFMUState": unsafe extern "C" fn(Ptr, Ptr, *mut u8, usize) -> i32,
        deserialize: "fmi3DeserializeFMUState": unsafe extern "C" fn(Ptr, *const u8, usize, *mut Ptr) -> i32,
        /// (instance, unknowns and their count, knowns and their count,
        /// seed and its length, sensitivity and its length).
        directional_derivative: "fmi3GetDirectionalDerivative": unsafe extern "C" fn(Ptr, Vr, usize, Vr, usize, *const f64, usize, *mut f64, usize) -> i32,
        adjoint_derivative: "fmi3GetAdjointDerivative": unsafe extern "C" fn(Ptr, Vr, usize, Vr, usize, *const f64, usize, *mut f64, usize) -> i32,
        enter_configuration_mode: "fmi3EnterConfigurationMode": unsafe extern "C" fn(Ptr) -> i32,
        exit_configuration_mode: "fmi3ExitConfigurationMode": unsafe extern "C" fn(Ptr) -> i32,
        get_interval_decimal: "fmi3GetIntervalDecimal": unsafe extern "C" fn(Ptr, Vr, usize, *mut f64, *mut i32) -> i32,
        get_interval_fraction: "fmi3GetIntervalFraction": unsafe extern "C" fn(Ptr, Vr, usize, *mut u64, *mut u64, *mut i32) -> i32,
        get_shift_decimal: "fmi3GetShiftDecimal": unsafe extern "C" fn(Ptr, Vr, usize, *mut f64) -> i32,
        get_shift_fraction: "fmi3GetShiftFraction": unsafe extern "C" fn(Ptr, Vr, usize, *mut u64, *mut u64) -> i32,
        set_interval_decimal: "fmi3SetIntervalDecimal": unsafe extern "C" fn(Ptr, Vr, usize, *const f64) -> i32,
        set_interval_fraction: "fmi3SetIntervalFraction": unsafe extern "C" fn(Ptr, Vr, usize, *const u64, *const u64) -> i32,
        set_shift_decimal: "fmi3SetShiftDecimal": unsafe extern "C" fn(Ptr, Vr, usize, *const f64) -> i32,
        set_shift_fraction: "fmi3SetShiftFraction": unsafe extern "C" fn(Ptr, Vr, usize, *const u64, *const u64) -> i32,
        evaluate_discrete_states: "fmi3EvaluateDiscreteStates": unsafe extern "C" fn(Ptr) -> i32,
        /// (instance, discrete states need update, terminate simulation,
        /// nominals of continuous states changed, values of continuous
        /// states changed, next event time defined, next event time).
        update_discrete_states: "fmi3UpdateDiscreteStates": unsafe extern "C" fn(Ptr, *mut Boolean, *mut Boolean, *mut Boolean, *mut Boolean, *mut Boolean, *mut f64) -> i32,
        enter_step_mode: "fmi3EnterStepMode": unsafe extern "C" fn(Ptr) -> i32,
        get_output_derivatives: "fmi3GetOutputDerivatives": unsafe extern "C" fn(Ptr, Vr, usize, *const i32, *mut f64, usize) -> i32,
        /// (instance, current communication point, step size, no set FMU
        /// state prior to the current point, event handling needed,
        /// terminate simulation, early return, last successful time).
        do_step: "fmi3DoStep": unsafe extern "C" fn(Ptr, f64, f64, Boolean, *mut Boolean, *mut Boolean, *mut Boolean, *mut f64) -> i32,
    }
);

function_table!(
    /// The functions Model Exchange adds to the common ones of [`Fmi3`].
    Fmi3ModelExchange {
        /// (name, instantiation token, resource path, visible, logging on,
        /// instance environment, logger).
        instantiate: "fmi3InstantiateModelExchange": unsafe extern "C" fn(*const c_char, *const c_char, *const c_char, Boolean, Boolean, *mut c_void, Option<LogMessage>) -> Ptr,
        enter_continuous_time_mode: "fmi3EnterContinuousTimeMode": unsafe extern "C" fn(Ptr) -> i32,
        set_time: "fmi3SetTime": unsafe extern "C" fn(Ptr, f64) -> i32,
        set_continuous_states: "fmi3SetContinuousStates": unsafe extern "C" fn(Ptr, *const f64, usize) -> i32,
        get_continuous_states: "fmi3GetContinuousStates": unsafe extern "C" fn(Ptr, *mut f64, usize) -> i32,
        get_derivatives: "fmi3GetContinuousStateDerivatives": unsafe extern "C" fn(Ptr, *mut f64, usize) -> i32,
        get_nominals: "fmi3GetNominalsOfContinuousStates": unsafe extern "C" fn(Ptr, *mut f64, usize) -> i32,
    }
);
