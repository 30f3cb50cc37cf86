//! A tank (reservoir): a node held at a constant pressure.

use crate::check::finite;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port};

/// A tank: sets the pressure of the node at its port `T` to a constant
/// `p_tank` (Pa, gauge: 0 for a vented reservoir), whatever flows into or
/// out of it. An ideal reservoir of unlimited volume: no states, and what
/// the node's other parts send into it is not tracked.
///
/// Port `T` (hydraulic, sets the pressure).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tank {
    p_tank: f64,
}

const PORTS: [Port; 1] = [Port::hydraulic_volume(
    "T",
    "The tank's port: its pressure out, the flow into the tank in",
)];

impl Tank {
    /// A tank at gauge pressure `p_tank` (Pa, finite; 0 for a reservoir
    /// open to the atmosphere, a few bar for a boosted return line).
    pub fn new(p_tank: f64) -> Result<Self, String> {
        finite("tank pressure", "p_tank", p_tank, "Pa")?;
        Ok(Tank { p_tank })
    }

    /// A vented tank: 0 Pa gauge.
    pub fn vented() -> Self {
        Tank { p_tank: 0.0 }
    }

    /// The tank's pressure, Pa.
    pub fn pressure(&self) -> f64 {
        self.p_tank
    }
}

impl Part for Tank {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    /// The pressure is a constant: it depends on nothing.
    fn dependencies(&self, _of: Output) -> Dependencies {
        Dependencies::default()
    }

    #[inline]
    fn across(&self, _x: &[f64], ports: &mut [f64], _d: Option<&mut Partials<'_>>) {
        ports[0] = self.p_tank;
    }

    fn rates(&self, _x: &[f64], _ports: &[f64], _dx: &mut [f64], _d: Option<&mut Partials<'_>>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_checks_the_pressure() {
        assert_eq!(Tank::new(2e5).unwrap().pressure(), 2e5);
        assert_eq!(Tank::vented().pressure(), 0.0);
        assert_eq!(
            Tank::new(f64::NAN).unwrap_err(),
            "tank pressure p_tank = NaN Pa must be a finite number"
        );
    }
}
