//! The model description fmu-core assembles around a circuit's table: the
//! variables it adds (time, solver parameters and statistics, Model
//! Exchange states, derivatives and event indicators), their value
//! references, the log categories, and every FMI-wide field.
//!
//! **Value references are positions.** The variable at the 1-based
//! position `p` of `ModelVariables` has value reference `p`, in both FMI
//! versions, so a master that reads a reference attribute (FMI 3
//! `derivative`) as a position, as some do, finds the same variable as one
//! that reads it as a value reference. The order, fixed by [`entries`]:
//! the circuit's table (inputs, outputs, parameters: `1..`), the solver
//! parameters, the solver statistics, a local variable for every
//! continuous state that no output shows, the state derivatives, the event
//! indicators, and last the independent variable `time`.

use crate::model::Model;
use crate::solver::{SolverSettings, Stats};
use crate::solver_params::{solver_rows, solver_rows_with};
use crate::table::{self, Table};
use model_description::{
    Capabilities, DefaultExperiment, Documentation, LogCategory, ModelDescription, Variability,
    Variable,
};

/// What the variable at each position of `ModelVariables` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Row `i` of the circuit's table.
    Row(usize),
    /// Solver parameter `i` (`solver`, `rtol`, `atol`, `max_substeps`,
    /// `explicit_step`, `fixed_substeps`, in this order).
    Solver(usize),
    /// Read-only solver statistic `i` (`solver_rhs_evals`,
    /// `solver_jacobian_evals`, `solver_steps`, `solver_rejected`).
    Statistic(usize),
    /// The local variable of continuous state `i`, which no output shows
    /// (Model Exchange).
    State(usize),
    /// The time derivative of continuous state `i` (Model Exchange).
    Derivative(usize),
    /// Event indicator `k` (Model Exchange).
    EventIndicator(usize),
    /// The independent variable `time`.
    Time,
}

/// The variables of model `M` in `ModelVariables` order; the value
/// reference of entry `i` is `i + 1`.
pub fn entries<M: Model<N>, const N: usize>() -> Vec<Entry> {
    let rows = M::rows();
    let shown = shown_states::<M>();
    let mut e: Vec<Entry> = (0..rows.len()).map(Entry::Row).collect();
    e.extend((0..solver_rows().len()).map(Entry::Solver));
    e.extend((0..STATISTICS.len()).map(Entry::Statistic));
    e.extend(
        (0..M::state_count())
            .filter(|&i| shown[i].is_none())
            .map(Entry::State),
    );
    e.extend((0..M::state_count()).map(Entry::Derivative));
    e.extend((0..M::event_indicators().len()).map(Entry::EventIndicator));
    e.push(Entry::Time);
    e
}

/// For each continuous state, the table row of the output that shows it.
fn shown_states<M: Table>() -> Vec<Option<usize>> {
    let rows = M::rows();
    (0..M::state_count())
        .map(|i| {
            rows.iter().position(
                |r| matches!(r.role, table::Role::Output { state: Some(s), .. } if s == i),
            )
        })
        .collect()
}

/// The value reference of the entry at index `i` of [`entries`].
fn vr_at(i: usize) -> u32 {
    u32::try_from(i + 1).expect("fewer than 2^32 variables")
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

/// The value of solver statistic `i` ([`Entry::Statistic`]).
pub(crate) fn statistic(stats: &Stats, i: usize) -> f64 {
    match i {
        0 => stats.rhs_evals as f64,
        1 => stats.jacobian_evals as f64,
        2 => stats.accepted as f64,
        _ => stats.rejected as f64,
    }
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
/// [`crate::checked_description`]): its variables in the order of
/// [`entries`], each with its position as value reference, the terminals,
/// and every FMI-wide field: name and identifier, generation tool, default
/// experiment, log categories, capability flags, documentation.
pub fn full_description<M: Model<N>, const N: usize>() -> ModelDescription {
    let entries = entries::<M, N>();
    let rows = M::rows();
    let solver = solver_rows_with(M::info().tolerance);
    let indicators = M::event_indicators();
    let mut nominal = vec![1.0; M::state_count()];
    M::state_nominal(&mut nominal);
    let state_vrs = state_value_references::<M, N>();
    let state_name = |i: usize| match entries.iter().position(|&e| e == Entry::State(i)) {
        Some(_) => state_variable_name::<M>(i),
        None => rows[shown_states::<M>()[i].expect("a shown state")]
            .name
            .to_owned(),
    };
    // The table's rows come first (value references 1..), written as the
    // table writes them, with the inputs they depend on by reference.
    let table_rows = table::variables(&rows, 1);
    let mut event_indicators = Vec::new();
    let variables = entries
        .iter()
        .enumerate()
        .map(|(p, &entry)| {
            let vr = vr_at(p);
            match entry {
                Entry::Row(i) => table_rows[i].clone(),
                Entry::Solver(i) => solver[i].variable(vr, |_| None),
                Entry::Statistic(i) => {
                    let (name, what) = STATISTICS[i];
                    let mut v = Variable::real(name, vr).unit("1", None).describe(what);
                    v.variability = Variability::Discrete;
                    v
                }
                Entry::State(i) => Variable::real(&state_variable_name::<M>(i), vr)
                    .nominal(nominal[i])
                    .describe(&format!("Continuous state {} (Model Exchange)", i + 1)),
                Entry::Derivative(i) => {
                    let name = state_name(i);
                    Variable::real(&format!("der({name})"), vr)
                        .derivative_of(state_vrs[i])
                        .describe(&format!("Time derivative of {name}"))
                }
                Entry::EventIndicator(k) => {
                    event_indicators.push(vr);
                    Variable::real(&format!("event_{}", indicators[k].name), vr).describe(&format!(
                        "Event indicator (Model Exchange): {}",
                        indicators[k].description
                    ))
                }
                Entry::Time => Variable::real("time", vr)
                    .independent()
                    .unit("s", None)
                    .describe("Simulation time"),
            }
        })
        .collect();
    let info = M::info();
    let version = env!("CARGO_PKG_VERSION");
    let model_version = match M::revision() {
        Some(r) => format!("{version}+{r}"),
        None => version.to_owned(),
    };
    ModelDescription {
        model_name: info.name.into(),
        model_identifier: info.name.into(),
        description: info.description.into(),
        version: model_version,
        generation_tool: format!("fluidfmu {version}"),
        variables,
        log_categories: log_categories(),
        default_experiment: DefaultExperiment {
            start_time: info.start_time,
            stop_time: info.stop_time,
            tolerance: solver
                .iter()
                .find(|r| r.name == "rtol")
                .map_or(SolverSettings::default().rtol, |r| r.start),
            step_size: info.step_size,
        },
        capabilities: Capabilities::default(),
        documentation: Documentation {
            page_markdown: info.documentation.into(),
        },
        terminals: M::terminals(),
        model_exchange: true,
        event_indicators,
    }
}

/// The value reference of each continuous state: the output that shows
/// it, else its own local variable.
pub fn state_value_references<M: Model<N>, const N: usize>() -> Vec<u32> {
    let entries = entries::<M, N>();
    let shown = shown_states::<M>();
    (0..M::state_count())
        .map(|i| {
            let entry = shown[i].map_or(Entry::State(i), Entry::Row);
            vr_at(
                entries
                    .iter()
                    .position(|&e| e == entry)
                    .expect("every state has a variable"),
            )
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
