//! The assembly: parts and the nodes that connect their ports, evaluated
//! as one system of equations.

use super::part::{Part, Partials};
use super::port::{Causality, Domain};
use crate::model::{Derived, EventIndicator};
use crate::solver::Clamp;
use nalgebra::{SMatrix, SVector};
use std::cell::RefCell;
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
struct PortRef {
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
    pub fn build(self) -> Result<Assembly, String> {
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
        // Slots: each part's port values, then one per input.
        let slot_start: Vec<usize> = self
            .parts
            .iter()
            .scan(0, |acc, (_, p)| {
                let start = *acc;
                *acc += p.ports().iter().map(|q| q.domain.slots()).sum::<usize>();
                Some(start)
            })
            .collect();
        let part_slots: Vec<usize> = self
            .parts
            .iter()
            .map(|(_, p)| p.ports().iter().map(|q| q.domain.slots()).sum())
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
        let n = names.len();
        let total_slots = input_slots + self.inputs.len();
        let widest = self
            .parts
            .iter()
            .map(|(_, p)| {
                let s = p.states().len();
                let q: usize = p.ports().iter().map(|q| q.domain.slots()).sum();
                (s.max(q)) * (s + q)
            })
            .max()
            .unwrap_or(0);
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
                    through_reads_slots: part.through_reads_ports(),
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
        let plan = Plan::new(&parts, &nodes);
        Ok(Assembly {
            parts,
            nodes,
            plan,
            input_names,
            input_slots,
            state_names: names,
            nominal,
            events,
            scratch: RefCell::new(Scratch {
                slots: vec![0.0; total_slots],
                gcol: vec![0; total_slots * n],
                gval: vec![0.0; total_slots * n],
                glen: vec![0; total_slots],
                partials: vec![0.0; widest],
                sum: vec![0.0; n],
            }),
        })
    }
}

/// Sets a short buffer to zero with plain stores (the buffers here hold a
/// few dozen values: a call to `memset` would cost more than the stores).
#[inline(always)]
fn zero(buffer: &mut [f64]) {
    for v in buffer {
        *v = 0.0;
    }
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
enum Source {
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
struct Node {
    domain: Domain,
    /// The member ports' names, for messages.
    members: Vec<String>,
    source: Source,
    /// The across slots of every member that reads them (not the source).
    readers: Vec<Vec<usize>>,
    /// The through slots of the members that set their through variable,
    /// in the node's member order.
    through: Vec<usize>,
    /// The input slots of the through values delivered from outside.
    external: Vec<usize>,
}

impl Node {
    fn across_slots(&self) -> &[usize] {
        match &self.source {
            Source::Port { slots, .. } | Source::Inputs { slots } => slots,
        }
    }
}

/// A part in place: where its states, port values and event indicators
/// are in the whole.
#[derive(Debug, Clone)]
struct Laid {
    name: String,
    part: Arc<dyn Part>,
    states: std::ops::Range<usize>,
    slots: std::ops::Range<usize>,
    /// The part's own slot indices it sets in phase 1.
    across_rows: Vec<usize>,
    /// The part's own slot indices it sets in phase 2.
    through_rows: Vec<usize>,
    /// Whether its through values depend on its port values
    /// ([`Part::through_reads_ports`]).
    through_reads_slots: bool,
    events: std::ops::Range<usize>,
}

/// The buffers of one evaluation, allocated once.
#[derive(Debug, Clone)]
struct Scratch {
    slots: Vec<f64>,
    /// The gradient of every slot with respect to the states, sparse: slot
    /// `k` has `glen[k]` entries, columns `gcol[k n ..]` and values
    /// `gval[k n ..]`, in column order.
    gcol: Vec<u32>,
    gval: Vec<f64>,
    glen: Vec<u32>,
    /// One part's partial derivatives.
    partials: Vec<f64>,
    /// A dense gradient being summed.
    sum: Vec<f64>,
}

impl Scratch {
    /// Slot `k`'s gradient entries.
    #[inline]
    fn gradient(&self, k: usize, n: usize) -> (&[u32], &[f64]) {
        let len = self.glen[k] as usize;
        (
            &self.gcol[k * n..k * n + len],
            &self.gval[k * n..k * n + len],
        )
    }

    /// Sets slot `k`'s gradient from the dense `self.sum`, each entry
    /// times `sign`.
    #[inline]
    fn store_sum(&mut self, k: usize, n: usize, sign: f64) {
        let mut len = 0;
        for (col, &v) in self.sum.iter().enumerate() {
            if v != 0.0 {
                self.gcol[k * n + len] = col as u32;
                self.gval[k * n + len] = sign * v;
                len += 1;
            }
        }
        self.glen[k] = len as u32;
    }

    /// Adds `factor` times slot `k`'s gradient to the dense `self.sum`.
    #[inline]
    fn add_to_sum(&mut self, k: usize, n: usize, factor: f64) {
        let len = self.glen[k] as usize;
        for e in k * n..k * n + len {
            self.sum[self.gcol[e] as usize] += factor * self.gval[e];
        }
    }
}

/// What the evaluation does between the parts' phases, flattened when the
/// circuit is built: slot copies, net sums, which parts take part in which
/// phase.
#[derive(Debug, Clone, Default)]
struct Plan {
    /// The parts with a phase 1 ([`Part::across`]).
    across_parts: Vec<usize>,
    /// The parts with a phase 2 ([`Part::through`]).
    through_parts: Vec<usize>,
    /// The parts with event indicators.
    event_parts: Vec<usize>,
    /// Across values carried from the node's source to its readers:
    /// (from slot, to slot), node by node.
    copies: Vec<(usize, usize)>,
    /// Net through values: the slot of the node's source that receives
    /// it, the range of `terms` summed (through values into other parts),
    /// the range of `external` subtracted (inputs delivering into the
    /// node).
    nets: Vec<(usize, std::ops::Range<usize>, std::ops::Range<usize>)>,
    terms: Vec<usize>,
    external: Vec<usize>,
}

impl Plan {
    fn new(parts: &[Laid], nodes: &[Node]) -> Self {
        let mut plan = Plan::default();
        for (k, p) in parts.iter().enumerate() {
            if !p.across_rows.is_empty() {
                plan.across_parts.push(k);
            }
            if !p.through_rows.is_empty() {
                plan.through_parts.push(k);
            }
            if !p.events.is_empty() {
                plan.event_parts.push(k);
            }
        }
        for node in nodes {
            let from = node.across_slots();
            for reader in &node.readers {
                for (a, &to) in reader.iter().enumerate() {
                    plan.copies.push((from[a], to));
                }
            }
            if let Source::Port {
                through: Some(t), ..
            } = node.source
            {
                let terms = plan.terms.len()..plan.terms.len() + node.through.len();
                plan.terms.extend(&node.through);
                let external = plan.external.len()..plan.external.len() + node.external.len();
                plan.external.extend(&node.external);
                plan.nets.push((t, terms, external));
            }
        }
        plan
    }
}

/// A circuit of parts, laid out: its states (part by part, in the order the
/// parts were added), its nodes, its inputs. Evaluates the rates, their
/// Jacobian from the parts' partial derivatives, the event indicators, the
/// derived coefficients and the initial state, with no allocation after
/// [`Builder::build`].
#[derive(Debug, Clone)]
pub struct Assembly {
    parts: Vec<Laid>,
    nodes: Vec<Node>,
    plan: Plan,
    input_names: Vec<String>,
    input_slots: usize,
    state_names: Vec<String>,
    nominal: Vec<f64>,
    events: usize,
    scratch: RefCell<Scratch>,
}

impl Assembly {
    /// Number of states.
    pub fn state_count(&self) -> usize {
        self.state_names.len()
    }

    /// The states' names (`part.state`), in order.
    pub fn state_names(&self) -> &[String] {
        &self.state_names
    }

    /// The states' nominal magnitudes, in order.
    pub fn nominal(&self) -> &[f64] {
        &self.nominal
    }

    /// The inputs' names, in the order their values are passed.
    pub fn input_names(&self) -> &[String] {
        &self.input_names
    }

    /// The range of the state vector that holds part `name`'s states.
    pub fn states_of(&self, name: &str) -> Option<std::ops::Range<usize>> {
        self.parts
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.states.clone())
    }

    /// The event indicators of every part, in part order, with the part's
    /// name.
    pub fn event_indicators(&self) -> Vec<(&str, EventIndicator)> {
        self.parts
            .iter()
            .flat_map(|p| {
                p.part
                    .event_indicators()
                    .iter()
                    .map(move |e| (p.name.as_str(), *e))
            })
            .collect()
    }

    /// Number of event indicators.
    pub fn event_count(&self) -> usize {
        self.events
    }

    /// Every part's derived coefficients, in part order.
    pub fn derived(&self) -> Vec<Derived> {
        self.parts.iter().flat_map(|p| p.part.derived()).collect()
    }

    /// Every part's clamped states, by index in the whole state vector.
    pub fn clamps(&self) -> Vec<Clamp> {
        self.parts
            .iter()
            .flat_map(|p| {
                p.part.clamps().into_iter().map(|c| Clamp {
                    state: p.states.start + c.state,
                    lower: c.lower,
                    upper: c.upper,
                })
            })
            .collect()
    }

    /// Checks that the parts lay out the states as the circuit's table
    /// `T` declares them: the same names (a part's state `p` of part
    /// `chamber` being the table's `p`) and nominal magnitudes, in the same
    /// order; a circuit written in Rust keeps its table's compile-time
    /// state indices, and this is what holds them to the parts.
    pub fn check_table<T: crate::table::Table>(&self) -> Result<(), String> {
        let names = T::state_names();
        let short: Vec<&str> = self
            .state_names
            .iter()
            .map(|n| n.split_once('.').map_or(n.as_str(), |(_, s)| s))
            .collect();
        if short != names {
            return Err(format!(
                "the parts lay out the states as [{}], the table as [{}]",
                self.state_names.join(", "),
                names.join(", ")
            ));
        }
        let mut nominal = vec![0.0; T::STATES];
        T::state_nominal(&mut nominal);
        if let Some(k) = (0..self.nominal.len()).find(|&k| nominal[k] != self.nominal[k]) {
            return Err(format!(
                "state {}: the part's nominal magnitude {} differs from the table's {}",
                self.state_names[k], self.nominal[k], nominal[k]
            ));
        }
        Ok(())
    }

    /// Checks that the parts' event indicators, in part order, are the
    /// ones a circuit declares (its static list, which the model
    /// description is written from).
    pub fn check_event_indicators(&self, declared: &[EventIndicator]) -> Result<(), String> {
        let parts: Vec<EventIndicator> = self
            .event_indicators()
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        if parts != declared {
            let names = |list: &[EventIndicator]| {
                list.iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
            };
            return Err(format!(
                "the parts' event indicators are [{}], the circuit declares [{}]",
                names(&parts),
                names(declared)
            ));
        }
        Ok(())
    }

    /// Checks that the states are laid out as `expected` names them
    /// (`part.state`).
    pub fn check_layout(&self, expected: &[&str]) -> Result<(), String> {
        if self.state_names.len() != expected.len()
            || self.state_names.iter().zip(expected).any(|(a, b)| a != b)
        {
            return Err(format!(
                "the parts lay out the states as [{}], the table as [{}]",
                self.state_names.join(", "),
                expected.join(", ")
            ));
        }
        Ok(())
    }

    /// Phase 1 and the nodes' across values: every slot a part reads is
    /// set, from the states `x` and the inputs `u`.
    fn across(&self, s: &mut Scratch, u: &[f64], x: &[f64], n: usize, grad: bool) {
        for (slot, &value) in s.slots[self.input_slots..].iter_mut().zip(u) {
            *slot = value;
        }
        for &k in &self.plan.across_parts {
            let p = &self.parts[k];
            let xs = &x[p.states.clone()];
            let slots = &mut s.slots[p.slots.clone()];
            if grad {
                let (ns, np) = (p.states.len(), p.slots.len());
                let (own, _) = s.partials.split_at_mut(np * ns);
                zero(own);
                let mut none: [f64; 0] = [];
                p.part
                    .across(xs, slots, Some(&mut Partials::new(own, ns, &mut none, 0)));
                for &r in &p.across_rows {
                    let slot = p.slots.start + r;
                    let mut len = 0;
                    for (c, &v) in s.partials[r * ns..r * ns + ns].iter().enumerate() {
                        if v != 0.0 {
                            s.gcol[slot * n + len] = (p.states.start + c) as u32;
                            s.gval[slot * n + len] = v;
                            len += 1;
                        }
                    }
                    s.glen[slot] = len as u32;
                }
            } else {
                p.part.across(xs, slots, None);
            }
        }
        for &(from, to) in &self.plan.copies {
            s.slots[to] = s.slots[from];
            if grad {
                let len = s.glen[from] as usize;
                for e in 0..len {
                    s.gcol[to * n + e] = s.gcol[from * n + e];
                    s.gval[to * n + e] = s.gval[from * n + e];
                }
                s.glen[to] = len as u32;
            }
        }
    }

    /// Phase 2 and the nets: the through values, and each node's net
    /// through value into its source.
    fn through(&self, s: &mut Scratch, x: &[f64], n: usize, grad: bool) {
        for &k in &self.plan.through_parts {
            let p = &self.parts[k];
            let xs = &x[p.states.clone()];
            let slots = &mut s.slots[p.slots.clone()];
            if grad {
                let (ns, np) = (p.states.len(), p.slots.len());
                let reads = p.through_reads_slots;
                let width = if reads { np } else { 0 };
                let (own, rest) = s.partials.split_at_mut(np * ns);
                let by_slot = &mut rest[..np * width];
                zero(own);
                zero(by_slot);
                p.part
                    .through(xs, slots, Some(&mut Partials::new(own, ns, by_slot, width)));
                for &r in &p.through_rows {
                    let slot = p.slots.start + r;
                    if !reads {
                        // the own states' partials alone: straight to sparse
                        let mut len = 0;
                        for c in 0..ns {
                            let v = s.partials[r * ns + c];
                            if v != 0.0 {
                                s.gcol[slot * n + len] = (p.states.start + c) as u32;
                                s.gval[slot * n + len] = v;
                                len += 1;
                            }
                        }
                        s.glen[slot] = len as u32;
                        continue;
                    }
                    zero(&mut s.sum);
                    for c in 0..ns {
                        s.sum[p.states.start + c] = s.partials[r * ns + c];
                    }
                    for c in 0..np {
                        let factor = s.partials[np * ns + r * np + c];
                        if factor != 0.0 {
                            s.add_to_sum(p.slots.start + c, n, factor);
                        }
                    }
                    s.store_sum(slot, n, 1.0);
                }
            } else {
                p.part.through(xs, slots, None);
            }
        }
        for (target, terms, external) in &self.plan.nets {
            let mut total = 0.0;
            for &m in &self.plan.terms[terms.clone()] {
                total += s.slots[m];
            }
            for &e in &self.plan.external[external.clone()] {
                total -= s.slots[e];
            }
            s.slots[*target] = -total;
            if grad {
                let members = &self.plan.terms[terms.clone()];
                if let [m] = members {
                    // one term: its gradient negated
                    let (m, t, len) = (*m, *target, s.glen[*m] as usize);
                    for e in 0..len {
                        s.gcol[t * n + e] = s.gcol[m * n + e];
                        s.gval[t * n + e] = -s.gval[m * n + e];
                    }
                    s.glen[t] = len as u32;
                } else {
                    zero(&mut s.sum);
                    for &m in members {
                        s.add_to_sum(m, n, 1.0);
                    }
                    s.store_sum(*target, n, -1.0);
                }
            }
        }
    }

    /// The rates at `x` with inputs `u` into `dx` and, when `jac` is given
    /// (a column-major matrix with leading dimension `ld`, zero where the
    /// assembly does not write), their Jacobian from the parts' partial
    /// derivatives. `u` holds the inputs in [`Assembly::input_names`]
    /// order.
    pub fn evaluate(&self, u: &[f64], x: &[f64], dx: &mut [f64], jac: Option<(&mut [f64], usize)>) {
        let n = self.state_names.len();
        let mut guard = self.scratch.borrow_mut();
        let s = &mut *guard;
        let Some((j, ld)) = jac else {
            self.across(s, u, x, n, false);
            self.through(s, x, n, false);
            for p in &self.parts {
                p.part.rates(
                    &x[p.states.clone()],
                    &s.slots[p.slots.clone()],
                    &mut dx[p.states.clone()],
                    None,
                );
            }
            return;
        };
        // input slots have no gradient
        for len in &mut s.glen[self.input_slots..] {
            *len = 0;
        }
        self.across(s, u, x, n, true);
        self.through(s, x, n, true);
        for p in &self.parts {
            let (ns, np) = (p.states.len(), p.slots.len());
            let by_slot = &mut s.partials[..ns * np];
            zero(by_slot);
            p.part.rates(
                &x[p.states.clone()],
                &s.slots[p.slots.clone()],
                &mut dx[p.states.clone()],
                Some(&mut Partials::into_block(
                    j,
                    ld,
                    p.states.start,
                    ns,
                    by_slot,
                    np,
                )),
            );
            for r in 0..ns {
                let row = p.states.start + r;
                for c in 0..np {
                    let factor = s.partials[r * np + c];
                    if factor != 0.0 {
                        let (cols, values) = s.gradient(p.slots.start + c, n);
                        for (&col, &g) in cols.iter().zip(values) {
                            j[col as usize * ld + row] += factor * g;
                        }
                    }
                }
            }
        }
    }

    /// The rates at `x` with inputs `u` (see [`Assembly::evaluate`]), as a
    /// circuit's fixed-size state vector: what [`crate::Model::rates`] of a
    /// composed circuit returns.
    pub fn rates<const N: usize>(&self, u: &[f64], x: &SVector<f64, N>) -> SVector<f64, N> {
        let mut dx = SVector::<f64, N>::zeros();
        self.evaluate(u, x.as_slice(), dx.as_mut_slice(), None);
        dx
    }

    /// The rates and their Jacobian (see [`Assembly::evaluate`]), into a
    /// circuit's fixed-size matrix: what [`crate::Model::rates_and_jacobian`]
    /// of a composed circuit returns.
    pub fn rates_and_jacobian<const N: usize>(
        &self,
        u: &[f64],
        x: &SVector<f64, N>,
        j: &mut SMatrix<f64, N, N>,
    ) -> (SVector<f64, N>, bool) {
        let mut dx = SVector::<f64, N>::zeros();
        self.evaluate(
            u,
            x.as_slice(),
            dx.as_mut_slice(),
            Some((j.as_mut_slice(), N)),
        );
        (dx, true)
    }

    /// The state at the start (see [`Assembly::initial_state`]) as a
    /// circuit's fixed-size state vector.
    pub fn initial<const N: usize>(&self, u: &[f64]) -> SVector<f64, N> {
        let mut x = SVector::<f64, N>::zeros();
        self.initial_state(u, x.as_mut_slice());
        x
    }

    /// The event indicators at `x` with inputs `u`, part by part, into `z`.
    pub fn event_indicator_values(&self, u: &[f64], x: &[f64], z: &mut [f64]) {
        let n = self.state_names.len();
        let mut guard = self.scratch.borrow_mut();
        let s = &mut *guard;
        self.across(s, u, x, n, false);
        for &k in &self.plan.event_parts {
            let p = &self.parts[k];
            p.part.event_indicator_values(
                &x[p.states.clone()],
                &s.slots[p.slots.clone()],
                &mut z[p.events.clone()],
            );
        }
    }

    /// The state at the start, from every part's start values and the
    /// inputs `u`, into `x`.
    pub fn initial_state(&self, u: &[f64], x: &mut [f64]) {
        let mut guard = self.scratch.borrow_mut();
        let s = &mut *guard;
        s.slots.fill(0.0);
        s.slots[self.input_slots..self.input_slots + u.len()].copy_from_slice(u);
        for node in &self.nodes {
            if let Source::Inputs { slots } = &node.source {
                for reader in &node.readers {
                    for (a, &to) in reader.iter().enumerate() {
                        s.slots[to] = s.slots[slots[a]];
                    }
                }
            }
        }
        for p in &self.parts {
            p.part
                .initial_state(&s.slots[p.slots.clone()], &mut x[p.states.clone()]);
        }
    }

    /// The nodes as lists of their ports' names (`part.port`), with their
    /// domain: what the circuit connects.
    pub fn nodes(&self) -> Vec<(Domain, Vec<String>)> {
        self.nodes
            .iter()
            .map(|n| (n.domain, n.members.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests;
