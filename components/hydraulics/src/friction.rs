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
