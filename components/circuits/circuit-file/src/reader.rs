//! Reading a description: the TOML document walked with the span of every
//! key and value, each problem reported where it is.

use crate::registry::{self, Need, PartType, Values};
use crate::units::{Dimension, UNITS, parse_quantity, parse_unit};
use crate::{
    Circuit, Diagnostic, DisplayUnit, Experiment, InputSpec, InputTarget, OutputSource, OutputSpec,
    closest,
};
use fmu_core::compose::{Builder, Causality, Domain, Part, Port};
use fmu_core::table::Number;
use std::ops::Range;
use std::sync::Arc;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

type Key<'i> = Spanned<std::borrow::Cow<'i, str>>;
type Val<'i> = Spanned<DeValue<'i>>;

/// Reads the description `text` (from the file `file_name`, for messages)
/// into a circuit, or every problem found.
pub fn read(text: &str, file_name: &str) -> Result<Circuit, Vec<Diagnostic>> {
    let mut r = Reader {
        text,
        file: file_name,
        diags: Vec::new(),
    };
    let circuit = r.read();
    match circuit {
        Some(c) if r.diags.is_empty() => Ok(c),
        _ => {
            if r.diags.is_empty() {
                r.error(0..0, "the description could not be read".into());
            }
            Err(r.diags)
        }
    }
}

struct Reader<'a> {
    text: &'a str,
    file: &'a str,
    diags: Vec<Diagnostic>,
}

/// A part read from the description.
struct PartEntry {
    name: String,
    span: Range<usize>,
    kind: Option<&'static PartType>,
    /// The part, if it was built.
    part: Option<Arc<dyn Part>>,
    /// Nominal values the description gives its states (state index,
    /// value).
    nominal: Vec<(usize, f64)>,
}

/// A port named in the description: part and port indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PortAt {
    part: usize,
    port: usize,
}

/// What a `part.port[.variable]` reference resolved to.
enum Resolved {
    /// A state of the part.
    State(usize, usize),
    /// Across variable of a port.
    Across(PortAt, usize),
    /// Through variable of a port.
    Through(PortAt),
    /// It names a part that failed to build: say nothing more.
    Unknown,
}

struct NodeEntry {
    span: Range<usize>,
    ports: Vec<(PortAt, Range<usize>)>,
    /// Whether a port it lists could not be resolved (reported already):
    /// the node's causality is then not checked, so that one mistake
    /// gives one message.
    incomplete: bool,
}

struct InputEntry {
    spec: InputSpec,
    span: Range<usize>,
    /// The port and the across variable (None: through).
    at: Option<(PortAt, Option<usize>)>,
}

fn entries<'t, 'i>(table: &'t DeTable<'i>) -> Vec<(&'t Key<'i>, &'t Val<'i>)> {
    let mut list: Vec<_> = table.iter().collect();
    list.sort_by_key(|(k, _)| k.span().start);
    list
}

/// Whether `name` is an FMI model identifier.
fn is_identifier(name: &str) -> bool {
    let mut c = name.chars();
    c.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn type_name(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a number",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

/// The units of `dim` this reader knows, for hints.
fn units_of(dim: Dimension) -> String {
    let list: Vec<&str> = UNITS
        .iter()
        .filter(|(_, _, d)| *d == dim)
        .map(|(n, _, _)| *n)
        .collect();
    if list.is_empty() {
        format!("\"... {}\"", dim.si())
    } else {
        list.join(", ")
    }
}

impl<'a> Reader<'a> {
    fn position(&self, offset: usize) -> (usize, usize) {
        let mut at = offset.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        let before = &self.text[..at];
        let line = before.matches('\n').count() + 1;
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[start..].chars().count() + 1)
    }

    fn error(&mut self, span: Range<usize>, message: String) {
        let (line, column) = self.position(span.start);
        self.diags.push(Diagnostic {
            file: self.file.to_owned(),
            line,
            column,
            message,
        });
    }

    fn line_of(&self, span: &Range<usize>) -> usize {
        self.position(span.start).0
    }

    /// A string value, or an error saying what `what` must be.
    fn string<'v>(&mut self, v: &'v Val<'_>, what: &str) -> Option<&'v str> {
        match v.get_ref() {
            DeValue::String(s) => Some(s.as_ref()),
            other => {
                self.error(
                    v.span(),
                    format!("{what} must be a string, not {}", type_name(other)),
                );
                None
            }
        }
    }

    /// A number (SI) or a quantity string of dimension `dim`, for `what`
    /// (a parameter, a start value).
    fn quantity(&mut self, v: &Val<'_>, what: &str, dim: Dimension) -> Option<f64> {
        let value = match v.get_ref() {
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
                .ok()
                .map(|i| i as f64),
            DeValue::Float(f) => f.as_str().replace('_', "").parse::<f64>().ok(),
            DeValue::String(s) => {
                let q = match parse_quantity(s) {
                    Ok(q) => q,
                    Err(e) => {
                        self.error(
                            v.span(),
                            format!("{what}: {e} (the unit of {what} is {})", dim.si()),
                        );
                        return None;
                    }
                };
                let bare = s.trim().parse::<f64>().is_ok();
                if !bare && q.dimension != dim {
                    self.error(
                        v.span(),
                        format!(
                            "{what} is {}, but \"{s}\" is {}: write it in {}",
                            dim.describe(),
                            q.dimension.describe(),
                            units_of(dim)
                        ),
                    );
                    return None;
                }
                Some(q.si)
            }
            other => {
                self.error(
                    v.span(),
                    format!(
                        "{what} must be a number (SI: {}) or a string with a unit, as in \"{}\"; not {}",
                        dim.si(),
                        example(dim),
                        type_name(other)
                    ),
                );
                return None;
            }
        };
        match value {
            Some(x) if x.is_finite() => Some(x),
            _ => {
                self.error(v.span(), format!("{what} must be a finite number"));
                None
            }
        }
    }

    /// Checks a table's keys against `allowed`.
    fn keys(&mut self, table: &DeTable<'_>, allowed: &[&str], what: &str) {
        for (k, _) in entries(table) {
            if !allowed.contains(&k.get_ref().as_ref()) {
                let hint = closest(k.get_ref(), allowed.iter().copied())
                    .map(|c| format!(" (did you mean '{c}'?)"))
                    .unwrap_or_default();
                self.error(
                    k.span(),
                    format!(
                        "{what} has no key '{}'{hint}: its keys are {}",
                        k.get_ref(),
                        allowed.join(", ")
                    ),
                );
            }
        }
    }

    fn read(&mut self) -> Option<Circuit> {
        let doc = match DeTable::parse(self.text) {
            Ok(doc) => doc,
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                self.error(
                    span,
                    format!(
                        "TOML syntax error: {}",
                        e.message().trim().trim_end_matches('.')
                    ),
                );
                return None;
            }
        };
        let doc = doc.get_ref();
        self.keys(
            doc,
            &[
                "circuit",
                "experiment",
                "parts",
                "nodes",
                "inputs",
                "outputs",
            ],
            "the description",
        );
        let find = |name: &str| {
            doc.iter()
                .find(|(k, _)| k.get_ref() == name)
                .map(|(_, v)| v)
        };

        // [circuit]
        let mut name = String::new();
        let mut description = String::new();
        let mut circuit_span = 0..0;
        match find("circuit").map(|v| (v.span(), v.get_ref())) {
            None => self.error(
                0..0,
                "the description has no [circuit] table: add one with name = \"MyCircuit\" (the FMU's model identifier)".into(),
            ),
            Some((span, DeValue::Table(t))) => {
                circuit_span = span.clone();
                self.keys(t, &["name", "description"], "[circuit]");
                match t.iter().find(|(k, _)| k.get_ref() == "name") {
                    None => self.error(
                        span,
                        "[circuit] has no name: add name = \"MyCircuit\" (the FMU's model identifier)".into(),
                    ),
                    Some((_, v)) => {
                        if let Some(n) = self.string(v, "circuit name") {
                            if is_identifier(n) {
                                name = n.to_owned();
                            } else {
                                self.error(
                                    v.span(),
                                    format!(
                                        "the circuit name '{n}' is not a model identifier: use letters, digits and '_', not starting with a digit (as in PumpRelief)"
                                    ),
                                );
                            }
                        }
                    }
                }
                if let Some((_, v)) = t.iter().find(|(k, _)| k.get_ref() == "description")
                    && let Some(d) = self.string(v, "circuit description")
                {
                    description = d.to_owned();
                }
            }
            Some((span, other)) => self.error(
                span,
                format!("circuit must be a table ([circuit]), not {}", type_name(other)),
            ),
        }

        let experiment = match find("experiment") {
            Some(v) => self.experiment(v),
            None => Experiment::default(),
        };

        // [parts]
        let mut parts: Vec<PartEntry> = Vec::new();
        match find("parts").map(|v| (v.span(), v.get_ref())) {
            None => self.error(
                circuit_span.clone(),
                "the description has no parts: add a [parts.<name>] table with type = \"...\" for each part".into(),
            ),
            Some((_, DeValue::Table(t))) => {
                for (k, v) in entries(t) {
                    let entry = self.part(k, v);
                    parts.push(entry);
                }
            }
            Some((span, other)) => self.error(
                span,
                format!("parts must be tables ([parts.<name>]), not {}", type_name(other)),
            ),
        }

        // [[nodes]]
        let mut nodes: Vec<NodeEntry> = Vec::new();
        for (span, t) in self.array_of_tables(find("nodes"), "nodes") {
            self.keys(t, &["ports"], "a [[nodes]] entry");
            let Some((_, v)) = t.iter().find(|(k, _)| k.get_ref() == "ports") else {
                self.error(
                    span,
                    "this [[nodes]] entry has no ports: add ports = [\"part.port\", ...]".into(),
                );
                continue;
            };
            let DeValue::Array(list) = v.get_ref() else {
                self.error(
                    v.span(),
                    format!(
                        "ports must be an array of \"part.port\" strings, not {}",
                        type_name(v.get_ref())
                    ),
                );
                continue;
            };
            if list.len() < 2 {
                self.error(
                    v.span(),
                    "a node joins two ports or more: list the ports this one connects to (an FMU input binds a single port by itself)".into(),
                );
            }
            let mut node = NodeEntry {
                span: v.span(),
                ports: Vec::new(),
                incomplete: false,
            };
            for item in list.iter() {
                let Some(full) = self.string(item, "a port in a node") else {
                    node.incomplete = true;
                    continue;
                };
                let full = full.to_owned();
                match self.port(&parts, &full, item.span()) {
                    Some(at) => node.ports.push((at, item.span())),
                    None => node.incomplete = true,
                }
            }
            nodes.push(node);
        }
        // A port in two nodes (or twice in one).
        let mut seen: Vec<(PortAt, Range<usize>)> = Vec::new();
        for node in &nodes {
            for (at, span) in &node.ports {
                if let Some((_, first)) = seen.iter().find(|(p, _)| p == at) {
                    let line = self.line_of(first);
                    let name = port_name(&parts, *at);
                    self.error(
                        span.clone(),
                        format!(
                            "port {name} is already in the node at line {line}: list each port in one node only (a node may join any number of ports)"
                        ),
                    );
                } else {
                    seen.push((*at, span.clone()));
                }
            }
        }

        // [[inputs]]
        let mut inputs: Vec<InputEntry> = Vec::new();
        for (span, t) in self.array_of_tables(find("inputs"), "inputs") {
            if let Some(input) = self.input(&parts, span, t) {
                inputs.push(input);
            }
        }
        // [[outputs]]
        let mut outputs: Vec<OutputSpec> = Vec::new();
        let mut names: Vec<(String, Range<usize>)> = parts
            .iter()
            .map(|p| (p.name.clone(), p.span.clone()))
            .chain(inputs.iter().map(|i| (i.spec.name.clone(), i.span.clone())))
            .collect();
        for (span, t) in self.array_of_tables(find("outputs"), "outputs") {
            if let Some(o) = self.output(&parts, span.clone(), t) {
                names.push((o.name.clone(), span));
                outputs.push(o);
            }
        }
        self.unique(&names);

        // Connectivity and causality, node by node.
        let all_built = parts.iter().all(|p| p.part.is_some());
        self.check_nodes(&parts, &nodes, &inputs);
        if all_built && !parts.is_empty() {
            let states: usize = parts
                .iter()
                .filter_map(|p| p.part.as_ref())
                .map(|p| p.states().len())
                .sum();
            if states == 0 {
                self.error(
                    circuit_span.clone(),
                    "the circuit has no state, so there is nothing to integrate: add a part with states (a Chamber between the flow parts, an Accumulator, a ChamberCylinder, a Mass, an Inertia or a Spool)".into(),
                );
            }
        }

        if !self.diags.is_empty() {
            return None;
        }

        // Build with the compose Builder.
        let mut builder = Builder::new();
        let built: Vec<(String, &'static PartType, Arc<dyn Part>)> = parts
            .iter()
            .filter_map(|p| Some((p.name.clone(), p.kind?, p.part.clone()?)))
            .collect();
        let mut result: Result<(), String> = Ok(());
        for (n, _, p) in &built {
            if let Err(e) = builder.part(n, p.clone()) {
                result = Err(e);
            }
        }
        for node in &nodes {
            let names: Vec<String> = node
                .ports
                .iter()
                .map(|(at, _)| port_name(&parts, *at))
                .collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            if let (Ok(()), Err(e)) = (&result, builder.connect(&refs)) {
                result = Err(e);
            }
        }
        for input in &inputs {
            let bound = match &input.spec.target {
                InputTarget::Across { port, variable } => {
                    builder.input(&input.spec.name, port, variable).map(|_| ())
                }
                InputTarget::Through { port } => {
                    builder.input_through(&input.spec.name, port).map(|_| ())
                }
            };
            if let (Ok(()), Err(e)) = (&result, bound) {
                result = Err(e);
            }
        }
        let mut assembly = match result.and_then(|_| builder.build()) {
            Ok(a) => a,
            Err(e) => {
                self.error(circuit_span, format!("the circuit does not build: {e}"));
                return None;
            }
        };
        for p in &parts {
            let start = assembly.states_of(&p.name).map_or(0, |r| r.start);
            for &(k, x) in &p.nominal {
                if let Err(e) = assembly.set_nominal(start + k, x) {
                    self.error(p.span.clone(), format!("part '{}': {e}", p.name));
                }
            }
        }
        // Outputs of a state: its index in the assembly.
        for o in &mut outputs {
            if let OutputSource::State(local) = o.source {
                let part = o.of.split('.').next().unwrap_or("");
                let start = assembly.states_of(part).map_or(0, |r| r.start);
                o.source = OutputSource::State(start + local);
            }
        }
        // Outputs of a port: where the assembly's port values hold them.
        let output_slots = outputs
            .iter()
            .map(|o| match o.source {
                OutputSource::State(_) => None,
                OutputSource::Across {
                    part,
                    port,
                    variable,
                } => assembly.port_slot(part, port).map(|k| k + variable),
                OutputSource::Through { part, port } => {
                    let across = built[part].2.ports()[port].domain.across().len();
                    assembly.port_slot(part, port).map(|k| k + across)
                }
            })
            .collect();
        Some(Circuit {
            name,
            description,
            experiment,
            assembly,
            inputs: inputs.into_iter().map(|i| i.spec).collect(),
            outputs,
            parts: built,
            output_slots,
        })
    }

    fn experiment(&mut self, v: &Val<'_>) -> Experiment {
        let mut e = Experiment::default();
        let DeValue::Table(t) = v.get_ref() else {
            self.error(
                v.span(),
                format!(
                    "experiment must be a table ([experiment]), not {}",
                    type_name(v.get_ref())
                ),
            );
            return e;
        };
        self.keys(
            t,
            &["start_time", "stop_time", "step_size", "tolerance"],
            "[experiment]",
        );
        for (k, v) in entries(t) {
            match k.get_ref().as_ref() {
                "start_time" => {
                    if let Some(x) = self.quantity(v, "start_time", Dimension::TIME) {
                        e.start_time = x;
                    }
                }
                "stop_time" => e.stop_time = self.quantity(v, "stop_time", Dimension::TIME),
                "step_size" => {
                    e.step_size = self.quantity(v, "step_size", Dimension::TIME);
                    if e.step_size.is_some_and(|s| s <= 0.0) {
                        self.error(v.span(), "step_size must be positive".into());
                    }
                }
                "tolerance" => {
                    e.tolerance = self.quantity(v, "tolerance", Dimension::ONE);
                    // The range of the solver parameter rtol, whose start
                    // value the tolerance becomes.
                    let (lo, hi) = fmu_core::solver_params::rtol_range();
                    if let Some(t) = e.tolerance
                        && !(lo..=hi).contains(&t)
                    {
                        let (lo, hi) = (Number(lo), Number(hi));
                        self.error(
                            v.span(),
                            format!(
                                "tolerance {t} is outside the relative tolerances the \
                                 integrators take, {lo} to {hi}"
                            ),
                        );
                    }
                }
                _ => {}
            }
        }
        if let Some(stop) = e.stop_time
            && stop <= e.start_time
        {
            self.error(
                v.span(),
                format!(
                    "stop_time ({stop} s) must come after start_time ({} s)",
                    e.start_time
                ),
            );
        }
        e
    }

    fn array_of_tables<'v, 'i>(
        &mut self,
        v: Option<&'v Val<'i>>,
        what: &str,
    ) -> Vec<(Range<usize>, &'v DeTable<'i>)> {
        let Some(v) = v else { return Vec::new() };
        let DeValue::Array(list) = v.get_ref() else {
            self.error(
                v.span(),
                format!(
                    "{what} must be an array of tables ([[{what}]] entries), not {}",
                    type_name(v.get_ref())
                ),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in list.iter() {
            match item.get_ref() {
                DeValue::Table(t) => out.push((item.span(), t)),
                other => self.error(
                    item.span(),
                    format!(
                        "each {what} entry must be a table ([[{what}]]), not {}",
                        type_name(other)
                    ),
                ),
            }
        }
        out
    }

    fn part(&mut self, key: &Key<'_>, v: &Val<'_>) -> PartEntry {
        let name = key.get_ref().to_string();
        let mut entry = PartEntry {
            name: name.clone(),
            span: key.span(),
            kind: None,
            part: None,
            nominal: Vec::new(),
        };
        if !name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) || !is_identifier(&name) {
            self.error(
                key.span(),
                format!(
                    "the part name '{name}' is not allowed: use letters, digits and '_', starting with a letter (as in relief_1)"
                ),
            );
        }
        let DeValue::Table(t) = v.get_ref() else {
            self.error(
                v.span(),
                format!(
                    "part '{name}' must be a table ([parts.{name}] with type = \"...\"), not {}",
                    type_name(v.get_ref())
                ),
            );
            return entry;
        };
        let known: Vec<&str> = registry::part_types().iter().map(|t| t.name).collect();
        let Some((_, type_value)) = t.iter().find(|(k, _)| k.get_ref() == "type") else {
            self.error(
                key.span(),
                format!(
                    "part '{name}' has no type: add type = \"...\", one of {}",
                    known.join(", ")
                ),
            );
            return entry;
        };
        let Some(type_text) = self.string(type_value, &format!("the type of part '{name}'")) else {
            return entry;
        };
        let Some(kind) = registry::part_type(type_text) else {
            let hint = closest(type_text, known.iter().copied())
                .map(|c| format!("did you mean \"{c}\"? "))
                .unwrap_or_default();
            self.error(
                type_value.span(),
                format!(
                    "part '{name}': unknown part type \"{type_text}\": {hint}the known types are {}",
                    known.join(", ")
                ),
            );
            return entry;
        };
        entry.kind = Some(kind);
        let mut values = Values::default();
        let mut spans: Vec<(&'static str, Range<usize>)> = Vec::new();
        let mut ok = true;
        let mut nominal: Option<&Val<'_>> = None;
        let mut rejected: Vec<&str> = Vec::new();
        for (k, v) in entries(t) {
            let key_text = k.get_ref().as_ref();
            if key_text == "type" {
                continue;
            }
            if key_text == "nominal" {
                nominal = Some(v);
                continue;
            }
            let Some(p) = kind.parameter(key_text) else {
                let names: Vec<&str> = kind.parameters.iter().map(|p| p.name).collect();
                let hint = closest(key_text, names.iter().copied())
                    .map(|c| format!("did you mean '{c}'? "))
                    .unwrap_or_default();
                self.error(
                    k.span(),
                    format!(
                        "part '{name}' ({}) has no parameter '{key_text}': {hint}its parameters are {}",
                        kind.name,
                        describe_parameters(kind)
                    ),
                );
                ok = false;
                continue;
            };
            let dim = parse_unit(p.unit).map_or(Dimension::ONE, |u| u.dimension);
            match self.quantity(v, &format!("{name}.{} ({})", p.name, p.description), dim) {
                Some(x) => {
                    values.set(p.name, x);
                    spans.push((p.name, v.span()));
                }
                None => {
                    ok = false;
                    // Given, with its own message: not missing too.
                    rejected.push(p.name);
                }
            }
        }
        let mut missing = Vec::new();
        for p in kind.parameters {
            if values.opt(p.name).is_some() || rejected.contains(&p.name) {
                continue;
            }
            match p.need {
                Need::Required => {
                    missing.push(format!("{} ({}, {})", p.name, p.description, p.unit))
                }
                Need::Default(x) => values.set(p.name, x),
                Need::Optional => {}
            }
        }
        if !missing.is_empty() {
            self.error(
                key.span(),
                format!(
                    "part '{name}' ({}) is missing required parameter{} {}: add {}",
                    kind.name,
                    if missing.len() > 1 { "s" } else { "" },
                    missing.join(", "),
                    if missing.len() > 1 { "them" } else { "it" }
                ),
            );
            ok = false;
        }
        if !ok {
            return entry;
        }
        match kind.build(&values) {
            Ok(part) => {
                if let Some(v) = nominal {
                    entry.nominal = self.nominal(&name, part.as_ref(), v);
                }
                entry.part = Some(part);
            }
            Err(e) => {
                // Point at the parameter the part's message names, if any.
                let span = spans
                    .iter()
                    .find(|(n, _)| mentions(&e, n))
                    .map_or(key.span(), |(_, s)| s.clone());
                self.error(
                    span,
                    format!(
                        "part '{name}' ({}): {e}; change the value in [parts.{name}]",
                        kind.name
                    ),
                );
            }
        }
        entry
    }

    /// A part's `nominal = { state = value, ... }`: the magnitude each
    /// named state's error is measured in (a number in the state's SI unit,
    /// or a quantity with a unit), above zero.
    fn nominal(&mut self, name: &str, part: &dyn Part, v: &Val<'_>) -> Vec<(usize, f64)> {
        let states: Vec<&str> = part.states().iter().map(|s| s.name).collect();
        let DeValue::Table(t) = v.get_ref() else {
            self.error(
                v.span(),
                format!(
                    "nominal of part '{name}' must be a table of its states' magnitudes, as in \
                     nominal = {{ {} = 1e6 }}",
                    states.first().copied().unwrap_or("p")
                ),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, value) in entries(t) {
            let state = k.get_ref().as_ref();
            let Some(index) = states.iter().position(|s| *s == state) else {
                self.error(
                    k.span(),
                    format!(
                        "part '{name}' has no state '{state}' to give a nominal value: its states \
                         are {}",
                        if states.is_empty() {
                            "none".to_owned()
                        } else {
                            states.join(", ")
                        }
                    ),
                );
                continue;
            };
            let what = format!("the nominal value of {name}.{state}");
            let x = match value.get_ref() {
                DeValue::String(text) => match parse_quantity(text) {
                    Ok(q) => Some(q.si),
                    Err(e) => {
                        self.error(value.span(), format!("{what}: {e}"));
                        None
                    }
                },
                _ => self.quantity(value, &what, Dimension::ONE),
            };
            match x {
                Some(x) if x > 0.0 && x.is_finite() => out.push((index, x)),
                Some(_) => self.error(value.span(), format!("{what} must be above zero")),
                None => {}
            }
        }
        out
    }

    /// Resolves `part.port`, reporting what it does not name.
    fn port(&mut self, parts: &[PartEntry], full: &str, span: Range<usize>) -> Option<PortAt> {
        let Some((pname, port)) = full.split_once('.') else {
            self.error(
                span,
                format!("'{full}' names no port: write part.port (for example \"pump.P\")"),
            );
            return None;
        };
        let k = self.find_part(parts, pname, full, span.clone())?;
        let part = parts[k].part.as_ref()?;
        let ports = part.ports();
        match ports.iter().position(|q| q.name == port) {
            Some(j) => Some(PortAt { part: k, port: j }),
            None => {
                self.error(
                    span,
                    format!(
                        "'{full}': part '{pname}' ({}) has no port '{port}'{}: its ports are {}",
                        parts[k].kind.map_or("?", |t| t.name),
                        closest(port, ports.iter().map(|q| q.name))
                            .map(|c| format!(" (did you mean '{c}'?)"))
                            .unwrap_or_default(),
                        describe_ports(ports)
                    ),
                );
                None
            }
        }
    }

    fn find_part(
        &mut self,
        parts: &[PartEntry],
        pname: &str,
        full: &str,
        span: Range<usize>,
    ) -> Option<usize> {
        match parts.iter().position(|p| p.name == pname) {
            Some(k) => Some(k),
            None => {
                let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
                self.error(
                    span,
                    format!(
                        "'{full}': there is no part '{pname}'{}; the parts are {}",
                        closest(pname, names.iter().copied())
                            .map(|c| format!(" (did you mean '{c}'?)"))
                            .unwrap_or_default(),
                        if names.is_empty() {
                            "none yet".to_owned()
                        } else {
                            names.join(", ")
                        }
                    ),
                );
                None
            }
        }
    }

    /// Resolves an input's `sets` or an output's `of`.
    fn reference(
        &mut self,
        parts: &[PartEntry],
        full: &str,
        span: Range<usize>,
        states_allowed: bool,
        what: &str,
    ) -> Option<Resolved> {
        let pieces: Vec<&str> = full.split('.').collect();
        if pieces.len() < 2 || pieces.len() > 3 {
            self.error(
                span,
                format!(
                    "{what} '{full}' names nothing: write {}part.port or part.port.variable (as in \"relief.P.p\")",
                    if states_allowed { "part.state, " } else { "" }
                ),
            );
            return None;
        }
        let k = self.find_part(parts, pieces[0], full, span.clone())?;
        let (Some(part), Some(kind)) = (parts[k].part.as_ref(), parts[k].kind) else {
            return Some(Resolved::Unknown);
        };
        let ports = part.ports();
        let states: Vec<&str> = part.states().iter().map(|s| s.name).collect();
        let nothing = |this: &mut Self, why: String| {
            let mut known = Vec::new();
            if states_allowed && !states.is_empty() {
                known.push(format!("its states {}", states.join(", ")));
            }
            for q in ports {
                let mut vars: Vec<&str> = q.domain.across().to_vec();
                vars.extend(q.domain.through().map(|t| t.0));
                known.push(format!("{}.{}.{{{}}}", pieces[0], q.name, vars.join(",")));
            }
            this.error(
                span.clone(),
                format!(
                    "{what} '{full}' names nothing: {why}; part '{}' ({}) has {}",
                    pieces[0],
                    kind.name,
                    known.join(", ")
                ),
            );
        };
        if pieces.len() == 2 {
            if states_allowed && let Some(i) = states.iter().position(|s| *s == pieces[1]) {
                return Some(Resolved::State(k, i));
            }
            let Some(j) = ports.iter().position(|q| q.name == pieces[1]) else {
                nothing(self, format!("there is no port or state '{}'", pieces[1]));
                return None;
            };
            let across = ports[j].domain.across();
            if across.len() != 1 {
                nothing(
                    self,
                    format!(
                        "a {} port has several variables ({}): name one",
                        ports[j].domain.name(),
                        across.join(", ")
                    ),
                );
                return None;
            }
            return Some(Resolved::Across(PortAt { part: k, port: j }, 0));
        }
        let Some(j) = ports.iter().position(|q| q.name == pieces[1]) else {
            nothing(self, format!("there is no port '{}'", pieces[1]));
            return None;
        };
        let at = PortAt { part: k, port: j };
        let domain = ports[j].domain;
        if let Some(v) = domain.across().iter().position(|a| *a == pieces[2]) {
            return Some(Resolved::Across(at, v));
        }
        if domain.through().is_some_and(|t| t.0 == pieces[2]) {
            return Some(Resolved::Through(at));
        }
        nothing(
            self,
            format!("a {} port has no variable '{}'", domain.name(), pieces[2]),
        );
        None
    }

    /// Reads `unit` and `display_unit` of an input or output of dimension
    /// `dim` (SI unit `si`).
    fn units(
        &mut self,
        t: &DeTable<'_>,
        name: &str,
        dim: Dimension,
        si: &str,
    ) -> Option<Option<DisplayUnit>> {
        let mut ok = true;
        let mut display = None;
        for (k, v) in entries(t) {
            let key = k.get_ref().as_ref();
            if key != "unit" && key != "display_unit" {
                continue;
            }
            let Some(text) = self.string(v, &format!("{key} of '{name}'")) else {
                ok = false;
                continue;
            };
            let unit = match parse_unit(text) {
                Ok(u) => u,
                Err(e) => {
                    self.error(v.span(), format!("{key} of '{name}': {e}"));
                    ok = false;
                    continue;
                }
            };
            if unit.dimension != dim {
                self.error(
                    v.span(),
                    format!(
                        "{key} of '{name}' is \"{text}\", {}, but '{name}' is {}: use {}",
                        unit.dimension.describe(),
                        dim.describe(),
                        units_of(dim)
                    ),
                );
                ok = false;
                continue;
            }
            if key == "unit" {
                if unit.factor != 1.0 {
                    self.error(
                        v.span(),
                        format!(
                            "unit of '{name}' is \"{text}\", but FMU variables are in SI units: write unit = \"{si}\" and display_unit = \"{text}\""
                        ),
                    );
                    ok = false;
                }
            } else {
                display = Some(DisplayUnit {
                    name: text.to_owned(),
                    factor: unit.factor,
                });
            }
        }
        ok.then_some(display)
    }

    fn description(&mut self, t: &DeTable<'_>) -> String {
        match t.iter().find(|(k, _)| k.get_ref() == "description") {
            Some((_, v)) => self.string(v, "description").unwrap_or("").to_owned(),
            None => String::new(),
        }
    }

    /// The `name` of an input or output, checked.
    fn variable_name(&mut self, t: &DeTable<'_>, span: Range<usize>, what: &str) -> Option<String> {
        let Some((_, v)) = t.iter().find(|(k, _)| k.get_ref() == "name") else {
            self.error(
                span,
                format!("this [[{what}]] entry has no name: add name = \"...\""),
            );
            return None;
        };
        let n = self.string(v, &format!("the name of an {what} entry"))?;
        if !is_identifier(n) {
            self.error(
                v.span(),
                format!(
                    "the {what} name '{n}' is not allowed: use letters, digits and '_', not starting with a digit"
                ),
            );
            return None;
        }
        Some(n.to_owned())
    }

    fn required<'t, 'i>(
        &mut self,
        t: &'t DeTable<'i>,
        key: &str,
        span: Range<usize>,
        what: &str,
        example: &str,
    ) -> Option<&'t Val<'i>> {
        let found = t.iter().find(|(k, _)| k.get_ref() == key).map(|(_, v)| v);
        if found.is_none() {
            self.error(
                span,
                format!("this [[{what}]] entry has no {key}: add {key} = \"{example}\""),
            );
        }
        found
    }

    fn input(
        &mut self,
        parts: &[PartEntry],
        span: Range<usize>,
        t: &DeTable<'_>,
    ) -> Option<InputEntry> {
        self.keys(
            t,
            &[
                "name",
                "sets",
                "unit",
                "display_unit",
                "start",
                "description",
            ],
            "an [[inputs]] entry",
        );
        let name = self.variable_name(t, span.clone(), "inputs");
        let sets = self.required(t, "sets", span.clone(), "inputs", "part.port");
        let (name, sets) = (name?, sets?);
        let full = self
            .string(sets, &format!("sets of input '{name}'"))?
            .to_owned();
        let resolved = self.reference(
            parts,
            &full,
            sets.span(),
            false,
            &format!("input '{name}': sets"),
        )?;
        let description = self.description(t);
        let (at, variable) = match resolved {
            Resolved::Unknown => {
                return Some(InputEntry {
                    spec: InputSpec {
                        name,
                        target: InputTarget::Through { port: full },
                        unit: String::new(),
                        display_unit: None,
                        start: 0.0,
                        description,
                    },
                    span,
                    at: None,
                });
            }
            Resolved::Across(at, v) => (at, Some(v)),
            Resolved::Through(at) => (at, None),
            Resolved::State(..) => return None,
        };
        let port = port_spec(parts, at)?;
        let port_full = port_name(parts, at);
        let (dim, si, target) = match variable {
            Some(v) => {
                let si = signal_si(t, across_unit(port.domain, v));
                (
                    dimension_of(&si),
                    si,
                    InputTarget::Across {
                        port: port_full,
                        variable: port.domain.across()[v].to_owned(),
                    },
                )
            }
            None => {
                let si = port.domain.through().map_or("1", |t| t.1).to_owned();
                (
                    dimension_of(&si),
                    si,
                    InputTarget::Through { port: port_full },
                )
            }
        };
        let display = self.units(t, &name, dim, &si);
        let start = match t.iter().find(|(k, _)| k.get_ref() == "start") {
            Some((_, v)) => self.quantity(v, &format!("start of input '{name}'"), dim),
            None => Some(0.0),
        };
        Some(InputEntry {
            spec: InputSpec {
                name,
                target,
                unit: si,
                display_unit: display?,
                start: start?,
                description,
            },
            span,
            at: Some((at, variable)),
        })
    }

    fn output(
        &mut self,
        parts: &[PartEntry],
        span: Range<usize>,
        t: &DeTable<'_>,
    ) -> Option<OutputSpec> {
        self.keys(
            t,
            &["name", "of", "unit", "display_unit", "description"],
            "an [[outputs]] entry",
        );
        let name = self.variable_name(t, span.clone(), "outputs");
        let of = self.required(t, "of", span, "outputs", "part.state");
        let (name, of) = (name?, of?);
        let full = self
            .string(of, &format!("of of output '{name}'"))?
            .to_owned();
        let resolved = self.reference(
            parts,
            &full,
            of.span(),
            true,
            &format!("output '{name}': of"),
        )?;
        let (source, si) = match resolved {
            Resolved::Unknown => return None,
            Resolved::State(k, i) => (
                OutputSource::State(i),
                match (parts[k].kind, parts[k].part.as_ref()) {
                    (Some(kind), Some(part)) => {
                        kind.state_unit(part.states()[i].name).unwrap_or("1")
                    }
                    _ => "1",
                },
            ),
            Resolved::Across(at, v) => (
                OutputSource::Across {
                    part: at.part,
                    port: at.port,
                    variable: v,
                },
                match port_spec(parts, at)?.domain {
                    Domain::Signal => crate::registry::signal_unit(
                        parts[at.part].kind.map_or("", |kind| kind.name),
                        port_spec(parts, at)?.name,
                    ),
                    domain => across_unit(domain, v),
                },
            ),
            Resolved::Through(at) => (
                OutputSource::Through {
                    part: at.part,
                    port: at.port,
                },
                port_spec(parts, at)?.domain.through().map_or("1", |t| t.1),
            ),
        };
        let si = signal_si(t, si);
        let display = self.units(t, &name, dimension_of(&si), &si)?;
        Some(OutputSpec {
            name,
            of: full,
            source,
            unit: si,
            display_unit: display,
            description: self.description(t),
        })
    }

    /// The checks of the builder, node by node, each reported at its node:
    /// unconnected ports, domains mixed, across values set twice or not at
    /// all (the causality conflict).
    fn check_nodes(&mut self, parts: &[PartEntry], nodes: &[NodeEntry], inputs: &[InputEntry]) {
        let mut members: Vec<(Vec<PortAt>, Range<usize>)> = nodes
            .iter()
            .map(|n| (n.ports.iter().map(|(a, _)| *a).collect(), n.span.clone()))
            .collect();
        // A node listing a port that could not be resolved (a part that did
        // not build, a misspelt port: reported already) is left out of the
        // causality checks: what sets its pressure is not known.
        let incomplete: Vec<Range<usize>> = (nodes.iter())
            .filter(|n| n.incomplete)
            .map(|n| n.span.clone())
            .collect();
        // A port bound by an input and in no node is a node of its own.
        for i in inputs {
            if let Some((at, _)) = i.at
                && !members.iter().any(|(m, _)| m.contains(&at))
            {
                members.push((vec![at], i.span.clone()));
            }
        }
        // Unconnected ports.
        for (k, p) in parts.iter().enumerate() {
            let Some(part) = &p.part else { continue };
            for (j, q) in part.ports().iter().enumerate() {
                let at = PortAt { part: k, port: j };
                if q.optional || members.iter().any(|(m, _)| m.contains(&at)) {
                    continue;
                }
                self.error(
                    p.span.clone(),
                    format!(
                        "port {}.{} ({}) is not connected: add it to a [[nodes]] entry with the ports it joins{}",
                        p.name,
                        q.name,
                        q.description,
                        if q.domain == Domain::Signal && !q.sets_across() {
                            format!(", or bind an FMU input to it ([[inputs]] sets = \"{}.{}\")", p.name, q.name)
                        } else {
                            String::new()
                        }
                    ),
                );
            }
        }
        for (list, span) in &members {
            if incomplete.contains(span) {
                continue;
            }
            let Some(&first) = list.first() else { continue };
            let Some(first_port) = port_spec(parts, first) else {
                continue;
            };
            let domain = first_port.domain;
            if let Some(other) = list
                .iter()
                .find(|a| port_spec(parts, **a).is_some_and(|q| q.domain != domain))
            {
                let other_domain = port_spec(parts, *other).map_or("?", |q| q.domain.name());
                self.error(
                    span.clone(),
                    format!(
                        "this node joins the {} port {} and the {} port {}: a node joins ports of one domain; split it into one node per domain",
                        domain.name(),
                        port_name(parts, first),
                        other_domain,
                        port_name(parts, *other)
                    ),
                );
                continue;
            }
            let setters: Vec<PortAt> = list
                .iter()
                .copied()
                .filter(|a| port_spec(parts, *a).is_some_and(|q| q.sets_across()))
                .collect();
            let bound: Vec<(usize, &InputEntry, usize)> = inputs
                .iter()
                .enumerate()
                .filter_map(|(i, e)| match e.at {
                    Some((at, Some(v))) if list.contains(&at) => Some((i, e, v)),
                    _ => None,
                })
                .collect();
            let external: Vec<usize> = inputs
                .iter()
                .enumerate()
                .filter(|(_, e)| matches!(e.at, Some((at, None)) if list.contains(&at)))
                .map(|(i, _)| i)
                .collect();
            let flow_setters: Vec<String> = list
                .iter()
                .filter(|a| {
                    port_spec(parts, **a).is_some_and(|q| q.causality == Causality::SetsThrough)
                })
                .map(|a| port_name(parts, *a))
                .collect();
            let node_names: Vec<String> = list.iter().map(|a| port_name(parts, *a)).collect();
            let across = domain.across();
            let what = across.join(" and ");
            match (setters.as_slice(), bound.is_empty()) {
                ([_], true) => {}
                ([], false) => {
                    let mut slots = vec![None; across.len()];
                    let mut fine = true;
                    for (i, e, v) in &bound {
                        if let Some(other) = slots[*v] {
                            let other: &InputEntry = &inputs[other];
                            self.error(
                                e.span.clone(),
                                format!(
                                    "inputs '{}' and '{}' both set {} at the node of {}: keep one",
                                    other.spec.name,
                                    e.spec.name,
                                    across[*v],
                                    node_names.join(", ")
                                ),
                            );
                            fine = false;
                        } else {
                            slots[*v] = Some(*i);
                        }
                    }
                    if fine && let Some(v) = slots.iter().position(Option::is_none) {
                        self.error(
                            bound[0].1.span.clone(),
                            format!(
                                "input '{}' sets {} at the node of {}, but nothing sets {}: bind an input to it too",
                                bound[0].1.spec.name,
                                across[bound[0].2],
                                node_names.join(", "),
                                across[v]
                            ),
                        );
                        fine = false;
                    }
                    if fine && !external.is_empty() {
                        self.error(
                            inputs[external[0]].span.clone(),
                            format!(
                                "input '{}' delivers the {} into the node of {}, whose {} also comes from an input: one side must come from a part",
                                inputs[external[0]].spec.name,
                                domain.through().map_or("", |t| t.0),
                                node_names.join(", "),
                                what
                            ),
                        );
                    }
                }
                ([], true) => {
                    let through_count = flow_setters.len() + external.len();
                    let message = match domain {
                        Domain::Signal => format!(
                            "the signal at {} has no source: bind an FMU input to it ([[inputs]] sets = \"{}\") or connect a part that sets it (a Spool's Us)",
                            node_names.join(", "),
                            node_names[0]
                        ),
                        Domain::Hydraulic if through_count >= 2 => {
                            let owners: Vec<&str> = flow_setters
                                .iter()
                                .map(|n| n.split('.').next().unwrap_or(""))
                                .collect();
                            format!(
                                "causality conflict at the node of {}: {} each set the flow there and nothing sets the pressure; put a volume between them: add a part with type = \"Chamber\" (and its V) and list its port A in this node",
                                node_names.join(", "),
                                if owners.len() == 2 {
                                    format!("'{}' and '{}'", owners[0], owners[1])
                                } else {
                                    owners
                                        .iter()
                                        .map(|o| format!("'{o}'"))
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                }
                            )
                        }
                        _ => format!(
                            "nothing sets the {what} at the node of {}: add a part that does ({}) to this node, or bind an FMU input to it",
                            node_names.join(", "),
                            match domain {
                                Domain::Hydraulic => "a Chamber, Tank or PressureSource",
                                Domain::Translational => "a Mass",
                                Domain::Rotational => "an Inertia",
                                Domain::Signal => "a Spool",
                            }
                        ),
                    };
                    self.error(span.clone(), message);
                }
                (many, _) => {
                    let mut who: Vec<String> = many.iter().map(|a| port_name(parts, *a)).collect();
                    who.extend(
                        bound
                            .iter()
                            .map(|(_, e, _)| format!("input '{}'", e.spec.name)),
                    );
                    let at = bound
                        .first()
                        .map_or(span.clone(), |(_, e, _)| e.span.clone());
                    self.error(
                        at,
                        format!(
                            "the {what} at the node of {} is set twice, by {}: a node takes its {what} from one part or input; put a flow part (an Orifice) between them{}",
                            node_names.join(", "),
                            who.join(" and "),
                            if bound.is_empty() { "" } else { ", or drop the input" }
                        ),
                    );
                }
            }
        }
    }

    fn unique(&mut self, names: &[(String, Range<usize>)]) {
        for (i, (n, span)) in names.iter().enumerate() {
            if let Some((_, first)) = names[..i].iter().find(|(m, _)| m == n) {
                let line = self.line_of(first);
                self.error(
                    span.clone(),
                    format!(
                        "the name '{n}' is already used at line {line}: parts, inputs and outputs need names of their own"
                    ),
                );
            }
        }
    }
}

/// Whether message `e` names the parameter `name` as a word.
fn mentions(e: &str, name: &str) -> bool {
    e.match_indices(name).any(|(i, _)| {
        let before = e[..i].chars().next_back();
        let after = e[i + name.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

fn port_spec(parts: &[PartEntry], at: PortAt) -> Option<Port> {
    parts
        .get(at.part)?
        .part
        .as_ref()?
        .ports()
        .get(at.port)
        .copied()
}

fn port_name(parts: &[PartEntry], at: PortAt) -> String {
    format!(
        "{}.{}",
        parts.get(at.part).map_or("?", |p| p.name.as_str()),
        port_spec(parts, at).map_or("?", |q| q.name)
    )
}

/// The SI unit of across variable `v` of `domain`; a signal is in volts
/// (the library's signals are valve commands).
fn across_unit(domain: Domain, v: usize) -> &'static str {
    match domain {
        Domain::Signal => "V",
        d => d.across_units().get(v).copied().unwrap_or("1"),
    }
}

/// The SI unit an input or output entry `t` of a signal (whose unit
/// is otherwise `si` = "V") declares: a signal carries whatever its parts
/// make of it (a command as a fraction of full travel, a spool's travel in
/// m), so an entry on one may name any SI unit. `si` otherwise.
fn signal_si(t: &DeTable<'_>, si: &'static str) -> String {
    let declared = entries(t)
        .into_iter()
        .find(|(k, _)| k.get_ref().as_ref() == "unit")
        .and_then(|(_, v)| v.get_ref().as_str().map(str::to_owned));
    match declared {
        Some(unit) if si == "V" && parse_unit(&unit).is_ok_and(|u| u.factor == 1.0) => unit,
        _ => si.to_owned(),
    }
}

fn dimension_of(si: &str) -> Dimension {
    parse_unit(si).map_or(Dimension::ONE, |u| u.dimension)
}

fn example(dim: Dimension) -> String {
    match UNITS
        .iter()
        .find(|(_, f, d)| *d == dim && f.factor() != 1.0)
    {
        Some((n, _, _)) => format!("2 {n}"),
        None => format!("2 {}", dim.si()),
    }
}

fn describe_parameters(kind: &PartType) -> String {
    kind.parameters
        .iter()
        .map(|p| {
            format!(
                "{} ({}{})",
                p.name,
                p.unit,
                match p.need {
                    Need::Required => ", required",
                    _ => "",
                }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn describe_ports(ports: &[Port]) -> String {
    ports
        .iter()
        .map(|q| format!("{} ({})", q.name, q.domain.name()))
        .collect::<Vec<_>>()
        .join(", ")
}
