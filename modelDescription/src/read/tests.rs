//! Round trips through both XML versions, FMI 2 index bookkeeping, and
//! (where the project's Python environment exists) schema validation of the
//! generated files with the official XSDs and FMPy's checks.

use std::path::PathBuf;
use std::process::Command;

use super::*;
use crate::model::{ModelDescription, VariableType};
use crate::test_support::{sample, vr};
use crate::units::find_unit;

fn assert_same_as_source(md: &ModelDescription, p: &ParsedDescription, version: &str) {
    assert_eq!(p.fmi_version, version);
    assert_eq!(p.model_name, md.model_name);
    assert_eq!(p.model_identifier, md.model_identifier);
    assert_eq!(p.token, md.instantiation_token());
    assert_eq!(p.description.as_deref(), Some(md.description.as_str()));
    assert_eq!(p.version.as_deref(), Some(md.version.as_str()));
    assert_eq!(
        p.generation_tool.as_deref(),
        Some(md.generation_tool.as_str())
    );
    assert_eq!(p.variable_naming_convention.as_deref(), Some("flat"));
    assert_eq!(p.capabilities, md.capabilities);
    let e = md.default_experiment;
    assert_eq!(
        p.default_experiment,
        Some(ParsedExperiment {
            start_time: Some(e.start_time),
            stop_time: Some(e.stop_time),
            tolerance: Some(e.tolerance),
            step_size: Some(e.step_size),
        })
    );
    assert_eq!(p.log_categories, md.log_categories);

    // units: exactly the used ones, with the catalogue's display units
    let names: Vec<&String> = p.unit_definitions.keys().collect();
    let used = md.used_units();
    assert_eq!(names, used.iter().collect::<Vec<_>>());
    for (name, parsed) in &p.unit_definitions {
        let cat = find_unit(name).unwrap();
        assert_eq!(parsed.base, Some(cat.base), "{name}");
        assert_eq!(parsed.base_factor, 1.0);
        assert_eq!(parsed.base_offset, 0.0);
        assert_eq!(
            parsed.display_units.len(),
            cat.display_units.len(),
            "{name}"
        );
        for (pd, cd) in parsed.display_units.iter().zip(cat.display_units) {
            assert_eq!(pd.name, cd.name);
            assert_eq!(pd.factor.to_bits(), cd.factor.to_bits(), "{}", cd.name);
            assert_eq!(pd.offset.to_bits(), cd.offset.to_bits(), "{}", cd.name);
            assert!(!pd.inverse);
        }
    }

    // variables, field by field
    assert_eq!(p.variables.len(), md.variables.len());
    for (v, pv) in md.variables.iter().zip(&p.variables) {
        let ctx = format!("{version} variable {}", v.name);
        assert_eq!(pv.name, v.name, "{ctx}");
        assert_eq!(pv.value_reference, v.value_reference, "{ctx}");
        assert_eq!(pv.description, v.description, "{ctx}");
        assert_eq!(pv.causality, v.causality, "{ctx}");
        assert_eq!(pv.variability, v.variability, "{ctx}");
        assert_eq!(pv.initial, v.effective_initial(), "{ctx}");
        let bits = |x: Option<f64>| x.map(f64::to_bits);
        match &v.kind {
            VariableType::Real {
                start,
                min,
                max,
                unit,
                display_unit,
                nominal,
            } => {
                assert_eq!(pv.kind, ParsedType::Real, "{ctx}");
                assert_eq!(bits(pv.start), bits(*start), "{ctx}");
                assert_eq!(bits(pv.min), bits(*min), "{ctx}");
                assert_eq!(bits(pv.max), bits(*max), "{ctx}");
                assert_eq!(bits(pv.nominal), bits(*nominal), "{ctx}");
                assert_eq!(&pv.unit, unit, "{ctx}");
                assert_eq!(&pv.display_unit, display_unit, "{ctx}");
            }
            VariableType::Integer { start, min, max } => {
                assert_eq!(pv.kind, ParsedType::Integer, "{ctx}");
                assert_eq!(pv.start, start.map(f64::from), "{ctx}");
                assert_eq!(pv.min, min.map(f64::from), "{ctx}");
                assert_eq!(pv.max, max.map(f64::from), "{ctx}");
                assert_eq!(pv.unit, None);
            }
            VariableType::Boolean { .. } => {
                assert_eq!(pv.kind, ParsedType::Boolean, "{ctx}");
                assert_eq!(pv.start, v.kind.start_as_f64(), "{ctx}");
                assert_eq!((pv.min, pv.max), (None, None), "{ctx}");
            }
        }
    }

    // model structure
    let expected_outputs: Vec<(u32, Option<Vec<u32>>)> = md
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Output)
        .map(|v| (v.value_reference, v.dependencies.clone()))
        .collect();
    let got_outputs: Vec<(u32, Option<Vec<u32>>)> = p
        .outputs
        .iter()
        .map(|u| (u.value_reference, u.dependencies.clone()))
        .collect();
    assert_eq!(got_outputs, expected_outputs, "{version} outputs");
    for u in &p.outputs {
        assert_eq!(
            u.dependencies_kind.as_ref().map(Vec::len),
            u.dependencies.as_ref().map(Vec::len)
        );
    }
    assert_eq!(
        p.initial_unknowns,
        vec![vr::P1, vr::P2, vr::Q1, vr::F, vr::TAU],
        "{version} initial unknowns"
    );
}

#[test]
fn fmi2_round_trip() {
    let md = sample();
    let xml = md.to_fmi2_xml();
    let p = parse_model_description(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    assert_same_as_source(&md, &p, "2.0");
    for (flag, value) in [
        ("canInterpolateInputs", false),
        ("canBeInstantiatedOnlyOncePerProcess", false),
        ("canNotUseMemoryManagementFunctions", true),
        ("needsExecutionTool", false),
        ("canGetAndSetFMUstate", true),
        ("providesDirectionalDerivative", false),
    ] {
        assert_eq!(p.flag(flag), Some(value), "{flag}");
    }
    assert_eq!(
        p.co_simulation_attributes
            .get("maxOutputDerivativeOrder")
            .map(String::as_str),
        Some("0")
    );
}

#[test]
fn fmi3_round_trip() {
    let md = sample();
    let xml = md.to_fmi3_xml();
    let p = parse_model_description(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    assert_same_as_source(&md, &p, "3.0");
    for (flag, value) in [
        ("canReturnEarlyAfterIntermediateUpdate", false),
        ("hasEventMode", false),
        ("providesIntermediateUpdate", false),
        ("canGetAndSetFMUState", true),
        ("canSerializeFMUState", true),
        ("providesDirectionalDerivatives", false),
    ] {
        assert_eq!(p.flag(flag), Some(value), "{flag}");
    }
}

#[test]
fn both_versions_agree() {
    let md = sample();
    let p2 = parse_model_description(&md.to_fmi2_xml()).unwrap();
    let p3 = parse_model_description(&md.to_fmi3_xml()).unwrap();
    assert_eq!(p2.token, p3.token);
    assert_eq!(p2.variables, p3.variables);
    assert_eq!(p2.outputs, p3.outputs);
    assert_eq!(p2.initial_unknowns, p3.initial_unknowns);
    assert_eq!(p2.unit_definitions, p3.unit_definitions);
}

#[test]
fn fmi2_model_structure_uses_one_based_indices() {
    let md = sample();
    let xml = md.to_fmi2_xml();
    let pos = |name: &str| md.variables.iter().position(|v| v.name == name).unwrap() + 1;
    let (p1, p2, q1, f, ps, tau) = (
        pos("p1"),
        pos("p2"),
        pos("Q1"),
        pos("F"),
        pos("ps"),
        pos("tau"),
    );
    assert_eq!((p1, p2, q1, f, ps, tau), (4, 5, 6, 7, 2, 13));
    for expected in [
        format!("<Unknown index=\"{p1}\" dependencies=\"\" dependenciesKind=\"\"/>"),
        format!("<Unknown index=\"{p2}\" dependencies=\"\" dependenciesKind=\"\"/>"),
        format!("<Unknown index=\"{q1}\" dependencies=\"{ps}\" dependenciesKind=\"dependent\"/>"),
        format!("<Unknown index=\"{f}\"/>"),
        format!("<Unknown index=\"{tau}\"/>"),
    ] {
        assert!(xml.contains(&expected), "missing {expected}\n{xml}");
    }
    // the index comments match the positions
    assert!(xml.contains("<!-- index 6 -->\n    <ScalarVariable name=\"Q1\""));
    // initial only where it differs from the default
    assert_eq!(xml.matches("initial=").count(), 1, "{xml}");
    assert!(xml.contains("initial=\"approx\""));
}

#[test]
fn xml_is_escaped_and_formatted() {
    let md = sample();
    for xml in [md.to_fmi2_xml(), md.to_fmi3_xml()] {
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
        assert!(
            xml.contains("description=\"Three orifices &amp; two volumes &lt;test model&gt;\"")
        );
        assert!(xml.contains("&quot;between&quot;"));
        assert!(xml.contains("orifices 1 and 2&#10;line two"));
        assert!(xml.contains("\n  <CoSimulation "), "two-space indentation");
        assert!(!xml.contains("generationDateAndTime"));
        // deterministic
        assert_eq!(
            xml,
            if xml.contains("fmiVersion=\"2.0\"") {
                md.to_fmi2_xml()
            } else {
                md.to_fmi3_xml()
            }
        );
    }
    let xml3 = md.to_fmi3_xml();
    assert!(xml3.contains(
        "<Float64 name=\"ps\" valueReference=\"1\" description=\"Supply pressure\" causality=\"input\" variability=\"continuous\" start=\"10000000.0\" min=\"0.0\" max=\"40000000.0\" unit=\"Pa\" displayUnit=\"bar\" nominal=\"10000000.0\"/>"
    ), "{xml3}");
    assert!(xml3.contains("<Boolean name=\"useLuGre\""));
    assert!(xml3.contains("start=\"true\""));
    assert!(xml3.contains("<Int32 name=\"nSegments\""));
    assert!(xml3.contains("<DisplayUnit name=\"bar\" factor=\"1e-5\"/>"));
}

#[test]
fn parser_applies_defaults_and_rejects_garbage() {
    let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="m" guid="{g}">
  <CoSimulation modelIdentifier="m"/>
  <ModelVariables>
    <ScalarVariable name="x" valueReference="7"><Real/></ScalarVariable>
    <ScalarVariable name="k" valueReference="8" causality="parameter" variability="fixed"><Integer start="-3"/></ScalarVariable>
  </ModelVariables>
  <ModelStructure/>
</fmiModelDescription>"#;
    let p = parse_model_description(xml).unwrap();
    let x = p.variable_by_name("x").unwrap();
    assert_eq!(x.causality, Causality::Local);
    assert_eq!(x.variability, Variability::Continuous);
    assert_eq!(x.initial, Some(Initial::Calculated));
    assert_eq!(x.initial_attribute, None);
    assert_eq!(p.variable(8).unwrap().start, Some(-3.0));
    assert!(!p.capabilities.can_get_and_set_fmu_state);
    assert!(p.default_experiment.is_none());

    assert!(matches!(
        parse_model_description(&xml.replace("fmiVersion=\"2.0\"", "fmiVersion=\"1.0\"")),
        Err(ParseError::UnsupportedVersion(_))
    ));
    assert!(matches!(
        parse_model_description(&xml.replace("start=\"-3\"", "start=\"three\"")),
        Err(ParseError::InvalidValue { .. })
    ));
    assert!(matches!(
        parse_model_description(&xml.replace(
            "<ModelStructure/>",
            "<ModelStructure><Outputs><Unknown index=\"3\"/></Outputs></ModelStructure>"
        )),
        Err(ParseError::BadReference(_))
    ));
    assert!(matches!(
        parse_model_description("<fmiModelDescription fmiVersion=\"2.0\">"),
        Err(ParseError::Xml { .. })
    ));
    assert!(matches!(
        parse_model_description("<html/>"),
        Err(ParseError::NotAModelDescription(_))
    ));
}

/// The Python interpreter of the project's virtual environment (with FMPy
/// and lxml), if there is one: `$MODEL_DESCRIPTION_PYTHON`, else
/// `<workspace>/target/venv/bin/python`.
fn project_python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MODEL_DESCRIPTION_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let manifest = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).ok()?;
    let python = manifest.parent()?.join("target/venv/bin/python");
    python.is_file().then_some(python)
}

/// Validates both generated files against the official FMI 2.0 and 3.0 XSDs
/// (shipped inside FMPy, checked with lxml) and FMPy's own consistency checks
/// (legal causality/variability/initial, start values, units, model
/// structure). Skipped, with a note, when the Python environment is absent.
#[test]
fn generated_xml_passes_official_schemas_and_fmpy_checks() {
    let Some(python) = project_python() else {
        eprintln!("skipped: no Python environment with FMPy (set MODEL_DESCRIPTION_PYTHON)");
        return;
    };
    let md = sample();
    let dir = std::env::temp_dir().join(format!("model-description-xsd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f2 = dir.join("fmi2_modelDescription.xml");
    let f3 = dir.join("fmi3_modelDescription.xml");
    std::fs::write(&f2, md.to_fmi2_xml()).unwrap();
    std::fs::write(&f3, md.to_fmi3_xml()).unwrap();

    let script = r#"
import os, sys
from lxml import etree
import fmpy
from fmpy.model_description import read_model_description
schema_dir = os.path.join(os.path.dirname(fmpy.__file__), 'schema')
failed = False
for version, path in (('2', sys.argv[1]), ('3', sys.argv[2])):
    xsd = os.path.join(schema_dir, 'fmi' + version, 'fmi' + version + 'ModelDescription.xsd')
    schema = etree.XMLSchema(file=xsd)
    doc = etree.parse(path)
    if not schema.validate(doc):
        failed = True
        for e in schema.error_log:
            print('FMI%s XSD line %d: %s' % (version, e.line, e.message))
        continue
    try:
        read_model_description(path, validate=True, validate_variable_names=True,
                               validate_model_structure=True)
    except Exception as e:
        failed = True
        print('FMI%s fmpy: %s' % (version, getattr(e, 'problems', e)))
sys.exit(1 if failed else 0)
"#;
    let output = Command::new(&python)
        .arg("-c")
        .arg(script)
        .arg(&f2)
        .arg(&f3)
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let output = match output {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipped: cannot run {}: {e}", python.display());
            return;
        }
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("ModuleNotFoundError") {
        eprintln!("skipped: {} lacks fmpy/lxml: {stderr}", python.display());
        return;
    }
    assert!(
        output.status.success(),
        "schema validation failed:\n{}\n{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn structural_parameters_round_trip() {
    let mut desc = crate::test_support::sample();
    let vr = desc
        .variables
        .iter()
        .map(|v| v.value_reference)
        .max()
        .unwrap()
        + 1;
    desc.variables.push(
        crate::Variable::integer("n", vr)
            .parameter(3.0)
            .structural()
            .range(Some(1.0), Some(20.0))
            .describe("Segment count"),
    );
    desc.validate().unwrap();
    let fmi3 = desc.to_fmi3_xml();
    assert!(fmi3.contains(r#"name="n" valueReference="#));
    assert!(fmi3.contains(r#"causality="structuralParameter""#));
    let back = crate::parse_model_description(&fmi3).unwrap();
    let n = back.variable_by_name("n").unwrap();
    assert!(n.structural);
    assert_eq!(n.causality, crate::Causality::Parameter);
    let fmi2 = desc.to_fmi2_xml();
    assert!(!fmi2.contains("structuralParameter"));
    let back2 = crate::parse_model_description(&fmi2).unwrap();
    assert!(!back2.variable_by_name("n").unwrap().structural);
    // The token changes when a parameter becomes structural.
    let mut plain = desc.clone();
    plain.variables.last_mut().unwrap().structural = false;
    assert_ne!(plain.instantiation_token(), desc.instantiation_token());
}
