//! A check (non-return) valve.

use fmu_core::EventIndicator;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port};
use hydraulics::CheckValve as CheckLaw;

/// A spring-loaded check valve with the law of [`hydraulics::check_valve`]:
/// flow from `A` to `B` once `dp = p_A - p_B` exceeds the cracking
/// pressure, opening smoothly over a band, blocked the other way but for
/// its seat leakage,
///
/// ```text
/// Q = s((dp - p_crack) / p_band) f_K(dp) + g_leak dp
/// ```
///
/// with `s` the cubic smoothstep and `f_K` the regularised orifice law of
/// the fully open valve.
///
/// Event indicators (the element's switching functions, where the law's
/// curvature jumps): `crack`, `dp - p_crack`, and `open`,
/// `dp - p_crack - p_band`; each read with a 1e-3 Pa offset so that equal
/// pressures at the start with `p_crack = 0` are not exactly on it.
///
/// Ports `A` (inlet) and `B` (outlet), hydraulic, set the flow: `Q` into
/// the part at `A`, `-Q` at `B`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckValve {
    law: CheckLaw,
}

const PORTS: [Port; 2] = [
    Port::hydraulic("A", "The inlet: flow passes from A to B"),
    Port::hydraulic("B", "The outlet"),
];

const EVENTS: [EventIndicator; 2] = [
    EventIndicator {
        name: "crack",
        description: "p_A - p_B - p_crack, Pa: positive once the poppet leaves its seat",
        offset: 1e-3,
    },
    EventIndicator {
        name: "open",
        description: "p_A - p_B - p_crack - p_band, Pa: positive once the poppet is fully open",
        offset: 1e-3,
    },
];

const PA: usize = 0;
const QA: usize = 1;
const PB: usize = 2;
const QB: usize = 3;

impl CheckValve {
    /// A check valve of fully open flow coefficient `k` (m3/(s sqrt(Pa)),
    /// positive) with orifice transition pressure `p_tr` (Pa, positive),
    /// cracking at `p_crack` (Pa, not negative), fully open `p_band` (Pa,
    /// positive) later, with seat leakage conductance `g_leak` (m3/(s Pa),
    /// not negative; see [`hydraulics::check_valve`] for why a small one
    /// helps): [`hydraulics::CheckValve::new`].
    pub fn new(k: f64, p_tr: f64, p_crack: f64, p_band: f64, g_leak: f64) -> Result<Self, String> {
        Ok(CheckValve {
            law: CheckLaw::new(k, p_tr, p_crack, p_band, g_leak)?,
        })
    }

    /// The element law.
    pub fn law(&self) -> &CheckLaw {
        &self.law
    }
}

impl Part for CheckValve {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    fn event_indicators(&self) -> &[EventIndicator] {
        &EVENTS
    }

    /// Both flows on both pressures.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Through(_) => Dependencies {
                states: Vec::new(),
                slots: vec![PA, PB],
            },
            _ => Dependencies::default(),
        }
    }

    #[inline]
    fn through(&self, _x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        let (q, d_in, d_out) = self.law.flow(ports[PA], ports[PB]);
        ports[QA] = q;
        ports[QB] = -q;
        if let Some(d) = d {
            *d.slot(QA, PA) = d_in;
            *d.slot(QA, PB) = d_out;
            *d.slot(QB, PA) = -d_in;
            *d.slot(QB, PB) = -d_out;
        }
    }

    fn rates(&self, _x: &[f64], _ports: &[f64], _dx: &mut [f64], _d: Option<&mut Partials<'_>>) {}

    fn event_indicator_values(&self, _x: &[f64], ports: &[f64], z: &mut [f64]) {
        z.copy_from_slice(&self.law.switching(ports[PA], ports[PB]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_names_the_bad_parameter() {
        assert_eq!(
            CheckValve::new(1e-5, 1e4, -1.0, 2e5, 0.0).unwrap_err(),
            "cracking pressure p_crack = -1 Pa must not be negative"
        );
        assert_eq!(
            CheckValve::new(1e-5, 1e4, 3e5, 2e5, 1e-13)
                .unwrap()
                .law()
                .p_band,
            2e5
        );
    }
}
