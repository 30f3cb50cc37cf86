//! A sharp-edged orifice between two nodes.

use crate::check::positive;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port};
use hydraulics::Orifice as OrificeLaw;

/// A fixed sharp-edged orifice: the flow from `A` to `B` is the
/// regularised turbulent law of [`hydraulics::orifice`] (E1, E2),
///
/// ```text
/// Q = K sign(dp) sqrt(|dp|)                       |dp| >= p_tr
/// Q = K (1.25 dp / sqrt(p_tr) - dp^3 / (4 p_tr^2 sqrt(p_tr)))   below
/// dp = p_A - p_B
/// ```
///
/// both ways (it is symmetric). The law's value and slope are continuous at
/// `|dp| = p_tr` (only the curvature jumps there), so it has no event
/// indicator.
///
/// Ports `A` and `B` (hydraulic, set the flow): the flow into the part at
/// `A` is `Q`, at `B` it is `-Q` (through values count into the part).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Orifice {
    law: OrificeLaw,
}

const PORTS: [Port; 2] = [
    Port::hydraulic("A", "One side: flow from A to B is positive"),
    Port::hydraulic("B", "The other side"),
];

/// Port slots: A's pressure and flow, B's.
const PA: usize = 0;
const QA: usize = 1;
const PB: usize = 2;
const QB: usize = 3;

impl Orifice {
    /// An orifice of flow coefficient `k = Cd A sqrt(2/rho)` (m3/(s
    /// sqrt(Pa)), positive) and transition pressure `p_tr` (Pa, positive:
    /// the law is laminar-like below it, with the finite slope
    /// `1.25 k / sqrt(p_tr)` at zero).
    pub fn new(k: f64, p_tr: f64) -> Result<Self, String> {
        positive("flow coefficient", "k", k, "m3/(s sqrt(Pa))")?;
        positive("transition pressure", "p_tr", p_tr, "Pa")?;
        Ok(Orifice {
            law: OrificeLaw { k, p_tr },
        })
    }

    /// A circular orifice of diameter `d` (m) and discharge coefficient
    /// `cd` (1) in oil of density `rho` (kg/m3), all positive (E1), with
    /// transition pressure `p_tr` (Pa).
    pub fn circular(cd: f64, d: f64, rho: f64, p_tr: f64) -> Result<Self, String> {
        positive("discharge coefficient", "cd", cd, "(1)")?;
        positive("diameter", "d", d, "m")?;
        positive("oil density", "rho", rho, "kg/m3")?;
        let law = OrificeLaw::circular(cd, d, rho, p_tr);
        Self::new(law.k, p_tr)
    }

    /// The element law.
    pub fn law(&self) -> &OrificeLaw {
        &self.law
    }
}

impl Part for Orifice {
    fn ports(&self) -> &[Port] {
        &PORTS
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
        let dp = ports[PA] - ports[PB];
        let Some(d) = d else {
            // The flow alone (the same value): no slope to divide out.
            let q = self.law.flow(dp);
            ports[QA] = q;
            ports[QB] = -q;
            return;
        };
        let (q, slope) = self.law.flow_and_slope(dp);
        ports[QA] = q;
        ports[QB] = -q;
        *d.slot(QA, PA) = slope;
        *d.slot(QA, PB) = -slope;
        *d.slot(QB, PA) = -slope;
        *d.slot(QB, PB) = slope;
    }

    fn rates(&self, _x: &[f64], _ports: &[f64], _dx: &mut [f64], _d: Option<&mut Partials<'_>>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_check_their_parameters() {
        let o = Orifice::circular(0.6, 1e-3, 900.0, 1e4).unwrap();
        assert_eq!(*o.law(), OrificeLaw::circular(0.6, 1e-3, 900.0, 1e4));
        assert_eq!(
            Orifice::new(0.0, 1e4).unwrap_err(),
            "flow coefficient k = 0 m3/(s sqrt(Pa)) must be positive"
        );
        assert_eq!(
            Orifice::new(1e-8, -1.0).unwrap_err(),
            "transition pressure p_tr = -1 Pa must be positive"
        );
        assert_eq!(
            Orifice::circular(0.6, -1e-3, 900.0, 1e4).unwrap_err(),
            "diameter d = -0.001 m must be positive"
        );
    }
}
