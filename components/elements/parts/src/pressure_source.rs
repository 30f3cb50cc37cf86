//! An ideal pressure source: a node held at a constant supply pressure.

use crate::check::finite;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port};

/// An ideal pressure source: sets the pressure of the node at its port `P`
/// to the constant `p_s` (Pa) and delivers whatever flow the node's other
/// parts take (a supply line of a constant-pressure system, a pressure
/// boundary of a test bench). No states.
///
/// A supply pressure that changes during the run is an FMU input instead:
/// [`fmu_core::compose::Builder::input`] binds an input to the pressure of
/// the node of any port (`builder.input("p_s", "orifice.A", "p")`), with
/// no part at all. This part is for a pressure fixed by the circuit's
/// description.
///
/// Port `P` (hydraulic, sets the pressure).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PressureSource {
    p_s: f64,
}

const PORTS: [Port; 1] = [Port::hydraulic_volume(
    "P",
    "The supply port: its pressure out, the flow into the source in",
)];

impl PressureSource {
    /// A source at the pressure `p_s` (Pa, finite).
    pub fn new(p_s: f64) -> Result<Self, String> {
        finite("supply pressure", "p_s", p_s, "Pa")?;
        Ok(PressureSource { p_s })
    }

    /// The supply pressure, Pa.
    pub fn pressure(&self) -> f64 {
        self.p_s
    }
}

impl Part for PressureSource {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    /// The pressure is a constant: it depends on nothing.
    fn dependencies(&self, _of: Output) -> Dependencies {
        Dependencies::default()
    }

    #[inline]
    fn across(&self, _x: &[f64], ports: &mut [f64], _d: Option<&mut Partials<'_>>) {
        ports[0] = self.p_s;
    }

    fn rates(&self, _x: &[f64], _ports: &[f64], _dx: &mut [f64], _d: Option<&mut Partials<'_>>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_checks_the_pressure() {
        assert_eq!(PressureSource::new(2e7).unwrap().pressure(), 2e7);
        assert_eq!(
            PressureSource::new(f64::INFINITY).unwrap_err(),
            "supply pressure p_s = inf Pa must be a finite number"
        );
    }
}
