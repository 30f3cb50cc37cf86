//! The FMI 3.0 interface (Co-Simulation and Model Exchange; Scheduled
//! Execution answers with an error), generic over the model. The
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
use crate::logging::{Category, Fmi3Logger, Logger, Sink};
use crate::model::Model;
use crate::status::{FmiResult, Status};
use std::ffi::{c_char, c_int, c_void};

/// `fmi3Instance`.
pub type fmi3Instance = *mut c_void;
/// `fmi3InstanceEnvironment`.
pub type fmi3InstanceEnvironment = *mut c_void;
/// `fmi3FMUState`.
pub type fmi3FMUState = *mut c_void;
/// `fmi3ValueReference`.
pub type fmi3ValueReference = u32;
/// `fmi3Float32`.
pub type fmi3Float32 = f32;
/// `fmi3Float64`.
pub type fmi3Float64 = f64;
/// `fmi3Int8`.
pub type fmi3Int8 = i8;
/// `fmi3UInt8`.
pub type fmi3UInt8 = u8;
/// `fmi3Int16`.
pub type fmi3Int16 = i16;
/// `fmi3UInt16`.
pub type fmi3UInt16 = u16;
/// `fmi3Int32`.
pub type fmi3Int32 = i32;
/// `fmi3UInt32`.
pub type fmi3UInt32 = u32;
/// `fmi3Int64`.
pub type fmi3Int64 = i64;
/// `fmi3UInt64`.
pub type fmi3UInt64 = u64;
/// `fmi3Boolean` (C `bool`; read as a byte so that no invalid value is UB).
pub type fmi3Boolean = u8;
/// `fmi3Char`.
pub type fmi3Char = c_char;
/// `fmi3String`.
pub type fmi3String = *const c_char;
/// `fmi3Byte`.
pub type fmi3Byte = u8;
/// `fmi3Binary`.
pub type fmi3Binary = *const u8;
/// `fmi3Clock` (C `bool`).
pub type fmi3Clock = u8;
/// `fmi3Status` (C enum, kept as int).
pub type fmi3Status = c_int;
/// `fmi3DependencyKind` (C enum).
pub type fmi3DependencyKind = c_int;
/// `fmi3IntervalQualifier` (C enum).
pub type fmi3IntervalQualifier = c_int;
/// `fmi3LogMessageCallback`.
pub type fmi3LogMessageCallback = Option<Fmi3Logger>;
/// `fmi3IntermediateUpdateCallback` (never called: no intermediate update).
pub type fmi3IntermediateUpdateCallback = Option<
    unsafe extern "C" fn(
        fmi3InstanceEnvironment,
        fmi3Float64,
        fmi3Boolean,
        fmi3Boolean,
        fmi3Boolean,
        fmi3Boolean,
        *mut fmi3Boolean,
        *mut fmi3Float64,
    ),
>;
/// `fmi3ClockUpdateCallback` (Scheduled Execution; unused).
pub type fmi3ClockUpdateCallback = Option<unsafe extern "C" fn(fmi3InstanceEnvironment)>;
/// `fmi3LockPreemptionCallback` (Scheduled Execution; unused).
pub type fmi3LockPreemptionCallback = Option<unsafe extern "C" fn()>;
/// `fmi3UnlockPreemptionCallback` (Scheduled Execution; unused).
pub type fmi3UnlockPreemptionCallback = Option<unsafe extern "C" fn()>;

const V: FmiVersion = FmiVersion::Fmi3;

fn st(s: Status) -> fmi3Status {
    s as fmi3Status
}

/// `fmi3GetVersion`.
pub fn get_version<M: Model<N>, const N: usize>() -> *const c_char {
    c"3.0".as_ptr()
}

fn refuse_instantiation(
    logMessage: fmi3LogMessageCallback,
    env: fmi3InstanceEnvironment,
    name: &str,
    function: &str,
    msg: &str,
) -> fmi3Instance {
    let sink = logMessage.map_or(Sink::None, |l| Sink::Fmi3(l, env));
    Logger::new(sink, name, true).log(
        Status::Error,
        Category::Error,
        &format!("{function}: {msg}"),
    );
    std::ptr::null_mut()
}

/// `fmi3InstantiateCoSimulation`.
pub unsafe fn instantiate_co_simulation<M: Model<N>, const N: usize>(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    _visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    eventModeUsed: fmi3Boolean,
    _earlyReturnAllowed: fmi3Boolean,
    _requiredIntermediateVariables: *const fmi3ValueReference,
    nRequiredIntermediateVariables: usize,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    _intermediateUpdate: fmi3IntermediateUpdateCallback,
) -> fmi3Instance {
    let f = "fmi3InstantiateCoSimulation";
    guard(std::ptr::null_mut(), || {
        // SAFETY: null or C strings per the standard.
        let name = unsafe { c_str(instanceName) };
        let refuse = |msg: &str| {
            refuse_instantiation(logMessage, instanceEnvironment, name.unwrap_or("?"), f, msg)
        };
        let Some(name) = name else {
            return refuse("instanceName is NULL or not UTF-8");
        };
        // SAFETY: as above.
        let Some(token) = (unsafe { c_str(instantiationToken) }) else {
            return refuse("instantiationToken is NULL");
        };
        if eventModeUsed != 0 {
            return refuse(
                "eventModeUsed = true, but this FMU has no Event Mode (hasEventMode = false)",
            );
        }
        if nRequiredIntermediateVariables != 0 {
            return refuse("intermediate variable access is not provided by this FMU");
        }
        let sink = logMessage.map_or(Sink::None, |l| Sink::Fmi3(l, instanceEnvironment));
        // SAFETY: null or a C string per the standard.
        let resources = ResourceFolder::from_fmi3_path(unsafe { c_str(resourcePath) });
        match Instance::<M, N>::new(V, name, token, resources, sink, loggingOn != 0) {
            Ok(b) => Box::into_raw(b) as fmi3Instance,
            Err(e) => refuse(&e.to_string()),
        }
    })
}

/// `fmi3InstantiateModelExchange`.
pub unsafe fn instantiate_model_exchange<M: Model<N>, const N: usize>(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    _visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
) -> fmi3Instance {
    let f = "fmi3InstantiateModelExchange";
    guard(std::ptr::null_mut(), || {
        // SAFETY: null or C strings per the standard.
        let name = unsafe { c_str(instanceName) };
        let refuse = |msg: &str| {
            refuse_instantiation(logMessage, instanceEnvironment, name.unwrap_or("?"), f, msg)
        };
        let Some(name) = name else {
            return refuse("instanceName is NULL or not UTF-8");
        };
        // SAFETY: as above.
        let Some(token) = (unsafe { c_str(instantiationToken) }) else {
            return refuse("instantiationToken is NULL");
        };
        let sink = logMessage.map_or(Sink::None, |l| Sink::Fmi3(l, instanceEnvironment));
        // SAFETY: null or a C string per the standard.
        let resources = ResourceFolder::from_fmi3_path(unsafe { c_str(resourcePath) });
        match Instance::<M, N>::new(V, name, token, resources, sink, loggingOn != 0) {
            Ok(b) => Box::into_raw(b.into_model_exchange()) as fmi3Instance,
            Err(e) => refuse(&e.to_string()),
        }
    })
}

/// `fmi3InstantiateScheduledExecution`: refused (Co-Simulation and Model
/// Exchange only).
pub unsafe fn instantiate_scheduled_execution<M: Model<N>, const N: usize>(
    instanceName: fmi3String,
    _instantiationToken: fmi3String,
    _resourcePath: fmi3String,
    _visible: fmi3Boolean,
    _loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    _clockUpdate: fmi3ClockUpdateCallback,
    _lockPreemption: fmi3LockPreemptionCallback,
    _unlockPreemption: fmi3UnlockPreemptionCallback,
) -> fmi3Instance {
    guard(std::ptr::null_mut(), || {
        // SAFETY: null or a C string.
        let name = unsafe { c_str(instanceName) }.unwrap_or("?");
        refuse_instantiation(
            logMessage,
            instanceEnvironment,
            name,
            "fmi3InstantiateScheduledExecution",
            "this FMU supports Co-Simulation and Model Exchange, not Scheduled Execution",
        )
    })
}

/// `fmi3FreeInstance`.
pub unsafe fn free_instance<M: Model<N>, const N: usize>(instance: fmi3Instance) {
    guard((), || {
        if instance.is_null() {
            return;
        }
        let inst = instance as *mut Instance<M, N>;
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

/// `fmi3SetDebugLogging`.
pub unsafe fn set_debug_logging<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    loggingOn: fmi3Boolean,
    nCategories: usize,
    categories: *const fmi3String,
) -> fmi3Status {
    let f = "fmi3SetDebugLogging";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            let cats = c_str_array(i, f, categories, nCategories)?;
            i.set_debug_logging(f, loggingOn != 0, &cats)
        })
    })
}

/// `fmi3EnterInitializationMode` (includes the experiment setup).
pub unsafe fn enter_initialization_mode<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    toleranceDefined: fmi3Boolean,
    tolerance: fmi3Float64,
    startTime: fmi3Float64,
    stopTimeDefined: fmi3Boolean,
    stopTime: fmi3Float64,
) -> fmi3Status {
    let f = "fmi3EnterInitializationMode";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            i.check_phase(f, crate::instance::Op::EnterInitializationMode)?;
            i.setup_experiment(
                f,
                (toleranceDefined != 0).then_some(tolerance),
                startTime,
                (stopTimeDefined != 0).then_some(stopTime),
            )?;
            i.enter_initialization_mode(f)
        })
    })
}

/// `fmi3ExitInitializationMode`.
pub unsafe fn exit_initialization_mode<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
) -> fmi3Status {
    let f = "fmi3ExitInitializationMode";
    st(unsafe { with_instance::<M, N>(instance, V, f, |i| i.exit_initialization_mode(f)) })
}

/// `fmi3EnterConfigurationMode`: for models with structural parameters.
pub unsafe fn enter_configuration_mode<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
) -> fmi3Status {
    let f = "fmi3EnterConfigurationMode";
    st(unsafe { with_instance::<M, N>(instance, V, f, |i| i.enter_configuration_mode(f)) })
}

/// `fmi3ExitConfigurationMode`.
pub unsafe fn exit_configuration_mode<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
) -> fmi3Status {
    let f = "fmi3ExitConfigurationMode";
    st(unsafe { with_instance::<M, N>(instance, V, f, |i| i.exit_configuration_mode(f)) })
}

/// `fmi3Terminate`.
pub unsafe fn terminate<M: Model<N>, const N: usize>(instance: fmi3Instance) -> fmi3Status {
    let f = "fmi3Terminate";
    st(unsafe { with_instance::<M, N>(instance, V, f, |i| i.terminate(f)) })
}

/// `fmi3Reset`.
pub unsafe fn reset<M: Model<N>, const N: usize>(instance: fmi3Instance) -> fmi3Status {
    let f = "fmi3Reset";
    st(unsafe { with_instance::<M, N>(instance, V, f, |i| i.reset(f)) })
}

fn check_counts<M: Model<N>, const N: usize>(
    i: &Instance<M, N>,
    f: &str,
    nvr: usize,
    n_values: usize,
) -> FmiResult {
    if nvr != n_values {
        return i.fail(
            Status::Error,
            f,
            &format!(
                "nValues = {n_values} must equal nValueReferences = {nvr} (no array variables)"
            ),
        );
    }
    Ok(())
}

/// A C value type of the variables this FMU has (Float64, Int32, Boolean),
/// with its conversion to and from the stored `f64`.
pub trait FmiValue: Copy {
    /// The variable type it reads and writes.
    const TYPE: ValueType;
    /// The C value of a stored value.
    fn from_stored(value: f64) -> Self;
    /// The stored value of a C value (Booleans: any non-zero byte is true).
    fn to_stored(self) -> f64;
}

impl FmiValue for fmi3Float64 {
    const TYPE: ValueType = ValueType::Real;
    fn from_stored(value: f64) -> Self {
        value
    }
    fn to_stored(self) -> f64 {
        self
    }
}

impl FmiValue for fmi3Int32 {
    const TYPE: ValueType = ValueType::Integer;
    fn from_stored(value: f64) -> Self {
        value as i32
    }
    fn to_stored(self) -> f64 {
        f64::from(self)
    }
}

impl FmiValue for fmi3Boolean {
    const TYPE: ValueType = ValueType::Boolean;
    fn from_stored(value: f64) -> Self {
        u8::from(value != 0.0)
    }
    fn to_stored(self) -> f64 {
        if self != 0 { 1.0 } else { 0.0 }
    }
}

/// Typed get for the types this FMU has (Float64, Int32, Boolean).
pub unsafe fn get_typed<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    f: &str,
    vrs: *const fmi3ValueReference,
    nvr: usize,
    values: *mut impl FmiValue,
    n_values: usize,
) -> fmi3Status {
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            check_counts(i, f, nvr, n_values)?;
            let vrs = slice_in(i, f, "valueReferences", vrs, nvr)?;
            let out = slice_out(i, f, "values", values, n_values)?;
            i.get_values(f, vrs, value_type(&*out), |k, v| {
                out[k] = FmiValue::from_stored(v)
            })
        })
    })
}

/// The value type of a slice of C values.
fn value_type<T: FmiValue>(_: &[T]) -> ValueType {
    T::TYPE
}

/// Typed set for the types this FMU has (Float64, Int32, Boolean).
pub unsafe fn set_typed<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    f: &str,
    vrs: *const fmi3ValueReference,
    nvr: usize,
    values: *const impl FmiValue,
    n_values: usize,
) -> fmi3Status {
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            check_counts(i, f, nvr, n_values)?;
            let vrs = slice_in(i, f, "valueReferences", vrs, nvr)?;
            let vals = slice_in(i, f, "values", values, n_values)?;
            i.set_values(f, vrs, value_type(vals), |k| vals[k].to_stored())
        })
    })
}

/// Get/set for a type this FMU has no variables of (Float32, Int8, ...,
/// String, Binary, Clock): OK for an empty list, an error naming the
/// variable otherwise.
pub unsafe fn no_such_type<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    f: &str,
    vrs: *const fmi3ValueReference,
    nvr: usize,
    type_name: &str,
    setting: bool,
) -> fmi3Status {
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            let op = if setting {
                crate::instance::Op::SetValues
            } else {
                crate::instance::Op::GetValues
            };
            i.check_phase(f, op)?;
            let vrs = slice_in(i, f, "valueReferences", vrs, nvr)?;
            i.no_variables_of_type(f, vrs, type_name)
        })
    })
}

/// `fmi3GetNumberOfVariableDependencies`: refused (dependencies are in the
/// model description).
pub unsafe fn get_number_of_variable_dependencies<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    _valueReference: fmi3ValueReference,
    _nDependencies: *mut usize,
) -> fmi3Status {
    let f = "fmi3GetNumberOfVariableDependencies";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            i.unsupported(f, "per-element dependency queries (see ModelStructure)")
        })
    })
}

/// `fmi3GetVariableDependencies`: refused.
pub unsafe fn get_variable_dependencies<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    _dependent: fmi3ValueReference,
    _elementIndicesOfDependent: *mut usize,
    _independents: *mut fmi3ValueReference,
    _elementIndicesOfIndependents: *mut usize,
    _dependencyKinds: *mut fmi3DependencyKind,
    _nDependencies: usize,
) -> fmi3Status {
    let f = "fmi3GetVariableDependencies";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            i.unsupported(f, "per-element dependency queries (see ModelStructure)")
        })
    })
}

/// `fmi3GetFMUState`.
pub unsafe fn get_fmu_state<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    let f = "fmi3GetFMUState";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            crate::instance::snapshot::get_state(i, f, FMUState)
        })
    })
}

/// `fmi3SetFMUState`.
pub unsafe fn set_fmu_state<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
) -> fmi3Status {
    let f = "fmi3SetFMUState";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            crate::instance::snapshot::set_state(i, f, FMUState)
        })
    })
}

/// `fmi3FreeFMUState`.
pub unsafe fn free_fmu_state<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    let f = "fmi3FreeFMUState";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            crate::instance::snapshot::free_state(i, f, FMUState)
        })
    })
}

/// `fmi3SerializedFMUStateSize`.
pub unsafe fn serialized_fmu_state_size<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    size: *mut usize,
) -> fmi3Status {
    let f = "fmi3SerializedFMUStateSize";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            crate::instance::snapshot::serialized_size(i, f, FMUState, size)
        })
    })
}

/// `fmi3SerializeFMUState`.
pub unsafe fn serialize_fmu_state<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    serializedState: *mut fmi3Byte,
    size: usize,
) -> fmi3Status {
    let f = "fmi3SerializeFMUState";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            crate::instance::snapshot::serialize(i, f, FMUState, serializedState, size)
        })
    })
}

/// `fmi3DeserializeFMUState`.
pub unsafe fn deserialize_fmu_state<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    serializedState: *const fmi3Byte,
    size: usize,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    let f = "fmi3DeserializeFMUState";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            crate::instance::snapshot::deserialize(i, f, serializedState, size, FMUState)
        })
    })
}

/// `fmi3GetDirectionalDerivative`.
pub unsafe fn get_directional_derivative<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    unknowns: *const fmi3ValueReference,
    nUnknowns: usize,
    knowns: *const fmi3ValueReference,
    nKnowns: usize,
    seed: *const fmi3Float64,
    nSeed: usize,
    sensitivity: *mut fmi3Float64,
    nSensitivity: usize,
) -> fmi3Status {
    let f = "fmi3GetDirectionalDerivative";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            let u = slice_in(i, f, "unknowns", unknowns, nUnknowns)?;
            let k = slice_in(i, f, "knowns", knowns, nKnowns)?;
            let s = slice_in(i, f, "seed", seed, nSeed)?;
            let out = slice_out(i, f, "sensitivity", sensitivity, nSensitivity)?;
            i.directional_derivative(f, u, k, s, out)
        })
    })
}

/// `fmi3DoStep`: never returns early; on a solver failure returns Discard
/// with `lastSuccessfulTime` = the communication point the instance stays at.
pub unsafe fn do_step<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    currentCommunicationPoint: fmi3Float64,
    communicationStepSize: fmi3Float64,
    _noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    eventHandlingNeeded: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
    earlyReturn: *mut fmi3Boolean,
    lastSuccessfulTime: *mut fmi3Float64,
) -> fmi3Status {
    let f = "fmi3DoStep";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            for (p, what) in [
                (eventHandlingNeeded, "eventHandlingNeeded"),
                (terminateSimulation, "terminateSimulation"),
                (earlyReturn, "earlyReturn"),
            ] {
                write_out(i, f, what, p, 0)?;
            }
            write_out(i, f, "lastSuccessfulTime", lastSuccessfulTime, i.time())?;
            let result = i.do_step(f, currentCommunicationPoint, communicationStepSize);
            lastSuccessfulTime.write(i.last_successful_time());
            terminateSimulation.write(u8::from(i.terminated()));
            result
        })
    })
}

/// `fmi3EnterEventMode`: Model Exchange instances only (Co-Simulation
/// has no Event Mode here).
pub unsafe fn enter_event_mode<M: Model<N>, const N: usize>(instance: fmi3Instance) -> fmi3Status {
    let f = "fmi3EnterEventMode";
    st(unsafe { with_instance::<M, N>(instance, V, f, |i| i.enter_event_mode(f)) })
}

/// `fmi3UpdateDiscreteStates`: no discrete states, no time events.
pub unsafe fn update_discrete_states<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    discreteStatesNeedUpdate: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
    nominalsOfContinuousStatesChanged: *mut fmi3Boolean,
    valuesOfContinuousStatesChanged: *mut fmi3Boolean,
    nextEventTimeDefined: *mut fmi3Boolean,
    nextEventTime: *mut fmi3Float64,
) -> fmi3Status {
    let f = "fmi3UpdateDiscreteStates";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            let flags = [
                (discreteStatesNeedUpdate, "discreteStatesNeedUpdate"),
                (terminateSimulation, "terminateSimulation"),
                (
                    nominalsOfContinuousStatesChanged,
                    "nominalsOfContinuousStatesChanged",
                ),
                (
                    valuesOfContinuousStatesChanged,
                    "valuesOfContinuousStatesChanged",
                ),
                (nextEventTimeDefined, "nextEventTimeDefined"),
            ];
            if let Some((_, what)) = flags.iter().find(|(p, _)| p.is_null()) {
                return i.fail(Status::Error, f, &format!("argument '{what}' is NULL"));
            }
            if nextEventTime.is_null() {
                return i.fail(Status::Error, f, "argument 'nextEventTime' is NULL");
            }
            let info = i.update_discrete_states(f)?;
            let values = [
                info.discrete_states_need_update,
                info.terminate_simulation,
                info.nominals_changed,
                info.values_changed,
                info.next_event_time.is_some(),
            ];
            for ((p, _), v) in flags.iter().zip(values) {
                p.write(u8::from(v));
            }
            nextEventTime.write(info.next_event_time.unwrap_or(0.0));
            Ok(())
        })
    })
}

/// `fmi3EnterContinuousTimeMode`.
pub unsafe fn enter_continuous_time_mode<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
) -> fmi3Status {
    let f = "fmi3EnterContinuousTimeMode";
    st(unsafe { with_instance::<M, N>(instance, V, f, |i| i.enter_continuous_time_mode(f)) })
}

/// `fmi3CompletedIntegratorStep`: never asks for an event or the end.
pub unsafe fn completed_integrator_step<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    _noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    enterEventMode: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
) -> fmi3Status {
    let f = "fmi3CompletedIntegratorStep";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            write_out(i, f, "enterEventMode", enterEventMode, 0)?;
            write_out(i, f, "terminateSimulation", terminateSimulation, 0)?;
            let (event, stop) = i.completed_integrator_step(f)?;
            enterEventMode.write(u8::from(event));
            terminateSimulation.write(u8::from(stop));
            Ok(())
        })
    })
}

/// `fmi3SetTime`.
pub unsafe fn set_time<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    time: fmi3Float64,
) -> fmi3Status {
    let f = "fmi3SetTime";
    st(unsafe { with_instance::<M, N>(instance, V, f, |i| i.set_time(f, time)) })
}

/// `fmi3SetContinuousStates`.
pub unsafe fn set_continuous_states<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    continuousStates: *const fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    let f = "fmi3SetContinuousStates";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            let x = slice_in(
                i,
                f,
                "continuousStates",
                continuousStates,
                nContinuousStates,
            )?;
            i.set_continuous_states(f, x)
        })
    })
}

/// `fmi3GetContinuousStateDerivatives`.
pub unsafe fn get_continuous_state_derivatives<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    derivatives: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    let f = "fmi3GetContinuousStateDerivatives";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            let out = slice_out(i, f, "derivatives", derivatives, nContinuousStates)?;
            i.get_derivatives(f, out)
        })
    })
}

/// `fmi3GetEventIndicators`.
pub unsafe fn get_event_indicators<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    eventIndicators: *mut fmi3Float64,
    nEventIndicators: usize,
) -> fmi3Status {
    let f = "fmi3GetEventIndicators";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            let out = slice_out(i, f, "eventIndicators", eventIndicators, nEventIndicators)?;
            i.get_event_indicators(f, out)
        })
    })
}

/// `fmi3GetContinuousStates`.
pub unsafe fn get_continuous_states<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    continuousStates: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    let f = "fmi3GetContinuousStates";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            let out = slice_out(
                i,
                f,
                "continuousStates",
                continuousStates,
                nContinuousStates,
            )?;
            i.get_continuous_states(f, out)
        })
    })
}

/// `fmi3GetNominalsOfContinuousStates`.
pub unsafe fn get_nominals_of_continuous_states<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    nominals: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    let f = "fmi3GetNominalsOfContinuousStates";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            let out = slice_out(i, f, "nominals", nominals, nContinuousStates)?;
            i.get_nominals(f, out)
        })
    })
}

/// `fmi3GetNumberOfEventIndicators`.
pub unsafe fn get_number_of_event_indicators<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    nEventIndicators: *mut usize,
) -> fmi3Status {
    let f = "fmi3GetNumberOfEventIndicators";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            let n = i.event_indicator_count();
            write_out(i, f, "nEventIndicators", nEventIndicators, n)
        })
    })
}

/// `fmi3GetNumberOfContinuousStates`.
pub unsafe fn get_number_of_continuous_states<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    nContinuousStates: *mut usize,
) -> fmi3Status {
    let f = "fmi3GetNumberOfContinuousStates";
    st(unsafe {
        with_instance::<M, N>(instance, V, f, |i| {
            write_out(
                i,
                f,
                "nContinuousStates",
                nContinuousStates,
                i.continuous_state_count(),
            )
        })
    })
}

/// Any function of a capability this FMU lacks (Model Exchange, Scheduled
/// Execution, clocks, Event Mode, configuration mode, adjoint and output
/// derivatives): an error with a message naming the capability.
pub unsafe fn unsupported<M: Model<N>, const N: usize>(
    instance: fmi3Instance,
    function: &str,
    capability: &str,
) -> fmi3Status {
    st(unsafe {
        with_instance::<M, N>(instance, V, function, |i| {
            i.unsupported(function, capability)
        })
    })
}
