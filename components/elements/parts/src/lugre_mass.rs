//! A sliding mass with LuGre friction between end stops.

use crate::check::{finite, non_negative, positive, show};
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port, StateSpec};
use fmu_core::{Derived, EventIndicator};
use hydraulics::friction::FrictionEval;
use hydraulics::{EndStops, LuGre};

/// A rigid mass `m` on its flange's axis with LuGre friction as the
/// valve drive's `MODEL.md` writes it after Ustinov, Wu and Handroos (2022)
/// (V6, law [`hydraulics::LuGre`]) and push-only end stops
/// ([`hydraulics::EndStops`]) at `s_min` and `s_max`:
///
/// ```text
/// ds/dt = v
/// m dv/dt = F_net - F_mu + F_stop(s, v)
/// g(v)  = (Fc + (Fs - Fc) exp(-(v/vs)^2)) / sigma0
/// dz/dt = v - |v| z / g(v)
/// F_mu  = sigma0 z + sigma1 dz/dt + kv v
/// ```
///
/// where `F_net` is the net force the other parts at its node put into it
/// (a cylinder's hydraulic force) and `z` the bristles' deflection.
///
/// Event indicators (the element's switching functions, where the contact
/// force starts): `stop_lower`, `s - s_min`, and `stop_upper`,
/// `s_max - s`, each read with a 1e-9 m offset. The friction's `|v|`
/// switches too, smoothly enough for the error control (no indicator, as
/// in the valve drive).
///
/// Port `rod` (translational, sets the position and velocity) and the
/// optional signal `F_mu` (the friction force, N, from the states: an
/// output to read); states `s`
/// (m, nominal 0.1), `v` (m/s, nominal 0.01) and `z` (m, nominal 1e-4):
/// the valve drive's carriage's nominal values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LuGreMass {
    m: f64,
    friction: LuGre,
    stops: EndStops,
    s0: f64,
}

const PORTS: [Port; 2] = [
    Port::flange_mass(
        "rod",
        "The mass's flange: its position and velocity out, the net force on it in",
    ),
    Port::signal_out("F_mu", "The friction force F_mu, N (may stay unconnected)").optional(),
];
const STATES: [StateSpec; 3] = [
    StateSpec::new("s", 0.1),
    StateSpec::new("v", 0.01),
    StateSpec::new("z", 1e-4),
];
const EVENTS: [EventIndicator; 2] = [
    EventIndicator {
        name: "stop_lower",
        description: "s - s_min, m: negative in contact with the lower stop",
        offset: 1e-9,
    },
    EventIndicator {
        name: "stop_upper",
        description: "s_max - s, m: negative in contact with the upper stop",
        offset: 1e-9,
    },
];

const S: usize = 0;
const V: usize = 1;
const Z: usize = 2;
const F: usize = 2;
const FMU: usize = 3;
/// Kept from phase 1 for phase 3: the friction law's dz/dt and its slopes
/// (the force is the port F_mu's value).
const KEPT_DZ: usize = 4;
const KEPT_DZ_Z: usize = 5;
const KEPT_DZ_V: usize = 6;
const KEPT_F_Z: usize = 7;
const KEPT_F_V: usize = 8;

impl LuGreMass {
    /// A mass `m` (kg, positive) with LuGre friction `friction` (sigma0,
    /// Fc, Fs, vs positive, sigma1 and kv not negative, `Fs >= Fc`)
    /// between end stops `stops` (`x_min < x_max`, positive stiffness,
    /// damping not negative), at rest at `s0` (m) with relaxed bristles at
    /// the start.
    pub fn new(m: f64, friction: LuGre, stops: EndStops, s0: f64) -> Result<Self, String> {
        positive("mass", "m", m, "kg")?;
        positive("bristle stiffness", "sigma0", friction.sigma0, "N/m")?;
        non_negative("bristle damping", "sigma1", friction.sigma1, "N s/m")?;
        non_negative("viscous coefficient", "kv", friction.kv, "N s/m")?;
        positive("Coulomb force", "Fc", friction.fc, "N")?;
        positive("static force", "Fs", friction.fs, "N")?;
        positive("Stribeck velocity", "vs", friction.vs, "m/s")?;
        if friction.fs < friction.fc {
            return Err(format!(
                "static force Fs = {} N must not be below the Coulomb force Fc = {} N",
                show(friction.fs),
                show(friction.fc)
            ));
        }
        finite("lower stop", "s_min", stops.x_min, "m")?;
        finite("upper stop", "s_max", stops.x_max, "m")?;
        if stops.x_min >= stops.x_max {
            return Err(format!(
                "lower stop s_min = {} m must lie below the upper stop s_max = {} m",
                show(stops.x_min),
                show(stops.x_max)
            ));
        }
        positive("stop stiffness", "k_stop", stops.stiffness, "N/m")?;
        non_negative("stop damping", "c_stop", stops.damping, "N s/m")?;
        finite("initial position", "s0", s0, "m")?;
        Ok(LuGreMass {
            m,
            friction,
            stops,
            s0,
        })
    }

    /// The friction force at velocity `v` and deflection `z`, N.
    pub fn friction_force(&self, v: f64, z: f64) -> f64 {
        self.friction.eval(v, z).force
    }
}

impl Part for LuGreMass {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    fn states(&self) -> &[StateSpec] {
        &STATES
    }

    /// The friction law's results, from phase 1 (which evaluates it for
    /// the F_mu output) to phase 3.
    fn kept(&self) -> usize {
        5
    }

    fn event_indicators(&self) -> &[EventIndicator] {
        &EVENTS
    }

    fn derived(&self) -> Vec<Derived> {
        vec![
            Derived::positive("1/m (V6)", "1/kg", 1.0 / self.m),
            Derived::finite(
                "sigma0/m of the friction (V6)",
                "1/s2",
                self.friction.sigma0 / self.m,
            ),
            Derived::finite(
                "k_stop/m, the stops' stiffness over the mass (V6)",
                "1/s2",
                self.stops.stiffness / self.m,
            ),
        ]
    }

    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        x[S] = self.s0;
        x[V] = 0.0;
        x[Z] = 0.0;
    }

    /// The position and the velocity each on its state; the acceleration
    /// on the net force.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Across(FMU) => Dependencies {
                states: vec![V, Z],
                slots: Vec::new(),
            },
            Output::Across(r) => Dependencies {
                states: vec![r],
                slots: Vec::new(),
            },
            Output::Rate(V) => Dependencies {
                states: Vec::new(),
                slots: vec![F],
            },
            Output::Rate(_) | Output::Through(_) => Dependencies::default(),
        }
    }

    #[inline]
    fn across(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        let fr = self.friction.eval(x[V], x[Z]);
        ports[S] = x[S];
        ports[V] = x[V];
        ports[FMU] = fr.force;
        ports[KEPT_DZ] = fr.dz;
        ports[KEPT_DZ_Z] = fr.dz_z;
        ports[KEPT_DZ_V] = fr.dz_v;
        ports[KEPT_F_Z] = fr.f_z;
        ports[KEPT_F_V] = fr.f_v;
        if let Some(d) = d {
            *d.state(S, S) = 1.0;
            *d.state(V, V) = 1.0;
            *d.state(FMU, V) = fr.f_v;
            *d.state(FMU, Z) = fr.f_z;
        }
    }

    #[inline]
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        // The friction at (v, z), as phase 1 evaluated it.
        let fr = FrictionEval {
            dz: ports[KEPT_DZ],
            force: ports[FMU],
            dz_z: ports[KEPT_DZ_Z],
            dz_v: ports[KEPT_DZ_V],
            f_z: ports[KEPT_F_Z],
            f_v: ports[KEPT_F_V],
        };
        let (fs, fs_s, fs_v) = self.stops.force(x[S], x[V]);
        let m = self.m;
        dx[S] = x[V];
        dx[V] = (ports[F] - fr.force + fs) / m;
        dx[Z] = fr.dz;
        if let Some(d) = d {
            *d.state(S, V) = 1.0;
            *d.state(V, S) = fs_s / m;
            *d.state(V, V) = (fs_v - fr.f_v) / m;
            *d.state(V, Z) = -fr.f_z / m;
            *d.state(Z, V) = fr.dz_v;
            *d.state(Z, Z) = fr.dz_z;
            *d.slot(V, F) = 1.0 / m;
        }
    }

    fn event_indicator_values(&self, x: &[f64], _ports: &[f64], z: &mut [f64]) {
        z.copy_from_slice(&self.stops.switching(x[S]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn friction() -> LuGre {
        LuGre {
            sigma0: 2.15e6,
            sigma1: 6.368,
            kv: 1280.0,
            fc: 320.0,
            fs: 364.0,
            vs: 3.47e-3,
        }
    }

    fn stops() -> EndStops {
        EndStops {
            x_min: 0.0,
            x_max: 1.0,
            stiffness: 1e8,
            damping: 2e5,
        }
    }

    #[test]
    fn constructor_names_the_bad_parameter() {
        assert!(LuGreMass::new(200.0, friction(), stops(), 1.0).is_ok());
        assert_eq!(
            LuGreMass::new(
                200.0,
                LuGre {
                    fs: 300.0,
                    ..friction()
                },
                stops(),
                1.0
            )
            .unwrap_err(),
            "static force Fs = 300 N must not be below the Coulomb force Fc = 320 N"
        );
        assert_eq!(
            LuGreMass::new(0.0, friction(), stops(), 1.0).unwrap_err(),
            "mass m = 0 kg must be positive"
        );
    }

    #[test]
    fn sticks_below_the_static_force_and_slides_above_it() {
        // At rest with the bristles relaxed, the force is taken up by the
        // bristles: z grows at v (= 0 here), the friction balances nothing
        // yet, so the acceleration is the force over the mass.
        let m = LuGreMass::new(200.0, friction(), stops(), 0.5).unwrap();
        let mut dx = [0.0; 3];
        let x = [0.5, 0.0, 0.0];
        let mut ports = [0.0; 9];
        m.across(&x, &mut ports, None);
        ports[F] = 100.0;
        m.rates(&x, &ports, &mut dx, None);
        assert_eq!(dx, [0.0, 0.5, 0.0]);
        // Steady sliding at 0.1 m/s: z' = 0 at z = g(v) and the friction is
        // Fc (Stribeck term gone) plus kv v.
        let v: f64 = 0.1;
        let z = friction().stribeck(v) / friction().sigma0;
        let force = m.friction_force(v, z);
        assert!((force - (320.0 + 1280.0 * v)).abs() < 1e-9, "{force}");
    }
}
