//! The part: an element or a group of elements with states and ports.

use super::port::Port;
use crate::model::{Derived, EventIndicator};

/// One state of a part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StateSpec {
    /// The state's name within its part (`p`, `x`, `v`); the circuit's
    /// variable is `part.name`.
    pub name: &'static str,
    /// Its nominal magnitude (SI unit): the absolute tolerance scales with
    /// it.
    pub nominal: f64,
}

impl StateSpec {
    /// A state of this name and nominal magnitude.
    pub const fn new(name: &'static str, nominal: f64) -> Self {
        StateSpec { name, nominal }
    }
}

/// A state a part holds inside a range (see [`crate::Clamp`]), by the
/// part's own state index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartClamp {
    /// The part's state index.
    pub state: usize,
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
}

/// The partial derivatives a part writes in one evaluation, with respect
/// to its own states ([`Partials::state`]) and its port slots
/// ([`Partials::slot`], see [`Part`]), of each value the evaluation sets
/// (its row: a port slot for [`Part::across`] and [`Part::through`], a
/// state's rate for [`Part::rates`]). Every entry arrives zero: write the
/// non-zero ones. (For the rates, the derivatives with respect to the
/// part's own states go straight into the circuit's Jacobian.)
#[derive(Debug)]
pub struct Partials<'a> {
    own: &'a mut [f64],
    own_offset: usize,
    own_row_stride: usize,
    own_column_stride: usize,
    states: usize,
    slots: &'a mut [f64],
    slot_count: usize,
}

impl<'a> Partials<'a> {
    /// Two row-major matrices: `own` of `states` columns (derivatives with
    /// respect to the part's states), `slots` of `slot_count` columns
    /// (with respect to its port slots).
    pub fn new(own: &'a mut [f64], states: usize, slots: &'a mut [f64], slot_count: usize) -> Self {
        Partials {
            own,
            own_offset: 0,
            own_row_stride: states,
            own_column_stride: 1,
            states,
            slots,
            slot_count,
        }
    }

    /// The derivatives with respect to the part's states written into the
    /// block of a column-major matrix `matrix` (leading dimension `ld`)
    /// whose first row and column are `start`; the others into `slots`.
    pub fn into_block(
        matrix: &'a mut [f64],
        ld: usize,
        start: usize,
        states: usize,
        slots: &'a mut [f64],
        slot_count: usize,
    ) -> Self {
        Partials {
            own: matrix,
            own_offset: start + start * ld,
            own_row_stride: 1,
            own_column_stride: ld,
            states,
            slots,
            slot_count,
        }
    }

    /// `d(row)/d(own state)`.
    #[inline]
    pub fn state(&mut self, row: usize, state: usize) -> &mut f64 {
        debug_assert!(state < self.states);
        &mut self.own[self.own_offset + row * self.own_row_stride + state * self.own_column_stride]
    }

    /// `d(row)/d(port slot)`.
    #[inline]
    pub fn slot(&mut self, row: usize, slot: usize) -> &mut f64 {
        debug_assert!(slot < self.slot_count);
        &mut self.slots[row * self.slot_count + slot]
    }

    /// `d(rows)/d(own states)` of every row at once, from a column-major
    /// square block (the part's whole Jacobian with respect to its states,
    /// as nalgebra stores it).
    #[inline]
    pub fn state_block(&mut self, block: &[f64]) {
        let s = self.states;
        debug_assert_eq!(block.len(), s * s);
        if self.own_row_stride == 1 {
            for (c, column) in block.chunks_exact(s).enumerate() {
                let at = self.own_offset + c * self.own_column_stride;
                for (to, v) in self.own[at..at + s].iter_mut().zip(column) {
                    *to = *v;
                }
            }
        } else {
            for (c, column) in block.chunks_exact(s).enumerate() {
                for (r, v) in column.iter().enumerate() {
                    self.own[self.own_offset + r * self.own_row_stride + c] = *v;
                }
            }
        }
    }

    /// `d(rows)/d(port slot)` of every row at once.
    #[inline]
    pub fn slot_column(&mut self, slot: usize, column: &[f64]) {
        debug_assert!(slot < self.slot_count);
        for (r, v) in column.iter().enumerate() {
            self.slots[r * self.slot_count + slot] = *v;
        }
    }
}

/// A value a part computes, whose dependencies it may declare
/// ([`Part::dependencies`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The across value in this port slot (phase 1).
    Across(usize),
    /// The through value in this port slot (phase 2).
    Through(usize),
    /// The rate of this state (phase 3).
    Rate(usize),
}

/// What a value a part computes can depend on: its own states and its
/// port slots, by index. The circuit chains only these partial
/// derivatives, so a part that declares its few true dependencies makes
/// the Jacobian cheaper; a derivative the part writes outside them is
/// never read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Dependencies {
    /// The part's own states.
    pub states: Vec<usize>,
    /// The part's port slots.
    pub slots: Vec<usize>,
}

/// An element or a group of elements of a circuit: its states, its ports
/// and its equations with their analytic partial derivatives. A part never
/// knows what it is connected to: it reads and writes its own ports'
/// values, and the circuit ([`super::Circuit`]) carries them between parts.
///
/// The port values are one slice, port by port in the order of
/// [`Part::ports`], each port's across values then its through value
/// ([`super::Domain::slots`]); a signal port has one value; then the values
/// the part keeps between its phases ([`Part::kept`]). A circuit
/// evaluates its parts in three phases:
///
/// 1. [`Part::across`]: the across values of the ports the part sets
///    ([`super::Causality::SetsAcross`], [`super::Causality::SignalOut`])
///    from its states alone;
/// 2. [`Part::through`]: the through values of the ports where the part
///    sets them ([`super::Causality::SetsThrough`]), given every port's
///    across values and signals;
/// 3. [`Part::rates`]: the states' rates, given every port's values, the
///    through value at a port where the part sets the across values being
///    the net flow (force, torque) into the part from the others there.
///
/// Each phase writes its partial derivatives (with respect to the part's
/// own states and port values) when asked for them; the circuit chains
/// them into the Jacobian of the whole.
pub trait Part: Send + Sync + std::fmt::Debug {
    /// The part's ports.
    fn ports(&self) -> &[Port];

    /// The part's states; none by default.
    fn states(&self) -> &[StateSpec] {
        &[]
    }

    /// How many values the part keeps between the phases of one
    /// evaluation: slots after its ports' values (joined to nothing) that
    /// it writes in one phase and reads in a later one of the same
    /// evaluation, so that what two phases need (a friction law's value
    /// and slopes) is computed once. They are part of the slice every
    /// phase gets, after the ports' values. None by default.
    fn kept(&self) -> usize {
        0
    }

    /// The part's event indicators (where its equations switch); none by
    /// default.
    fn event_indicators(&self) -> &[EventIndicator] {
        &[]
    }

    /// The coefficients the part derived from its parameters, for the
    /// circuit to check (see [`Derived`]); none by default.
    fn derived(&self) -> Vec<Derived> {
        Vec::new()
    }

    /// The states the part holds inside a range; none by default.
    fn clamps(&self) -> Vec<PartClamp> {
        Vec::new()
    }

    /// The part's states at the start, into `x`; `ports` holds the across
    /// values its neighbours and the FMU's inputs set (from their start
    /// values; what a part sets from its own states is not known yet).
    /// Zeros by default.
    fn initial_state(&self, _ports: &[f64], _x: &mut [f64]) {}

    /// What `of` depends on (see [`Dependencies`]). By default: an across
    /// value on every state; a through value on every state and every
    /// across value and signal of the part's ports; a rate on every port
    /// slot (its dependence on the part's own states is written in full
    /// anyway).
    fn dependencies(&self, of: Output) -> Dependencies {
        let states = (0..self.states().len()).collect();
        let mut readable = Vec::new();
        let mut all = Vec::new();
        let mut slot = 0;
        for port in self.ports() {
            let across = port.domain.across().len();
            readable.extend(slot..slot + across);
            all.extend(slot..slot + port.domain.slots());
            slot += port.domain.slots();
        }
        match of {
            Output::Across(_) => Dependencies {
                states,
                slots: Vec::new(),
            },
            Output::Through(_) => Dependencies {
                states,
                slots: readable,
            },
            Output::Rate(_) => Dependencies {
                states: Vec::new(),
                slots: all,
            },
        }
    }

    /// The across values that are the part's own states as they are, as
    /// (port slot, own state) pairs, when that is all its phase 1 does: a
    /// chamber's pressure, an inertia's angle and speed. Every across value
    /// the part sets must be listed. The circuit then copies them itself
    /// (their derivatives are 1) and never calls [`Part::across`], one
    /// call fewer per part and evaluation. `None` (the default):
    /// [`Part::across`] runs.
    fn across_states(&self) -> Option<&[(usize, usize)]> {
        None
    }

    /// Phase 1: the across values of the ports the part sets, from its
    /// states `x`, into `ports`. Nothing by default.
    fn across(&self, _x: &[f64], _ports: &mut [f64], _d: Option<&mut Partials<'_>>) {}

    /// Phase 2: the through values of the ports where the part sets them,
    /// into `ports` (whose across values and signals are set). Nothing by
    /// default.
    fn through(&self, _x: &[f64], _ports: &mut [f64], _d: Option<&mut Partials<'_>>) {}

    /// Phase 3: the rates of the part's states into `dx`, given its states
    /// and every port value (never called for a part without states).
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>);

    /// The values of the part's event indicators into `z`, given its
    /// states and its ports' across values.
    fn event_indicator_values(&self, _x: &[f64], _ports: &[f64], _z: &mut [f64]) {}
}
