//! One FMU instance: the version-independent logic behind every FMI
//! function. The state machine, argument checks, values, stepping, FMU state
//! snapshots and directional derivatives live here; `fmi2` and `fmi3` only
//! translate C arguments.

use crate::logging::{Category, Logger, Sink};
use crate::model::{
    Known, Model, VR_SOLVER_BASE, VR_TIME, ValueType, Values, apply_solver_value,
    check_model_table, full_description, solver_value, type_matches,
};
use crate::solver::{Carried, SolverSettings, Stats, advance};
use crate::status::{FmiResult, Status};
use model_description::{Causality, ModelDescription, Variability, VariableType};
use nalgebra::SVector;

/// Marks a live instance (checked on every call; cleared when freed).
pub(crate) const INSTANCE_MAGIC: u64 = 0x464c_5549_4446_4d55; // "FLUIDFMU"
/// Marks a live FMU state snapshot.
pub(crate) const SNAPSHOT_MAGIC: u64 = 0x534e_4150_5348_4f54; // "SNAPSHOT"
/// First bytes of a serialized FMU state.
const SERIAL_MAGIC: &[u8; 8] = b"FLUIDFMU";
/// Format version of a serialized FMU state.
const SERIAL_VERSION: u32 = 1;

/// Which FMI version created an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FmiVersion {
    /// FMI 2.0.
    Fmi2,
    /// FMI 3.0.
    Fmi3,
}

/// The instance's place in the FMI co-simulation state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// After instantiation (and after reset).
    Instantiated,
    /// Between enter and exit of initialization mode.
    InitializationMode,
    /// Ready to step (FMI 2 "slaveInitialized", FMI 3 "Step Mode").
    StepMode,
    /// After terminate.
    Terminated,
    /// After an internal fault; only free and reset are accepted.
    Failed,
    /// FMI 3 Configuration Mode: structural parameters may be set.
    ConfigurationMode,
}

impl Phase {
    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// The name of the state for messages.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Instantiated => "Instantiated",
            Phase::InitializationMode => "Initialization Mode",
            Phase::StepMode => "Step Mode",
            Phase::Terminated => "Terminated",
            Phase::Failed => "Failed (after an internal error)",
            Phase::ConfigurationMode => "Configuration Mode",
        }
    }
}

/// The operations of the state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// setDebugLogging.
    SetDebugLogging,
    /// FMI 2 setupExperiment.
    SetupExperiment,
    /// enterInitializationMode.
    EnterInitializationMode,
    /// exitInitializationMode.
    ExitInitializationMode,
    /// get of variable values.
    GetValues,
    /// set of variable values (further restricted per variable).
    SetValues,
    /// doStep.
    DoStep,
    /// terminate.
    Terminate,
    /// reset.
    Reset,
    /// get/set/serialize FMU state.
    FmuState,
    /// directional derivatives.
    DirectionalDerivative,
    /// FMI 2 get*Status.
    GetStatus,
    /// FMI 3 enterConfigurationMode.
    EnterConfigurationMode,
    /// FMI 3 exitConfigurationMode.
    ExitConfigurationMode,
}

const I: u8 = 1 << (Phase::Instantiated as u8);
const N: u8 = 1 << (Phase::InitializationMode as u8);
const S: u8 = 1 << (Phase::StepMode as u8);
const T: u8 = 1 << (Phase::Terminated as u8);
const F: u8 = 1 << (Phase::Failed as u8);
const C: u8 = 1 << (Phase::ConfigurationMode as u8);

/// The one table of the states in which each operation is allowed.
fn allowed_phases(op: Op) -> u8 {
    match op {
        Op::SetDebugLogging => I | N | S | T | F | C,
        Op::SetupExperiment => I,
        Op::EnterInitializationMode => I,
        Op::ExitInitializationMode => N,
        Op::GetValues => N | S | T | C,
        Op::SetValues => I | N | S | C,
        Op::DoStep => S,
        Op::Terminate => S,
        Op::Reset => I | N | S | T | F | C,
        Op::FmuState => I | N | S | T,
        Op::DirectionalDerivative => N | S | T,
        Op::GetStatus => S | T,
        Op::EnterConfigurationMode => I,
        Op::ExitConfigurationMode => C,
    }
}

/// A complete copy of an instance's state (FMU state). Plain data.
#[derive(Clone)]
#[repr(C)]
pub struct Snapshot<M, const NX: usize> {
    magic: u64,
    token_hash: u64,
    values: Values,
    x: SVector<f64, NX>,
    time: f64,
    start_time: f64,
    stop_time: Option<f64>,
    settings: SolverSettings,
    carried: Carried,
    stats: Stats,
    last_successful_time: f64,
    model: M,
}

impl<M, const NX: usize> Snapshot<M, NX> {
    pub(crate) fn is_valid_for(&self, token_hash: u64) -> bool {
        self.magic == SNAPSHOT_MAGIC && self.token_hash == token_hash
    }

    pub(crate) fn invalidate(&mut self) {
        self.magic = 0;
    }
}

/// One FMU instance of model `M` with `NX` states.
#[repr(C)]
pub struct Instance<M: Model<NX>, const NX: usize> {
    magic: u64,
    version: FmiVersion,
    /// The logger wired to the master's callback.
    pub logger: Logger,
    phase: Phase,
    desc: ModelDescription,
    token_hash: u64,
    /// (value reference, row of `desc.variables`), sorted by value reference.
    lookup: Vec<(u32, usize)>,
    values: Values,
    model: M,
    x: SVector<f64, NX>,
    time: f64,
    start_time: f64,
    stop_time: Option<f64>,
    settings: SolverSettings,
    carried: Carried,
    stats: Stats,
    last_successful_time: f64,
}

/// FNV-1a 64-bit hash (checksums of serialized states, token fingerprints).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Why an instance could not be created.
#[derive(Debug, Clone, PartialEq)]
pub enum CreateError {
    /// The instantiation token (FMI 2 GUID) does not match this binary.
    WrongToken {
        /// What the master passed.
        given: String,
        /// What this binary expects.
        expected: String,
    },
    /// The model's variable table is inconsistent (a build error).
    InvalidModel(String),
}

impl std::fmt::Display for CreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CreateError::WrongToken { given, expected } => write!(
                f,
                "instantiation token/GUID '{given}' does not match this binary's '{expected}' \
                 (modelDescription.xml and binary come from different builds)"
            ),
            CreateError::InvalidModel(m) => write!(f, "the model is inconsistent: {m}"),
        }
    }
}

/// Builds the full description of `M` and checks it (the same check the
/// packaging tool runs).
pub fn checked_description<M: Model<NX>, const NX: usize>() -> Result<ModelDescription, String> {
    check_model_table(&M::description())?;
    let desc = full_description::<M, NX>();
    desc.validate().map_err(|e| e.to_string())?;
    let values = model_values(&desc);
    M::configure(&values).map_err(|e| format!("the default parameter values are rejected: {e}"))?;
    Ok(desc)
}

/// The model configured with the start values of its description: what a
/// fresh instance integrates, for in-process use (benchmarks, tests).
pub fn default_model<M: Model<NX>, const NX: usize>() -> Result<M, String> {
    M::configure(&model_values(&full_description::<M, NX>()))
}

fn is_model_vr(vr: u32) -> bool {
    vr != VR_TIME && vr < VR_SOLVER_BASE
}

fn model_values(desc: &ModelDescription) -> Values {
    Values::from_raw(
        desc.variables
            .iter()
            .filter(|v| is_model_vr(v.value_reference))
            .map(|v| v.kind.start_as_f64().unwrap_or(0.0))
            .collect(),
    )
}

impl<M: Model<NX>, const NX: usize> Instance<M, NX> {
    /// Creates an instance after checking the instantiation token.
    pub fn new(
        version: FmiVersion,
        instance_name: &str,
        token: &str,
        sink: Sink,
        logging_on: bool,
    ) -> Result<Box<Self>, CreateError> {
        let desc = checked_description::<M, NX>().map_err(CreateError::InvalidModel)?;
        let expected = desc.instantiation_token();
        if token != expected {
            return Err(CreateError::WrongToken {
                given: token.to_owned(),
                expected,
            });
        }
        let mut lookup: Vec<(u32, usize)> = desc
            .variables
            .iter()
            .enumerate()
            .map(|(i, v)| (v.value_reference, i))
            .collect();
        lookup.sort_unstable();
        let values = model_values(&desc);
        let model = M::configure(&values).map_err(CreateError::InvalidModel)?;
        let x = model.initial_state();
        let inst = Instance {
            magic: INSTANCE_MAGIC,
            version,
            logger: Logger::new(sink, instance_name, logging_on),
            phase: Phase::Instantiated,
            token_hash: fnv1a(expected.as_bytes()),
            desc,
            lookup,
            values,
            model,
            x,
            time: 0.0,
            start_time: 0.0,
            stop_time: None,
            settings: SolverSettings::default(),
            carried: Carried::default(),
            stats: Stats::default(),
            last_successful_time: 0.0,
        };
        inst.logger.log(
            Status::Ok,
            Category::Events,
            &format!(
                "instantiated {} ({:?}) with {} states",
                inst.desc.model_name, version, NX
            ),
        );
        Ok(Box::new(inst))
    }

    /// Whether the magic marker says this is a live instance.
    pub(crate) fn is_live(&self) -> bool {
        self.magic == INSTANCE_MAGIC
    }

    /// Clears the marker before the memory is freed.
    pub(crate) fn mark_freed(&mut self) {
        self.magic = 0;
    }

    /// The FMI version the instance was created with.
    pub fn version(&self) -> FmiVersion {
        self.version
    }

    /// Current state-machine phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Current simulation time (s).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Time up to which the last step succeeded (s).
    pub fn last_successful_time(&self) -> f64 {
        self.last_successful_time
    }

    /// The integrator's work counters since instantiation.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The full model description (with time and solver parameters).
    pub fn description(&self) -> &ModelDescription {
        &self.desc
    }

    /// Logs an error-type message and returns its status as `Err`.
    pub fn fail<R>(&self, status: Status, function: &str, message: &str) -> FmiResult<R> {
        self.logger.log(
            status,
            Category::for_status(status),
            &format!("{function}: {message}"),
        );
        Err(status)
    }

    /// Logs an informational event.
    pub fn event(&self, message: &str) {
        self.logger.log(Status::Ok, Category::Events, message);
    }

    /// Puts the instance in the failed state after an internal fault.
    pub fn set_failed(&mut self) {
        self.phase = Phase::Failed;
    }

    /// Checks the state machine for `op`; an error naming the state otherwise.
    pub fn check_phase(&self, function: &str, op: Op) -> FmiResult {
        if allowed_phases(op) & self.phase.bit() != 0 {
            Ok(())
        } else {
            self.fail(
                Status::Error,
                function,
                &format!("not allowed in state {}", self.phase.name()),
            )
        }
    }

    /// The name of a variable type in the instance's FMI version.
    fn type_name(&self, kind: &VariableType) -> &'static str {
        match (kind, self.version) {
            (VariableType::Real { .. }, FmiVersion::Fmi2) => "Real",
            (VariableType::Real { .. }, FmiVersion::Fmi3) => "Float64",
            (VariableType::Integer { .. }, FmiVersion::Fmi2) => "Integer",
            (VariableType::Integer { .. }, FmiVersion::Fmi3) => "Int32",
            (VariableType::Boolean { .. }, _) => "Boolean",
        }
    }

    /// The name of a requested value type in the instance's FMI version.
    fn wanted_name(&self, wanted: ValueType) -> &'static str {
        match (wanted, self.version) {
            (ValueType::Real, FmiVersion::Fmi2) => "Real",
            (ValueType::Real, FmiVersion::Fmi3) => "Float64",
            (ValueType::Integer, FmiVersion::Fmi2) => "Integer",
            (ValueType::Integer, FmiVersion::Fmi3) => "Int32",
            (ValueType::Boolean, _) => "Boolean",
        }
    }

    /// Refuses a function for a capability this FMU does not have.
    pub fn unsupported<R>(&self, function: &str, what: &str) -> FmiResult<R> {
        self.fail(
            Status::Error,
            function,
            &format!("{what} is not supported by this FMU (Co-Simulation only)"),
        )
    }

    /// setDebugLogging.
    pub fn set_debug_logging(
        &mut self,
        function: &str,
        on: bool,
        categories: &[&str],
    ) -> FmiResult {
        self.check_phase(function, Op::SetDebugLogging)?;
        if categories.is_empty() {
            self.logger.set_all(on);
            return Ok(());
        }
        let unknown: Vec<&str> = categories
            .iter()
            .copied()
            .filter(|c| !Category::ALL.iter().any(|k| k.name() == *c))
            .collect();
        if !unknown.is_empty() {
            return self.fail(
                Status::Error,
                function,
                &format!("unknown log categories: {}", unknown.join(", ")),
            );
        }
        for c in categories {
            self.logger.set_category(c, on);
        }
        Ok(())
    }

    /// Sets up the experiment (FMI 2 setupExperiment, FMI 3 part of
    /// enterInitializationMode).
    pub fn setup_experiment(
        &mut self,
        function: &str,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> FmiResult {
        if !start_time.is_finite() {
            return self.fail(Status::Error, function, "startTime must be finite");
        }
        if let Some(stop) = stop_time
            && (!stop.is_finite() || stop < start_time)
        {
            return self.fail(
                Status::Error,
                function,
                &format!("stopTime {stop} must be finite and >= startTime {start_time}"),
            );
        }
        if let Some(tol) = tolerance {
            if !(tol.is_finite() && tol > 0.0 && tol < 1.0) {
                return self.fail(
                    Status::Error,
                    function,
                    &format!("tolerance {tol} must be in (0, 1)"),
                );
            }
            self.settings.rtol = tol;
        }
        self.start_time = start_time;
        self.time = start_time;
        self.last_successful_time = start_time;
        self.stop_time = stop_time;
        Ok(())
    }

    /// FMI 3 enterConfigurationMode: only for models with structural parameters.
    pub fn enter_configuration_mode(&mut self, function: &str) -> FmiResult {
        if !self.desc.variables.iter().any(|v| v.structural) {
            return self.unsupported(
                function,
                "Configuration Mode (the model has no structural parameters)",
            );
        }
        self.check_phase(function, Op::EnterConfigurationMode)?;
        self.phase = Phase::ConfigurationMode;
        Ok(())
    }

    /// FMI 3 exitConfigurationMode.
    pub fn exit_configuration_mode(&mut self, function: &str) -> FmiResult {
        self.check_phase(function, Op::ExitConfigurationMode)?;
        self.phase = Phase::Instantiated;
        Ok(())
    }

    /// enterInitializationMode.
    pub fn enter_initialization_mode(&mut self, function: &str) -> FmiResult {
        self.check_phase(function, Op::EnterInitializationMode)?;
        self.phase = Phase::InitializationMode;
        self.x = self.model.initial_state();
        Ok(())
    }

    /// exitInitializationMode: the initial state from the parameters.
    pub fn exit_initialization_mode(&mut self, function: &str) -> FmiResult {
        self.check_phase(function, Op::ExitInitializationMode)?;
        let x = self.model.initial_state();
        if !x.iter().all(|v| v.is_finite()) {
            return self.fail(Status::Error, function, "the initial state is not finite");
        }
        self.x = x;
        self.carried = Carried::default();
        self.last_successful_time = self.time;
        self.phase = Phase::StepMode;
        self.event(&format!(
            "initialized at t = {} s with solver {}",
            self.time,
            self.settings.method.name()
        ));
        Ok(())
    }

    /// terminate.
    pub fn terminate(&mut self, function: &str) -> FmiResult {
        self.check_phase(function, Op::Terminate)?;
        self.phase = Phase::Terminated;
        self.event(&format!(
            "terminated at t = {} s; solver: {} rhs evaluations, {} Jacobians, {} accepted and {} \
             rejected substeps",
            self.time,
            self.stats.rhs_evals,
            self.stats.jacobian_evals,
            self.stats.accepted,
            self.stats.rejected
        ));
        Ok(())
    }

    /// reset: back to the state right after instantiation.
    pub fn reset(&mut self, function: &str) -> FmiResult {
        self.check_phase(function, Op::Reset)?;
        self.values = model_values(&self.desc);
        self.model = match M::configure(&self.values) {
            Ok(m) => m,
            Err(e) => return self.fail(Status::Fatal, function, &e),
        };
        self.x = self.model.initial_state();
        self.time = 0.0;
        self.start_time = 0.0;
        self.stop_time = None;
        self.settings = SolverSettings::default();
        self.carried = Carried::default();
        self.stats = Stats::default();
        self.last_successful_time = 0.0;
        self.phase = Phase::Instantiated;
        Ok(())
    }

    fn row(&self, vr: u32) -> Option<usize> {
        self.lookup
            .binary_search_by_key(&vr, |&(v, _)| v)
            .ok()
            .map(|i| self.lookup[i].1)
    }

    /// The row of the variable `vr`, which must exist and be of the type a
    /// typed get/set function deals in.
    fn typed_row(&self, function: &str, vr: u32, wanted: ValueType) -> FmiResult<usize> {
        let Some(row) = self.row(vr) else {
            return self.fail(
                Status::Error,
                function,
                &format!("value reference {vr} does not exist"),
            );
        };
        let var = &self.desc.variables[row];
        if !type_matches(&var.kind, wanted) {
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "variable '{}' (value reference {vr}) is {}, not {}",
                    var.name,
                    self.type_name(&var.kind),
                    self.wanted_name(wanted)
                ),
            );
        }
        Ok(row)
    }

    /// Checks that `vr` may be set to `value` now; returns the variable's row.
    fn check_set(
        &self,
        function: &str,
        vr: u32,
        value: f64,
        wanted: ValueType,
    ) -> FmiResult<usize> {
        let row = self.typed_row(function, vr, wanted)?;
        let var = &self.desc.variables[row];
        let configuring = self.phase == Phase::ConfigurationMode;
        let settable_now = match (var.causality, var.variability) {
            // A structural parameter is fixed for the simulation: settable
            // until initialization ends (FMI 3 also in Configuration Mode).
            // FMPy sets it in Instantiated, ecospy in Initialization Mode;
            // both are parameters with initial = exact to them.
            _ if var.structural => self.phase != Phase::StepMode,
            _ if configuring => false,
            (Causality::Input, _) => true,
            (Causality::Parameter, Variability::Tunable) => true,
            (Causality::Parameter, Variability::Fixed) => self.phase != Phase::StepMode,
            _ => false,
        };
        if !settable_now {
            let why = match var.causality {
                _ if var.structural => format!(
                    "is a structural parameter and cannot be changed in {}",
                    self.phase.name()
                ),
                _ if configuring => {
                    "cannot be set in Configuration Mode (only structural parameters can)"
                        .to_owned()
                }
                Causality::Parameter => format!(
                    "is a fixed parameter and cannot be changed in {}",
                    self.phase.name()
                ),
                c => format!("has causality {} and cannot be set", c.as_str()),
            };
            return self.fail(
                Status::Error,
                function,
                &format!("variable '{}' {why}", var.name),
            );
        }
        if !value.is_finite() {
            return self.fail(
                Status::Error,
                function,
                &format!("value {value} for '{}' is not finite", var.name),
            );
        }
        let (lo, hi) = var.kind.range();
        if value < lo || value > hi {
            let unit = match &var.kind {
                VariableType::Real { unit: Some(u), .. } => format!(" {u}"),
                _ => String::new(),
            };
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "value {value}{unit} for '{}' is outside its range [{lo}, {hi}]",
                    var.name
                ),
            );
        }
        if is_model_vr(vr)
            && let Err(msg) = M::check_value(vr, value)
        {
            return self.fail(
                Status::Error,
                function,
                &format!("value {value} for '{}' rejected: {msg}", var.name),
            );
        }
        Ok(row)
    }

    /// Sets variables of one type, all or nothing: on any refusal nothing
    /// changes.
    pub fn set_values(
        &mut self,
        function: &str,
        vrs: &[u32],
        wanted: ValueType,
        value: impl Fn(usize) -> f64,
    ) -> FmiResult {
        self.check_phase(function, Op::SetValues)?;
        let mut only_inputs = self.phase == Phase::StepMode;
        for (i, &vr) in vrs.iter().enumerate() {
            let row = self.check_set(function, vr, value(i), wanted)?;
            only_inputs &= self.desc.variables[row].causality == Causality::Input;
        }
        // Fast path for the inputs a master sets at every communication
        // point: the model updates them in place (no rebuild, no allocation).
        if only_inputs {
            // `set_input` leaves the model unchanged when it returns false;
            // a partial update is then overwritten by the rebuild below.
            let fast = vrs
                .iter()
                .enumerate()
                .all(|(i, &vr)| self.model.set_input(vr, value(i)));
            if fast {
                for (i, &vr) in vrs.iter().enumerate() {
                    self.values.set(vr, value(i));
                }
                return Ok(());
            }
        }
        let mut values = self.values.clone();
        let mut settings = self.settings;
        for (i, &vr) in vrs.iter().enumerate() {
            if is_model_vr(vr) {
                values.set(vr, value(i));
            } else if let Err(e) = apply_solver_value(&mut settings, vr, value(i)) {
                return self.fail(Status::Error, function, &e);
            }
        }
        let model = match M::configure(&values) {
            Ok(m) => m,
            Err(e) => {
                return self.fail(
                    Status::Error,
                    function,
                    &format!("parameter values rejected, nothing changed: {e}"),
                );
            }
        };
        self.values = values;
        self.settings = settings;
        self.model = model;
        if matches!(self.phase, Phase::Instantiated | Phase::InitializationMode) {
            self.x = self.model.initial_state();
        }
        Ok(())
    }

    /// Gets variables of one type; `out(i, value)` receives each value.
    pub fn get_values(
        &self,
        function: &str,
        vrs: &[u32],
        wanted: ValueType,
        mut out: impl FnMut(usize, f64),
    ) -> FmiResult {
        self.check_phase(function, Op::GetValues)?;
        for (i, &vr) in vrs.iter().enumerate() {
            let row = self.typed_row(function, vr, wanted)?;
            let var = &self.desc.variables[row];
            let v = if vr == VR_TIME {
                Some(self.time)
            } else if !is_model_vr(vr) {
                solver_value(&self.settings, &self.stats, vr)
            } else if matches!(var.causality, Causality::Output | Causality::Local) {
                self.model.output(&self.x, vr)
            } else {
                Some(self.values.real(vr))
            };
            match v {
                Some(v) => out(i, v),
                None => {
                    return self.fail(
                        Status::Error,
                        function,
                        &format!("the model cannot compute '{}'", var.name),
                    );
                }
            }
        }
        Ok(())
    }

    /// Refuses access to variables of a type this FMU has none of (FMI 3
    /// Int8, String, Binary, ...): nothing to do for an empty list.
    pub fn no_variables_of_type(&self, function: &str, vrs: &[u32], type_name: &str) -> FmiResult {
        match vrs.first() {
            None => Ok(()),
            Some(&vr) => match self.row(vr) {
                Some(row) => self.fail(
                    Status::Error,
                    function,
                    &format!(
                        "variable '{}' (value reference {vr}) is {}, not {type_name}",
                        self.desc.variables[row].name,
                        self.type_name(&self.desc.variables[row].kind)
                    ),
                ),
                None => self.fail(
                    Status::Error,
                    function,
                    &format!("value reference {vr} does not exist"),
                ),
            },
        }
    }

    /// doStep: integrate from `t` by `h`. On a solver failure the instance
    /// stays at `t` (its last good communication point) and the result is
    /// `Discard`.
    pub fn do_step(&mut self, function: &str, t: f64, h: f64) -> FmiResult {
        self.check_phase(function, Op::DoStep)?;
        if !t.is_finite() || !h.is_finite() {
            return self.fail(
                Status::Error,
                function,
                "currentCommunicationPoint and communicationStepSize must be finite",
            );
        }
        if h <= 0.0 {
            return self.fail(
                Status::Error,
                function,
                &format!("communicationStepSize {h} s must be > 0"),
            );
        }
        let tol = 1e-9 * self.time.abs().max(1.0);
        if (t - self.time).abs() > tol {
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "currentCommunicationPoint {t} s is not the instance's time {} s",
                    self.time
                ),
            );
        }
        if let Some(stop) = self.stop_time
            && t + h > stop + 1e-9 * stop.abs().max(1.0)
        {
            return self.fail(
                Status::Error,
                function,
                &format!("the step to {} s goes beyond stopTime {stop} s", t + h),
            );
        }
        let mut x = self.x;
        let mut carried = self.carried;
        match advance(
            &self.model,
            &mut x,
            h,
            &self.settings,
            &mut carried,
            &mut self.stats,
        ) {
            Ok(()) => {
                self.x = x;
                self.carried = carried;
                self.time = t + h;
                self.last_successful_time = self.time;
                Ok(())
            }
            Err(e) => {
                self.last_successful_time = self.time;
                self.fail(
                    Status::Discard,
                    function,
                    &format!("step from {t} s by {h} s discarded, state kept at {t} s: {e}"),
                )
            }
        }
    }

    /// Takes a snapshot of the whole state (FMU state).
    pub fn snapshot(&self) -> Snapshot<M, NX> {
        Snapshot {
            magic: SNAPSHOT_MAGIC,
            token_hash: self.token_hash,
            values: self.values.clone(),
            x: self.x,
            time: self.time,
            start_time: self.start_time,
            stop_time: self.stop_time,
            settings: self.settings,
            carried: self.carried,
            stats: self.stats,
            last_successful_time: self.last_successful_time,
            model: self.model.clone(),
        }
    }

    /// Overwrites an existing snapshot in place (no new allocation of the box).
    pub fn snapshot_into(&self, target: &mut Snapshot<M, NX>) {
        *target = self.snapshot();
    }

    /// Token fingerprint snapshots must carry.
    pub(crate) fn token_hash(&self) -> u64 {
        self.token_hash
    }

    /// Restores a snapshot taken from an instance of the same model.
    pub fn restore(&mut self, function: &str, snap: &Snapshot<M, NX>) -> FmiResult {
        self.check_phase(function, Op::FmuState)?;
        if !snap.is_valid_for(self.token_hash) {
            return self.fail(
                Status::Error,
                function,
                "the FMU state is not a live state of this model",
            );
        }
        self.values = snap.values.clone();
        self.x = snap.x;
        self.time = snap.time;
        self.start_time = snap.start_time;
        self.stop_time = snap.stop_time;
        self.settings = snap.settings;
        self.carried = snap.carried;
        self.stats = snap.stats;
        self.last_successful_time = snap.last_successful_time;
        self.model = snap.model.clone();
        Ok(())
    }

    /// Serializes a snapshot into bytes (little endian, with a checksum).
    pub fn serialize(&self, snap: &Snapshot<M, NX>) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.serialized_size(snap));
        b.extend_from_slice(SERIAL_MAGIC);
        b.extend_from_slice(&SERIAL_VERSION.to_le_bytes());
        b.extend_from_slice(&snap.token_hash.to_le_bytes());
        b.extend_from_slice(&(NX as u32).to_le_bytes());
        b.extend_from_slice(&(snap.values.len() as u32).to_le_bytes());
        let mut put = |v: f64| b.extend_from_slice(&v.to_le_bytes());
        snap.values.raw().iter().for_each(|v| put(*v));
        snap.x.iter().for_each(|v| put(*v));
        put(snap.time);
        put(snap.start_time);
        put(snap.stop_time.unwrap_or(f64::NAN));
        put(snap.carried.h);
        put(snap.last_successful_time);
        put(f64::from(snap.settings.method.code()));
        put(snap.settings.rtol);
        put(snap.settings.atol);
        put(f64::from(snap.settings.max_substeps));
        put(snap.settings.explicit_step);
        for s in [
            snap.stats.rhs_evals,
            snap.stats.jacobian_evals,
            snap.stats.factorizations,
            snap.stats.accepted,
            snap.stats.rejected,
        ] {
            b.extend_from_slice(&s.to_le_bytes());
        }
        let sum = fnv1a(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Size in bytes of a serialized snapshot.
    pub fn serialized_size(&self, snap: &Snapshot<M, NX>) -> usize {
        8 + 4 + 8 + 4 + 4 + 8 * (snap.values.len() + NX + 5 + 5) + 8 * 5 + 8
    }

    /// Reads a serialized snapshot back; truncated, corrupted or foreign
    /// bytes are rejected with a message.
    pub fn deserialize(&self, function: &str, bytes: &[u8]) -> FmiResult<Snapshot<M, NX>> {
        let reject = |why: &str| -> FmiResult<Snapshot<M, NX>> {
            self.fail(
                Status::Error,
                function,
                &format!("serialized FMU state rejected: {why}"),
            )
        };
        let header = 8 + 4 + 8 + 4 + 4;
        if bytes.len() < header + 8 {
            return reject(&format!("only {} bytes (truncated?)", bytes.len()));
        }
        if &bytes[0..8] != SERIAL_MAGIC {
            return reject("not a state of this project's FMUs (bad magic bytes)");
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap_or([0; 4]));
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap_or([0; 8]));
        if u32_at(8) != SERIAL_VERSION {
            return reject(&format!(
                "format version {} is not {SERIAL_VERSION}",
                u32_at(8)
            ));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if fnv1a(body).to_le_bytes() != sum {
            return reject("checksum mismatch (corrupted or truncated)");
        }
        if u64_at(12) != self.token_hash {
            return reject("it belongs to another model or another build of this model");
        }
        if u32_at(20) as usize != NX || u32_at(24) as usize != self.values.len() {
            return reject("state or variable count differs from this model");
        }
        let n_values = self.values.len();
        let expected = header + 8 * (n_values + NX + 10) + 8 * 5 + 8;
        if bytes.len() != expected {
            return reject(&format!("{} bytes, expected {expected}", bytes.len()));
        }
        let f64_at = |o: usize| f64::from_le_bytes(bytes[o..o + 8].try_into().unwrap_or([0; 8]));
        let mut o = header;
        let mut next = || {
            let v = f64_at(o);
            o += 8;
            v
        };
        let values = Values::from_raw((0..n_values).map(|_| next()).collect());
        let x = SVector::<f64, NX>::from_fn(|_, _| next());
        let time = next();
        let start_time = next();
        let stop = next();
        let h = next();
        let last_successful_time = next();
        let mut settings = SolverSettings::default();
        let solver_fields = [next(), next(), next(), next(), next()];
        for (k, v) in solver_fields.iter().enumerate() {
            if apply_solver_value(&mut settings, VR_SOLVER_BASE + k as u32, *v).is_err() {
                return reject("invalid solver settings");
            }
        }
        let mut stats_o = o;
        let mut next_u64 = || {
            let v = u64_at(stats_o);
            stats_o += 8;
            v
        };
        let stats = Stats {
            rhs_evals: next_u64(),
            jacobian_evals: next_u64(),
            factorizations: next_u64(),
            accepted: next_u64(),
            rejected: next_u64(),
        };
        let all_finite = values.raw().iter().all(|v| v.is_finite())
            && x.iter().all(|v| v.is_finite())
            && [time, start_time, h, last_successful_time]
                .iter()
                .all(|v| v.is_finite());
        if !all_finite {
            return reject("non-finite numbers in the state");
        }
        let model = match M::configure(&values) {
            Ok(m) => m,
            Err(e) => return reject(&format!("its parameter values are invalid: {e}")),
        };
        Ok(Snapshot {
            magic: SNAPSHOT_MAGIC,
            token_hash: self.token_hash,
            values,
            x,
            time,
            start_time,
            stop_time: if stop.is_nan() { None } else { Some(stop) },
            settings,
            carried: Carried { h },
            stats,
            last_successful_time,
            model,
        })
    }

    fn known(&self, function: &str, vr: u32) -> FmiResult<Known> {
        if let Some(i) = M::state_index(vr) {
            return Ok(Known::State(i));
        }
        match self.row(vr).map(|r| &self.desc.variables[r]) {
            Some(v)
                if v.causality == Causality::Input
                    && matches!(v.kind, VariableType::Real { .. }) =>
            {
                Ok(Known::Input(vr))
            }
            Some(v) => self.fail(
                Status::Error,
                function,
                &format!(
                    "'{}' is neither a Real input nor a state, so it cannot be a known",
                    v.name
                ),
            ),
            None => self.fail(
                Status::Error,
                function,
                &format!("value reference {vr} does not exist"),
            ),
        }
    }

    /// The partial derivative of output `of` with respect to `wrt`,
    /// analytic where the model provides it, else by central differences.
    fn partial(&self, of: u32, wrt: Known) -> Option<f64> {
        if let Some(d) = self.model.output_partial(&self.x, of, wrt) {
            return Some(d);
        }
        match wrt {
            Known::State(i) => {
                let nominal = self.model.nominal()[i].abs().max(1e-300);
                let h = 1e-6 * self.x[i].abs().max(nominal);
                let mut xp = self.x;
                let mut xm = self.x;
                xp[i] += h;
                xm[i] -= h;
                Some((self.model.output(&xp, of)? - self.model.output(&xm, of)?) / (2.0 * h))
            }
            Known::Input(vr) => {
                let v0 = self.values.real(vr);
                let h = 1e-6 * v0.abs().max(1.0);
                let eval = |v: f64| {
                    let mut values = self.values.clone();
                    values.set(vr, v);
                    M::configure(&values).ok()?.output(&self.x, of)
                };
                Some((eval(v0 + h)? - eval(v0 - h)?) / (2.0 * h))
            }
        }
    }

    /// Directional derivative: `sensitivity = d(unknowns)/d(knowns) * seed`.
    pub fn directional_derivative(
        &self,
        function: &str,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> FmiResult {
        self.check_phase(function, Op::DirectionalDerivative)?;
        if seed.len() != knowns.len() || sensitivity.len() != unknowns.len() {
            return self.fail(
                Status::Error,
                function,
                "seed must have one value per known and sensitivity one per unknown",
            );
        }
        if !seed.iter().all(|v| v.is_finite()) {
            return self.fail(Status::Error, function, "seed values must be finite");
        }
        let mut known_list = Vec::with_capacity(knowns.len());
        for &k in knowns {
            known_list.push(self.known(function, k)?);
        }
        for (i, &u) in unknowns.iter().enumerate() {
            let is_output = self
                .row(u)
                .map(|r| self.desc.variables[r].causality == Causality::Output)
                .unwrap_or(false);
            if !is_output {
                return self.fail(
                    Status::Error,
                    function,
                    &format!("value reference {u} is not an output"),
                );
            }
            let mut sum = 0.0;
            for (j, &k) in known_list.iter().enumerate() {
                match self.partial(u, k) {
                    Some(d) => sum += d * seed[j],
                    None => {
                        return self.fail(
                            Status::Error,
                            function,
                            &format!(
                                "the derivative of {u} with respect to {k:?} is not available"
                            ),
                        );
                    }
                }
            }
            sensitivity[i] = sum;
        }
        Ok(())
    }

    /// The check for FMI 2 get*Status functions.
    pub fn check_status_query(&self, function: &str) -> FmiResult {
        self.check_phase(function, Op::GetStatus)
    }

    /// The current state vector (for tests and tools).
    pub fn states(&self) -> SVector<f64, NX> {
        self.x
    }
}
