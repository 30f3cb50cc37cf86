//! A rotating load: an inertia on a shaft with friction and a load torque.

use crate::check::finite;
use fmu_core::Derived;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port, StateSpec};
use mechanics::RotationalLoad;

/// A rigid rotating load with the law of [`mechanics::rotational`]: the
/// shaft's angle and speed are states, driven by the net torque `tau_net`
/// the other parts at its node put into it (a motor's delivered torque, a
/// pump's demanded one with its sign),
///
/// ```text
/// dphi/dt   = omega
/// J domega/dt = tau_net - tau_load - b omega - tau_c tanh(omega / omega_reg)
/// ```
///
/// `tau_load` is a constant load torque (N m, opposing positive rotation
/// when positive). The dry friction is smooth (tanh): no event indicator.
///
/// Port `shaft` (rotational, sets the angle and speed); states `phi` (rad,
/// nominal 1) and `w` (rad/s, nominal 10).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inertia {
    law: RotationalLoad,
    tau_load: f64,
    w0: f64,
}

const PORTS: [Port; 1] = [Port::shaft_inertia(
    "shaft",
    "The shaft: its angle and speed out, the net torque on it in",
)];
const STATES: [StateSpec; 2] = [StateSpec::new("phi", 1.0), StateSpec::new("w", 10.0)];

const PHI: usize = 0;
const W: usize = 1;
const TAU: usize = 2;

impl Inertia {
    /// A load of moment of inertia `inertia` (kg m2, positive), viscous
    /// damping `damping` (N m s/rad), dry friction `tau_c` (N m) regularised
    /// over `omega_reg` (rad/s) ([`mechanics::RotationalLoad::new`]), a
    /// constant load torque `tau_load` (N m, finite) and the speed `w0`
    /// (rad/s, finite) at the start (at angle 0).
    pub fn new(
        inertia: f64,
        damping: f64,
        tau_c: f64,
        omega_reg: f64,
        tau_load: f64,
        w0: f64,
    ) -> Result<Self, String> {
        let law = RotationalLoad::new(inertia, damping, tau_c, omega_reg)?;
        finite("load torque", "tau_load", tau_load, "N m")?;
        finite("initial speed", "w0", w0, "rad/s")?;
        Ok(Inertia { law, tau_load, w0 })
    }

    /// The element law.
    pub fn law(&self) -> &RotationalLoad {
        &self.law
    }
}

impl Part for Inertia {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    fn states(&self) -> &[StateSpec] {
        &STATES
    }

    fn derived(&self) -> Vec<Derived> {
        vec![Derived::positive(
            "J, the moment of inertia",
            "kg m2",
            self.law.inertia,
        )]
    }

    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        x[PHI] = 0.0;
        x[W] = self.w0;
    }

    /// The angle and the speed each on its state; the rates on the net
    /// torque.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Across(r) => Dependencies {
                states: vec![r],
                slots: Vec::new(),
            },
            Output::Rate(_) => Dependencies {
                states: Vec::new(),
                slots: vec![TAU],
            },
            Output::Through(_) => Dependencies::default(),
        }
    }

    fn across_states(&self) -> Option<&[(usize, usize)]> {
        Some(&[(0, PHI), (1, W)])
    }

    #[inline]
    fn across(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        ports[0] = x[PHI];
        ports[1] = x[W];
        if let Some(d) = d {
            *d.state(0, PHI) = 1.0;
            *d.state(1, W) = 1.0;
        }
    }

    #[inline]
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        let e = self.law.acceleration(x[W], ports[TAU], self.tau_load);
        dx[PHI] = x[W];
        dx[W] = e.accel;
        if let Some(d) = d {
            *d.state(PHI, W) = 1.0;
            *d.state(W, W) = e.d_omega;
            *d.slot(W, TAU) = e.d_drive;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_names_the_bad_parameter() {
        assert_eq!(
            Inertia::new(0.0, 0.1, 0.0, 0.1, 0.0, 0.0).unwrap_err(),
            "moment of inertia J = 0 kg m2 must be positive"
        );
        assert_eq!(
            Inertia::new(0.5, 0.1, 0.0, 0.1, f64::NAN, 0.0).unwrap_err(),
            "load torque tau_load = NaN N m must be a finite number"
        );
        let mut x = [1.0, 1.0];
        Inertia::new(0.5, 0.1, 0.0, 0.1, 2.0, 3.0)
            .unwrap()
            .initial_state(&[], &mut x);
        assert_eq!(x, [0.0, 3.0]);
    }
}
