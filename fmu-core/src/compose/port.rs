//! Ports: what a part exchanges with the parts it is connected to.
//!
//! A port belongs to a physical domain and carries that domain's *across*
//! variables (the same at every port of a node: a pressure; a position
//! and a velocity) and, except for signals, one *through* variable (summed
//! to zero over a node: a volume flow; a force; a torque). The through
//! variable at a port is counted positive *into* the part.
//!
//! Each port also says what its part computes there (its causality):
//! either the across variables, from the part's states (a volume sets its
//! node's pressure, a mass its flange's position and velocity), or the
//! through variable, from the across variables it is given (an orifice
//! sets the flow, a cylinder the force). A node needs exactly one setter
//! of its across variables: a part, or an FMU input. Two parts that both
//! set the flow at a node with nothing to set its pressure is the
//! causality conflict of Grossschmidt and Harf (2017): the node needs a
//! volume between them.

/// The physical domain of a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Domain {
    /// Pressure `p` (Pa) across, volume flow `q` (m3/s) through.
    Hydraulic,
    /// Position `s` (m) and velocity `v` (m/s) across, force `f` (N)
    /// through.
    Translational,
    /// Angle `phi` (rad) and angular velocity `w` (rad/s) across, torque
    /// `tau` (N m) through.
    Rotational,
    /// One value, set by one part (or an FMU input) and read by others.
    Signal,
}

impl Domain {
    /// The domain's name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Domain::Hydraulic => "hydraulic",
            Domain::Translational => "translational",
            Domain::Rotational => "rotational",
            Domain::Signal => "signal",
        }
    }

    /// The across variables' names, in slot order.
    pub const fn across(self) -> &'static [&'static str] {
        match self {
            Domain::Hydraulic => &["p"],
            Domain::Translational => &["s", "v"],
            Domain::Rotational => &["phi", "w"],
            Domain::Signal => &["value"],
        }
    }

    /// The across variables' SI units, in slot order.
    pub const fn across_units(self) -> &'static [&'static str] {
        match self {
            Domain::Hydraulic => &["Pa"],
            Domain::Translational => &["m", "m/s"],
            Domain::Rotational => &["rad", "rad/s"],
            Domain::Signal => &["1"],
        }
    }

    /// The through variable's name and SI unit; none for signals.
    pub const fn through(self) -> Option<(&'static str, &'static str)> {
        match self {
            Domain::Hydraulic => Some(("q", "m3/s")),
            Domain::Translational => Some(("f", "N")),
            Domain::Rotational => Some(("tau", "N m")),
            Domain::Signal => None,
        }
    }

    /// Number of values a port of this domain has (across, then through).
    pub const fn slots(self) -> usize {
        self.across().len() + if self.through().is_some() { 1 } else { 0 }
    }
}

/// What a part computes at one of its ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Causality {
    /// The part sets the across variables (from its states only) and is
    /// given the node's net through variable into it: a volume, a mass.
    SetsAcross,
    /// The part is given the across variables and sets the through
    /// variable: an orifice, a valve edge, a cylinder's rod.
    SetsThrough,
    /// A signal the part sets (from its states only): a spool position.
    SignalOut,
    /// A signal the part reads: a valve command.
    SignalIn,
}

/// One port of a part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Port {
    /// The port's name, unique within its part (`P`, `A`, `rod`, `U`).
    pub name: &'static str,
    /// Its domain.
    pub domain: Domain,
    /// What the part computes there.
    pub causality: Causality,
    /// Whether the port may be left unconnected (its across values are
    /// then zero and nothing flows through it); most ports must be
    /// connected.
    pub optional: bool,
    /// What the port is, in domain terms.
    pub description: &'static str,
}

impl Port {
    /// A port that must be connected.
    pub const fn new(
        name: &'static str,
        domain: Domain,
        causality: Causality,
        description: &'static str,
    ) -> Self {
        Port {
            name,
            domain,
            causality,
            optional: false,
            description,
        }
    }

    /// A hydraulic port whose flow the part sets (from the pressure).
    pub const fn hydraulic(name: &'static str, description: &'static str) -> Self {
        Self::new(name, Domain::Hydraulic, Causality::SetsThrough, description)
    }

    /// A hydraulic port whose pressure the part sets (a volume).
    pub const fn hydraulic_volume(name: &'static str, description: &'static str) -> Self {
        Self::new(name, Domain::Hydraulic, Causality::SetsAcross, description)
    }

    /// A translational flange whose force the part sets (from the motion).
    pub const fn flange(name: &'static str, description: &'static str) -> Self {
        Self::new(
            name,
            Domain::Translational,
            Causality::SetsThrough,
            description,
        )
    }

    /// A translational flange whose motion the part sets (a mass).
    pub const fn flange_mass(name: &'static str, description: &'static str) -> Self {
        Self::new(
            name,
            Domain::Translational,
            Causality::SetsAcross,
            description,
        )
    }

    /// A rotational flange whose torque the part sets (from the motion).
    pub const fn shaft(name: &'static str, description: &'static str) -> Self {
        Self::new(
            name,
            Domain::Rotational,
            Causality::SetsThrough,
            description,
        )
    }

    /// A rotational flange whose motion the part sets (an inertia).
    pub const fn shaft_inertia(name: &'static str, description: &'static str) -> Self {
        Self::new(name, Domain::Rotational, Causality::SetsAcross, description)
    }

    /// A signal the part reads.
    pub const fn signal_in(name: &'static str, description: &'static str) -> Self {
        Self::new(name, Domain::Signal, Causality::SignalIn, description)
    }

    /// A signal the part sets.
    pub const fn signal_out(name: &'static str, description: &'static str) -> Self {
        Self::new(name, Domain::Signal, Causality::SignalOut, description)
    }

    /// The same port, allowed to stay unconnected.
    pub const fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// Whether the part sets this port's across values (or its signal).
    pub const fn sets_across(&self) -> bool {
        matches!(self.causality, Causality::SetsAcross | Causality::SignalOut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_domain_has_its_variables_and_slots() {
        assert_eq!(Domain::Hydraulic.slots(), 2);
        assert_eq!(Domain::Translational.slots(), 3);
        assert_eq!(Domain::Rotational.slots(), 3);
        assert_eq!(Domain::Signal.slots(), 1);
        assert_eq!(Domain::Translational.across(), ["s", "v"]);
        assert_eq!(Domain::Hydraulic.through(), Some(("q", "m3/s")));
        assert!(Port::hydraulic_volume("A", "").sets_across());
        assert!(!Port::hydraulic("A", "").sets_across());
        assert!(Port::signal_out("x", "").sets_across());
        assert!(Port::flange("rod", "").optional().optional);
    }
}
