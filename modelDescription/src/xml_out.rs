//! Pieces shared by the FMI 2.0 and FMI 3.0 writers: a small wrapper over the
//! quick-xml writer, number formatting, and the sections both versions write
//! the same way (units, log categories, default experiment).

use std::borrow::Cow;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};

use crate::model::{Causality, Initial, ModelDescription, VariableType};
use crate::units::find_unit;

/// An attribute list: names with their (unescaped) values.
pub(crate) type Attrs = Vec<(&'static str, String)>;

/// Writes `x` so that parsing the text gives back exactly the same `f64`
/// (Rust's shortest round-trip form), with the XML Schema spellings of the
/// special values.
pub(crate) fn fmt_f64(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x == f64::INFINITY {
        "INF".to_owned()
    } else if x == f64::NEG_INFINITY {
        "-INF".to_owned()
    } else {
        format!("{x:?}")
    }
}

/// XML Schema boolean literal.
/// The type-specific attributes of a variable (start, min, max, unit,
/// displayUnit, nominal), the same in FMI 2 and FMI 3.
pub(crate) fn type_attributes(kind: &VariableType, a: &mut Attrs) {
    let mut push = |key: &'static str, value: Option<String>| {
        if let Some(v) = value {
            a.push((key, v));
        }
    };
    match kind {
        VariableType::Real {
            start,
            min,
            max,
            unit,
            display_unit,
            nominal,
        } => {
            push("start", start.map(fmt_f64));
            push("min", min.map(fmt_f64));
            push("max", max.map(fmt_f64));
            push("unit", unit.clone());
            push("displayUnit", display_unit.clone());
            push("nominal", nominal.map(fmt_f64));
        }
        VariableType::Integer { start, min, max } => {
            push("start", start.map(|x| x.to_string()));
            push("min", min.map(|x| x.to_string()));
            push("max", max.map(|x| x.to_string()));
        }
        VariableType::Boolean { start } => push("start", start.map(fmt_bool)),
    }
}

pub(crate) fn fmt_bool(b: bool) -> String {
    if b { "true" } else { "false" }.to_owned()
}

/// Replaces the characters XML 1.0 cannot carry at all (C0 controls other
/// than tab, line feed and carriage return) with U+FFFD; everything else is
/// escaped by quick-xml when written.
fn xml_safe(s: &str) -> Cow<'_, str> {
    let bad = |c: char| matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}');
    if s.chars().any(bad) {
        Cow::Owned(
            s.chars()
                .map(|c| if bad(c) { '\u{fffd}' } else { c })
                .collect(),
        )
    } else {
        Cow::Borrowed(s)
    }
}

/// An indenting (two spaces) UTF-8 XML writer into memory.
pub(crate) struct XmlOut {
    w: Writer<Vec<u8>>,
}

impl XmlOut {
    /// A new document, starting with the XML declaration.
    pub(crate) fn new() -> Self {
        let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
            .expect("writing to memory cannot fail");
        XmlOut { w }
    }

    fn tag<'a>(name: &'a str, attrs: &'a Attrs) -> BytesStart<'a> {
        let mut t = BytesStart::new(name);
        for (k, v) in attrs {
            let v = xml_safe(v);
            t.push_attribute((*k, v.as_ref()));
        }
        t
    }

    /// `<name attrs/>`.
    pub(crate) fn empty(&mut self, name: &str, attrs: &Attrs) {
        self.w
            .write_event(Event::Empty(Self::tag(name, attrs)))
            .expect("writing to memory cannot fail");
    }

    /// `<name attrs>`; close it with [`Self::end`].
    pub(crate) fn start(&mut self, name: &str, attrs: &Attrs) {
        self.w
            .write_event(Event::Start(Self::tag(name, attrs)))
            .expect("writing to memory cannot fail");
    }

    /// `</name>`.
    pub(crate) fn end(&mut self, name: &str) {
        self.w
            .write_event(Event::End(BytesEnd::new(name)))
            .expect("writing to memory cannot fail");
    }

    /// `<!-- text -->` (the text must not contain `--`).
    pub(crate) fn comment(&mut self, text: &str) {
        let safe = text.replace("--", "- -");
        self.w
            .write_event(Event::Comment(BytesText::from_escaped(format!(" {safe} "))))
            .expect("writing to memory cannot fail");
    }

    /// The finished document, ending with a newline.
    pub(crate) fn finish(self) -> String {
        let mut s = String::from_utf8(self.w.into_inner()).expect("quick-xml writes UTF-8");
        s.push('\n');
        s
    }
}

/// Root-element attributes both versions share, after `fmiVersion`,
/// `modelName` and the token.
pub(crate) fn common_root_attrs(md: &ModelDescription, attrs: &mut Attrs) {
    if !md.description.is_empty() {
        attrs.push(("description", md.description.clone()));
    }
    if !md.version.is_empty() {
        attrs.push(("version", md.version.clone()));
    }
    if !md.generation_tool.is_empty() {
        attrs.push(("generationTool", md.generation_tool.clone()));
    }
    // Names of parts' variables (`line.p`, a described circuit's) follow
    // the structured convention; every other FMU's names are flat.
    let structured = md.variables.iter().any(|v| v.name.contains('.'));
    attrs.push((
        "variableNamingConvention",
        if structured { "structured" } else { "flat" }.to_owned(),
    ));
}

/// `<UnitDefinitions>` with the units the variables use (sorted by name),
/// each with its `<BaseUnit>` exponents and all its catalogue display units.
/// Nothing is written when no variable has a unit. Units missing from the
/// catalogue (which [`ModelDescription::validate`] reports) are written
/// without base unit and display units.
pub(crate) fn write_unit_definitions(out: &mut XmlOut, md: &ModelDescription) {
    let used = md.used_units();
    if used.is_empty() {
        return;
    }
    out.start("UnitDefinitions", &Vec::new());
    for name in &used {
        let unit_attrs = vec![("name", name.clone())];
        let Some(unit) = find_unit(name) else {
            out.empty("Unit", &unit_attrs);
            continue;
        };
        out.start("Unit", &unit_attrs);
        let base: Attrs = unit
            .base
            .exponents()
            .iter()
            .filter(|(_, e)| *e != 0)
            .map(|(k, e)| (*k, e.to_string()))
            .collect();
        out.empty("BaseUnit", &base);
        for d in unit.display_units {
            let mut a = vec![("name", d.name.to_owned())];
            if d.factor != 1.0 {
                a.push(("factor", fmt_f64(d.factor)));
            }
            if d.offset != 0.0 {
                a.push(("offset", fmt_f64(d.offset)));
            }
            out.empty("DisplayUnit", &a);
        }
        out.end("Unit");
    }
    out.end("UnitDefinitions");
}

/// `<LogCategories>` (nothing when there are none).
pub(crate) fn write_log_categories(out: &mut XmlOut, md: &ModelDescription) {
    if md.log_categories.is_empty() {
        return;
    }
    out.start("LogCategories", &Vec::new());
    for c in &md.log_categories {
        let mut a = vec![("name", c.name.clone())];
        if !c.description.is_empty() {
            a.push(("description", c.description.clone()));
        }
        out.empty("Category", &a);
    }
    out.end("LogCategories");
}

/// `<DefaultExperiment startTime stopTime tolerance stepSize/>`.
pub(crate) fn write_default_experiment(out: &mut XmlOut, md: &ModelDescription) {
    let e = &md.default_experiment;
    out.empty(
        "DefaultExperiment",
        &vec![
            ("startTime", fmt_f64(e.start_time)),
            ("stopTime", fmt_f64(e.stop_time)),
            ("tolerance", fmt_f64(e.tolerance)),
            ("stepSize", fmt_f64(e.step_size)),
        ],
    );
}

/// The `initial` attribute to write, if any: only an explicit `initial`
/// that differs from the standard's default for the variable's causality and
/// variability (inputs and the independent variable never carry one).
pub(crate) fn initial_to_write(v: &crate::Variable) -> Option<Initial> {
    match v.causality {
        Causality::Input | Causality::Independent => None,
        _ => v
            .initial
            .filter(|i| Some(*i) != Initial::default_for(v.causality, v.variability)),
    }
}

/// Positions (0-based, table order) of the variables that belong in
/// `InitialUnknowns`: outputs, and with Model Exchange the continuous
/// states and their derivatives, whose effective `initial` is approx or
/// calculated, and all calculated parameters.
pub(crate) fn initial_unknown_positions(md: &ModelDescription) -> Vec<usize> {
    let derivatives = md.derivatives();
    let state_like = |i: usize| derivatives.iter().any(|&(d, s)| d == i || s == i);
    let approx_or_calculated = |v: &crate::Variable| {
        matches!(
            v.effective_initial(),
            Some(Initial::Approx | Initial::Calculated)
        )
    };
    md.variables
        .iter()
        .enumerate()
        .filter(|(i, v)| match v.causality {
            Causality::Output => approx_or_calculated(v),
            Causality::CalculatedParameter => true,
            _ if state_like(*i) => approx_or_calculated(v),
            _ => false,
        })
        .map(|(i, _)| i)
        .collect()
}

/// `dependenciesKind` for a list of `n` dependencies: `dependent` for each
/// (the models' outputs are nonlinear in their inputs).
pub(crate) fn dependencies_kind(n: usize) -> String {
    vec!["dependent"; n].join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_round_trip_exactly() {
        for x in [
            0.0,
            -0.0,
            1e7,
            1e-5,
            0.1,
            1.0 / 3.0,
            -273.15,
            f64::MIN_POSITIVE,
            f64::MAX,
            5e-324,
            123_456_789.123_456_79,
        ] {
            let s = fmt_f64(x);
            let back: f64 = s.parse().unwrap();
            assert_eq!(back.to_bits(), x.to_bits(), "{x} -> {s}");
        }
        assert_eq!(fmt_f64(f64::INFINITY), "INF");
        assert_eq!(fmt_f64(f64::NEG_INFINITY), "-INF");
        assert_eq!(fmt_f64(f64::NAN), "NaN");
    }

    #[test]
    fn control_characters_are_replaced() {
        assert_eq!(xml_safe("a\u{1}b\tc"), "a\u{fffd}b\tc");
        assert!(matches!(xml_safe("plain"), Cow::Borrowed(_)));
    }
}
