//! A sliding mass with viscous damping, a constant force and end stops.

use crate::check::{finite, non_negative, positive, show};
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port, StateSpec};
use fmu_core::{Derived, EventIndicator};
use hydraulics::{EndStops, RegularisedCoulomb};

/// A rigid mass `m` sliding along its flange's axis: position and velocity
/// are states, driven by the net force `F_net` the other parts at its node
/// put into it (a cylinder's hydraulic force),
///
/// ```text
/// ds/dt = v
/// m dv/dt = F_net + F_ext - c v + F_stop(s, v)
/// ```
///
/// with viscous damping `c`, a constant external force `F_ext` (gravity
/// along the axis: `-m g` for a load lifted along +s), optionally the
/// end stops of [`hydraulics::end_stop`] (V6): stiff spring-dampers at
/// `s_min` and `s_max` that only push, and optionally a dry (Coulomb)
/// friction regularised by `tanh` ([`hydraulics::RegularisedCoulomb`],
/// the lift actuator's `MODEL.md` L6 and its reading R4):
/// `F_f = F_c tanh(v / v_c)`, subtracted from the forces above.
///
/// Event indicators, with end stops only (the element's switching
/// functions, where the contact force starts): `stop_low`, `s - s_min`,
/// and `stop_high`, `s_max - s`, each read with a 1e-9 m offset.
///
/// Port `rod` (translational, sets the position and velocity) and the
/// optional signal `F_f` (the dry friction force, N, 0 without dry
/// friction: an output to read); states `s`
/// (m, nominal 0.1) and `v` (m/s, nominal 0.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mass {
    m: f64,
    c: f64,
    f_ext: f64,
    stops: Option<EndStops>,
    dry: Option<RegularisedCoulomb>,
    s0: f64,
}

const PORTS: [Port; 2] = [
    Port::flange_mass(
        "rod",
        "The mass's flange: its position and velocity out, the net force on it in",
    ),
    Port::signal_out(
        "F_f",
        "The dry friction force F_f, N (may stay unconnected)",
    )
    .optional(),
];
const STATES: [StateSpec; 2] = [StateSpec::new("s", 0.1), StateSpec::new("v", 0.1)];
const EVENTS: [EventIndicator; 2] = [
    EventIndicator {
        name: "stop_low",
        description: "s - s_min, m: negative in contact with the lower stop",
        offset: 1e-9,
    },
    EventIndicator {
        name: "stop_high",
        description: "s_max - s, m: negative in contact with the upper stop",
        offset: 1e-9,
    },
];

const S: usize = 0;
const V: usize = 1;
const F: usize = 2;
const FF: usize = 3;
/// Kept from phase 1 for phase 3: the dry friction's slope dF_f/dv (its
/// value is the port F_f's).
const DF: usize = 4;

impl Mass {
    /// A mass `m` (kg, positive) with viscous damping `c` (N s/m, not
    /// negative), a constant external force `f_ext` (N, finite, along +s),
    /// at rest at `s0` (m, finite) at the start; no end stops.
    pub fn new(m: f64, c: f64, f_ext: f64, s0: f64) -> Result<Self, String> {
        positive("mass", "m", m, "kg")?;
        non_negative("viscous damping", "c", c, "N s/m")?;
        finite("external force", "F_ext", f_ext, "N")?;
        finite("initial position", "s0", s0, "m")?;
        Ok(Mass {
            m,
            c,
            f_ext,
            stops: None,
            dry: None,
            s0,
        })
    }

    /// The same mass between end stops at `s_min < s_max` (m) of contact
    /// stiffness `stiffness` (N/m, positive) and damping `damping` (N s/m,
    /// not negative).
    pub fn with_stops(
        mut self,
        s_min: f64,
        s_max: f64,
        stiffness: f64,
        damping: f64,
    ) -> Result<Self, String> {
        finite("lower stop", "s_min", s_min, "m")?;
        finite("upper stop", "s_max", s_max, "m")?;
        if s_min >= s_max {
            return Err(format!(
                "lower stop s_min = {} m must lie below the upper stop s_max = {} m",
                show(s_min),
                show(s_max)
            ));
        }
        positive("stop stiffness", "k_stop", stiffness, "N/m")?;
        non_negative("stop damping", "c_stop", damping, "N s/m")?;
        self.stops = Some(EndStops {
            x_min: s_min,
            x_max: s_max,
            stiffness,
            damping,
        });
        Ok(self)
    }

    /// The same mass with a dry friction `F_c tanh(v / v_c)`: `f_c` (N,
    /// not negative) at most, regularised over `v_c` (m/s, positive).
    pub fn with_dry_friction(mut self, f_c: f64, v_c: f64) -> Result<Self, String> {
        non_negative("dry friction force", "F_c", f_c, "N")?;
        positive("dry friction regularisation speed", "v_c", v_c, "m/s")?;
        self.dry = Some(RegularisedCoulomb {
            f_max: f_c,
            v_reg: v_c,
        });
        Ok(self)
    }

    /// The dry friction force at velocity `v` (N, along +s: it is
    /// subtracted), zero without dry friction.
    pub fn dry_friction(&self, v: f64) -> f64 {
        self.dry.map_or(0.0, |f| f.eval(v).0)
    }

    /// The end stops, if any.
    pub fn stops(&self) -> Option<&EndStops> {
        self.stops.as_ref()
    }
}

impl Part for Mass {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    fn states(&self) -> &[StateSpec] {
        &STATES
    }

    /// The dry friction's slope, from phase 1 (which evaluates the law for
    /// the F_f output) to phase 3.
    fn kept(&self) -> usize {
        1
    }

    fn event_indicators(&self) -> &[EventIndicator] {
        if self.stops.is_some() { &EVENTS } else { &[] }
    }

    fn derived(&self) -> Vec<Derived> {
        let mut d = vec![Derived::positive("m, the mass", "kg", self.m)];
        if let Some(stops) = &self.stops {
            d.push(Derived::positive(
                "k_stop/m, the stops' stiffness over the mass (V6)",
                "1/s2",
                stops.stiffness / self.m,
            ));
        }
        d
    }

    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        x[S] = self.s0;
        x[V] = 0.0;
    }

    /// The position and the velocity each on its state; the rates on the
    /// net force.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Across(FF) => Dependencies {
                states: vec![V],
                slots: Vec::new(),
            },
            Output::Across(r) => Dependencies {
                states: vec![r],
                slots: Vec::new(),
            },
            Output::Rate(_) => Dependencies {
                states: Vec::new(),
                slots: vec![F],
            },
            Output::Through(_) => Dependencies::default(),
        }
    }

    #[inline]
    fn across(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        ports[S] = x[S];
        ports[V] = x[V];
        let (f_dry, df_dry) = self.dry.map_or((0.0, 0.0), |f| f.eval(x[V]));
        ports[FF] = f_dry;
        ports[DF] = df_dry;
        if let Some(d) = d {
            *d.state(S, S) = 1.0;
            *d.state(V, V) = 1.0;
            *d.state(FF, V) = df_dry;
        }
    }

    #[inline]
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        let (s, v) = (x[S], x[V]);
        let (f_stop, df_s, df_v) = match &self.stops {
            Some(stops) => stops.force(s, v),
            None => (0.0, 0.0, 0.0),
        };
        // The dry friction at v, as phase 1 evaluated it.
        let (f_dry, df_dry) = (ports[FF], ports[DF]);
        let inv_m = 1.0 / self.m;
        dx[S] = v;
        dx[V] = (ports[F] + self.f_ext - self.c * v - f_dry + f_stop) * inv_m;
        if let Some(d) = d {
            *d.state(S, V) = 1.0;
            *d.state(V, S) = df_s * inv_m;
            *d.state(V, V) = (df_v - self.c - df_dry) * inv_m;
            *d.slot(V, F) = inv_m;
        }
    }

    fn event_indicator_values(&self, x: &[f64], _ports: &[f64], z: &mut [f64]) {
        if let Some(stops) = &self.stops {
            z.copy_from_slice(&stops.switching(x[S]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_names_the_bad_parameter() {
        assert_eq!(
            Mass::new(0.0, 0.0, 0.0, 0.0).unwrap_err(),
            "mass m = 0 kg must be positive"
        );
        assert_eq!(
            Mass::new(1.0, -2.0, 0.0, 0.0).unwrap_err(),
            "viscous damping c = -2 N s/m must not be negative"
        );
        let m = Mass::new(10.0, 100.0, -98.1, 0.0).unwrap();
        assert!(m.event_indicators().is_empty());
        assert_eq!(
            m.with_stops(0.5, 0.5, 1e8, 1e4).unwrap_err(),
            "lower stop s_min = 0.5 m must lie below the upper stop s_max = 0.5 m"
        );
        assert!(
            m.with_stops(0.0, 0.5, 0.0, 1e4)
                .unwrap_err()
                .contains("k_stop = 0 N/m")
        );
        let stopped = m.with_stops(0.0, 0.5, 1e8, 1e4).unwrap();
        assert_eq!(stopped.event_indicators().len(), 2);
        assert_eq!(stopped.stops().unwrap().x_max, 0.5);
    }
}
