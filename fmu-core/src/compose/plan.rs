//! The evaluation plan of a built circuit: which parts take part in which
//! phase, the port values carried between parts, and the chain rule of the
//! Jacobian as flat lists of operations on the parts' partial derivatives,
//! worked out once from what each value depends on
//! ([`super::Part::dependencies`]).
//!
//! Partial derivatives live in one buffer, each part's in regions of its
//! own: with respect to its states for phase 1 (`rows = port slots`,
//! row-major), with respect to its states and its slots for phase 2, with
//! respect to its slots for phase 3 (the derivatives of its rates with
//! respect to its own states go straight into the Jacobian). The gradient
//! of a port value with respect to the state vector is kept sparse: a list
//! of the state columns it can depend on (known here, once) and their
//! values.

use super::builder::{Layout, Source};
use super::part::Output;

/// Where one part's partial derivatives are in the buffer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Regions {
    /// Phase 1: `slots x states`.
    pub(crate) across: usize,
    /// Phase 2: `slots x states`, then `slots x slots`.
    pub(crate) through_states: usize,
    pub(crate) through_slots: usize,
    /// Phase 3: `states x slots`.
    pub(crate) rates: usize,
}

/// `g[to] = p[from]`: a gradient entry from a partial derivative.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Assign {
    pub(crate) to: usize,
    pub(crate) from: usize,
}

/// `g[to] += p[factor] * g[from]`, or `=` for the entry's first term
/// (no entry is zeroed first: adding to zero changes nothing but the sign
/// of a zero).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chain {
    pub(crate) to: usize,
    pub(crate) factor: usize,
    pub(crate) from: usize,
    pub(crate) first: bool,
}

/// `g[to] -= g[from]`, or `g[to] = -g[from]` for the entry's first term:
/// a node's net through value is minus the sum of the others (`-a - b`
/// is `-(a + b)` exactly).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Net {
    pub(crate) to: usize,
    pub(crate) from: usize,
    pub(crate) first: bool,
}

/// `J[row + col * ld] += p[factor] * g[from]`, skipped where either is
/// zero.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stamp {
    pub(crate) row: usize,
    pub(crate) col: usize,
    pub(crate) factor: usize,
    pub(crate) from: usize,
}

/// One part's call in a phase: the part and where its states and port
/// values are, kept together so that an evaluation reads one small record
/// per call.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub(crate) part: std::sync::Arc<dyn super::Part>,
    pub(crate) states: std::ops::Range<usize>,
    pub(crate) slots: std::ops::Range<usize>,
    /// The part's index (its partial-derivative regions).
    pub(crate) index: usize,
}

/// A node's net through value into its source's slot `target`: minus the
/// sum of the through values at the slots `net_members[start..external]`
/// plus the external inputs at `net_members[external..end]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NetSum {
    pub(crate) target: usize,
    pub(crate) start: usize,
    pub(crate) external: usize,
    pub(crate) end: usize,
}

/// What an evaluation does between the parts' own work.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    /// The parts with a phase 1, a phase 2, states (a phase 3), event
    /// indicators. A part without states sets constant across values (a
    /// supply pressure, the tank's): its phase 1 runs once
    /// ([`Plan::constant_parts`]), not at every evaluation.
    pub(crate) across_parts: Vec<Call>,
    pub(crate) constant_parts: Vec<usize>,
    /// The across values that are states as they are
    /// ([`super::Part::across_states`]): (state, slot), copied instead of
    /// a phase-1 call; their gradient entries are 1, set once.
    pub(crate) state_across: Vec<(usize, usize)>,
    pub(crate) unit_gradient: Vec<usize>,
    pub(crate) through_parts: Vec<Call>,
    pub(crate) rate_parts: Vec<Call>,
    pub(crate) event_parts: Vec<usize>,
    /// Each part's partial-derivative regions.
    pub(crate) regions: Vec<Regions>,
    /// The size of the partial-derivative buffer.
    pub(crate) partials: usize,
    /// The partial derivatives that must start at zero (the declared
    /// dependencies: a part writes only the non-zero ones).
    pub(crate) zero_partials: Vec<usize>,
    /// Across values carried from a node's source to its readers (whose
    /// gradients are the source's entries); those of constant sources
    /// once.
    pub(crate) copies: Vec<(usize, usize)>,
    pub(crate) constant_copies: Vec<(usize, usize)>,
    /// Net through values: the source's slot, the through values summed,
    /// the external inputs subtracted (ranges into `net_members`).
    pub(crate) nets: Vec<NetSum>,
    pub(crate) net_members: Vec<usize>,
    /// The nets of two through values and no external input (a volume
    /// between two restrictions, the commonest node): `[target, a, b]`,
    /// `slots[target] = -(slots[a] + slots[b])`, without the general
    /// sum's loops over member lists.
    pub(crate) pair_nets: Vec<[usize; 3]>,
    /// The gradient entries: for each slot, the start and length of its
    /// entries, and each entry's state column.
    pub(crate) gradient: Vec<(usize, usize)>,
    pub(crate) columns: Vec<usize>,
    /// Phase 1 gradients from the parts' partials.
    pub(crate) across_assign: Vec<Assign>,
    /// Phase 2: the entries set by one partial (a part's own states, or
    /// the first term through a slot that holds a state as it is, whose
    /// gradient is a constant 1), then the chain through the slots read.
    pub(crate) through_assign: Vec<Assign>,
    pub(crate) through_chain: Vec<Chain>,
    /// The nets' gradients.
    pub(crate) nets_gradient: Vec<Net>,
    /// Phase 3: the rates' dependence on the slots, into the Jacobian.
    pub(crate) stamps: Vec<Stamp>,
}

impl Plan {
    pub(crate) fn new(layout: &Layout) -> Self {
        let mut plan = Plan {
            gradient: vec![(0, 0); layout.total_slots],
            ..Plan::default()
        };
        // Regions of partial derivatives.
        for p in &layout.parts {
            let (ns, np) = (p.states.len(), p.slots.len());
            let mut r = Regions::default();
            if !p.across_rows.is_empty() && p.part.across_states().is_none() {
                r.across = plan.partials;
                plan.partials += np * ns;
            }
            if !p.through_rows.is_empty() {
                r.through_states = plan.partials;
                plan.partials += np * ns;
                r.through_slots = plan.partials;
                plan.partials += np * np;
            }
            r.rates = plan.partials;
            plan.partials += ns * np;
            plan.regions.push(r);
        }
        for (k, p) in layout.parts.iter().enumerate() {
            let call = || Call {
                part: p.part.clone(),
                states: p.states.clone(),
                slots: p.slots.clone(),
                index: k,
            };
            if !p.across_rows.is_empty() {
                if p.states.is_empty() {
                    plan.constant_parts.push(k);
                } else if let Some(pairs) = p.part.across_states() {
                    plan.state_across.extend(
                        pairs
                            .iter()
                            .map(|&(slot, state)| (p.states.start + state, p.slots.start + slot)),
                    );
                } else {
                    plan.across_parts.push(call());
                }
            }
            if !p.through_rows.is_empty() {
                plan.through_parts.push(call());
            }
            if !p.states.is_empty() {
                plan.rate_parts.push(call());
            }
            if !p.events.is_empty() {
                plan.event_parts.push(k);
            }
        }
        // Phase 1: each across value's gradient on its part's states.
        for (k, p) in layout.parts.iter().enumerate() {
            let ns = p.states.len();
            if let (Some(pairs), false) = (p.part.across_states(), p.states.is_empty()) {
                for &(r, s) in pairs {
                    plan.gradient[p.slots.start + r] = (plan.columns.len(), 1);
                    plan.unit_gradient.push(plan.columns.len());
                    plan.columns.push(p.states.start + s);
                }
                continue;
            }
            for &r in &p.across_rows {
                let deps = p.part.dependencies(Output::Across(r));
                let mut states = deps.states.clone();
                states.sort_unstable();
                states.dedup();
                let slot = p.slots.start + r;
                let start = plan.columns.len();
                for &s in &states {
                    let from = plan.regions[k].across + r * ns + s;
                    plan.zero_partials.push(from);
                    plan.across_assign.push(Assign {
                        to: plan.columns.len(),
                        from,
                    });
                    plan.columns.push(p.states.start + s);
                }
                plan.gradient[slot] = (start, states.len());
            }
        }
        // Carrying across values to the readers.
        for node in &layout.nodes {
            let from = node.across_slots();
            for reader in &node.readers {
                for (a, &to) in reader.iter().enumerate() {
                    let constant = plan
                        .constant_parts
                        .iter()
                        .any(|&k| layout.parts[k].slots.contains(&from[a]));
                    if constant {
                        plan.constant_copies.push((from[a], to));
                    } else {
                        plan.copies.push((from[a], to));
                    }
                    // The reader's value is the source's: so is its
                    // gradient (the same entries, never written again).
                    plan.gradient[to] = plan.gradient[from[a]];
                }
            }
        }
        // Phase 2: each through value's gradient: its own states' partials,
        // then the chain through the slots it reads, in slot order.
        for (k, p) in layout.parts.iter().enumerate() {
            let (ns, np) = (p.states.len(), p.slots.len());
            for &r in &p.through_rows {
                let deps = p.part.dependencies(Output::Through(r));
                let mut states = deps.states.clone();
                states.sort_unstable();
                states.dedup();
                let mut slots = deps.slots.clone();
                slots.sort_unstable();
                slots.dedup();
                let mut columns: Vec<usize> = states.iter().map(|s| p.states.start + s).collect();
                for &c in &slots {
                    let (start, len) = plan.gradient[p.slots.start + c];
                    columns.extend_from_slice(&plan.columns[start..start + len]);
                }
                columns.sort_unstable();
                columns.dedup();
                let at = plan.columns.len();
                plan.columns.extend_from_slice(&columns);
                let index = |col: usize| columns.binary_search(&col).expect("listed");
                // Every entry is written by its first term, then added to.
                let mut written = vec![false; columns.len()];
                for &s in &states {
                    let from = plan.regions[k].through_states + r * ns + s;
                    plan.zero_partials.push(from);
                    let i = index(p.states.start + s);
                    written[i] = true;
                    plan.through_assign.push(Assign { to: at + i, from });
                }
                for &c in &slots {
                    let factor = plan.regions[k].through_slots + r * np + c;
                    plan.zero_partials.push(factor);
                    let (start, len) = plan.gradient[p.slots.start + c];
                    for e in start..start + len {
                        let i = index(plan.columns[e]);
                        if !written[i] && plan.unit_gradient.contains(&e) {
                            // The entry's first term times a constant 1 (a
                            // state read as it is): the partial itself.
                            plan.through_assign.push(Assign {
                                to: at + i,
                                from: factor,
                            });
                        } else {
                            plan.through_chain.push(Chain {
                                to: at + i,
                                factor,
                                from: e,
                                first: !written[i],
                            });
                        }
                        written[i] = true;
                    }
                }
                plan.gradient[p.slots.start + r] = (at, columns.len());
            }
        }
        // The nets: the sum of the through values into the other parts,
        // negated, is what the node's source receives.
        for node in &layout.nodes {
            let Source::Port {
                through: Some(target),
                ..
            } = node.source
            else {
                continue;
            };
            if let ([a, b], []) = (&node.through[..], &node.external[..]) {
                plan.pair_nets.push([target, *a, *b]);
            } else {
                let start = plan.net_members.len();
                plan.net_members.extend(&node.through);
                let external = plan.net_members.len();
                plan.net_members.extend(&node.external);
                plan.nets.push(NetSum {
                    target,
                    start,
                    external,
                    end: plan.net_members.len(),
                });
            }
            let mut columns = Vec::new();
            for &m in &node.through {
                let (start, len) = plan.gradient[m];
                columns.extend_from_slice(&plan.columns[start..start + len]);
            }
            columns.sort_unstable();
            columns.dedup();
            let at = plan.columns.len();
            plan.columns.extend_from_slice(&columns);
            let mut written = vec![false; columns.len()];
            for &m in &node.through {
                let (start, len) = plan.gradient[m];
                for e in start..start + len {
                    let i = columns.binary_search(&plan.columns[e]).expect("listed");
                    plan.nets_gradient.push(Net {
                        to: at + i,
                        from: e,
                        first: !written[i],
                    });
                    written[i] = true;
                }
            }
            plan.gradient[target] = (at, columns.len());
        }
        // Phase 3: the rates' dependence on the slots, chained into the
        // Jacobian.
        for (k, p) in layout.parts.iter().enumerate() {
            let (ns, np) = (p.states.len(), p.slots.len());
            for r in 0..ns {
                let deps = p.part.dependencies(Output::Rate(r));
                let mut slots = deps.slots.clone();
                slots.sort_unstable();
                slots.dedup();
                for &c in &slots {
                    let factor = plan.regions[k].rates + r * np + c;
                    plan.zero_partials.push(factor);
                    let (start, len) = plan.gradient[p.slots.start + c];
                    for e in start..start + len {
                        plan.stamps.push(Stamp {
                            row: p.states.start + r,
                            col: plan.columns[e],
                            factor,
                            from: e,
                        });
                    }
                }
            }
        }
        plan.zero_partials.sort_unstable();
        plan.zero_partials.dedup();
        plan
    }
}
