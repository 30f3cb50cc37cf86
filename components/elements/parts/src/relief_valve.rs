//! A pressure-relief valve from a pressure line to tank.

use crate::check::{non_negative, positive};
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port};
use hydraulics::ReliefValve as ReliefLaw;

/// A direct-acting pressure-relief valve with the smooth opening of
/// [`hydraulics::relief`] (FourBar F4): the flow from `P` to `T` is
///
/// ```text
/// Q = K_R softplus(dp - p_cr),  softplus(y) = w ln(1 + exp(y / w))
/// dp = p_P - p_T
/// ```
///
/// a linear flow-pressure law above the cracking pressure `p_cr`, rounded
/// over a band of width `w`. The element writes the law for the inlet
/// pressure against a tank at 0 Pa; the part applies it to the pressure
/// difference across the valve (the same when `T` is a vented tank: a
/// relief valve's spring acts against its outlet's pressure). The law is
/// smooth everywhere (no event indicator); it passes no flow backwards
/// (it tends to 0 for `dp` below `p_cr`).
///
/// Ports `P` (inlet) and `T` (outlet), hydraulic, set the flow: `Q` into
/// the part at `P`, `-Q` at `T`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReliefValve {
    law: ReliefLaw,
}

const PORTS: [Port; 2] = [
    Port::hydraulic("P", "The inlet: the pressure line the valve limits"),
    Port::hydraulic("T", "The outlet, to tank"),
];

const PP: usize = 0;
const QP: usize = 1;
const PT: usize = 2;
const QT: usize = 3;

impl ReliefValve {
    /// A relief valve cracking at `p_crack` (Pa, not negative), passing
    /// `gain` (m3/(s Pa), positive) more flow per pascal above it, its
    /// opening rounded over `smoothing` (Pa, positive).
    pub fn new(p_crack: f64, gain: f64, smoothing: f64) -> Result<Self, String> {
        non_negative("cracking pressure", "p_crack", p_crack, "Pa")?;
        positive("flow gain", "gain", gain, "m3/(s Pa)")?;
        positive("opening smoothing width", "smoothing", smoothing, "Pa")?;
        Ok(ReliefValve {
            law: ReliefLaw {
                p_crack,
                gain,
                smoothing,
            },
        })
    }

    /// The element law.
    pub fn law(&self) -> &ReliefLaw {
        &self.law
    }
}

impl Part for ReliefValve {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    /// Both flows on both pressures.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Through(_) => Dependencies {
                states: Vec::new(),
                slots: vec![PP, PT],
            },
            _ => Dependencies::default(),
        }
    }

    #[inline]
    fn through(&self, _x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        let (q, slope) = self.law.flow(ports[PP] - ports[PT]);
        ports[QP] = q;
        ports[QT] = -q;
        if let Some(d) = d {
            *d.slot(QP, PP) = slope;
            *d.slot(QP, PT) = -slope;
            *d.slot(QT, PP) = -slope;
            *d.slot(QT, PT) = slope;
        }
    }

    fn rates(&self, _x: &[f64], _ports: &[f64], _dx: &mut [f64], _d: Option<&mut Partials<'_>>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_checks_its_parameters() {
        let v = ReliefValve::new(7e6, 1.667e-9, 2e4).unwrap();
        assert_eq!(v.law().p_crack, 7e6);
        assert_eq!(
            ReliefValve::new(-1.0, 1e-9, 2e4).unwrap_err(),
            "cracking pressure p_crack = -1 Pa must not be negative"
        );
        assert_eq!(
            ReliefValve::new(7e6, 0.0, 2e4).unwrap_err(),
            "flow gain gain = 0 m3/(s Pa) must be positive"
        );
        assert!(
            ReliefValve::new(7e6, 1e-9, 0.0)
                .unwrap_err()
                .contains("smoothing = 0 Pa")
        );
    }
}
