//! A fixed-displacement motor driving a shaft.

use fmu_core::compose::{Dependencies, Output, Part, Partials, Port};
use hydraulics::FixedDisplacementMotor as MotorLaw;

/// A fixed-displacement motor with the law of [`hydraulics::pump_motor`]:
/// fed at `A`, returning at `B`, turning at the speed `omega` of the
/// shaft's node,
///
/// ```text
/// Q   = D omega + c_leak (p_A - p_B)                           (taken)
/// tau = D (p_A - p_B) - b omega - tau_c tanh(omega / omega_reg) (delivered)
/// ```
///
/// Causality: the motor is given the shaft's motion (an [`crate::Inertia`]
/// at the shaft's node, which carries the motor's own rotor inertia too)
/// and the two pressures, and sets the flows and the torque. The torque
/// through value counts into the part: the motor delivers `tau` to the
/// shaft's node, so `-tau` goes into the part.
///
/// Ports `A` (inlet: `Q` into the part), `B` (outlet: `-Q`), hydraulic,
/// and `shaft` (rotational: `-tau`), all setting their through values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedDisplacementMotor {
    law: MotorLaw,
}

const PORTS: [Port; 3] = [
    Port::hydraulic("A", "The inlet: forward rotation takes oil in here"),
    Port::hydraulic("B", "The outlet"),
    Port::shaft(
        "shaft",
        "The output shaft: its speed in, the torque the motor delivers out",
    ),
];

const PA: usize = 0;
const QA: usize = 1;
const PB: usize = 2;
const QB: usize = 3;
const W: usize = 5;
const TAU: usize = 6;

impl FixedDisplacementMotor {
    /// A motor of displacement `displacement` (m3/rad) with internal
    /// leakage `c_leak` (m3/(s Pa)), viscous torque `b_visc` (N m s/rad),
    /// dry friction `tau_c` (N m) regularised over `omega_reg` (rad/s):
    /// [`hydraulics::FixedDisplacementMotor::new`].
    pub fn new(
        displacement: f64,
        c_leak: f64,
        b_visc: f64,
        tau_c: f64,
        omega_reg: f64,
    ) -> Result<Self, String> {
        Ok(FixedDisplacementMotor {
            law: MotorLaw::new(displacement, c_leak, b_visc, tau_c, omega_reg)?,
        })
    }

    /// The element law.
    pub fn law(&self) -> &MotorLaw {
        &self.law
    }
}

impl Part for FixedDisplacementMotor {
    fn ports(&self) -> &[Port] {
        &PORTS
    }

    /// Flows and torque on both pressures and the speed (not the angle).
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Through(_) => Dependencies {
                states: Vec::new(),
                slots: vec![PA, PB, W],
            },
            _ => Dependencies::default(),
        }
    }

    #[inline]
    fn through(&self, _x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        let (p_in, p_out, w) = (ports[PA], ports[PB], ports[W]);
        let q = self.law.flow(p_in, p_out, w);
        let tau = self.law.torque(p_in, p_out, w);
        ports[QA] = q.value;
        ports[QB] = -q.value;
        ports[TAU] = -tau.value;
        if let Some(d) = d {
            *d.slot(QA, PA) = q.d_p_in;
            *d.slot(QA, PB) = q.d_p_out;
            *d.slot(QA, W) = q.d_omega;
            *d.slot(QB, PA) = -q.d_p_in;
            *d.slot(QB, PB) = -q.d_p_out;
            *d.slot(QB, W) = -q.d_omega;
            *d.slot(TAU, PA) = -tau.d_p_in;
            *d.slot(TAU, PB) = -tau.d_p_out;
            *d.slot(TAU, W) = -tau.d_omega;
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
            FixedDisplacementMotor::new(1e-6, -1e-12, 0.0, 0.0, 1.0).unwrap_err(),
            "leakage conductance c_leak = -1e-12 m3/(s Pa) must not be negative"
        );
        assert!(FixedDisplacementMotor::new(1e-6, 0.0, 0.0, 0.0, 1.0).is_ok());
    }
}
