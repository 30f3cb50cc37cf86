//! The sliding carriage: a point mass on the rod with LuGre friction and
//! end stops (V6). States: `x` (m), `v` (m/s), `z` (m, bristles).

use CarriageStates as C;
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Derived, EventIndicator};
use hydraulics::{EndStops, LuGre};

fmu_core::states! {
    /// The carriage's states (V6): a block of a circuit's state vector.
    pub struct CarriageStates {
        /// Position, m (0 = retracted)
        x: nominal 0.1;
        /// Velocity, m/s
        v: nominal 0.01;
        /// LuGre bristle deflection, m
        z: nominal 1e-4;
    }
}

/// The carriage's state vector.
pub type CarriageState = SVector<f64, 3>;

/// A mass sliding on LuGre friction between end stops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Carriage {
    /// Mass, kg.
    pub mass: f64,
    /// Friction.
    pub friction: LuGre,
    /// End stops.
    pub stops: EndStops,
    /// Initial position, m.
    pub x0: f64,
}

/// Rates of the carriage and their partials.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CarriageEval {
    /// d(x, v, z)/dt.
    pub rates: CarriageState,
    /// d(rates)/d(x, v, z).
    pub jac: SMatrix<f64, 3, 3>,
    /// d(rates)/d(driving force).
    pub d_force: CarriageState,
    /// Friction force, N.
    pub friction: f64,
    /// End-stop force, N.
    pub stop: f64,
}

impl Carriage {
    /// Where the carriage's equations switch (Model Exchange event
    /// indicators): the mass reaching an end stop (V6).
    pub const EVENT_INDICATORS: [EventIndicator; 2] = [
        EventIndicator {
            name: "stop_lower",
            description: "x - 0 + 1e-9, m: zero 1 nm into the retracted end stop (V6)",
            offset: 1e-9,
        },
        EventIndicator {
            name: "stop_upper",
            description: "Sc - x + 1e-9, m: zero 1 nm into the extended end stop (V6; the offset keeps it from being identically 0 at the start on the stop)",
            offset: 1e-9,
        },
    ];

    /// The values of [`Carriage::EVENT_INDICATORS`] at carriage state `c`,
    /// into `z` (2 entries).
    pub fn event_indicator_values(&self, c: &CarriageState, z: &mut [f64]) {
        z[..2].copy_from_slice(&self.stops.switching(c[C::x]));
    }

    /// The coefficients of the carriage's equations (V6), for fmu-core's
    /// check at configuration ([`fmu_core::Model::derived`]).
    pub fn derived(&self) -> Vec<Derived> {
        let m = self.mass;
        vec![
            Derived::positive("1/m (V6)", "1/kg", 1.0 / m),
            Derived::finite(
                "sigma0/m of the friction (V6)",
                "1/s2",
                self.friction.sigma0 / m,
            ),
            Derived::finite(
                "(sigma1 + kv)/m of the friction (V6)",
                "1/s",
                (self.friction.sigma1 + self.friction.kv) / m,
            ),
            Derived::finite("Fs/m of the friction (V6)", "m/s2", self.friction.fs / m),
            Derived::finite("stop stiffness/m (V6)", "1/s2", self.stops.stiffness / m),
            Derived::finite("stop damping/m (V6)", "1/s", self.stops.damping / m),
        ]
    }

    /// Rates for state `c` = (x, v, z) under the driving force `force` (N):
    /// `x' = v`, `m v' = force - F_mu + F_stop`, `z'` per LuGre.
    #[inline]
    pub fn eval(&self, c: &CarriageState, force: f64) -> CarriageEval {
        let fr = self.friction.eval(c[C::v], c[C::z]);
        let (fs, fs_x, fs_v) = self.stops.force(c[C::x], c[C::v]);
        let m = self.mass;
        let mut e = CarriageEval {
            friction: fr.force,
            stop: fs,
            ..CarriageEval::default()
        };
        e.rates[C::x] = c[C::v];
        e.rates[C::v] = (force - fr.force + fs) / m;
        e.rates[C::z] = fr.dz;
        e.jac[(C::x, C::v)] = 1.0;
        e.jac[(C::v, C::x)] = fs_x / m;
        e.jac[(C::v, C::v)] = (fs_v - fr.f_v) / m;
        e.jac[(C::v, C::z)] = -fr.f_z / m;
        e.jac[(C::z, C::v)] = fr.dz_v;
        e.jac[(C::z, C::z)] = fr.dz_z;
        e.d_force[C::v] = 1.0 / m;
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobian_matches_finite_differences() {
        let c = Carriage {
            mass: 200.0,
            friction: LuGre {
                sigma0: 2.15e6,
                sigma1: 6.368,
                kv: 1280.0,
                fc: 320.0,
                fs: 364.0,
                vs: 3.47e-3,
            },
            stops: EndStops {
                x_min: 0.0,
                x_max: 1.0,
                stiffness: 1e8,
                damping: 2e5,
            },
            x0: 1.0,
        };
        for s in [
            CarriageState::from([0.5, 0.02, 1e-4]),
            [1.00001, 0.001, -1e-4].into(),
            [0.3, -4e-3, 5e-5].into(),
        ] {
            let e = c.eval(&s, 1000.0);
            for k in 0..3 {
                let h = 1e-9;
                let mut up = s;
                let mut dn = s;
                up[k] += h;
                dn[k] -= h;
                let (a, b) = (c.eval(&up, 1000.0), c.eval(&dn, 1000.0));
                for r in 0..3 {
                    let fd = (a.rates[r] - b.rates[r]) / (2.0 * h);
                    assert!(
                        (fd - e.jac[(r, k)]).abs() <= 1e-5 * fd.abs().max(1.0),
                        "d{r}/d{k}: {} vs {fd}",
                        e.jac[(r, k)]
                    );
                }
            }
        }
    }
}
