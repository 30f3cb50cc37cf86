//! The model description fmu-core assembles around a circuit's table: the
//! value references it adds (time, solver parameters and statistics, Model
//! Exchange states, derivatives and event indicators), the log categories,
//! and every FMI-wide field.

use crate::model::Model;
use crate::solver::{SolverSettings, Stats};
use crate::solver_params::solver_rows;
use crate::table::{self, Table};
use model_description::{
    Capabilities, DefaultExperiment, Documentation, LogCategory, ModelDescription, Variability,
    Variable,
};

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
