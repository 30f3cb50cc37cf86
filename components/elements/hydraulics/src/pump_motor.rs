//! Fixed-displacement pump and motor with volumetric (leakage) and
//! mechanical (viscous and dry friction) losses.
//!
//! Displacement `D` in m3/rad, shaft speed `omega` in rad/s, port
//! pressures in Pa. The pump is driven at a given speed, sucks at
//! `p_in` and delivers at `p_out`; the motor is fed at `p_in`, returns at
//! `p_out` and drives its shaft. With `dp = p_out - p_in` for the pump and
//! `dp = p_in - p_out` for the motor (the pressure rise across the pump,
//! the drop across the motor):
//!
//! ```text
//! pump:   Q   = D omega - c_leak dp
//!         tau = D dp + b omega + tau_c tanh(omega / omega_reg)   (demanded)
//! motor:  Q   = D omega + c_leak dp
//!         tau = D dp - b omega - tau_c tanh(omega / omega_reg)   (delivered)
//! ```
//!
//! Source: ideal displacement flow and torque `D omega`, `D dp` with
//! losses proportional to the pressure difference (internal leakage from
//! the high- to the low-pressure port, laminar) and to the speed (viscous
//! drag), plus a dry-friction torque: a simplified form of the linear loss
//! coefficients for pumps and motors in Merritt (Hydraulic Control Systems,
//! 1967) and Manring (Hydraulic Control Systems, 2005). Left out: external
//! (case-drain) leakage, a friction torque growing with pressure, and
//! compressibility losses; with only internal leakage the flow is the same
//! at both ports.
//!
//! Choice: the loss-coefficient form rather than constant efficiencies.
//! `Q = eta_v D omega` and `tau = D dp / eta_hm` are right only in the
//! quadrant where they were measured: they do not turn leakage or friction
//! around when the pump is back-driven or the pressure reverses, and a
//! pump held still would deliver no leakage. The coefficients give losses
//! that always oppose the pressure and the motion, are smooth (the dry
//! friction is the tanh-regularised Coulomb law of
//! [`crate::friction::RegularisedCoulomb`]), and have simple partials. The
//! coefficients follow from a data sheet's efficiencies at one operating
//! point: `c_leak = (1 - eta_v) D omega / dp` and
//! `b omega + tau_c = (1/eta_hm - 1) D dp` for a pump.

use crate::friction::RegularisedCoulomb;
use crate::validate::{non_negative, positive};

/// Displacement per radian (m3/rad) of a machine displacing `per_rev`
/// m3 per revolution (data sheets give cm3/rev: multiply by 1e-6 first).
pub fn displacement_per_radian(per_rev: f64) -> f64 {
    per_rev / (2.0 * std::f64::consts::PI)
}

/// A value of a pump or motor law and its partials.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MachineEval {
    /// The flow (m3/s) or the torque (N m).
    pub value: f64,
    /// Partial with respect to the inlet pressure p_in, per Pa.
    pub d_p_in: f64,
    /// Partial with respect to the outlet pressure p_out, per Pa.
    pub d_p_out: f64,
    /// Partial with respect to the shaft speed omega, per rad/s.
    pub d_omega: f64,
}

/// Checks the parameters the pump and the motor share.
fn validate(
    displacement: f64,
    c_leak: f64,
    b_visc: f64,
    tau_c: f64,
    omega_reg: f64,
) -> Result<(), String> {
    positive("displacement", "D", displacement, "m3/rad")?;
    non_negative("leakage conductance", "c_leak", c_leak, "m3/(s Pa)")?;
    non_negative("viscous torque coefficient", "b_visc", b_visc, "N m s/rad")?;
    non_negative("Coulomb friction torque", "tau_c", tau_c, "N m")?;
    positive(
        "friction regularisation speed",
        "omega_reg",
        omega_reg,
        "rad/s",
    )
}

/// The friction torque `b omega + tau_c tanh(omega/omega_reg)` (N m) and
/// its slope with respect to `omega`.
#[inline]
fn loss_torque(b_visc: f64, tau_c: f64, omega_reg: f64, omega: f64) -> (f64, f64) {
    let (t, dt) = RegularisedCoulomb {
        f_max: tau_c,
        v_reg: omega_reg,
    }
    .eval(omega);
    (b_visc * omega + t, b_visc + dt)
}

/// A fixed-displacement pump driven at a given speed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedDisplacementPump {
    /// Displacement D, m3/rad.
    pub displacement: f64,
    /// Internal leakage conductance c_leak, m3/(s Pa).
    pub c_leak: f64,
    /// Viscous torque coefficient b, N m s/rad.
    pub b_visc: f64,
    /// Dry (Coulomb) friction torque tau_c, N m.
    pub tau_c: f64,
    /// Regularisation speed of the dry friction omega_reg, rad/s (the
    /// friction reaches 76 % of tau_c there).
    pub omega_reg: f64,
}

impl FixedDisplacementPump {
    /// A pump with checked parameters: `displacement` and `omega_reg`
    /// positive, the loss coefficients not negative, all finite.
    pub fn new(
        displacement: f64,
        c_leak: f64,
        b_visc: f64,
        tau_c: f64,
        omega_reg: f64,
    ) -> Result<Self, String> {
        validate(displacement, c_leak, b_visc, tau_c, omega_reg)?;
        Ok(FixedDisplacementPump {
            displacement,
            c_leak,
            b_visc,
            tau_c,
            omega_reg,
        })
    }

    /// Delivered flow (m3/s, out of the outlet and into the inlet) at
    /// inlet and outlet pressures `p_in`, `p_out` (Pa) and speed `omega`
    /// (rad/s), with its partials.
    #[inline]
    pub fn flow(&self, p_in: f64, p_out: f64, omega: f64) -> MachineEval {
        MachineEval {
            value: self.displacement * omega - self.c_leak * (p_out - p_in),
            d_p_in: self.c_leak,
            d_p_out: -self.c_leak,
            d_omega: self.displacement,
        }
    }

    /// Torque the pump demands from its drive (N m), with its partials.
    #[inline]
    pub fn torque(&self, p_in: f64, p_out: f64, omega: f64) -> MachineEval {
        let (loss, dloss) = loss_torque(self.b_visc, self.tau_c, self.omega_reg, omega);
        MachineEval {
            value: self.displacement * (p_out - p_in) + loss,
            d_p_in: -self.displacement,
            d_p_out: self.displacement,
            d_omega: dloss,
        }
    }
}

/// A fixed-displacement motor driving a shaft.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedDisplacementMotor {
    /// Displacement D, m3/rad.
    pub displacement: f64,
    /// Internal leakage conductance c_leak, m3/(s Pa).
    pub c_leak: f64,
    /// Viscous torque coefficient b, N m s/rad.
    pub b_visc: f64,
    /// Dry (Coulomb) friction torque tau_c, N m.
    pub tau_c: f64,
    /// Regularisation speed of the dry friction omega_reg, rad/s (the
    /// friction reaches 76 % of tau_c there).
    pub omega_reg: f64,
}

impl FixedDisplacementMotor {
    /// A motor with checked parameters: `displacement` and `omega_reg`
    /// positive, the loss coefficients not negative, all finite.
    pub fn new(
        displacement: f64,
        c_leak: f64,
        b_visc: f64,
        tau_c: f64,
        omega_reg: f64,
    ) -> Result<Self, String> {
        validate(displacement, c_leak, b_visc, tau_c, omega_reg)?;
        Ok(FixedDisplacementMotor {
            displacement,
            c_leak,
            b_visc,
            tau_c,
            omega_reg,
        })
    }

    /// Flow the motor takes (m3/s, into the inlet and out of the outlet)
    /// at inlet and outlet pressures `p_in`, `p_out` (Pa) and speed `omega`
    /// (rad/s), with its partials.
    #[inline]
    pub fn flow(&self, p_in: f64, p_out: f64, omega: f64) -> MachineEval {
        MachineEval {
            value: self.displacement * omega + self.c_leak * (p_in - p_out),
            d_p_in: self.c_leak,
            d_p_out: -self.c_leak,
            d_omega: self.displacement,
        }
    }

    /// Torque the motor delivers to its shaft (N m), with its partials.
    #[inline]
    pub fn torque(&self, p_in: f64, p_out: f64, omega: f64) -> MachineEval {
        let (loss, dloss) = loss_torque(self.b_visc, self.tau_c, self.omega_reg, omega);
        MachineEval {
            value: self.displacement * (p_in - p_out) - loss,
            d_p_in: self.displacement,
            d_p_out: -self.displacement,
            d_omega: -dloss,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 10 cm3/rev with losses giving about 95 % volumetric and 90 %
    /// hydro-mechanical efficiency at 1500 rpm and 200 bar.
    const D: f64 = 1e-5 / (2.0 * std::f64::consts::PI);
    const OMEGA: f64 = 1500.0 * 2.0 * std::f64::consts::PI / 60.0;
    const DP: f64 = 2e7;

    fn losses() -> (f64, f64, f64, f64) {
        let c_leak = 0.05 * D * OMEGA / DP;
        // A tenth of the mechanical loss viscous, the rest dry friction.
        let loss = (1.0 / 0.9 - 1.0) * D * DP;
        (c_leak, 0.1 * loss / OMEGA, 0.9 * loss, 1.0)
    }

    fn pump() -> FixedDisplacementPump {
        let (c, b, t, w) = losses();
        FixedDisplacementPump::new(D, c, b, t, w).unwrap()
    }

    fn motor() -> FixedDisplacementMotor {
        let (c, b, t, w) = losses();
        FixedDisplacementMotor::new(D, c, b, t, w).unwrap()
    }

    fn assert_partials(f: impl Fn(f64, f64, f64) -> MachineEval, x: [f64; 3]) {
        let e = f(x[0], x[1], x[2]);
        let analytic = [e.d_p_in, e.d_p_out, e.d_omega];
        // Pressure steps large enough that the tiny leakage changes of the
        // flow stand well above its rounding; the laws are linear in them.
        let steps = [1e3, 1e3, 1e-4];
        for i in 0..3 {
            let (mut a, mut b) = (x, x);
            a[i] += steps[i];
            b[i] -= steps[i];
            let fd = (f(a[0], a[1], a[2]).value - f(b[0], b[1], b[2]).value) / (2.0 * steps[i]);
            assert!(
                (analytic[i] - fd).abs() <= 1e-6 * fd.abs().max(analytic[i].abs()).max(1e-30),
                "partial {i} at {x:?}: {} vs {fd}",
                analytic[i]
            );
        }
    }

    #[test]
    fn partials_agree_with_central_differences() {
        let (p, m) = (pump(), motor());
        // Normal running, at rest and near it (the dry friction's steep
        // part), back-driven, and with the pressure reversed.
        for x in [
            [1e5, DP, OMEGA],
            [1e5, DP, 0.0],
            [1e5, DP, 0.3],
            [1e5, DP, -2.0],
            [1e5, DP, -OMEGA],
            [DP, 1e5, 50.0],
        ] {
            assert_partials(|a, b, c| p.flow(a, b, c), x);
            assert_partials(|a, b, c| p.torque(a, b, c), x);
            assert_partials(|a, b, c| m.flow(a, b, c), x);
            assert_partials(|a, b, c| m.torque(a, b, c), x);
        }
    }

    #[test]
    fn ideal_machines_give_displacement_flow_and_torque() {
        let pump = FixedDisplacementPump::new(D, 0.0, 0.0, 0.0, 1.0).unwrap();
        let motor = FixedDisplacementMotor::new(D, 0.0, 0.0, 0.0, 1.0).unwrap();
        // 10 cm3/rev at 1500 rpm: 15 L/min = 2.5e-4 m3/s.
        assert!((pump.flow(0.0, DP, OMEGA).value - 2.5e-4).abs() < 1e-15);
        // At 200 bar: D dp = 31.83 N m, each way.
        let t = D * DP;
        assert!((t - 31.831).abs() < 1e-3);
        assert_eq!(motor.torque(DP, 0.0, OMEGA).value, t);
        assert_eq!(pump.torque(0.0, DP, OMEGA).value, t);
        assert_eq!(motor.flow(DP, 0.0, OMEGA).value, D * OMEGA);
        // Power balance of ideal machines: flow x pressure = torque x speed.
        let hydraulic = pump.flow(0.0, DP, OMEGA).value * DP;
        let shaft = pump.torque(0.0, DP, OMEGA).value * OMEGA;
        assert!((hydraulic / shaft - 1.0).abs() < 1e-14);
    }

    #[test]
    fn losses_reduce_pump_flow_and_motor_torque_as_designed() {
        let (p, m) = (pump(), motor());
        let ideal_q = D * OMEGA;
        let ideal_t = D * DP;
        // Pump: 95 % of the ideal flow, demands the ideal torque / 0.9
        // (up to tanh(157) = 1 of the dry friction).
        assert!((p.flow(0.0, DP, OMEGA).value / ideal_q - 0.95).abs() < 1e-12);
        assert!((p.torque(0.0, DP, OMEGA).value / (ideal_t / 0.9) - 1.0).abs() < 1e-12);
        // Motor: its leakage adds 5 % of the ideal flow, and its losses
        // take the same torque off the ideal.
        assert!((m.flow(DP, 0.0, OMEGA).value / ideal_q - 1.05).abs() < 1e-12);
        let lost = ideal_t / 0.9 - ideal_t;
        assert!((m.torque(DP, 0.0, OMEGA).value - (ideal_t - lost)).abs() < 1e-9);
        // A pump held still against pressure leaks backwards; a motor held
        // still (stalled) gives the full torque less nothing but leakage flow.
        assert!(p.flow(0.0, DP, 0.0).value < 0.0);
        assert_eq!(m.torque(DP, 0.0, 0.0).value, ideal_t);
        assert!(m.flow(DP, 0.0, 0.0).value > 0.0);
        // Losses oppose the motion both ways.
        assert!(m.torque(0.0, 0.0, 10.0).value < 0.0);
        assert!(m.torque(0.0, 0.0, -10.0).value > 0.0);
    }

    #[test]
    fn per_revolution_displacement() {
        assert!((displacement_per_radian(1e-5) - D).abs() < 1e-22);
    }

    #[test]
    fn constructor_rejects_bad_parameters_by_name() {
        assert_eq!(
            FixedDisplacementPump::new(0.0, 0.0, 0.0, 0.0, 1.0).unwrap_err(),
            "displacement D = 0 m3/rad must be positive"
        );
        assert_eq!(
            FixedDisplacementMotor::new(D, -1e-12, 0.0, 0.0, 1.0).unwrap_err(),
            "leakage conductance c_leak = -1e-12 m3/(s Pa) must not be negative"
        );
        assert_eq!(
            FixedDisplacementMotor::new(D, 0.0, -0.5, 0.0, 1.0).unwrap_err(),
            "viscous torque coefficient b_visc = -0.5 N m s/rad must not be negative"
        );
        assert_eq!(
            FixedDisplacementPump::new(D, 0.0, 0.0, -2.0, 1.0).unwrap_err(),
            "Coulomb friction torque tau_c = -2 N m must not be negative"
        );
        assert_eq!(
            FixedDisplacementPump::new(D, 0.0, 0.0, 2.0, 0.0).unwrap_err(),
            "friction regularisation speed omega_reg = 0 rad/s must be positive"
        );
    }
}
