//! The reliability suite's own reader of `modelDescription.xml` (FMI 2.0
//! and 3.0): what a master needs to attack an FMU — value references, names,
//! types, causality, variability, start, min/max, the structural flag and
//! the capability flags. It deliberately does not use the project's
//! `model-description` crate, so the suite does not share code (or bugs)
//! with the FMUs it tests.

use anyhow::{Context, Result, anyhow, bail};
use quick_xml::Reader;
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};
use std::collections::BTreeMap;

/// A variable's value type (FMI 2 Real/Integer/Boolean, FMI 3
/// Float64/Int32/Boolean).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Ty {
    Real,
    Integer,
    Boolean,
}

impl Ty {
    pub(crate) const ALL: [Ty; 3] = [Ty::Real, Ty::Integer, Ty::Boolean];

    pub(crate) fn name(self, fmi3: bool) -> &'static str {
        match (self, fmi3) {
            (Ty::Real, false) => "Real",
            (Ty::Real, true) => "Float64",
            (Ty::Integer, false) => "Integer",
            (Ty::Integer, true) => "Int32",
            (Ty::Boolean, _) => "Boolean",
        }
    }
}

/// One model variable as the XML declares it.
#[derive(Debug, Clone)]
pub(crate) struct Var {
    pub(crate) name: String,
    pub(crate) vr: u32,
    pub(crate) ty: Ty,
    /// `input`, `output`, `parameter`, `calculatedParameter`, `local`,
    /// `independent` (FMI 3 `structuralParameter` is read as `parameter`
    /// with `structural` set).
    pub(crate) causality: String,
    pub(crate) variability: String,
    pub(crate) start: Option<f64>,
    pub(crate) min: Option<f64>,
    pub(crate) max: Option<f64>,
    pub(crate) structural: bool,
}

impl Var {
    /// A parameter or an input: what a master may set.
    pub(crate) fn settable(&self) -> bool {
        matches!(self.causality.as_str(), "input" | "parameter")
    }

    /// Can be set in Step Mode (inputs and tunable, non-structural
    /// parameters).
    pub(crate) fn tunable_in_step_mode(&self) -> bool {
        self.causality == "input"
            || (self.causality == "parameter" && self.variability == "tunable" && !self.structural)
    }
}

/// What the suite reads of a model description.
#[derive(Debug, Clone)]
pub(crate) struct Description {
    pub(crate) fmi3: bool,
    pub(crate) model_identifier: String,
    /// FMI 2 `guid`, FMI 3 `instantiationToken`.
    pub(crate) token: String,
    /// The `CoSimulation` element's attributes.
    pub(crate) capabilities: BTreeMap<String, String>,
    pub(crate) step_size: Option<f64>,
    pub(crate) variables: Vec<Var>,
}

impl Description {
    /// A capability flag of the `CoSimulation` element (false when absent).
    pub(crate) fn capability(&self, name: &str) -> bool {
        self.capabilities.get(name).is_some_and(|v| v == "true")
    }

    /// Whether the FMU declares get/set and serialization of FMU states.
    pub(crate) fn can_serialize(&self) -> bool {
        (self.capability("canGetAndSetFMUstate") || self.capability("canGetAndSetFMUState"))
            && (self.capability("canSerializeFMUstate") || self.capability("canSerializeFMUState"))
    }

    /// Whether the FMU declares directional derivatives.
    pub(crate) fn provides_derivatives(&self) -> bool {
        self.capability("providesDirectionalDerivative")
            || self.capability("providesDirectionalDerivatives")
    }

    /// The variable named `name`.
    pub(crate) fn var(&self, name: &str) -> Option<&Var> {
        self.variables.iter().find(|v| v.name == name)
    }

    /// Every variable of a type.
    pub(crate) fn of_type(&self, ty: Ty) -> impl Iterator<Item = &Var> {
        self.variables.iter().filter(move |v| v.ty == ty)
    }

    /// Whether the model has a structural parameter (FMI 3 flag).
    pub(crate) fn has_structural(&self) -> bool {
        self.variables.iter().any(|v| v.structural)
    }
}

fn attrs(e: &BytesStart<'_>) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for a in e.attributes() {
        let a = a.map_err(|err| anyhow!("bad attribute: {err}"))?;
        let value = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|err| anyhow!("bad attribute value: {err}"))?;
        out.insert(a.key.as_ref().to_owned(), value.into_owned());
    }
    Ok(out)
}

fn number(map: &BTreeMap<String, String>, key: &str, ty: Ty) -> Result<Option<f64>> {
    let Some(text) = map.get(key) else {
        return Ok(None);
    };
    let v = match ty {
        Ty::Boolean => match text.as_str() {
            "true" | "1" => 1.0,
            "false" | "0" => 0.0,
            other => bail!("{key}=\"{other}\" is not a Boolean"),
        },
        _ => text
            .trim()
            .parse::<f64>()
            .with_context(|| format!("{key}=\"{text}\" is not a number"))?,
    };
    Ok(Some(v))
}

fn type_of(element: &str) -> Option<Ty> {
    match element {
        "Real" | "Float64" => Some(Ty::Real),
        "Integer" | "Int32" => Some(Ty::Integer),
        "Boolean" => Some(Ty::Boolean),
        _ => None,
    }
}

/// Parses a `modelDescription.xml` of FMI 2.0 or 3.0.
pub(crate) fn parse(xml: &str) -> Result<Description> {
    let mut reader = Reader::from_str(xml);
    let mut desc = Description {
        fmi3: false,
        model_identifier: String::new(),
        token: String::new(),
        capabilities: BTreeMap::new(),
        step_size: None,
        variables: Vec::new(),
    };
    // FMI 2: the ScalarVariable element holds the common attributes and its
    // child the type ones.
    let mut scalar: Option<BTreeMap<String, String>> = None;
    let mut in_variables = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| anyhow!("XML error at {}: {e}", reader.buffer_position()))?;
        let (e, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(e) => {
                match e.name().as_ref() {
                    "ScalarVariable" => scalar = None,
                    "ModelVariables" => in_variables = false,
                    _ => {}
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let name = e.name().as_ref().to_owned();
        let a = attrs(e)?;
        match name.as_str() {
            "fmiModelDescription" => {
                let version = a.get("fmiVersion").cloned().unwrap_or_default();
                desc.fmi3 = version.starts_with('3');
                desc.token = a
                    .get(if desc.fmi3 {
                        "instantiationToken"
                    } else {
                        "guid"
                    })
                    .cloned()
                    .ok_or_else(|| anyhow!("no guid/instantiationToken"))?;
            }
            "CoSimulation" => {
                desc.model_identifier = a
                    .get("modelIdentifier")
                    .cloned()
                    .ok_or_else(|| anyhow!("CoSimulation has no modelIdentifier"))?;
                desc.capabilities = a;
            }
            "DefaultExperiment" => {
                desc.step_size = number(&a, "stepSize", Ty::Real)?;
            }
            "ModelVariables" => in_variables = !empty,
            "ScalarVariable" if in_variables => scalar = Some(a),
            element if in_variables => {
                let Some(ty) = type_of(element) else {
                    continue;
                };
                // FMI 3: one element with everything; FMI 2: the type child
                // of the ScalarVariable.
                let common = if desc.fmi3 {
                    a.clone()
                } else {
                    match &scalar {
                        Some(s) => s.clone(),
                        None => continue,
                    }
                };
                let causality_raw = common
                    .get("causality")
                    .cloned()
                    .unwrap_or_else(|| "local".into());
                let structural = causality_raw == "structuralParameter";
                let var = Var {
                    name: common
                        .get("name")
                        .cloned()
                        .ok_or_else(|| anyhow!("a variable has no name"))?,
                    vr: common
                        .get("valueReference")
                        .ok_or_else(|| anyhow!("a variable has no valueReference"))?
                        .parse()
                        .context("valueReference is not a u32")?,
                    ty,
                    causality: if structural {
                        "parameter".into()
                    } else {
                        causality_raw
                    },
                    variability: common
                        .get("variability")
                        .cloned()
                        .unwrap_or_else(|| "continuous".into()),
                    start: number(&a, "start", ty)?,
                    min: number(&a, "min", ty)?,
                    max: number(&a, "max", ty)?,
                    structural,
                };
                desc.variables.push(var);
            }
            _ => {}
        }
    }
    if desc.model_identifier.is_empty() {
        bail!("no CoSimulation element");
    }
    if desc.variables.is_empty() {
        bail!("no model variables");
    }
    Ok(desc)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FMI2: &str = r#"<?xml version="1.0"?>
<fmiModelDescription fmiVersion="2.0" modelName="M" guid="{abc}">
  <CoSimulation modelIdentifier="M" canGetAndSetFMUstate="true"/>
  <DefaultExperiment stepSize="0.001"/>
  <ModelVariables>
    <ScalarVariable name="time" valueReference="0" causality="independent" variability="continuous"><Real/></ScalarVariable>
    <ScalarVariable name="n" valueReference="3" causality="parameter" variability="fixed"><Integer start="1" min="1" max="14"/></ScalarVariable>
    <ScalarVariable name="on" valueReference="4" causality="input" variability="discrete"><Boolean start="true"/></ScalarVariable>
  </ModelVariables>
</fmiModelDescription>"#;

    const FMI3: &str = r#"<?xml version="1.0"?>
<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="{abc}">
  <CoSimulation modelIdentifier="M" canSerializeFMUState="true"/>
  <ModelVariables>
    <Float64 name="p" valueReference="1" causality="output" variability="continuous" min="-1e5"/>
    <Int32 name="n" valueReference="3" causality="structuralParameter" variability="fixed" start="1" min="1" max="14"/>
  </ModelVariables>
</fmiModelDescription>"#;

    #[test]
    fn reads_both_versions() {
        let d = parse(FMI2).unwrap();
        assert!(!d.fmi3);
        assert_eq!(d.token, "{abc}");
        assert_eq!(d.step_size, Some(0.001));
        assert!(d.capability("canGetAndSetFMUstate"));
        assert_eq!(d.variables.len(), 3);
        let n = d.var("n").unwrap();
        assert_eq!(
            (n.ty, n.vr, n.min, n.max),
            (Ty::Integer, 3, Some(1.0), Some(14.0))
        );
        assert!(!n.structural);
        assert_eq!(d.var("on").unwrap().start, Some(1.0));

        let d = parse(FMI3).unwrap();
        assert!(d.fmi3);
        let n = d.var("n").unwrap();
        assert!(n.structural);
        assert_eq!(n.causality, "parameter");
        assert_eq!(d.var("p").unwrap().min, Some(-1e5));
        assert!(d.has_structural());
    }
}
