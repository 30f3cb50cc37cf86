//! The piston carrying the load (`MODEL.md` L6): viscous and regularised
//! dry friction, push-only end stops, gravity along the stroke. States:
//! `x_p` (m, 0 = retracted), `v_p` (m/s).

use PistonStates as P;
use fmu_core::Derived;
use fmu_core::nalgebra::{SMatrix, SVector};
use hydraulics::{EndStops, RegularisedCoulomb};

fmu_core::states! {
    /// The piston's states (L6): a block of a circuit's state vector.
    pub struct PistonStates {
        /// Piston position, m (0 = retracted)
        x_p: nominal 0.1;
        /// Piston velocity, m/s
        v_p: nominal 0.1;
    }
}

/// The piston's state vector.
pub type PistonState = SVector<f64, 2>;

/// The piston and its load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Piston {
    /// Piston mass m, kg.
    pub mass: f64,
    /// Load mass M on the rod, kg (moves with the piston).
    pub load: f64,
    /// Gravity along the stroke, m/s2 (pulls towards x_p = 0).
    pub gravity: f64,
    /// Viscous coefficient k, N s/m.
    pub viscous: f64,
    /// Dry friction.
    pub friction: RegularisedCoulomb,
    /// End stops at 0 and the stroke.
    pub stops: EndStops,
    /// Initial (x_p, v_p).
    pub initial: PistonState,
}

/// Rates of the piston and their partials.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PistonEval {
    /// d(x_p, v_p)/dt.
    pub rates: PistonState,
    /// d(rates)/d(x_p, v_p).
    pub jac: SMatrix<f64, 2, 2>,
    /// d(rates)/d(driving force).
    pub d_force: PistonState,
    /// Dry-friction force, N (same sign as v_p; it opposes the motion).
    pub friction: f64,
    /// End-stop force, N (positive extending).
    pub stop: f64,
}

impl Piston {
    /// Where the piston's equations switch (Model Exchange event
    /// indicators): the piston reaching an end stop (L6).
    pub const EVENT_INDICATORS: [fmu_core::EventIndicator; 2] = [
        fmu_core::EventIndicator {
            name: "stop_lower",
            description: "x_p - 0 + 1e-9, m: zero 1 nm into the retracted end stop (L6; the offset keeps it from being identically 0 at the start on the stop)",
            offset: 1e-9,
        },
        fmu_core::EventIndicator {
            name: "stop_upper",
            description: "stroke - x_p + 1e-9, m: zero 1 nm into the extended end stop (L6)",
            offset: 1e-9,
        },
    ];

    /// The values of [`Piston::EVENT_INDICATORS`] at piston state `p`, into
    /// `z` (2 entries).
    pub fn event_indicator_values(&self, p: &PistonState, z: &mut [f64]) {
        z[..2].copy_from_slice(&self.stops.switching(p[P::x_p]));
    }

    /// The moving mass m + M, kg.
    pub fn moving_mass(&self) -> f64 {
        self.mass + self.load
    }

    /// The coefficients of L6, for fmu-core's check at configuration.
    pub fn derived(&self) -> Vec<Derived> {
        let m = self.moving_mass();
        vec![
            Derived::positive("1/(m + M) (L6)", "1/kg", 1.0 / m),
            Derived::finite("k/(m + M), viscous (L6)", "1/s", self.viscous / m),
            Derived::finite(
                "Ff_max/(v_f (m + M)), the friction's slope at rest (L6)",
                "1/s",
                self.friction.f_max / self.friction.v_reg / m,
            ),
            Derived::finite("k_s/(m + M), stops (L6)", "1/s2", self.stops.stiffness / m),
            Derived::finite("c_s/(m + M), stops (L6)", "1/s", self.stops.damping / m),
        ]
    }

    /// Rates for state `c` = (x_p, v_p) under the driving force `force`
    /// (hydraulic plus external, N): `x_p' = v_p`,
    /// `(m + M) v_p' = force - k v_p - F_f(v_p) - (m + M) g + F_stop`.
    pub fn eval(&self, c: &PistonState, force: f64) -> PistonEval {
        let (x, v) = (c[P::x_p], c[P::v_p]);
        let (ff, ff_v) = self.friction.eval(v);
        let (fs, fs_x, fs_v) = self.stops.force(x, v);
        let m = self.moving_mass();
        let mut e = PistonEval {
            friction: ff,
            stop: fs,
            ..PistonEval::default()
        };
        e.rates[P::x_p] = v;
        e.rates[P::v_p] = (force - self.viscous * v - ff + fs) / m - self.gravity;
        e.jac[(P::x_p, P::v_p)] = 1.0;
        e.jac[(P::v_p, P::x_p)] = fs_x / m;
        e.jac[(P::v_p, P::v_p)] = (fs_v - self.viscous - ff_v) / m;
        e.d_force[P::v_p] = 1.0 / m;
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::PistonParams;
    use fmu_core::Record;

    #[test]
    fn jacobian_matches_finite_differences() {
        let p = Piston::new(&PistonParams::defaults(), 1.0).unwrap();
        for s in [
            PistonState::from([0.5, 4.1]),
            [-1e-5, 1e-4].into(),
            [1.00005, -0.02].into(),
            [0.3, -3e-4].into(),
        ] {
            let e = p.eval(&s, 5000.0);
            for k in 0..2 {
                let h = 1e-9;
                let (mut up, mut dn) = (s, s);
                up[k] += h;
                dn[k] -= h;
                let (a, b) = (p.eval(&up, 5000.0), p.eval(&dn, 5000.0));
                for r in 0..2 {
                    let fd = (a.rates[r] - b.rates[r]) / (2.0 * h);
                    assert!(
                        (fd - e.jac[(r, k)]).abs() <= 1e-5 * fd.abs().max(1.0),
                        "d{r}/d{k} at {s:?}: {} vs {fd}",
                        e.jac[(r, k)]
                    );
                }
            }
        }
    }

    #[test]
    fn the_load_rests_on_the_lower_stop_under_gravity() {
        let p = Piston::new(&PistonParams::defaults(), 1.0).unwrap();
        // Static balance on the stop: k_s x = -(m + M) g.
        let x = -110.0 * 9.81 / 1e8;
        let e = p.eval(&PistonState::from([x, 0.0]), 0.0);
        assert!(e.rates[PistonStates::v_p].abs() < 1e-12, "{}", e.rates[1]);
        // Off the stop, with no force, it falls at g.
        let e = p.eval(&PistonState::from([0.5, 0.0]), 0.0);
        assert_eq!(e.rates[PistonStates::v_p], -9.81);
    }
}
