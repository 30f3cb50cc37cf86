//! A fixed-displacement pump driven by a shaft.

use fmu_core::compose::{Dependencies, Output, Part, Partials, Port};
use hydraulics::FixedDisplacementPump as PumpLaw;

/// A fixed-displacement pump with the law of [`hydraulics::pump_motor`]:
/// driven at the speed `omega` of the shaft's node, it draws oil at `T`
/// and delivers it at `P`,
///
/// ```text
/// Q   = D omega - c_leak (p_P - p_T)                          (delivered)
/// tau = D (p_P - p_T) + b omega + tau_c tanh(omega / omega_reg) (demanded)
/// ```
///
/// Causality: the pump is given the shaft's motion (an [`crate::Inertia`]
/// at the shaft's node, or FMU inputs for its angle and speed: a motor
/// held at constant speed) and the two pressures, and sets the flows and
/// the torque. The torque through value counts into the part: the pump
/// takes `tau` from the shaft's node (the inertia there is braked by it).
///
/// Ports `P` (outlet: `-Q` into the part), `T` (inlet: `Q`), hydraulic,
/// and `shaft` (rotational: `tau` into the part), all setting their
/// through values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedDisplacementPump {
    law: PumpLaw,
}

const PORTS: [Port; 3] = [
    Port::hydraulic("P", "The pressure port: the pump delivers here"),
    Port::hydraulic("T", "The suction port"),
    Port::shaft(
        "shaft",
        "The drive shaft: its speed in, the torque the pump takes out",
    ),
];

const PP: usize = 0;
const QP: usize = 1;
const PT: usize = 2;
const QT: usize = 3;
const W: usize = 5;
const TAU: usize = 6;

impl FixedDisplacementPump {
    /// A pump of displacement `displacement` (m3/rad; see
    /// [`hydraulics::displacement_per_radian`]) with internal leakage
    /// `c_leak` (m3/(s Pa)), viscous torque `b_visc` (N m s/rad), dry
    /// friction `tau_c` (N m) regularised over `omega_reg` (rad/s):
    /// [`hydraulics::FixedDisplacementPump::new`].
    pub fn new(
        displacement: f64,
        c_leak: f64,
        b_visc: f64,
        tau_c: f64,
        omega_reg: f64,
    ) -> Result<Self, String> {
        Ok(FixedDisplacementPump {
            law: PumpLaw::new(displacement, c_leak, b_visc, tau_c, omega_reg)?,
        })
    }

    /// The element law.
    pub fn law(&self) -> &PumpLaw {
        &self.law
    }
}

impl Part for FixedDisplacementPump {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    /// Flows and torque on both pressures and the speed (not the angle).
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Through(_) => Dependencies {
                states: Vec::new(),
                slots: vec![PP, PT, W],
            },
            _ => Dependencies::default(),
        }
    }

    #[inline]
    fn through(&self, _x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        let (p_in, p_out, w) = (ports[PT], ports[PP], ports[W]);
        let q = self.law.flow(p_in, p_out, w);
        let tau = self.law.torque(p_in, p_out, w);
        ports[QP] = -q.value;
        ports[QT] = q.value;
        ports[TAU] = tau.value;
        if let Some(d) = d {
            *d.slot(QP, PP) = -q.d_p_out;
            *d.slot(QP, PT) = -q.d_p_in;
            *d.slot(QP, W) = -q.d_omega;
            *d.slot(QT, PP) = q.d_p_out;
            *d.slot(QT, PT) = q.d_p_in;
            *d.slot(QT, W) = q.d_omega;
            *d.slot(TAU, PP) = tau.d_p_out;
            *d.slot(TAU, PT) = tau.d_p_in;
            *d.slot(TAU, W) = tau.d_omega;
        }
    }

    fn rates(&self, _x: &[f64], _ports: &[f64], _dx: &mut [f64], _d: Option<&mut Partials<'_>>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_names_the_bad_parameter() {
        assert_eq!(
            FixedDisplacementPump::new(0.0, 0.0, 0.0, 0.0, 1.0).unwrap_err(),
            "displacement D = 0 m3/rad must be positive"
        );
        assert!(FixedDisplacementPump::new(1e-6, 0.0, 0.0, 0.0, 1.0).is_ok());
    }
}
