//! A counterbalance (load-holding) valve.

use fmu_core::EventIndicator;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port};
use hydraulics::{CheckValve as CheckLaw, CounterbalanceValve as CounterbalanceLaw};

/// A counterbalance valve with the law of [`hydraulics::counterbalance`]:
/// a pilot-assisted poppet from `load` to `out` that opens once
/// `p_load + r p_pilot` exceeds the setting `p_set`, and a built-in check
/// valve passing free flow from `out` into `load`,
///
/// ```text
/// Q = s((p_load + r p_pilot - p_set) / p_band) f_Kmax(p_load - p_out)
///     - Q_check(p_out, p_load)                    (positive load -> out)
/// ```
///
/// The pilot only senses its node's pressure: no flow enters the part
/// there (its through value is 0).
///
/// Event indicators (the element's four switching functions): `lift`,
/// `p_load + r p_pilot - p_set`; `full`, the same less `p_band`; and the
/// check valve's `check_crack` and `check_open` (from `out` to `load`);
/// each read with a 1e-3 Pa offset.
///
/// Ports `load`, `out` (hydraulic, set the flow: `Q` into the part at
/// `load`, `-Q` at `out`) and `pilot` (hydraulic, sets the flow there to
/// zero).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CounterbalanceValve {
    law: CounterbalanceLaw,
}

const PORTS: [Port; 3] = [
    Port::hydraulic("load", "The load side (the actuator's holding chamber)"),
    Port::hydraulic("out", "The outlet, to the directional valve"),
    Port::hydraulic(
        "pilot",
        "The pilot line: senses its pressure, draws no flow",
    ),
];

const EVENTS: [EventIndicator; 4] = [
    EventIndicator {
        name: "lift",
        description: "p_load + r p_pilot - p_set, Pa: positive once the poppet lifts",
        offset: 1e-3,
    },
    EventIndicator {
        name: "full",
        description: "p_load + r p_pilot - p_set - p_band, Pa: positive once the poppet is fully open",
        offset: 1e-3,
    },
    EventIndicator {
        name: "check_crack",
        description: "p_out - p_load - p_crack, Pa: positive once the built-in check valve cracks",
        offset: 1e-3,
    },
    EventIndicator {
        name: "check_open",
        description: "p_out - p_load - p_crack - p_band of the check valve, Pa: positive once it is fully open",
        offset: 1e-3,
    },
];

const PL: usize = 0;
const QL: usize = 1;
const PO: usize = 2;
const QO: usize = 3;
const PP: usize = 4;
const QP: usize = 5;

impl CounterbalanceValve {
    /// A counterbalance valve (see [`hydraulics::CounterbalanceValve::new`]):
    /// fully open poppet coefficient `k_max` (m3/(s sqrt(Pa))), orifice
    /// transition pressure `p_tr` (Pa), setting `p_set` (Pa), pilot ratio
    /// `pilot_ratio` (1), opening band `p_band` (Pa) and the built-in
    /// check valve `check` (inlet at `out`, outlet at `load`).
    pub fn new(
        k_max: f64,
        p_tr: f64,
        p_set: f64,
        pilot_ratio: f64,
        p_band: f64,
        check: CheckLaw,
    ) -> Result<Self, String> {
        Ok(CounterbalanceValve {
            law: CounterbalanceLaw::new(k_max, p_tr, p_set, pilot_ratio, p_band, check)?,
        })
    }

    /// The element law.
    pub fn law(&self) -> &CounterbalanceLaw {
        &self.law
    }
}

impl Part for CounterbalanceValve {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    fn event_indicators(&self) -> &[EventIndicator] {
        &EVENTS
    }

    /// The flows at `load` and `out` on the three pressures; the pilot's
    /// (zero) on nothing.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Through(QL) | Output::Through(QO) => Dependencies {
                states: Vec::new(),
                slots: vec![PL, PO, PP],
            },
            _ => Dependencies::default(),
        }
    }

    #[inline]
    fn through(&self, _x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        let f = self.law.flow(ports[PL], ports[PO], ports[PP]);
        ports[QL] = f.q;
        ports[QO] = -f.q;
        ports[QP] = 0.0;
        if let Some(d) = d {
            *d.slot(QL, PL) = f.d_load;
            *d.slot(QL, PO) = f.d_out;
            *d.slot(QL, PP) = f.d_pilot;
            *d.slot(QO, PL) = -f.d_load;
            *d.slot(QO, PO) = -f.d_out;
            *d.slot(QO, PP) = -f.d_pilot;
        }
    }

    fn rates(&self, _x: &[f64], _ports: &[f64], _dx: &mut [f64], _d: Option<&mut Partials<'_>>) {}

    fn event_indicator_values(&self, _x: &[f64], ports: &[f64], z: &mut [f64]) {
        z.copy_from_slice(&self.law.switching(ports[PL], ports[PO], ports[PP]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_names_the_bad_parameter() {
        let check = CheckLaw::new(1e-5, 1e4, 2e5, 2e5, 1e-13).unwrap();
        assert_eq!(
            CounterbalanceValve::new(1e-5, 1e4, 0.0, 4.0, 1e6, check).unwrap_err(),
            "setting p_set = 0 Pa must be positive"
        );
        let v = CounterbalanceValve::new(1e-5, 1e4, 2.5e7, 4.0, 1e6, check).unwrap();
        assert_eq!(v.law().pilot_ratio, 4.0);
    }
}
