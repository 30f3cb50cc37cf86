//! The FMI 3.0 Co-Simulation `modelDescription.xml` (schema
//! `fmi3ModelDescription.xsd`).

use crate::model::{Causality, ModelDescription, Variable, VariableType};
use crate::xml_out::{
    Attrs, XmlOut, common_root_attrs, dependencies_kind, fmt_bool, initial_to_write,
    initial_unknown_positions, type_attributes, write_default_experiment, write_log_categories,
    write_unit_definitions,
};

impl ModelDescription {
    /// The FMI 3.0 Co-Simulation `modelDescription.xml`, UTF-8, indented by
    /// two spaces, deterministic (no generation date).
    ///
    /// Element order follows the schema: `CoSimulation`, `UnitDefinitions`
    /// (used units only), `LogCategories`, `DefaultExperiment`,
    /// `ModelVariables` (`Float64` / `Int32` / `Boolean`, in table order) and
    /// `ModelStructure` (`Output` elements with the value references of the
    /// inputs each output depends on directly, then `InitialUnknown`
    /// elements for the outputs and calculated parameters whose `initial` is
    /// approx or calculated). The `instantiationToken` is
    /// [`Self::instantiation_token`]. Call [`Self::validate`] first: this
    /// writes whatever the table holds.
    pub fn to_fmi3_xml(&self) -> String {
        let mut out = XmlOut::new();
        let mut root: Attrs = vec![
            ("fmiVersion", "3.0".to_owned()),
            ("modelName", self.model_name.clone()),
            ("instantiationToken", self.instantiation_token()),
        ];
        common_root_attrs(self, &mut root);
        out.start("fmiModelDescription", &root);

        let caps = &self.capabilities;
        if self.model_exchange {
            out.empty(
                "ModelExchange",
                &vec![
                    ("modelIdentifier", self.model_identifier.clone()),
                    ("needsExecutionTool", fmt_bool(false)),
                    ("canBeInstantiatedOnlyOncePerProcess", fmt_bool(false)),
                    (
                        "canGetAndSetFMUState",
                        fmt_bool(caps.can_get_and_set_fmu_state),
                    ),
                    (
                        "canSerializeFMUState",
                        fmt_bool(caps.can_serialize_fmu_state),
                    ),
                    (
                        "providesDirectionalDerivatives",
                        fmt_bool(caps.provides_directional_derivative),
                    ),
                    ("providesAdjointDerivatives", fmt_bool(false)),
                    ("needsCompletedIntegratorStep", fmt_bool(false)),
                    ("providesEvaluateDiscreteStates", fmt_bool(false)),
                ],
            );
        }
        out.empty(
            "CoSimulation",
            &vec![
                ("modelIdentifier", self.model_identifier.clone()),
                ("needsExecutionTool", fmt_bool(false)),
                ("canBeInstantiatedOnlyOncePerProcess", fmt_bool(false)),
                (
                    "canGetAndSetFMUState",
                    fmt_bool(caps.can_get_and_set_fmu_state),
                ),
                (
                    "canSerializeFMUState",
                    fmt_bool(caps.can_serialize_fmu_state),
                ),
                (
                    "providesDirectionalDerivatives",
                    fmt_bool(caps.provides_directional_derivative),
                ),
                ("providesAdjointDerivatives", fmt_bool(false)),
                (
                    "canHandleVariableCommunicationStepSize",
                    fmt_bool(caps.can_handle_variable_communication_step_size),
                ),
                ("maxOutputDerivativeOrder", "0".to_owned()),
                ("providesIntermediateUpdate", fmt_bool(false)),
                ("mightReturnEarlyFromDoStep", fmt_bool(false)),
                ("canReturnEarlyAfterIntermediateUpdate", fmt_bool(false)),
                ("hasEventMode", fmt_bool(false)),
            ],
        );

        write_unit_definitions(&mut out, self);
        write_log_categories(&mut out, self);
        write_default_experiment(&mut out, self);

        out.start("ModelVariables", &Vec::new());
        for v in &self.variables {
            let (element, attrs) = fmi3_variable(v);
            out.empty(element, &attrs);
        }
        out.end("ModelVariables");

        self.write_fmi3_structure(&mut out);

        out.end("fmiModelDescription");
        out.finish()
    }

    fn write_fmi3_structure(&self, out: &mut XmlOut) {
        let outputs: Vec<&Variable> = self
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Output)
            .collect();
        let initial_unknowns = initial_unknown_positions(self);
        let derivatives = self.derivatives();
        let states: Vec<u32> = derivatives
            .iter()
            .map(|&(_, s)| self.variables[s].value_reference)
            .collect();
        if outputs.is_empty() && initial_unknowns.is_empty() {
            out.empty("ModelStructure", &Vec::new());
            return;
        }
        out.start("ModelStructure", &Vec::new());
        for v in outputs {
            let mut a: Attrs = vec![("valueReference", v.value_reference.to_string())];
            if let Some(deps) = &v.dependencies {
                // With Model Exchange the continuous states are knowns too.
                let mut vrs: Vec<u32> = deps.clone();
                vrs.extend(&states);
                vrs.sort_unstable();
                vrs.dedup();
                let vrs: Vec<String> = vrs.iter().map(u32::to_string).collect();
                a.push(("dependencies", vrs.join(" ")));
                a.push(("dependenciesKind", dependencies_kind(vrs.len())));
            }
            out.empty("Output", &a);
        }
        for &(d, _) in &derivatives {
            out.empty(
                "ContinuousStateDerivative",
                &vec![(
                    "valueReference",
                    self.variables[d].value_reference.to_string(),
                )],
            );
        }
        for i in initial_unknowns {
            out.empty(
                "InitialUnknown",
                &vec![(
                    "valueReference",
                    self.variables[i].value_reference.to_string(),
                )],
            );
        }
        for vr in &self.event_indicators {
            out.empty("EventIndicator", &vec![("valueReference", vr.to_string())]);
        }
        out.end("ModelStructure");
    }
}

/// The element (`Float64`, `Int32`, `Boolean`) and attributes of one variable.
fn fmi3_variable(v: &Variable) -> (&'static str, Attrs) {
    let mut a: Attrs = vec![
        ("name", v.name.clone()),
        ("valueReference", v.value_reference.to_string()),
    ];
    if !v.description.is_empty() {
        a.push(("description", v.description.clone()));
    }
    let causality = if v.structural {
        "structuralParameter"
    } else {
        v.causality.as_str()
    };
    a.push(("causality", causality.to_owned()));
    a.push(("variability", v.variability.as_str().to_owned()));
    if let Some(initial) = initial_to_write(v) {
        a.push(("initial", initial.as_str().to_owned()));
    }
    type_attributes(&v.kind, &mut a);
    if let Some(state) = v.derivative {
        a.push(("derivative", state.to_string()));
    }
    let element = match &v.kind {
        VariableType::Real { .. } => "Float64",
        VariableType::Integer { .. } => "Int32",
        VariableType::Boolean { .. } => "Boolean",
    };
    (element, a)
}
