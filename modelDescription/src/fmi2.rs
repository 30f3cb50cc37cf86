//! The FMI 2.0 Co-Simulation `modelDescription.xml` (schema
//! `fmi2ModelDescription.xsd`).

use crate::model::{Causality, ModelDescription, VariableType};
use crate::xml_out::{
    Attrs, XmlOut, common_root_attrs, dependencies_kind, fmt_bool, initial_to_write,
    initial_unknown_positions, type_attributes, write_default_experiment, write_log_categories,
    write_unit_definitions,
};

impl ModelDescription {
    /// The FMI 2.0 Co-Simulation `modelDescription.xml`, UTF-8, indented by
    /// two spaces, deterministic (no generation date).
    ///
    /// Element order follows the schema: `CoSimulation`, `UnitDefinitions`
    /// (used units only), `LogCategories`, `DefaultExperiment`,
    /// `ModelVariables` (one `ScalarVariable` per variable, in table order;
    /// its 1-based position is the index `ModelStructure` refers to) and
    /// `ModelStructure` (`Outputs` with the direct dependencies on inputs,
    /// `InitialUnknowns` with the outputs and calculated parameters whose
    /// `initial` is approx or calculated). The `guid` is
    /// [`Self::instantiation_token`]. Call [`Self::validate`] first: this
    /// writes whatever the table holds.
    pub fn to_fmi2_xml(&self) -> String {
        let mut out = XmlOut::new();
        let mut root: Attrs = vec![
            ("fmiVersion", "2.0".to_owned()),
            ("modelName", self.model_name.clone()),
            ("guid", self.instantiation_token()),
        ];
        common_root_attrs(self, &mut root);
        root.push((
            "numberOfEventIndicators",
            self.event_indicators.len().to_string(),
        ));
        out.start("fmiModelDescription", &root);

        let caps = &self.capabilities;
        if self.model_exchange {
            out.empty(
                "ModelExchange",
                &vec![
                    ("modelIdentifier", self.model_identifier.clone()),
                    ("needsExecutionTool", fmt_bool(false)),
                    ("completedIntegratorStepNotNeeded", fmt_bool(true)),
                    ("canBeInstantiatedOnlyOncePerProcess", fmt_bool(false)),
                    ("canNotUseMemoryManagementFunctions", fmt_bool(true)),
                    (
                        "canGetAndSetFMUstate",
                        fmt_bool(caps.can_get_and_set_fmu_state),
                    ),
                    (
                        "canSerializeFMUstate",
                        fmt_bool(caps.can_serialize_fmu_state),
                    ),
                    (
                        "providesDirectionalDerivative",
                        fmt_bool(caps.provides_directional_derivative),
                    ),
                ],
            );
        }
        out.empty(
            "CoSimulation",
            &vec![
                ("modelIdentifier", self.model_identifier.clone()),
                ("needsExecutionTool", fmt_bool(false)),
                (
                    "canHandleVariableCommunicationStepSize",
                    fmt_bool(caps.can_handle_variable_communication_step_size),
                ),
                ("canInterpolateInputs", fmt_bool(false)),
                ("maxOutputDerivativeOrder", "0".to_owned()),
                ("canBeInstantiatedOnlyOncePerProcess", fmt_bool(false)),
                ("canNotUseMemoryManagementFunctions", fmt_bool(true)),
                (
                    "canGetAndSetFMUstate",
                    fmt_bool(caps.can_get_and_set_fmu_state),
                ),
                (
                    "canSerializeFMUstate",
                    fmt_bool(caps.can_serialize_fmu_state),
                ),
                (
                    "providesDirectionalDerivative",
                    fmt_bool(caps.provides_directional_derivative),
                ),
            ],
        );

        write_unit_definitions(&mut out, self);
        write_log_categories(&mut out, self);
        write_default_experiment(&mut out, self);
        self.write_fmi2_variables(&mut out);
        self.write_fmi2_structure(&mut out);

        out.end("fmiModelDescription");
        out.finish()
    }

    fn write_fmi2_variables(&self, out: &mut XmlOut) {
        let index_of = |vr: u32| {
            self.variables
                .iter()
                .position(|v| v.value_reference == vr)
                .map(|i| i + 1)
        };
        out.start("ModelVariables", &Vec::new());
        for (i, v) in self.variables.iter().enumerate() {
            out.comment(&format!("index {}", i + 1));
            let mut a: Attrs = vec![
                ("name", v.name.clone()),
                ("valueReference", v.value_reference.to_string()),
            ];
            if !v.description.is_empty() {
                a.push(("description", v.description.clone()));
            }
            a.push(("causality", v.causality.as_str().to_owned()));
            a.push(("variability", v.variability.as_str().to_owned()));
            if let Some(initial) = initial_to_write(v) {
                a.push(("initial", initial.as_str().to_owned()));
            }
            out.start("ScalarVariable", &a);
            let (element, mut t) = fmi2_type_element(&v.kind);
            if let Some(state) = v.derivative
                && let Some(index) = index_of(state)
            {
                t.push(("derivative", index.to_string()));
            }
            out.empty(element, &t);
            out.end("ScalarVariable");
        }
        out.end("ModelVariables");
    }

    fn write_fmi2_structure(&self, out: &mut XmlOut) {
        let index_of = |vr: u32| {
            self.variables
                .iter()
                .position(|v| v.value_reference == vr)
                .map(|i| i + 1)
        };
        let outputs: Vec<usize> = self
            .variables
            .iter()
            .enumerate()
            .filter(|(_, v)| v.causality == Causality::Output)
            .map(|(i, _)| i)
            .collect();
        let initial_unknowns = initial_unknown_positions(self);
        let derivatives = self.derivatives();
        let states: Vec<usize> = derivatives.iter().map(|&(_, s)| s).collect();
        if outputs.is_empty() && initial_unknowns.is_empty() {
            out.empty("ModelStructure", &Vec::new());
            return;
        }
        out.start("ModelStructure", &Vec::new());
        if !outputs.is_empty() {
            out.start("Outputs", &Vec::new());
            for &i in &outputs {
                let v = &self.variables[i];
                let mut a: Attrs = vec![("index", (i + 1).to_string())];
                if let Some(deps) = &v.dependencies {
                    // A dependency on an unknown value reference (reported
                    // by `validate`) cannot be written as an index. With
                    // Model Exchange the continuous states are knowns too.
                    let mut indices: Vec<usize> =
                        deps.iter().filter_map(|&vr| index_of(vr)).collect();
                    indices.extend(states.iter().map(|s| s + 1));
                    indices.sort_unstable();
                    indices.dedup();
                    let indices: Vec<String> = indices.iter().map(|i| i.to_string()).collect();
                    a.push(("dependencies", indices.join(" ")));
                    a.push(("dependenciesKind", dependencies_kind(indices.len())));
                }
                out.empty("Unknown", &a);
            }
            out.end("Outputs");
        }
        if !derivatives.is_empty() {
            // Each derivative depends on every state and input (no
            // `dependencies` attribute).
            out.start("Derivatives", &Vec::new());
            for &(d, _) in &derivatives {
                out.empty("Unknown", &vec![("index", (d + 1).to_string())]);
            }
            out.end("Derivatives");
        }
        if !initial_unknowns.is_empty() {
            out.start("InitialUnknowns", &Vec::new());
            for &i in &initial_unknowns {
                out.empty("Unknown", &vec![("index", (i + 1).to_string())]);
            }
            out.end("InitialUnknowns");
        }
        out.end("ModelStructure");
    }
}

/// The type element of a `ScalarVariable` (`Real`, `Integer`, `Boolean`)
/// with its attributes.
fn fmi2_type_element(kind: &VariableType) -> (&'static str, Attrs) {
    let mut a: Attrs = Vec::new();
    type_attributes(kind, &mut a);
    let element = match kind {
        VariableType::Real { .. } => "Real",
        VariableType::Integer { .. } => "Integer",
        VariableType::Boolean { .. } => "Boolean",
    };
    (element, a)
}
