//! Reads an FMI 2.0 or FMI 3.0 Co-Simulation `modelDescription.xml` back into
//! plain data, for tests and tools (packaging checks, validation runners).

use std::collections::BTreeMap;

use quick_xml::Reader;
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};

use crate::model::{Capabilities, Causality, Initial, LogCategory, Variability};
use crate::units::BaseUnit;

/// Why a `modelDescription.xml` could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The text is not well-formed XML.
    #[error("malformed XML at byte {position}: {message}")]
    Xml {
        /// Byte offset in the input where the problem was found.
        position: u64,
        /// What quick-xml reported.
        message: String,
    },
    /// The root element is not `fmiModelDescription`.
    #[error("the root element is <{0}>, not <fmiModelDescription>")]
    NotAModelDescription(String),
    /// `fmiVersion` is neither 2.0 nor 3.x.
    #[error("unsupported fmiVersion {0:?} (expected \"2.0\" or \"3.x\")")]
    UnsupportedVersion(String),
    /// A required element is absent.
    #[error("missing element <{0}>")]
    MissingElement(String),
    /// A required attribute is absent.
    #[error("<{element}> has no {attribute} attribute")]
    MissingAttribute {
        /// The element (with the variable name where there is one).
        element: String,
        /// The attribute's name.
        attribute: String,
    },
    /// An attribute's value cannot be understood.
    #[error("<{element}> has an invalid {attribute}={value:?}")]
    InvalidValue {
        /// The element (with the variable name where there is one).
        element: String,
        /// The attribute's name.
        attribute: String,
        /// The value as found.
        value: String,
    },
    /// An index or value reference in `ModelStructure` names no variable.
    #[error("ModelStructure refers to {0}, which is not a variable")]
    BadReference(String),
}

/// The data type of a variable as read (FMI 2 `Real`/`Integer`/`Boolean`,
/// FMI 3 `Float64`/`Int32`/`Boolean`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParsedType {
    /// FMI 2 `Real`, FMI 3 `Float64`.
    Real,
    /// FMI 2 `Integer`, FMI 3 `Int32`.
    Integer,
    /// `Boolean`.
    Boolean,
    /// Any other type, by its element name (`String`, `Float32`, ...).
    Other(String),
}

/// One variable as read from `ModelVariables`.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedVariable {
    /// Name.
    pub name: String,
    /// Value reference.
    pub value_reference: u32,
    /// Description (empty when the attribute is absent).
    pub description: String,
    /// Causality (`local` when absent, as the standard says).
    pub causality: Causality,
    /// Variability (the standard's default when absent).
    pub variability: Variability,
    /// The `initial` in force: the attribute, or the standard's default for
    /// the causality and variability ([`Initial::default_for`]).
    pub initial: Option<Initial>,
    /// The `initial` attribute exactly as written (`None` when absent).
    pub initial_attribute: Option<Initial>,
    /// Data type.
    pub kind: ParsedType,
    /// Start value as a number (Booleans as 0/1), in the SI unit.
    pub start: Option<f64>,
    /// Smallest allowed value.
    pub min: Option<f64>,
    /// Largest allowed value.
    pub max: Option<f64>,
    /// Nominal magnitude.
    pub nominal: Option<f64>,
    /// Unit name.
    pub unit: Option<String>,
    /// Display unit name.
    pub display_unit: Option<String>,
    /// FMI 3 `structuralParameter` (read as a parameter with this flag).
    pub structural: bool,
    /// For a state derivative: the value reference of its state (FMI 3
    /// `derivative`; FMI 2's index turned into the value reference).
    pub derivative: Option<u32>,
}

/// One `ModelStructure` entry (FMI 2 `Unknown`, FMI 3 `Output` /
/// `InitialUnknown`), with indices already turned into value references.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedUnknown {
    /// Value reference of the unknown.
    pub value_reference: u32,
    /// Value references it depends on; `None` when the attribute is absent
    /// (meaning "depends on everything").
    pub dependencies: Option<Vec<u32>>,
    /// The `dependenciesKind` list as written.
    pub dependencies_kind: Option<Vec<String>>,
}

/// A display unit as read from `UnitDefinitions`.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedDisplayUnit {
    /// Name, e.g. `bar`.
    pub name: String,
    /// `display = factor * si + offset`.
    pub factor: f64,
    /// `display = factor * si + offset`.
    pub offset: f64,
    /// FMI 3 `inverse` (display = 1 / value); always false in FMI 2.
    pub inverse: bool,
}

/// A unit as read from `UnitDefinitions`.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedUnit {
    /// Base-unit exponents, if a `<BaseUnit>` is given.
    pub base: Option<BaseUnit>,
    /// `BaseUnit` factor (1 when absent).
    pub base_factor: f64,
    /// `BaseUnit` offset (0 when absent).
    pub base_offset: f64,
    /// Display units in document order.
    pub display_units: Vec<ParsedDisplayUnit>,
}

impl ParsedUnit {
    /// Looks up a display unit by name.
    pub fn display_unit(&self, name: &str) -> Option<&ParsedDisplayUnit> {
        self.display_units.iter().find(|d| d.name == name)
    }
}

/// `DefaultExperiment` as read; each attribute is optional in the schema.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ParsedExperiment {
    /// Start time in s.
    pub start_time: Option<f64>,
    /// Stop time in s.
    pub stop_time: Option<f64>,
    /// Relative tolerance.
    pub tolerance: Option<f64>,
    /// Communication step size in s.
    pub step_size: Option<f64>,
}

/// The content of an FMI 2.0 or 3.0 Co-Simulation `modelDescription.xml`.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedDescription {
    /// `fmiVersion` as written (`2.0`, `3.0`).
    pub fmi_version: String,
    /// `modelName`.
    pub model_name: String,
    /// `modelIdentifier` of the `CoSimulation` element.
    pub model_identifier: String,
    /// FMI 2 `guid` or FMI 3 `instantiationToken`.
    pub token: String,
    /// Root `description`.
    pub description: Option<String>,
    /// Root `version`.
    pub version: Option<String>,
    /// Root `generationTool`.
    pub generation_tool: Option<String>,
    /// Root `variableNamingConvention`.
    pub variable_naming_convention: Option<String>,
    /// The four capability flags of [`Capabilities`], mapped from each
    /// version's attribute names (absent means false, the schema default).
    pub capabilities: Capabilities,
    /// Every attribute of the `CoSimulation` element, as written.
    pub co_simulation_attributes: BTreeMap<String, String>,
    /// `DefaultExperiment`, if present.
    pub default_experiment: Option<ParsedExperiment>,
    /// `LogCategories` in document order.
    pub log_categories: Vec<LogCategory>,
    /// `UnitDefinitions` by unit name.
    pub unit_definitions: BTreeMap<String, ParsedUnit>,
    /// `ModelVariables` in document order.
    pub variables: Vec<ParsedVariable>,
    /// `ModelStructure` outputs, dependencies as value references.
    pub outputs: Vec<ParsedUnknown>,
    /// `ModelStructure` initial unknowns, as value references in document order.
    pub initial_unknowns: Vec<u32>,
    /// Whether a `ModelExchange` element is present.
    pub model_exchange: bool,
}

impl ParsedDescription {
    /// Looks up a variable by value reference.
    pub fn variable(&self, vr: u32) -> Option<&ParsedVariable> {
        self.variables.iter().find(|v| v.value_reference == vr)
    }

    /// Looks up a variable by name.
    pub fn variable_by_name(&self, name: &str) -> Option<&ParsedVariable> {
        self.variables.iter().find(|v| v.name == name)
    }

    /// The continuous states for Model Exchange, in the order of their
    /// derivatives in `ModelVariables`: (state, derivative) value
    /// references.
    pub fn continuous_states(&self) -> Vec<(u32, u32)> {
        self.variables
            .iter()
            .filter_map(|v| Some((v.derivative?, v.value_reference)))
            .collect()
    }

    /// A Boolean attribute of the `CoSimulation` element (`None` when absent
    /// or not a Boolean).
    pub fn flag(&self, attribute: &str) -> Option<bool> {
        self.co_simulation_attributes
            .get(attribute)
            .and_then(|v| parse_bool(v))
    }

    /// The output entry of a value reference.
    pub fn output(&self, vr: u32) -> Option<&ParsedUnknown> {
        self.outputs.iter().find(|u| u.value_reference == vr)
    }
}

/// A minimal element tree: names, attributes (unescaped) and children.
#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Node>,
}

impl Node {
    pub(crate) fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    pub(crate) fn children_named<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = &'a Node> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// A label for messages: the element name, with `name="..."` if present.
    pub(crate) fn label(&self) -> String {
        match self.attr("name") {
            Some(n) => format!("{} name=\"{n}\"", self.name),
            None => self.name.clone(),
        }
    }

    pub(crate) fn required(&self, key: &str) -> Result<&str, ParseError> {
        self.attr(key).ok_or_else(|| ParseError::MissingAttribute {
            element: self.label(),
            attribute: key.to_owned(),
        })
    }

    fn invalid(&self, key: &str, value: &str) -> ParseError {
        ParseError::InvalidValue {
            element: self.label(),
            attribute: key.to_owned(),
            value: value.to_owned(),
        }
    }

    fn parse_with<T>(
        &self,
        key: &str,
        f: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<T>, ParseError> {
        match self.attr(key) {
            None => Ok(None),
            Some(s) => f(s.trim()).map(Some).ok_or_else(|| self.invalid(key, s)),
        }
    }

    fn f64_attr(&self, key: &str) -> Result<Option<f64>, ParseError> {
        self.parse_with(key, parse_f64)
    }

    fn u32_attr(&self, key: &str) -> Result<Option<u32>, ParseError> {
        self.parse_with(key, |s| s.parse().ok())
    }

    fn u32_list(&self, key: &str) -> Result<Option<Vec<u32>>, ParseError> {
        self.parse_with(key, |s| {
            s.split_whitespace()
                .map(|x| x.parse().ok())
                .collect::<Option<Vec<u32>>>()
        })
    }

    fn string_list(&self, key: &str) -> Option<Vec<String>> {
        self.attr(key)
            .map(|s| s.split_whitespace().map(str::to_owned).collect())
    }
}

/// XML Schema `double`: decimal or exponent notation, `INF`, `-INF`, `NaN`.
fn parse_f64(s: &str) -> Option<f64> {
    match s {
        "INF" | "+INF" => Some(f64::INFINITY),
        "-INF" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ if s.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c)) => s.parse().ok(),
        _ => None,
    }
}

/// XML Schema `boolean`.
fn parse_bool(s: &str) -> Option<bool> {
    match s.trim() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

fn attributes_of(e: &BytesStart<'_>, position: u64) -> Result<Vec<(String, String)>, ParseError> {
    let xml_err = |message: String| ParseError::Xml { position, message };
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|err| xml_err(err.to_string()))?;
        let value = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|err| xml_err(err.to_string()))?;
        attrs.push((a.key.as_ref().to_owned(), value.into_owned()));
    }
    Ok(attrs)
}

/// Parses the whole document into a [`Node`] tree and returns the root.
pub(crate) fn parse_tree(xml: &str) -> Result<Node, ParseError> {
    let mut reader = Reader::from_str(xml);
    let mut stack: Vec<Node> = Vec::new();
    let mut root: Option<Node> = None;
    loop {
        let position = reader.buffer_position();
        let event = reader.read_event().map_err(|err| ParseError::Xml {
            position: reader.error_position(),
            message: err.to_string(),
        })?;
        let finished = match event {
            Event::Start(e) => {
                stack.push(Node {
                    name: e.name().as_ref().to_owned(),
                    attrs: attributes_of(&e, position)?,
                    children: Vec::new(),
                });
                None
            }
            Event::Empty(e) => Some(Node {
                name: e.name().as_ref().to_owned(),
                attrs: attributes_of(&e, position)?,
                children: Vec::new(),
            }),
            Event::End(_) => stack.pop(),
            Event::Eof => break,
            _ => None,
        };
        if let Some(node) = finished {
            match stack.last_mut() {
                Some(parent) => parent.children.push(node),
                None if root.is_none() => root = Some(node),
                None => {
                    return Err(ParseError::Xml {
                        position,
                        message: "more than one root element".to_owned(),
                    });
                }
            }
        }
    }
    if !stack.is_empty() {
        return Err(ParseError::Xml {
            position: reader.buffer_position(),
            message: format!("unclosed element <{}>", stack[stack.len() - 1].name),
        });
    }
    root.ok_or_else(|| ParseError::MissingElement("fmiModelDescription".to_owned()))
}

/// Reads an FMI 2.0 or FMI 3.0 Co-Simulation `modelDescription.xml` (the
/// version is taken from `fmiVersion`). Index-based references of FMI 2
/// (`ModelStructure`) are turned into value references, so both versions
/// give the same [`ParsedDescription`] for the same model, apart from
/// `fmi_version` and the version-specific `co_simulation_attributes`.
///
/// Only the structure is checked here (required attributes present, numbers
/// and enumerations readable, references resolvable); schema validation is
/// left to dedicated tools.
pub fn parse_model_description(xml: &str) -> Result<ParsedDescription, ParseError> {
    let root = parse_tree(xml)?;
    if root.name != "fmiModelDescription" {
        return Err(ParseError::NotAModelDescription(root.name));
    }
    let fmi_version = root.required("fmiVersion")?.to_owned();
    let fmi3 = if fmi_version == "2.0" {
        false
    } else if fmi_version.starts_with("3.") {
        true
    } else {
        return Err(ParseError::UnsupportedVersion(fmi_version));
    };

    let token = root
        .required(if fmi3 { "instantiationToken" } else { "guid" })?
        .to_owned();

    let cs = root
        .child("CoSimulation")
        .ok_or_else(|| ParseError::MissingElement("CoSimulation".to_owned()))?;
    let model_identifier = cs.required("modelIdentifier")?.to_owned();
    let flag = |name: &str| -> Result<bool, ParseError> {
        Ok(cs.parse_with(name, parse_bool)?.unwrap_or(false))
    };
    let capabilities = Capabilities {
        can_handle_variable_communication_step_size: flag(
            "canHandleVariableCommunicationStepSize",
        )?,
        can_get_and_set_fmu_state: flag(if fmi3 {
            "canGetAndSetFMUState"
        } else {
            "canGetAndSetFMUstate"
        })?,
        can_serialize_fmu_state: flag(if fmi3 {
            "canSerializeFMUState"
        } else {
            "canSerializeFMUstate"
        })?,
        provides_directional_derivative: flag(if fmi3 {
            "providesDirectionalDerivatives"
        } else {
            "providesDirectionalDerivative"
        })?,
    };

    let default_experiment = root
        .child("DefaultExperiment")
        .map(|e| -> Result<ParsedExperiment, ParseError> {
            Ok(ParsedExperiment {
                start_time: e.f64_attr("startTime")?,
                stop_time: e.f64_attr("stopTime")?,
                tolerance: e.f64_attr("tolerance")?,
                step_size: e.f64_attr("stepSize")?,
            })
        })
        .transpose()?;

    let mut log_categories = Vec::new();
    if let Some(lc) = root.child("LogCategories") {
        for c in lc.children_named("Category") {
            log_categories.push(LogCategory {
                name: c.required("name")?.to_owned(),
                description: c.attr("description").unwrap_or_default().to_owned(),
            });
        }
    }

    let unit_definitions = read_units(&root)?;

    let model_variables = root
        .child("ModelVariables")
        .ok_or_else(|| ParseError::MissingElement("ModelVariables".to_owned()))?;
    let variables = model_variables
        .children
        .iter()
        .filter(|n| !fmi3 || n.name != "Annotations")
        .filter(|n| fmi3 || n.name == "ScalarVariable")
        .map(|n| read_variable(n, fmi3))
        .collect::<Result<Vec<_>, _>>()?;
    let mut variables = variables;
    if !fmi3 {
        let vrs: Vec<u32> = variables.iter().map(|v| v.value_reference).collect();
        for v in &mut variables {
            if let Some(index) = v.derivative {
                let vr = (index as usize)
                    .checked_sub(1)
                    .and_then(|i| vrs.get(i))
                    .ok_or_else(|| {
                        ParseError::BadReference(format!(
                            "index {index} (derivative of {})",
                            v.name
                        ))
                    })?;
                v.derivative = Some(*vr);
            }
        }
    }

    let (outputs, initial_unknowns) = match root.child("ModelStructure") {
        None => (Vec::new(), Vec::new()),
        Some(ms) if fmi3 => read_structure_fmi3(ms, &variables)?,
        Some(ms) => read_structure_fmi2(ms, &variables)?,
    };

    Ok(ParsedDescription {
        fmi_version,
        model_name: root.required("modelName")?.to_owned(),
        model_identifier,
        token,
        description: root.attr("description").map(str::to_owned),
        version: root.attr("version").map(str::to_owned),
        generation_tool: root.attr("generationTool").map(str::to_owned),
        variable_naming_convention: root.attr("variableNamingConvention").map(str::to_owned),
        capabilities,
        co_simulation_attributes: cs.attrs.iter().cloned().collect(),
        default_experiment,
        log_categories,
        unit_definitions,
        variables,
        outputs,
        initial_unknowns,
        model_exchange: root.child("ModelExchange").is_some(),
    })
}

fn read_units(root: &Node) -> Result<BTreeMap<String, ParsedUnit>, ParseError> {
    let mut units = BTreeMap::new();
    let Some(defs) = root.child("UnitDefinitions") else {
        return Ok(units);
    };
    for u in defs.children_named("Unit") {
        let name = u.required("name")?.to_owned();
        let (base, base_factor, base_offset) = match u.child("BaseUnit") {
            None => (None, 1.0, 0.0),
            Some(b) => {
                let e = |k: &str| -> Result<i32, ParseError> {
                    Ok(b.parse_with(k, |s| s.parse().ok())?.unwrap_or(0))
                };
                let base = BaseUnit {
                    kg: e("kg")?,
                    m: e("m")?,
                    s: e("s")?,
                    a: e("A")?,
                    k: e("K")?,
                    mol: e("mol")?,
                    cd: e("cd")?,
                    rad: e("rad")?,
                };
                (
                    Some(base),
                    b.f64_attr("factor")?.unwrap_or(1.0),
                    b.f64_attr("offset")?.unwrap_or(0.0),
                )
            }
        };
        let mut display_units = Vec::new();
        for d in u.children_named("DisplayUnit") {
            display_units.push(ParsedDisplayUnit {
                name: d.required("name")?.to_owned(),
                factor: d.f64_attr("factor")?.unwrap_or(1.0),
                offset: d.f64_attr("offset")?.unwrap_or(0.0),
                inverse: d.parse_with("inverse", parse_bool)?.unwrap_or(false),
            });
        }
        units.insert(
            name,
            ParsedUnit {
                base,
                base_factor,
                base_offset,
                display_units,
            },
        );
    }
    Ok(units)
}

/// One variable: FMI 2 `ScalarVariable` with its type child, or an FMI 3
/// type element carrying everything itself.
fn read_variable(n: &Node, fmi3: bool) -> Result<ParsedVariable, ParseError> {
    let name = n.required("name")?.to_owned();
    let value_reference =
        n.u32_attr("valueReference")?
            .ok_or_else(|| ParseError::MissingAttribute {
                element: n.label(),
                attribute: "valueReference".to_owned(),
            })?;
    let typed = if fmi3 {
        n
    } else {
        n.children
            .iter()
            .find(|c| {
                matches!(
                    c.name.as_str(),
                    "Real" | "Integer" | "Boolean" | "String" | "Enumeration"
                )
            })
            .ok_or_else(|| ParseError::MissingElement(format!("type element of {}", n.label())))?
    };
    let kind = match typed.name.as_str() {
        "Real" if !fmi3 => ParsedType::Real,
        "Integer" if !fmi3 => ParsedType::Integer,
        "Float64" if fmi3 => ParsedType::Real,
        "Int32" if fmi3 => ParsedType::Integer,
        "Boolean" => ParsedType::Boolean,
        other => ParsedType::Other(other.to_owned()),
    };
    let structural = n.attr("causality") == Some("structuralParameter");
    let causality = if structural {
        Causality::Parameter
    } else {
        n.parse_with("causality", Causality::parse)?
            .unwrap_or(Causality::Local)
    };
    let default_variability = if fmi3 && !matches!(typed.name.as_str(), "Float64" | "Float32") {
        Variability::Discrete
    } else {
        Variability::Continuous
    };
    let variability = n
        .parse_with("variability", Variability::parse)?
        .unwrap_or(default_variability);
    let initial_attribute = n.parse_with("initial", Initial::parse)?;
    let number = |key: &str| -> Result<Option<f64>, ParseError> {
        match kind {
            ParsedType::Boolean => Ok(typed
                .parse_with(key, parse_bool)?
                .map(|b| if b { 1.0 } else { 0.0 })),
            ParsedType::Integer => {
                typed.parse_with(key, |s| s.parse::<i64>().ok().map(|i| i as f64))
            }
            ParsedType::Real => typed.f64_attr(key),
            // Other types: a number when it reads as one, else nothing.
            ParsedType::Other(_) => Ok(typed.attr(key).and_then(|s| parse_f64(s.trim()))),
        }
    };
    Ok(ParsedVariable {
        description: n.attr("description").unwrap_or_default().to_owned(),
        causality,
        variability,
        initial: initial_attribute.or_else(|| Initial::default_for(causality, variability)),
        initial_attribute,
        start: number("start")?,
        min: number("min")?,
        max: number("max")?,
        nominal: typed.f64_attr("nominal")?,
        unit: typed.attr("unit").map(str::to_owned),
        display_unit: typed.attr("displayUnit").map(str::to_owned),
        derivative: if fmi3 {
            n.u32_attr("derivative")?
        } else {
            // The 1-based index of the state; turned into its value
            // reference once every variable is read.
            typed.u32_attr("derivative")?
        },
        kind,
        name,
        value_reference,
        structural,
    })
}

fn read_structure_fmi2(
    ms: &Node,
    variables: &[ParsedVariable],
) -> Result<(Vec<ParsedUnknown>, Vec<u32>), ParseError> {
    let vr_of_index = |index: u32| -> Result<u32, ParseError> {
        (index as usize)
            .checked_sub(1)
            .and_then(|i| variables.get(i))
            .map(|v| v.value_reference)
            .ok_or_else(|| ParseError::BadReference(format!("index {index}")))
    };
    let unknown = |u: &Node| -> Result<ParsedUnknown, ParseError> {
        let index = u
            .u32_attr("index")?
            .ok_or_else(|| ParseError::MissingAttribute {
                element: u.label(),
                attribute: "index".to_owned(),
            })?;
        let dependencies = u
            .u32_list("dependencies")?
            .map(|list| {
                list.into_iter()
                    .map(vr_of_index)
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        Ok(ParsedUnknown {
            value_reference: vr_of_index(index)?,
            dependencies,
            dependencies_kind: u.string_list("dependenciesKind"),
        })
    };
    let outputs = match ms.child("Outputs") {
        None => Vec::new(),
        Some(o) => o
            .children_named("Unknown")
            .map(unknown)
            .collect::<Result<_, _>>()?,
    };
    let initial_unknowns = match ms.child("InitialUnknowns") {
        None => Vec::new(),
        Some(o) => o
            .children_named("Unknown")
            .map(|u| unknown(u).map(|p| p.value_reference))
            .collect::<Result<_, _>>()?,
    };
    Ok((outputs, initial_unknowns))
}

fn read_structure_fmi3(
    ms: &Node,
    variables: &[ParsedVariable],
) -> Result<(Vec<ParsedUnknown>, Vec<u32>), ParseError> {
    let known = |vr: u32| -> Result<u32, ParseError> {
        if variables.iter().any(|v| v.value_reference == vr) {
            Ok(vr)
        } else {
            Err(ParseError::BadReference(format!("value reference {vr}")))
        }
    };
    let unknown = |u: &Node| -> Result<ParsedUnknown, ParseError> {
        let vr = u
            .u32_attr("valueReference")?
            .ok_or_else(|| ParseError::MissingAttribute {
                element: u.label(),
                attribute: "valueReference".to_owned(),
            })?;
        let dependencies = u
            .u32_list("dependencies")?
            .map(|list| list.into_iter().map(known).collect::<Result<Vec<_>, _>>())
            .transpose()?;
        Ok(ParsedUnknown {
            value_reference: known(vr)?,
            dependencies,
            dependencies_kind: u.string_list("dependenciesKind"),
        })
    };
    let outputs = ms
        .children_named("Output")
        .map(unknown)
        .collect::<Result<_, _>>()?;
    let initial_unknowns = ms
        .children_named("InitialUnknown")
        .map(|u| unknown(u).map(|p| p.value_reference))
        .collect::<Result<_, _>>()?;
    Ok((outputs, initial_unknowns))
}

#[cfg(test)]
mod tests;
