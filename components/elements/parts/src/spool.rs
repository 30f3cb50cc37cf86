//! The spool of a proportional valve: its second-order response.

use crate::check::{non_negative, positive};
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port, StateSpec};
use hydraulics::ProportionalSpool;

/// A proportional valve's spool with the second-order law of
/// [`hydraulics::spool`] (V1): the spool signal `Us` (V, proportional to
/// the spool's displacement) follows the command `U` (V) read at its
/// signal port `U` (an FMU input, or a controller's output):
///
/// ```text
/// Us'' = Kv wn^2 U - 2 zeta wn Us' - wn^2 Us
/// ```
///
/// and is set at its signal port `Us`, for a [`crate::DirectionalValve`]
/// to read.
///
/// Ports `U` (signal in) and `Us` (signal out); states `Us` (V, nominal
/// 10) and `dUs` (V/s, nominal 1e3), both 0 at the start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spool {
    law: ProportionalSpool,
}

const PORTS: [Port; 2] = [
    Port::signal_in("U", "The valve command, V"),
    Port::signal_out("Us", "The spool signal, V"),
];
const STATES: [StateSpec; 2] = [StateSpec::new("Us", 10.0), StateSpec::new("dUs", 1e3)];

const U: usize = 0;
const US: usize = 1;

impl Spool {
    /// A spool of gain `gain` (1, positive), natural angular frequency
    /// `omega` (rad/s, positive) and damping ratio `damping` (1, not
    /// negative).
    pub fn new(gain: f64, omega: f64, damping: f64) -> Result<Self, String> {
        positive("valve gain", "Kv", gain, "(1)")?;
        positive("natural angular frequency", "wn", omega, "rad/s")?;
        non_negative("damping ratio", "zeta", damping, "(1)")?;
        Ok(Spool {
            law: ProportionalSpool {
                gain,
                omega,
                damping,
            },
        })
    }

    /// The element law.
    pub fn law(&self) -> &ProportionalSpool {
        &self.law
    }
}

impl Part for Spool {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    fn states(&self) -> &[StateSpec] {
        &STATES
    }

    /// The signal on `Us`; its acceleration on the command.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Across(_) => Dependencies {
                states: vec![0],
                slots: Vec::new(),
            },
            Output::Rate(1) => Dependencies {
                states: Vec::new(),
                slots: vec![U],
            },
            _ => Dependencies::default(),
        }
    }

    #[inline]
    fn across(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        ports[US] = x[0];
        if let Some(d) = d {
            *d.state(US, 0) = 1.0;
        }
    }

    #[inline]
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        dx[0] = x[1];
        dx[1] = self.law.acceleration(ports[U], x[0], x[1]);
        if let Some(d) = d {
            let (du, dus, ddus) = self.law.acceleration_partials();
            *d.state(0, 1) = 1.0;
            *d.state(1, 0) = dus;
            *d.state(1, 1) = ddus;
            *d.slot(1, U) = du;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_names_the_bad_parameter() {
        assert!(Spool::new(0.99, 331.0, 0.62).is_ok());
        assert_eq!(
            Spool::new(0.99, 0.0, 0.62).unwrap_err(),
            "natural angular frequency wn = 0 rad/s must be positive"
        );
    }
}
