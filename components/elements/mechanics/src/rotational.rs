//! A rotating load on a shaft: an inertia with viscous damping, a
//! regularised dry-friction torque and an external load torque.
//!
//! With the shaft speed `omega` (rad/s), the driving torque `tau_drive`
//! (from a motor, N m) and the external load torque `tau_load` (N m,
//! opposing positive rotation when positive):
//!
//! ```text
//! J domega/dt = tau_drive - tau_load - b omega - tau_c tanh(omega / omega_reg)
//! ```
//!
//! Source: the torque balance on a rigid rotor (Newton's second law for
//! rotation), in the form in which Merritt (Hydraulic Control Systems,
//! 1967) loads a hydraulic motor with inertia, viscous damping and an
//! external torque. The dry friction is the Coulomb torque regularised by a
//! hyperbolic tangent, the same law as the `hydraulics` crate's
//! `RegularisedCoulomb` (bounded by `tau_c`, slope `tau_c / omega_reg` at
//! rest, no stiction: a load torque below `tau_c` makes the shaft creep at
//! `omega_reg atanh(tau / tau_c)` rather than stick).
//!
//! The three-line law is written here rather than taken from `hydraulics`:
//! this crate depends only on the linear algebra it needs, and making it
//! depend on the hydraulic elements (and through them on the surrogate
//! networks) for one `tanh` would tie mechanisms to fluid power.

/// Why a parameter was rejected: its name, symbol, value and unit.
fn check(what: &str, symbol: &str, value: f64, unit: &str, allow_zero: bool) -> Result<(), String> {
    if !value.is_finite() {
        return Err(format!(
            "{what} {symbol} = {value} {unit} must be a finite number"
        ));
    }
    if allow_zero && value < 0.0 {
        return Err(format!(
            "{what} {symbol} = {value} {unit} must not be negative"
        ));
    }
    if !allow_zero && value <= 0.0 {
        return Err(format!("{what} {symbol} = {value} {unit} must be positive"));
    }
    Ok(())
}

/// A rotating inertia with viscous damping and regularised dry friction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RotationalLoad {
    /// Moment of inertia J about the shaft axis (motor, couplings and load),
    /// kg m2.
    pub inertia: f64,
    /// Viscous damping coefficient b, N m s/rad.
    pub damping: f64,
    /// Dry (Coulomb) friction torque tau_c, N m.
    pub tau_c: f64,
    /// Regularisation speed omega_reg of the dry friction, rad/s: the
    /// friction reaches 76 % of tau_c there.
    pub omega_reg: f64,
}

/// The shaft's angular acceleration and its partials.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RotationalRate {
    /// domega/dt, rad/s2.
    pub accel: f64,
    /// d(domega/dt)/domega, 1/s.
    pub d_omega: f64,
    /// d(domega/dt)/dtau_drive, 1/(kg m2).
    pub d_drive: f64,
    /// d(domega/dt)/dtau_load, 1/(kg m2).
    pub d_load: f64,
}

impl RotationalLoad {
    /// A load with checked parameters: `inertia` and `omega_reg` positive,
    /// `damping` and `tau_c` not negative, all finite.
    pub fn new(inertia: f64, damping: f64, tau_c: f64, omega_reg: f64) -> Result<Self, String> {
        check("moment of inertia", "J", inertia, "kg m2", false)?;
        check("viscous damping", "b", damping, "N m s/rad", true)?;
        check("Coulomb friction torque", "tau_c", tau_c, "N m", true)?;
        check(
            "friction regularisation speed",
            "omega_reg",
            omega_reg,
            "rad/s",
            false,
        )?;
        Ok(RotationalLoad {
            inertia,
            damping,
            tau_c,
            omega_reg,
        })
    }

    /// The friction torque `b omega + tau_c tanh(omega / omega_reg)` (N m,
    /// same sign as `omega`: it is subtracted) and its slope with respect
    /// to `omega`, N m s/rad.
    #[inline]
    pub fn friction(&self, omega: f64) -> (f64, f64) {
        let th = (omega / self.omega_reg).tanh();
        (
            self.damping * omega + self.tau_c * th,
            self.damping + self.tau_c * (1.0 - th * th) / self.omega_reg,
        )
    }

    /// Angular acceleration (rad/s2) at speed `omega` (rad/s) under the
    /// driving torque `tau_drive` and the load torque `tau_load` (N m),
    /// with its partials.
    #[inline]
    pub fn acceleration(&self, omega: f64, tau_drive: f64, tau_load: f64) -> RotationalRate {
        let (f, df) = self.friction(omega);
        let inv_j = 1.0 / self.inertia;
        RotationalRate {
            accel: (tau_drive - tau_load - f) * inv_j,
            d_omega: -df * inv_j,
            d_drive: inv_j,
            d_load: -inv_j,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> RotationalLoad {
        // A winch drum: 0.5 kg m2, 0.2 N m s/rad, 5 N m dry friction.
        RotationalLoad::new(0.5, 0.2, 5.0, 0.05).unwrap()
    }

    #[test]
    fn partials_agree_with_central_differences() {
        let r = example();
        // At rest, inside the dry friction's steep band on both sides, at
        // its edge, and running both ways.
        for omega in [0.0, 0.01, -0.02, 0.05, -0.05, 0.2, 10.0, -30.0] {
            for (drive, load) in [(0.0, 0.0), (40.0, 12.0), (-8.0, 3.0)] {
                let e = r.acceleration(omega, drive, load);
                let h = 1e-6;
                let fd_w = (r.acceleration(omega + h, drive, load).accel
                    - r.acceleration(omega - h, drive, load).accel)
                    / (2.0 * h);
                let ht = 1e-3;
                let fd_d = (r.acceleration(omega, drive + ht, load).accel
                    - r.acceleration(omega, drive - ht, load).accel)
                    / (2.0 * ht);
                let fd_l = (r.acceleration(omega, drive, load + ht).accel
                    - r.acceleration(omega, drive, load - ht).accel)
                    / (2.0 * ht);
                assert!(
                    (e.d_omega - fd_w).abs() <= 1e-6 * fd_w.abs(),
                    "{omega}: {} vs {fd_w}",
                    e.d_omega
                );
                assert!((e.d_drive - fd_d).abs() <= 1e-9 * fd_d.abs());
                assert!((e.d_load - fd_l).abs() <= 1e-9 * fd_l.abs());
            }
        }
    }

    #[test]
    fn physical_numbers() {
        let r = example();
        // Newton at rest: 10 N m net on 0.5 kg m2 is 20 rad/s2.
        assert_eq!(r.acceleration(0.0, 12.0, 2.0).accel, 20.0);
        // Steady running: drive = load + b omega + tau_c (tanh = 1 far out).
        let omega = 100.0;
        let drive = 3.0 + 0.2 * omega + 5.0;
        assert!(r.acceleration(omega, drive, 3.0).accel.abs() < 1e-12);
        // Friction opposes motion either way and is odd.
        assert!(r.acceleration(1.0, 0.0, 0.0).accel < 0.0);
        assert_eq!(r.friction(-1.0).0, -r.friction(1.0).0);
        // A net torque below tau_c only creeps: 2.5 N m balances friction at
        // omega_reg atanh(0.5) (plus the small viscous share).
        let creep = 0.05 * 0.5f64.atanh();
        let residual = r.acceleration(creep, 2.5 + 0.2 * creep, 0.0).accel;
        assert!(residual.abs() < 1e-12, "{residual}");
        // Spin-down without dry friction: the decay rate is b / J.
        let viscous = RotationalLoad::new(0.5, 0.2, 0.0, 0.05).unwrap();
        let e = viscous.acceleration(7.0, 0.0, 0.0);
        assert!((e.accel / 7.0 + 0.4).abs() < 1e-15);
        assert_eq!(e.d_omega, -0.4);
    }

    #[test]
    fn constructor_rejects_bad_parameters_by_name() {
        assert_eq!(
            RotationalLoad::new(0.0, 0.2, 5.0, 0.05).unwrap_err(),
            "moment of inertia J = 0 kg m2 must be positive"
        );
        assert_eq!(
            RotationalLoad::new(0.5, -0.2, 5.0, 0.05).unwrap_err(),
            "viscous damping b = -0.2 N m s/rad must not be negative"
        );
        assert_eq!(
            RotationalLoad::new(0.5, 0.2, -5.0, 0.05).unwrap_err(),
            "Coulomb friction torque tau_c = -5 N m must not be negative"
        );
        assert_eq!(
            RotationalLoad::new(0.5, 0.2, 5.0, 0.0).unwrap_err(),
            "friction regularisation speed omega_reg = 0 rad/s must be positive"
        );
        assert!(
            RotationalLoad::new(f64::INFINITY, 0.2, 5.0, 0.05)
                .unwrap_err()
                .contains("must be a finite number")
        );
    }
}
