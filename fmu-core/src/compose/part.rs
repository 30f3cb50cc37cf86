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

/// The partial derivatives a part writes in one evaluation: a dense
/// row-major matrix whose columns are the part's own states, then its port
/// slots (see [`Part`]), and whose rows are the values the evaluation sets
/// (port slots for [`Part::across`] and [`Part::through`], state rates for
/// [`Part::rates`]). It arrives filled with zeros: write the non-zero
/// entries.
#[derive(Debug)]
pub struct Partials<'a> {
    data: &'a mut [f64],
    states: usize,
    columns: usize,
}

impl<'a> Partials<'a> {
    /// A view of `data`, rows of `states + slots` columns.
    pub fn new(data: &'a mut [f64], states: usize, slots: usize) -> Self {
        Partials {
            data,
            states,
            columns: states + slots,
        }
    }

    /// `d(row)/d(own state)`.
    #[inline]
    pub fn state(&mut self, row: usize, state: usize) -> &mut f64 {
        debug_assert!(state < self.states);
        &mut self.data[row * self.columns + state]
    }

    /// `d(row)/d(port slot)`.
    #[inline]
    pub fn slot(&mut self, row: usize, slot: usize) -> &mut f64 {
        debug_assert!(self.states + slot < self.columns);
        &mut self.data[row * self.columns + self.states + slot]
    }

    /// `d(row)/d(own states)`, writable.
    #[inline]
    pub fn state_row(&mut self, row: usize) -> &mut [f64] {
        let start = row * self.columns;
        &mut self.data[start..start + self.states]
    }
}

/// An element or a group of elements of a circuit: its states, its ports
/// and its equations with their analytic partial derivatives. A part never
/// knows what it is connected to: it reads and writes its own ports'
/// values, and the circuit ([`super::Circuit`]) carries them between parts.
///
/// The port values are one slice, port by port in the order of
/// [`Part::ports`], each port's across values then its through value
/// ([`super::Domain::slots`]); a signal port has one value. A circuit
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

    /// Phase 1: the across values of the ports the part sets, from its
    /// states `x`, into `ports`. Nothing by default.
    fn across(&self, _x: &[f64], _ports: &mut [f64], _d: Option<&mut Partials<'_>>) {}

    /// Phase 2: the through values of the ports where the part sets them,
    /// into `ports` (whose across values and signals are set). Nothing by
    /// default.
    fn through(&self, _x: &[f64], _ports: &mut [f64], _d: Option<&mut Partials<'_>>) {}

    /// Phase 3: the rates of the part's states into `dx`, given its states
    /// and every port value.
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>);

    /// The values of the part's event indicators into `z`, given its
    /// states and its ports' across values.
    fn event_indicator_values(&self, _x: &[f64], _ports: &[f64], _z: &mut [f64]) {}
}
