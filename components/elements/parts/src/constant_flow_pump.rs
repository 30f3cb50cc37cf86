//! An ideal constant-flow pump.

use crate::check::finite;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port};

/// An ideal flow source: delivers the constant flow `Q` (m3/s) out of its
/// port `P`, drawing it in at `T`, whatever the pressures (a pump at
/// constant speed with no leakage, its drive not modelled).
///
/// A flow that changes during the run is an FMU input instead:
/// [`fmu_core::compose::Builder::input_through`] delivers an input's flow
/// into the node of any port, with no part at all.
///
/// Ports `P` (outlet) and `T` (inlet), hydraulic, set the flow: `-Q` into
/// the part at `P` (the flow leaves it there), `Q` at `T`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConstantFlowPump {
    q: f64,
}

const PORTS: [Port; 2] = [
    Port::hydraulic("P", "The outlet: the pump delivers its flow here"),
    Port::hydraulic("T", "The inlet: the pump draws its flow from here"),
];

const QP: usize = 1;
const QT: usize = 3;

impl ConstantFlowPump {
    /// A pump delivering `q` (m3/s, finite; negative runs it backwards).
    pub fn new(q: f64) -> Result<Self, String> {
        finite("delivered flow", "Q", q, "m3/s")?;
        Ok(ConstantFlowPump { q })
    }

    /// The delivered flow, m3/s.
    pub fn flow(&self) -> f64 {
        self.q
    }
}

impl Part for ConstantFlowPump {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    /// The flows are constants.
    fn dependencies(&self, _of: Output) -> Dependencies {
        Dependencies::default()
    }

    #[inline]
    fn through(&self, _x: &[f64], ports: &mut [f64], _d: Option<&mut Partials<'_>>) {
        ports[QP] = -self.q;
        ports[QT] = self.q;
    }

    fn rates(&self, _x: &[f64], _ports: &[f64], _dx: &mut [f64], _d: Option<&mut Partials<'_>>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_checks_the_flow() {
        assert_eq!(ConstantFlowPump::new(1e-3).unwrap().flow(), 1e-3);
        assert_eq!(
            ConstantFlowPump::new(f64::NAN).unwrap_err(),
            "delivered flow Q = NaN m3/s must be a finite number"
        );
    }
}
