//! The assembly: a built circuit, evaluated as one system of equations
//! (the rates, the Jacobian chained from the parts' partial derivatives
//! by the [`Plan`], event indicators, the start).

use super::builder::{Layout, Source};
use super::part::Partials;
use super::plan::Plan;
use super::port::Domain;
use crate::model::{Derived, EventIndicator};
use crate::solver::Clamp;
use nalgebra::{SMatrix, SVector};
use std::cell::RefCell;

/// The buffers of one evaluation, allocated once.
#[derive(Debug, Clone)]
struct Scratch {
    /// Every port value, then the inputs.
    slots: Vec<f64>,
    /// The parts' partial derivatives (see [`Plan`]).
    partials: Vec<f64>,
    /// The gradients' entries (see [`Plan::gradient`]).
    gradient: Vec<f64>,
}

/// A circuit of parts, laid out: its states (part by part, in the order the
/// parts were added), its nodes, its inputs. Evaluates the rates, their
/// Jacobian from the parts' partial derivatives, the event indicators, the
/// derived coefficients and the initial state, with no allocation after
/// [`super::Builder::build`].
#[derive(Debug, Clone)]
pub struct Assembly {
    layout: Layout,
    plan: Plan,
    scratch: RefCell<Scratch>,
}

impl Assembly {
    pub(crate) fn new(layout: Layout) -> Result<Self, String> {
        for p in &layout.parts {
            if let Some(pairs) = p.part.across_states() {
                let mut slots: Vec<usize> = pairs.iter().map(|&(slot, _)| slot).collect();
                slots.sort_unstable();
                let (mut rows, ns) = (p.across_rows.clone(), p.states.len());
                rows.sort_unstable();
                if slots != rows || pairs.iter().any(|&(_, state)| state >= ns) {
                    return Err(format!(
                        "part '{}': its across_states {pairs:?} must list each across value it \
                         sets (port slots {rows:?}) once, with one of its {ns} states",
                        p.name
                    ));
                }
            }
        }
        let plan = Plan::new(&layout);
        let mut gradient = vec![0.0; plan.columns.len()];
        for &e in &plan.unit_gradient {
            gradient[e] = 1.0;
        }
        let scratch = RefCell::new(Scratch {
            slots: vec![0.0; layout.total_slots],
            partials: vec![0.0; plan.partials],
            gradient,
        });
        let assembly = Assembly {
            layout,
            plan,
            scratch,
        };
        assembly.constants(&mut assembly.scratch.borrow_mut());
        Ok(assembly)
    }

    /// The across values of the parts without states (constant: a part's
    /// phase 1 depends on its states alone) and their readers' copies,
    /// set once for every evaluation after.
    fn constants(&self, s: &mut Scratch) {
        for &k in &self.plan.constant_parts {
            let p = &self.layout.parts[k];
            p.part.across(&[], &mut s.slots[p.slots.clone()], None);
        }
        for &(from, to) in &self.plan.constant_copies {
            s.slots[to] = s.slots[from];
        }
    }

    /// Number of states.
    pub fn state_count(&self) -> usize {
        self.layout.state_names.len()
    }

    /// The states' names (`part.state`), in order.
    pub fn state_names(&self) -> &[String] {
        &self.layout.state_names
    }

    /// The states' nominal magnitudes, in order.
    pub fn nominal(&self) -> &[f64] {
        &self.layout.nominal
    }

    /// Sets the nominal magnitude of state `index` (the scale its error is
    /// measured in: a description's choice over the part's default); an
    /// error for an index out of range or a value that is not finite and
    /// above zero.
    pub fn set_nominal(&mut self, index: usize, value: f64) -> Result<(), String> {
        if !(value.is_finite() && value > 0.0) {
            return Err(format!(
                "a nominal value must be finite and above zero, not {value}"
            ));
        }
        let n = self.layout.nominal.len();
        let slot = self
            .layout
            .nominal
            .get_mut(index)
            .ok_or_else(|| format!("state {index} does not exist ({n} states)"))?;
        *slot = value;
        Ok(())
    }

    /// The inputs' names, in the order their values are passed.
    pub fn input_names(&self) -> &[String] {
        &self.layout.input_names
    }

    /// The range of the state vector that holds part `name`'s states.
    pub fn states_of(&self, name: &str) -> Option<std::ops::Range<usize>> {
        self.layout
            .parts
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.states.clone())
    }

    /// The event indicators of every part, in part order, with the part's
    /// name.
    pub fn event_indicators(&self) -> Vec<(&str, EventIndicator)> {
        self.layout
            .parts
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
        self.layout.events
    }

    /// Every part's derived coefficients, in part order.
    pub fn derived(&self) -> Vec<Derived> {
        self.layout
            .parts
            .iter()
            .flat_map(|p| p.part.derived())
            .collect()
    }

    /// Every part's clamped states, by index in the whole state vector.
    pub fn clamps(&self) -> Vec<Clamp> {
        self.layout
            .parts
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
            .layout
            .state_names
            .iter()
            .map(|n| n.split_once('.').map_or(n.as_str(), |(_, s)| s))
            .collect();
        if short != names {
            return Err(format!(
                "the parts lay out the states as [{}], the table as [{}]",
                self.layout.state_names.join(", "),
                names.join(", ")
            ));
        }
        let mut nominal = vec![0.0; T::STATES];
        T::state_nominal(&mut nominal);
        if let Some(k) =
            (0..self.layout.nominal.len()).find(|&k| nominal[k] != self.layout.nominal[k])
        {
            return Err(format!(
                "state {}: the part's nominal magnitude {} differs from the table's {}",
                self.layout.state_names[k], self.layout.nominal[k], nominal[k]
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
        if self.layout.state_names.len() != expected.len()
            || self
                .layout
                .state_names
                .iter()
                .zip(expected)
                .any(|(a, b)| a != b)
        {
            return Err(format!(
                "the parts lay out the states as [{}], the table as [{}]",
                self.layout.state_names.join(", "),
                expected.join(", ")
            ));
        }
        Ok(())
    }

    /// Phase 1 and the nodes' across values: every slot a part reads is
    /// set, from the states `x` and the inputs `u`.
    #[inline(always)]
    fn across(&self, s: &mut Scratch, u: &[f64], x: &[f64], grad: bool) {
        let (layout, plan) = (&self.layout, &self.plan);
        for (slot, &value) in s.slots[layout.input_slots..].iter_mut().zip(u) {
            *slot = value;
        }
        for &(state, slot) in &plan.state_across {
            s.slots[slot] = x[state];
        }
        for p in &plan.across_parts {
            let xs = &x[p.states.clone()];
            let slots = &mut s.slots[p.slots.clone()];
            if grad {
                let (ns, np) = (p.states.len(), p.slots.len());
                let at = plan.regions[p.index].across;
                let mut none: [f64; 0] = [];
                let own = &mut s.partials[at..at + np * ns];
                p.part
                    .across(xs, slots, Some(&mut Partials::new(own, ns, &mut none, 0)));
            } else {
                p.part.across(xs, slots, None);
            }
        }
        let slots = &mut s.slots[..];
        for &(from, to) in &plan.copies {
            slots[to] = slots[from];
        }
        if grad {
            let (gradient, partials) = (&mut s.gradient[..], &s.partials[..]);
            for a in &plan.across_assign {
                gradient[a.to] = partials[a.from];
            }
        }
    }

    /// Phase 2 and the nets: the through values, and each node's net
    /// through value into its source.
    #[inline(always)]
    fn through(&self, s: &mut Scratch, x: &[f64], grad: bool) {
        let plan = &self.plan;
        for p in &plan.through_parts {
            let xs = &x[p.states.clone()];
            let slots = &mut s.slots[p.slots.clone()];
            if grad {
                let (ns, np) = (p.states.len(), p.slots.len());
                let r = &plan.regions[p.index];
                let (head, tail) = s.partials.split_at_mut(r.through_slots);
                let own = &mut head[r.through_states..r.through_states + np * ns];
                let by_slot = &mut tail[..np * np];
                p.part
                    .through(xs, slots, Some(&mut Partials::new(own, ns, by_slot, np)));
            } else {
                p.part.through(xs, slots, None);
            }
        }
        let slots = &mut s.slots[..];
        for &[target, a, b] in &plan.pair_nets {
            slots[target] = -(slots[a] + slots[b]);
        }
        for n in &plan.nets {
            let (terms, external) = plan.net_members[n.start..n.end].split_at(n.external - n.start);
            let mut total = 0.0;
            for &m in terms {
                total += slots[m];
            }
            for &e in external {
                total -= slots[e];
            }
            slots[n.target] = -total;
        }
        if grad {
            let (gradient, partials) = (&mut s.gradient[..], &s.partials[..]);
            for a in &plan.through_assign {
                gradient[a.to] = partials[a.from];
            }
            for c in &plan.through_chain {
                let term = partials[c.factor] * gradient[c.from];
                if c.first {
                    gradient[c.to] = term;
                } else {
                    gradient[c.to] += term;
                }
            }
            for n in &plan.nets_gradient {
                if n.first {
                    gradient[n.to] = -gradient[n.from];
                } else {
                    gradient[n.to] -= gradient[n.from];
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
        let mut guard = self.scratch.borrow_mut();
        let s = &mut *guard;
        let plan = &self.plan;
        let Some((j, ld)) = jac else {
            self.across(s, u, x, false);
            self.through(s, x, false);
            for p in &plan.rate_parts {
                p.part.rates(
                    &x[p.states.clone()],
                    &s.slots[p.slots.clone()],
                    &mut dx[p.states.clone()],
                    None,
                );
            }
            return;
        };
        let partials = &mut s.partials[..];
        for &z in &plan.zero_partials {
            partials[z] = 0.0;
        }
        self.across(s, u, x, true);
        self.through(s, x, true);
        for p in &plan.rate_parts {
            let (ns, np) = (p.states.len(), p.slots.len());
            let at = plan.regions[p.index].rates;
            let by_slot = &mut s.partials[at..at + ns * np];
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
        }
        let (gradient, partials) = (&s.gradient[..], &s.partials[..]);
        for stamp in &plan.stamps {
            j[stamp.col * ld + stamp.row] += partials[stamp.factor] * gradient[stamp.from];
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

    /// Every port's values at `x` with inputs `u` (the across values the
    /// nodes share, the through values the parts set, and each node's net
    /// through value at the port that sets its across values, positive
    /// into that part), handed to `read` as one slot vector: a port's
    /// values start at [`Assembly::port_slot`], across values first. What
    /// an output of a port reads; no allocation.
    pub fn port_values<R>(&self, u: &[f64], x: &[f64], read: impl FnOnce(&[f64]) -> R) -> R {
        let mut guard = self.scratch.borrow_mut();
        let s = &mut *guard;
        self.across(s, u, x, false);
        self.through(s, x, false);
        read(&s.slots)
    }

    /// Where the values of port `port` (its index in [`Part::ports`]) of
    /// the `part`-th part (in the order the parts were added) start in
    /// [`Assembly::port_values`]' slot vector; `None` for no such port.
    pub fn port_slot(&self, part: usize, port: usize) -> Option<usize> {
        let laid = self.layout.parts.get(part)?;
        let ports = laid.part.ports();
        ports.get(port)?;
        Some(
            laid.slots.start
                + ports[..port]
                    .iter()
                    .map(|q| q.domain.slots())
                    .sum::<usize>(),
        )
    }

    /// The event indicators at `x` with inputs `u`, part by part, into `z`.
    pub fn event_indicator_values(&self, u: &[f64], x: &[f64], z: &mut [f64]) {
        let mut guard = self.scratch.borrow_mut();
        let s = &mut *guard;
        self.across(s, u, x, false);
        for &k in &self.plan.event_parts {
            let p = &self.layout.parts[k];
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
        self.constants(s);
        s.slots[self.layout.input_slots..self.layout.input_slots + u.len()].copy_from_slice(u);
        for node in &self.layout.nodes {
            if let Source::Inputs { slots } = &node.source {
                for reader in &node.readers {
                    for (a, &to) in reader.iter().enumerate() {
                        s.slots[to] = s.slots[slots[a]];
                    }
                }
            }
        }
        for p in &self.layout.parts {
            p.part
                .initial_state(&s.slots[p.slots.clone()], &mut x[p.states.clone()]);
        }
    }

    /// The nodes as lists of their ports' names (`part.port`), with their
    /// domain: what the circuit connects.
    pub fn nodes(&self) -> Vec<(Domain, Vec<String>)> {
        self.layout
            .nodes
            .iter()
            .map(|n| (n.domain, n.members.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests;
