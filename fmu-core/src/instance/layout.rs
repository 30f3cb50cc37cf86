//! Where every value a master can set sits: the flat value slots (inputs,
//! outputs, parameters, solver parameters), what a value reference names,
//! and the one decoder of the slots into the model's typed inputs and
//! parameters and the solver settings.

use crate::description::{Entry, entries};
use crate::model::Model;
use crate::solver::SolverSettings;
use crate::solver_params::{SolverParams, solver_rows, solver_rows_with};
use crate::table::{OutputRecord, Record, Row, Table};

/// The stored values of the variables a master can set (inputs,
/// parameters, solver settings), in the table's SI units, Booleans as 0/1:
/// plain `f64` data, easy to snapshot and serialize. Slot `vr - 1` holds
/// the model's own variable `vr`; the solver parameters follow.
///
/// Each state of the data has a version, drawn from one counter for the
/// whole process whenever the data is built or handed out for writing, so
/// that what was computed from these values (the directional
/// derivatives' Jacobian) can tell whether they are still the same
/// without comparing every slot.
#[derive(Debug, Clone)]
pub struct Values {
    data: Vec<f64>,
    version: u64,
}

/// The next version of some [`Values`]: never handed out twice.
fn next_version() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static VERSIONS: AtomicU64 = AtomicU64::new(1);
    VERSIONS.fetch_add(1, Ordering::Relaxed)
}

impl PartialEq for Values {
    /// The same data (whatever their versions).
    fn eq(&self, other: &Self) -> bool {
        self.data == other.data
    }
}

impl Values {
    /// Builds from raw data (start values, deserialization).
    pub fn from_raw(data: Vec<f64>) -> Self {
        Values {
            data,
            version: next_version(),
        }
    }

    /// The raw data.
    pub fn raw(&self) -> &[f64] {
        &self.data
    }

    /// The raw data, writable: the values get a new version.
    pub fn raw_mut(&mut self) -> &mut [f64] {
        self.version = next_version();
        &mut self.data
    }

    /// The data's version: equal versions mean equal data.
    pub fn version(&self) -> u64 {
        self.version
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

/// Where the settable values sit: the model's rows (inputs, outputs,
/// parameters, in value-reference order 1..) then the solver parameters;
/// and what every value reference names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Layout {
    /// The number of inputs (slots `0..inputs`).
    pub(super) inputs: usize,
    /// The number of outputs (their slots follow the inputs', unused).
    pub(super) outputs: usize,
    /// The number of the model's rows (inputs, outputs, parameters).
    pub(super) model_rows: usize,
    /// The number of solver parameters (their slots follow the model's).
    pub(super) solver_rows: usize,
    /// The slot of `rtol`, which a master's tolerance also sets.
    pub(super) rtol: usize,
    /// The number of continuous states.
    pub(super) states: usize,
    /// The number of event indicators.
    pub(super) events: usize,
    /// What value reference `vr` names is `slots[vr - 1]` (value
    /// references are positions in `ModelVariables`).
    slots: Vec<Slot>,
}

/// What a value reference names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
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
    /// Read-only solver statistic `i`.
    Statistic(usize),
    /// Continuous state `i` that no output shows (Model Exchange).
    State(usize),
    /// The derivative of continuous state `i` (Model Exchange).
    Derivative(usize),
    /// Event indicator `k` (Model Exchange).
    EventIndicator(usize),
}

impl Layout {
    /// The layout of model `M`.
    pub(super) fn of<M: Model<NX>, const NX: usize>() -> Self {
        let model_rows = M::rows().len();
        let inputs = <M::Inputs as Record>::len();
        let outputs = <M::Outputs as OutputRecord>::len();
        let slots = entries::<M, NX>()
            .into_iter()
            .map(|e| match e {
                Entry::Row(i) if i < inputs => Slot::Input(i),
                Entry::Row(i) if i < inputs + outputs => Slot::Output(i - inputs),
                Entry::Row(i) => Slot::Parameter(i),
                Entry::Solver(i) => Slot::Solver(model_rows + i),
                Entry::Statistic(i) => Slot::Statistic(i),
                Entry::State(i) => Slot::State(i),
                Entry::Derivative(i) => Slot::Derivative(i),
                Entry::EventIndicator(k) => Slot::EventIndicator(k),
                Entry::Time => Slot::Time,
            })
            .collect();
        Layout {
            inputs,
            outputs,
            model_rows,
            solver_rows: <SolverParams as Record>::len(),
            rtol: model_rows
                + solver_rows()
                    .iter()
                    .position(|r| r.name == "rtol")
                    .unwrap_or(0),
            states: M::state_count(),
            events: M::event_indicators().len(),
            slots,
        }
    }

    /// What the value reference `vr` names: the one decoder of value
    /// references; `None` for one the model does not have.
    pub(super) fn slot(&self, vr: u32) -> Option<Slot> {
        self.slots.get((vr as usize).checked_sub(1)?).copied()
    }

    /// The slots of the model's parameters.
    pub(super) fn params(&self) -> std::ops::Range<usize> {
        self.inputs + self.outputs..self.model_rows
    }

    /// The slots of the solver parameters.
    pub(super) fn solver(&self) -> std::ops::Range<usize> {
        self.model_rows..self.model_rows + self.solver_rows
    }

    /// The one decoder of the flat value slots: the typed inputs,
    /// parameters and solver settings that `values` hold.
    pub(super) fn decode<M: Model<NX>, const NX: usize>(&self, values: &Values) -> Decoded<M, NX> {
        let raw = values.raw();
        Decoded {
            inputs: self.inputs_of::<M, NX>(raw),
            params: M::Params::from_values(&raw[self.params()]),
            settings: SolverParams::from_values(&raw[self.solver()]).settings(),
        }
    }

    /// The inputs alone, from `values` (all slots or the inputs' only):
    /// the part of [`Layout::decode`] that a master changes at every
    /// communication point, decoded without the rest.
    pub(super) fn inputs_of<M: Model<NX>, const NX: usize>(&self, values: &[f64]) -> M::Inputs {
        M::Inputs::from_values(&values[..self.inputs])
    }
}

/// The typed values the flat value slots hold ([`Layout::decode`]).
pub(super) struct Decoded<M: Model<NX>, const NX: usize> {
    /// The model's inputs.
    pub(super) inputs: M::Inputs,
    /// The model's parameters, which configure it.
    pub(super) params: M::Params,
    /// The integrator's settings.
    pub(super) settings: SolverSettings,
}

/// The table rows of the value slots: the model's rows, then the solver's.
pub(super) fn slot_rows<M: Table>() -> Vec<Row> {
    let mut rows = M::rows();
    rows.extend(solver_rows_with(M::info().tolerance));
    rows
}

/// The start values of the value slots.
pub(super) fn start_values(rows: &[Row]) -> Values {
    Values::from_raw(rows.iter().map(|r| r.start).collect())
}

#[cfg(test)]
mod tests {
    use super::Values;

    /// What the directional derivatives' cache relies on: a version is
    /// never reused for other data, a write gives a new one, a copy keeps
    /// it (the same data).
    #[test]
    fn a_version_names_one_state_of_the_data() {
        let mut a = Values::from_raw(vec![1.0, 2.0]);
        let b = Values::from_raw(vec![1.0, 2.0]);
        assert_ne!(a.version(), b.version());
        assert_eq!(a, b, "equal data, whatever the versions");
        let copy = a.clone();
        assert_eq!(copy.version(), a.version());
        let before = a.version();
        a.raw_mut()[0] = 3.0;
        assert_ne!(a.version(), before);
        assert_ne!(a, copy);
        // Restoring the copy brings its version back with its data.
        a = copy.clone();
        assert_eq!(a.version(), before);
        assert_eq!(a.raw(), &[1.0, 2.0]);
    }
}
