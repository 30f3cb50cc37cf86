//! The in-memory model description: one variable table and its metadata, from
//! which both the FMI 2.0 and the FMI 3.0 `modelDescription.xml` are written.

use std::collections::BTreeSet;

/// FMI causality of a variable (FMI 2.0 section 2.2.7, FMI 3.0 section 2.4.7.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Causality {
    /// A value the master may set before or during initialization (and during
    /// the simulation if the variability is `Tunable`).
    Parameter,
    /// A value the FMU computes from parameters.
    CalculatedParameter,
    /// A value the master sets at communication points.
    Input,
    /// A value the FMU computes and the master reads.
    Output,
    /// An internal value that may be read but not set.
    Local,
    /// The independent variable (time).
    Independent,
}

impl Causality {
    /// The attribute value used in the XML of both FMI versions.
    pub fn as_str(self) -> &'static str {
        match self {
            Causality::Parameter => "parameter",
            Causality::CalculatedParameter => "calculatedParameter",
            Causality::Input => "input",
            Causality::Output => "output",
            Causality::Local => "local",
            Causality::Independent => "independent",
        }
    }

    /// Parses the XML attribute value.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "parameter" => Causality::Parameter,
            "calculatedParameter" => Causality::CalculatedParameter,
            "input" => Causality::Input,
            "output" => Causality::Output,
            "local" => Causality::Local,
            "independent" => Causality::Independent,
            _ => return None,
        })
    }
}

/// FMI variability of a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variability {
    /// Never changes.
    Constant,
    /// Fixed after initialization.
    Fixed,
    /// May change at communication points (parameters the master may retune).
    Tunable,
    /// Changes only at events (Integer/Boolean inputs and outputs).
    Discrete,
    /// Changes continuously in time.
    Continuous,
}

impl Variability {
    /// The attribute value used in the XML of both FMI versions.
    pub fn as_str(self) -> &'static str {
        match self {
            Variability::Constant => "constant",
            Variability::Fixed => "fixed",
            Variability::Tunable => "tunable",
            Variability::Discrete => "discrete",
            Variability::Continuous => "continuous",
        }
    }

    /// Parses the XML attribute value.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "constant" => Variability::Constant,
            "fixed" => Variability::Fixed,
            "tunable" => Variability::Tunable,
            "discrete" => Variability::Discrete,
            "continuous" => Variability::Continuous,
            _ => return None,
        })
    }
}

/// FMI `initial` attribute: how the start value is to be understood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Initial {
    /// The start value is the value (parameters, inputs).
    Exact,
    /// The start value is a guess.
    Approx,
    /// Computed by the FMU during initialization; no start value.
    Calculated,
}

impl Initial {
    /// The attribute value used in the XML of both FMI versions.
    pub fn as_str(self) -> &'static str {
        match self {
            Initial::Exact => "exact",
            Initial::Approx => "approx",
            Initial::Calculated => "calculated",
        }
    }

    /// Parses the XML attribute value.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "exact" => Initial::Exact,
            "approx" => Initial::Approx,
            "calculated" => Initial::Calculated,
            _ => return None,
        })
    }

    /// The `initial` the standard assumes when the attribute is absent, for a
    /// variable of this causality and variability (FMI 2.0 section 2.2.7,
    /// FMI 3.0 section 2.4.7.5). `None` where the standard defines no
    /// `initial` (inputs, the independent variable).
    pub fn default_for(causality: Causality, variability: Variability) -> Option<Initial> {
        match (causality, variability) {
            (Causality::Parameter, _) => Some(Initial::Exact),
            (Causality::CalculatedParameter, _) => Some(Initial::Calculated),
            (Causality::Output | Causality::Local, Variability::Constant) => Some(Initial::Exact),
            (Causality::Output | Causality::Local, _) => Some(Initial::Calculated),
            (Causality::Input | Causality::Independent, _) => None,
        }
    }
}

/// The data type of a variable with its type-specific attributes.
///
/// FMI 2 writes `Real`/`Integer`/`Boolean`, FMI 3 `Float64`/`Int32`/`Boolean`.
#[derive(Debug, Clone, PartialEq)]
pub enum VariableType {
    /// A real number (FMI 2 `Real`, FMI 3 `Float64`).
    Real {
        /// Start value (SI unit); `None` for calculated variables.
        start: Option<f64>,
        /// Smallest allowed value, if any.
        min: Option<f64>,
        /// Largest allowed value, if any.
        max: Option<f64>,
        /// Name of the SI unit (must be in [`crate::units::UNITS`]), if any.
        unit: Option<String>,
        /// Name of the display unit people read (bar, L/min, ...), if any.
        display_unit: Option<String>,
        /// Nominal magnitude of the value (SI unit), if any.
        nominal: Option<f64>,
    },
    /// A 32-bit integer (FMI 2 `Integer`, FMI 3 `Int32`).
    Integer {
        /// Start value; `None` for calculated variables.
        start: Option<i32>,
        /// Smallest allowed value, if any.
        min: Option<i32>,
        /// Largest allowed value, if any.
        max: Option<i32>,
    },
    /// A Boolean.
    Boolean {
        /// Start value; `None` for calculated variables.
        start: Option<bool>,
    },
}

impl VariableType {
    /// Short name of the type for messages ("Real", "Integer", "Boolean").
    pub fn kind_name(&self) -> &'static str {
        match self {
            VariableType::Real { .. } => "Real",
            VariableType::Integer { .. } => "Integer",
            VariableType::Boolean { .. } => "Boolean",
        }
    }

    /// Whether a start value is given.
    pub fn has_start(&self) -> bool {
        match self {
            VariableType::Real { start, .. } => start.is_some(),
            VariableType::Integer { start, .. } => start.is_some(),
            VariableType::Boolean { start } => start.is_some(),
        }
    }

    /// The start value as a number (Booleans as 0/1), if any.
    pub fn start_as_f64(&self) -> Option<f64> {
        match self {
            VariableType::Real { start, .. } => *start,
            VariableType::Integer { start, .. } => start.map(f64::from),
            VariableType::Boolean { start } => start.map(|b| if b { 1.0 } else { 0.0 }),
        }
    }

    /// The allowed range as numbers (`-inf..inf` where no bound is given).
    pub fn range(&self) -> (f64, f64) {
        match self {
            VariableType::Real { min, max, .. } => (
                min.unwrap_or(f64::NEG_INFINITY),
                max.unwrap_or(f64::INFINITY),
            ),
            VariableType::Integer { min, max, .. } => (
                min.map_or(f64::NEG_INFINITY, f64::from),
                max.map_or(f64::INFINITY, f64::from),
            ),
            VariableType::Boolean { .. } => (0.0, 1.0),
        }
    }
}

/// One variable of the model: a row of the variable table.
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// Name (the papers' symbol where one exists, e.g. `p1`).
    pub name: String,
    /// FMI value reference; unique per model.
    pub value_reference: u32,
    /// What the variable is, in domain terms.
    pub description: String,
    /// FMI causality.
    pub causality: Causality,
    /// FMI variability.
    pub variability: Variability,
    /// FMI `initial`; `None` means the default the standard derives.
    pub initial: Option<Initial>,
    /// Type and type-specific attributes.
    pub kind: VariableType,
    /// For outputs: the value references of the inputs the output depends on
    /// directly (direct feedthrough). `None` means "depends on all inputs".
    pub dependencies: Option<Vec<u32>>,
    /// A parameter that sets the model's structure (e.g. a segment count):
    /// FMI 3 causality `structuralParameter`, FMI 2 a fixed parameter.
    pub structural: bool,
    /// For the derivative of a continuous state (Model Exchange): the value
    /// reference of that state (FMI 3 `derivative`; FMI 2 writes its index).
    pub derivative: Option<u32>,
}

impl Variable {
    fn new(name: &str, vr: u32, kind: VariableType) -> Self {
        Variable {
            name: name.to_owned(),
            value_reference: vr,
            description: String::new(),
            causality: Causality::Local,
            variability: Variability::Continuous,
            initial: None,
            kind,
            dependencies: None,
            structural: false,
            derivative: None,
        }
    }

    /// A real variable (local, continuous) with value reference `vr`.
    pub fn real(name: &str, vr: u32) -> Self {
        Self::new(
            name,
            vr,
            VariableType::Real {
                start: None,
                min: None,
                max: None,
                unit: None,
                display_unit: None,
                nominal: None,
            },
        )
    }

    /// An integer variable (local, discrete) with value reference `vr`.
    pub fn integer(name: &str, vr: u32) -> Self {
        let mut v = Self::new(
            name,
            vr,
            VariableType::Integer {
                start: None,
                min: None,
                max: None,
            },
        );
        v.variability = Variability::Discrete;
        v
    }

    /// A Boolean variable (local, discrete) with value reference `vr`.
    pub fn boolean(name: &str, vr: u32) -> Self {
        let mut v = Self::new(name, vr, VariableType::Boolean { start: None });
        v.variability = Variability::Discrete;
        v
    }

    /// Sets the description.
    pub fn describe(mut self, text: &str) -> Self {
        self.description = text.to_owned();
        self
    }

    /// Makes the variable a fixed parameter with the given start value
    /// (Booleans: 0 or 1, integers: whole numbers).
    pub fn parameter(mut self, start: f64) -> Self {
        self.causality = Causality::Parameter;
        self.variability = Variability::Fixed;
        self.initial = Some(Initial::Exact);
        self.set_start(start);
        self
    }

    /// Makes a fixed parameter structural (FMI 3 `structuralParameter`, set
    /// in Configuration Mode; FMI 2: a fixed parameter).
    pub fn structural(mut self) -> Self {
        self.structural = true;
        self
    }

    /// Makes a parameter tunable (settable between communication steps).
    pub fn tunable(mut self) -> Self {
        self.variability = Variability::Tunable;
        self
    }

    /// Makes the variable an input with the given start value.
    pub fn input(mut self, start: f64) -> Self {
        self.causality = Causality::Input;
        self.initial = None;
        self.set_start(start);
        self
    }

    /// Makes the variable an output computed by the FMU, depending directly on
    /// the inputs with the given value references.
    pub fn output(mut self, depends_on_inputs: &[u32]) -> Self {
        self.causality = Causality::Output;
        self.initial = Some(Initial::Calculated);
        self.dependencies = Some(depends_on_inputs.to_vec());
        self
    }

    /// Makes the variable the independent variable (time).
    pub fn independent(mut self) -> Self {
        self.causality = Causality::Independent;
        self.variability = Variability::Continuous;
        self.initial = None;
        self
    }

    /// Sets the SI unit and, optionally, the display unit people read.
    pub fn unit(mut self, si: &str, display: Option<&str>) -> Self {
        if let VariableType::Real {
            unit, display_unit, ..
        } = &mut self.kind
        {
            *unit = Some(si.to_owned());
            *display_unit = display.map(str::to_owned);
        }
        self
    }

    /// Sets the allowed range (inclusive) of a real or integer variable.
    pub fn range(mut self, lo: Option<f64>, hi: Option<f64>) -> Self {
        match &mut self.kind {
            VariableType::Real { min, max, .. } => {
                *min = lo;
                *max = hi;
            }
            VariableType::Integer { min, max, .. } => {
                *min = lo.map(|v| v as i32);
                *max = hi.map(|v| v as i32);
            }
            VariableType::Boolean { .. } => {}
        }
        self
    }

    /// Makes the variable the time derivative of the continuous state with
    /// value reference `state` (a local, continuous, calculated Real).
    pub fn derivative_of(mut self, state: u32) -> Self {
        self.derivative = Some(state);
        self
    }

    /// Sets the nominal magnitude of a real variable.
    pub fn nominal(mut self, value: f64) -> Self {
        if let VariableType::Real { nominal, .. } = &mut self.kind {
            *nominal = Some(value);
        }
        self
    }

    fn set_start(&mut self, value: f64) {
        match &mut self.kind {
            VariableType::Real { start, .. } => *start = Some(value),
            VariableType::Integer { start, .. } => *start = Some(value as i32),
            VariableType::Boolean { start } => *start = Some(value != 0.0),
        }
    }

    /// The `initial` attribute in force: the explicit one, or the default the
    /// standard gives for this causality and variability.
    pub fn effective_initial(&self) -> Option<Initial> {
        self.initial
            .or_else(|| Initial::default_for(self.causality, self.variability))
    }
}

/// A log category the FMU declares; the master may enable each one.
#[derive(Debug, Clone, PartialEq)]
pub struct LogCategory {
    /// Category name, e.g. `logStatusError`.
    pub name: String,
    /// What messages of this category report.
    pub description: String,
}

/// The default experiment written into the model description.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DefaultExperiment {
    /// Start time in s.
    pub start_time: f64,
    /// Stop time in s.
    pub stop_time: f64,
    /// Relative tolerance the master should use (and the FMU's default).
    pub tolerance: f64,
    /// Communication step size in s.
    pub step_size: f64,
}

/// What the FMU can do (FMI capability flags). Only true claims belong here.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capabilities {
    /// Accepts communication steps of varying size.
    pub can_handle_variable_communication_step_size: bool,
    /// Implements get/set/free FMU state.
    pub can_get_and_set_fmu_state: bool,
    /// Implements serialize/deserialize FMU state.
    pub can_serialize_fmu_state: bool,
    /// Implements directional derivatives.
    pub provides_directional_derivative: bool,
}

impl Default for Capabilities {
    fn default() -> Self {
        Capabilities {
            can_handle_variable_communication_step_size: true,
            can_get_and_set_fmu_state: true,
            can_serialize_fmu_state: true,
            provides_directional_derivative: true,
        }
    }
}

/// Human documentation of a model, written into `documentation/index.html`
/// by the packaging tool (not part of the XML).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Documentation {
    /// The circuit's documentation page in Markdown (CommonMark with
    /// tables): what it is, its equations, the values that replace the
    /// papers' garbled ones, references. Rendered into the page with its
    /// headings one level down.
    pub page_markdown: String,
}

/// The whole model description: the one table both XML versions come from.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelDescription {
    /// Model name (`modelName`).
    pub model_name: String,
    /// Model identifier: the shared library's file name without extension.
    pub model_identifier: String,
    /// One-line description of the model.
    pub description: String,
    /// Model version string.
    pub version: String,
    /// Name and version of the generating tool.
    pub generation_tool: String,
    /// The variable table, in the order it is written.
    pub variables: Vec<Variable>,
    /// Declared log categories.
    pub log_categories: Vec<LogCategory>,
    /// Default experiment.
    pub default_experiment: DefaultExperiment,
    /// Capability flags.
    pub capabilities: Capabilities,
    /// Human documentation.
    pub documentation: Documentation,
    /// FMI 3 terminals (`terminalsAndIcons.xml`); empty for none.
    pub terminals: Vec<crate::terminals::Terminal>,
    /// Whether the FMU also implements Model Exchange (then both XML
    /// versions declare it beside Co-Simulation, with the continuous states
    /// named by the variables that have a [`Variable::derivative`]).
    pub model_exchange: bool,
    /// Value references of the event indicators (Model Exchange), in
    /// order: local continuous Real variables whose sign changes mark
    /// switches of the equations.
    pub event_indicators: Vec<u32>,
}

impl ModelDescription {
    /// Looks up a variable by value reference.
    pub fn variable(&self, vr: u32) -> Option<&Variable> {
        self.variables.iter().find(|v| v.value_reference == vr)
    }

    /// Looks up a variable by name.
    pub fn variable_by_name(&self, name: &str) -> Option<&Variable> {
        self.variables.iter().find(|v| v.name == name)
    }

    /// Value references of all outputs, in table order.
    pub fn outputs(&self) -> Vec<u32> {
        self.variables
            .iter()
            .filter(|v| v.causality == Causality::Output)
            .map(|v| v.value_reference)
            .collect()
    }

    /// The derivative variables, in table order: (position of the
    /// derivative, position of its state), 0-based. A derivative whose state
    /// is not a variable (reported by `validate`) is left out.
    pub fn derivatives(&self) -> Vec<(usize, usize)> {
        self.variables
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let state = v.derivative?;
                let s = self
                    .variables
                    .iter()
                    .position(|w| w.value_reference == state)?;
                Some((i, s))
            })
            .collect()
    }

    /// The units used by the variables (SI names), sorted.
    pub fn used_units(&self) -> BTreeSet<String> {
        self.variables
            .iter()
            .filter_map(|v| match &v.kind {
                VariableType::Real { unit, .. } => unit.clone(),
                _ => None,
            })
            .collect()
    }
}
