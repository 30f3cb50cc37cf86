//! A gas-charged accumulator on a node.

use crate::check::finite;
use fmu_core::EventIndicator;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port, StateSpec};
use hydraulics::{BulkModulus, GasAccumulator};

/// A gas-charged (bladder or piston) accumulator with the oil of its node,
/// with the law of [`hydraulics::accumulator`]: the pressure follows
///
/// ```text
/// dp/dt = Q_net / C(p),   C(p) = (V_d + V_f(p)) / B(p) + C_g(p)
/// ```
///
/// with `Q_net` the net flow into it from every other part at its node,
/// `V_f` the oil the gas (polytropic, precharged to `p0`) lets in, `C_g`
/// its derivative, `V_d` the node's dead volume of oil and `B` the oil's
/// bulk modulus. The accumulator is the node's volume: it sets the
/// pressure, and no [`crate::Chamber`] is needed there (its dead volume
/// is the node's oil).
///
/// Event indicators (the element's switching functions, the ends of the
/// smoothed precharge band, where the law's third derivative jumps):
/// `band_low`, `p - (p0 - p_band/2)`, and `band_high`, `p - (p0 +
/// p_band/2)`, each read with a 1e-3 Pa offset.
///
/// Port `A` (hydraulic, sets the pressure); state `p` (Pa, nominal 1e7).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Accumulator {
    law: GasAccumulator,
    fluid: BulkModulus,
    p_start: f64,
}

const PORTS: [Port; 1] = [Port::hydraulic_volume(
    "A",
    "The accumulator's port: its pressure out, the net flow into it in",
)];
const STATES: [StateSpec; 1] = [StateSpec::new("p", 1e7)];
const EVENTS: [EventIndicator; 2] = [
    EventIndicator {
        name: "band_low",
        description: "p - (p0 - p_band/2), Pa: positive once the gas starts to take oil",
        offset: 1e-3,
    },
    EventIndicator {
        name: "band_high",
        description: "p - (p0 + p_band/2), Pa: positive above the smoothed precharge band",
        offset: 1e-3,
    },
];

const Q: usize = 1;

impl Accumulator {
    /// An accumulator of law `law` (built by
    /// [`hydraulics::GasAccumulator::new`], which checks it) on oil of
    /// bulk modulus law `fluid` (checked), at pressure `p_start` (Pa,
    /// finite) at the start.
    pub fn new(law: GasAccumulator, fluid: BulkModulus, p_start: f64) -> Result<Self, String> {
        GasAccumulator::new(law.p0, law.v0, law.n, law.p_atm, law.p_band, law.v_dead)?;
        fluid
            .check()
            .map_err(|e| format!("bulk modulus law: {e}"))?;
        finite("initial pressure", "p_start", p_start, "Pa")?;
        Ok(Accumulator {
            law,
            fluid,
            p_start,
        })
    }

    /// The element law.
    pub fn law(&self) -> &GasAccumulator {
        &self.law
    }
}

impl Part for Accumulator {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    fn states(&self) -> &[StateSpec] {
        &STATES
    }

    fn event_indicators(&self) -> &[EventIndicator] {
        &EVENTS
    }

    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        x[0] = self.p_start;
    }

    /// The pressure on the state; its rate on the net inflow.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Across(_) => Dependencies {
                states: vec![0],
                slots: Vec::new(),
            },
            Output::Rate(_) => Dependencies {
                states: Vec::new(),
                slots: vec![Q],
            },
            Output::Through(_) => Dependencies::default(),
        }
    }

    fn across_states(&self) -> Option<&[(usize, usize)]> {
        Some(&[(0, 0)])
    }

    #[inline]
    fn across(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        ports[0] = x[0];
        if let Some(d) = d {
            *d.state(0, 0) = 1.0;
        }
    }

    #[inline]
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        let r = self.law.pressure_rate(&self.fluid, x[0], ports[Q]);
        dx[0] = r.dp;
        if let Some(d) = d {
            *d.state(0, 0) = r.d_p;
            *d.slot(0, Q) = r.d_q;
        }
    }

    fn event_indicator_values(&self, x: &[f64], _ports: &[f64], z: &mut [f64]) {
        z.copy_from_slice(&self.law.switching(x[0]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_checks_the_law_built_field_by_field() {
        let oil = BulkModulus::reference_oil();
        let law = GasAccumulator::new(5e6, 4e-3, 1.4, 1e5, 1e5, 1e-4).unwrap();
        assert!(Accumulator::new(law, oil, 5e6).is_ok());
        let bad = GasAccumulator { v_dead: 0.0, ..law };
        assert_eq!(
            Accumulator::new(bad, oil, 5e6).unwrap_err(),
            "dead volume v_dead = 0 m3 must be positive"
        );
        assert!(
            Accumulator::new(law, oil, f64::NAN)
                .unwrap_err()
                .contains("p_start")
        );
    }
}
