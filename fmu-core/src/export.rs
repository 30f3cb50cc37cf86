//! The export macro: one line in a circuit crate exports every FMI 2.0 and
//! FMI 3.0 function for its model, plus `fluidfmu_artifact`, which the
//! packaging tool calls to get the model description and documentation.

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
}

/// The artifacts of one model, built once per loaded library.
pub struct Artifacts {
    texts: [std::ffi::CString; 5],
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
                ],
            },
            Err(e) => Artifacts {
                texts: [
                    c(String::new()),
                    c(String::new()),
                    c(String::new()),
                    c(String::new()),
                    c(e),
                ],
            },
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

/// Exports the FMI 2.0 and FMI 3.0 C API for a model with `$n` states:
/// `fmu_core::export_fmu!(OrificeChain, 2);`
#[macro_export]
macro_rules! export_fmu {
    ($model:ty, $n:expr) => {
        /// Build artifacts for the packaging tool: 0 model identifier,
        /// 1 FMI 2 XML, 2 FMI 3 XML, 3 documentation HTML, 4 error text.
        #[unsafe(no_mangle)]
        pub extern "C" fn fluidfmu_artifact(kind: i32) -> *const ::std::ffi::c_char {
            static ARTIFACTS: ::std::sync::OnceLock<$crate::export::Artifacts> =
                ::std::sync::OnceLock::new();
            $crate::ffi::guard(::std::ptr::null(), || {
                ARTIFACTS
                    .get_or_init(|| $crate::export::Artifacts::build::<$model, $n>())
                    .get(kind)
            })
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetTypesPlatform`.
        pub unsafe extern "C" fn fmi2GetTypesPlatform() -> *const ::std::ffi::c_char {
            unsafe { $crate::fmi2::get_types_platform() }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetVersion`.
        pub unsafe extern "C" fn fmi2GetVersion() -> *const ::std::ffi::c_char {
            unsafe { $crate::fmi2::get_version() }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2SetDebugLogging`.
        pub unsafe extern "C" fn fmi2SetDebugLogging(
            c: $crate::fmi2::fmi2Component,
            loggingOn: $crate::fmi2::fmi2Boolean,
            nCategories: usize,
            categories: *const $crate::fmi2::fmi2String,
        ) -> $crate::fmi2::fmi2Status {
            unsafe {
                $crate::fmi2::set_debug_logging::<$model, $n>(c, loggingOn, nCategories, categories)
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2Instantiate`.
        pub unsafe extern "C" fn fmi2Instantiate(
            instanceName: $crate::fmi2::fmi2String,
            fmuType: $crate::fmi2::fmi2Type,
            fmuGUID: $crate::fmi2::fmi2String,
            fmuResourceLocation: $crate::fmi2::fmi2String,
            functions: *const $crate::fmi2::fmi2CallbackFunctions,
            visible: $crate::fmi2::fmi2Boolean,
            loggingOn: $crate::fmi2::fmi2Boolean,
        ) -> $crate::fmi2::fmi2Component {
            unsafe {
                $crate::fmi2::instantiate::<$model, $n>(
                    instanceName,
                    fmuType,
                    fmuGUID,
                    fmuResourceLocation,
                    functions,
                    visible,
                    loggingOn,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2FreeInstance`.
        pub unsafe extern "C" fn fmi2FreeInstance(c: $crate::fmi2::fmi2Component) {
            unsafe { $crate::fmi2::free_instance::<$model, $n>(c) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2SetupExperiment`.
        pub unsafe extern "C" fn fmi2SetupExperiment(
            c: $crate::fmi2::fmi2Component,
            toleranceDefined: $crate::fmi2::fmi2Boolean,
            tolerance: $crate::fmi2::fmi2Real,
            startTime: $crate::fmi2::fmi2Real,
            stopTimeDefined: $crate::fmi2::fmi2Boolean,
            stopTime: $crate::fmi2::fmi2Real,
        ) -> $crate::fmi2::fmi2Status {
            unsafe {
                $crate::fmi2::setup_experiment::<$model, $n>(
                    c,
                    toleranceDefined,
                    tolerance,
                    startTime,
                    stopTimeDefined,
                    stopTime,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2EnterInitializationMode`.
        pub unsafe extern "C" fn fmi2EnterInitializationMode(
            c: $crate::fmi2::fmi2Component,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::enter_initialization_mode::<$model, $n>(c) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2ExitInitializationMode`.
        pub unsafe extern "C" fn fmi2ExitInitializationMode(
            c: $crate::fmi2::fmi2Component,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::exit_initialization_mode::<$model, $n>(c) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2Terminate`.
        pub unsafe extern "C" fn fmi2Terminate(
            c: $crate::fmi2::fmi2Component,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::terminate::<$model, $n>(c) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2Reset`.
        pub unsafe extern "C" fn fmi2Reset(
            c: $crate::fmi2::fmi2Component,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::reset::<$model, $n>(c) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetReal`.
        pub unsafe extern "C" fn fmi2GetReal(
            c: $crate::fmi2::fmi2Component,
            vr: *const $crate::fmi2::fmi2ValueReference,
            nvr: usize,
            value: *mut $crate::fmi2::fmi2Real,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::get_real::<$model, $n>(c, vr, nvr, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetInteger`.
        pub unsafe extern "C" fn fmi2GetInteger(
            c: $crate::fmi2::fmi2Component,
            vr: *const $crate::fmi2::fmi2ValueReference,
            nvr: usize,
            value: *mut $crate::fmi2::fmi2Integer,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::get_integer::<$model, $n>(c, vr, nvr, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetBoolean`.
        pub unsafe extern "C" fn fmi2GetBoolean(
            c: $crate::fmi2::fmi2Component,
            vr: *const $crate::fmi2::fmi2ValueReference,
            nvr: usize,
            value: *mut $crate::fmi2::fmi2Boolean,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::get_boolean::<$model, $n>(c, vr, nvr, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetString`.
        pub unsafe extern "C" fn fmi2GetString(
            c: $crate::fmi2::fmi2Component,
            vr: *const $crate::fmi2::fmi2ValueReference,
            nvr: usize,
            value: *mut $crate::fmi2::fmi2String,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::get_string::<$model, $n>(c, vr, nvr, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2SetReal`.
        pub unsafe extern "C" fn fmi2SetReal(
            c: $crate::fmi2::fmi2Component,
            vr: *const $crate::fmi2::fmi2ValueReference,
            nvr: usize,
            value: *const $crate::fmi2::fmi2Real,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::set_real::<$model, $n>(c, vr, nvr, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2SetInteger`.
        pub unsafe extern "C" fn fmi2SetInteger(
            c: $crate::fmi2::fmi2Component,
            vr: *const $crate::fmi2::fmi2ValueReference,
            nvr: usize,
            value: *const $crate::fmi2::fmi2Integer,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::set_integer::<$model, $n>(c, vr, nvr, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2SetBoolean`.
        pub unsafe extern "C" fn fmi2SetBoolean(
            c: $crate::fmi2::fmi2Component,
            vr: *const $crate::fmi2::fmi2ValueReference,
            nvr: usize,
            value: *const $crate::fmi2::fmi2Boolean,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::set_boolean::<$model, $n>(c, vr, nvr, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2SetString`.
        pub unsafe extern "C" fn fmi2SetString(
            c: $crate::fmi2::fmi2Component,
            vr: *const $crate::fmi2::fmi2ValueReference,
            nvr: usize,
            value: *const $crate::fmi2::fmi2String,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::set_string::<$model, $n>(c, vr, nvr, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetFMUstate`.
        pub unsafe extern "C" fn fmi2GetFMUstate(
            c: $crate::fmi2::fmi2Component,
            FMUstate: *mut $crate::fmi2::fmi2FMUstate,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::get_fmu_state::<$model, $n>(c, FMUstate) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2SetFMUstate`.
        pub unsafe extern "C" fn fmi2SetFMUstate(
            c: $crate::fmi2::fmi2Component,
            FMUstate: $crate::fmi2::fmi2FMUstate,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::set_fmu_state::<$model, $n>(c, FMUstate) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2FreeFMUstate`.
        pub unsafe extern "C" fn fmi2FreeFMUstate(
            c: $crate::fmi2::fmi2Component,
            FMUstate: *mut $crate::fmi2::fmi2FMUstate,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::free_fmu_state::<$model, $n>(c, FMUstate) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2SerializedFMUstateSize`.
        pub unsafe extern "C" fn fmi2SerializedFMUstateSize(
            c: $crate::fmi2::fmi2Component,
            FMUstate: $crate::fmi2::fmi2FMUstate,
            size: *mut usize,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::serialized_fmu_state_size::<$model, $n>(c, FMUstate, size) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2SerializeFMUstate`.
        pub unsafe extern "C" fn fmi2SerializeFMUstate(
            c: $crate::fmi2::fmi2Component,
            FMUstate: $crate::fmi2::fmi2FMUstate,
            serializedState: *mut $crate::fmi2::fmi2Byte,
            size: usize,
        ) -> $crate::fmi2::fmi2Status {
            unsafe {
                $crate::fmi2::serialize_fmu_state::<$model, $n>(c, FMUstate, serializedState, size)
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2DeSerializeFMUstate`.
        pub unsafe extern "C" fn fmi2DeSerializeFMUstate(
            c: $crate::fmi2::fmi2Component,
            serializedState: *const $crate::fmi2::fmi2Byte,
            size: usize,
            FMUstate: *mut $crate::fmi2::fmi2FMUstate,
        ) -> $crate::fmi2::fmi2Status {
            unsafe {
                $crate::fmi2::deserialize_fmu_state::<$model, $n>(
                    c,
                    serializedState,
                    size,
                    FMUstate,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetDirectionalDerivative`.
        pub unsafe extern "C" fn fmi2GetDirectionalDerivative(
            c: $crate::fmi2::fmi2Component,
            vUnknown_ref: *const $crate::fmi2::fmi2ValueReference,
            nUnknown: usize,
            vKnown_ref: *const $crate::fmi2::fmi2ValueReference,
            nKnown: usize,
            dvKnown: *const $crate::fmi2::fmi2Real,
            dvUnknown: *mut $crate::fmi2::fmi2Real,
        ) -> $crate::fmi2::fmi2Status {
            unsafe {
                $crate::fmi2::get_directional_derivative::<$model, $n>(
                    c,
                    vUnknown_ref,
                    nUnknown,
                    vKnown_ref,
                    nKnown,
                    dvKnown,
                    dvUnknown,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2SetRealInputDerivatives`.
        pub unsafe extern "C" fn fmi2SetRealInputDerivatives(
            c: $crate::fmi2::fmi2Component,
            vr: *const $crate::fmi2::fmi2ValueReference,
            nvr: usize,
            order: *const $crate::fmi2::fmi2Integer,
            value: *const $crate::fmi2::fmi2Real,
        ) -> $crate::fmi2::fmi2Status {
            unsafe {
                $crate::fmi2::set_real_input_derivatives::<$model, $n>(c, vr, nvr, order, value)
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetRealOutputDerivatives`.
        pub unsafe extern "C" fn fmi2GetRealOutputDerivatives(
            c: $crate::fmi2::fmi2Component,
            vr: *const $crate::fmi2::fmi2ValueReference,
            nvr: usize,
            order: *const $crate::fmi2::fmi2Integer,
            value: *mut $crate::fmi2::fmi2Real,
        ) -> $crate::fmi2::fmi2Status {
            unsafe {
                $crate::fmi2::get_real_output_derivatives::<$model, $n>(c, vr, nvr, order, value)
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2DoStep`.
        pub unsafe extern "C" fn fmi2DoStep(
            c: $crate::fmi2::fmi2Component,
            currentCommunicationPoint: $crate::fmi2::fmi2Real,
            communicationStepSize: $crate::fmi2::fmi2Real,
            noSetFMUStatePriorToCurrentPoint: $crate::fmi2::fmi2Boolean,
        ) -> $crate::fmi2::fmi2Status {
            unsafe {
                $crate::fmi2::do_step::<$model, $n>(
                    c,
                    currentCommunicationPoint,
                    communicationStepSize,
                    noSetFMUStatePriorToCurrentPoint,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2CancelStep`.
        pub unsafe extern "C" fn fmi2CancelStep(
            c: $crate::fmi2::fmi2Component,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::cancel_step::<$model, $n>(c) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetStatus`.
        pub unsafe extern "C" fn fmi2GetStatus(
            c: $crate::fmi2::fmi2Component,
            s: $crate::fmi2::fmi2StatusKind,
            value: *mut $crate::fmi2::fmi2Status,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::get_status::<$model, $n>(c, s, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetRealStatus`.
        pub unsafe extern "C" fn fmi2GetRealStatus(
            c: $crate::fmi2::fmi2Component,
            s: $crate::fmi2::fmi2StatusKind,
            value: *mut $crate::fmi2::fmi2Real,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::get_real_status::<$model, $n>(c, s, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetIntegerStatus`.
        pub unsafe extern "C" fn fmi2GetIntegerStatus(
            c: $crate::fmi2::fmi2Component,
            s: $crate::fmi2::fmi2StatusKind,
            value: *mut $crate::fmi2::fmi2Integer,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::get_integer_status::<$model, $n>(c, s, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetBooleanStatus`.
        pub unsafe extern "C" fn fmi2GetBooleanStatus(
            c: $crate::fmi2::fmi2Component,
            s: $crate::fmi2::fmi2StatusKind,
            value: *mut $crate::fmi2::fmi2Boolean,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::get_boolean_status::<$model, $n>(c, s, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetStringStatus`.
        pub unsafe extern "C" fn fmi2GetStringStatus(
            c: $crate::fmi2::fmi2Component,
            s: $crate::fmi2::fmi2StatusKind,
            value: *mut $crate::fmi2::fmi2String,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::get_string_status::<$model, $n>(c, s, value) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2EnterEventMode`.
        pub unsafe extern "C" fn fmi2EnterEventMode(
            c: $crate::fmi2::fmi2Component,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::model_exchange_only::<$model, $n>(c, "fmi2EnterEventMode") }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2NewDiscreteStates`.
        pub unsafe extern "C" fn fmi2NewDiscreteStates(
            c: $crate::fmi2::fmi2Component,
            fmi2eventInfo: *mut $crate::fmi2::fmi2EventInfo,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::model_exchange_only::<$model, $n>(c, "fmi2NewDiscreteStates") }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2EnterContinuousTimeMode`.
        pub unsafe extern "C" fn fmi2EnterContinuousTimeMode(
            c: $crate::fmi2::fmi2Component,
        ) -> $crate::fmi2::fmi2Status {
            unsafe {
                $crate::fmi2::model_exchange_only::<$model, $n>(c, "fmi2EnterContinuousTimeMode")
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2CompletedIntegratorStep`.
        pub unsafe extern "C" fn fmi2CompletedIntegratorStep(
            c: $crate::fmi2::fmi2Component,
            noSetFMUStatePriorToCurrentPoint: $crate::fmi2::fmi2Boolean,
            enterEventMode: *mut $crate::fmi2::fmi2Boolean,
            terminateSimulation: *mut $crate::fmi2::fmi2Boolean,
        ) -> $crate::fmi2::fmi2Status {
            unsafe {
                $crate::fmi2::model_exchange_only::<$model, $n>(c, "fmi2CompletedIntegratorStep")
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2SetTime`.
        pub unsafe extern "C" fn fmi2SetTime(
            c: $crate::fmi2::fmi2Component,
            time: $crate::fmi2::fmi2Real,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::model_exchange_only::<$model, $n>(c, "fmi2SetTime") }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2SetContinuousStates`.
        pub unsafe extern "C" fn fmi2SetContinuousStates(
            c: $crate::fmi2::fmi2Component,
            x: *const $crate::fmi2::fmi2Real,
            nx: usize,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::model_exchange_only::<$model, $n>(c, "fmi2SetContinuousStates") }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetDerivatives`.
        pub unsafe extern "C" fn fmi2GetDerivatives(
            c: $crate::fmi2::fmi2Component,
            derivatives: *mut $crate::fmi2::fmi2Real,
            nx: usize,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::model_exchange_only::<$model, $n>(c, "fmi2GetDerivatives") }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetEventIndicators`.
        pub unsafe extern "C" fn fmi2GetEventIndicators(
            c: $crate::fmi2::fmi2Component,
            eventIndicators: *mut $crate::fmi2::fmi2Real,
            ni: usize,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::model_exchange_only::<$model, $n>(c, "fmi2GetEventIndicators") }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetContinuousStates`.
        pub unsafe extern "C" fn fmi2GetContinuousStates(
            c: $crate::fmi2::fmi2Component,
            x: *mut $crate::fmi2::fmi2Real,
            nx: usize,
        ) -> $crate::fmi2::fmi2Status {
            unsafe { $crate::fmi2::model_exchange_only::<$model, $n>(c, "fmi2GetContinuousStates") }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi2GetNominalsOfContinuousStates`.
        pub unsafe extern "C" fn fmi2GetNominalsOfContinuousStates(
            c: $crate::fmi2::fmi2Component,
            x_nominal: *mut $crate::fmi2::fmi2Real,
            nx: usize,
        ) -> $crate::fmi2::fmi2Status {
            unsafe {
                $crate::fmi2::model_exchange_only::<$model, $n>(
                    c,
                    "fmi2GetNominalsOfContinuousStates",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetVersion`.
        pub unsafe extern "C" fn fmi3GetVersion() -> *const ::std::ffi::c_char {
            unsafe { $crate::fmi3::get_version() }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetDebugLogging`.
        pub unsafe extern "C" fn fmi3SetDebugLogging(
            instance: $crate::fmi3::fmi3Instance,
            loggingOn: $crate::fmi3::fmi3Boolean,
            nCategories: usize,
            categories: *const $crate::fmi3::fmi3String,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::set_debug_logging::<$model, $n>(
                    instance,
                    loggingOn,
                    nCategories,
                    categories,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3InstantiateModelExchange`.
        pub unsafe extern "C" fn fmi3InstantiateModelExchange(
            instanceName: $crate::fmi3::fmi3String,
            instantiationToken: $crate::fmi3::fmi3String,
            resourcePath: $crate::fmi3::fmi3String,
            visible: $crate::fmi3::fmi3Boolean,
            loggingOn: $crate::fmi3::fmi3Boolean,
            instanceEnvironment: $crate::fmi3::fmi3InstanceEnvironment,
            logMessage: $crate::fmi3::fmi3LogMessageCallback,
        ) -> $crate::fmi3::fmi3Instance {
            unsafe {
                $crate::fmi3::instantiate_model_exchange(
                    instanceName,
                    instantiationToken,
                    resourcePath,
                    visible,
                    loggingOn,
                    instanceEnvironment,
                    logMessage,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3InstantiateCoSimulation`.
        pub unsafe extern "C" fn fmi3InstantiateCoSimulation(
            instanceName: $crate::fmi3::fmi3String,
            instantiationToken: $crate::fmi3::fmi3String,
            resourcePath: $crate::fmi3::fmi3String,
            visible: $crate::fmi3::fmi3Boolean,
            loggingOn: $crate::fmi3::fmi3Boolean,
            eventModeUsed: $crate::fmi3::fmi3Boolean,
            earlyReturnAllowed: $crate::fmi3::fmi3Boolean,
            requiredIntermediateVariables: *const $crate::fmi3::fmi3ValueReference,
            nRequiredIntermediateVariables: usize,
            instanceEnvironment: $crate::fmi3::fmi3InstanceEnvironment,
            logMessage: $crate::fmi3::fmi3LogMessageCallback,
            intermediateUpdate: $crate::fmi3::fmi3IntermediateUpdateCallback,
        ) -> $crate::fmi3::fmi3Instance {
            unsafe {
                $crate::fmi3::instantiate_co_simulation::<$model, $n>(
                    instanceName,
                    instantiationToken,
                    resourcePath,
                    visible,
                    loggingOn,
                    eventModeUsed,
                    earlyReturnAllowed,
                    requiredIntermediateVariables,
                    nRequiredIntermediateVariables,
                    instanceEnvironment,
                    logMessage,
                    intermediateUpdate,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3InstantiateScheduledExecution`.
        pub unsafe extern "C" fn fmi3InstantiateScheduledExecution(
            instanceName: $crate::fmi3::fmi3String,
            instantiationToken: $crate::fmi3::fmi3String,
            resourcePath: $crate::fmi3::fmi3String,
            visible: $crate::fmi3::fmi3Boolean,
            loggingOn: $crate::fmi3::fmi3Boolean,
            instanceEnvironment: $crate::fmi3::fmi3InstanceEnvironment,
            logMessage: $crate::fmi3::fmi3LogMessageCallback,
            clockUpdate: $crate::fmi3::fmi3ClockUpdateCallback,
            lockPreemption: $crate::fmi3::fmi3LockPreemptionCallback,
            unlockPreemption: $crate::fmi3::fmi3UnlockPreemptionCallback,
        ) -> $crate::fmi3::fmi3Instance {
            unsafe {
                $crate::fmi3::instantiate_scheduled_execution(
                    instanceName,
                    instantiationToken,
                    resourcePath,
                    visible,
                    loggingOn,
                    instanceEnvironment,
                    logMessage,
                    clockUpdate,
                    lockPreemption,
                    unlockPreemption,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3FreeInstance`.
        pub unsafe extern "C" fn fmi3FreeInstance(instance: $crate::fmi3::fmi3Instance) {
            unsafe { $crate::fmi3::free_instance::<$model, $n>(instance) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3EnterInitializationMode`.
        pub unsafe extern "C" fn fmi3EnterInitializationMode(
            instance: $crate::fmi3::fmi3Instance,
            toleranceDefined: $crate::fmi3::fmi3Boolean,
            tolerance: $crate::fmi3::fmi3Float64,
            startTime: $crate::fmi3::fmi3Float64,
            stopTimeDefined: $crate::fmi3::fmi3Boolean,
            stopTime: $crate::fmi3::fmi3Float64,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::enter_initialization_mode::<$model, $n>(
                    instance,
                    toleranceDefined,
                    tolerance,
                    startTime,
                    stopTimeDefined,
                    stopTime,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3ExitInitializationMode`.
        pub unsafe extern "C" fn fmi3ExitInitializationMode(
            instance: $crate::fmi3::fmi3Instance,
        ) -> $crate::fmi3::fmi3Status {
            unsafe { $crate::fmi3::exit_initialization_mode::<$model, $n>(instance) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3EnterEventMode`.
        pub unsafe extern "C" fn fmi3EnterEventMode(
            instance: $crate::fmi3::fmi3Instance,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3EnterEventMode",
                    "Event Mode",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3Terminate`.
        pub unsafe extern "C" fn fmi3Terminate(
            instance: $crate::fmi3::fmi3Instance,
        ) -> $crate::fmi3::fmi3Status {
            unsafe { $crate::fmi3::terminate::<$model, $n>(instance) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3Reset`.
        pub unsafe extern "C" fn fmi3Reset(
            instance: $crate::fmi3::fmi3Instance,
        ) -> $crate::fmi3::fmi3Status {
            unsafe { $crate::fmi3::reset::<$model, $n>(instance) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetFloat32`.
        pub unsafe extern "C" fn fmi3GetFloat32(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3Float32,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3GetFloat32",
                    valueReferences,
                    nValueReferences,
                    "Float32",
                    false,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetFloat64`.
        pub unsafe extern "C" fn fmi3GetFloat64(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3Float64,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::get_typed::<$model, $n, _>(
                    instance,
                    "fmi3GetFloat64",
                    valueReferences,
                    nValueReferences,
                    values,
                    nValues,
                    $crate::ValueType::Real,
                    |v| v,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetInt8`.
        pub unsafe extern "C" fn fmi3GetInt8(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3Int8,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3GetInt8",
                    valueReferences,
                    nValueReferences,
                    "Int8",
                    false,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetUInt8`.
        pub unsafe extern "C" fn fmi3GetUInt8(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3UInt8,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3GetUInt8",
                    valueReferences,
                    nValueReferences,
                    "UInt8",
                    false,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetInt16`.
        pub unsafe extern "C" fn fmi3GetInt16(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3Int16,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3GetInt16",
                    valueReferences,
                    nValueReferences,
                    "Int16",
                    false,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetUInt16`.
        pub unsafe extern "C" fn fmi3GetUInt16(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3UInt16,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3GetUInt16",
                    valueReferences,
                    nValueReferences,
                    "UInt16",
                    false,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetInt32`.
        pub unsafe extern "C" fn fmi3GetInt32(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3Int32,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::get_typed::<$model, $n, _>(
                    instance,
                    "fmi3GetInt32",
                    valueReferences,
                    nValueReferences,
                    values,
                    nValues,
                    $crate::ValueType::Integer,
                    |v| v as i32,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetUInt32`.
        pub unsafe extern "C" fn fmi3GetUInt32(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3UInt32,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3GetUInt32",
                    valueReferences,
                    nValueReferences,
                    "UInt32",
                    false,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetInt64`.
        pub unsafe extern "C" fn fmi3GetInt64(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3Int64,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3GetInt64",
                    valueReferences,
                    nValueReferences,
                    "Int64",
                    false,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetUInt64`.
        pub unsafe extern "C" fn fmi3GetUInt64(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3UInt64,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3GetUInt64",
                    valueReferences,
                    nValueReferences,
                    "UInt64",
                    false,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetBoolean`.
        pub unsafe extern "C" fn fmi3GetBoolean(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3Boolean,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::get_typed::<$model, $n, _>(
                    instance,
                    "fmi3GetBoolean",
                    valueReferences,
                    nValueReferences,
                    values,
                    nValues,
                    $crate::ValueType::Boolean,
                    |v| u8::from(v != 0.0),
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetString`.
        pub unsafe extern "C" fn fmi3GetString(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3String,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3GetString",
                    valueReferences,
                    nValueReferences,
                    "String",
                    false,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetBinary`.
        pub unsafe extern "C" fn fmi3GetBinary(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            valueSizes: *mut usize,
            values: *mut $crate::fmi3::fmi3Binary,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3GetBinary",
                    valueReferences,
                    nValueReferences,
                    "Binary",
                    false,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetClock`.
        pub unsafe extern "C" fn fmi3GetClock(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $crate::fmi3::fmi3Clock,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3GetClock",
                    valueReferences,
                    nValueReferences,
                    "Clock",
                    false,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetFloat32`.
        pub unsafe extern "C" fn fmi3SetFloat32(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3Float32,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3SetFloat32",
                    valueReferences,
                    nValueReferences,
                    "Float32",
                    true,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetFloat64`.
        pub unsafe extern "C" fn fmi3SetFloat64(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3Float64,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::set_typed::<$model, $n, _>(
                    instance,
                    "fmi3SetFloat64",
                    valueReferences,
                    nValueReferences,
                    values,
                    nValues,
                    $crate::ValueType::Real,
                    |v| v,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetInt8`.
        pub unsafe extern "C" fn fmi3SetInt8(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3Int8,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3SetInt8",
                    valueReferences,
                    nValueReferences,
                    "Int8",
                    true,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetUInt8`.
        pub unsafe extern "C" fn fmi3SetUInt8(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3UInt8,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3SetUInt8",
                    valueReferences,
                    nValueReferences,
                    "UInt8",
                    true,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetInt16`.
        pub unsafe extern "C" fn fmi3SetInt16(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3Int16,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3SetInt16",
                    valueReferences,
                    nValueReferences,
                    "Int16",
                    true,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetUInt16`.
        pub unsafe extern "C" fn fmi3SetUInt16(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3UInt16,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3SetUInt16",
                    valueReferences,
                    nValueReferences,
                    "UInt16",
                    true,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetInt32`.
        pub unsafe extern "C" fn fmi3SetInt32(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3Int32,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::set_typed::<$model, $n, _>(
                    instance,
                    "fmi3SetInt32",
                    valueReferences,
                    nValueReferences,
                    values,
                    nValues,
                    $crate::ValueType::Integer,
                    f64::from,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetUInt32`.
        pub unsafe extern "C" fn fmi3SetUInt32(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3UInt32,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3SetUInt32",
                    valueReferences,
                    nValueReferences,
                    "UInt32",
                    true,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetInt64`.
        pub unsafe extern "C" fn fmi3SetInt64(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3Int64,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3SetInt64",
                    valueReferences,
                    nValueReferences,
                    "Int64",
                    true,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetUInt64`.
        pub unsafe extern "C" fn fmi3SetUInt64(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3UInt64,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3SetUInt64",
                    valueReferences,
                    nValueReferences,
                    "UInt64",
                    true,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetBoolean`.
        pub unsafe extern "C" fn fmi3SetBoolean(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3Boolean,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::set_typed::<$model, $n, _>(
                    instance,
                    "fmi3SetBoolean",
                    valueReferences,
                    nValueReferences,
                    values,
                    nValues,
                    $crate::ValueType::Boolean,
                    |v: u8| if v != 0 { 1.0 } else { 0.0 },
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetString`.
        pub unsafe extern "C" fn fmi3SetString(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3String,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3SetString",
                    valueReferences,
                    nValueReferences,
                    "String",
                    true,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetBinary`.
        pub unsafe extern "C" fn fmi3SetBinary(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            valueSizes: *const usize,
            values: *const $crate::fmi3::fmi3Binary,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3SetBinary",
                    valueReferences,
                    nValueReferences,
                    "Binary",
                    true,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetClock`.
        pub unsafe extern "C" fn fmi3SetClock(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            values: *const $crate::fmi3::fmi3Clock,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::no_such_type::<$model, $n>(
                    instance,
                    "fmi3SetClock",
                    valueReferences,
                    nValueReferences,
                    "Clock",
                    true,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetNumberOfVariableDependencies`.
        pub unsafe extern "C" fn fmi3GetNumberOfVariableDependencies(
            instance: $crate::fmi3::fmi3Instance,
            valueReference: $crate::fmi3::fmi3ValueReference,
            nDependencies: *mut usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::get_number_of_variable_dependencies::<$model, $n>(
                    instance,
                    valueReference,
                    nDependencies,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetVariableDependencies`.
        pub unsafe extern "C" fn fmi3GetVariableDependencies(
            instance: $crate::fmi3::fmi3Instance,
            dependent: $crate::fmi3::fmi3ValueReference,
            elementIndicesOfDependent: *mut usize,
            independents: *mut $crate::fmi3::fmi3ValueReference,
            elementIndicesOfIndependents: *mut usize,
            dependencyKinds: *mut $crate::fmi3::fmi3DependencyKind,
            nDependencies: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::get_variable_dependencies::<$model, $n>(
                    instance,
                    dependent,
                    elementIndicesOfDependent,
                    independents,
                    elementIndicesOfIndependents,
                    dependencyKinds,
                    nDependencies,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetFMUState`.
        pub unsafe extern "C" fn fmi3GetFMUState(
            instance: $crate::fmi3::fmi3Instance,
            FMUState: *mut $crate::fmi3::fmi3FMUState,
        ) -> $crate::fmi3::fmi3Status {
            unsafe { $crate::fmi3::get_fmu_state::<$model, $n>(instance, FMUState) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetFMUState`.
        pub unsafe extern "C" fn fmi3SetFMUState(
            instance: $crate::fmi3::fmi3Instance,
            FMUState: $crate::fmi3::fmi3FMUState,
        ) -> $crate::fmi3::fmi3Status {
            unsafe { $crate::fmi3::set_fmu_state::<$model, $n>(instance, FMUState) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3FreeFMUState`.
        pub unsafe extern "C" fn fmi3FreeFMUState(
            instance: $crate::fmi3::fmi3Instance,
            FMUState: *mut $crate::fmi3::fmi3FMUState,
        ) -> $crate::fmi3::fmi3Status {
            unsafe { $crate::fmi3::free_fmu_state::<$model, $n>(instance, FMUState) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SerializedFMUStateSize`.
        pub unsafe extern "C" fn fmi3SerializedFMUStateSize(
            instance: $crate::fmi3::fmi3Instance,
            FMUState: $crate::fmi3::fmi3FMUState,
            size: *mut usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::serialized_fmu_state_size::<$model, $n>(instance, FMUState, size)
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SerializeFMUState`.
        pub unsafe extern "C" fn fmi3SerializeFMUState(
            instance: $crate::fmi3::fmi3Instance,
            FMUState: $crate::fmi3::fmi3FMUState,
            serializedState: *mut $crate::fmi3::fmi3Byte,
            size: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::serialize_fmu_state::<$model, $n>(
                    instance,
                    FMUState,
                    serializedState,
                    size,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3DeserializeFMUState`.
        pub unsafe extern "C" fn fmi3DeserializeFMUState(
            instance: $crate::fmi3::fmi3Instance,
            serializedState: *const $crate::fmi3::fmi3Byte,
            size: usize,
            FMUState: *mut $crate::fmi3::fmi3FMUState,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::deserialize_fmu_state::<$model, $n>(
                    instance,
                    serializedState,
                    size,
                    FMUState,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetDirectionalDerivative`.
        pub unsafe extern "C" fn fmi3GetDirectionalDerivative(
            instance: $crate::fmi3::fmi3Instance,
            unknowns: *const $crate::fmi3::fmi3ValueReference,
            nUnknowns: usize,
            knowns: *const $crate::fmi3::fmi3ValueReference,
            nKnowns: usize,
            seed: *const $crate::fmi3::fmi3Float64,
            nSeed: usize,
            sensitivity: *mut $crate::fmi3::fmi3Float64,
            nSensitivity: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::get_directional_derivative::<$model, $n>(
                    instance,
                    unknowns,
                    nUnknowns,
                    knowns,
                    nKnowns,
                    seed,
                    nSeed,
                    sensitivity,
                    nSensitivity,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetAdjointDerivative`.
        pub unsafe extern "C" fn fmi3GetAdjointDerivative(
            instance: $crate::fmi3::fmi3Instance,
            unknowns: *const $crate::fmi3::fmi3ValueReference,
            nUnknowns: usize,
            knowns: *const $crate::fmi3::fmi3ValueReference,
            nKnowns: usize,
            seed: *const $crate::fmi3::fmi3Float64,
            nSeed: usize,
            sensitivity: *mut $crate::fmi3::fmi3Float64,
            nSensitivity: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3GetAdjointDerivative",
                    "adjoint derivatives",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3EnterConfigurationMode`.
        pub unsafe extern "C" fn fmi3EnterConfigurationMode(
            instance: $crate::fmi3::fmi3Instance,
        ) -> $crate::fmi3::fmi3Status {
            unsafe { $crate::fmi3::enter_configuration_mode::<$model, $n>(instance) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3ExitConfigurationMode`.
        pub unsafe extern "C" fn fmi3ExitConfigurationMode(
            instance: $crate::fmi3::fmi3Instance,
        ) -> $crate::fmi3::fmi3Status {
            unsafe { $crate::fmi3::exit_configuration_mode::<$model, $n>(instance) }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetIntervalDecimal`.
        pub unsafe extern "C" fn fmi3GetIntervalDecimal(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            intervals: *mut $crate::fmi3::fmi3Float64,
            qualifiers: *mut $crate::fmi3::fmi3IntervalQualifier,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3GetIntervalDecimal",
                    "clocks",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetIntervalFraction`.
        pub unsafe extern "C" fn fmi3GetIntervalFraction(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            counters: *mut $crate::fmi3::fmi3UInt64,
            resolutions: *mut $crate::fmi3::fmi3UInt64,
            qualifiers: *mut $crate::fmi3::fmi3IntervalQualifier,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3GetIntervalFraction",
                    "clocks",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetShiftDecimal`.
        pub unsafe extern "C" fn fmi3GetShiftDecimal(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            shifts: *mut $crate::fmi3::fmi3Float64,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(instance, "fmi3GetShiftDecimal", "clocks")
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetShiftFraction`.
        pub unsafe extern "C" fn fmi3GetShiftFraction(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            counters: *mut $crate::fmi3::fmi3UInt64,
            resolutions: *mut $crate::fmi3::fmi3UInt64,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(instance, "fmi3GetShiftFraction", "clocks")
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetIntervalDecimal`.
        pub unsafe extern "C" fn fmi3SetIntervalDecimal(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            intervals: *const $crate::fmi3::fmi3Float64,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3SetIntervalDecimal",
                    "clocks",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetIntervalFraction`.
        pub unsafe extern "C" fn fmi3SetIntervalFraction(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            counters: *const $crate::fmi3::fmi3UInt64,
            resolutions: *const $crate::fmi3::fmi3UInt64,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3SetIntervalFraction",
                    "clocks",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetShiftDecimal`.
        pub unsafe extern "C" fn fmi3SetShiftDecimal(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            shifts: *const $crate::fmi3::fmi3Float64,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(instance, "fmi3SetShiftDecimal", "clocks")
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetShiftFraction`.
        pub unsafe extern "C" fn fmi3SetShiftFraction(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            counters: *const $crate::fmi3::fmi3UInt64,
            resolutions: *const $crate::fmi3::fmi3UInt64,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(instance, "fmi3SetShiftFraction", "clocks")
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3EvaluateDiscreteStates`.
        pub unsafe extern "C" fn fmi3EvaluateDiscreteStates(
            instance: $crate::fmi3::fmi3Instance,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3EvaluateDiscreteStates",
                    "Event Mode",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3UpdateDiscreteStates`.
        pub unsafe extern "C" fn fmi3UpdateDiscreteStates(
            instance: $crate::fmi3::fmi3Instance,
            discreteStatesNeedUpdate: *mut $crate::fmi3::fmi3Boolean,
            terminateSimulation: *mut $crate::fmi3::fmi3Boolean,
            nominalsOfContinuousStatesChanged: *mut $crate::fmi3::fmi3Boolean,
            valuesOfContinuousStatesChanged: *mut $crate::fmi3::fmi3Boolean,
            nextEventTimeDefined: *mut $crate::fmi3::fmi3Boolean,
            nextEventTime: *mut $crate::fmi3::fmi3Float64,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3UpdateDiscreteStates",
                    "Event Mode",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3EnterContinuousTimeMode`.
        pub unsafe extern "C" fn fmi3EnterContinuousTimeMode(
            instance: $crate::fmi3::fmi3Instance,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3EnterContinuousTimeMode",
                    "Model Exchange",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3CompletedIntegratorStep`.
        pub unsafe extern "C" fn fmi3CompletedIntegratorStep(
            instance: $crate::fmi3::fmi3Instance,
            noSetFMUStatePriorToCurrentPoint: $crate::fmi3::fmi3Boolean,
            enterEventMode: *mut $crate::fmi3::fmi3Boolean,
            terminateSimulation: *mut $crate::fmi3::fmi3Boolean,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3CompletedIntegratorStep",
                    "Model Exchange",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetTime`.
        pub unsafe extern "C" fn fmi3SetTime(
            instance: $crate::fmi3::fmi3Instance,
            time: $crate::fmi3::fmi3Float64,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(instance, "fmi3SetTime", "Model Exchange")
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3SetContinuousStates`.
        pub unsafe extern "C" fn fmi3SetContinuousStates(
            instance: $crate::fmi3::fmi3Instance,
            continuousStates: *const $crate::fmi3::fmi3Float64,
            nContinuousStates: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3SetContinuousStates",
                    "Model Exchange",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetContinuousStateDerivatives`.
        pub unsafe extern "C" fn fmi3GetContinuousStateDerivatives(
            instance: $crate::fmi3::fmi3Instance,
            derivatives: *mut $crate::fmi3::fmi3Float64,
            nContinuousStates: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3GetContinuousStateDerivatives",
                    "Model Exchange",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetEventIndicators`.
        pub unsafe extern "C" fn fmi3GetEventIndicators(
            instance: $crate::fmi3::fmi3Instance,
            eventIndicators: *mut $crate::fmi3::fmi3Float64,
            nEventIndicators: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3GetEventIndicators",
                    "Model Exchange",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetContinuousStates`.
        pub unsafe extern "C" fn fmi3GetContinuousStates(
            instance: $crate::fmi3::fmi3Instance,
            continuousStates: *mut $crate::fmi3::fmi3Float64,
            nContinuousStates: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3GetContinuousStates",
                    "Model Exchange",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetNominalsOfContinuousStates`.
        pub unsafe extern "C" fn fmi3GetNominalsOfContinuousStates(
            instance: $crate::fmi3::fmi3Instance,
            nominals: *mut $crate::fmi3::fmi3Float64,
            nContinuousStates: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3GetNominalsOfContinuousStates",
                    "Model Exchange",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetNumberOfEventIndicators`.
        pub unsafe extern "C" fn fmi3GetNumberOfEventIndicators(
            instance: $crate::fmi3::fmi3Instance,
            nEventIndicators: *mut usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3GetNumberOfEventIndicators",
                    "Model Exchange",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetNumberOfContinuousStates`.
        pub unsafe extern "C" fn fmi3GetNumberOfContinuousStates(
            instance: $crate::fmi3::fmi3Instance,
            nContinuousStates: *mut usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3GetNumberOfContinuousStates",
                    "Model Exchange",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3EnterStepMode`.
        pub unsafe extern "C" fn fmi3EnterStepMode(
            instance: $crate::fmi3::fmi3Instance,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(instance, "fmi3EnterStepMode", "Event Mode")
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3GetOutputDerivatives`.
        pub unsafe extern "C" fn fmi3GetOutputDerivatives(
            instance: $crate::fmi3::fmi3Instance,
            valueReferences: *const $crate::fmi3::fmi3ValueReference,
            nValueReferences: usize,
            orders: *const $crate::fmi3::fmi3Int32,
            values: *mut $crate::fmi3::fmi3Float64,
            nValues: usize,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3GetOutputDerivatives",
                    "output derivatives",
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3DoStep`.
        pub unsafe extern "C" fn fmi3DoStep(
            instance: $crate::fmi3::fmi3Instance,
            currentCommunicationPoint: $crate::fmi3::fmi3Float64,
            communicationStepSize: $crate::fmi3::fmi3Float64,
            noSetFMUStatePriorToCurrentPoint: $crate::fmi3::fmi3Boolean,
            eventHandlingNeeded: *mut $crate::fmi3::fmi3Boolean,
            terminateSimulation: *mut $crate::fmi3::fmi3Boolean,
            earlyReturn: *mut $crate::fmi3::fmi3Boolean,
            lastSuccessfulTime: *mut $crate::fmi3::fmi3Float64,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::do_step::<$model, $n>(
                    instance,
                    currentCommunicationPoint,
                    communicationStepSize,
                    noSetFMUStatePriorToCurrentPoint,
                    eventHandlingNeeded,
                    terminateSimulation,
                    earlyReturn,
                    lastSuccessfulTime,
                )
            }
        }

        #[unsafe(no_mangle)]
        #[allow(non_snake_case, unused_variables, clippy::missing_safety_doc)]
        /// FMI C function `fmi3ActivateModelPartition`.
        pub unsafe extern "C" fn fmi3ActivateModelPartition(
            instance: $crate::fmi3::fmi3Instance,
            clockReference: $crate::fmi3::fmi3ValueReference,
            activationTime: $crate::fmi3::fmi3Float64,
        ) -> $crate::fmi3::fmi3Status {
            unsafe {
                $crate::fmi3::unsupported::<$model, $n>(
                    instance,
                    "fmi3ActivateModelPartition",
                    "Scheduled Execution",
                )
            }
        }
    };
}
