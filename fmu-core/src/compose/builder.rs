//! Building a circuit: parts, the nodes connecting their ports, the FMU
//! inputs bound to nodes; the checks of connectivity and causality, and
//! the layout of states and port values.

use super::part::Part;
use super::port::{Causality, Domain};
use std::sync::Arc;

/// A circuit under construction: parts, the nodes connecting their ports
/// and the FMU inputs that set values at nodes. [`Builder::build`] checks
/// it and lays it out as an [`Assembly`].
#[derive(Debug, Default)]
pub struct Builder {
    parts: Vec<(String, Arc<dyn Part>)>,
    /// Lists of connected ports (each list is one node; lists that share
    /// a port are one node).
    connections: Vec<Vec<PortRef>>,
    inputs: Vec<InputBinding>,
}

/// A port of a part of the builder: indices into the parts and the part's
/// ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PortRef {
    part: usize,
    port: usize,
}

/// An FMU input that sets an across variable (or the signal) of the node
/// holding `port`, or (`variable` = [`THROUGH`]) delivers a flow, force
/// or torque into that node from outside.
#[derive(Debug, Clone)]
struct InputBinding {
    name: String,
    port: PortRef,
    variable: usize,
}

/// [`InputBinding::variable`] of an input that delivers the through
/// variable.
const THROUGH: usize = usize::MAX;

impl Builder {
    /// An empty circuit.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a part named `name` (unique in the circuit; its variables
    /// appear as `name.variable`).
    pub fn part(&mut self, name: &str, part: Arc<dyn Part>) -> Result<&mut Self, String> {
        if self.parts.iter().any(|(n, _)| n == name) {
            return Err(format!("two parts are named '{name}': rename one"));
        }
        if !is_name(name) {
            return Err(format!(
                "the part name '{name}' is not allowed: use letters, digits and '_', starting with a letter"
            ));
        }
        self.parts.push((name.to_owned(), part));
        Ok(self)
    }

    /// Connects the ports named `part.port` into one node (they share its
    /// across variables, and their through variables sum to zero). Lists
    /// that share a port join into one node.
    pub fn connect(&mut self, ports: &[&str]) -> Result<&mut Self, String> {
        if ports.len() < 2 {
            return Err(format!(
                "a connection needs two ports or more, got {}",
                ports.join(", ")
            ));
        }
        let refs = ports
            .iter()
            .map(|p| self.find(p))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, a) in refs.iter().enumerate() {
            if refs[..i].contains(a) {
                return Err(format!("the connection lists {} twice", ports[i]));
            }
        }
        self.connections.push(refs);
        Ok(self)
    }

    /// Binds the next FMU input (inputs are counted in the order of these
    /// calls) to the across variable `variable` (`p`; `s` or `v`; `phi` or
    /// `w`; `value` for a signal) of the node that holds `port`.
    pub fn input(&mut self, name: &str, port: &str, variable: &str) -> Result<&mut Self, String> {
        let at = self.find(port)?;
        let domain = self.port_spec(at).domain;
        let Some(v) = domain.across().iter().position(|a| *a == variable) else {
            return Err(format!(
                "input {name}: a {} port has no variable '{variable}' to set (it has {})",
                domain.name(),
                domain.across().join(", ")
            ));
        };
        self.inputs.push(InputBinding {
            name: name.to_owned(),
            port: at,
            variable: v,
        });
        Ok(self)
    }

    /// Binds the next FMU input to the through variable of the node that
    /// holds `port`: a flow (force, torque) delivered into the node from
    /// outside, which adds to what the node's volume (mass, inertia)
    /// receives; an ideal flow source, or the force of a mechanism on a
    /// mass.
    pub fn input_through(&mut self, name: &str, port: &str) -> Result<&mut Self, String> {
        let at = self.find(port)?;
        let domain = self.port_spec(at).domain;
        if domain.through().is_none() {
            return Err(format!(
                "input {name}: a signal port has no through variable; bind it with input"
            ));
        }
        self.inputs.push(InputBinding {
            name: name.to_owned(),
            port: at,
            variable: THROUGH,
        });
        Ok(self)
    }

    fn port_spec(&self, at: PortRef) -> super::Port {
        self.parts[at.part].1.ports()[at.port]
    }

    fn name_of(&self, at: PortRef) -> String {
        format!("{}.{}", self.parts[at.part].0, self.port_spec(at).name)
    }

    /// The port named `part.port`.
    fn find(&self, full: &str) -> Result<PortRef, String> {
        let Some((part, port)) = full.split_once('.') else {
            return Err(format!(
                "'{full}' names no port: write part.port (for example pump.P)"
            ));
        };
        let Some(p) = self.parts.iter().position(|(n, _)| n == part) else {
            let known: Vec<&str> = self.parts.iter().map(|(n, _)| n.as_str()).collect();
            return Err(format!(
                "'{full}': there is no part '{part}' (the parts: {})",
                known.join(", ")
            ));
        };
        let ports = self.parts[p].1.ports();
        let Some(k) = ports.iter().position(|q| q.name == port) else {
            let known: Vec<&str> = ports.iter().map(|q| q.name).collect();
            return Err(format!(
                "'{full}': part '{part}' has no port '{port}' (its ports: {})",
                known.join(", ")
            ));
        };
        Ok(PortRef { part: p, port: k })
    }

    /// Checks the circuit (every port connected that must be, one setter
    /// of each node's across variables, no domains mixed, at least one
    /// state) and lays it out.
    pub fn build(self) -> Result<super::Assembly, String> {
        let part_ports: Vec<usize> = self.parts.iter().map(|(_, p)| p.ports().len()).collect();
        let first_port: Vec<usize> = part_ports
            .iter()
            .scan(0, |acc, n| {
                let start = *acc;
                *acc += n;
                Some(start)
            })
            .collect();
        let port_count: usize = part_ports.iter().sum();
        let flat = |r: PortRef| first_port[r.part] + r.port;
        // Union of the connection lists; each port remembers where it was
        // first listed, which orders the node's members.
        let mut parent: Vec<usize> = (0..port_count).collect();
        let mut order: Vec<Option<usize>> = vec![None; port_count];
        let mut seen = 0;
        for list in &self.connections {
            for r in list {
                let i = flat(*r);
                if order[i].is_none() {
                    order[i] = Some(seen);
                    seen += 1;
                }
            }
            for pair in list.windows(2) {
                let (a, b) = (
                    root(&mut parent, flat(pair[0])),
                    root(&mut parent, flat(pair[1])),
                );
                if a != b {
                    parent[b.max(a)] = a.min(b);
                }
            }
        }
        // A port an input drives is connected (to the FMU).
        for binding in &self.inputs {
            let i = flat(binding.port);
            if order[i].is_none() {
                order[i] = Some(seen);
                seen += 1;
            }
        }
        let refs: Vec<PortRef> = (0..self.parts.len())
            .flat_map(|p| (0..part_ports[p]).map(move |k| PortRef { part: p, port: k }))
            .collect();
        // Unconnected ports: an error unless optional (then a node alone).
        for r in &refs {
            if order[flat(*r)].is_none() {
                if !self.port_spec(*r).optional {
                    return Err(format!(
                        "port {} ({}) is not connected: connect it to a port of another part",
                        self.name_of(*r),
                        self.port_spec(*r).description
                    ));
                }
                order[flat(*r)] = Some(seen);
                seen += 1;
            }
        }
        let mut groups: Vec<(usize, Vec<PortRef>)> = Vec::new();
        let mut sorted = refs.clone();
        sorted.sort_by_key(|r| order[flat(*r)]);
        for r in sorted {
            let g = root(&mut parent, flat(r));
            match groups.iter_mut().find(|(id, _)| *id == g) {
                Some((_, members)) => members.push(r),
                None => groups.push((g, vec![r])),
            }
        }
        // Slots: each part's port values and the values it keeps between
        // its phases, then one per input.
        let part_slots: Vec<usize> = self
            .parts
            .iter()
            .map(|(_, p)| p.ports().iter().map(|q| q.domain.slots()).sum::<usize>() + p.kept())
            .collect();
        let slot_start: Vec<usize> = part_slots
            .iter()
            .scan(0, |acc, n| {
                let start = *acc;
                *acc += n;
                Some(start)
            })
            .collect();
        let input_slots =
            slot_start.last().copied().unwrap_or(0) + part_slots.last().copied().unwrap_or(0);
        let port_slot = |r: PortRef| -> usize {
            let ports = self.parts[r.part].1.ports();
            slot_start[r.part]
                + ports[..r.port]
                    .iter()
                    .map(|q| q.domain.slots())
                    .sum::<usize>()
        };
        let mut nodes = Vec::with_capacity(groups.len());
        for (_, members) in groups {
            let domain = self.port_spec(members[0]).domain;
            if let Some(other) = members
                .iter()
                .find(|m| self.port_spec(**m).domain != domain)
            {
                return Err(format!(
                    "{} port {} is connected to {} port {}: a node joins ports of one domain",
                    domain.name(),
                    self.name_of(members[0]),
                    self.port_spec(*other).domain.name(),
                    self.name_of(*other)
                ));
            }
            let setters: Vec<PortRef> = members
                .iter()
                .copied()
                .filter(|m| self.port_spec(*m).sets_across())
                .collect();
            let bound: Vec<(usize, &InputBinding)> = self
                .inputs
                .iter()
                .enumerate()
                .filter(|(_, b)| members.contains(&b.port) && b.variable != THROUGH)
                .collect();
            let external: Vec<usize> = self
                .inputs
                .iter()
                .enumerate()
                .filter(|(_, b)| members.contains(&b.port) && b.variable == THROUGH)
                .map(|(i, _)| input_slots + i)
                .collect();
            let names = |list: &[PortRef]| {
                list.iter()
                    .map(|r| self.name_of(*r))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let across = domain.across().len();
            let source = match (setters.as_slice(), bound.is_empty()) {
                ([setter], true) => {
                    let s = port_slot(*setter);
                    Source::Port {
                        slots: (s..s + across).collect(),
                        through: domain.through().map(|_| s + across),
                        port: *setter,
                    }
                }
                ([], false) => {
                    if !external.is_empty() {
                        return Err(format!(
                            "the node of {} gets both its {} and its {} from inputs: one side must come from a part",
                            names(&members),
                            domain.across().join(" and "),
                            domain.through().map_or("", |t| t.0)
                        ));
                    }
                    let mut slots = vec![usize::MAX; across];
                    for (i, b) in &bound {
                        if slots[b.variable] != usize::MAX {
                            return Err(format!(
                                "inputs {} and {} both set {} at the node of {}",
                                self.inputs
                                    .iter()
                                    .find(|o| o.port == b.port && o.variable == b.variable)
                                    .map(|o| o.name.as_str())
                                    .unwrap_or("?"),
                                b.name,
                                domain.across()[b.variable],
                                names(&members)
                            ));
                        }
                        slots[b.variable] = input_slots + i;
                    }
                    if let Some(v) = slots.iter().position(|s| *s == usize::MAX) {
                        return Err(format!(
                            "the node of {} gets {} from inputs but not {}: bind an input to it too",
                            names(&members),
                            domain.across()[..across]
                                .iter()
                                .enumerate()
                                .filter(|(k, _)| slots[*k] != usize::MAX)
                                .map(|(_, a)| *a)
                                .collect::<Vec<_>>()
                                .join(", "),
                            domain.across()[v]
                        ));
                    }
                    Source::Inputs { slots }
                }
                ([], true) => {
                    let through: Vec<PortRef> = members
                        .iter()
                        .copied()
                        .filter(|m| self.port_spec(*m).causality == Causality::SetsThrough)
                        .collect();
                    let mut through = through;
                    if !external.is_empty() && through.is_empty() {
                        through.push(members[0]);
                    }
                    return Err(match domain {
                        Domain::Signal => format!(
                            "the signal {} has no source: connect it to a part that sets it, or to an input",
                            names(&members)
                        ),
                        Domain::Hydraulic if through.len() + external.len() >= 2 => format!(
                            "causality conflict at the node of {}: each of these parts sets the flow there and none sets the pressure; put a volume (a chamber or a hose segment) between them",
                            names(&through)
                        ),
                        _ => format!(
                            "nothing sets the {} at the node of {}: connect a part that does ({}) or bind an input to it",
                            domain.across().join(" and "),
                            names(&members),
                            match domain {
                                Domain::Hydraulic => "a volume, or a pressure source",
                                Domain::Translational => "a mass",
                                Domain::Rotational => "an inertia",
                                Domain::Signal => "a signal source",
                            }
                        ),
                    });
                }
                (many, _) => {
                    let mut who = names(many);
                    if !bound.is_empty() {
                        who += &format!(
                            "{}the input(s) {}",
                            if many.is_empty() { "" } else { " and " },
                            bound
                                .iter()
                                .map(|(_, b)| b.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        );
                    }
                    return Err(format!(
                        "the {} at the node of {} is set twice, by {}: one of them must take it from the node instead",
                        domain.across().join(" and "),
                        names(&members),
                        who
                    ));
                }
            };
            let readers: Vec<Vec<usize>> = members
                .iter()
                .filter(|m| match &source {
                    Source::Port { port, .. } => *m != port,
                    Source::Inputs { .. } => true,
                })
                .map(|m| {
                    let s = port_slot(*m);
                    (s..s + across).collect()
                })
                .collect();
            let through: Vec<usize> = members
                .iter()
                .filter(|m| self.port_spec(**m).causality == Causality::SetsThrough)
                .map(|m| port_slot(*m) + across)
                .collect();
            nodes.push(Node {
                domain,
                members: members.iter().map(|m| self.name_of(*m)).collect(),
                source,
                readers,
                through,
                external,
            });
        }
        // States.
        let mut state_start = Vec::with_capacity(self.parts.len());
        let mut names = Vec::new();
        let mut nominal = Vec::new();
        for (name, part) in &self.parts {
            state_start.push(names.len());
            for s in part.states() {
                names.push(format!("{name}.{}", s.name));
                nominal.push(s.nominal);
            }
        }
        if names.is_empty() {
            return Err(
                "the circuit has no state: add a part with states (a volume, a mass, a spool)"
                    .into(),
            );
        }
        let total_slots = input_slots + self.inputs.len();
        let parts: Vec<Laid> = self
            .parts
            .iter()
            .enumerate()
            .map(|(k, (name, part))| {
                let ports = part.ports();
                let mut across_rows = Vec::new();
                let mut through_rows = Vec::new();
                let mut offset = 0;
                for q in ports {
                    let a = q.domain.across().len();
                    match q.causality {
                        Causality::SetsAcross | Causality::SignalOut => {
                            across_rows.extend(offset..offset + a)
                        }
                        Causality::SetsThrough => through_rows.push(offset + a),
                        Causality::SignalIn => {}
                    }
                    offset += q.domain.slots();
                }
                Laid {
                    name: name.clone(),
                    part: part.clone(),
                    states: state_start[k]..state_start[k] + part.states().len(),
                    slots: slot_start[k]..slot_start[k] + part_slots[k],
                    across_rows,
                    through_rows,
                    events: 0..0,
                }
            })
            .collect();
        let mut parts = parts;
        let mut events = 0;
        for laid in &mut parts {
            let count = laid.part.event_indicators().len();
            laid.events = events..events + count;
            events += count;
        }
        let input_names = self.inputs.iter().map(|b| b.name.clone()).collect();
        super::Assembly::new(Layout {
            parts,
            nodes,
            input_names,
            input_slots,
            total_slots,
            state_names: names,
            nominal,
            events,
        })
    }
}

/// A built circuit: its parts in place, its nodes, its inputs and states.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    pub(crate) parts: Vec<Laid>,
    pub(crate) nodes: Vec<Node>,
    pub(crate) input_names: Vec<String>,
    /// The first slot of the inputs (they follow the parts' port slots).
    pub(crate) input_slots: usize,
    pub(crate) total_slots: usize,
    pub(crate) state_names: Vec<String>,
    pub(crate) nominal: Vec<f64>,
    pub(crate) events: usize,
}

fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Whether `name` is a name a part may have (an FMI-friendly identifier).
fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Where a node's across values come from.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// A part's port: its across slots (and its through slot, which gets
    /// the net through value of the others).
    Port {
        slots: Vec<usize>,
        through: Option<usize>,
        port: PortRef,
    },
    /// FMU inputs, one slot per across variable.
    Inputs { slots: Vec<usize> },
}

/// A node of the laid-out circuit.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) domain: Domain,
    /// The member ports' names, for messages.
    pub(crate) members: Vec<String>,
    pub(crate) source: Source,
    /// The across slots of every member that reads them (not the source).
    pub(crate) readers: Vec<Vec<usize>>,
    /// The through slots of the members that set their through variable,
    /// in the node's member order.
    pub(crate) through: Vec<usize>,
    /// The input slots of the through values delivered from outside.
    pub(crate) external: Vec<usize>,
}

impl Node {
    pub(crate) fn across_slots(&self) -> &[usize] {
        match &self.source {
            Source::Port { slots, .. } | Source::Inputs { slots } => slots,
        }
    }
}

/// A part in place: where its states, port values and event indicators
/// are in the whole.
#[derive(Debug, Clone)]
pub(crate) struct Laid {
    pub(crate) name: String,
    pub(crate) part: Arc<dyn Part>,
    pub(crate) states: std::ops::Range<usize>,
    pub(crate) slots: std::ops::Range<usize>,
    /// The part's own slot indices it sets in phase 1.
    pub(crate) across_rows: Vec<usize>,
    /// The part's own slot indices it sets in phase 2.
    pub(crate) through_rows: Vec<usize>,
    pub(crate) events: std::ops::Range<usize>,
}
