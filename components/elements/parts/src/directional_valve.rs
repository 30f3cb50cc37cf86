//! A 4/3 proportional directional valve, opened by a spool signal.

use crate::check::{non_negative, positive};
use fmu_core::EventIndicator;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port};
use hydraulics::{DirectionalValve as ValveLaw, Opening};

/// A 4/3 proportional directional valve with the law of
/// [`hydraulics::directional_valve`] (V4): four metering edges P-A, P-B,
/// A-T and B-T, each the regularised orifice law scaled by its opening,
/// the openings following the spool signal `Us` (V) read at the signal
/// port `Us` (from a [`crate::Spool`], or an FMU input):
///
/// ```text
/// Q_A = cv (o_PA f(p_P - p_A) - o_AT f(p_A - p_T))     (into chamber A)
/// Q_B = cv (o_BT f(p_B - p_T) - o_PB f(p_P - p_B))     (out of chamber B)
/// Q_P = cv (o_PA f(p_P - p_A) + o_PB f(p_P - p_B))     (out of the supply)
/// ```
///
/// and the return flow `Q_P - Q_A + Q_B` out at `T`. The element gives the
/// partials with respect to `Us`, `p_P`, `p_A` and `p_B`; those with
/// respect to `p_T` follow because the flows depend on pressure
/// differences only (the four pressure partials of each flow sum to zero).
///
/// Event indicators: the four edges' openings before they are cut at zero
/// (`edge_PA`, `edge_PB`, `edge_AT`, `edge_BT`, V; the element's
/// switching functions), each read with a 1e-9 V offset.
///
/// Ports `P`, `A`, `B`, `T` (hydraulic, set the flow: `Q_P`, `-Q_A`,
/// `Q_B`, `-(Q_P - Q_A + Q_B)` into the part) and `Us` (signal in).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DirectionalValve {
    law: ValveLaw,
}

const PORTS: [Port; 5] = [
    Port::hydraulic("P", "The supply port"),
    Port::hydraulic("A", "Work port A: fed from P for a positive spool signal"),
    Port::hydraulic("B", "Work port B: fed from P for a negative spool signal"),
    Port::hydraulic("T", "The tank port"),
    Port::signal_in("Us", "The spool signal, V"),
];

const EVENTS: [EventIndicator; 4] = [
    EventIndicator {
        name: "edge_PA",
        description: "opening of the P-A edge before the cut at zero, V (V4)",
        offset: 1e-9,
    },
    EventIndicator {
        name: "edge_PB",
        description: "opening of the P-B edge before the cut at zero, V (V4)",
        offset: 1e-9,
    },
    EventIndicator {
        name: "edge_AT",
        description: "opening of the A-T edge before the cut at zero, V (V4)",
        offset: 1e-9,
    },
    EventIndicator {
        name: "edge_BT",
        description: "opening of the B-T edge before the cut at zero, V (V4)",
        offset: 1e-9,
    },
];

const PP: usize = 0;
const QP: usize = 1;
const PA: usize = 2;
const QA: usize = 3;
const PB: usize = 4;
const QB: usize = 5;
const PT: usize = 6;
const QT: usize = 7;
const US: usize = 8;

impl DirectionalValve {
    /// A valve of flow constant `cv` (m3/(s V sqrt(Pa)), positive) per
    /// volt of opening, opening characteristic `opening` (a deadband `ud`
    /// not negative; or overlaps with `u_nom` positive and `c1`, `c2` in
    /// `[0, 1]`), orifice transition pressure `p_tr` (Pa, positive).
    pub fn new(cv: f64, opening: Opening, p_tr: f64) -> Result<Self, String> {
        positive("flow constant", "cv", cv, "m3/(s V sqrt(Pa))")?;
        positive("transition pressure", "p_tr", p_tr, "Pa")?;
        match opening {
            Opening::Deadband { ud } => non_negative("deadband", "ud", ud, "V")?,
            Opening::Overlap { u_nom, c1, c2 } => {
                positive("spool signal at full stroke", "u_nom", u_nom, "V")?;
                for (symbol, c) in [("c1", c1), ("c2", c2)] {
                    non_negative("overlap", symbol, c, "(1)")?;
                    if c > 1.0 {
                        return Err(format!(
                            "overlap {symbol} = {c} (1) must not exceed 1 (a fraction of the stroke)"
                        ));
                    }
                }
            }
        }
        Ok(DirectionalValve {
            law: ValveLaw { cv, opening, p_tr },
        })
    }

    /// The element law.
    pub fn law(&self) -> &ValveLaw {
        &self.law
    }
}

impl Part for DirectionalValve {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    fn event_indicators(&self) -> &[EventIndicator] {
        &EVENTS
    }

    /// Every flow on the four pressures and the spool signal.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Through(_) => Dependencies {
                states: Vec::new(),
                slots: vec![PP, PA, PB, PT, US],
            },
            _ => Dependencies::default(),
        }
    }

    #[inline]
    fn through(&self, _x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        let (us, pp, pa, pb, pt) = (ports[US], ports[PP], ports[PA], ports[PB], ports[PT]);
        // The flows alone (no slopes) when no partials are asked for.
        let ((q_a, q_b, q_p), partials) = match d {
            None => (self.law.flow_values(us, pp, pa, pb, pt), None),
            Some(d) => {
                let f = self.law.flows(us, pp, pa, pb, pt);
                ((f.q_a, f.q_b, f.q_p), Some((d, f.partials)))
            }
        };
        ports[QP] = q_p;
        ports[QA] = -q_a;
        ports[QB] = q_b;
        ports[QT] = -(q_p - q_a + q_b);
        let Some((d, [da, db, dp])) = partials else {
            return;
        };
        // The element's partials: rows q_a, q_b, q_p; columns Us, p_P,
        // p_A, p_B. Each port's row is a combination of them.
        let row = |wp: f64, wa: f64, wb: f64| -> [f64; 4] {
            std::array::from_fn(|k| wp * dp[k] + wa * da[k] + wb * db[k])
        };
        for (slot, w) in [
            (QP, row(1.0, 0.0, 0.0)),
            (QA, row(0.0, -1.0, 0.0)),
            (QB, row(0.0, 0.0, 1.0)),
            (QT, row(-1.0, 1.0, -1.0)),
        ] {
            *d.slot(slot, US) = w[0];
            *d.slot(slot, PP) = w[1];
            *d.slot(slot, PA) = w[2];
            *d.slot(slot, PB) = w[3];
            // Pressure differences only: the four partials sum to 0.
            *d.slot(slot, PT) = -(w[1] + w[2] + w[3]);
        }
    }

    fn rates(&self, _x: &[f64], _ports: &[f64], _dx: &mut [f64], _d: Option<&mut Partials<'_>>) {}

    fn event_indicator_values(&self, _x: &[f64], ports: &[f64], z: &mut [f64]) {
        z.copy_from_slice(&self.law.edge_switching(ports[US]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_names_the_bad_parameter() {
        let deadband = Opening::Deadband { ud: 2.0 };
        assert!(DirectionalValve::new(2.315e-9, deadband, 1e5).is_ok());
        assert_eq!(
            DirectionalValve::new(0.0, deadband, 1e5).unwrap_err(),
            "flow constant cv = 0 m3/(s V sqrt(Pa)) must be positive"
        );
        let overlap = Opening::Overlap {
            u_nom: 10.0,
            c1: 0.1,
            c2: 1.5,
        };
        assert_eq!(
            DirectionalValve::new(2.315e-9, overlap, 1e5).unwrap_err(),
            "overlap c2 = 1.5 (1) must not exceed 1 (a fraction of the stroke)"
        );
    }
}
