//! A double-acting cylinder with its two chambers' pressures as states.

use crate::check::{finite, positive};
use fmu_core::Derived;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port, StateSpec};
use hydraulics::fluid::Fluid;
use hydraulics::{BulkModulus, Cylinder as CylinderLaw};

/// A double-acting cylinder holding the oil of its two chambers: the
/// chamber pressures are states, the chamber volumes follow the rod's
/// position `s` (0 with the piston at the `A` end), with the laws of
/// [`hydraulics::cylinder`] (V5) and [`hydraulics::volume`] (E5):
///
/// ```text
/// V_A(s) = A1 s + V_dA            V_B(s) = A2 (stroke - s) + V_dB
/// dp_A/dt = B(p_A) / V_A(s) * (Q_A - dV_A/ds v)
/// dp_B/dt = B(p_B) / V_B(s) * (Q_B - dV_B/ds v)
/// F = p_A A1 - p_B A2             (on the rod, positive extending)
/// ```
///
/// with `Q_A`, `Q_B` the net flows into the chambers from the other parts
/// at the `A` and `B` nodes (a valve, a hose, an orifice). Each volume is
/// floored at a tenth of its dead volume (the element's law), reached only
/// far beyond the stroke.
///
/// Causality: the cylinder is the volume of its two nodes (it sets their
/// pressures, so the valves feeding it connect straight to it, no
/// [`crate::Chamber`] between) and sets the force at its rod from its
/// pressures; the rod's node needs a part that sets its motion (a
/// [`crate::Mass`]). Unlike [`crate::Cylinder`], the chambers' stiffness
/// changes with the stroke.
///
/// Ports `A`, `B` (hydraulic, set the pressures) and `rod` (translational:
/// `-F` into the part); states `p_A`, `p_B` (Pa, nominal 1e7).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChamberCylinder {
    law: CylinderLaw,
    fluid: Fluid,
    p_a0: f64,
    p_b0: f64,
}

const PORTS: [Port; 3] = [
    Port::hydraulic_volume(
        "A",
        "The piston-side chamber: its pressure out, the net flow into it in",
    ),
    Port::hydraulic_volume(
        "B",
        "The rod-side chamber: its pressure out, the net flow into it in",
    ),
    Port::flange(
        "rod",
        "The rod: its motion in, the hydraulic force on it out",
    ),
];
const STATES: [StateSpec; 2] = [StateSpec::new("p_A", 1e7), StateSpec::new("p_B", 1e7)];

const PA: usize = 0;
const QA: usize = 1;
const PB: usize = 2;
const QB: usize = 3;
const S: usize = 4;
const V: usize = 5;
const F: usize = 6;

impl ChamberCylinder {
    /// A cylinder of piston area `a1` and annulus area `a2` (m2), stroke
    /// `stroke` (m) and dead volumes `v_dead_a`, `v_dead_b` (m3, lines
    /// included), all positive, on oil of bulk modulus law `fluid`
    /// (checked), with chamber pressures `p_a0`, `p_b0` (Pa, finite) at
    /// the start.
    pub fn new(law: CylinderLaw, fluid: BulkModulus, p_a0: f64, p_b0: f64) -> Result<Self, String> {
        positive("piston area", "A1", law.a1, "m2")?;
        positive("annulus area", "A2", law.a2, "m2")?;
        positive("stroke", "stroke", law.stroke, "m")?;
        positive("dead volume of chamber A", "V_dA", law.v_dead_a, "m3")?;
        positive("dead volume of chamber B", "V_dB", law.v_dead_b, "m3")?;
        fluid
            .check()
            .map_err(|e| format!("bulk modulus law: {e}"))?;
        finite("initial pressure of chamber A", "p_A0", p_a0, "Pa")?;
        finite("initial pressure of chamber B", "p_B0", p_b0, "Pa")?;
        Ok(ChamberCylinder {
            law,
            fluid: Fluid::new(fluid),
            p_a0,
            p_b0,
        })
    }

    /// The element law.
    pub fn law(&self) -> &CylinderLaw {
        &self.law
    }

    /// One chamber's pressure rate at pressure `p`, volume `vol` changing
    /// by `dvol` per metre of rod travel, net inflow `q`, rod speed `v`;
    /// with its partials with respect to `p`, `q`, `s` and `v`.
    #[inline]
    fn chamber(&self, p: f64, vol: f64, dvol: f64, q: f64, v: f64) -> [f64; 5] {
        let b = self.fluid.value(p);
        let net = q - dvol * v;
        let rate = b / vol * net;
        [
            rate,
            self.fluid.derivative(p) / vol * net,
            b / vol,
            -rate / vol * dvol,
            -b / vol * dvol,
        ]
    }
}

impl Part for ChamberCylinder {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    fn states(&self) -> &[StateSpec] {
        &STATES
    }

    fn derived(&self) -> Vec<Derived> {
        vec![
            Derived::positive(
                "B(0)/V_dA, chamber A's stiffness at s = 0 (V5)",
                "Pa/m3",
                self.fluid.value(0.0) / self.law.volume_a(0.0),
            ),
            Derived::positive(
                "B(0)/V_dB, chamber B's stiffness at full stroke (V5)",
                "Pa/m3",
                self.fluid.value(0.0) / self.law.volume_b(self.law.stroke),
            ),
        ]
    }

    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        x[0] = self.p_a0;
        x[1] = self.p_b0;
    }

    /// Each pressure on its state, the force on both; each rate on its
    /// chamber's net inflow and the rod's motion.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Across(PA) => Dependencies {
                states: vec![0],
                slots: Vec::new(),
            },
            Output::Across(_) => Dependencies {
                states: vec![1],
                slots: Vec::new(),
            },
            Output::Through(_) => Dependencies {
                states: vec![0, 1],
                slots: Vec::new(),
            },
            Output::Rate(0) => Dependencies {
                states: Vec::new(),
                slots: vec![QA, S, V],
            },
            Output::Rate(_) => Dependencies {
                states: Vec::new(),
                slots: vec![QB, S, V],
            },
        }
    }

    fn across_states(&self) -> Option<&[(usize, usize)]> {
        Some(&[(PA, 0), (PB, 1)])
    }

    #[inline]
    fn across(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        ports[PA] = x[0];
        ports[PB] = x[1];
        if let Some(d) = d {
            *d.state(PA, 0) = 1.0;
            *d.state(PB, 1) = 1.0;
        }
    }

    #[inline]
    fn through(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        ports[F] = -self.law.force(x[0], x[1]);
        if let Some(d) = d {
            *d.state(F, 0) = -self.law.a1;
            *d.state(F, 1) = self.law.a2;
        }
    }

    #[inline]
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        let (s, v) = (ports[S], ports[V]);
        let a = self.chamber(
            x[0],
            self.law.volume_a(s),
            self.law.dvolume_a(s),
            ports[QA],
            v,
        );
        let b = self.chamber(
            x[1],
            self.law.volume_b(s),
            self.law.dvolume_b(s),
            ports[QB],
            v,
        );
        dx[0] = a[0];
        dx[1] = b[0];
        if let Some(d) = d {
            *d.state(0, 0) = a[1];
            *d.slot(0, QA) = a[2];
            *d.slot(0, S) = a[3];
            *d.slot(0, V) = a[4];
            *d.state(1, 1) = b[1];
            *d.slot(1, QB) = b[2];
            *d.slot(1, S) = b[3];
            *d.slot(1, V) = b[4];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_names_the_bad_parameter() {
        let law = CylinderLaw {
            a1: 8.04e-4,
            a2: 4.24e-4,
            stroke: 0.5,
            v_dead_a: 1e-4,
            v_dead_b: 1e-4,
        };
        let oil = BulkModulus::reference_oil();
        assert!(ChamberCylinder::new(law, oil, 0.0, 0.0).is_ok());
        assert_eq!(
            ChamberCylinder::new(CylinderLaw { stroke: 0.0, ..law }, oil, 0.0, 0.0).unwrap_err(),
            "stroke stroke = 0 m must be positive"
        );
        assert_eq!(
            ChamberCylinder::new(
                CylinderLaw {
                    v_dead_b: -1e-5,
                    ..law
                },
                oil,
                0.0,
                0.0
            )
            .unwrap_err(),
            "dead volume of chamber B V_dB = -1e-5 m3 must be positive"
        );
    }
}
