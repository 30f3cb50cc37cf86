//! Getting and setting variable values: the type and causality checks of
//! every value, all-or-nothing sets (inputs in place, anything else through
//! a checked reconfiguration), and gets that never return a non-finite
//! number with OK.

use super::layout::Slot;
use super::{FmiVersion, Instance, Op, Phase};
use crate::description::statistic;
use crate::model::Model;
use crate::status::{FmiResult, Status};
use crate::table::{Number, OutputRecord};
use model_description::{Causality, Variability, VariableType};
use nalgebra::SVector;

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

impl<M: Model<NX>, const NX: usize> Instance<M, NX> {
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

    /// The row of `desc.variables` of the value reference `vr`, if it
    /// exists.
    pub(super) fn row(&self, vr: u32) -> Option<usize> {
        // Value references are positions in `ModelVariables`: the entry
        // at index vr - 1 is the one, without a search (a get or set at
        // every communication point).
        (vr as usize)
            .checked_sub(1)
            .filter(|&row| row < self.desc.variables.len())
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
            self.inputs = self.layout.inputs_of::<M, NX>(self.values.raw());
        } else {
            let mut values = self.values.clone();
            for (i, &vr) in vrs.iter().enumerate() {
                if let Some(slot) = self.value_slot(vr) {
                    values.raw_mut()[slot] = value(i);
                }
            }
            let decoded = self.layout.decode::<M, NX>(&values);
            let params = self.layout.params();
            if values.raw()[params.clone()] != self.values.raw()[params] {
                self.model = match self.configure(&decoded) {
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
            self.settings = decoded.settings;
            self.inputs = decoded.inputs;
        }
        self.outputs_current = false;
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
                Some(Slot::Output(k)) if self.outputs_current => self.outputs.get(k),
                Some(Slot::Output(k)) => outputs
                    .get_or_insert_with(|| self.model.all_outputs(&self.inputs, &self.x))
                    .get(k),
                Some(Slot::Statistic(i)) => statistic(&self.stats, i),
                Some(Slot::State(k)) => self.x[k],
                Some(Slot::EventIndicator(k)) => {
                    let z = events.get_or_insert_with(|| {
                        let mut z = vec![0.0; self.layout.events];
                        self.reported_event_indicators(&mut z);
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
}
