//! LuGre friction (V6 of the valve drive).

/// The LuGre friction model: bristle deflection `z` with
/// `z' = v - |v| z / g(v)`, `g(v) = (Fc + (Fs - Fc) exp(-(v/vs)^2)) / sigma0`
/// and friction force `F = sigma0 z + sigma1 z' + kv v`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LuGre {
    /// Bristle stiffness sigma0, N/m.
    pub sigma0: f64,
    /// Bristle damping sigma1, N s/m.
    pub sigma1: f64,
    /// Viscous coefficient kv, N s/m.
    pub kv: f64,
    /// Coulomb force Fc, N.
    pub fc: f64,
    /// Stiction (break-away) force Fs, N.
    pub fs: f64,
    /// Stribeck velocity vs, m/s.
    pub vs: f64,
}

/// Friction state rate, force and their partials.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrictionEval {
    /// dz/dt, m/s.
    pub dz: f64,
    /// Friction force, N (opposes motion).
    pub force: f64,
    /// d(dz/dt)/dz, 1/s.
    pub dz_z: f64,
    /// d(dz/dt)/dv, 1.
    pub dz_v: f64,
    /// dF/dz, N/m.
    pub f_z: f64,
    /// dF/dv, N s/m.
    pub f_v: f64,
}

impl LuGre {
    /// The Stribeck curve: steady-state friction force magnitude at sliding
    /// speed `v` without the viscous part, N.
    pub fn stribeck(&self, v: f64) -> f64 {
        self.fc + (self.fs - self.fc) * (-(v / self.vs).powi(2)).exp()
    }

    /// Evaluates the model at velocity `v` (m/s) and bristle deflection `z` (m).
    #[inline]
    pub fn eval(&self, v: f64, z: f64) -> FrictionEval {
        let e = (-(v / self.vs).powi(2)).exp();
        let g = (self.fc + (self.fs - self.fc) * e) / self.sigma0;
        let dg_dv = (self.fs - self.fc) * e * (-2.0 * v / (self.vs * self.vs)) / self.sigma0;
        let av = v.abs();
        let sgn = if v > 0.0 {
            1.0
        } else if v < 0.0 {
            -1.0
        } else {
            0.0
        };
        let dz = v - av * z / g;
        let dz_z = -av / g;
        let dz_v = 1.0 - sgn * z / g + av * z * dg_dv / (g * g);
        FrictionEval {
            dz,
            force: self.sigma0 * z + self.sigma1 * dz + self.kv * v,
            dz_z,
            dz_v,
            f_z: self.sigma0 + self.sigma1 * dz_z,
            f_v: self.sigma1 * dz_v + self.kv,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> LuGre {
        LuGre {
            sigma0: 2.15e6,
            sigma1: 6.368,
            kv: 1280.0,
            fc: 320.0,
            fs: 364.0,
            vs: 3.47e-3,
        }
    }

    #[test]
    fn steady_sliding_gives_the_stribeck_curve() {
        let f = example();
        for v in [-0.05_f64, -2e-3, 1e-3, 0.02] {
            // Steady state: z' = 0 -> z = sign(v) g(v).
            let z = v.signum() * f.stribeck(v) / f.sigma0;
            let e = f.eval(v, z);
            assert!(e.dz.abs() < 1e-12);
            assert!((e.force - (v.signum() * f.stribeck(v) + f.kv * v)).abs() < 1e-9);
        }
        assert_eq!(f.stribeck(0.0), 364.0);
        assert!((f.stribeck(1.0) - 320.0).abs() < 1e-9);
    }

    #[test]
    fn partials_match_finite_differences() {
        let f = example();
        for (v, z) in [(0.01, 1e-4), (-3e-3, -5e-5), (2e-3, -1e-4)] {
            let e = f.eval(v, z);
            let hv = 1e-8;
            let hz = 1e-10;
            let fd_zv = (f.eval(v + hv, z).dz - f.eval(v - hv, z).dz) / (2.0 * hv);
            let fd_zz = (f.eval(v, z + hz).dz - f.eval(v, z - hz).dz) / (2.0 * hz);
            let fd_fv = (f.eval(v + hv, z).force - f.eval(v - hv, z).force) / (2.0 * hv);
            let fd_fz = (f.eval(v, z + hz).force - f.eval(v, z - hz).force) / (2.0 * hz);
            assert!((fd_zv - e.dz_v).abs() < 1e-5 * fd_zv.abs().max(1.0));
            assert!((fd_zz - e.dz_z).abs() < 1e-5 * fd_zz.abs().max(1.0));
            assert!((fd_fv - e.f_v).abs() < 1e-5 * fd_fv.abs().max(1.0));
            assert!((fd_fz - e.f_z).abs() < 1e-5 * fd_fz.abs().max(1.0));
        }
    }
}

/// Brown-McPhee seal friction (FourBar `MODEL.md` F6), a static map of the
/// sliding speed `v`: a smoothed Coulomb level, a Stribeck hump and a
/// viscous term,
/// `F = Fc tanh(4 v/vs) + (Fs - Fc) (v/vs) / (r^2/4 + 3/4)^2 + sigma v tanh(4)`,
/// `r = v/vs`. Its slope at rest, `4 Fc/vs + 16/9 (Fs - Fc)/vs + sigma tanh 4`,
/// is steep (about 1.5e5 N s/m with the FourBar `MODEL.md` values).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BrownMcPhee {
    /// Coulomb force Fc, N.
    pub fc: f64,
    /// Static (break-away) force Fs, N.
    pub fs: f64,
    /// Stribeck velocity vs, m/s.
    pub vs: f64,
    /// Viscous coefficient sigma, N s/m.
    pub sigma: f64,
}

impl BrownMcPhee {
    /// Friction force at speed `v` (opposes motion) and its slope dF/dv.
    pub fn eval(&self, v: f64) -> (f64, f64) {
        let r = v / self.vs;
        let th = (4.0 * r).tanh();
        let d = 0.25 * r * r + 0.75;
        let viscous = self.sigma * 4.0f64.tanh();
        let hump = (self.fs - self.fc) * r / (d * d);
        let force = self.fc * th + hump + viscous * v;
        // d/dr [r / d^2] = 1/d^2 - r * 2 d * (r/2) / d^4 = (d - r^2) / d^3.
        let slope = (self.fc * 4.0 * (1.0 - th * th)
            + (self.fs - self.fc) * (d - r * r) / (d * d * d))
            / self.vs
            + viscous;
        (force, slope)
    }
}

#[cfg(test)]
mod brown_mcphee_tests {
    use super::BrownMcPhee;

    const FOUR_BAR: BrownMcPhee = BrownMcPhee {
        fc: 210.0,
        fs: 830.0,
        vs: 0.0125,
        sigma: 330.0,
    };

    #[test]
    fn odd_with_a_steep_slope_at_rest_and_coulomb_plus_viscous_far_out() {
        assert_eq!(FOUR_BAR.eval(0.0).0, 0.0);
        let (f, s) = FOUR_BAR.eval(0.0);
        assert_eq!(f, 0.0);
        assert!((s - 1.56e5).abs() < 0.01e5, "{s}");
        let (a, _) = FOUR_BAR.eval(0.01);
        let (b, _) = FOUR_BAR.eval(-0.01);
        assert_eq!(a, -b);
        let far = FOUR_BAR.eval(1.0).0;
        assert!((far - (210.0 + 330.0 * 4.0f64.tanh())).abs() < 1.0, "{far}");
        // The Stribeck hump lifts the force above Coulomb near vs.
        assert!(FOUR_BAR.eval(0.01).0 > 600.0);
    }

    #[test]
    fn slope_agrees_with_central_differences() {
        for v in [-0.3, -0.02, -1e-3, 0.0, 2e-4, 0.0125, 0.05, 0.4] {
            let h = 1e-8;
            let fd = (FOUR_BAR.eval(v + h).0 - FOUR_BAR.eval(v - h).0) / (2.0 * h);
            let s = FOUR_BAR.eval(v).1;
            assert!(
                (s - fd).abs() <= 1e-5 * s.abs().max(1.0),
                "{v}: {s} vs {fd}"
            );
        }
    }
}

/// Dry (Coulomb) friction regularised by a hyperbolic tangent:
/// `F = F_max tanh(v / v_reg)`, bounded by `F_max` in magnitude and smooth
/// through rest, with slope `F_max / v_reg` there (LiftActuator `MODEL.md`
/// L6). It has no stiction: a load that `F_max` would hold creeps at a speed
/// of order `v_reg F / F_max`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegularisedCoulomb {
    /// Largest friction force F_max, N.
    pub f_max: f64,
    /// Regularisation speed v_reg, m/s: the force reaches 76 % of F_max at
    /// `v = v_reg`.
    pub v_reg: f64,
}

impl RegularisedCoulomb {
    /// Friction force at speed `v` (same sign as `v`: it is subtracted from
    /// the driving force) and its slope dF/dv.
    pub fn eval(&self, v: f64) -> (f64, f64) {
        let th = (v / self.v_reg).tanh();
        (self.f_max * th, self.f_max * (1.0 - th * th) / self.v_reg)
    }
}

#[cfg(test)]
mod regularised_coulomb_tests {
    use super::RegularisedCoulomb;

    const LIFT: RegularisedCoulomb = RegularisedCoulomb {
        f_max: 300.0,
        v_reg: 1e-3,
    };

    #[test]
    fn bounded_odd_and_steep_at_rest() {
        assert_eq!(LIFT.eval(0.0), (0.0, 3e5));
        let (a, _) = LIFT.eval(2e-3);
        let (b, _) = LIFT.eval(-2e-3);
        assert_eq!(a, -b);
        assert!((a - 300.0 * 2f64.tanh()).abs() < 1e-12);
        assert!((LIFT.eval(4.0).0 - 300.0).abs() < 1e-9);
        assert!(LIFT.eval(-4.0).0 >= -300.0);
    }

    #[test]
    fn slope_agrees_with_central_differences() {
        for v in [-0.1, -1e-3, -2e-4, 0.0, 3e-4, 1e-3, 5e-3, 1.0] {
            let h = 1e-9;
            let fd = (LIFT.eval(v + h).0 - LIFT.eval(v - h).0) / (2.0 * h);
            let s = LIFT.eval(v).1;
            assert!(
                (s - fd).abs() <= 1e-5 * s.abs().max(1.0),
                "{v}: {s} vs {fd}"
            );
        }
    }
}
