//! A double-acting cylinder as a transformer between oil and rod.

use crate::check::positive;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port};

/// A double-acting cylinder without volumes of its own: piston area `A1`
/// on the `A` side, annulus area `A2` on the `B` side. Given the rod's
/// velocity `v` (positive extending) and the two pressures, it sets
///
/// ```text
/// Q_A = A1 v              (oil taken in at A: the piston side grows)
/// Q_B = -A2 v             (oil pushed out at B: the rod side shrinks)
/// F   = p_A A1 - p_B A2   (on the rod, positive extending; the law of
///                          hydraulics::Cylinder::force, V5)
/// ```
///
/// Causality: every port sets its through value, so the nodes at `A` and
/// `B` need a volume that sets their pressures: a [`crate::Chamber`] at
/// each, whose volume stands for the cylinder's chamber with its lines
/// (fixed: the variation of a chamber's volume with the stroke, `A1 s` and
/// `A2 (stroke - s)`, is left out; take the volume at the working
/// position, or the dead volume plus half the swept one), and the rod's
/// node needs a part that sets its motion (a [`crate::Mass`]).
///
/// Ports `A`, `B` (hydraulic: `Q_A`, `Q_B` into the part) and `rod`
/// (translational: `-F` into the part, since the cylinder pushes the rod's
/// node with `F`), all setting their through values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cylinder {
    a1: f64,
    a2: f64,
}

const PORTS: [Port; 3] = [
    Port::hydraulic("A", "The piston side: extending takes oil in here"),
    Port::hydraulic("B", "The rod side: extending pushes oil out here"),
    Port::flange(
        "rod",
        "The rod: its motion in, the hydraulic force on it out",
    ),
];

const PA: usize = 0;
const QA: usize = 1;
const PB: usize = 2;
const QB: usize = 3;
const V: usize = 5;
const F: usize = 6;

impl Cylinder {
    /// A cylinder of piston area `a1` and annulus area `a2` (m2, both
    /// positive; equal for a double-rod cylinder).
    pub fn new(a1: f64, a2: f64) -> Result<Self, String> {
        positive("piston area", "A1", a1, "m2")?;
        positive("annulus area", "A2", a2, "m2")?;
        Ok(Cylinder { a1, a2 })
    }

    /// The hydraulic force on the rod (N, positive extending) at the
    /// chamber pressures `p_a`, `p_b` (Pa).
    pub fn force(&self, p_a: f64, p_b: f64) -> f64 {
        p_a * self.a1 - p_b * self.a2
    }

    /// The piston and annulus areas, m2.
    pub fn areas(&self) -> (f64, f64) {
        (self.a1, self.a2)
    }
}

impl Part for Cylinder {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    /// The flows on the rod's velocity, the force on the two pressures.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Through(QA) | Output::Through(QB) => Dependencies {
                states: Vec::new(),
                slots: vec![V],
            },
            Output::Through(_) => Dependencies {
                states: Vec::new(),
                slots: vec![PA, PB],
            },
            _ => Dependencies::default(),
        }
    }

    #[inline]
    fn through(&self, _x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        let v = ports[V];
        ports[QA] = self.a1 * v;
        ports[QB] = -self.a2 * v;
        ports[F] = -self.force(ports[PA], ports[PB]);
        if let Some(d) = d {
            *d.slot(QA, V) = self.a1;
            *d.slot(QB, V) = -self.a2;
            *d.slot(F, PA) = -self.a1;
            *d.slot(F, PB) = self.a2;
        }
    }

    fn rates(&self, _x: &[f64], _ports: &[f64], _dx: &mut [f64], _d: Option<&mut Partials<'_>>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_and_force() {
        let c = Cylinder::new(8.04e-4, 4.24e-4).unwrap();
        let law = hydraulics::Cylinder {
            a1: 8.04e-4,
            a2: 4.24e-4,
            stroke: 1.0,
            v_dead_a: 1e-3,
            v_dead_b: 1e-3,
        };
        assert_eq!(c.force(1.4e7, 2e6), law.force(1.4e7, 2e6));
        assert_eq!(
            Cylinder::new(8e-4, 0.0).unwrap_err(),
            "annulus area A2 = 0 m2 must be positive"
        );
    }
}
