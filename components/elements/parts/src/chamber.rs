//! A chamber: a rigid lumped volume of oil whose pressure is a state.

use crate::check::{finite, positive};
use fmu_core::Derived;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port, StateSpec};
use hydraulics::fluid::Fluid;
use hydraulics::{BulkModulus, Volume};

/// A rigid lumped volume `V` of oil with the pressure-dependent bulk
/// modulus `B(p)` of [`hydraulics::fluid`] (E4): its pressure follows the
/// continuity equation of [`hydraulics::volume`] (E5),
///
/// ```text
/// dp/dt = B(p) / V * Q_net
/// ```
///
/// with `Q_net` the net flow into the chamber from every other part at its
/// node. Below 0 Pa the bulk modulus is held at `B(0)`; the pressure is not
/// clamped (the element-law circuits do not clamp their volumes either),
/// so a chamber drained harder than its supply goes below zero instead of
/// cavitating.
///
/// Port `A` (hydraulic, sets the pressure); state `p` (Pa, nominal 1e7).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chamber {
    volume: Volume,
    fluid: Fluid,
    p0: f64,
}

const PORTS: [Port; 1] = [Port::hydraulic_volume(
    "A",
    "The chamber's port: its pressure out, the net flow into it in",
)];
const STATES: [StateSpec; 1] = [StateSpec::new("p", 1e7)];

/// Port slots: the pressure, the net inflow.
const P: usize = 0;
const Q: usize = 1;

impl Chamber {
    /// A chamber of volume `volume` (m3, positive) filled with oil of bulk
    /// modulus law `fluid` (checked: positive for every pressure), at
    /// pressure `p0` (Pa, finite) at the start.
    pub fn new(volume: f64, fluid: BulkModulus, p0: f64) -> Result<Self, String> {
        positive("chamber volume", "V", volume, "m3")?;
        fluid
            .check()
            .map_err(|e| format!("bulk modulus law: {e}"))?;
        finite("initial pressure", "p0", p0, "Pa")?;
        Ok(Chamber {
            volume: Volume { volume },
            fluid: Fluid::new(fluid),
            p0,
        })
    }

    /// The chamber's volume, m3.
    pub fn volume(&self) -> f64 {
        self.volume.volume
    }

    /// The oil's bulk modulus law.
    pub fn fluid(&self) -> &BulkModulus {
        self.fluid.law()
    }
}

impl Part for Chamber {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    fn states(&self) -> &[StateSpec] {
        &STATES
    }

    fn derived(&self) -> Vec<Derived> {
        vec![Derived::positive(
            "B(0)/V, the chamber's stiffness at 0 Pa (E5)",
            "Pa/m3",
            self.fluid.value(0.0) / self.volume.volume,
        )]
    }

    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        x[0] = self.p0;
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
        Some(&[(P, 0)])
    }

    #[inline]
    fn across(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        ports[P] = x[0];
        if let Some(d) = d {
            *d.state(P, 0) = 1.0;
        }
    }

    #[inline]
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        let (p, q) = (x[0], ports[Q]);
        // Volume::pressure_rate, rate_slope_pressure and stiffness, with
        // the law's value kept when it is constant.
        let (volume, b) = (self.volume.volume, self.fluid.value(p));
        dx[0] = b / volume * q;
        if let Some(d) = d {
            *d.state(0, 0) = self.fluid.derivative(p) / volume * q;
            *d.slot(0, Q) = b / volume;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_checks_its_parameters() {
        let oil = BulkModulus::reference_oil();
        assert_eq!(Chamber::new(1e-4, oil, 1e5).unwrap().volume(), 1e-4);
        assert_eq!(
            Chamber::new(0.0, oil, 1e5).unwrap_err(),
            "chamber volume V = 0 m3 must be positive"
        );
        let bad = BulkModulus { a3: 0.5, ..oil };
        assert!(
            Chamber::new(1e-4, bad, 0.0)
                .unwrap_err()
                .starts_with("bulk modulus law: a2 must be >= 0 and a3 > 1")
        );
        assert!(
            Chamber::new(1e-4, oil, f64::NAN)
                .unwrap_err()
                .contains("p0")
        );
    }
}
