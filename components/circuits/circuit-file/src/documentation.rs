//! The documentation page of an FMU built from a description: Markdown
//! for the model description's documentation (rendered into the FMU's
//! `documentation/index.html`), with the schematic inline.

use crate::Circuit;
use crate::registry::Need;

/// Text for a Markdown table cell: `|` escaped, no line breaks.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// A number for people: plain from 0.001 to 1e6, else with an exponent.
fn si(v: f64) -> String {
    if v == 0.0 || (1e-3..1e6).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// The parameters as the description writes them (key, value as written),
/// per part, in the file's order; none when the text does not parse.
fn written(source_text: &str) -> Vec<(String, Vec<(String, String)>)> {
    let Ok(doc) = source_text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let Some(parts) = doc.get("parts").and_then(toml::Value::as_table) else {
        return Vec::new();
    };
    parts
        .iter()
        .filter_map(|(name, v)| {
            let table = v.as_table()?;
            let values = table
                .iter()
                .filter(|(k, _)| k.as_str() != "type")
                .map(|(k, v)| {
                    let text = match v {
                        toml::Value::String(s) => s.clone(),
                        toml::Value::Float(f) => si(*f),
                        toml::Value::Integer(i) => i.to_string(),
                        toml::Value::Boolean(b) => b.to_string(),
                        _ => "(a table or list)".to_owned(),
                    };
                    (k.clone(), text)
                })
                .collect();
            Some((name.clone(), values))
        })
        .collect()
}

/// The FMU's documentation page for `circuit`, read from `source_text`:
/// its title and description, the schematic (inline SVG), the parts with
/// their parameters as written (defaults named as such), the nodes, the
/// inputs and outputs with their units, the default experiment and the
/// description file itself.
pub fn documentation_markdown(circuit: &Circuit, source_text: &str) -> String {
    let mut md = format!("# {}\n\n", circuit.name);
    if !circuit.description.is_empty() {
        md += &format!("{}\n\n", circuit.description);
    }
    md += "This FMU was built from a circuit description file (shown at the end of \
           this page). The schematic draws it in ISO 1219-1 symbols.\n\n## Schematic\n\n";
    // An HTML block: it starts at the <svg> line and ends at the next
    // blank line, which the drawing never holds.
    md += &circuit.schematic_svg();
    md += "\n## Parts\n\n| part | type | parameters |\n|---|---|---|\n";
    let given = written(source_text);
    for (name, t, _) in &circuit.parts {
        let values = given
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
            .unwrap_or(&[]);
        let mut list = Vec::new();
        for p in t.parameters {
            match (values.iter().find(|(k, _)| k == p.name), p.need) {
                (Some((_, v)), _) => list.push(format!("`{}` = {}", p.name, cell(v))),
                (None, Need::Default(v)) => {
                    let unit = if p.unit == "1" { "" } else { p.unit };
                    list.push(
                        format!("`{}` = {} {unit} (default)", p.name, si(v)).replace("  (", " ("),
                    );
                }
                (None, _) => {}
            }
        }
        md += &format!(
            "| `{name}` | {} | {} |\n",
            t.name,
            if list.is_empty() {
                "none".to_owned()
            } else {
                list.join("<br>")
            }
        );
    }
    md += "\n## Nodes\n\n| node | domain | ports |\n|---|---|---|\n";
    for (k, (domain, members)) in circuit.assembly.nodes().iter().enumerate() {
        let ports: Vec<String> = members.iter().map(|m| format!("`{m}`")).collect();
        md += &format!("| {} | {} | {} |\n", k + 1, domain.name(), ports.join(", "));
    }
    md += "\n## Inputs and outputs\n\n| variable | causality | unit | display unit | what | description |\n\
           |---|---|---|---|---|---|\n";
    for i in &circuit.inputs {
        let what = match &i.target {
            crate::InputTarget::Across { port, variable } => format!("sets `{port}` ({variable})"),
            crate::InputTarget::Through { port } => format!("delivers into `{port}`"),
        };
        md += &format!(
            "| `{}` | input | {} | {} | {what}, start {} | {} |\n",
            i.name,
            i.unit,
            i.display_unit.as_ref().map_or("", |d| d.name.as_str()),
            si(i.start),
            cell(&i.description)
        );
    }
    for o in &circuit.outputs {
        md += &format!(
            "| `{}` | output | {} | {} | `{}` | {} |\n",
            o.name,
            o.unit,
            o.display_unit.as_ref().map_or("", |d| d.name.as_str()),
            o.of,
            cell(&o.description)
        );
    }
    let e = &circuit.experiment;
    let or_none = |v: Option<f64>, unit: &str| {
        v.map_or("not given".to_owned(), |v| {
            format!("{} {unit}", si(v)).trim_end().to_owned()
        })
    };
    md += &format!(
        "\n## Default experiment\n\n| start time | stop time | step size | tolerance |\n|---|---|---|---|\n\
         | {} s | {} | {} | {} |\n",
        si(e.start_time),
        or_none(e.stop_time, "s"),
        or_none(e.step_size, "s"),
        or_none(e.tolerance, "")
    );
    md += "\n## The description file\n\n";
    let fence = "`".repeat(
        source_text
            .lines()
            .map(|l| l.trim_start().chars().take_while(|&c| c == '`').count() + 1)
            .max()
            .unwrap_or(1)
            .max(3),
    );
    md += &format!("{fence}toml\n{}", source_text);
    if !source_text.ends_with('\n') {
        md.push('\n');
    }
    md += &format!("{fence}\n");
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUMP_RELIEF: &str = include_str!("../examples/pump_relief.toml");

    fn page() -> String {
        let c = crate::read(PUMP_RELIEF, "pump_relief.toml").unwrap();
        documentation_markdown(&c, PUMP_RELIEF)
    }

    #[test]
    fn the_page_has_every_section_and_the_values_as_written() {
        let md = page();
        assert!(md.starts_with("# PumpRelief\n\nA pump into a chamber"));
        for section in [
            "## Schematic",
            "## Parts",
            "## Nodes",
            "## Inputs and outputs",
            "## Default experiment",
            "## The description file",
        ] {
            assert!(md.contains(section), "{section}");
        }
        assert!(md.contains("| `relief` | ReliefValve | `p_crack` = 210 bar<br>`gain` = 1e-9 m3/(s Pa)<br>`smoothing` = 20000 Pa (default) |"), "{md}");
        assert!(
            md.contains("`Kv` = 1 (default)<br>`wn` = 80 Hz<br>`zeta` = 0.7 |"),
            "{md}"
        );
        assert!(md.contains("| `load` | Mass |"));
        assert!(md.contains("`zeta` = 0.7"));
        assert!(md.contains("| `p_line` | output | Pa | bar | `line.p` |"));
        assert!(
            md.contains("| `U` | input | V |  | sets `spool.U` (value), start 0 | Valve command |"),
            "{md}"
        );
        assert!(md.contains("| 0 s | 10 s | 0.001 s | 1e-6 |"));
        assert!(md.contains("| hydraulic | `tank.T`, `pump.T`, `relief.T`, `valve.T` |"));
        assert!(md.contains(&format!("```toml\n{PUMP_RELIEF}```\n")));
    }

    #[test]
    fn the_schematic_is_one_html_block() {
        let md = page();
        let start = md.find("\n<svg ").expect("an svg line") + 1;
        let end = md[start..].find("</svg>\n").expect("its end") + start;
        assert!(
            md[..start].ends_with("\n\n"),
            "a blank line before the block"
        );
        assert!(!md[start..end].contains("\n\n"), "no blank line inside it");
        let first = &md[start..start + md[start..].find('\n').unwrap()];
        assert!(first.ends_with('>') && !first.ends_with("/>"), "{first}");
    }

    #[test]
    fn the_fmu_page_keeps_the_svg_as_it_is() {
        // Render as the FMU's documentation/index.html does.
        use fmu_core::model_description::{
            Capabilities, DefaultExperiment, Documentation, ModelDescription,
        };
        let md = page();
        let svg = {
            let start = md.find("<svg ").unwrap();
            let end = md.find("</svg>\n").unwrap() + "</svg>\n".len();
            md[start..end].to_owned()
        };
        let desc = ModelDescription {
            model_name: "PumpRelief".into(),
            model_identifier: "PumpRelief".into(),
            description: String::new(),
            version: "0".into(),
            generation_tool: String::new(),
            variables: Vec::new(),
            log_categories: Vec::new(),
            default_experiment: DefaultExperiment {
                start_time: 0.0,
                stop_time: 10.0,
                tolerance: 1e-6,
                step_size: 1e-3,
            },
            capabilities: Capabilities::default(),
            documentation: Documentation { page_markdown: md },
            terminals: Vec::new(),
            model_exchange: false,
            event_indicators: Vec::new(),
        };
        let html = desc.documentation_html();
        assert!(
            html.contains(&svg),
            "the drawing is not verbatim in the page"
        );
        assert!(html.contains("<h4>Parts</h4>"));
        assert!(!html.contains("&lt;svg"));
    }
}
