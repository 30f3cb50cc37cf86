//! One FMU instance: the version-independent logic behind every FMI
//! function. The state machine, argument checks, values, stepping, FMU state
//! snapshots and directional derivatives live here; `fmi2` and `fmi3` only
//! translate C arguments.

use crate::context::{Context, ResourceFolder};
use crate::description::{
    VR_DERIVATIVE_BASE, VR_EVENT_BASE, VR_SOLVER_BASE, VR_STATE_BASE, VR_STATS_BASE, VR_TIME,
    check_model_table, full_description, statistic,
};
use crate::logging::{Category, Logger, Sink};
use crate::model::{Known, Model, ValueType, Values, type_matches};
use crate::solver::{Carried, Segment, SolverSettings, Stats, advance};
use crate::solver::{Reuse, ReuseRecord};
use crate::solver_params::{SolverParams, solver_rows};
use crate::status::{FmiResult, Status};
use crate::table::{Number, OutputRecord, Record, Role, Row, Table};
use crate::with_inputs::WithInputs;
use model_description::{Causality, ModelDescription, Variability, VariableType};
use nalgebra::SVector;

pub mod exchange;

/// The perturbed evaluations of one known for a directional derivative:
/// `(step, up, down)` for the outputs and for the rates, each computed at
/// most once.
struct Column<O, const NX: usize> {
    outputs: Option<(f64, O, O)>,
    rates: Option<(f64, SVector<f64, NX>, SVector<f64, NX>)>,
}

impl<O, const NX: usize> Default for Column<O, NX> {
    fn default() -> Self {
        Column {
            outputs: None,
            rates: None,
        }
    }
}

/// Marks a live instance (checked on every call; cleared when freed).
pub(crate) const INSTANCE_MAGIC: u64 = 0x464c_5549_4446_4d55; // "FLUIDFMU"
/// Marks a live FMU state snapshot.
pub(crate) const SNAPSHOT_MAGIC: u64 = 0x534e_4150_5348_4f54; // "SNAPSHOT"
/// First bytes of a serialized FMU state.
const SERIAL_MAGIC: &[u8; 8] = b"FLUIDFMU";
/// Format version of a serialized FMU state.
const SERIAL_VERSION: u32 = 4;

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
    /// Model Exchange Event Mode (after initialization and on events).
    EventMode,
    /// Model Exchange Continuous-Time Mode: the master integrates.
    ContinuousTimeMode,
}

/// Which FMI interface an instance was created for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interface {
    /// Co-Simulation: the FMU integrates in doStep.
    CoSimulation,
    /// Model Exchange: the master integrates the FMU's derivatives.
    ModelExchange,
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
            Phase::EventMode => "Event Mode",
            Phase::ContinuousTimeMode => "Continuous-Time Mode",
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
    /// Model Exchange setTime.
    SetTime,
    /// Model Exchange setContinuousStates.
    SetContinuousStates,
    /// Model Exchange getters: derivatives, event indicators, states,
    /// nominals.
    GetContinuous,
    /// Model Exchange enterEventMode.
    EnterEventMode,
    /// Model Exchange newDiscreteStates / updateDiscreteStates.
    UpdateDiscreteStates,
    /// Model Exchange enterContinuousTimeMode.
    EnterContinuousTimeMode,
    /// Model Exchange completedIntegratorStep.
    CompletedIntegratorStep,
}

const I: u8 = 1 << (Phase::Instantiated as u8);
const N: u8 = 1 << (Phase::InitializationMode as u8);
const S: u8 = 1 << (Phase::StepMode as u8);
const T: u8 = 1 << (Phase::Terminated as u8);
const F: u8 = 1 << (Phase::Failed as u8);
const C: u8 = 1 << (Phase::ConfigurationMode as u8);
const E: u8 = 1 << (Phase::EventMode as u8);
const CT: u8 = 1 << (Phase::ContinuousTimeMode as u8);

/// The one table of the states in which each operation is allowed.
fn allowed_phases(op: Op) -> u8 {
    match op {
        Op::SetDebugLogging => I | N | S | T | F | C | E | CT,
        Op::SetupExperiment => I,
        Op::EnterInitializationMode => I,
        Op::ExitInitializationMode => N,
        Op::GetValues => N | S | T | C | E | CT,
        Op::SetValues => I | N | S | C | E | CT,
        Op::DoStep => S,
        Op::Terminate => S | E | CT,
        Op::Reset => I | N | S | T | F | C | E | CT,
        Op::FmuState => I | N | S | T | E | CT,
        Op::DirectionalDerivative => N | S | T | E | CT,
        Op::GetStatus => S | T,
        Op::EnterConfigurationMode => I,
        Op::ExitConfigurationMode => C,
        Op::SetTime => E | CT,
        Op::SetContinuousStates => E | CT,
        Op::GetContinuous => N | T | E | CT,
        Op::EnterEventMode => CT,
        Op::UpdateDiscreteStates => E,
        Op::EnterContinuousTimeMode => E,
        Op::CompletedIntegratorStep => CT,
    }
}

/// A complete copy of an instance's state (FMU state). Plain data.
#[derive(Clone)]
#[repr(C)]
pub struct Snapshot<M: Model<NX>, const NX: usize> {
    magic: u64,
    token_hash: u64,
    values: Values,
    inputs: M::Inputs,
    x: SVector<f64, NX>,
    time: f64,
    start_time: f64,
    stop_time: Option<f64>,
    settings: SolverSettings,
    carried: Carried<NX>,
    stats: Stats,
    last_successful_time: f64,
    model: M,
}

impl<M: Model<NX>, const NX: usize> Snapshot<M, NX> {
    pub(crate) fn is_valid_for(&self, token_hash: u64) -> bool {
        self.magic == SNAPSHOT_MAGIC && self.token_hash == token_hash
    }

    pub(crate) fn invalidate(&mut self) {
        self.magic = 0;
    }
}

/// Where the settable values sit: the model's rows (inputs, outputs,
/// parameters, in value-reference order 1..) then the solver parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    inputs: usize,
    outputs: usize,
    model_rows: usize,
    solver_rows: usize,
    /// The slot of `rtol`, which a master's tolerance also sets.
    rtol: usize,
    /// The number of continuous states.
    states: usize,
    /// The number of event indicators.
    events: usize,
}

/// What a value reference names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// The independent variable.
    Time,
    /// Input `i` (value slot `i`).
    Input(usize),
    /// Output `i`.
    Output(usize),
    /// A model parameter in value slot `s`.
    Parameter(usize),
    /// A solver parameter in value slot `s`.
    Solver(usize),
    /// A read-only solver statistic.
    Statistic,
    /// Continuous state `i` that no output shows (Model Exchange).
    State(usize),
    /// The derivative of continuous state `i` (Model Exchange).
    Derivative(usize),
    /// Event indicator `k` (Model Exchange).
    EventIndicator(usize),
}

impl Layout {
    fn of<M: Model<NX>, const NX: usize>() -> Self {
        let model_rows = M::rows().len();
        Layout {
            inputs: <M::Inputs as Record>::LEN,
            outputs: <M::Outputs as OutputRecord>::LEN,
            model_rows,
            solver_rows: <SolverParams as Record>::LEN,
            rtol: model_rows
                + solver_rows()
                    .iter()
                    .position(|r| r.name == "rtol")
                    .unwrap_or(0),
            states: M::STATES,
            events: M::event_indicators().len(),
        }
    }

    fn slot(&self, vr: u32) -> Option<Slot> {
        let v = vr as usize;
        Some(if vr == VR_TIME {
            Slot::Time
        } else if v <= self.inputs {
            Slot::Input(v - 1)
        } else if v <= self.inputs + self.outputs {
            Slot::Output(v - 1 - self.inputs)
        } else if v <= self.model_rows {
            Slot::Parameter(v - 1)
        } else if (VR_SOLVER_BASE..VR_SOLVER_BASE + self.solver_rows as u32).contains(&vr) {
            Slot::Solver(self.model_rows + (vr - VR_SOLVER_BASE) as usize)
        } else if (VR_STATS_BASE..VR_STATS_BASE + 4).contains(&vr) {
            Slot::Statistic
        } else if (VR_STATE_BASE..VR_STATE_BASE + self.states as u32).contains(&vr) {
            Slot::State((vr - VR_STATE_BASE) as usize)
        } else if (VR_DERIVATIVE_BASE..VR_DERIVATIVE_BASE + self.states as u32).contains(&vr) {
            Slot::Derivative((vr - VR_DERIVATIVE_BASE) as usize)
        } else if (VR_EVENT_BASE..VR_EVENT_BASE + self.events as u32).contains(&vr) {
            Slot::EventIndicator((vr - VR_EVENT_BASE) as usize)
        } else {
            return None;
        })
    }

    fn params(&self) -> std::ops::Range<usize> {
        self.inputs + self.outputs..self.model_rows
    }

    fn solver(&self) -> std::ops::Range<usize> {
        self.model_rows..self.model_rows + self.solver_rows
    }
}

/// One FMU instance of model `M` with `NX` states.
#[repr(C)]
pub struct Instance<M: Model<NX>, const NX: usize> {
    magic: u64,
    version: FmiVersion,
    interface: Interface,
    /// The logger wired to the master's callback.
    pub logger: Logger,
    phase: Phase,
    desc: ModelDescription,
    token_hash: u64,
    /// (value reference, row of `desc.variables`), sorted by value reference.
    lookup: Vec<(u32, usize)>,
    /// The table rows of the value slots (model rows, then solver rows):
    /// every value set or restored is checked against its row.
    rows: Vec<Row>,
    layout: Layout,
    resources: ResourceFolder,
    values: Values,
    inputs: M::Inputs,
    model: M,
    x: SVector<f64, NX>,
    time: f64,
    start_time: f64,
    stop_time: Option<f64>,
    settings: SolverSettings,
    carried: Carried<NX>,
    stats: Stats,
    last_successful_time: f64,
    /// The outputs at the present state and inputs when the last step
    /// computed them (for its check), so that the gets after a step do not
    /// evaluate the model again; `None` after anything that changes them.
    outputs: Option<M::Outputs>,
    /// The rates' derivatives of the last directional derivatives with the
    /// point they were taken at: a master that asks for the Jacobian one
    /// column per call gets it from one evaluation.
    jacobian: std::cell::RefCell<Option<JacobianAt<NX>>>,
}

/// The rates' derivatives at one point (state, settable values), each
/// computed when first asked for.
struct JacobianAt<const NX: usize> {
    x: SVector<f64, NX>,
    values: Vec<f64>,
    /// With respect to the states.
    j: Option<nalgebra::SMatrix<f64, NX, NX>>,
    /// With respect to the inputs (`Some(None)`: the model has no analytic
    /// ones).
    inputs: Option<Option<Vec<SVector<f64, NX>>>>,
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
    /// The model cannot be built with its default parameters here (a
    /// resource it needs is missing or unreadable).
    Configuration(String),
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
            CreateError::Configuration(m) => write!(f, "the model cannot be set up: {m}"),
        }
    }
}

/// The table rows of the value slots: the model's rows, then the solver's.
fn slot_rows<M: Table>() -> Vec<Row> {
    let mut rows = M::rows();
    rows.extend(solver_rows());
    rows
}

/// The start values of the value slots.
fn start_values(rows: &[Row]) -> Values {
    Values::from_raw(rows.iter().map(|r| r.start).collect())
}

/// Configures `M` from the parameter values in `values` and checks what
/// came out: the coefficients the circuit declares ([`Model::derived`]),
/// then one evaluation at the initial state of the inputs in `values`
/// (state, rates, analytic Jacobian, outputs), all of which must be finite.
/// Parameter values inside their ranges can still combine into a useless
/// circuit (a transition pressure of 5e-324 Pa, a hose 1e300 m long); this
/// is where that is refused, with a message, before any NaN reaches a
/// master.
fn build_model<M: Model<NX>, const NX: usize>(
    values: &Values,
    layout: &Layout,
    resources: &ResourceFolder,
) -> Result<M, String> {
    let params = M::Params::from_values(&values.raw()[layout.params()]);
    let model = M::configure(&params, &Context::new(resources))?;
    for coefficient in model.derived() {
        coefficient.check()?;
    }
    let inputs = M::Inputs::from_values(&values.raw()[..layout.inputs]);
    first_evaluation(&model, &inputs)
        .map_err(|what| format!("these parameter values give {what} at the initial state"))?;
    Ok(model)
}

/// The name of state `i` for messages.
fn state_name<M: Table>(i: usize) -> String {
    M::state_names()
        .get(i)
        .map_or_else(|| format!("#{i}"), |n| format!("'{n}'"))
}

/// The first non-finite value among the active states and the outputs at
/// state `x`, described; `None` when all are finite. Allocates only to
/// describe a fault.
fn non_finite<M: Model<NX>, const NX: usize>(
    model: &M,
    inputs: &M::Inputs,
    x: &SVector<f64, NX>,
) -> Option<String> {
    non_finite_state(model, x).or_else(|| non_finite_output::<M, NX>(&model.all_outputs(inputs, x)))
}

/// The first non-finite active state, described.
fn non_finite_state<M: Model<NX>, const NX: usize>(
    model: &M,
    x: &SVector<f64, NX>,
) -> Option<String> {
    let active = model.active_states().min(NX);
    let i = (0..active).find(|&i| !x[i].is_finite())?;
    Some(format!("state {} = {}", state_name::<M>(i), Number(x[i])))
}

/// The first non-finite output in `out`, described.
fn non_finite_output<M: Model<NX>, const NX: usize>(out: &M::Outputs) -> Option<String> {
    let k = (0..<M::Outputs as OutputRecord>::LEN).find(|&k| !out.get(k).is_finite())?;
    let mut rows = Vec::new();
    <M::Outputs as OutputRecord>::rows(&mut rows);
    let name = rows.get(k).map_or("?", |r| r.name);
    Some(format!("output '{name}' = {}", Number(out.get(k))))
}

/// One evaluation of a freshly configured model at its initial state:
/// a description of the first non-finite value, if any.
fn first_evaluation<M: Model<NX>, const NX: usize>(
    model: &M,
    inputs: &M::Inputs,
) -> Result<(), String> {
    let x = model.initial_state(inputs);
    let active = model.active_states().min(NX);
    if let Some(what) = non_finite(model, inputs, &x) {
        return Err(what);
    }
    let mut j = nalgebra::SMatrix::<f64, NX, NX>::zeros();
    let (dx, analytic) = model.rates_and_jacobian(inputs, &x, &mut j);
    if let Some(i) = (0..active).find(|&i| !dx[i].is_finite()) {
        return Err(format!(
            "the rate of state {} = {}",
            state_name::<M>(i),
            Number(dx[i])
        ));
    }
    if analytic {
        for c in 0..active {
            if let Some(r) = (0..active).find(|&r| !j[(r, c)].is_finite()) {
                return Err(format!(
                    "the Jacobian entry d(rate of {})/d({}) = {}",
                    state_name::<M>(r),
                    state_name::<M>(c),
                    Number(j[(r, c)])
                ));
            }
        }
    }
    Ok(())
}

/// Builds the full description of `M` and checks it (the same check the
/// packaging tool runs): the table, the XML rules, and that the default
/// parameters configure (with no resource folder, as at packaging time,
/// resources are not required for that check).
pub fn checked_description<M: Model<NX>, const NX: usize>() -> Result<ModelDescription, String> {
    const {
        assert!(
            <M as Table>::STATES == NX,
            "the table's state count differs from the model's N"
        )
    };
    check_model_table::<M>()?;
    let desc = full_description::<M, NX>();
    desc.validate().map_err(|e| e.to_string())?;
    Ok(desc)
}

/// The model configured with the start values of its table (no resource
/// folder): what a fresh instance integrates, for in-process use
/// (benchmarks, tests).
pub fn default_model<M: Model<NX>, const NX: usize>() -> Result<(M, M::Inputs), String> {
    let rows = slot_rows::<M>();
    let values = start_values(&rows);
    let layout = Layout::of::<M, NX>();
    let inputs = M::Inputs::from_values(&values.raw()[..layout.inputs]);
    let none = ResourceFolder::Unavailable("no resource folder in process".into());
    Ok((build_model(&values, &layout, &none)?, inputs))
}

impl<M: Model<NX>, const NX: usize> Instance<M, NX> {
    /// Creates an instance after checking the instantiation token; the
    /// model is configured with its default parameters and the master's
    /// resource folder.
    pub fn new(
        version: FmiVersion,
        instance_name: &str,
        token: &str,
        resources: ResourceFolder,
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
        let rows = slot_rows::<M>();
        let layout = Layout::of::<M, NX>();
        let values = start_values(&rows);
        let model = build_model::<M, NX>(&values, &layout, &resources)
            .map_err(CreateError::Configuration)?;
        let inputs = M::Inputs::from_values(&values.raw()[..layout.inputs]);
        let settings = SolverParams::from_values(&values.raw()[layout.solver()]).settings();
        let x = model.initial_state(&inputs);
        let inst = Instance {
            magic: INSTANCE_MAGIC,
            version,
            interface: Interface::CoSimulation,
            logger: Logger::new(sink, instance_name, logging_on),
            phase: Phase::Instantiated,
            token_hash: fnv1a(expected.as_bytes()),
            desc,
            lookup,
            rows,
            layout,
            resources,
            values,
            inputs,
            model,
            x,
            time: 0.0,
            start_time: 0.0,
            stop_time: None,
            settings,
            carried: Carried::default(),
            stats: Stats::default(),
            last_successful_time: 0.0,
            outputs: None,
            jacobian: std::cell::RefCell::new(None),
        };
        let where_resources = match &inst.resources {
            ResourceFolder::Found(p) => format!("resources in {}", p.display()),
            ResourceFolder::Unavailable(why) => format!("no resource folder ({why})"),
        };
        inst.logger.log(
            Status::Ok,
            Category::Events,
            &format!(
                "instantiated {} ({:?}) with {} states; {where_resources}",
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
            &format!("{what} is not supported by this FMU"),
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
            // The master's tolerance replaces the parameter rtol, inside
            // rtol's range.
            let row = self.rows[self.layout.rtol];
            let lo = row.min.map_or(tol, |b| b.value);
            let hi = row.max.map_or(tol, |b| b.value);
            let rtol = tol.clamp(lo, hi);
            if rtol != tol {
                self.logger.log(
                    Status::Warning,
                    Category::Warning,
                    &format!("{function}: tolerance {tol} used as rtol = {rtol} (rtol's range is [{lo}, {hi}])"),
                );
            }
            self.values.raw_mut()[self.layout.rtol] = rtol;
            self.settings.rtol = rtol;
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
        self.x = self.model.initial_state(&self.inputs);
        self.outputs = None;
        Ok(())
    }

    /// exitInitializationMode: the initial state from the parameters.
    pub fn exit_initialization_mode(&mut self, function: &str) -> FmiResult {
        self.check_phase(function, Op::ExitInitializationMode)?;
        let x = self.model.initial_state(&self.inputs);
        if let Some(what) = non_finite(&self.model, &self.inputs, &x) {
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "the initial state is unusable: {what} (with the present inputs and \
                     parameters); Initialization Mode is kept"
                ),
            );
        }
        self.x = x;
        self.outputs = None;
        self.carried = Carried::prepared();
        self.last_successful_time = self.time;
        self.phase = match self.interface {
            Interface::CoSimulation => Phase::StepMode,
            Interface::ModelExchange => Phase::EventMode,
        };
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

    /// The sample period of the configured model's sampled part, s (a
    /// trained surrogate; see [`Model::sample_period`]), if it has one:
    /// communication steps must be whole numbers of it.
    pub fn sample_period(&self) -> Option<f64> {
        self.model.sample_period()
    }

    /// Configures the model from the parameter values in `values`, checked
    /// (see [`build_model`]).
    fn configure(&self, values: &Values) -> Result<M, String> {
        let model: M = build_model(values, &self.layout, &self.resources)?;
        if self.interface == Interface::ModelExchange
            && let Some(period) = model.sample_period()
        {
            return Err(format!(
                "these parameters choose a sampled surrogate (it updates once per {period:e} s), \
                 which runs in co-simulation only; in Model Exchange keep the physics"
            ));
        }
        Ok(model)
    }

    /// reset: back to the state right after instantiation.
    pub fn reset(&mut self, function: &str) -> FmiResult {
        self.check_phase(function, Op::Reset)?;
        let values = start_values(&self.rows);
        self.model = match self.configure(&values) {
            Ok(m) => m,
            Err(e) => return self.fail(Status::Fatal, function, &e),
        };
        self.values = values;
        self.inputs = M::Inputs::from_values(&self.values.raw()[..self.layout.inputs]);
        self.settings =
            SolverParams::from_values(&self.values.raw()[self.layout.solver()]).settings();
        self.x = self.model.initial_state(&self.inputs);
        self.outputs = None;
        self.time = 0.0;
        self.start_time = 0.0;
        self.stop_time = None;
        self.carried = Carried::default();
        self.stats = Stats::default();
        self.last_successful_time = 0.0;
        self.phase = Phase::Instantiated;
        Ok(())
    }

    fn row(&self, vr: u32) -> Option<usize> {
        // The model's own references are dense from 0 (time): the entry at
        // index vr is the one, without a search (a get or set at every
        // communication point).
        if let Some(&(v, row)) = self.lookup.get(vr as usize)
            && v == vr
        {
            return Some(row);
        }
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

    /// The value slot of a settable variable.
    fn value_slot(&self, vr: u32) -> Option<usize> {
        match self.layout.slot(vr)? {
            Slot::Input(i) => Some(i),
            Slot::Parameter(s) | Slot::Solver(s) => Some(s),
            _ => None,
        }
    }

    /// Checks that `vr` may be set to `value` now; returns its value slot.
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
        let running = matches!(
            self.phase,
            Phase::StepMode | Phase::EventMode | Phase::ContinuousTimeMode
        );
        let settable_now = match (var.causality, var.variability) {
            // A structural parameter is fixed for the simulation: settable
            // until initialization ends (FMI 3 also in Configuration Mode).
            // FMPy sets it in Instantiated, ecospy in Initialization Mode;
            // both are parameters with initial = exact to them.
            _ if var.structural => !running,
            _ if configuring => false,
            (Causality::Input, _) => true,
            // Model Exchange: tunable parameters change at events only.
            (Causality::Parameter, Variability::Tunable) => self.phase != Phase::ContinuousTimeMode,
            (Causality::Parameter, Variability::Fixed) => !running,
            _ => false,
        };
        let slot = self.value_slot(vr).filter(|_| settable_now);
        let Some(slot) = slot else {
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
        };
        if let Err(msg) = self.rows[slot].check(value) {
            return self.fail(Status::Error, function, &msg);
        }
        Ok(slot)
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
        let mut only_inputs = true;
        for (i, &vr) in vrs.iter().enumerate() {
            let slot = self.check_set(function, vr, value(i), wanted)?;
            only_inputs &= slot < self.layout.inputs;
        }
        let before_initialization =
            matches!(self.phase, Phase::Instantiated | Phase::InitializationMode);
        if only_inputs {
            // The inputs a master sets at every communication point change
            // no coefficient: update them in place (no rebuild, no
            // allocation).
            // (The real-time methods keep their Jacobian: they keep their
            // order with an outdated one.)
            for (i, &vr) in vrs.iter().enumerate() {
                if let Some(slot) = self.value_slot(vr) {
                    // A substep taken beyond this point holds for the
                    // inputs it was taken with only.
                    if self.values.raw()[slot].to_bits() != value(i).to_bits() {
                        self.carried.inputs_changed();
                    }
                    self.values.raw_mut()[slot] = value(i);
                }
            }
        } else {
            let mut values = self.values.clone();
            for (i, &vr) in vrs.iter().enumerate() {
                if let Some(slot) = self.value_slot(vr) {
                    values.raw_mut()[slot] = value(i);
                }
            }
            let params = self.layout.params();
            if values.raw()[params.clone()] != self.values.raw()[params] {
                self.model = match self.configure(&values) {
                    Ok(m) => m,
                    Err(e) => {
                        let set: Vec<String> = vrs
                            .iter()
                            .enumerate()
                            .filter_map(|(i, &vr)| {
                                let row = self.row(vr)?;
                                let name = &self.desc.variables[row].name;
                                Some(format!("{name} = {}", Number(value(i))))
                            })
                            .collect();
                        return self.fail(
                            Status::Error,
                            function,
                            &format!("{} refused, nothing changed: {e}", set.join(", ")),
                        );
                    }
                };
            }
            if values != self.values {
                // A Jacobian of other parameter values is no use.
                self.carried.forget();
            }
            self.values = values;
            self.settings =
                SolverParams::from_values(&self.values.raw()[self.layout.solver()]).settings();
        }
        self.inputs = M::Inputs::from_values(&self.values.raw()[..self.layout.inputs]);
        self.outputs = None;
        if before_initialization {
            self.x = self.model.initial_state(&self.inputs);
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
        let mut outputs: Option<M::Outputs> = None;
        let mut rates: Option<SVector<f64, NX>> = None;
        let mut events: Option<Vec<f64>> = None;
        for (i, &vr) in vrs.iter().enumerate() {
            self.typed_row(function, vr, wanted)?;
            let v = match self.layout.slot(vr) {
                Some(Slot::Time) => self.time,
                Some(Slot::Output(k)) => outputs
                    .get_or_insert_with(|| match &self.outputs {
                        Some(out) => out.clone(),
                        None => self.model.all_outputs(&self.inputs, &self.x),
                    })
                    .get(k),
                Some(Slot::Statistic) => statistic(&self.stats, vr).unwrap_or(f64::NAN),
                Some(Slot::State(k)) => self.x[k],
                Some(Slot::EventIndicator(k)) => {
                    let z = events.get_or_insert_with(|| {
                        let mut z = vec![0.0; self.layout.events];
                        self.model
                            .event_indicator_values(&self.inputs, &self.x, &mut z);
                        z
                    });
                    z[k]
                }
                Some(Slot::Derivative(k)) => {
                    rates.get_or_insert_with(|| self.model.rates(&self.inputs, &self.x))[k]
                }
                Some(Slot::Input(s) | Slot::Parameter(s) | Slot::Solver(s)) => self.values.raw()[s],
                None => f64::NAN,
            };
            // Whatever the model computed (outputs, derivatives, event
            // indicators) is never returned non-finite with OK.
            if !v.is_finite() {
                let var = &self.desc.variables[self.typed_row(function, vr, wanted)?];
                let kind = if var.causality == Causality::Output {
                    "output "
                } else {
                    ""
                };
                return self.fail(
                    Status::Error,
                    function,
                    &format!(
                        "{kind}'{}' is {v} at t = {} s with the present states, inputs and \
                         parameters; no value is returned",
                        var.name, self.time
                    ),
                );
            }
            out(i, v);
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
        if self.interface == Interface::ModelExchange {
            return self.fail(
                Status::Error,
                function,
                "this instance was created for Model Exchange, which has no doStep",
            );
        }
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
        // The integrator updates what it carries in place (the W methods'
        // Jacobian and factors are too big to copy at every step); a
        // failed step restores the step size and forgets the rest.
        let h_before = self.carried.h;
        let system = WithInputs {
            model: &self.model,
            inputs: &self.inputs,
            event_indicator_count: self.layout.events,
        };
        match advance(
            &system,
            &mut x,
            h,
            &self.settings,
            &mut self.carried,
            &mut self.stats,
        ) {
            Ok(()) => {
                // The integrators check their own numbers; this catches
                // what they cannot see: a finite state whose outputs are
                // not (an explicit method run off to 1e300).
                let out = self.model.all_outputs(&self.inputs, &x);
                let fault =
                    non_finite_state(&self.model, &x).or_else(|| non_finite_output::<M, NX>(&out));
                if let Some(what) = fault {
                    self.carried.h = h_before;
                    self.carried.forget();
                    self.last_successful_time = self.time;
                    return self.fail(
                        Status::Discard,
                        function,
                        &format!(
                            "step from {t} s by {h} s discarded, state kept at {t} s: it ends \
                             with {what}"
                        ),
                    );
                }
                self.x = x;
                self.outputs = Some(out);
                self.time = t + h;
                self.carried.steady = true;
                self.last_successful_time = self.time;
                Ok(())
            }
            Err(e) => {
                self.carried.h = h_before;
                self.carried.forget();
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
            inputs: self.inputs.clone(),
            x: self.x,
            time: self.time,
            start_time: self.start_time,
            stop_time: self.stop_time,
            settings: self.settings,
            carried: self.carried.clone(),
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

    /// Refuses state values whose structural parameters differ from this
    /// instance's: a state is a point of one structure (a hose of n
    /// segments), and this instance keeps its structure.
    fn check_structure(&self, values: &Values) -> Result<(), String> {
        for (slot, row) in self.rows.iter().enumerate() {
            let structural = matches!(
                row.role,
                Role::Parameter {
                    structural: true,
                    ..
                }
            );
            let (theirs, ours) = (values.raw()[slot], self.values.raw()[slot]);
            if structural && theirs != ours {
                return Err(format!(
                    "it was taken with the structural parameter {name} = {theirs}, this \
                     instance has {name} = {ours} (set {name} = {theirs} before \
                     initialization to use it)",
                    name = row.name
                ));
            }
        }
        Ok(())
    }

    /// Restores a snapshot taken from an instance of the same model and
    /// structure.
    pub fn restore(&mut self, function: &str, snap: &Snapshot<M, NX>) -> FmiResult {
        self.check_phase(function, Op::FmuState)?;
        if !snap.is_valid_for(self.token_hash) {
            return self.fail(
                Status::Error,
                function,
                "the FMU state is not a live state of this model",
            );
        }
        if let Err(why) = self.check_structure(&snap.values) {
            return self.fail(
                Status::Error,
                function,
                &format!("the FMU state is refused, nothing changed: {why}"),
            );
        }
        self.values = snap.values.clone();
        self.inputs = snap.inputs.clone();
        self.x = snap.x;
        self.outputs = None;
        self.time = snap.time;
        self.start_time = snap.start_time;
        self.stop_time = snap.stop_time;
        self.settings = snap.settings;
        self.carried = snap.carried.clone();
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
        // What the real-time methods reuse, in a block of fixed size (zeros
        // when there is nothing): a flag, the Jacobian's age, the step size,
        // coefficient and uses of the LU factors, the Jacobian by columns.
        // The factors and their inverse follow from these.
        let record = snap.carried.reuse.as_ref().map(|r| r.record());
        let record = record.as_ref();
        let jac = record.and_then(|r| r.jac.as_ref());
        put(if jac.is_some() { 1.0 } else { 0.0 });
        put(record.map_or(0.0, |r| f64::from(r.jac_age)));
        put(record.map_or(0.0, |r| r.lu_h));
        put(record.map_or(0.0, |r| r.lu_gamma));
        put(record.map_or(0.0, |r| f64::from(r.lu_uses)));
        for i in 0..NX * NX {
            put(jac.map_or(0.0, |j| j.as_slice()[i]));
        }
        // Stepping ahead (solver 6): whether the inputs are held, and the
        // substep beyond the point (zeros when there is none): a flag, its
        // length, the point's place in it, the two earlier substeps'
        // lengths, the states before it, its ends and the rates at its end.
        let carried = &snap.carried;
        put(if carried.steady { 1.0 } else { 0.0 });
        let seg = carried.ahead.as_ref();
        put(if seg.is_some() { 1.0 } else { 0.0 });
        put(seg.map_or(0.0, |s| s.h));
        put(seg.map_or(0.0, |s| s.at));
        put(seg.map_or(0.0, |s| s.hp));
        put(seg.map_or(0.0, |s| s.hq));
        let parts = seg.map(|s| [s.xq, s.xp, s.x0, s.x1, s.f1]);
        for k in 0..5 {
            for i in 0..NX {
                put(parts.map_or(0.0, |p| p[k][i]));
            }
        }
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
        Self::HEADER + 8 * (snap.values.len() + NX + 5) + Self::REUSE_BYTES + 8 * 5 + 8
    }

    /// Bytes of the serialized reuse block of the real-time methods (the
    /// Jacobian's, then stepping ahead's).
    const REUSE_BYTES: usize = 8 * (5 + NX * NX) + 8 * (6 + 5 * NX);

    const HEADER: usize = 8 + 4 + 8 + 4 + 4;

    /// Reads a serialized snapshot back; truncated, corrupted or foreign
    /// bytes are rejected with a message, and every restored value goes
    /// through the same checks as a setter of that variable.
    pub fn deserialize(&self, function: &str, bytes: &[u8]) -> FmiResult<Snapshot<M, NX>> {
        let reject = |why: &str| -> FmiResult<Snapshot<M, NX>> {
            self.fail(
                Status::Error,
                function,
                &format!("serialized FMU state rejected: {why}"),
            )
        };
        let header = Self::HEADER;
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
        let expected = header + 8 * (n_values + NX + 5) + Self::REUSE_BYTES + 8 * 5 + 8;
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
        let (has_jac, jac_age, lu_h, lu_gamma, lu_uses) = (next(), next(), next(), next(), next());
        let jac = nalgebra::SMatrix::<f64, NX, NX>::from_iterator((0..NX * NX).map(|_| next()));
        let (steady, has_seg, seg_h, seg_at) = (next(), next(), next(), next());
        let (seg_hp, seg_hq) = (next(), next());
        let mut vector = || SVector::<f64, NX>::from_fn(|_, _| next());
        let (xq, xp, x0) = (vector(), vector(), vector());
        let (x1, f1) = (vector(), vector());
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
        // Every restored value passes its setter's checks (outputs' slots
        // are unused and must be the zero they were written as).
        let outputs = self.layout.inputs..self.layout.inputs + self.layout.outputs;
        for (slot, (row, v)) in self.rows.iter().zip(values.raw()).enumerate() {
            if outputs.contains(&slot) {
                if *v != 0.0 {
                    return reject(&format!(
                        "the unused slot of output '{}' is not zero",
                        row.name
                    ));
                }
            } else if let Err(e) = row.check(*v) {
                return reject(&e);
            }
        }
        let times_ok = [time, start_time, last_successful_time]
            .iter()
            .all(|v| v.is_finite())
            && start_time <= time
            && last_successful_time <= time;
        if !times_ok {
            return reject("its times are not finite or not in order (start <= last good <= now)");
        }
        if !(stop.is_nan() || (stop.is_finite() && stop >= start_time)) {
            return reject("its stop time is not finite or before its start time");
        }
        if !(h.is_finite() && h >= 0.0) {
            return reject("its carried step size is not a finite number >= 0");
        }
        if !x.iter().all(|v| v.is_finite()) {
            return reject("non-finite numbers in the state vector");
        }
        let count_ok = |v: f64| v >= 0.0 && v <= f64::from(u32::MAX) && v.fract() == 0.0;
        let age_ok = count_ok(jac_age) && count_ok(lu_uses);
        let reuse = match has_jac {
            0.0 | 1.0 if age_ok => {
                let has_jac = has_jac == 1.0;
                let record = ReuseRecord {
                    jac: has_jac.then_some(jac),
                    jac_age: jac_age as u32,
                    lu_h,
                    lu_gamma,
                    lu_uses: lu_uses as u32,
                };
                let unused = jac.iter().all(|v| *v == 0.0);
                match Reuse::from_record(&record) {
                    Some(r) if has_jac || unused => Some(Box::new(r)),
                    _ => {
                        return reject(
                            "its reused Jacobian or LU step size is not finite, negative or \
                             inconsistent",
                        );
                    }
                }
            }
            _ => return reject("its Jacobian flag or age is malformed"),
        };
        let segment = Segment {
            xq,
            hq: seg_hq,
            xp,
            hp: seg_hp,
            x0,
            x1,
            f1,
            h: seg_h,
            at: seg_at,
        };
        let ahead = match (has_seg, steady) {
            (0.0, 0.0 | 1.0)
                if [seg_h, seg_at, seg_hp, seg_hq]
                    .iter()
                    .chain(&xq)
                    .chain(&xp)
                    .chain(&x0)
                    .chain(&x1)
                    .chain(&f1)
                    .all(|v| *v == 0.0) =>
            {
                None
            }
            (1.0, 1.0) if segment.is_valid() => Some(segment),
            _ => {
                return reject(
                    "its substep beyond the communication point is malformed (flags, non-finite \
                     numbers, a length <= 0 or the point outside it)",
                );
            }
        };
        if let Err(why) = self.check_structure(&values) {
            return reject(&why);
        }
        let model = match self.configure(&values) {
            Ok(m) => m,
            Err(e) => return reject(&format!("its parameter values are invalid: {e}")),
        };
        let inputs = M::Inputs::from_values(&values.raw()[..self.layout.inputs]);
        let settings = SolverParams::from_values(&values.raw()[self.layout.solver()]).settings();
        Ok(Snapshot {
            magic: SNAPSHOT_MAGIC,
            token_hash: self.token_hash,
            values,
            inputs,
            x,
            time,
            start_time,
            stop_time: if stop.is_nan() { None } else { Some(stop) },
            settings,
            carried: Carried {
                h,
                reuse,
                ahead,
                steady: steady == 1.0,
            },
            stats,
            last_successful_time,
            model,
        })
    }

    /// A known of a directional derivative: a Real input, or an output that
    /// shows a state.
    fn known(&self, function: &str, vr: u32) -> FmiResult<Known> {
        let name = self
            .row(vr)
            .map_or("?", |r| self.desc.variables[r].name.as_str());
        match self.layout.slot(vr) {
            Some(Slot::Input(i)) => Ok(Known::Input(i)),
            Some(Slot::State(s)) => Ok(Known::State(s)),
            Some(Slot::Output(k)) => match self.rows[self.layout.inputs + k].role {
                Role::Output { state: Some(s), .. } => Ok(Known::State(s)),
                _ => self.fail(
                    Status::Error,
                    function,
                    &format!(
                        "'{name}' is neither a Real input nor a state, so it cannot be a known"
                    ),
                ),
            },
            Some(_) => self.fail(
                Status::Error,
                function,
                &format!("'{name}' is neither a Real input nor a state, so it cannot be a known"),
            ),
            None => self.fail(
                Status::Error,
                function,
                &format!("value reference {vr} does not exist"),
            ),
        }
    }

    /// The partial derivative of output `of` (its index) with respect to
    /// `wrt`, analytic where the model provides it or the output shows a
    /// state, else by central differences (the perturbed outputs kept in
    /// `column` for the next output of the same known).
    fn output_partial(&self, of: usize, wrt: Known, column: &mut Column<M::Outputs, NX>) -> f64 {
        if let Some(d) = self.model.output_partial(&self.inputs, &self.x, of, wrt) {
            return d;
        }
        // An output that shows a state is that state.
        if let Role::Output { state: Some(s), .. } = self.rows[self.layout.inputs + of].role {
            return match wrt {
                Known::State(c) if c == s => 1.0,
                _ => 0.0,
            };
        }
        let (h, up, down) = column.outputs.get_or_insert_with(|| {
            let (h, (up_u, up_x), (down_u, down_x)) = self.perturbed(wrt);
            (
                h,
                self.model.all_outputs(&up_u, &up_x),
                self.model.all_outputs(&down_u, &down_x),
            )
        });
        (up.get(of) - down.get(of)) / (2.0 * *h)
    }

    /// The central-difference step for `wrt` and the inputs and states
    /// perturbed by it up and down.
    #[allow(clippy::type_complexity)]
    fn perturbed(
        &self,
        wrt: Known,
    ) -> (
        f64,
        (M::Inputs, SVector<f64, NX>),
        (M::Inputs, SVector<f64, NX>),
    ) {
        match wrt {
            Known::State(i) => {
                let nominal = self.model.nominal()[i].abs().max(1e-300);
                let h = 1e-6 * self.x[i].abs().max(nominal);
                let mut xp = self.x;
                let mut xm = self.x;
                xp[i] += h;
                xm[i] -= h;
                (h, (self.inputs.clone(), xp), (self.inputs.clone(), xm))
            }
            Known::Input(i) => {
                let v0 = self.values.raw()[i];
                let h = 1e-6 * v0.abs().max(1.0);
                let with = |v: f64| {
                    let mut raw = self.values.raw()[..self.layout.inputs].to_vec();
                    raw[i] = v;
                    M::Inputs::from_values(&raw)
                };
                (h, (with(v0 + h), self.x), (with(v0 - h), self.x))
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
        // An unknown is an output or (Model Exchange) a state derivative.
        let mut targets = Vec::with_capacity(unknowns.len());
        for &u in unknowns {
            match self.layout.slot(u) {
                Some(Slot::Output(k)) => targets.push(Ok(k)),
                Some(Slot::Derivative(i)) => targets.push(Err(i)),
                _ => {
                    return self.fail(
                        Status::Error,
                        function,
                        &format!("value reference {u} is neither an output nor a derivative"),
                    );
                }
            }
        }
        // Column by column: each known with a non-zero seed costs one
        // Jacobian (shared by every state known) or one pair of perturbed
        // evaluations, whatever the number of unknowns.
        let mut jacobian = None;
        let mut sum = vec![0.0; unknowns.len()];
        for (j, &k) in known_list.iter().enumerate() {
            if seed[j] == 0.0 {
                continue;
            }
            let mut column = Column::default();
            for (i, target) in targets.iter().enumerate() {
                let d = match *target {
                    Ok(of) => self.output_partial(of, k, &mut column),
                    Err(row) => self.rate_partial(row, k, &mut jacobian, &mut column),
                };
                sum[i] += d * seed[j];
            }
        }
        if let Some(i) = sum.iter().position(|v| !v.is_finite()) {
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "the derivative of value reference {} is not finite",
                    unknowns[i]
                ),
            );
        }
        sensitivity.copy_from_slice(&sum);
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
