//! The project's coupled set-ups as SSP 1.0 archives (`dist/ssp/*.ssp`):
//! `SystemStructure.ssd` with the components, their connectors (every
//! input and output with its unit), the connections, the parameter values
//! that make the halves consistent, the units, and the FMI 2 FMUs under
//! `resources/` (FMI 2 so that libcosim, whose SSP loader is FMI 2 only,
//! runs the archive unchanged).
//!
//! The external command of a set-up (the valve command) is left as the
//! actuator's unconnected input: libcosim does not accept system-level
//! connectors, and every SSP importer can drive a component input.

use anyhow::{Context, Result, bail};
use model_description::{
    Causality, ParsedDescription, ParsedType, find_unit, parse_model_description,
};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A variable of a component: (instance name, variable name).
type Port = (&'static str, &'static str);

/// One coupled set-up.
pub struct Setup {
    /// File name (without `.ssp`) and system name.
    pub name: &'static str,
    /// What it is and how to drive it, for people.
    pub description: &'static str,
    /// Components: instance name and model identifier.
    pub components: &'static [(&'static str, &'static str)],
    /// Connections: (from component, output) -> (to component, input).
    pub connections: &'static [(&'static str, &'static str, &'static str, &'static str)],
    /// Parameter values: (component, variable) gets the start value of
    /// (component, variable), so that both halves start from the same state.
    pub same_start: &'static [(Port, Port)],
    /// Default experiment: stop time and the communication step, s.
    pub stop_time: f64,
    /// Communication step the project's own co-simulation uses, s.
    pub step: f64,
}

/// The XML namespace of OMSimulator's SSP annotations.
const OMS_NAMESPACE: &str =
    "https://raw.githubusercontent.com/OpenModelica/OMSimulator/master/schema/oms.xsd";

/// The set-ups build-fmu writes.
pub const SETUPS: [Setup; 2] = [
    Setup {
        name: "ValveActuator_SlidingMass",
        description: "The valve-cylinder drive split at the rod: ValveActuator (valve, \
                      compensator, chambers) and SlidingMass (the mass with LuGre friction and end \
                      stops), coupled by the rod position and velocity and the cylinder force. \
                      Drive the valve command: actuator input U (V).",
        components: &[("actuator", "ValveActuator"), ("mass", "SlidingMass")],
        connections: &[
            ("actuator", "F", "mass", "F"),
            ("mass", "x", "actuator", "x"),
            ("mass", "v", "actuator", "v"),
        ],
        same_start: &[
            (("actuator", "x"), ("mass", "x_0")),
            (("actuator", "Sc"), ("mass", "Sc")),
        ],
        stop_time: 10.0,
        step: 1e-3,
    },
    Setup {
        name: "FourBarActuator_FourBarMechanism",
        description: "The hydraulically actuated four-bar split at the cylinder pins: \
                      FourBarActuator (pump, valve, relief, cylinder chambers, seal friction) and \
                      FourBarMechanism (the linkage), coupled by the pin-to-pin length and its rate \
                      and the cylinder force. Drive the valve command: actuator input U_ref (V).",
        components: &[
            ("actuator", "FourBarActuator"),
            ("mechanism", "FourBarMechanism"),
        ],
        connections: &[
            ("actuator", "F_h", "mechanism", "F"),
            ("mechanism", "s", "actuator", "s"),
            ("mechanism", "s_dot", "actuator", "s_dot"),
        ],
        same_start: &[],
        stop_time: 5.0,
        step: 1e-3,
    },
];

impl Setup {
    /// Whether every model of the set-up is among `built`.
    pub fn uses_only(&self, built: &[String]) -> bool {
        self.components
            .iter()
            .all(|(_, m)| built.iter().any(|b| b == m))
    }
}

/// Reads the model description of an FMU archive.
fn description_of(fmu: &Path) -> Result<ParsedDescription> {
    let file = std::fs::File::open(fmu).with_context(|| format!("opening {}", fmu.display()))?;
    let mut zip = zip::ZipArchive::new(file)?;
    let mut xml = String::new();
    zip.by_name("modelDescription.xml")?
        .read_to_string(&mut xml)?;
    parse_model_description(&xml)
        .with_context(|| format!("{}: modelDescription.xml", fmu.display()))
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Writes `<out>/<name>.ssp` from the FMI 2 FMUs in `fmi2_dir`.
pub fn write(setup: &Setup, fmi2_dir: &Path, out: &Path) -> Result<PathBuf> {
    let mut fmus = Vec::new();
    for (instance, model) in setup.components {
        let path = fmi2_dir.join(format!("{model}.fmu"));
        let md = description_of(&path)?;
        fmus.push((*instance, *model, path, md));
    }
    let find = |instance: &str, var: &str| {
        let (_, model, _, md) = fmus
            .iter()
            .find(|(i, ..)| *i == instance)
            .with_context(|| format!("{}: no component '{instance}'", setup.name))?;
        md.variable_by_name(var)
            .with_context(|| format!("{}: {model} has no variable '{var}'", setup.name))
    };
    // The tolerance the components run at by default (the same in all).
    let tolerances: BTreeSet<String> = fmus
        .iter()
        .filter_map(|(.., md)| md.default_experiment.as_ref()?.tolerance)
        .map(|t| format!("{t:?}"))
        .collect();
    let tolerance = match tolerances.len() {
        1 => tolerances.into_iter().next().unwrap_or_default(),
        _ => bail!(
            "{}: the components' default tolerances differ or are missing: {tolerances:?}",
            setup.name
        ),
    };
    // Connections must join an output to an input of the same unit.
    for (a, out_var, b, in_var) in setup.connections {
        let (o, i) = (find(a, out_var)?, find(b, in_var)?);
        if o.causality != Causality::Output || i.causality != Causality::Input {
            bail!(
                "{}: {a}.{out_var} -> {b}.{in_var} must join an output to an input",
                setup.name
            );
        }
        if o.unit != i.unit {
            bail!(
                "{}: {a}.{out_var} is in {:?} but {b}.{in_var} in {:?}",
                setup.name,
                o.unit,
                i.unit
            );
        }
    }
    let mut units = BTreeSet::new();
    let mut ssd = String::new();
    writeln!(ssd, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    writeln!(
        ssd,
        "<ssd:SystemStructureDescription xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" \
         xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" \
         xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\" \
         version=\"1.0\" name=\"{}\" generationTool=\"fluidfmu build-fmu {}\">",
        setup.name,
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(
        ssd,
        "  <ssd:System name=\"{}\" description=\"{}\">",
        setup.name,
        escape(setup.description)
    )?;
    writeln!(ssd, "    <ssd:Elements>")?;
    for (instance, model, _, md) in &fmus {
        writeln!(
            ssd,
            "      <ssd:Component name=\"{instance}\" type=\"application/x-fmu-sharedlibrary\" \
             source=\"resources/{model}.fmu\" description=\"{}\">",
            escape(md.description.as_deref().unwrap_or(model))
        )?;
        writeln!(ssd, "        <ssd:Connectors>")?;
        for v in &md.variables {
            let kind = match v.causality {
                Causality::Input => "input",
                Causality::Output => "output",
                _ => continue,
            };
            if v.kind != ParsedType::Real {
                continue;
            }
            let unit = match &v.unit {
                Some(u) => {
                    units.insert(u.clone());
                    format!(" unit=\"{}\"", escape(u))
                }
                None => String::new(),
            };
            writeln!(
                ssd,
                "          <ssd:Connector name=\"{}\" kind=\"{kind}\" description=\"{}\"><ssc:Real{unit}/></ssd:Connector>",
                escape(&v.name),
                escape(&v.description)
            )?;
        }
        writeln!(ssd, "        </ssd:Connectors>")?;
        let bindings: Vec<_> = setup
            .same_start
            .iter()
            .filter(|((to, _), _)| to == instance)
            .collect();
        if !bindings.is_empty() {
            writeln!(ssd, "        <ssd:ParameterBindings>")?;
            writeln!(ssd, "          <ssd:ParameterBinding>")?;
            writeln!(ssd, "            <ssd:ParameterValues>")?;
            writeln!(
                ssd,
                "              <ssv:ParameterSet version=\"1.0\" name=\"{instance}\">"
            )?;
            writeln!(ssd, "                <ssv:Parameters>")?;
            for ((to, var), (from, source)) in bindings {
                let target = find(to, var)?;
                let value = find(from, source)?
                    .start
                    .with_context(|| format!("{from}.{source} has no start value"))?;
                let unit = match &target.unit {
                    Some(u) => format!(" unit=\"{}\"", escape(u)),
                    None => String::new(),
                };
                writeln!(
                    ssd,
                    "                  <ssv:Parameter name=\"{}\"><ssv:Real value=\"{value:?}\"{unit}/></ssv:Parameter>",
                    escape(var)
                )?;
            }
            writeln!(ssd, "                </ssv:Parameters>")?;
            writeln!(ssd, "              </ssv:ParameterSet>")?;
            writeln!(ssd, "            </ssd:ParameterValues>")?;
            writeln!(ssd, "          </ssd:ParameterBinding>")?;
            writeln!(ssd, "        </ssd:ParameterBindings>")?;
        }
        writeln!(ssd, "      </ssd:Component>")?;
    }
    writeln!(ssd, "    </ssd:Elements>")?;
    writeln!(ssd, "    <ssd:Connections>")?;
    for (a, o, b, i) in setup.connections {
        writeln!(
            ssd,
            "      <ssd:Connection startElement=\"{a}\" startConnector=\"{o}\" endElement=\"{b}\" endConnector=\"{i}\"/>"
        )?;
    }
    writeln!(ssd, "    </ssd:Connections>")?;
    // OpenModelica's OMSimulator runs a system from its command line only
    // when the system names its master algorithm in OMSimulator's own
    // annotation: a fixed-step master at the project's communication step,
    // with the tolerance the FMUs default to (OMSimulator passes its
    // tolerance on to them). Other importers skip the annotation.
    writeln!(ssd, "    <ssd:Annotations>")?;
    writeln!(
        ssd,
        "      <ssc:Annotation type=\"org.openmodelica\"><oms:Annotations xmlns:oms=\"{OMS_NAMESPACE}\">\
         <oms:SimulationInformation><oms:FixedStepMaster description=\"oms-ma\" stepSize=\"{:?}\" \
         relativeTolerance=\"{}\"/></oms:SimulationInformation></oms:Annotations></ssc:Annotation>",
        setup.step, tolerance
    )?;
    writeln!(ssd, "    </ssd:Annotations>")?;
    writeln!(ssd, "  </ssd:System>")?;
    writeln!(ssd, "  <ssd:Units>")?;
    for name in &units {
        let unit =
            find_unit(name).with_context(|| format!("unit {name} is not in the catalogue"))?;
        let base: String = unit
            .base
            .exponents()
            .iter()
            .filter(|(_, e)| *e != 0)
            .map(|(k, e)| format!(" {k}=\"{e}\""))
            .collect();
        writeln!(
            ssd,
            "    <ssc:Unit name=\"{}\"><ssc:BaseUnit{base}/></ssc:Unit>",
            escape(name)
        )?;
    }
    writeln!(ssd, "  </ssd:Units>")?;
    // SSP 1.0 has no attribute for the communication step: an annotation
    // says which step the project's own co-simulation uses.
    writeln!(
        ssd,
        "  <ssd:DefaultExperiment startTime=\"0.0\" stopTime=\"{:?}\">",
        setup.stop_time
    )?;
    writeln!(ssd, "    <ssd:Annotations>")?;
    writeln!(
        ssd,
        "      <ssc:Annotation type=\"io.github.fluidfmu.communicationStep\"><fluidfmu:CommunicationStep \
         xmlns:fluidfmu=\"urn:fluidfmu:ssp\" value=\"{:?}\" unit=\"s\"/></ssc:Annotation>",
        setup.step
    )?;
    writeln!(ssd, "    </ssd:Annotations>")?;
    writeln!(ssd, "  </ssd:DefaultExperiment>")?;
    writeln!(ssd, "</ssd:SystemStructureDescription>")?;

    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let path = out.join(format!("{}.ssp", setup.name));
    let files: Vec<(String, Vec<u8>)> = fmus
        .iter()
        .map(|(_, model, fmu, _)| Ok((format!("resources/{model}.fmu"), std::fs::read(fmu)?)))
        .collect::<Result<_>>()?;
    let mut entries: Vec<(&str, &[u8])> = vec![("SystemStructure.ssd", ssd.as_bytes())];
    entries.extend(files.iter().map(|(n, d)| (n.as_str(), d.as_slice())));
    crate::package::write_zip(&path, &entries)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setup_names_its_components_consistently() {
        for s in &SETUPS {
            let names: Vec<&str> = s.components.iter().map(|(i, _)| *i).collect();
            for (a, _, b, _) in s.connections {
                assert!(names.contains(a) && names.contains(b), "{}", s.name);
            }
            for ((to, _), (from, _)) in s.same_start {
                assert!(names.contains(to) && names.contains(from), "{}", s.name);
            }
            assert!(s.step > 0.0 && s.stop_time > s.step);
        }
    }

    #[test]
    fn text_is_escaped_for_attributes() {
        assert_eq!(escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }

    #[test]
    fn a_setup_needs_all_its_models_built() {
        let built = vec!["ValveActuator".to_string()];
        assert!(!SETUPS[0].uses_only(&built));
        let built = vec!["ValveActuator".to_string(), "SlidingMass".to_string()];
        assert!(SETUPS[0].uses_only(&built));
    }
}
