//! The FMU's human documentation: one self-contained HTML5 page
//! (`documentation/index.html`) generated from the model description.

use std::fmt::Write as _;

use crate::model::{Causality, ModelDescription, Variable, VariableType};
use crate::units::find_unit;

/// Selects the variables of one table by causality.
type CausalityFilter = fn(Causality) -> bool;

/// Escapes text for HTML element content and attribute values.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A number for people: at most 10 significant digits, plain notation from
/// 0.001 to 1e6, exponent notation outside.
fn human(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "∞" } else { "−∞" }.to_owned();
    }
    if x == 0.0 {
        return "0".to_owned();
    }
    let rounded: f64 = format!("{x:.9e}").parse().unwrap_or(x);
    if (1e-3..1e6).contains(&rounded.abs()) {
        format!("{rounded}")
    } else {
        format!("{rounded:e}")
    }
}

const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:72rem;\
margin:2rem auto;padding:0 1rem;color:#1d2329;line-height:1.5}\
h1{margin-bottom:.2rem}h2{border-bottom:2px solid #d0d7de;padding-bottom:.2rem;margin-top:2.2rem}\
.lead{color:#57606a;margin-top:0}nav a{margin-right:1rem}\
table{border-collapse:collapse;width:100%;margin:.6rem 0 1.2rem;font-size:.92rem}\
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}\
th{background:#f3f5f7}tr:nth-child(even) td{background:#fafbfc}\
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}\
pre{background:#f6f8fa;padding:.6rem .8rem;overflow-x:auto;border-radius:4px}\
.muted{color:#6e7781}footer{margin-top:3rem;color:#6e7781;font-size:.85rem}";

impl ModelDescription {
    /// A complete, self-contained HTML5 page documenting the FMU, for
    /// `documentation/index.html`: the circuit's own page from
    /// [`crate::Documentation`] (Markdown, rendered), the variables grouped
    /// by causality (inputs, outputs, parameters, others) with SI and
    /// display units, start values in both units, ranges and variability;
    /// the default experiment, capability flags, log categories, the FMI
    /// versions supported and the instantiation token. Text from the
    /// variable table and the metadata is escaped.
    pub fn documentation_html(&self) -> String {
        let mut h = String::new();
        let name = escape_html(&self.model_name);
        let _ = write!(
            h,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{name} – FMU documentation</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
             <header>\n<h1>{name}</h1>\n"
        );
        if !self.description.is_empty() {
            let _ = writeln!(
                h,
                "<p class=\"lead\">{}</p>",
                escape_html(&self.description)
            );
        }
        h.push_str(
            "<nav><a href=\"#model\">Model</a><a href=\"#variables\">Variables</a>\
             <a href=\"#experiment\">Default experiment</a><a href=\"#capabilities\">Capabilities</a>\
             <a href=\"#logging\">Logging</a><a href=\"#fmi\">FMI</a></nav>\n</header>\n",
        );

        section(
            &mut h,
            "model",
            "Model",
            &markdown_html(&self.documentation.page_markdown),
        );
        self.write_variables_section(&mut h);
        self.write_experiment_section(&mut h);
        self.write_capabilities_section(&mut h);
        self.write_logging_section(&mut h);
        self.write_fmi_section(&mut h);

        let _ = write!(
            h,
            "<footer>Generated from the model description of <code>{}</code>{}.</footer>\n</body>\n</html>\n",
            escape_html(&self.model_identifier),
            if self.generation_tool.is_empty() {
                String::new()
            } else {
                format!(" by {}", escape_html(&self.generation_tool))
            }
        );
        h
    }

    fn write_variables_section(&self, h: &mut String) {
        h.push_str("<section id=\"variables\">\n<h2>Variables</h2>\n");
        h.push_str(
            "<p>Values are in SI units inside the FMU; the display unit is what \
             tools may show instead.</p>\n",
        );
        let groups: [(&str, CausalityFilter); 4] = [
            ("Inputs", |c| c == Causality::Input),
            ("Outputs", |c| c == Causality::Output),
            ("Parameters", |c| c == Causality::Parameter),
            ("Other variables", |c| {
                !matches!(
                    c,
                    Causality::Input | Causality::Output | Causality::Parameter
                )
            }),
        ];
        for (title, member) in groups {
            let vars: Vec<&Variable> = self
                .variables
                .iter()
                .filter(|v| member(v.causality))
                .collect();
            let _ = writeln!(h, "<h3>{title}</h3>");
            if vars.is_empty() {
                h.push_str("<p class=\"muted\">None.</p>\n");
                continue;
            }
            let outputs = title == "Outputs";
            let others = title == "Other variables";
            h.push_str(
                "<table>\n<thead><tr><th>Name</th><th>Description</th><th>Unit (SI)</th>\
                 <th>Display unit</th><th>Start (SI)</th><th>Start (display)</th>\
                 <th>Min</th><th>Max</th><th>Variability</th>",
            );
            if outputs {
                h.push_str("<th>Depends directly on</th>");
            }
            if others {
                h.push_str("<th>Causality</th>");
            }
            h.push_str("</tr></thead>\n<tbody>\n");
            for v in vars {
                self.write_variable_row(h, v, outputs, others);
            }
            h.push_str("</tbody>\n</table>\n");
        }
        h.push_str("</section>\n");
    }

    fn write_variable_row(&self, h: &mut String, v: &Variable, outputs: bool, others: bool) {
        let dash = "—".to_owned();
        let (unit, display, start_si, start_display, min, max) = match &v.kind {
            VariableType::Real {
                start,
                min,
                max,
                unit,
                display_unit,
                ..
            } => {
                let du = unit
                    .as_deref()
                    .and_then(find_unit)
                    .zip(display_unit.as_deref())
                    .and_then(|(u, d)| u.display_unit(d));
                let with_display = |x: f64| match du {
                    Some(d) => format!(
                        "{}<br><span class=\"muted\">{} {}</span>",
                        human(x),
                        human(d.from_si(x)),
                        escape_html(d.name)
                    ),
                    None => human(x),
                };
                (
                    unit.as_deref().map_or(dash.clone(), escape_html),
                    display_unit.as_deref().map_or(dash.clone(), escape_html),
                    start.map_or(dash.clone(), human),
                    match (start, du) {
                        (Some(s), Some(d)) => {
                            format!("{} {}", human(d.from_si(*s)), escape_html(d.name))
                        }
                        (Some(s), None) => human(*s),
                        (None, _) => dash.clone(),
                    },
                    min.map_or(dash.clone(), with_display),
                    max.map_or(dash.clone(), with_display),
                )
            }
            VariableType::Integer { start, min, max } => {
                let s = start.map_or(dash.clone(), |x| x.to_string());
                (
                    dash.clone(),
                    dash.clone(),
                    s.clone(),
                    s,
                    min.map_or(dash.clone(), |x| x.to_string()),
                    max.map_or(dash.clone(), |x| x.to_string()),
                )
            }
            VariableType::Boolean { start } => {
                let s = start.map_or(dash.clone(), |b| b.to_string());
                (
                    dash.clone(),
                    dash.clone(),
                    s.clone(),
                    s,
                    dash.clone(),
                    dash.clone(),
                )
            }
        };
        let initial = match v.effective_initial() {
            Some(crate::Initial::Approx) => " <span class=\"muted\">(guess)</span>",
            _ => "",
        };
        let _ = write!(
            h,
            "<tr><td><code>{}</code></td><td>{}</td><td>{unit}</td><td>{display}</td>\
             <td class=\"num\">{start_si}{initial}</td><td class=\"num\">{start_display}</td>\
             <td class=\"num\">{min}</td><td class=\"num\">{max}</td><td>{}</td>",
            escape_html(&v.name),
            escape_html(&v.description),
            v.variability.as_str(),
        );
        if outputs {
            let deps = match &v.dependencies {
                None => "all inputs (not declared)".to_owned(),
                Some(d) if d.is_empty() => "no input (no direct feedthrough)".to_owned(),
                Some(d) => d
                    .iter()
                    .map(|vr| match self.variable(*vr) {
                        Some(x) => format!("<code>{}</code>", escape_html(&x.name)),
                        None => format!("vr {vr}"),
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            let _ = write!(h, "<td>{deps}</td>");
        }
        if others {
            let _ = write!(h, "<td>{}</td>", v.causality.as_str());
        }
        h.push_str("</tr>\n");
    }

    fn write_experiment_section(&self, h: &mut String) {
        let e = &self.default_experiment;
        let _ = write!(
            h,
            "<section id=\"experiment\">\n<h2>Default experiment</h2>\n<table>\n<tbody>\n\
             <tr><th>Start time</th><td class=\"num\">{} s</td></tr>\n\
             <tr><th>Stop time</th><td class=\"num\">{} s</td></tr>\n\
             <tr><th>Communication step size</th><td class=\"num\">{} s</td></tr>\n\
             <tr><th>Relative tolerance</th><td class=\"num\">{}</td></tr>\n\
             </tbody>\n</table>\n</section>\n",
            human(e.start_time),
            human(e.stop_time),
            human(e.step_size),
            human(e.tolerance)
        );
    }

    fn write_capabilities_section(&self, h: &mut String) {
        let c = &self.capabilities;
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        h.push_str("<section id=\"capabilities\">\n<h2>Capabilities</h2>\n<table>\n<thead><tr><th>Capability</th><th>FMI 2.0 / FMI 3.0 attribute</th><th>Supported</th></tr></thead>\n<tbody>\n");
        for (what, attr, value) in [
            (
                "Variable communication step size",
                "canHandleVariableCommunicationStepSize",
                c.can_handle_variable_communication_step_size,
            ),
            (
                "Get and set FMU state",
                "canGetAndSetFMUstate / canGetAndSetFMUState",
                c.can_get_and_set_fmu_state,
            ),
            (
                "Serialize FMU state",
                "canSerializeFMUstate / canSerializeFMUState",
                c.can_serialize_fmu_state,
            ),
            (
                "Directional derivatives",
                "providesDirectionalDerivative / providesDirectionalDerivatives",
                c.provides_directional_derivative,
            ),
            (
                "Input interpolation",
                "canInterpolateInputs (FMI 2.0)",
                false,
            ),
            ("Output derivatives", "maxOutputDerivativeOrder = 0", false),
            ("Event mode", "hasEventMode (FMI 3.0)", false),
            (
                "Intermediate update",
                "providesIntermediateUpdate (FMI 3.0)",
                false,
            ),
            (
                "Several instances per process",
                "canBeInstantiatedOnlyOncePerProcess = false",
                true,
            ),
        ] {
            let _ = writeln!(
                h,
                "<tr><td>{what}</td><td><code>{attr}</code></td><td>{}</td></tr>",
                yes_no(value)
            );
        }
        h.push_str("</tbody>\n</table>\n</section>\n");
    }

    fn write_logging_section(&self, h: &mut String) {
        h.push_str("<section id=\"logging\">\n<h2>Log categories</h2>\n");
        if self.log_categories.is_empty() {
            h.push_str("<p class=\"muted\">None declared.</p>\n</section>\n");
            return;
        }
        h.push_str(
            "<table>\n<thead><tr><th>Category</th><th>Description</th></tr></thead>\n<tbody>\n",
        );
        for c in &self.log_categories {
            let _ = writeln!(
                h,
                "<tr><td><code>{}</code></td><td>{}</td></tr>",
                escape_html(&c.name),
                escape_html(&c.description)
            );
        }
        h.push_str("</tbody>\n</table>\n</section>\n");
    }

    fn write_fmi_section(&self, h: &mut String) {
        let _ = write!(
            h,
            "<section id=\"fmi\">\n<h2>FMI</h2>\n<table>\n<tbody>\n\
             <tr><th>Interfaces</th><td>FMI 2.0 Co-Simulation, FMI 3.0 Co-Simulation (one binary, both APIs)</td></tr>\n\
             <tr><th>Model identifier</th><td><code>{}</code></td></tr>\n\
             <tr><th>Model version</th><td>{}</td></tr>\n\
             <tr><th>Instantiation token (FMI 2 <code>guid</code>)</th><td><code>{}</code></td></tr>\n\
             <tr><th>Variables</th><td>{}</td></tr>\n\
             </tbody>\n</table>\n</section>\n",
            escape_html(&self.model_identifier),
            escape_html(&self.version),
            escape_html(&self.instantiation_token()),
            self.variables.len()
        );
    }
}

/// A section with an HTML fragment inserted as it is (or a note when empty).
/// Renders a Markdown page (CommonMark with tables) to an HTML fragment,
/// each heading two levels down so that the page's own title sits under the
/// section's `<h2>`.
fn markdown_html(markdown: &str) -> String {
    use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
    let down = |level: HeadingLevel| match level {
        HeadingLevel::H1 => HeadingLevel::H3,
        HeadingLevel::H2 => HeadingLevel::H4,
        HeadingLevel::H3 => HeadingLevel::H5,
        _ => HeadingLevel::H6,
    };
    let events = Parser::new_ext(markdown, Options::ENABLE_TABLES).map(|event| match event {
        Event::Start(Tag::Heading {
            level,
            id,
            classes,
            attrs,
        }) => Event::Start(Tag::Heading {
            level: down(level),
            id,
            classes,
            attrs,
        }),
        Event::End(TagEnd::Heading(level)) => Event::End(TagEnd::Heading(down(level))),
        other => other,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

fn section(h: &mut String, id: &str, title: &str, fragment_html: &str) {
    let _ = writeln!(h, "<section id=\"{id}\">\n<h2>{title}</h2>");
    if fragment_html.trim().is_empty() {
        h.push_str("<p class=\"muted\">Not documented.</p>\n");
    } else {
        h.push_str(fragment_html);
        h.push('\n');
    }
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::sample;

    #[test]
    fn page_lists_every_variable_and_escapes_text() {
        let md = sample();
        let html = md.documentation_html();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.trim_end().ends_with("</html>"));
        for v in &md.variables {
            assert!(
                html.contains(&format!("<code>{}</code>", v.name)),
                "missing {}",
                v.name
            );
        }
        // text from the table is escaped ...
        assert!(html.contains("Discharge coefficient, &lt; 1"));
        assert!(!html.contains("Discharge coefficient, < 1"));
        assert!(html.contains("&lt;test model&gt;"));
        assert!(html.contains("Integrator &lt;step&gt; statistics"));
        assert!(html.contains("&quot;between&quot; orifices 1 &amp; 2"));
        // ... the Markdown page is rendered, headings one level down,
        // tables as tables, text escaped
        assert!(html.contains("<h3>OrificeChain</h3>"), "{html}");
        assert!(html.contains("<h4>Equations</h4>"));
        assert!(html.contains("<code>Q = Cd A sqrt(2 dp / rho)</code>"));
        assert!(html.contains("<td>1 &lt; 2</td>"));
        // start values in SI and display units, token, versions
        assert!(html.contains("1e7"), "ps start in Pa");
        assert!(html.contains("100 bar"), "ps start in bar");
        assert!(html.contains("3.333333333 cm3"), "V1 start in cm3");
        assert!(html.contains(&md.instantiation_token()));
        assert!(html.contains("FMI 2.0 Co-Simulation, FMI 3.0 Co-Simulation"));
        assert!(html.contains("logSolver"));
        for group in ["Inputs", "Outputs", "Parameters", "Other variables"] {
            assert!(html.contains(&format!("<h3>{group}</h3>")));
        }
    }

    #[test]
    fn html_escape_and_number_format() {
        assert_eq!(
            escape_html("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"
        );
        assert_eq!(human(1e7), "1e7");
        assert_eq!(human(0.61), "0.61");
        assert_eq!(human(1e7 * 1e-5), "100");
        assert_eq!(human(870.0), "870");
        assert_eq!(human(1e-5 / 3.0), "3.333333333e-6");
        assert_eq!(human(0.0), "0");
    }
}
