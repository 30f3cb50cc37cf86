//! The export macro: one line in a circuit crate exports every FMI 2.0 and
//! FMI 3.0 function for its model, plus `fluidfmu_artifact`, which the
//! packaging tool calls to get the model description and documentation.
//!
//! The exported functions are one table in [`export_fmu!`]: a line per C
//! function, its C signature and the implementation it forwards to in
//! [`crate::fmi2`] or [`crate::fmi3`] (which gets the model type and its
//! state count as generic arguments). In the forwarded arguments,
//! `FUNCTION` is the C function's own name, for its log messages.

/// Kinds of build artifacts `fluidfmu_artifact` returns.
pub mod artifact {
    /// The model identifier (file name of the binary without extension).
    pub const MODEL_IDENTIFIER: i32 = 0;
    /// The FMI 2.0 `modelDescription.xml`.
    pub const FMI2_XML: i32 = 1;
    /// The FMI 3.0 `modelDescription.xml`.
    pub const FMI3_XML: i32 = 2;
    /// `documentation/index.html`.
    pub const DOCUMENTATION_HTML: i32 = 3;
    /// Why the model is inconsistent (empty when it is fine).
    pub const ERROR: i32 = 4;
    /// The FMI 3.0 `terminalsAndIcons/terminalsAndIcons.xml`.
    pub const TERMINALS_XML: i32 = 5;
}

/// The artifacts of one model, built once per loaded library.
pub struct Artifacts {
    texts: [std::ffi::CString; 6],
}

impl Artifacts {
    /// Builds the artifacts of model `M` (or records why it is inconsistent).
    pub fn build<M: crate::Model<N>, const N: usize>() -> Self {
        let c = |s: String| std::ffi::CString::new(s.replace('\0', " ")).unwrap_or_default();
        match crate::instance::checked_description::<M, N>() {
            Ok(desc) => Artifacts {
                texts: [
                    c(desc.model_identifier.clone()),
                    c(desc.to_fmi2_xml()),
                    c(desc.to_fmi3_xml()),
                    c(desc.documentation_html()),
                    c(String::new()),
                    c(desc.to_terminals_xml()),
                ],
            },
            Err(e) => Artifacts::error(&e),
        }
    }

    /// Artifacts that only say why there are none.
    pub fn error(why: &str) -> Self {
        let c = |s: &str| std::ffi::CString::new(s.replace('\0', " ")).unwrap_or_default();
        Artifacts {
            texts: [c(""), c(""), c(""), c(""), c(why), c("")],
        }
    }

    /// The artifact of a kind (see [`artifact`]); null for an unknown kind.
    pub fn get(&self, kind: i32) -> *const std::ffi::c_char {
        usize::try_from(kind)
            .ok()
            .and_then(|k| self.texts.get(k))
            .map_or(std::ptr::null(), |s| s.as_ptr())
    }
}

/// Exports the FMI 2.0 and FMI 3.0 C API of a circuit (its state count
/// comes from its table): `fmu_core::export_fmu!(OrificeChain);`
#[macro_export]
macro_rules! export_fmu {
    ($model:ty) => {
        /// Build artifacts for the packaging tool: 0 model identifier,
        /// 1 FMI 2 XML, 2 FMI 3 XML, 3 documentation HTML, 4 error text,
        /// 5 FMI 3 terminalsAndIcons.xml.
        #[unsafe(no_mangle)]
        pub extern "C" fn fluidfmu_artifact(kind: i32) -> *const ::std::ffi::c_char {
            static ARTIFACTS: ::std::sync::OnceLock<$crate::export::Artifacts> =
                ::std::sync::OnceLock::new();
            $crate::ffi::guard(::std::ptr::null(), || {
                ARTIFACTS
                    .get_or_init(|| {
                        $crate::export::Artifacts::build::<
                            $model,
                            { <$model as $crate::table::Table>::STATES },
                        >()
                    })
                    .get(kind)
            })
        }

        $crate::__export_fmi!($model);
    };
}

/// A table read at run time from a description (see
/// [`crate::Model::load_table`]): what [`export_read_fmu!`] needs to give
/// the packaging tool the artifacts of one description.
pub trait ReadTable: crate::Table {
    /// Reads the table from the description's text, once per loaded
    /// library: an error when the text is not a valid description, or when
    /// this library already serves another one.
    fn install(source: &str) -> Result<(), String>;
    /// Whether a description is installed.
    fn installed() -> bool;
}

/// Exports the FMI 2.0 and FMI 3.0 C API of a model whose table is read at
/// run time ([`ReadTable`]), plus `fluidfmu_install(text)`, with which the
/// packaging tool installs a description into a copy of the library
/// before it asks for the artifacts (`fluidfmu_artifact` answers with an
/// error text until then): `fmu_core::export_read_fmu!(Engine<16>);`
#[macro_export]
macro_rules! export_read_fmu {
    ($model:ty) => {
        /// Installs the description `text` (UTF-8, NUL-terminated): NULL
        /// when it is installed, else the reason (valid until the next call).
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn fluidfmu_install(
            text: *const ::std::ffi::c_char,
        ) -> *const ::std::ffi::c_char {
            static ERROR: ::std::sync::Mutex<Option<::std::ffi::CString>> =
                ::std::sync::Mutex::new(None);
            $crate::ffi::guard(::std::ptr::null(), || {
                let result = if text.is_null() {
                    Err("no description text (NULL)".to_owned())
                } else {
                    // SAFETY: the caller passes a NUL-terminated string.
                    match unsafe { ::std::ffi::CStr::from_ptr(text) }.to_str() {
                        Ok(t) => <$model as $crate::export::ReadTable>::install(t),
                        Err(_) => Err("the description is not UTF-8".to_owned()),
                    }
                };
                let Err(e) = result else {
                    return ::std::ptr::null();
                };
                let mut slot = ERROR.lock().unwrap_or_else(|p| p.into_inner());
                let c = ::std::ffi::CString::new(e.replace('\0', " ")).unwrap_or_default();
                slot.insert(c).as_ptr()
            })
        }

        /// Build artifacts of the installed description (see
        /// `fluidfmu_artifact` of [`export_fmu!`]); before one is
        /// installed, every kind is empty and kind 4 says so.
        #[unsafe(no_mangle)]
        pub extern "C" fn fluidfmu_artifact(kind: i32) -> *const ::std::ffi::c_char {
            static ARTIFACTS: ::std::sync::OnceLock<$crate::export::Artifacts> =
                ::std::sync::OnceLock::new();
            static NOT_YET: ::std::sync::OnceLock<$crate::export::Artifacts> =
                ::std::sync::OnceLock::new();
            $crate::ffi::guard(::std::ptr::null(), || {
                if !<$model as $crate::export::ReadTable>::installed() {
                    return NOT_YET
                        .get_or_init(|| {
                            $crate::export::Artifacts::error(
                                "no description installed (call fluidfmu_install first)",
                            )
                        })
                        .get(kind);
                }
                ARTIFACTS
                    .get_or_init(|| {
                        $crate::export::Artifacts::build::<
                            $model,
                            { <$model as $crate::table::Table>::STATES },
                        >()
                    })
                    .get(kind)
            })
        }

        $crate::__export_fmi!($model);
    };
}

/// The FMI functions' table of [`export_fmu!`] and [`export_read_fmu!`].
#[doc(hidden)]
#[macro_export]
macro_rules! __export_fmi {
    ($model:ty) => {
        $crate::__export_functions! { $model;
            // FMI 2.0 (Co-Simulation and Model Exchange)
            fmi2GetTypesPlatform() -> *const c_char = fmi2::get_types_platform();
            fmi2GetVersion() -> *const c_char = fmi2::get_version();
            fmi2SetDebugLogging(c: fmi2Component, loggingOn: fmi2Boolean, nCategories: usize, categories: *const fmi2String) -> fmi2Status = fmi2::set_debug_logging(c, loggingOn, nCategories, categories);
            fmi2Instantiate(instanceName: fmi2String, fmuType: fmi2Type, fmuGUID: fmi2String, fmuResourceLocation: fmi2String, functions: *const fmi2CallbackFunctions, visible: fmi2Boolean, loggingOn: fmi2Boolean) -> fmi2Component = fmi2::instantiate(instanceName, fmuType, fmuGUID, fmuResourceLocation, functions, visible, loggingOn);
            fmi2FreeInstance(c: fmi2Component) -> () = fmi2::free_instance(c);
            fmi2SetupExperiment(c: fmi2Component, toleranceDefined: fmi2Boolean, tolerance: fmi2Real, startTime: fmi2Real, stopTimeDefined: fmi2Boolean, stopTime: fmi2Real) -> fmi2Status = fmi2::setup_experiment(c, toleranceDefined, tolerance, startTime, stopTimeDefined, stopTime);
            fmi2EnterInitializationMode(c: fmi2Component) -> fmi2Status = fmi2::enter_initialization_mode(c);
            fmi2ExitInitializationMode(c: fmi2Component) -> fmi2Status = fmi2::exit_initialization_mode(c);
            fmi2Terminate(c: fmi2Component) -> fmi2Status = fmi2::terminate(c);
            fmi2Reset(c: fmi2Component) -> fmi2Status = fmi2::reset(c);
            fmi2GetReal(c: fmi2Component, vr: *const fmi2ValueReference, nvr: usize, value: *mut fmi2Real) -> fmi2Status = fmi2::get_real(c, vr, nvr, value);
            fmi2GetInteger(c: fmi2Component, vr: *const fmi2ValueReference, nvr: usize, value: *mut fmi2Integer) -> fmi2Status = fmi2::get_integer(c, vr, nvr, value);
            fmi2GetBoolean(c: fmi2Component, vr: *const fmi2ValueReference, nvr: usize, value: *mut fmi2Boolean) -> fmi2Status = fmi2::get_boolean(c, vr, nvr, value);
            fmi2GetString(c: fmi2Component, vr: *const fmi2ValueReference, nvr: usize, value: *mut fmi2String) -> fmi2Status = fmi2::get_string(c, vr, nvr, value);
            fmi2SetReal(c: fmi2Component, vr: *const fmi2ValueReference, nvr: usize, value: *const fmi2Real) -> fmi2Status = fmi2::set_real(c, vr, nvr, value);
            fmi2SetInteger(c: fmi2Component, vr: *const fmi2ValueReference, nvr: usize, value: *const fmi2Integer) -> fmi2Status = fmi2::set_integer(c, vr, nvr, value);
            fmi2SetBoolean(c: fmi2Component, vr: *const fmi2ValueReference, nvr: usize, value: *const fmi2Boolean) -> fmi2Status = fmi2::set_boolean(c, vr, nvr, value);
            fmi2SetString(c: fmi2Component, vr: *const fmi2ValueReference, nvr: usize, value: *const fmi2String) -> fmi2Status = fmi2::set_string(c, vr, nvr, value);
            fmi2GetFMUstate(c: fmi2Component, FMUstate: *mut fmi2FMUstate) -> fmi2Status = fmi2::get_fmu_state(c, FMUstate);
            fmi2SetFMUstate(c: fmi2Component, FMUstate: fmi2FMUstate) -> fmi2Status = fmi2::set_fmu_state(c, FMUstate);
            fmi2FreeFMUstate(c: fmi2Component, FMUstate: *mut fmi2FMUstate) -> fmi2Status = fmi2::free_fmu_state(c, FMUstate);
            fmi2SerializedFMUstateSize(c: fmi2Component, FMUstate: fmi2FMUstate, size: *mut usize) -> fmi2Status = fmi2::serialized_fmu_state_size(c, FMUstate, size);
            fmi2SerializeFMUstate(c: fmi2Component, FMUstate: fmi2FMUstate, serializedState: *mut fmi2Byte, size: usize) -> fmi2Status = fmi2::serialize_fmu_state(c, FMUstate, serializedState, size);
            fmi2DeSerializeFMUstate(c: fmi2Component, serializedState: *const fmi2Byte, size: usize, FMUstate: *mut fmi2FMUstate) -> fmi2Status = fmi2::deserialize_fmu_state(c, serializedState, size, FMUstate);
            fmi2GetDirectionalDerivative(c: fmi2Component, vUnknown_ref: *const fmi2ValueReference, nUnknown: usize, vKnown_ref: *const fmi2ValueReference, nKnown: usize, dvKnown: *const fmi2Real, dvUnknown: *mut fmi2Real) -> fmi2Status = fmi2::get_directional_derivative(c, vUnknown_ref, nUnknown, vKnown_ref, nKnown, dvKnown, dvUnknown);
            fmi2SetRealInputDerivatives(c: fmi2Component, vr: *const fmi2ValueReference, nvr: usize, order: *const fmi2Integer, value: *const fmi2Real) -> fmi2Status = fmi2::set_real_input_derivatives(c, vr, nvr, order, value);
            fmi2GetRealOutputDerivatives(c: fmi2Component, vr: *const fmi2ValueReference, nvr: usize, order: *const fmi2Integer, value: *mut fmi2Real) -> fmi2Status = fmi2::get_real_output_derivatives(c, vr, nvr, order, value);
            fmi2DoStep(c: fmi2Component, currentCommunicationPoint: fmi2Real, communicationStepSize: fmi2Real, noSetFMUStatePriorToCurrentPoint: fmi2Boolean) -> fmi2Status = fmi2::do_step(c, currentCommunicationPoint, communicationStepSize, noSetFMUStatePriorToCurrentPoint);
            fmi2CancelStep(c: fmi2Component) -> fmi2Status = fmi2::cancel_step(c);
            fmi2GetStatus(c: fmi2Component, s: fmi2StatusKind, value: *mut fmi2Status) -> fmi2Status = fmi2::get_status(c, s, value);
            fmi2GetRealStatus(c: fmi2Component, s: fmi2StatusKind, value: *mut fmi2Real) -> fmi2Status = fmi2::get_real_status(c, s, value);
            fmi2GetIntegerStatus(c: fmi2Component, s: fmi2StatusKind, value: *mut fmi2Integer) -> fmi2Status = fmi2::get_integer_status(c, s, value);
            fmi2GetBooleanStatus(c: fmi2Component, s: fmi2StatusKind, value: *mut fmi2Boolean) -> fmi2Status = fmi2::get_boolean_status(c, s, value);
            fmi2GetStringStatus(c: fmi2Component, s: fmi2StatusKind, value: *mut fmi2String) -> fmi2Status = fmi2::get_string_status(c, s, value);
            fmi2EnterEventMode(c: fmi2Component) -> fmi2Status = fmi2::enter_event_mode(c);
            fmi2NewDiscreteStates(c: fmi2Component, fmi2eventInfo: *mut fmi2EventInfo) -> fmi2Status = fmi2::new_discrete_states(c, fmi2eventInfo);
            fmi2EnterContinuousTimeMode(c: fmi2Component) -> fmi2Status = fmi2::enter_continuous_time_mode(c);
            fmi2CompletedIntegratorStep(c: fmi2Component, noSetFMUStatePriorToCurrentPoint: fmi2Boolean, enterEventMode: *mut fmi2Boolean, terminateSimulation: *mut fmi2Boolean) -> fmi2Status = fmi2::completed_integrator_step(c, noSetFMUStatePriorToCurrentPoint, enterEventMode, terminateSimulation);
            fmi2SetTime(c: fmi2Component, time: fmi2Real) -> fmi2Status = fmi2::set_time(c, time);
            fmi2SetContinuousStates(c: fmi2Component, x: *const fmi2Real, nx: usize) -> fmi2Status = fmi2::set_continuous_states(c, x, nx);
            fmi2GetDerivatives(c: fmi2Component, derivatives: *mut fmi2Real, nx: usize) -> fmi2Status = fmi2::get_derivatives(c, derivatives, nx);
            fmi2GetEventIndicators(c: fmi2Component, eventIndicators: *mut fmi2Real, ni: usize) -> fmi2Status = fmi2::get_event_indicators(c, eventIndicators, ni);
            fmi2GetContinuousStates(c: fmi2Component, x: *mut fmi2Real, nx: usize) -> fmi2Status = fmi2::get_continuous_states(c, x, nx);
            fmi2GetNominalsOfContinuousStates(c: fmi2Component, x_nominal: *mut fmi2Real, nx: usize) -> fmi2Status = fmi2::get_nominals_of_continuous_states(c, x_nominal, nx);
            // FMI 3.0 (Co-Simulation and Model Exchange; Scheduled Execution, Co-Simulation Event Mode and clocks refuse with a message)
            fmi3GetVersion() -> *const c_char = fmi3::get_version();
            fmi3SetDebugLogging(instance: fmi3Instance, loggingOn: fmi3Boolean, nCategories: usize, categories: *const fmi3String) -> fmi3Status = fmi3::set_debug_logging(instance, loggingOn, nCategories, categories);
            fmi3InstantiateModelExchange(instanceName: fmi3String, instantiationToken: fmi3String, resourcePath: fmi3String, visible: fmi3Boolean, loggingOn: fmi3Boolean, instanceEnvironment: fmi3InstanceEnvironment, logMessage: fmi3LogMessageCallback) -> fmi3Instance = fmi3::instantiate_model_exchange(instanceName, instantiationToken, resourcePath, visible, loggingOn, instanceEnvironment, logMessage);
            fmi3InstantiateCoSimulation(instanceName: fmi3String, instantiationToken: fmi3String, resourcePath: fmi3String, visible: fmi3Boolean, loggingOn: fmi3Boolean, eventModeUsed: fmi3Boolean, earlyReturnAllowed: fmi3Boolean, requiredIntermediateVariables: *const fmi3ValueReference, nRequiredIntermediateVariables: usize, instanceEnvironment: fmi3InstanceEnvironment, logMessage: fmi3LogMessageCallback, intermediateUpdate: fmi3IntermediateUpdateCallback) -> fmi3Instance = fmi3::instantiate_co_simulation(instanceName, instantiationToken, resourcePath, visible, loggingOn, eventModeUsed, earlyReturnAllowed, requiredIntermediateVariables, nRequiredIntermediateVariables, instanceEnvironment, logMessage, intermediateUpdate);
            fmi3InstantiateScheduledExecution(instanceName: fmi3String, instantiationToken: fmi3String, resourcePath: fmi3String, visible: fmi3Boolean, loggingOn: fmi3Boolean, instanceEnvironment: fmi3InstanceEnvironment, logMessage: fmi3LogMessageCallback, clockUpdate: fmi3ClockUpdateCallback, lockPreemption: fmi3LockPreemptionCallback, unlockPreemption: fmi3UnlockPreemptionCallback) -> fmi3Instance = fmi3::instantiate_scheduled_execution(instanceName, instantiationToken, resourcePath, visible, loggingOn, instanceEnvironment, logMessage, clockUpdate, lockPreemption, unlockPreemption);
            fmi3FreeInstance(instance: fmi3Instance) -> () = fmi3::free_instance(instance);
            fmi3EnterInitializationMode(instance: fmi3Instance, toleranceDefined: fmi3Boolean, tolerance: fmi3Float64, startTime: fmi3Float64, stopTimeDefined: fmi3Boolean, stopTime: fmi3Float64) -> fmi3Status = fmi3::enter_initialization_mode(instance, toleranceDefined, tolerance, startTime, stopTimeDefined, stopTime);
            fmi3ExitInitializationMode(instance: fmi3Instance) -> fmi3Status = fmi3::exit_initialization_mode(instance);
            fmi3EnterEventMode(instance: fmi3Instance) -> fmi3Status = fmi3::enter_event_mode(instance);
            fmi3Terminate(instance: fmi3Instance) -> fmi3Status = fmi3::terminate(instance);
            fmi3Reset(instance: fmi3Instance) -> fmi3Status = fmi3::reset(instance);
            fmi3GetFloat32(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3Float32, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "Float32", false);
            fmi3GetFloat64(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3Float64, nValues: usize) -> fmi3Status = fmi3::get_typed(instance, FUNCTION, valueReferences, nValueReferences, values, nValues);
            fmi3GetInt8(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3Int8, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "Int8", false);
            fmi3GetUInt8(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3UInt8, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "UInt8", false);
            fmi3GetInt16(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3Int16, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "Int16", false);
            fmi3GetUInt16(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3UInt16, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "UInt16", false);
            fmi3GetInt32(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3Int32, nValues: usize) -> fmi3Status = fmi3::get_typed(instance, FUNCTION, valueReferences, nValueReferences, values, nValues);
            fmi3GetUInt32(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3UInt32, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "UInt32", false);
            fmi3GetInt64(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3Int64, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "Int64", false);
            fmi3GetUInt64(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3UInt64, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "UInt64", false);
            fmi3GetBoolean(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3Boolean, nValues: usize) -> fmi3Status = fmi3::get_typed(instance, FUNCTION, valueReferences, nValueReferences, values, nValues);
            fmi3GetString(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3String, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "String", false);
            fmi3GetBinary(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, valueSizes: *mut usize, values: *mut fmi3Binary, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "Binary", false);
            fmi3GetClock(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *mut fmi3Clock) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "Clock", false);
            fmi3SetFloat32(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3Float32, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "Float32", true);
            fmi3SetFloat64(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3Float64, nValues: usize) -> fmi3Status = fmi3::set_typed(instance, FUNCTION, valueReferences, nValueReferences, values, nValues);
            fmi3SetInt8(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3Int8, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "Int8", true);
            fmi3SetUInt8(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3UInt8, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "UInt8", true);
            fmi3SetInt16(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3Int16, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "Int16", true);
            fmi3SetUInt16(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3UInt16, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "UInt16", true);
            fmi3SetInt32(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3Int32, nValues: usize) -> fmi3Status = fmi3::set_typed(instance, FUNCTION, valueReferences, nValueReferences, values, nValues);
            fmi3SetUInt32(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3UInt32, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "UInt32", true);
            fmi3SetInt64(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3Int64, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "Int64", true);
            fmi3SetUInt64(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3UInt64, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "UInt64", true);
            fmi3SetBoolean(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3Boolean, nValues: usize) -> fmi3Status = fmi3::set_typed(instance, FUNCTION, valueReferences, nValueReferences, values, nValues);
            fmi3SetString(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3String, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "String", true);
            fmi3SetBinary(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, valueSizes: *const usize, values: *const fmi3Binary, nValues: usize) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "Binary", true);
            fmi3SetClock(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, values: *const fmi3Clock) -> fmi3Status = fmi3::no_such_type(instance, FUNCTION, valueReferences, nValueReferences, "Clock", true);
            fmi3GetNumberOfVariableDependencies(instance: fmi3Instance, valueReference: fmi3ValueReference, nDependencies: *mut usize) -> fmi3Status = fmi3::get_number_of_variable_dependencies(instance, valueReference, nDependencies);
            fmi3GetVariableDependencies(instance: fmi3Instance, dependent: fmi3ValueReference, elementIndicesOfDependent: *mut usize, independents: *mut fmi3ValueReference, elementIndicesOfIndependents: *mut usize, dependencyKinds: *mut fmi3DependencyKind, nDependencies: usize) -> fmi3Status = fmi3::get_variable_dependencies(instance, dependent, elementIndicesOfDependent, independents, elementIndicesOfIndependents, dependencyKinds, nDependencies);
            fmi3GetFMUState(instance: fmi3Instance, FMUState: *mut fmi3FMUState) -> fmi3Status = fmi3::get_fmu_state(instance, FMUState);
            fmi3SetFMUState(instance: fmi3Instance, FMUState: fmi3FMUState) -> fmi3Status = fmi3::set_fmu_state(instance, FMUState);
            fmi3FreeFMUState(instance: fmi3Instance, FMUState: *mut fmi3FMUState) -> fmi3Status = fmi3::free_fmu_state(instance, FMUState);
            fmi3SerializedFMUStateSize(instance: fmi3Instance, FMUState: fmi3FMUState, size: *mut usize) -> fmi3Status = fmi3::serialized_fmu_state_size(instance, FMUState, size);
            fmi3SerializeFMUState(instance: fmi3Instance, FMUState: fmi3FMUState, serializedState: *mut fmi3Byte, size: usize) -> fmi3Status = fmi3::serialize_fmu_state(instance, FMUState, serializedState, size);
            fmi3DeserializeFMUState(instance: fmi3Instance, serializedState: *const fmi3Byte, size: usize, FMUState: *mut fmi3FMUState) -> fmi3Status = fmi3::deserialize_fmu_state(instance, serializedState, size, FMUState);
            fmi3GetDirectionalDerivative(instance: fmi3Instance, unknowns: *const fmi3ValueReference, nUnknowns: usize, knowns: *const fmi3ValueReference, nKnowns: usize, seed: *const fmi3Float64, nSeed: usize, sensitivity: *mut fmi3Float64, nSensitivity: usize) -> fmi3Status = fmi3::get_directional_derivative(instance, unknowns, nUnknowns, knowns, nKnowns, seed, nSeed, sensitivity, nSensitivity);
            fmi3GetAdjointDerivative(instance: fmi3Instance, unknowns: *const fmi3ValueReference, nUnknowns: usize, knowns: *const fmi3ValueReference, nKnowns: usize, seed: *const fmi3Float64, nSeed: usize, sensitivity: *mut fmi3Float64, nSensitivity: usize) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "adjoint derivatives");
            fmi3EnterConfigurationMode(instance: fmi3Instance) -> fmi3Status = fmi3::enter_configuration_mode(instance);
            fmi3ExitConfigurationMode(instance: fmi3Instance) -> fmi3Status = fmi3::exit_configuration_mode(instance);
            fmi3GetIntervalDecimal(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, intervals: *mut fmi3Float64, qualifiers: *mut fmi3IntervalQualifier) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "clocks");
            fmi3GetIntervalFraction(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, counters: *mut fmi3UInt64, resolutions: *mut fmi3UInt64, qualifiers: *mut fmi3IntervalQualifier) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "clocks");
            fmi3GetShiftDecimal(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, shifts: *mut fmi3Float64) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "clocks");
            fmi3GetShiftFraction(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, counters: *mut fmi3UInt64, resolutions: *mut fmi3UInt64) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "clocks");
            fmi3SetIntervalDecimal(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, intervals: *const fmi3Float64) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "clocks");
            fmi3SetIntervalFraction(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, counters: *const fmi3UInt64, resolutions: *const fmi3UInt64) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "clocks");
            fmi3SetShiftDecimal(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, shifts: *const fmi3Float64) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "clocks");
            fmi3SetShiftFraction(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, counters: *const fmi3UInt64, resolutions: *const fmi3UInt64) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "clocks");
            fmi3EvaluateDiscreteStates(instance: fmi3Instance) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "Event Mode");
            fmi3UpdateDiscreteStates(instance: fmi3Instance, discreteStatesNeedUpdate: *mut fmi3Boolean, terminateSimulation: *mut fmi3Boolean, nominalsOfContinuousStatesChanged: *mut fmi3Boolean, valuesOfContinuousStatesChanged: *mut fmi3Boolean, nextEventTimeDefined: *mut fmi3Boolean, nextEventTime: *mut fmi3Float64) -> fmi3Status = fmi3::update_discrete_states(instance, discreteStatesNeedUpdate, terminateSimulation, nominalsOfContinuousStatesChanged, valuesOfContinuousStatesChanged, nextEventTimeDefined, nextEventTime);
            fmi3EnterContinuousTimeMode(instance: fmi3Instance) -> fmi3Status = fmi3::enter_continuous_time_mode(instance);
            fmi3CompletedIntegratorStep(instance: fmi3Instance, noSetFMUStatePriorToCurrentPoint: fmi3Boolean, enterEventMode: *mut fmi3Boolean, terminateSimulation: *mut fmi3Boolean) -> fmi3Status = fmi3::completed_integrator_step(instance, noSetFMUStatePriorToCurrentPoint, enterEventMode, terminateSimulation);
            fmi3SetTime(instance: fmi3Instance, time: fmi3Float64) -> fmi3Status = fmi3::set_time(instance, time);
            fmi3SetContinuousStates(instance: fmi3Instance, continuousStates: *const fmi3Float64, nContinuousStates: usize) -> fmi3Status = fmi3::set_continuous_states(instance, continuousStates, nContinuousStates);
            fmi3GetContinuousStateDerivatives(instance: fmi3Instance, derivatives: *mut fmi3Float64, nContinuousStates: usize) -> fmi3Status = fmi3::get_continuous_state_derivatives(instance, derivatives, nContinuousStates);
            fmi3GetEventIndicators(instance: fmi3Instance, eventIndicators: *mut fmi3Float64, nEventIndicators: usize) -> fmi3Status = fmi3::get_event_indicators(instance, eventIndicators, nEventIndicators);
            fmi3GetContinuousStates(instance: fmi3Instance, continuousStates: *mut fmi3Float64, nContinuousStates: usize) -> fmi3Status = fmi3::get_continuous_states(instance, continuousStates, nContinuousStates);
            fmi3GetNominalsOfContinuousStates(instance: fmi3Instance, nominals: *mut fmi3Float64, nContinuousStates: usize) -> fmi3Status = fmi3::get_nominals_of_continuous_states(instance, nominals, nContinuousStates);
            fmi3GetNumberOfEventIndicators(instance: fmi3Instance, nEventIndicators: *mut usize) -> fmi3Status = fmi3::get_number_of_event_indicators(instance, nEventIndicators);
            fmi3GetNumberOfContinuousStates(instance: fmi3Instance, nContinuousStates: *mut usize) -> fmi3Status = fmi3::get_number_of_continuous_states(instance, nContinuousStates);
            fmi3EnterStepMode(instance: fmi3Instance) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "Event Mode");
            fmi3GetOutputDerivatives(instance: fmi3Instance, valueReferences: *const fmi3ValueReference, nValueReferences: usize, orders: *const fmi3Int32, values: *mut fmi3Float64, nValues: usize) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "output derivatives");
            fmi3DoStep(instance: fmi3Instance, currentCommunicationPoint: fmi3Float64, communicationStepSize: fmi3Float64, noSetFMUStatePriorToCurrentPoint: fmi3Boolean, eventHandlingNeeded: *mut fmi3Boolean, terminateSimulation: *mut fmi3Boolean, earlyReturn: *mut fmi3Boolean, lastSuccessfulTime: *mut fmi3Float64) -> fmi3Status = fmi3::do_step(instance, currentCommunicationPoint, communicationStepSize, noSetFMUStatePriorToCurrentPoint, eventHandlingNeeded, terminateSimulation, earlyReturn, lastSuccessfulTime);
            fmi3ActivateModelPartition(instance: fmi3Instance, clockReference: fmi3ValueReference, activationTime: fmi3Float64) -> fmi3Status = fmi3::unsupported(instance, FUNCTION, "Scheduled Execution");
        }
    };
}

/// Expands the table of [`export_fmu!`]: one `extern "C"` function per line,
/// forwarding its arguments to the implementation with the model's type
/// and state count.
#[doc(hidden)]
#[macro_export]
macro_rules! __export_functions {
    ($model:ty; $(
        $name:ident ( $($arg:ident : $ty:ty),* ) -> $ret:ty = $module:ident :: $function:ident ( $($call:expr),* ) ;
    )*) => {
        pub use __fmi_functions::*;

        /// The exported FMI functions (re-exported above, so that in-process
        /// callers such as tests reach them as `crate::fmi2DoStep`).
        #[doc(hidden)]
        #[allow(non_snake_case, unused_imports)]
        pub mod __fmi_functions {
            use super::*;
            use ::std::ffi::c_char;
            use $crate::fmi2::*;
            use $crate::fmi3::*;

            /// The exported model.
            type Exported = $model;
            const STATES: usize = <Exported as $crate::table::Table>::STATES;

            $(
                #[doc = concat!("FMI C function `", stringify!($name), "`.")]
                #[unsafe(no_mangle)]
                #[allow(unused_variables, clippy::missing_safety_doc)]
                pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
                    #[allow(dead_code)]
                    const FUNCTION: &str = stringify!($name);
                    unsafe { $crate::$module::$function::<Exported, STATES>($($call),*) }
                }
            )*
        }
    };
}
