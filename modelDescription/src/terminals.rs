//! FMI 3.0 terminals: groups of variables that a tool connects in one go
//! (a hydraulic port's pressure and flow, a flange's position, velocity and
//! force), written as `terminalsAndIcons/terminalsAndIcons.xml` with the
//! placement of each terminal around the FMU's icon, and read back.
//!
//! The domain meaning (which members a hydraulic port has, their units)
//! comes from the component crates; this module only writes, places, checks
//! and reads terminals.

use crate::model::{Causality, ModelDescription, VariableType};
use crate::read::{Node, ParseError, parse_tree};
use crate::xml_out::{XmlOut, fmt_f64};

/// How a member is connected (FMI 3 `variableKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    /// Connected values are equal (a pressure, a position).
    Signal,
    /// A flow that obeys Kirchhoff's law, positive into the FMU.
    Inflow,
    /// A flow that obeys Kirchhoff's law, positive out of the FMU.
    Outflow,
}

impl MemberKind {
    /// The `variableKind` attribute.
    pub fn as_str(self) -> &'static str {
        match self {
            MemberKind::Signal => "signal",
            MemberKind::Inflow => "inflow",
            MemberKind::Outflow => "outflow",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "signal" => Some(MemberKind::Signal),
            "inflow" => Some(MemberKind::Inflow),
            "outflow" => Some(MemberKind::Outflow),
            _ => None,
        }
    }
}

/// One member of a terminal: a model variable under a member name.
#[derive(Debug, Clone, PartialEq)]
pub struct TerminalMember {
    /// The model variable (`variableName`).
    pub variable: String,
    /// The name terminals are matched by (`memberName`).
    pub member: String,
    /// Signal or flow.
    pub kind: MemberKind,
    /// The SI unit the variable must have (checked by `validate`).
    pub unit: Option<String>,
}

/// Which side of the icon a terminal sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// x = -100.
    Left,
    /// x = +100.
    Right,
    /// y = +100.
    Top,
    /// y = -100.
    Bottom,
}

/// A terminal of the FMU.
#[derive(Debug, Clone, PartialEq)]
pub struct Terminal {
    /// Unique name (for example `P`, `T`, `port_1`, `rod`).
    pub name: String,
    /// What it is, for people.
    pub description: String,
    /// `terminalKind` (vendor kinds start with `_fluidfmu_`).
    pub terminal_kind: String,
    /// Its members, matched by member name (`matchingRule="plug"`).
    pub members: Vec<TerminalMember>,
    /// Where it sits on the icon.
    pub side: Side,
    /// Base name of its icon files (`<base>.png`, `<base>.svg` in
    /// `terminalsAndIcons/`).
    pub icon: String,
    /// Default connection colour, RGB.
    pub color: [u8; 3],
}

/// The terminal kind of a hydraulic port: members `p` (pressure, Pa,
/// signal) and `q` (volume flow, m3/s, inflow or outflow).
pub const HYDRAULIC_PORT: &str = "_fluidfmu_HydraulicPort";
/// The terminal kind of a translational flange in causal co-simulation:
/// members `s` (position, m), `v` (velocity, m/s) and `f` (force, N), all
/// signals (one side computes the motion, the other the force).
pub const FLANGE: &str = "_fluidfmu_TranslationalFlange";

impl Terminal {
    /// A hydraulic port: `pressure` (Pa) and `flow` (m3/s), the flow
    /// positive into the FMU when `flow_into`, else positive out of it.
    pub fn hydraulic_port(
        name: &str,
        description: &str,
        pressure: &str,
        flow: &str,
        flow_into: bool,
        side: Side,
    ) -> Terminal {
        let member = |variable: &str, member: &str, kind, unit: &str| TerminalMember {
            variable: variable.to_owned(),
            member: member.to_owned(),
            kind,
            unit: Some(unit.to_owned()),
        };
        Terminal {
            name: name.to_owned(),
            description: description.to_owned(),
            terminal_kind: HYDRAULIC_PORT.to_owned(),
            members: vec![
                member(pressure, "p", MemberKind::Signal, "Pa"),
                member(
                    flow,
                    "q",
                    if flow_into {
                        MemberKind::Inflow
                    } else {
                        MemberKind::Outflow
                    },
                    "m3/s",
                ),
            ],
            side,
            icon: "hydraulic_port".to_owned(),
            color: [0, 90, 200],
        }
    }

    /// A translational flange: `position` (m), `velocity` (m/s) and `force`
    /// (N) on the same axis.
    pub fn flange(
        name: &str,
        description: &str,
        position: &str,
        velocity: &str,
        force: &str,
        side: Side,
    ) -> Terminal {
        let member = |variable: &str, member: &str, unit: &str| TerminalMember {
            variable: variable.to_owned(),
            member: member.to_owned(),
            kind: MemberKind::Signal,
            unit: Some(unit.to_owned()),
        };
        Terminal {
            name: name.to_owned(),
            description: description.to_owned(),
            terminal_kind: FLANGE.to_owned(),
            members: vec![
                member(position, "s", "m"),
                member(velocity, "v", "m/s"),
                member(force, "f", "N"),
            ],
            side,
            icon: "flange".to_owned(),
            color: [60, 60, 60],
        }
    }
}

/// Half the icon's extent (the default coordinate system, -100..100).
pub const ICON_HALF: f64 = 100.0;
/// Edge length of a terminal's square.
pub const TERMINAL_SIZE: f64 = 20.0;

impl ModelDescription {
    /// Each terminal's extent `[x1, y1, x2, y2]`, in the terminals' order:
    /// the terminals of one side spread evenly along it, just outside the
    /// icon.
    pub fn terminal_extents(&self) -> Vec<[f64; 4]> {
        let half = TERMINAL_SIZE / 2.0;
        self.terminals
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let same: Vec<usize> = (0..self.terminals.len())
                    .filter(|&j| self.terminals[j].side == t.side)
                    .collect();
                let k = same.iter().position(|&j| j == i).unwrap_or(0) as f64;
                let n = same.len() as f64;
                // Along the side: evenly spaced, from top to bottom or left
                // to right.
                let along = -ICON_HALF + 2.0 * ICON_HALF * (k + 1.0) / (n + 1.0);
                match t.side {
                    Side::Left => [
                        -ICON_HALF - TERMINAL_SIZE,
                        -along - half,
                        -ICON_HALF,
                        -along + half,
                    ],
                    Side::Right => [
                        ICON_HALF,
                        -along - half,
                        ICON_HALF + TERMINAL_SIZE,
                        -along + half,
                    ],
                    Side::Top => [
                        along - half,
                        ICON_HALF,
                        along + half,
                        ICON_HALF + TERMINAL_SIZE,
                    ],
                    Side::Bottom => [
                        along - half,
                        -ICON_HALF - TERMINAL_SIZE,
                        along + half,
                        -ICON_HALF,
                    ],
                }
            })
            .collect()
    }

    /// `terminalsAndIcons/terminalsAndIcons.xml` (FMI 3.0): the icon's
    /// coordinate system and extent, and every terminal (if any) with its
    /// members and graphical representation.
    pub fn to_terminals_xml(&self) -> String {
        let mut out = XmlOut::new();
        out.start(
            "fmiTerminalsAndIcons",
            &vec![("fmiVersion", "3.0".to_owned())],
        );
        out.start("GraphicalRepresentation", &Vec::new());
        let (lo, hi) = (fmt_f64(-ICON_HALF), fmt_f64(ICON_HALF));
        out.empty(
            "CoordinateSystem",
            &vec![
                ("x1", lo.clone()),
                ("y1", lo.clone()),
                ("x2", hi.clone()),
                ("y2", hi.clone()),
                ("suggestedScalingFactorTo_mm", "0.1".to_owned()),
            ],
        );
        out.empty(
            "Icon",
            &vec![
                ("x1", lo.clone()),
                ("y1", lo),
                ("x2", hi.clone()),
                ("y2", hi),
            ],
        );
        out.end("GraphicalRepresentation");
        if self.terminals.is_empty() {
            out.end("fmiTerminalsAndIcons");
            return out.finish();
        }
        out.start("Terminals", &Vec::new());
        for (t, extent) in self.terminals.iter().zip(self.terminal_extents()) {
            out.start(
                "Terminal",
                &vec![
                    ("name", t.name.clone()),
                    ("matchingRule", "plug".to_owned()),
                    ("terminalKind", t.terminal_kind.clone()),
                    ("description", t.description.clone()),
                ],
            );
            for m in &t.members {
                out.empty(
                    "TerminalMemberVariable",
                    &vec![
                        ("variableName", m.variable.clone()),
                        ("memberName", m.member.clone()),
                        ("variableKind", m.kind.as_str().to_owned()),
                    ],
                );
            }
            let [x1, y1, x2, y2] = extent;
            out.empty(
                "TerminalGraphicalRepresentation",
                &vec![
                    (
                        "defaultConnectionColor",
                        t.color.map(|c| c.to_string()).join(" "),
                    ),
                    ("defaultConnectionStrokeSize", "1".to_owned()),
                    ("x1", fmt_f64(x1)),
                    ("y1", fmt_f64(y1)),
                    ("x2", fmt_f64(x2)),
                    ("y2", fmt_f64(y2)),
                    ("iconBaseName", t.icon.clone()),
                ],
            );
            out.end("Terminal");
        }
        out.end("Terminals");
        out.end("fmiTerminalsAndIcons");
        out.finish()
    }

    /// The problems of the terminals: unique names, members that name a
    /// Real variable the standard lets a terminal hold (input, output,
    /// parameter, calculated parameter) with the unit the member asks for,
    /// unique member names, icon base names that are plain file names.
    pub(crate) fn check_terminals(&self, problems: &mut Vec<String>) {
        let mut names = std::collections::BTreeSet::new();
        for t in &self.terminals {
            let label = format!("terminal {:?}", t.name);
            if t.name.trim().is_empty() || !names.insert(t.name.as_str()) {
                problems.push(format!("{label}: empty or repeated terminal name"));
            }
            if t.members.is_empty() {
                problems.push(format!("{label} has no members"));
            }
            if t.icon.is_empty()
                || !t
                    .icon
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                problems.push(format!(
                    "{label}: icon base name {:?} is not a plain file name",
                    t.icon
                ));
            }
            let mut members = std::collections::BTreeSet::new();
            for m in &t.members {
                if !members.insert(m.member.as_str()) {
                    problems.push(format!("{label}: member name {:?} repeated", m.member));
                }
                let Some(v) = self.variable_by_name(&m.variable) else {
                    problems.push(format!("{label}: no variable {:?}", m.variable));
                    continue;
                };
                if !matches!(
                    v.causality,
                    Causality::Input
                        | Causality::Output
                        | Causality::Parameter
                        | Causality::CalculatedParameter
                ) {
                    problems.push(format!(
                        "{label}: variable {:?} is {:?}; a terminal member must be an input, \
                         output, parameter or calculated parameter",
                        m.variable, v.causality
                    ));
                }
                match (&v.kind, &m.unit) {
                    (VariableType::Real { unit, .. }, Some(want))
                        if unit.as_ref() != Some(want) =>
                    {
                        problems.push(format!(
                            "{label}: member {:?} needs unit {want}, variable {:?} has {}",
                            m.member,
                            m.variable,
                            unit.as_deref().unwrap_or("none")
                        ))
                    }
                    (VariableType::Real { .. }, _) => {}
                    _ => problems.push(format!(
                        "{label}: variable {:?} is not a Real (Float64)",
                        m.variable
                    )),
                }
            }
        }
    }
}

/// A terminal read back from `terminalsAndIcons.xml`.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedTerminal {
    /// Name.
    pub name: String,
    /// `terminalKind`, if given.
    pub terminal_kind: Option<String>,
    /// `matchingRule`.
    pub matching_rule: String,
    /// Description, if given.
    pub description: Option<String>,
    /// Members: variable name, member name, kind.
    pub members: Vec<(String, String, MemberKind)>,
    /// Extent `[x1, y1, x2, y2]` and icon base name, if it has a graphical
    /// representation.
    pub graphics: Option<([f64; 4], String)>,
}

/// Reads the terminals of a `terminalsAndIcons.xml` (top level only).
pub fn parse_terminals(xml: &str) -> Result<Vec<ParsedTerminal>, ParseError> {
    let root = parse_tree(xml)?;
    if root.name != "fmiTerminalsAndIcons" {
        return Err(ParseError::MissingElement(
            "fmiTerminalsAndIcons".to_owned(),
        ));
    }
    let Some(list) = root.child("Terminals") else {
        return Ok(Vec::new());
    };
    list.children_named("Terminal")
        .map(parse_terminal)
        .collect()
}

fn parse_terminal(t: &Node) -> Result<ParsedTerminal, ParseError> {
    let invalid = |node: &Node, attribute: &str, value: &str| ParseError::InvalidValue {
        element: node.label(),
        attribute: attribute.to_owned(),
        value: value.to_owned(),
    };
    let mut members = Vec::new();
    for m in t.children_named("TerminalMemberVariable") {
        let kind = m.required("variableKind")?;
        members.push((
            m.required("variableName")?.to_owned(),
            m.attr("memberName").unwrap_or_default().to_owned(),
            MemberKind::parse(kind).ok_or_else(|| invalid(m, "variableKind", kind))?,
        ));
    }
    let graphics = match t.child("TerminalGraphicalRepresentation") {
        None => None,
        Some(g) => {
            let mut extent = [0.0; 4];
            for (slot, key) in extent.iter_mut().zip(["x1", "y1", "x2", "y2"]) {
                let text = g.required(key)?;
                *slot = text.parse().map_err(|_| invalid(g, key, text))?;
            }
            Some((extent, g.required("iconBaseName")?.to_owned()))
        }
    };
    Ok(ParsedTerminal {
        name: t.required("name")?.to_owned(),
        terminal_kind: t.attr("terminalKind").map(str::to_owned),
        matching_rule: t.required("matchingRule")?.to_owned(),
        description: t.attr("description").map(str::to_owned),
        members,
        graphics,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::sample;

    fn port(name: &str, side: Side, p: &str, q: &str) -> Terminal {
        Terminal::hydraulic_port(name, &format!("port {name}"), p, q, true, side)
    }

    /// The sample model with one valid terminal (its first Pa variable and
    /// its first m3/s variable), or `None` if it has no such pair.
    fn with_port() -> Option<ModelDescription> {
        let mut md = sample();
        let unit_of = |u: &str| {
            md.variables
                .iter()
                .find(|v| matches!(&v.kind, VariableType::Real { unit: Some(x), .. } if x == u))
                .map(|v| v.name.clone())
        };
        let (p, q) = (unit_of("Pa")?, unit_of("m3/s")?);
        md.terminals = vec![port("P", Side::Left, &p, &q)];
        Some(md)
    }

    #[test]
    fn terminals_are_written_and_read_back() {
        let md = with_port().expect("the sample model has a pressure and a flow");
        let mut problems = Vec::new();
        md.check_terminals(&mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        let xml = md.to_terminals_xml();
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
        let back = parse_terminals(&xml).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].name, "P");
        assert_eq!(back[0].matching_rule, "plug");
        assert_eq!(back[0].members[0].1, "p");
        assert_eq!(back[0].members[1].2, MemberKind::Inflow);
        let (extent, icon) = back[0].graphics.clone().unwrap();
        assert_eq!(extent, [-120.0, -10.0, -100.0, 10.0]);
        assert_eq!(icon, "hydraulic_port");
    }

    #[test]
    fn without_terminals_the_file_has_only_the_icon() {
        let xml = sample().to_terminals_xml();
        assert!(xml.contains("<Icon "), "{xml}");
        assert!(!xml.contains("<Terminals"), "{xml}");
        assert_eq!(parse_terminals(&xml).unwrap(), vec![]);
    }

    #[test]
    fn terminals_of_one_side_are_spread_along_it() {
        let mut md = with_port().unwrap();
        let t = md.terminals[0].clone();
        md.terminals = vec![
            Terminal {
                name: "A".into(),
                side: Side::Top,
                ..t.clone()
            },
            Terminal {
                name: "B".into(),
                side: Side::Top,
                ..t.clone()
            },
            Terminal {
                name: "T".into(),
                side: Side::Right,
                ..t
            },
        ];
        let e = md.terminal_extents();
        // Two on top at x = -100 + 200/3 and -100 + 400/3, ±10.
        let close = |a: [f64; 4], b: [f64; 4]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
        assert!(
            close(e[0], [-130.0 / 3.0, 100.0, -70.0 / 3.0, 120.0]),
            "{:?}",
            e[0]
        );
        assert!(
            close(e[1], [70.0 / 3.0, 100.0, 130.0 / 3.0, 120.0]),
            "{:?}",
            e[1]
        );
        assert_eq!(e[2], [100.0, -10.0, 120.0, 10.0]);
    }

    #[test]
    fn bad_terminals_are_reported() {
        let mut md = with_port().unwrap();
        let good = md.terminals[0].clone();
        let mut wrong_unit = good.clone();
        wrong_unit.name = "W".into();
        wrong_unit.members[0].unit = Some("m3/s".into());
        let mut missing = good.clone();
        missing.name = "M".into();
        missing.members[1].variable = "no_such_variable".into();
        let mut repeated = good.clone();
        repeated.members[1].member = "p".into();
        let mut bad_icon = good.clone();
        bad_icon.name = "I".into();
        bad_icon.icon = "../up".into();
        md.terminals = vec![good, wrong_unit, missing, repeated, bad_icon];
        let mut problems = Vec::new();
        md.check_terminals(&mut problems);
        let all = problems.join("\n");
        assert!(all.contains("needs unit m3/s"), "{all}");
        assert!(all.contains("no variable \"no_such_variable\""), "{all}");
        assert!(all.contains("member name \"p\" repeated"), "{all}");
        assert!(all.contains("repeated terminal name"), "{all}");
        assert!(all.contains("not a plain file name"), "{all}");
    }
}
