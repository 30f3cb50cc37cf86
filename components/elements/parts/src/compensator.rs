//! A pressure compensator: a throttle whose coefficient follows the load
//! pressure a shuttle valve picks from two pilot lines.

use crate::check::{finite, non_negative, positive};
use fmu_core::compose::{Dependencies, Output, Part, PartClamp, Partials, Port, StateSpec};
use fmu_core::{Derived, EventIndicator};
use hydraulics::{PressureCompensator as Law, shuttle};

/// The pressure compensator of Ustinov, Wu and Handroos (2022), circuit 2
/// (the valve drive's `MODEL.md`, V3), with the law of
/// [`hydraulics::PressureCompensator`]: a throttle from `P` (supply,
/// pressure `ps`) to `A` (the small volume before a directional valve,
/// pressure `pv`) passing
///
/// ```text
/// Q = K f(ps - pv)                      (the orifice law E2, K clamped)
/// dK/dt = [C5 - (pv - psh) - (C1 + C2 (ps - pv)/1e5) K] / C3
/// psh = max(p_LA, p_LB)                 (the shuttle valve)
/// ```
///
/// with its coefficient `K` a state held in `[0, K_max]` (anti-windup:
/// the rate is zero while `K` sits on a bound and is pushed outward, a
/// clamp the integrators see). `C2` applies to the drop in bar. The pilot
/// ports `LA`, `LB` read the two load pressures (the cylinder's chambers)
/// and take no flow.
///
/// Event indicator `shuttle`: `p_LA - p_LB`, read with a 1e-3 Pa offset
/// (where the shuttle valve changes sides; the valve drive's own).
///
/// Ports `P`, `A` (hydraulic, set the flows: `Q` into `P`, `-Q` into
/// `A`), `LA`, `LB` (hydraulic pilots, no flow); state `K`
/// (m3/(s sqrt(Pa)), nominal `K_max`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PressureCompensator {
    law: Law,
    k0: f64,
    states: [StateSpec; 1],
}

const PORTS: [Port; 4] = [
    Port::hydraulic("P", "The supply side of the throttle"),
    Port::hydraulic("A", "The regulated side of the throttle (the small volume)"),
    Port::hydraulic("LA", "Load-sensing pilot A (no flow)"),
    Port::hydraulic("LB", "Load-sensing pilot B (no flow)"),
];
const EVENTS: [EventIndicator; 1] = [EventIndicator {
    name: "shuttle",
    description: "p_LA - p_LB + 1e-3 Pa: the shuttle valve passes the higher one",
    offset: 1e-3,
}];

const PP: usize = 0;
const QP: usize = 1;
const PA: usize = 2;
const QA: usize = 3;
const PLA: usize = 4;
const QLA: usize = 5;
const PLB: usize = 6;
const QLB: usize = 7;

impl PressureCompensator {
    /// A compensator of constants `c1` (Pa s sqrt(Pa)/m3), `c2` (per bar),
    /// `c3` (Pa s sqrt(Pa)/m3, positive), margin `c5` (Pa), largest
    /// coefficient `k_max` (m3/(s sqrt(Pa)), positive), orifice-law
    /// transition `p_tr` (Pa, positive) and coefficient `k0` at the start
    /// (in `[0, k_max]`).
    pub fn new(law: Law, k0: f64) -> Result<Self, String> {
        finite("constant", "C1", law.c1, "Pa s sqrt(Pa)/m3")?;
        finite("constant", "C2", law.c2, "1/bar")?;
        positive("constant", "C3", law.c3, "Pa s sqrt(Pa)/m3")?;
        finite("pressure margin", "C5", law.c5, "Pa")?;
        positive(
            "largest throttle coefficient",
            "K_max",
            law.k_max,
            "m3/(s sqrt(Pa))",
        )?;
        positive("transition pressure", "p_tr", law.p_tr, "Pa")?;
        non_negative(
            "throttle coefficient at the start",
            "K0",
            k0,
            "m3/(s sqrt(Pa))",
        )?;
        if k0 > law.k_max {
            return Err(format!(
                "throttle coefficient at the start K0 = {} m3/(s sqrt(Pa)) exceeds K_max = {} m3/(s sqrt(Pa))",
                crate::check::show(k0),
                crate::check::show(law.k_max)
            ));
        }
        Ok(PressureCompensator {
            law,
            k0,
            states: [StateSpec::new("K", law.k_max)],
        })
    }

    /// The element law.
    pub fn law(&self) -> &Law {
        &self.law
    }
}

impl Part for PressureCompensator {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    fn states(&self) -> &[StateSpec] {
        &self.states
    }

    fn event_indicators(&self) -> &[EventIndicator] {
        &EVENTS
    }

    fn derived(&self) -> Vec<Derived> {
        vec![Derived::positive(
            "p_tr^-2.5 of the compensator (E2)",
            "Pa^-2.5",
            1.0 / (self.law.p_tr * self.law.p_tr * self.law.p_tr.sqrt()),
        )]
    }

    fn clamps(&self) -> Vec<PartClamp> {
        vec![PartClamp {
            state: 0,
            lower: 0.0,
            upper: self.law.k_max,
        }]
    }

    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        x[0] = self.k0;
    }

    /// The flows on K and the two throttle pressures; K's rate on every
    /// pressure.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Through(QP) | Output::Through(QA) => Dependencies {
                states: vec![0],
                slots: vec![PP, PA],
            },
            Output::Through(_) | Output::Across(_) => Dependencies::default(),
            Output::Rate(_) => Dependencies {
                states: Vec::new(),
                slots: vec![PP, PA, PLA, PLB],
            },
        }
    }

    #[inline]
    fn through(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        let (q, dq_k, dq_pv) = self.law.flow(x[0], ports[PP], ports[PA]);
        ports[QP] = q;
        ports[QA] = -q;
        ports[QLA] = 0.0;
        ports[QLB] = 0.0;
        if let Some(d) = d {
            *d.state(QP, 0) = dq_k;
            *d.slot(QP, PP) = -dq_pv;
            *d.slot(QP, PA) = dq_pv;
            *d.state(QA, 0) = -dq_k;
            *d.slot(QA, PP) = dq_pv;
            *d.slot(QA, PA) = -dq_pv;
        }
    }

    #[inline]
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        let (ps, pv) = (ports[PP], ports[PA]);
        let (psh, dpsh_a, dpsh_b) = shuttle(ports[PLA], ports[PLB]);
        let rate = self.law.rate(x[0], ps, pv, psh);
        dx[0] = rate.dk;
        if let Some(d) = d {
            *d.state(0, 0) = rate.d_k;
            *d.slot(0, PA) = rate.d_pv;
            *d.slot(0, PLA) = rate.d_psh * dpsh_a;
            *d.slot(0, PLB) = rate.d_psh * dpsh_b;
            // d/d(ps) of -(C2 (ps - pv)/1e5) K / C3, zero while held (the
            // law's partials are then all zero, d_psh included).
            if rate.d_psh != 0.0 {
                *d.slot(0, PP) = -self.law.c2 / 1e5 * x[0] / self.law.c3;
            }
        }
    }

    fn event_indicator_values(&self, _x: &[f64], ports: &[f64], z: &mut [f64]) {
        z[0] = ports[PLA] - ports[PLB];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn law() -> Law {
        Law {
            c1: 4.65e7,
            c2: -1.79e4,
            c3: 4.0e11,
            c5: 1e6,
            k_max: 5e-8,
            p_tr: 1e5,
        }
    }

    #[test]
    fn constructor_names_the_bad_parameter() {
        assert!(PressureCompensator::new(law(), 5e-11).is_ok());
        assert_eq!(
            PressureCompensator::new(Law { c3: 0.0, ..law() }, 0.0).unwrap_err(),
            "constant C3 = 0 Pa s sqrt(Pa)/m3 must be positive"
        );
        assert!(
            PressureCompensator::new(law(), 1e-7)
                .unwrap_err()
                .contains("exceeds K_max")
        );
    }

    #[test]
    fn held_on_its_bounds_and_free_between() {
        let c = PressureCompensator::new(law(), 0.0).unwrap();
        let mut dx = [0.0];
        // Closed and pushed further shut (pv far above the margin): held.
        c.rates(
            &[0.0],
            &[1.4e7, 0.0, 1.4e7, 0.0, 1e6, 0.0, 2e6, 0.0],
            &mut dx,
            None,
        );
        assert_eq!(dx[0], 0.0);
        // Closed and asked to open (pv below psh + C5): it opens.
        c.rates(
            &[0.0],
            &[1.4e7, 0.0, 3e6, 0.0, 1e6, 0.0, 2.5e6, 0.0],
            &mut dx,
            None,
        );
        assert!(dx[0] > 0.0);
        assert_eq!(c.clamps()[0].upper, 5e-8);
    }
}
