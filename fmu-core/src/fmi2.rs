//! The FMI 2.0 Co-Simulation interface, generic over the model. The
//! [`crate::export_fmu`] macro exports each of these under its C name.
#![allow(
    non_camel_case_types,
    non_snake_case,
    clippy::missing_safety_doc,
    clippy::too_many_arguments
)]

use crate::context::ResourceFolder;
use crate::ffi::{c_str, c_str_array, guard, slice_in, slice_out, with_instance, write_out};
use crate::instance::ValueType;
use crate::instance::{FmiVersion, Instance};
use crate::logging::{Category, Fmi2Logger, Logger, Sink};
use crate::model::Model;
use crate::status::{FmiResult, Status};
use std::ffi::{c_char, c_int, c_uint, c_void};

/// `fmi2Component`: the opaque instance pointer.
pub type fmi2Component = *mut c_void;
/// `fmi2ComponentEnvironment`: the master's opaque pointer.
pub type fmi2ComponentEnvironment = *mut c_void;
/// `fmi2FMUstate`: an opaque FMU state pointer.
pub type fmi2FMUstate = *mut c_void;
/// `fmi2ValueReference`.
pub type fmi2ValueReference = c_uint;
/// `fmi2Real`.
pub type fmi2Real = f64;
/// `fmi2Integer`.
pub type fmi2Integer = c_int;
/// `fmi2Boolean` (C int, 0 or 1).
pub type fmi2Boolean = c_int;
/// `fmi2Char`.
pub type fmi2Char = c_char;
/// `fmi2String`.
pub type fmi2String = *const c_char;
/// `fmi2Byte`.
pub type fmi2Byte = c_char;
/// `fmi2Status` (a C enum; kept as int so that no invalid value is UB).
pub type fmi2Status = c_int;
/// `fmi2Type` (C enum).
pub type fmi2Type = c_int;
/// `fmi2StatusKind` (C enum).
pub type fmi2StatusKind = c_int;

/// `fmi2CallbackFunctions`.
#[repr(C)]
pub struct fmi2CallbackFunctions {
    /// Logger (mandatory).
    pub logger: Option<Fmi2Logger>,
    /// Memory allocation (unused: Rust's allocator is used).
    pub allocateMemory: Option<unsafe extern "C" fn(usize, usize) -> *mut c_void>,
    /// Memory release (unused).
    pub freeMemory: Option<unsafe extern "C" fn(*mut c_void)>,
    /// Asynchronous step callback (unused).
    pub stepFinished: Option<unsafe extern "C" fn(fmi2ComponentEnvironment, fmi2Status)>,
    /// The master's environment pointer passed back to the logger.
    pub componentEnvironment: fmi2ComponentEnvironment,
}

/// `fmi2EventInfo` (Model Exchange).
#[repr(C)]
pub struct fmi2EventInfo {
    /// Another event iteration is needed.
    pub newDiscreteStatesNeeded: fmi2Boolean,
    /// The simulation should end.
    pub terminateSimulation: fmi2Boolean,
    /// The nominals of the continuous states changed.
    pub nominalsOfContinuousStatesChanged: fmi2Boolean,
    /// The values of the continuous states changed.
    pub valuesOfContinuousStatesChanged: fmi2Boolean,
    /// `nextEventTime` holds the time of the next time event.
    pub nextEventTimeDefined: fmi2Boolean,
    /// The time of the next time event.
    pub nextEventTime: fmi2Real,
}

const FMI2_MODEL_EXCHANGE: fmi2Type = 0;
const FMI2_CO_SIMULATION: fmi2Type = 1;
const FMI2_DO_STEP_STATUS: fmi2StatusKind = 0;
const FMI2_PENDING_STATUS: fmi2StatusKind = 1;
const FMI2_LAST_SUCCESSFUL_TIME: fmi2StatusKind = 2;
const FMI2_TERMINATED: fmi2StatusKind = 3;

const V: FmiVersion = FmiVersion::Fmi2;

fn st(s: Status) -> fmi2Status {
    s as fmi2Status
}

/// `fmi2GetTypesPlatform`.
pub fn get_types_platform<M: Model<N>, const N: usize>() -> *const c_char {
    c"default".as_ptr()
}

/// `fmi2GetVersion`.
pub fn get_version<M: Model<N>, const N: usize>() -> *const c_char {
    c"2.0".as_ptr()
}

/// `fmi2Instantiate`: null on any refusal, with a logged reason when the
/// master gave a logger.
pub unsafe fn instantiate<M: Model<N>, const N: usize>(
    instanceName: fmi2String,
    fmuType: fmi2Type,
    fmuGUID: fmi2String,
    fmuResourceLocation: fmi2String,
    functions: *const fmi2CallbackFunctions,
    _visible: fmi2Boolean,
    loggingOn: fmi2Boolean,
) -> fmi2Component {
    guard(std::ptr::null_mut(), || {
        if functions.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: non-null; the master passes a valid struct.
        let callbacks = unsafe { &*functions };
        let Some(logger) = callbacks.logger else {
            return std::ptr::null_mut();
        };
        let sink = Sink::Fmi2(logger, callbacks.componentEnvironment);
        // SAFETY: null or a C string per the standard.
        let name = unsafe { c_str(instanceName) };
        let log = Logger::new(sink.clone(), name.unwrap_or("?"), true);
        let refuse = |msg: &str| {
            log.log(
                Status::Error,
                Category::Error,
                &format!("fmi2Instantiate: {msg}"),
            );
            std::ptr::null_mut()
        };
        let Some(name) = name else {
            return refuse("instanceName is NULL or not UTF-8");
        };
        if fmuType != FMI2_CO_SIMULATION && fmuType != FMI2_MODEL_EXCHANGE {
            return refuse(&format!(
                "fmuType {fmuType} is neither fmi2ModelExchange (0) nor fmi2CoSimulation (1)"
            ));
        }
        // SAFETY: null or a C string per the standard.
        let Some(guid) = (unsafe { c_str(fmuGUID) }) else {
            return refuse("fmuGUID is NULL");
        };
        // SAFETY: null or a C string per the standard.
        let location = unsafe { c_str(fmuResourceLocation) };
        let resources = ResourceFolder::from_fmi2_uri(location);
        match Instance::<M, N>::new(V, name, guid, resources, sink, loggingOn != 0) {
            Ok(b) if fmuType == FMI2_MODEL_EXCHANGE => {
                Box::into_raw(b.into_model_exchange()) as fmi2Component
            }
            Ok(b) => Box::into_raw(b) as fmi2Component,
            Err(e) => refuse(&e.to_string()),
        }
    })
}

/// `fmi2FreeInstance`.
pub unsafe fn free_instance<M: Model<N>, const N: usize>(c: fmi2Component) {
    guard((), || {
        if c.is_null() {
            return;
        }
        let inst = c as *mut Instance<M, N>;
        // SAFETY: a pointer from instantiate; the marker catches double frees
        // in the common case.
        unsafe {
            if (*inst).is_live() && (*inst).version() == V {
                (*inst).mark_freed();
                drop(Box::from_raw(inst));
            }
        }
    })
}

/// `fmi2SetDebugLogging`.
pub unsafe fn set_debug_logging<M: Model<N>, const N: usize>(
    c: fmi2Component,
    loggingOn: fmi2Boolean,
    nCategories: usize,
    categories: *const fmi2String,
) -> fmi2Status {
    let f = "fmi2SetDebugLogging";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            let cats = c_str_array(i, f, categories, nCategories)?;
            i.set_debug_logging(f, loggingOn != 0, &cats)
        })
    })
}

/// `fmi2SetupExperiment`.
pub unsafe fn setup_experiment<M: Model<N>, const N: usize>(
    c: fmi2Component,
    toleranceDefined: fmi2Boolean,
    tolerance: fmi2Real,
    startTime: fmi2Real,
    stopTimeDefined: fmi2Boolean,
    stopTime: fmi2Real,
) -> fmi2Status {
    let f = "fmi2SetupExperiment";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            i.check_phase(f, crate::instance::Op::SetupExperiment)?;
            i.setup_experiment(
                f,
                (toleranceDefined != 0).then_some(tolerance),
                startTime,
                (stopTimeDefined != 0).then_some(stopTime),
            )
        })
    })
}

/// `fmi2EnterInitializationMode`.
pub unsafe fn enter_initialization_mode<M: Model<N>, const N: usize>(
    c: fmi2Component,
) -> fmi2Status {
    let f = "fmi2EnterInitializationMode";
    st(unsafe { with_instance::<M, N>(c, V, f, |i| i.enter_initialization_mode(f)) })
}

/// `fmi2ExitInitializationMode`.
pub unsafe fn exit_initialization_mode<M: Model<N>, const N: usize>(
    c: fmi2Component,
) -> fmi2Status {
    let f = "fmi2ExitInitializationMode";
    st(unsafe { with_instance::<M, N>(c, V, f, |i| i.exit_initialization_mode(f)) })
}

/// `fmi2Terminate`.
pub unsafe fn terminate<M: Model<N>, const N: usize>(c: fmi2Component) -> fmi2Status {
    let f = "fmi2Terminate";
    st(unsafe { with_instance::<M, N>(c, V, f, |i| i.terminate(f)) })
}

/// `fmi2Reset`.
pub unsafe fn reset<M: Model<N>, const N: usize>(c: fmi2Component) -> fmi2Status {
    let f = "fmi2Reset";
    st(unsafe { with_instance::<M, N>(c, V, f, |i| i.reset(f)) })
}

unsafe fn get_typed<M: Model<N>, const N: usize, T>(
    c: fmi2Component,
    f: &str,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut T,
    vt: ValueType,
    conv: impl Fn(f64) -> T,
) -> fmi2Status {
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            let vrs = slice_in(i, f, "vr", vr, nvr)?;
            let out = slice_out(i, f, "value", value, nvr)?;
            i.get_values(f, vrs, vt, |k, v| out[k] = conv(v))
        })
    })
}

unsafe fn set_typed<M: Model<N>, const N: usize, T: Copy>(
    c: fmi2Component,
    f: &str,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const T,
    vt: ValueType,
    conv: impl Fn(T) -> f64,
) -> fmi2Status {
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            let vrs = slice_in(i, f, "vr", vr, nvr)?;
            let vals = slice_in(i, f, "value", value, nvr)?;
            i.set_values(f, vrs, vt, |k| conv(vals[k]))
        })
    })
}

/// `fmi2GetReal`.
pub unsafe fn get_real<M: Model<N>, const N: usize>(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Real,
) -> fmi2Status {
    unsafe { get_typed::<M, N, _>(c, "fmi2GetReal", vr, nvr, value, ValueType::Real, |v| v) }
}

/// `fmi2GetInteger`.
pub unsafe fn get_integer<M: Model<N>, const N: usize>(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Integer,
) -> fmi2Status {
    unsafe {
        get_typed::<M, N, _>(
            c,
            "fmi2GetInteger",
            vr,
            nvr,
            value,
            ValueType::Integer,
            |v| v as fmi2Integer,
        )
    }
}

/// `fmi2GetBoolean`.
pub unsafe fn get_boolean<M: Model<N>, const N: usize>(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    unsafe {
        get_typed::<M, N, _>(
            c,
            "fmi2GetBoolean",
            vr,
            nvr,
            value,
            ValueType::Boolean,
            |v| fmi2Boolean::from(v != 0.0),
        )
    }
}

/// `fmi2GetString`: this FMU has no String variables.
pub unsafe fn get_string<M: Model<N>, const N: usize>(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    _value: *mut fmi2String,
) -> fmi2Status {
    let f = "fmi2GetString";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            i.check_phase(f, crate::instance::Op::GetValues)?;
            let vrs = slice_in(i, f, "vr", vr, nvr)?;
            i.no_variables_of_type(f, vrs, "String")
        })
    })
}

/// `fmi2SetReal`.
pub unsafe fn set_real<M: Model<N>, const N: usize>(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Real,
) -> fmi2Status {
    unsafe { set_typed::<M, N, _>(c, "fmi2SetReal", vr, nvr, value, ValueType::Real, |v| v) }
}

/// `fmi2SetInteger`.
pub unsafe fn set_integer<M: Model<N>, const N: usize>(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Integer,
) -> fmi2Status {
    unsafe {
        set_typed::<M, N, _>(
            c,
            "fmi2SetInteger",
            vr,
            nvr,
            value,
            ValueType::Integer,
            f64::from,
        )
    }
}

/// `fmi2SetBoolean`.
pub unsafe fn set_boolean<M: Model<N>, const N: usize>(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Boolean,
) -> fmi2Status {
    unsafe {
        set_typed::<M, N, _>(
            c,
            "fmi2SetBoolean",
            vr,
            nvr,
            value,
            ValueType::Boolean,
            |v| {
                if v != 0 { 1.0 } else { 0.0 }
            },
        )
    }
}

/// `fmi2SetString`: this FMU has no String variables.
pub unsafe fn set_string<M: Model<N>, const N: usize>(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    _value: *const fmi2String,
) -> fmi2Status {
    let f = "fmi2SetString";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            i.check_phase(f, crate::instance::Op::SetValues)?;
            let vrs = slice_in(i, f, "vr", vr, nvr)?;
            i.no_variables_of_type(f, vrs, "String")
        })
    })
}

/// `fmi2GetFMUstate`: a new snapshot, or overwrites `*FMUstate` if it is one.
pub unsafe fn get_fmu_state<M: Model<N>, const N: usize>(
    c: fmi2Component,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    let f = "fmi2GetFMUstate";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            crate::instance::snapshot::get_state(i, f, FMUstate)
        })
    })
}

/// `fmi2SetFMUstate`.
pub unsafe fn set_fmu_state<M: Model<N>, const N: usize>(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
) -> fmi2Status {
    let f = "fmi2SetFMUstate";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            crate::instance::snapshot::set_state(i, f, FMUstate)
        })
    })
}

/// `fmi2FreeFMUstate`.
pub unsafe fn free_fmu_state<M: Model<N>, const N: usize>(
    c: fmi2Component,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    let f = "fmi2FreeFMUstate";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            crate::instance::snapshot::free_state(i, f, FMUstate)
        })
    })
}

/// `fmi2SerializedFMUstateSize`.
pub unsafe fn serialized_fmu_state_size<M: Model<N>, const N: usize>(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
    size: *mut usize,
) -> fmi2Status {
    let f = "fmi2SerializedFMUstateSize";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            crate::instance::snapshot::serialized_size(i, f, FMUstate, size)
        })
    })
}

/// `fmi2SerializeFMUstate`.
pub unsafe fn serialize_fmu_state<M: Model<N>, const N: usize>(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
    serializedState: *mut fmi2Byte,
    size: usize,
) -> fmi2Status {
    let f = "fmi2SerializeFMUstate";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            crate::instance::snapshot::serialize(i, f, FMUstate, serializedState as *mut u8, size)
        })
    })
}

/// `fmi2DeSerializeFMUstate`.
pub unsafe fn deserialize_fmu_state<M: Model<N>, const N: usize>(
    c: fmi2Component,
    serializedState: *const fmi2Byte,
    size: usize,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    let f = "fmi2DeSerializeFMUstate";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            crate::instance::snapshot::deserialize(
                i,
                f,
                serializedState as *const u8,
                size,
                FMUstate,
            )
        })
    })
}

/// `fmi2GetDirectionalDerivative`.
pub unsafe fn get_directional_derivative<M: Model<N>, const N: usize>(
    c: fmi2Component,
    vUnknown_ref: *const fmi2ValueReference,
    nUnknown: usize,
    vKnown_ref: *const fmi2ValueReference,
    nKnown: usize,
    dvKnown: *const fmi2Real,
    dvUnknown: *mut fmi2Real,
) -> fmi2Status {
    let f = "fmi2GetDirectionalDerivative";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            let unknowns = slice_in(i, f, "vUnknown_ref", vUnknown_ref, nUnknown)?;
            let knowns = slice_in(i, f, "vKnown_ref", vKnown_ref, nKnown)?;
            let seed = slice_in(i, f, "dvKnown", dvKnown, nKnown)?;
            let out = slice_out(i, f, "dvUnknown", dvUnknown, nUnknown)?;
            i.directional_derivative(f, unknowns, knowns, seed, out)
        })
    })
}

/// `fmi2SetRealInputDerivatives`: refused (canInterpolateInputs = false).
pub unsafe fn set_real_input_derivatives<M: Model<N>, const N: usize>(
    c: fmi2Component,
    _vr: *const fmi2ValueReference,
    _nvr: usize,
    _order: *const fmi2Integer,
    _value: *const fmi2Real,
) -> fmi2Status {
    let f = "fmi2SetRealInputDerivatives";
    st(unsafe { with_instance::<M, N>(c, V, f, |i| i.unsupported(f, "input interpolation")) })
}

/// `fmi2GetRealOutputDerivatives`: refused (maxOutputDerivativeOrder = 0).
pub unsafe fn get_real_output_derivatives<M: Model<N>, const N: usize>(
    c: fmi2Component,
    _vr: *const fmi2ValueReference,
    _nvr: usize,
    _order: *const fmi2Integer,
    _value: *mut fmi2Real,
) -> fmi2Status {
    let f = "fmi2GetRealOutputDerivatives";
    st(unsafe { with_instance::<M, N>(c, V, f, |i| i.unsupported(f, "output derivatives")) })
}

/// `fmi2DoStep`.
pub unsafe fn do_step<M: Model<N>, const N: usize>(
    c: fmi2Component,
    currentCommunicationPoint: fmi2Real,
    communicationStepSize: fmi2Real,
    _noSetFMUStatePriorToCurrentPoint: fmi2Boolean,
) -> fmi2Status {
    let f = "fmi2DoStep";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            i.do_step(f, currentCommunicationPoint, communicationStepSize)
        })
    })
}

/// `fmi2CancelStep`: refused (steps are never asynchronous).
pub unsafe fn cancel_step<M: Model<N>, const N: usize>(c: fmi2Component) -> fmi2Status {
    let f = "fmi2CancelStep";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            i.unsupported(f, "cancelling a step (doStep never returns Pending)")
        })
    })
}

fn status_query<M: Model<N>, const N: usize>(
    i: &Instance<M, N>,
    f: &str,
    s: fmi2StatusKind,
    expected: fmi2StatusKind,
) -> FmiResult {
    i.check_status_query(f)?;
    if s != expected {
        let names = [
            "fmi2DoStepStatus",
            "fmi2PendingStatus",
            "fmi2LastSuccessfulTime",
            "fmi2Terminated",
        ];
        let name = usize::try_from(s)
            .ok()
            .and_then(|k| names.get(k))
            .unwrap_or(&"unknown");
        return i.fail(
            Status::Discard,
            f,
            &format!("status kind {s} ({name}) is not available through this function"),
        );
    }
    Ok(())
}

/// `fmi2GetStatus`: `fmi2DoStepStatus` is always OK (steps are synchronous).
pub unsafe fn get_status<M: Model<N>, const N: usize>(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Status,
) -> fmi2Status {
    let f = "fmi2GetStatus";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            status_query(i, f, s, FMI2_DO_STEP_STATUS)?;
            write_out(i, f, "value", value, Status::Ok as fmi2Status)
        })
    })
}

/// `fmi2GetRealStatus`: `fmi2LastSuccessfulTime`.
pub unsafe fn get_real_status<M: Model<N>, const N: usize>(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Real,
) -> fmi2Status {
    let f = "fmi2GetRealStatus";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            status_query(i, f, s, FMI2_LAST_SUCCESSFUL_TIME)?;
            write_out(i, f, "value", value, i.last_successful_time())
        })
    })
}

/// `fmi2GetIntegerStatus`: no integer status exists.
pub unsafe fn get_integer_status<M: Model<N>, const N: usize>(
    c: fmi2Component,
    s: fmi2StatusKind,
    _value: *mut fmi2Integer,
) -> fmi2Status {
    let f = "fmi2GetIntegerStatus";
    st(unsafe { with_instance::<M, N>(c, V, f, |i| status_query(i, f, s, -1)) })
}

/// `fmi2GetBooleanStatus`: `fmi2Terminated`, true after a doStep that
/// refused a step no retry can complete ([`Instance::terminated`]).
pub unsafe fn get_boolean_status<M: Model<N>, const N: usize>(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    let f = "fmi2GetBooleanStatus";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            status_query(i, f, s, FMI2_TERMINATED)?;
            write_out(i, f, "value", value, fmi2Boolean::from(i.terminated()))
        })
    })
}

/// `fmi2GetStringStatus`: `fmi2PendingStatus` is never pending.
pub unsafe fn get_string_status<M: Model<N>, const N: usize>(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2String,
) -> fmi2Status {
    let f = "fmi2GetStringStatus";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            status_query(i, f, s, FMI2_PENDING_STATUS)?;
            write_out(i, f, "value", value, c"".as_ptr())
        })
    })
}

/// `fmi2SetTime` (Model Exchange).
pub unsafe fn set_time<M: Model<N>, const N: usize>(
    c: fmi2Component,
    time: fmi2Real,
) -> fmi2Status {
    let f = "fmi2SetTime";
    st(unsafe { with_instance::<M, N>(c, V, f, |i| i.set_time(f, time)) })
}

/// `fmi2SetContinuousStates` (Model Exchange).
pub unsafe fn set_continuous_states<M: Model<N>, const N: usize>(
    c: fmi2Component,
    x: *const fmi2Real,
    nx: usize,
) -> fmi2Status {
    let f = "fmi2SetContinuousStates";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            let x = slice_in(i, f, "x", x, nx)?;
            i.set_continuous_states(f, x)
        })
    })
}

/// `fmi2GetDerivatives` (Model Exchange).
pub unsafe fn get_derivatives<M: Model<N>, const N: usize>(
    c: fmi2Component,
    derivatives: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    let f = "fmi2GetDerivatives";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            let out = slice_out(i, f, "derivatives", derivatives, nx)?;
            i.get_derivatives(f, out)
        })
    })
}

/// `fmi2GetEventIndicators` (Model Exchange).
pub unsafe fn get_event_indicators<M: Model<N>, const N: usize>(
    c: fmi2Component,
    eventIndicators: *mut fmi2Real,
    ni: usize,
) -> fmi2Status {
    let f = "fmi2GetEventIndicators";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            let out = slice_out(i, f, "eventIndicators", eventIndicators, ni)?;
            i.get_event_indicators(f, out)
        })
    })
}

/// `fmi2GetContinuousStates` (Model Exchange).
pub unsafe fn get_continuous_states<M: Model<N>, const N: usize>(
    c: fmi2Component,
    x: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    let f = "fmi2GetContinuousStates";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            let out = slice_out(i, f, "x", x, nx)?;
            i.get_continuous_states(f, out)
        })
    })
}

/// `fmi2GetNominalsOfContinuousStates` (Model Exchange).
pub unsafe fn get_nominals_of_continuous_states<M: Model<N>, const N: usize>(
    c: fmi2Component,
    x_nominal: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    let f = "fmi2GetNominalsOfContinuousStates";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            let out = slice_out(i, f, "x_nominal", x_nominal, nx)?;
            i.get_nominals(f, out)
        })
    })
}

/// `fmi2EnterEventMode` (Model Exchange).
pub unsafe fn enter_event_mode<M: Model<N>, const N: usize>(c: fmi2Component) -> fmi2Status {
    let f = "fmi2EnterEventMode";
    st(unsafe { with_instance::<M, N>(c, V, f, |i| i.enter_event_mode(f)) })
}

/// `fmi2NewDiscreteStates` (Model Exchange): no discrete states, no time
/// events.
pub unsafe fn new_discrete_states<M: Model<N>, const N: usize>(
    c: fmi2Component,
    eventInfo: *mut fmi2EventInfo,
) -> fmi2Status {
    let f = "fmi2NewDiscreteStates";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            if eventInfo.is_null() {
                return i.fail(Status::Error, f, "argument 'fmi2eventInfo' is NULL");
            }
            let info = i.update_discrete_states(f)?;
            let b = |v: bool| fmi2Boolean::from(v);
            eventInfo.write(fmi2EventInfo {
                newDiscreteStatesNeeded: b(info.discrete_states_need_update),
                terminateSimulation: b(info.terminate_simulation),
                nominalsOfContinuousStatesChanged: b(info.nominals_changed),
                valuesOfContinuousStatesChanged: b(info.values_changed),
                nextEventTimeDefined: b(info.next_event_time.is_some()),
                nextEventTime: info.next_event_time.unwrap_or(0.0),
            });
            Ok(())
        })
    })
}

/// `fmi2EnterContinuousTimeMode` (Model Exchange).
pub unsafe fn enter_continuous_time_mode<M: Model<N>, const N: usize>(
    c: fmi2Component,
) -> fmi2Status {
    let f = "fmi2EnterContinuousTimeMode";
    st(unsafe { with_instance::<M, N>(c, V, f, |i| i.enter_continuous_time_mode(f)) })
}

/// `fmi2CompletedIntegratorStep` (Model Exchange): never asks for an
/// event or the end.
pub unsafe fn completed_integrator_step<M: Model<N>, const N: usize>(
    c: fmi2Component,
    _noSetFMUStatePriorToCurrentPoint: fmi2Boolean,
    enterEventMode: *mut fmi2Boolean,
    terminateSimulation: *mut fmi2Boolean,
) -> fmi2Status {
    let f = "fmi2CompletedIntegratorStep";
    st(unsafe {
        with_instance::<M, N>(c, V, f, |i| {
            write_out(i, f, "enterEventMode", enterEventMode, 0)?;
            write_out(i, f, "terminateSimulation", terminateSimulation, 0)?;
            let (event, stop) = i.completed_integrator_step(f)?;
            enterEventMode.write(fmi2Boolean::from(event));
            terminateSimulation.write(fmi2Boolean::from(stop));
            Ok(())
        })
    })
}
