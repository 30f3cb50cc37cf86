//! The safe trait a circuit implements to become an FMU, and the parts of
//! every model description fmu-core adds to the circuit's own table.
//!
//! A circuit is split in two: what it is — its table (declared with
//! [`circuit!`](crate::circuit)) and [`Model::configure`], which builds the
//! circuit's elements from the typed parameters and the FMU's
//! [`Context`] — and how its rates are computed — [`Model::rates`] with an
//! optional analytic [`Model::jacobian`] (finite differences otherwise), so
//! that a circuit may plug in the physics or a trained surrogate of one of
//! its parts, chosen by a parameter in `configure`.

use crate::context::Context;
use crate::solver::{Clamp, Method, OdeSystem, SolverSettings, Stats};
use crate::table::{self, Record, Row, Table};
use model_description::{
    Capabilities, DefaultExperiment, Documentation, LogCategory, ModelDescription, Variability,
    Variable, VariableType,
};
use nalgebra::{SMatrix, SVector};

/// Value reference of the independent variable `time`, added by fmu-core.
pub const VR_TIME: u32 = 0;
/// First value reference of the solver parameters fmu-core adds to every
/// model (`solver`, `rtol`, `atol`, `max_substeps`, `explicit_step`,
/// `fixed_substeps`, in this order).
pub const VR_SOLVER_BASE: u32 = 100_000;
/// First value reference of the read-only solver statistics
/// (`solver_rhs_evals`, `solver_jacobian_evals`, `solver_steps`,
/// `solver_rejected`).
pub const VR_STATS_BASE: u32 = VR_SOLVER_BASE + 10;
/// First value reference of the continuous states that no output shows
/// (Model Exchange; state `i` is `VR_STATE_BASE + i`).
pub const VR_STATE_BASE: u32 = 200_000;
/// First value reference of the state derivatives (Model Exchange;
/// `der` of state `i` is `VR_DERIVATIVE_BASE + i`).
pub const VR_DERIVATIVE_BASE: u32 = 300_000;
/// First value reference of the event indicators (Model Exchange;
/// indicator `k` is `VR_EVENT_BASE + k`).
pub const VR_EVENT_BASE: u32 = 400_000;

/// One event indicator of a circuit (Model Exchange): a continuous function
/// of the state and inputs that changes sign exactly where the circuit's
/// equations switch (a valve edge opens, an end stop takes hold, a clamp
/// holds or lets go), so that a master's integrator can locate the switch
/// instead of stepping across it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventIndicator {
    /// Short name; the variable is `event_<name>`.
    pub name: &'static str,
    /// What its sign says, in domain terms.
    pub description: &'static str,
}

crate::parameters! {
    /// The integrator's settings: parameters of every FMU, tunable between
    /// communication steps.
    pub struct SolverParams {
        /// Integration method inside doStep: 1 = Rodas3 (adaptive,
        /// L-stable implicit, default), 2 = explicit Euler at
        /// explicit_step, 3 = RK4 at explicit_step, 4 = Rosenbrock-W
        /// (adaptive, Jacobian and LU reused: the fastest adaptive one),
        /// 5 = fixed cost (fixed_substeps linearly implicit substeps per
        /// doStep, no error control: the same work every step, for
        /// real-time rigs), 6 = Rosenbrock-W stepping past communication
        /// points (the states there interpolated while the inputs stay the
        /// same: fewer substeps than doSteps at small communication steps)
        solver: int tunable = 1, min 1, max 6;
        /// Relative tolerance of the adaptive integrator
        rtol: real tunable ["1"] = 1e-6, min 1e-14, max 0.1;
        /// Absolute tolerance of the adaptive integrator, relative to each
        /// state's nominal value
        atol: real tunable ["1"] = 1e-6, min 1e-16, max 0.1;
        /// Most substeps (accepted and rejected) per communication step;
        /// beyond it doStep returns Discard
        max_substeps: int tunable = 100_000, min 1, max i32::MAX;
        /// Fixed step of the explicit baselines (solver = 2 or 3)
        explicit_step: real tunable ["s" => "ms"] = 1e-4, min 1e-12, max 1.0;
        /// Substeps per communication step of the fixed-cost solver
        /// (solver = 5), each of communicationStepSize / fixed_substeps
        fixed_substeps: int tunable = 1, min 1, max 100_000;
    }
}

impl SolverParams {
    /// The integrator settings these parameters say (values are checked
    /// against the table already).
    pub fn settings(&self) -> SolverSettings {
        SolverSettings {
            method: Method::from_code(self.solver).unwrap_or(Method::Rodas3),
            rtol: self.rtol,
            atol: self.atol,
            max_substeps: self.max_substeps.max(1) as u32,
            explicit_step: self.explicit_step,
            fixed_substeps: self.fixed_substeps.max(1) as u32,
        }
    }
}

/// Something a directional derivative is taken with respect to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// An input, by its index in the table (`input::name`).
    Input(usize),
    /// A continuous state, by index in the state vector (`state::name`).
    State(usize),
}

/// The stored values of the variables a master can set (inputs,
/// parameters, solver settings), in the table's SI units, Booleans as 0/1:
/// plain `f64` data, easy to snapshot and serialize. Slot `vr - 1` holds
/// the model's own variable `vr`; the solver parameters follow.
#[derive(Debug, Clone, PartialEq)]
pub struct Values {
    data: Vec<f64>,
}

impl Values {
    /// Builds from raw data (start values, deserialization).
    pub fn from_raw(data: Vec<f64>) -> Self {
        Values { data }
    }

    /// The raw data.
    pub fn raw(&self) -> &[f64] {
        &self.data
    }

    /// The raw data, writable.
    pub fn raw_mut(&mut self) -> &mut [f64] {
        &mut self.data
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

/// A coefficient a circuit derives from its parameters in
/// [`Model::configure`] (a flow coefficient, a damping, a wave speed),
/// declared by [`Model::derived`] so that fmu-core checks it whenever the
/// circuit is configured: parameter values inside their ranges can still
/// combine into an infinite, NaN or (where the physics needs a positive
/// value) non-positive coefficient, and such a configuration is refused
/// with a message naming the coefficient instead of giving NaN outputs
/// later.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Derived {
    /// The coefficient's name, as the circuit's documentation writes it.
    pub name: &'static str,
    /// Its SI unit, for the message.
    pub unit: &'static str,
    /// Its value.
    pub value: f64,
    /// Whether the physics needs it above zero (else: finite is enough).
    pub positive: bool,
}

impl Derived {
    /// A coefficient that must be finite and above zero.
    pub fn positive(name: &'static str, unit: &'static str, value: f64) -> Self {
        Derived {
            name,
            unit,
            value,
            positive: true,
        }
    }

    /// A coefficient that must be finite.
    pub fn finite(name: &'static str, unit: &'static str, value: f64) -> Self {
        Derived {
            name,
            unit,
            value,
            positive: false,
        }
    }

    /// Whether the value is usable; a message naming it otherwise.
    pub fn check(&self) -> Result<(), String> {
        let ok = self.value.is_finite() && (!self.positive || self.value > 0.0);
        if ok {
            return Ok(());
        }
        let need = if self.positive {
            "finite and above zero"
        } else {
            "finite"
        };
        Err(format!(
            "these parameter values give the derived coefficient {} = {} {}, which must be {need}",
            self.name,
            crate::table::Number(self.value),
            self.unit
        ))
    }
}

/// A circuit model with `N` continuous states, as fmu-core sees it. Its
/// table ([`Table`], from [`circuit!`](crate::circuit)) gives the typed
/// inputs, outputs and parameters; the methods are the circuit's physics.
pub trait Model<const N: usize>: Table + Sized + Clone + Send + 'static {
    /// Builds the circuit from its parameters, deriving coefficients once
    /// and choosing how each part's rates are computed. An error message
    /// when the values are inconsistent (rules a range cannot say, like
    /// "Fs >= Fc"), or when a resource the choice needs is missing.
    fn configure(params: &Self::Params, context: &Context) -> Result<Self, String>;

    /// The coefficients [`Model::configure`] derived, for fmu-core to check
    /// (see [`Derived`]); none by default. fmu-core also evaluates the
    /// initial state, the rates, the Jacobian and the outputs once after
    /// every configuration and refuses non-finite results, so an undeclared
    /// coefficient is caught too, only with a less precise message.
    fn derived(&self) -> Vec<Derived> {
        Vec::new()
    }

    /// The state at the start time, from the parameters and the inputs.
    fn initial_state(&self, inputs: &Self::Inputs) -> SVector<f64, N>;

    /// The rates `dx/dt` at state `x` with inputs `u` (the model's
    /// equations).
    fn rates(&self, u: &Self::Inputs, x: &SVector<f64, N>) -> SVector<f64, N>;

    /// The rates at state `x` and their analytic Jacobian `d(rates)/dx`,
    /// written into `j` (whose block of active states arrives filled with
    /// zeros: write the non-zero entries), from one evaluation of the
    /// equations; the flag says whether `j` was written. The one entry point
    /// for the Jacobian: the default writes none and returns false, and
    /// fmu-core uses finite differences of [`Model::rates`].
    fn rates_and_jacobian(
        &self,
        u: &Self::Inputs,
        x: &SVector<f64, N>,
        _j: &mut SMatrix<f64, N, N>,
    ) -> (SVector<f64, N>, bool) {
        (self.rates(u, x), false)
    }

    /// Fills the outputs at state `x` (outputs that show a state are filled
    /// by fmu-core beforehand).
    fn outputs(&self, _u: &Self::Inputs, _x: &SVector<f64, N>, _out: &mut Self::Outputs) {}

    /// Nominal magnitude of each state; the table's values by default.
    fn nominal(&self) -> SVector<f64, N> {
        let mut v = SVector::<f64, N>::repeat(1.0);
        Self::state_nominal(v.as_mut_slice());
        v
    }

    /// How many leading states are in use (see
    /// [`OdeSystem::active_states`]).
    fn active_states(&self) -> usize {
        N
    }

    /// States the circuit holds inside a range (see
    /// [`OdeSystem::clamps`]); none by default.
    fn clamps(&self) -> &[Clamp] {
        &[]
    }

    /// The circuit's FMI 3 terminals (hydraulic ports, flanges), written to
    /// `terminalsAndIcons/terminalsAndIcons.xml`; none by default. Their
    /// members must name variables of the table (checked with the model
    /// description).
    fn terminals() -> Vec<model_description::Terminal> {
        Vec::new()
    }

    /// The circuit's event indicators (see [`EventIndicator`]), always the
    /// same list for a model type; none by default.
    fn event_indicators() -> Vec<EventIndicator> {
        Vec::new()
    }

    /// The values of the event indicators at state `x` with inputs `u`,
    /// one per entry of [`Model::event_indicators`], into `z`.
    fn event_indicator_values(&self, _u: &Self::Inputs, _x: &SVector<f64, N>, _z: &mut [f64]) {}

    /// The period in seconds of the circuit's sampled part, when its
    /// configuration has one (see [`OdeSystem::sample_period`]): a trained
    /// discrete-time surrogate in place of a stiff equation. Such a model
    /// is stepped in co-simulation only, by whole periods; `None` (the
    /// default): purely continuous.
    fn sample_period(&self) -> Option<f64> {
        None
    }

    /// The sampled part's update at the end of a period (see
    /// [`OdeSystem::sample`]): overwrite the sampled states of `x`.
    fn sample(&self, _u: &Self::Inputs, _x: &mut SVector<f64, N>) {}

    /// Whether every state is sampled (see [`OdeSystem::sampled_only`]): a
    /// whole circuit replaced by a discrete-time surrogate. `false` (the
    /// default).
    fn sampled_only(&self) -> bool {
        false
    }

    /// The analytic partial derivatives of the rates with respect to every
    /// input, one column per input in the table's order (`input::name`),
    /// into `columns`; `false` (the default) makes fmu-core use central
    /// differences. Directional derivatives with respect to inputs use
    /// them (an estimator that learns a parameter exposed as an input).
    fn rate_input_jacobian(
        &self,
        _u: &Self::Inputs,
        _x: &SVector<f64, N>,
        _columns: &mut [SVector<f64, N>],
    ) -> bool {
        false
    }

    /// The analytic partial derivative of output `output` (its index,
    /// `output::name`) with respect to `wrt`; `None` makes fmu-core use
    /// central finite differences.
    fn output_partial(
        &self,
        _u: &Self::Inputs,
        _x: &SVector<f64, N>,
        _output: usize,
        _wrt: Known,
    ) -> Option<f64> {
        None
    }

    /// The outputs at state `x`: state outputs copied, then
    /// [`Model::outputs`].
    fn all_outputs(&self, u: &Self::Inputs, x: &SVector<f64, N>) -> Self::Outputs {
        let mut out = Self::Outputs::default();
        table::OutputRecord::fill_states(&mut out, x.as_slice());
        self.outputs(u, x, &mut out);
        out
    }
}

/// A model with its inputs held: the ODE system the integrators advance
/// through one communication step.
pub struct WithInputs<'a, M: Model<N>, const N: usize> {
    /// The model.
    pub model: &'a M,
    /// Its inputs, constant over the step.
    pub inputs: &'a M::Inputs,
    /// How many event indicators the model has
    /// (`M::event_indicators().len()`).
    pub event_indicator_count: usize,
}

impl<M: Model<N>, const N: usize> OdeSystem<N> for WithInputs<'_, M, N> {
    fn rates(&self, x: &SVector<f64, N>) -> SVector<f64, N> {
        self.model.rates(self.inputs, x)
    }

    fn rates_and_jacobian(
        &self,
        x: &SVector<f64, N>,
        j: &mut SMatrix<f64, N, N>,
    ) -> (SVector<f64, N>, bool) {
        self.model.rates_and_jacobian(self.inputs, x, j)
    }

    fn nominal(&self) -> SVector<f64, N> {
        self.model.nominal()
    }

    fn active_states(&self) -> usize {
        self.model.active_states()
    }

    fn clamps(&self) -> &[Clamp] {
        self.model.clamps()
    }

    fn event_indicator_count(&self) -> usize {
        self.event_indicator_count
    }

    fn event_indicator_values(&self, x: &SVector<f64, N>, z: &mut [f64]) {
        self.model.event_indicator_values(self.inputs, x, z);
    }

    fn sample_period(&self) -> Option<f64> {
        self.model.sample_period()
    }

    fn sample(&self, x: &mut SVector<f64, N>) {
        self.model.sample(self.inputs, x);
    }

    fn sampled_only(&self) -> bool {
        self.model.sampled_only()
    }
}

/// The log categories every FMU declares.
pub fn log_categories() -> Vec<LogCategory> {
    crate::logging::Category::ALL
        .iter()
        .map(|c| LogCategory {
            name: c.name().to_owned(),
            description: c.description().to_owned(),
        })
        .collect()
}

/// The rows of the solver parameters every FMU has.
pub fn solver_rows() -> Vec<Row> {
    let mut rows = Vec::new();
    SolverParams::rows(&mut rows);
    rows
}

const STATISTICS: [(&str, &str); 4] = [
    (
        "solver_rhs_evals",
        "Right-hand-side evaluations of the integrator so far",
    ),
    (
        "solver_jacobian_evals",
        "Jacobian evaluations of the integrator so far",
    ),
    ("solver_steps", "Accepted integrator substeps so far"),
    ("solver_rejected", "Rejected integrator substeps so far"),
];

/// The value of a solver statistic by value reference.
pub(crate) fn statistic(stats: &Stats, vr: u32) -> Option<f64> {
    Some(match vr.checked_sub(VR_STATS_BASE)? {
        0 => stats.rhs_evals as f64,
        1 => stats.jacobian_evals as f64,
        2 => stats.accepted as f64,
        3 => stats.rejected as f64,
        _ => return None,
    })
}

/// Checks what the compiler cannot: the table's rows (see
/// [`table::check_rows`]) and that no name clashes with what fmu-core adds.
pub fn check_model_table<M: Table>() -> Result<(), String> {
    let rows = M::rows();
    let mut problems: Vec<String> = table::check_rows(&rows).err().into_iter().collect();
    let solver = solver_rows();
    for r in &rows {
        if r.name == "time"
            || r.name.starts_with("solver_")
            || r.name.starts_with("state_")
            || r.name.starts_with("event_")
            || solver.iter().any(|s| s.name == r.name)
        {
            problems.push(format!(
                "variable name '{}' is reserved by fmu-core",
                r.name
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// The complete description of model `M` (unchecked; see
/// [`crate::checked_description`]): `time` (value reference 0), the
/// circuit's table (1..), the solver parameters and statistics, the Model
/// Exchange states, derivatives and event indicators, the terminals, and
/// every FMI-wide field: name and identifier, generation tool, default
/// experiment, log categories, capability flags, documentation.
pub fn full_description<M: Model<N>, const N: usize>() -> ModelDescription {
    let mut desc = table_description::<M>();
    add_event_indicators::<M, N>(&mut desc);
    desc.terminals = M::terminals();
    desc
}

/// The part of the description the table gives (everything but the event
/// indicators and terminals).
pub(crate) fn table_description<M: Table>() -> ModelDescription {
    let info = M::INFO;
    let mut variables = vec![
        Variable::real("time", VR_TIME)
            .independent()
            .unit("s", None)
            .describe("Simulation time"),
    ];
    variables.extend(table::variables(&M::rows(), 1));
    variables.extend(table::variables(&solver_rows(), VR_SOLVER_BASE));
    for (i, (name, what)) in STATISTICS.iter().enumerate() {
        let mut v = Variable::real(name, VR_STATS_BASE + i as u32)
            .unit("1", None)
            .describe(what);
        v.variability = Variability::Discrete;
        variables.push(v);
    }
    variables.extend(state_variables::<M>());
    let version = env!("CARGO_PKG_VERSION");
    ModelDescription {
        model_name: info.name.into(),
        model_identifier: info.name.into(),
        description: info.description.into(),
        version: version.into(),
        generation_tool: format!("fluidfmu {version}"),
        variables,
        log_categories: log_categories(),
        default_experiment: DefaultExperiment {
            start_time: 0.0,
            stop_time: info.stop_time,
            tolerance: SolverSettings::default().rtol,
            step_size: info.step_size,
        },
        capabilities: Capabilities::default(),
        documentation: Documentation {
            page_markdown: info.documentation.into(),
        },
        terminals: Vec::new(),
        model_exchange: true,
        event_indicators: Vec::new(),
    }
}

/// Adds the event indicators of `M` to its description: a local variable
/// `event_<name>` each (`VR_EVENT_BASE + k`), listed in order.
fn add_event_indicators<M: Model<N>, const N: usize>(desc: &mut ModelDescription) {
    for (k, e) in M::event_indicators().iter().enumerate() {
        let vr = VR_EVENT_BASE + k as u32;
        desc.variables.push(
            Variable::real(&format!("event_{}", e.name), vr).describe(&format!(
                "Event indicator (Model Exchange): {}",
                e.description
            )),
        );
        desc.event_indicators.push(vr);
    }
}

/// The value reference of each continuous state: the output that shows
/// it, else its own local variable (`VR_STATE_BASE + i`).
pub fn state_value_references<M: Table>() -> Vec<u32> {
    let rows = M::rows();
    (0..M::STATES)
        .map(|i| {
            rows.iter()
                .position(
                    |r| matches!(r.role, table::Role::Output { state: Some(s), .. } if s == i),
                )
                .map_or(VR_STATE_BASE + i as u32, |p| p as u32 + 1)
        })
        .collect()
}

/// The name of the local variable of state `i` (when no output shows it):
/// `state_` and the state's name (its number for models that size their
/// states themselves).
pub fn state_variable_name<M: Table>(i: usize) -> String {
    match M::state_names().get(i) {
        Some(n) => format!("state_{n}"),
        None => format!("state_{}", i + 1),
    }
}

/// The Model Exchange variables: a local for every state no output shows,
/// and `der(...)` for every state.
fn state_variables<M: Table>() -> Vec<Variable> {
    let vrs = state_value_references::<M>();
    let rows = M::rows();
    let mut nominal = vec![1.0; M::STATES];
    M::state_nominal(&mut nominal);
    let mut locals = Vec::new();
    let mut derivatives = Vec::new();
    for (i, &vr) in vrs.iter().enumerate() {
        let name = if vr >= VR_STATE_BASE {
            let name = state_variable_name::<M>(i);
            locals.push(
                Variable::real(&name, vr)
                    .nominal(nominal[i])
                    .describe(&format!("Continuous state {} (Model Exchange)", i + 1)),
            );
            name
        } else {
            rows[vr as usize - 1].name.to_owned()
        };
        derivatives.push(
            Variable::real(&format!("der({name})"), VR_DERIVATIVE_BASE + i as u32)
                .derivative_of(vr)
                .describe(&format!("Time derivative of {name}")),
        );
    }
    locals.extend(derivatives);
    locals
}

/// Whether a variable's type is the one a typed FMI get/set function asks for.
pub(crate) fn type_matches(kind: &VariableType, wanted: ValueType) -> bool {
    matches!(
        (kind, wanted),
        (VariableType::Real { .. }, ValueType::Real)
            | (VariableType::Integer { .. }, ValueType::Integer)
            | (VariableType::Boolean { .. }, ValueType::Boolean)
    )
}

/// The value types the FMI get/set functions deal in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    /// FMI 2 Real, FMI 3 Float64.
    Real,
    /// FMI 2 Integer, FMI 3 Int32.
    Integer,
    /// Boolean.
    Boolean,
}

impl ValueType {
    /// Name for messages.
    pub fn name(self) -> &'static str {
        match self {
            ValueType::Real => "Real/Float64",
            ValueType::Integer => "Integer/Int32",
            ValueType::Boolean => "Boolean",
        }
    }
}
