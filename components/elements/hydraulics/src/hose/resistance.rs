//! Flow resistances and inertance of one hose segment (H5 of the hose)
//! and the segment-count corrections kL, kC, kr (H6).

use std::f64::consts::PI;

/// Loss coefficients of the hose flow (H5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LossCoefficients {
    /// Laminar coefficient Al (1); 64 is Hagen-Poiseuille.
    pub al: f64,
    /// Local loss coefficient zeta (1).
    pub zeta: f64,
    /// Turbulent friction coefficient lambda (1).
    pub lambda: f64,
}

impl LossCoefficients {
    /// The model description's values: Al = 64, zeta = 2, lambda = 0.04.
    pub fn reference() -> Self {
        LossCoefficients {
            al: 64.0,
            zeta: 2.0,
            lambda: 0.04,
        }
    }
}

/// Laminar and quadratic resistance and inertance of one segment of length
/// `l` and flow diameter `D = d + 2 x` (H5), with their derivatives
/// with respect to D. RL is proportional to nu and rho, RT and L to rho, so
/// their nu and rho derivatives are value/nu and value/rho.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HoseResistance {
    /// Laminar resistance `RL = 2 Al l nu rho / (pi D^4)`, Pa s/m3.
    pub laminar: f64,
    /// Quadratic resistance `RT = 8 rho (zeta + lambda l / D) / (pi^2 D^4)`, Pa s2/m6.
    pub turbulent: f64,
    /// Inertance `L = 4 rho l / (pi D^2)`, Pa s2/m3 (kg/m4).
    pub inertance: f64,
    /// dRL/dD, Pa s/m4.
    pub laminar_dd: f64,
    /// dRT/dD, Pa s2/m7.
    pub turbulent_dd: f64,
    /// dL/dD, kg/m5.
    pub inertance_dd: f64,
}

impl HoseResistance {
    /// RL, RT and L of a segment of length `l` (m) and flow diameter
    /// `diameter` = d + 2x (m) carrying fluid of kinematic viscosity `nu`
    /// (m2/s) and density `rho` (kg/m3) (H5).
    pub fn evaluate(
        coefficients: &LossCoefficients,
        l: f64,
        diameter: f64,
        nu: f64,
        rho: f64,
    ) -> Self {
        let d2 = diameter * diameter;
        let d4 = d2 * d2;
        let laminar = 2.0 * coefficients.al * l * nu * rho / (PI * d4);
        let rt_scale = 8.0 * rho / (PI * PI * d4);
        let loss = coefficients.zeta + coefficients.lambda * l / diameter;
        let inertance = 4.0 * rho * l / (PI * d2);
        HoseResistance {
            laminar,
            turbulent: rt_scale * loss,
            inertance,
            laminar_dd: -4.0 * laminar / diameter,
            turbulent_dd: rt_scale * (-4.0 * loss - coefficients.lambda * l / diameter) / diameter,
            inertance_dd: -2.0 * inertance / diameter,
        }
    }

    /// Pressure drop `kr (RL + RT |Q|) Q` of flow `q` (m3/s) with the
    /// resistance correction `kr` (1), Pa (H6, `R(Q) Q`).
    pub fn pressure_drop(&self, kr: f64, q: f64) -> f64 {
        kr * (self.laminar + self.turbulent * q.abs()) * q
    }

    /// d(pressure drop)/dQ = kr (RL + 2 RT |Q|), Pa s/m3 (continuous at Q = 0).
    pub fn pressure_drop_dq(&self, kr: f64, q: f64) -> f64 {
        kr * (self.laminar + 2.0 * self.turbulent * q.abs())
    }

    /// d(pressure drop)/dD at fixed nu and rho, Pa/m.
    pub fn pressure_drop_dd(&self, kr: f64, q: f64) -> f64 {
        kr * (self.laminar_dd + self.turbulent_dd * q.abs()) * q
    }
}

/// Segment-count corrections of the lumped hose (H6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Corrections {
    /// Frequency correction coefficient kn (1).
    pub kn: f64,
    /// Resistance correction constant kr1 (1).
    pub kr1: f64,
    /// Resistance correction slope kr2 (1).
    pub kr2: f64,
}

impl Corrections {
    /// The model description's values: kn = 0.011, kr1 = 1.4, kr2 = 0.10.
    pub fn reference() -> Self {
        Corrections {
            kn: 0.011,
            kr1: 1.4,
            kr2: 0.10,
        }
    }

    /// Inertance correction `kL = (2/pi)^(1/n) + kn (n - 1)` for `n` >= 1
    /// segments (1) (H6); kL(1) = 2/pi.
    pub fn inertance_factor(&self, n: usize) -> f64 {
        let n = n as f64;
        (2.0 / PI).powf(1.0 / n) + self.kn * (n - 1.0)
    }

    /// Compliance correction kC, equal to kL (1) (H6).
    pub fn compliance_factor(&self, n: usize) -> f64 {
        self.inertance_factor(n)
    }

    /// Resistance correction `kr = kr1 - kr2 (n - 1)` (1) (H6). With the
    /// model description's values it is 0 at n = 15 and negative beyond.
    pub fn resistance_factor(&self, n: usize) -> f64 {
        self.kr1 - self.kr2 * (n as f64 - 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn laminar_is_hagen_poiseuille_and_inertance_is_rho_l_over_area() {
        let c = LossCoefficients::reference();
        let (l, dia, nu, rho) = (2.0, 0.01607, 6.7e-5, 862.3);
        let r = HoseResistance::evaluate(&c, l, dia, nu, rho);
        let mu = nu * rho;
        assert!(rel(r.laminar, 128.0 * mu * l / (PI * dia.powi(4))) < 1e-14);
        assert!(rel(r.inertance, rho * l / (PI * dia * dia / 4.0)) < 1e-14);
        let rt = 8.0 * rho * (2.0 + 0.04 * l / dia) / (PI * PI * dia.powi(4));
        assert!(rel(r.turbulent, rt) < 1e-14);
    }

    #[test]
    fn pressure_drop_and_partials() {
        let c = LossCoefficients::reference();
        let r = HoseResistance::evaluate(&c, 2.0, 0.01607, 6.7e-5, 862.3);
        let kr = 1.4;
        assert_eq!(r.pressure_drop(kr, 0.0), 0.0);
        assert_eq!(r.pressure_drop(kr, -5e-4), -r.pressure_drop(kr, 5e-4));
        assert!(rel(r.pressure_drop_dq(kr, 0.0), kr * r.laminar) < 1e-15);
        for q in [-6e-4, -1e-6, 0.0, 2e-5, 5e-4] {
            let h = 1e-10;
            let fd = (r.pressure_drop(kr, q + h) - r.pressure_drop(kr, q - h)) / (2.0 * h);
            assert!(
                rel(fd, r.pressure_drop_dq(kr, q)) < 1e-6,
                "q {q}: {fd:e} vs {:e}",
                r.pressure_drop_dq(kr, q)
            );
        }
        let (dia, hd) = (0.01607, 1e-8);
        let ev = |x: f64| HoseResistance::evaluate(&c, 2.0, x, 6.7e-5, 862.3);
        let fd =
            |g: &dyn Fn(&HoseResistance) -> f64| (g(&ev(dia + hd)) - g(&ev(dia - hd))) / (2.0 * hd);
        assert!(rel(fd(&|r| r.laminar), r.laminar_dd) < 1e-7);
        assert!(rel(fd(&|r| r.turbulent), r.turbulent_dd) < 1e-7);
        assert!(rel(fd(&|r| r.inertance), r.inertance_dd) < 1e-7);
        assert!(
            rel(
                fd(&|r| r.pressure_drop(kr, 5e-4)),
                r.pressure_drop_dd(kr, 5e-4)
            ) < 1e-7
        );
    }

    #[test]
    fn corrections_of_the_model_description() {
        let k = Corrections::reference();
        assert!((k.inertance_factor(1) - 2.0 / PI).abs() < 1e-15);
        assert_eq!(k.compliance_factor(1), k.inertance_factor(1));
        assert!(rel(k.inertance_factor(7), (2.0 / PI).powf(1.0 / 7.0) + 0.066) < 1e-15);
        assert_eq!(k.resistance_factor(1), 1.4);
        assert!(rel(k.resistance_factor(7), 0.8) < 1e-14);
        assert!(k.resistance_factor(15).abs() < 1e-12);
        assert!(k.resistance_factor(16) < 0.0);
    }
}
