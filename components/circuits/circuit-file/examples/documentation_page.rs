//! Writes the documentation page (`documentation/index.html`) an FMU built
//! from a description file would carry: the Markdown of
//! `circuit_file::documentation_markdown` rendered by the model
//! description's page writer, with the inputs and outputs as variables.
//!
//! cargo run -p circuit-file --example documentation_page -- FILE.toml > index.html

use fmu_core::model_description::{
    Capabilities, DefaultExperiment, Documentation, ModelDescription, Variable,
};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: documentation_page FILE.toml > index.html");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let circuit = circuit_file::read(&text, &path).unwrap_or_else(|errors| {
        for e in errors {
            eprintln!("{e}");
        }
        std::process::exit(1);
    });
    let mut variables = Vec::new();
    for (k, i) in circuit.inputs.iter().enumerate() {
        variables.push(
            Variable::real(&i.name, k as u32)
                .input(i.start)
                .unit(&i.unit, i.display_unit.as_ref().map(|d| d.name.as_str()))
                .describe(&i.description),
        );
    }
    let first = circuit.inputs.len() as u32;
    for (k, o) in circuit.outputs.iter().enumerate() {
        variables.push(
            Variable::real(&o.name, first + k as u32)
                .output(&[])
                .unit(&o.unit, o.display_unit.as_ref().map(|d| d.name.as_str()))
                .describe(&o.description),
        );
    }
    let e = circuit.experiment;
    let desc = ModelDescription {
        model_name: circuit.name.clone(),
        model_identifier: circuit.name.clone(),
        description: circuit.description.clone(),
        version: env!("CARGO_PKG_VERSION").into(),
        generation_tool: format!("fluidfmu {}", env!("CARGO_PKG_VERSION")),
        variables,
        log_categories: Vec::new(),
        default_experiment: DefaultExperiment {
            start_time: e.start_time,
            stop_time: e.stop_time.unwrap_or(1.0),
            tolerance: e.tolerance.unwrap_or(1e-6),
            step_size: e.step_size.unwrap_or(1e-3),
        },
        capabilities: Capabilities::default(),
        documentation: Documentation {
            page_markdown: circuit_file::documentation_markdown(&circuit, &text),
        },
        terminals: Vec::new(),
        model_exchange: false,
        event_indicators: Vec::new(),
    };
    print!("{}", desc.documentation_html());
}
