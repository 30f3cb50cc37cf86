//! Checks a [`ModelDescription`] against the rules of the FMI standard (and the
//! project's own rules) before any XML is written.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::model::{Causality, Initial, ModelDescription, Variability, Variable, VariableType};
use crate::units::find_unit;

/// Every problem [`ModelDescription::validate`] found, one human-readable
/// message per problem, each naming the variable (or element) concerned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ValidationError {
    /// The problems, in the order they were found.
    pub problems: Vec<String>,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "the model description has {} problem(s):",
            self.problems.len()
        )?;
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "  - {p}")?;
        }
        Ok(())
    }
}

/// C keywords (C99 and later) that cannot be a model identifier, because the
/// identifier prefixes the exported C functions.
const C_KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Bool",
    "_Complex",
    "_Imaginary",
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_Generic",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
];

/// Whether `s` matches `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl ModelDescription {
    /// Checks the description against the FMI 2.0 / 3.0 rules that matter for
    /// the FMUs of this project and returns every problem found.
    ///
    /// Checked: model name and identifier (a C identifier), variable names
    /// (`[A-Za-z_][A-Za-z0-9_]*`, unique), unique value references, units and
    /// display units against [`crate::units::UNITS`], ranges and start values
    /// (finite, `min <= start <= max`), which variables must or must not have
    /// a start value, legal combinations of causality, variability and
    /// `initial`, output dependencies (only on inputs), exactly one
    /// independent variable `time` of type Real, the default experiment and
    /// the log categories.
    pub fn validate(&self) -> Result<(), ValidationError> {
        let mut problems = Vec::new();
        self.check_header(&mut problems);
        self.check_variables(&mut problems);
        self.check_independent(&mut problems);
        self.check_default_experiment(&mut problems);
        self.check_log_categories(&mut problems);
        self.check_terminals(&mut problems);
        self.check_event_indicators(&mut problems);
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ValidationError { problems })
        }
    }

    fn check_header(&self, problems: &mut Vec<String>) {
        if self.model_name.trim().is_empty() {
            problems.push("the model name is empty".to_owned());
        }
        let id = &self.model_identifier;
        if !is_identifier(id) {
            problems.push(format!(
                "model identifier {id:?} is not a valid C identifier ([A-Za-z_][A-Za-z0-9_]*)"
            ));
        } else if C_KEYWORDS.contains(&id.as_str()) {
            problems.push(format!("model identifier {id:?} is a C keyword"));
        }
    }

    fn check_variables(&self, problems: &mut Vec<String>) {
        let mut names: BTreeMap<&str, usize> = BTreeMap::new();
        let mut vrs: BTreeMap<u32, &str> = BTreeMap::new();
        let inputs: BTreeSet<u32> = self
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Input)
            .map(|v| v.value_reference)
            .collect();

        for (i, v) in self.variables.iter().enumerate() {
            let label = variable_label(v, i);
            // A derivative is named der(<its state>), the common spelling.
            let derivative_name = v.derivative.and_then(|state| {
                let state = self.variables.iter().find(|w| w.value_reference == state)?;
                Some(format!("der({})", state.name))
            });
            if v.name.is_empty() {
                problems.push(format!("{label}: the name is empty"));
            } else if let Some(expected) = &derivative_name {
                if &v.name != expected {
                    problems.push(format!("{label}: a derivative must be named {expected:?}"));
                }
            } else if !v.name.split('.').all(is_identifier) {
                problems.push(format!(
                    "{label}: the name is not a valid identifier ([A-Za-z_][A-Za-z0-9_]*, \
                     or such identifiers joined by '.')"
                ));
            }
            self.check_derivative(v, &label, problems);
            if !v.name.is_empty() {
                let count = names.entry(&v.name).or_insert(0);
                *count += 1;
                if *count == 2 {
                    problems.push(format!(
                        "{label}: the name is used by more than one variable"
                    ));
                }
            }
            if let Some(other) = vrs.insert(v.value_reference, &v.name) {
                problems.push(format!(
                    "{label}: value reference {} is already used by variable {other:?}",
                    v.value_reference
                ));
                // keep the first owner for later messages
                vrs.insert(v.value_reference, other);
            }
            check_causality_variability(v, &label, problems);
            check_initial_and_start(v, &label, problems);
            check_type_attributes(v, &label, problems);
            check_dependencies(v, &label, &inputs, problems);
        }
    }

    /// A derivative names an existing continuous Real state (not itself,
    /// not another derivative), is itself a continuous local or output
    /// Real, and no state has two derivatives.
    fn check_derivative(&self, v: &Variable, label: &str, problems: &mut Vec<String>) {
        let Some(state_vr) = v.derivative else {
            return;
        };
        let Some(state) = self
            .variables
            .iter()
            .find(|w| w.value_reference == state_vr)
        else {
            problems.push(format!(
                "{label}: derivative of value reference {state_vr}, which is not a variable"
            ));
            return;
        };
        let real = |w: &Variable| matches!(w.kind, VariableType::Real { .. });
        if state_vr == v.value_reference || state.derivative.is_some() {
            problems.push(format!(
                "{label}: derivative of {:?}, which is itself a derivative",
                state.name
            ));
        }
        if !real(v) || !real(state) {
            problems.push(format!(
                "{label}: a derivative and its state must both be Real"
            ));
        }
        for w in [v, state] {
            let causality_ok = matches!(w.causality, Causality::Local | Causality::Output);
            if !causality_ok || w.variability != Variability::Continuous {
                problems.push(format!(
                    "{label}: {:?} must be a continuous local or output to be a state or \
                     derivative",
                    w.name
                ));
            }
        }
        // The first derivative of a state is its derivative; any later one
        // is reported.
        let first = self
            .variables
            .iter()
            .find(|w| w.derivative == Some(state_vr))
            .map(|w| w.value_reference);
        if first != Some(v.value_reference) {
            problems.push(format!(
                "{label}: state {:?} already has a derivative",
                state.name
            ));
        }
    }

    /// Every event indicator is a continuous local or output Real, listed
    /// once, and only with Model Exchange.
    fn check_event_indicators(&self, problems: &mut Vec<String>) {
        if !self.event_indicators.is_empty() && !self.model_exchange {
            problems.push("event indicators are declared without Model Exchange".to_owned());
        }
        let mut seen = BTreeSet::new();
        for vr in &self.event_indicators {
            if !seen.insert(*vr) {
                problems.push(format!("event indicator {vr} is listed twice"));
            }
            match self.variables.iter().find(|v| v.value_reference == *vr) {
                None => problems.push(format!("event indicator {vr} is not a variable")),
                Some(v) => {
                    let ok = matches!(v.kind, VariableType::Real { .. })
                        && v.variability == Variability::Continuous
                        && matches!(v.causality, Causality::Local | Causality::Output);
                    if !ok {
                        problems.push(format!(
                            "event indicator {:?} must be a continuous local or output Real",
                            v.name
                        ));
                    }
                }
            }
        }
    }

    fn check_independent(&self, problems: &mut Vec<String>) {
        let independents: Vec<(usize, &Variable)> = self
            .variables
            .iter()
            .enumerate()
            .filter(|(_, v)| v.causality == Causality::Independent)
            .collect();
        match independents.len() {
            0 => problems.push(
                "there is no independent variable (a Real variable \"time\" with causality independent)"
                    .to_owned(),
            ),
            1 => {}
            n => problems.push(format!(
                "there are {n} independent variables ({}); exactly one (\"time\") is allowed",
                independents
                    .iter()
                    .map(|(_, v)| format!("{:?}", v.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
        for (i, v) in independents {
            let label = variable_label(v, i);
            if v.name != "time" {
                problems.push(format!(
                    "{label}: the independent variable must be named \"time\""
                ));
            }
            match &v.kind {
                VariableType::Real { unit, .. } => {
                    if let Some(u) = unit.as_deref().filter(|u| *u != "s") {
                        problems.push(format!(
                            "{label}: the independent variable (time) must have unit \"s\", not {u:?}"
                        ));
                    }
                }
                other => problems.push(format!(
                    "{label}: the independent variable must be of type Real, not {}",
                    other.kind_name()
                )),
            }
        }
    }

    fn check_default_experiment(&self, problems: &mut Vec<String>) {
        let e = &self.default_experiment;
        for (what, value) in [
            ("start time", e.start_time),
            ("stop time", e.stop_time),
            ("tolerance", e.tolerance),
            ("step size", e.step_size),
        ] {
            if !value.is_finite() {
                problems.push(format!(
                    "default experiment: the {what} {value} is not finite"
                ));
            }
        }
        if e.stop_time <= e.start_time {
            problems.push(format!(
                "default experiment: the stop time {} s is not after the start time {} s",
                e.stop_time, e.start_time
            ));
        }
        if e.step_size <= 0.0 {
            problems.push(format!(
                "default experiment: the step size {} s is not positive",
                e.step_size
            ));
        }
        if e.tolerance <= 0.0 {
            problems.push(format!(
                "default experiment: the tolerance {} is not positive",
                e.tolerance
            ));
        }
    }

    fn check_log_categories(&self, problems: &mut Vec<String>) {
        let mut seen = BTreeSet::new();
        for (i, c) in self.log_categories.iter().enumerate() {
            if c.name.trim().is_empty() {
                problems.push(format!("log category #{}: the name is empty", i + 1));
            } else if !seen.insert(c.name.as_str()) {
                problems.push(format!(
                    "log category {:?}: the name is declared more than once",
                    c.name
                ));
            }
        }
    }
}

/// How a variable is named in messages: `variable "p1" (vr 3)`, or its
/// position when the name is empty.
fn variable_label(v: &Variable, index: usize) -> String {
    if v.name.is_empty() {
        format!("variable #{} (vr {})", index + 1, v.value_reference)
    } else {
        format!("variable {:?} (vr {})", v.name, v.value_reference)
    }
}

/// Legal combinations of causality and variability (FMI 2.0 table in section
/// 2.2.7, FMI 3.0 section 2.4.7.4), and no continuous Integer/Boolean.
fn check_causality_variability(v: &Variable, label: &str, problems: &mut Vec<String>) {
    use Causality as C;
    use Variability as V;
    let allowed = match (v.causality, v.variability) {
        (C::Parameter | C::CalculatedParameter, V::Fixed | V::Tunable) => true,
        (C::Parameter | C::CalculatedParameter, _) => false,
        (C::Input, V::Discrete | V::Continuous) => true,
        (C::Input, _) => false,
        (C::Output, V::Constant | V::Discrete | V::Continuous) => true,
        (C::Output, _) => false,
        (C::Local, _) => true,
        (C::Independent, V::Continuous) => true,
        (C::Independent, _) => false,
    };
    if !allowed {
        problems.push(format!(
            "{label}: causality {} with variability {} is not allowed by the FMI standard",
            v.causality.as_str(),
            v.variability.as_str()
        ));
    }
    if v.variability == V::Continuous && !matches!(v.kind, VariableType::Real { .. }) {
        problems.push(format!(
            "{label}: a {} variable cannot have variability continuous (use discrete or a parameter variability)",
            v.kind.kind_name()
        ));
    }
}

/// Which `initial` values each causality/variability combination allows, and
/// which variables must or must not carry a start value.
fn check_initial_and_start(v: &Variable, label: &str, problems: &mut Vec<String>) {
    use Causality as C;
    use Initial as I;
    use Variability as V;
    if let Some(initial) = v.initial {
        let allowed: &[Initial] = match (v.causality, v.variability) {
            (C::Parameter, _) => &[I::Exact],
            (C::CalculatedParameter, _) => &[I::Approx, I::Calculated],
            // The standard gives inputs no other `initial` than the implied exact.
            (C::Input, _) => &[I::Exact],
            (C::Independent, _) => &[],
            (C::Output | C::Local, V::Constant) => &[I::Exact],
            (C::Local, V::Fixed | V::Tunable) => &[I::Approx, I::Calculated],
            (C::Output | C::Local, _) => &[I::Exact, I::Approx, I::Calculated],
        };
        if !allowed.contains(&initial) {
            problems.push(format!(
                "{label}: initial {} is not allowed for causality {} with variability {}",
                initial.as_str(),
                v.causality.as_str(),
                v.variability.as_str()
            ));
        }
    }

    let has_start = v.kind.has_start();
    let needs_start = matches!(v.causality, C::Parameter | C::Input)
        || v.variability == V::Constant
        || matches!(v.effective_initial(), Some(I::Exact | I::Approx));
    let forbids_start =
        v.causality == C::Independent || v.effective_initial() == Some(I::Calculated);
    if needs_start && !has_start {
        problems.push(format!(
            "{label}: a start value is required (causality {}, variability {}{})",
            v.causality.as_str(),
            v.variability.as_str(),
            match v.effective_initial() {
                Some(i) => format!(", initial {}", i.as_str()),
                None => String::new(),
            }
        ));
    }
    if forbids_start && has_start {
        let why = if v.causality == C::Independent {
            "it is the independent variable"
        } else {
            "its initial is calculated"
        };
        problems.push(format!("{label}: must not have a start value ({why})"));
    }
}

/// Finite numbers, `min <= max`, `min <= start <= max`, positive nominal,
/// known units and display units.
fn check_type_attributes(v: &Variable, label: &str, problems: &mut Vec<String>) {
    match &v.kind {
        VariableType::Real {
            start,
            min,
            max,
            unit,
            display_unit,
            nominal,
        } => {
            for (what, value) in [
                ("start", start),
                ("min", min),
                ("max", max),
                ("nominal", nominal),
            ] {
                if let Some(x) = value.filter(|x| !x.is_finite()) {
                    problems.push(format!("{label}: {what} value {x} is not finite"));
                }
            }
            if let Some(n) = nominal.filter(|n| n.is_finite() && *n <= 0.0) {
                problems.push(format!("{label}: nominal value {n} is not positive"));
            }
            check_range(label, *start, *min, *max, problems);
            match (unit, display_unit) {
                (None, Some(d)) => problems.push(format!(
                    "{label}: display unit {d:?} is given without a unit"
                )),
                (Some(u), d) => match find_unit(u) {
                    None => {
                        problems.push(format!("{label}: unit {u:?} is not in the unit catalogue"))
                    }
                    Some(cat) => {
                        if let Some(d) = d.as_deref().filter(|d| cat.display_unit(d).is_none()) {
                            let allowed: Vec<&str> =
                                cat.display_units.iter().map(|x| x.name).collect();
                            problems.push(format!(
                                "{label}: display unit {d:?} does not belong to unit {u:?} (allowed: {})",
                                if allowed.is_empty() {
                                    "none".to_owned()
                                } else {
                                    allowed.join(", ")
                                }
                            ));
                        }
                    }
                },
                (None, None) => {}
            }
        }
        VariableType::Integer { start, min, max } => check_range(
            label,
            start.map(f64::from),
            min.map(f64::from),
            max.map(f64::from),
            problems,
        ),
        VariableType::Boolean { .. } => {}
    }
}

fn check_range(
    label: &str,
    start: Option<f64>,
    min: Option<f64>,
    max: Option<f64>,
    problems: &mut Vec<String>,
) {
    match (min, max) {
        (Some(lo), Some(hi)) if lo > hi => {
            problems.push(format!("{label}: min {lo} is greater than max {hi}"));
        }
        _ => {}
    }
    if let Some(s) = start {
        if let Some(lo) = min.filter(|lo| s < *lo) {
            problems.push(format!("{label}: start value {s} is below min {lo}"));
        }
        if let Some(hi) = max.filter(|hi| s > *hi) {
            problems.push(format!("{label}: start value {s} is above max {hi}"));
        }
    }
}

/// Output dependencies may only name inputs, once each; other causalities
/// carry no dependencies.
fn check_dependencies(
    v: &Variable,
    label: &str,
    inputs: &BTreeSet<u32>,
    problems: &mut Vec<String>,
) {
    let Some(deps) = &v.dependencies else {
        return;
    };
    if v.causality != Causality::Output {
        problems.push(format!(
            "{label}: dependencies are given but the causality is {}, not output",
            v.causality.as_str()
        ));
        return;
    }
    let mut seen = BTreeSet::new();
    for d in deps {
        if !inputs.contains(d) {
            problems.push(format!(
                "{label}: output depends on value reference {d}, which is not an input"
            ));
        }
        if !seen.insert(*d) {
            problems.push(format!(
                "{label}: dependency on value reference {d} is listed twice"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Causality, Variable, VariableType};
    use crate::test_support::sample;

    fn problems_of(md: &crate::ModelDescription) -> Vec<String> {
        match md.validate() {
            Ok(()) => Vec::new(),
            Err(e) => e.problems,
        }
    }

    fn assert_reports(md: &crate::ModelDescription, needles: &[&str]) {
        let problems = problems_of(md);
        assert!(!problems.is_empty(), "expected problems, got none");
        let all = problems.join("\n");
        for n in needles {
            assert!(
                problems.iter().any(|p| p.contains(n)),
                "no problem mentions {n:?}; problems:\n{all}"
            );
        }
    }

    #[test]
    fn sample_is_valid() {
        let md = sample();
        if let Err(e) = md.validate() {
            panic!("{e}");
        }
    }

    #[test]
    fn duplicate_value_reference_is_reported() {
        let mut md = sample();
        let vr_ps = md.variable_by_name("ps").unwrap().value_reference;
        md.variables
            .iter_mut()
            .find(|v| v.name == "p2")
            .unwrap()
            .value_reference = vr_ps;
        assert_reports(&md, &["\"p2\"", "already used by variable \"ps\""]);
    }

    #[test]
    fn unknown_unit_and_foreign_display_unit_are_reported() {
        let mut md = sample();
        let q1 = md.variables.iter_mut().find(|v| v.name == "Q1").unwrap();
        *q1 = q1.clone().unit("gallon/fortnight", None);
        let p1 = md.variables.iter_mut().find(|v| v.name == "p1").unwrap();
        *p1 = p1.clone().unit("Pa", Some("L/min"));
        let problems = problems_of(&md);
        assert!(
            problems
                .iter()
                .any(|p| p.contains("\"Q1\"") && p.contains("gallon/fortnight")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("\"p1\"") && p.contains("does not belong")),
            "{problems:?}"
        );
    }

    #[test]
    fn start_out_of_range_is_reported() {
        let mut md = sample();
        let ps = md.variables.iter_mut().find(|v| v.name == "ps").unwrap();
        if let VariableType::Real { start, .. } = &mut ps.kind {
            *start = Some(-5.0e5);
        }
        let problems = problems_of(&md);
        assert!(
            problems
                .iter()
                .any(|p| p.contains("\"ps\"") && p.contains("below min")),
            "{problems:?}"
        );
    }

    #[test]
    fn dependency_on_non_input_is_reported() {
        let mut md = sample();
        let vr_p1 = md.variable_by_name("p1").unwrap().value_reference;
        let q1 = md.variables.iter_mut().find(|v| v.name == "Q1").unwrap();
        q1.dependencies.as_mut().unwrap().push(vr_p1);
        let problems = problems_of(&md);
        assert!(
            problems.iter().any(|p| p.contains("\"Q1\"")
                && p.contains(&format!("value reference {vr_p1}, which is not an input"))),
            "{problems:?}"
        );
    }

    #[test]
    fn all_problems_are_listed_at_once() {
        let mut md = sample();
        md.model_identifier = "9lives".into();
        md.default_experiment.stop_time = md.default_experiment.start_time;
        md.default_experiment.step_size = 0.0;
        md.default_experiment.tolerance = -1.0;
        md.variables
            .push(Variable::real("bad name", 900).describe("oops"));
        md.variables.push(Variable::real("p1", 901));
        md.variables
            .push(Variable::real("c", 902).describe("x").parameter(f64::NAN));
        let mut tunable_bool = Variable::boolean("flag", 903).parameter(1.0);
        tunable_bool.variability = crate::Variability::Continuous;
        md.variables.push(tunable_bool);
        md.variables.push(
            Variable::real("inp", 904)
                .input(1.0)
                .range(Some(2.0), Some(0.0)),
        );
        let mut no_start_input = Variable::real("u", 905).input(0.0);
        if let VariableType::Real { start, .. } = &mut no_start_input.kind {
            *start = None;
        }
        md.variables.push(no_start_input);
        let mut out_with_start = Variable::real("y", 906).output(&[]);
        if let VariableType::Real { start, .. } = &mut out_with_start.kind {
            *start = Some(1.0);
        }
        md.variables.push(out_with_start);
        let mut fixed_input = Variable::real("w", 907).input(0.0);
        fixed_input.variability = crate::Variability::Fixed;
        md.variables.push(fixed_input);

        assert_reports(
            &md,
            &[
                "model identifier \"9lives\"",
                "stop time",
                "step size",
                "tolerance",
                "variable \"bad name\" (vr 900): the name is not a valid identifier",
                "variable \"p1\" (vr 901): the name is used by more than one variable",
                "variable \"c\" (vr 902): start value NaN is not finite",
                "variable \"flag\" (vr 903): causality parameter with variability continuous",
                "variable \"flag\" (vr 903): a Boolean variable cannot have variability continuous",
                "variable \"inp\" (vr 904): min 2 is greater than max 0",
                "variable \"u\" (vr 905): a start value is required (causality input",
                "variable \"y\" (vr 906): must not have a start value (its initial is calculated)",
                "variable \"w\" (vr 907): causality input with variability fixed",
            ],
        );
    }

    #[test]
    fn independent_variable_rules() {
        let mut md = sample();
        md.variables
            .retain(|v| v.causality != Causality::Independent);
        assert_reports(&md, &["no independent variable"]);

        let mut md = sample();
        md.variables.push(Variable::real("tau2", 950).independent());
        assert_reports(
            &md,
            &[
                "there are 2 independent variables",
                "variable \"tau2\" (vr 950): the independent variable must be named \"time\"",
            ],
        );

        let mut md = sample();
        let t = md.variables.iter_mut().find(|v| v.name == "time").unwrap();
        t.kind = VariableType::Integer {
            start: None,
            min: None,
            max: None,
        };
        t.variability = crate::Variability::Discrete;
        assert_reports(
            &md,
            &[
                "variable \"time\" (vr 0): the independent variable must be of type Real",
                "causality independent with variability discrete",
            ],
        );
    }

    /// The sample with Model Exchange: `p1` is a state (an output), `dp12`
    /// a local state, and both have their `der(...)`.
    fn with_states() -> crate::ModelDescription {
        use crate::test_support::vr;
        let mut md = sample();
        md.model_exchange = true;
        let mut dp12 = md.variable_by_name("dp12").unwrap().clone();
        dp12.value_reference = 300;
        dp12.name = "state_dp12".into();
        md.variables.push(dp12);
        md.variables
            .push(Variable::real("der(p1)", 400).derivative_of(vr::P1));
        md.variables
            .push(Variable::real("der(state_dp12)", 401).derivative_of(300));
        md
    }

    #[test]
    fn model_exchange_states_are_written_in_both_versions() {
        let md = with_states();
        if let Err(e) = md.validate() {
            panic!("{e}");
        }
        let v2 = md.to_fmi2_xml();
        assert!(v2.contains("<ModelExchange modelIdentifier=\"OrificeChain\""));
        assert!(v2.find("<ModelExchange").unwrap() < v2.find("<CoSimulation").unwrap());
        // FMI 2 names the state by its 1-based index.
        let p1 = md.variables.iter().position(|v| v.name == "p1").unwrap() + 1;
        assert!(v2.contains(&format!("derivative=\"{p1}\"")), "{v2}");
        assert!(v2.contains("<Derivatives>"));
        let v3 = md.to_fmi3_xml();
        assert!(v3.contains("derivative=\"300\""));
        assert!(v3.contains("<ContinuousStateDerivative valueReference=\"400\"/>"));
        assert!(v3.contains("<ContinuousStateDerivative valueReference=\"401\"/>"));
        // Outputs list the states as knowns with Model Exchange.
        assert!(v3.contains("dependencies=\"10 300\""), "{v3}");
        // States and derivatives are initial unknowns (calculated).
        assert!(v3.contains("<InitialUnknown valueReference=\"401\"/>"));
        assert!(v3.contains("<InitialUnknown valueReference=\"300\"/>"));
    }

    #[test]
    fn wrong_derivatives_are_reported() {
        let mut md = with_states();
        md.variables
            .push(Variable::real("der(ghost)", 402).derivative_of(999));
        md.variables
            .push(Variable::real("rate", 403).derivative_of(300));
        let mut der_of_param = Variable::real("der(rho)", 404);
        der_of_param.derivative = Some(crate::test_support::vr::RHO);
        md.variables.push(der_of_param);
        assert_reports(
            &md,
            &[
                "derivative of value reference 999, which is not a variable",
                "a derivative must be named \"der(state_dp12)\"",
                "already has a derivative",
                "\"rho\" must be a continuous local or output",
            ],
        );
    }
}
