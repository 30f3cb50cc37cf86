//! The safe trait a circuit implements to become an FMU.

use crate::solver::{Method, OdeSystem, SolverSettings, Stats};
use model_description::{Causality, LogCategory, ModelDescription, Variable, VariableType};
use nalgebra::SVector;

/// Value reference of the independent variable `time`, added by fmu-core.
pub const VR_TIME: u32 = 0;
/// First value reference of the solver parameters fmu-core adds to every model.
pub const VR_SOLVER_BASE: u32 = 100_000;
/// `solver`: integration method code (see [`Method::code`]).
pub const VR_SOLVER: u32 = VR_SOLVER_BASE;
/// `rtol`: relative tolerance of the adaptive integrator.
pub const VR_RTOL: u32 = VR_SOLVER_BASE + 1;
/// `atol`: absolute tolerance, relative to each state's nominal value.
pub const VR_ATOL: u32 = VR_SOLVER_BASE + 2;
/// `max_substeps`: substep limit per communication step.
pub const VR_MAX_SUBSTEPS: u32 = VR_SOLVER_BASE + 3;
/// `explicit_step`: fixed step of the explicit baselines (s).
pub const VR_EXPLICIT_STEP: u32 = VR_SOLVER_BASE + 4;
/// `solver_rhs_evals`: right-hand-side evaluations so far (read-only).
pub const VR_STAT_RHS: u32 = VR_SOLVER_BASE + 10;
/// `solver_jacobian_evals`: Jacobian evaluations so far (read-only).
pub const VR_STAT_JACOBIANS: u32 = VR_SOLVER_BASE + 11;
/// `solver_steps`: accepted substeps so far (read-only).
pub const VR_STAT_STEPS: u32 = VR_SOLVER_BASE + 12;
/// `solver_rejected`: rejected substeps so far (read-only).
pub const VR_STAT_REJECTED: u32 = VR_SOLVER_BASE + 13;

/// Something a directional derivative is taken with respect to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// An input (or tunable parameter), by value reference.
    Input(u32),
    /// A continuous state, by index in the state vector.
    State(usize),
}

/// The values of the model's own variables (parameters, inputs; outputs'
/// slots are unused), indexed by value reference `1..=n`.
///
/// Booleans are stored as 0/1 and integers as whole numbers, so the whole
/// table is plain `f64` data (easy to snapshot and serialize).
#[derive(Debug, Clone, PartialEq)]
pub struct Values {
    data: Vec<f64>,
}

impl Values {
    /// The start values of a model's variable table (value references must
    /// be `1..=n` in table order; see [`check_model_table`]).
    pub fn from_description(desc: &ModelDescription) -> Self {
        Values {
            data: desc
                .variables
                .iter()
                .map(|v| v.kind.start_as_f64().unwrap_or(0.0))
                .collect(),
        }
    }

    /// Builds from raw data (deserialization).
    pub fn from_raw(data: Vec<f64>) -> Self {
        Values { data }
    }

    /// The raw data, index = value reference - 1.
    pub fn raw(&self) -> &[f64] {
        &self.data
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The real value of the variable with value reference `vr`.
    ///
    /// # Panics
    /// If `vr` is not one of the model's value references (a programming
    /// error in the model, caught at the FMI boundary).
    pub fn real(&self, vr: u32) -> f64 {
        self.data[(vr - 1) as usize]
    }

    /// The Boolean value of the variable with value reference `vr`.
    pub fn boolean(&self, vr: u32) -> bool {
        self.real(vr) != 0.0
    }

    /// The integer value of the variable with value reference `vr`.
    pub fn integer(&self, vr: u32) -> i32 {
        self.real(vr) as i32
    }

    /// Sets a slot (used by fmu-core and by tests of models).
    pub fn set(&mut self, vr: u32, value: f64) {
        self.data[(vr - 1) as usize] = value;
    }
}

/// A circuit model with `N` continuous states, as fmu-core sees it.
///
/// The model declares its variables (value references `1..=n`, in table
/// order), builds itself from parameter and input values, and provides its
/// right-hand side and analytic Jacobian through [`OdeSystem`]. fmu-core adds
/// the independent variable `time` and the solver parameters.
pub trait Model<const N: usize>: OdeSystem<N> + Sized + Clone + Send + 'static {
    /// The model's variable table and metadata.
    fn description() -> ModelDescription;

    /// Checks one value (SI unit) before it is stored, beyond the table's
    /// min/max (e.g. "a diameter must be positive"). Returns a message.
    fn check_value(_vr: u32, _value: f64) -> Result<(), String> {
        Ok(())
    }

    /// Builds the model from parameter and input values (deriving
    /// coefficients once); an error message when they are inconsistent.
    fn configure(values: &Values) -> Result<Self, String>;

    /// Updates an input in place during the simulation (the value is
    /// already checked), without rebuilding the model with
    /// [`Model::configure`]; return `false` without changing anything (the
    /// default) to make fmu-core rebuild.
    fn set_input(&mut self, _vr: u32, _value: f64) -> bool {
        false
    }

    /// The state at the start time, from the parameters.
    fn initial_state(&self) -> SVector<f64, N>;

    /// The value of an output or local variable at state `x`.
    fn output(&self, x: &SVector<f64, N>, vr: u32) -> Option<f64>;

    /// The state index an output variable shows, if it is a state; such
    /// outputs may be used as knowns of directional derivatives.
    fn state_index(_vr: u32) -> Option<usize> {
        None
    }

    /// The analytic partial derivative of output `of` with respect to
    /// `wrt` at state `x`. `None` makes fmu-core use central finite
    /// differences (a checked fallback).
    fn output_partial(&self, _x: &SVector<f64, N>, _of: u32, _wrt: Known) -> Option<f64> {
        None
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

/// Checks that a model's own table follows fmu-core's conventions: value
/// references `1..=n` in table order, no `time`, no name clash with the
/// solver parameters.
pub fn check_model_table(desc: &ModelDescription) -> Result<(), String> {
    let mut problems = Vec::new();
    for (i, v) in desc.variables.iter().enumerate() {
        let expected = i as u32 + 1;
        if v.value_reference != expected {
            problems.push(format!(
                "variable '{}' has value reference {} but is row {} of the table (expected {})",
                v.name, v.value_reference, expected, expected
            ));
        }
        if v.causality == Causality::Independent {
            problems.push(format!(
                "variable '{}' is independent; fmu-core adds 'time' itself",
                v.name
            ));
        }
        if SOLVER_NAMES.contains(&v.name.as_str())
            || v.name == "time"
            || v.name.starts_with("solver_")
        {
            problems.push(format!(
                "variable name '{}' is reserved by fmu-core",
                v.name
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

const SOLVER_NAMES: [&str; 5] = ["solver", "rtol", "atol", "max_substeps", "explicit_step"];

/// The complete description of model `M`: its own table plus `time`
/// (value reference 0) first and the solver parameters last, the log
/// categories, and the capability flags fmu-core implements.
pub fn full_description<M: Model<N>, const N: usize>() -> ModelDescription {
    let mut desc = M::description();
    let d = SolverSettings::default();
    let mut vars = vec![
        Variable::real("time", VR_TIME)
            .independent()
            .unit("s", None)
            .describe("Simulation time"),
    ];
    vars.append(&mut desc.variables);
    vars.push(
        Variable::integer("solver", VR_SOLVER)
            .parameter(f64::from(d.method.code()))
            .tunable()
            .range(Some(1.0), Some(3.0))
            .describe(
                "Integration method inside doStep: 1 = Rodas3 (adaptive, L-stable implicit, \
                 default), 2 = explicit Euler at explicit_step, 3 = RK4 at explicit_step",
            ),
    );
    vars.push(
        Variable::real("rtol", VR_RTOL)
            .parameter(d.rtol)
            .tunable()
            .unit("1", None)
            .range(Some(1e-14), Some(0.1))
            .describe("Relative tolerance of the adaptive integrator"),
    );
    vars.push(
        Variable::real("atol", VR_ATOL)
            .parameter(d.atol)
            .tunable()
            .unit("1", None)
            .range(Some(1e-16), Some(0.1))
            .describe(
                "Absolute tolerance of the adaptive integrator, relative to each state's \
                 nominal value",
            ),
    );
    vars.push(
        Variable::integer("max_substeps", VR_MAX_SUBSTEPS)
            .parameter(f64::from(d.max_substeps as i32))
            .tunable()
            .range(Some(1.0), Some(f64::from(i32::MAX)))
            .describe(
                "Most substeps (accepted and rejected) per communication step; beyond it \
                 doStep returns Discard",
            ),
    );
    vars.push(
        Variable::real("explicit_step", VR_EXPLICIT_STEP)
            .parameter(d.explicit_step)
            .tunable()
            .unit("s", Some("ms"))
            .range(Some(1e-12), Some(1.0))
            .describe("Fixed step of the explicit baselines (solver = 2 or 3)"),
    );
    for (name, vr, what) in [
        (
            "solver_rhs_evals",
            VR_STAT_RHS,
            "Right-hand-side evaluations of the integrator so far",
        ),
        (
            "solver_jacobian_evals",
            VR_STAT_JACOBIANS,
            "Jacobian evaluations of the integrator so far",
        ),
        (
            "solver_steps",
            VR_STAT_STEPS,
            "Accepted integrator substeps so far",
        ),
        (
            "solver_rejected",
            VR_STAT_REJECTED,
            "Rejected integrator substeps so far",
        ),
    ] {
        let mut v = Variable::real(name, vr).unit("1", None).describe(what);
        v.variability = model_description::Variability::Discrete;
        vars.push(v);
    }
    desc.variables = vars;
    desc.log_categories = log_categories();
    desc
}

/// Reads solver settings from a solver parameter write; `Err` with a message
/// for an invalid value. `value` is already range-checked against the table.
pub(crate) fn apply_solver_value(
    settings: &mut SolverSettings,
    vr: u32,
    value: f64,
) -> Result<(), String> {
    match vr {
        VR_SOLVER => {
            settings.method = Method::from_code(value as i32)
                .ok_or_else(|| format!("solver = {value} is not 1, 2 or 3"))?;
        }
        VR_RTOL => settings.rtol = value,
        VR_ATOL => settings.atol = value,
        VR_MAX_SUBSTEPS => settings.max_substeps = value as u32,
        VR_EXPLICIT_STEP => settings.explicit_step = value,
        _ => return Err(format!("value reference {vr} is not a solver parameter")),
    }
    Ok(())
}

/// The value of a solver parameter or statistic.
pub(crate) fn solver_value(settings: &SolverSettings, stats: &Stats, vr: u32) -> Option<f64> {
    Some(match vr {
        VR_STAT_RHS => stats.rhs_evals as f64,
        VR_STAT_JACOBIANS => stats.jacobian_evals as f64,
        VR_STAT_STEPS => stats.accepted as f64,
        VR_STAT_REJECTED => stats.rejected as f64,
        VR_SOLVER => f64::from(settings.method.code()),
        VR_RTOL => settings.rtol,
        VR_ATOL => settings.atol,
        VR_MAX_SUBSTEPS => f64::from(settings.max_substeps),
        VR_EXPLICIT_STEP => settings.explicit_step,
        _ => return None,
    })
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

/// Test support for model crates: checks that [`Model::set_input`] (the
/// fast path) and [`Model::configure`] give the same right-hand side and
/// outputs at state `x` for every input, perturbed by 1 %.
pub fn check_set_input<M: Model<N>, const N: usize>(x: &SVector<f64, N>) -> Result<(), String> {
    let desc = M::description();
    let base = Values::from_raw(
        desc.variables
            .iter()
            .map(|v| v.kind.start_as_f64().unwrap_or(0.0))
            .collect(),
    );
    let model = M::configure(&base)?;
    for var in desc
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Input)
    {
        let vr = var.value_reference;
        let value = base.real(vr) * 1.01 + 1e-3;
        let mut fast = model.clone();
        if !fast.set_input(vr, value) {
            continue;
        }
        let mut values = base.clone();
        values.set(vr, value);
        let slow = M::configure(&values)?;
        if fast.rhs(x) != slow.rhs(x) {
            return Err(format!(
                "input '{}': set_input and configure differ in the rates",
                var.name
            ));
        }
        for out in desc
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Output)
        {
            let o = out.value_reference;
            if fast.output(x, o) != slow.output(x, o) {
                return Err(format!(
                    "input '{}': set_input and configure differ in output '{}'",
                    var.name, out.name
                ));
            }
        }
    }
    Ok(())
}
