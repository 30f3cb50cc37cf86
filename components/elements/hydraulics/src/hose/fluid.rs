//! Hose fluid: HLP oil with entrained air whose viscosity, compression and
//! density depend on the segment's mean pressure (H3 of the hose), and
//! the volume and compliance of the entrained air (H4, `C_A`).

/// Compressibility coefficients `(Af, Bf)` of the higher-viscosity HLP oils
/// at temperature `temperature` (degC): `Af = 14 - 0.05 (T - 20)` (1) and
/// `Bf = (18.4 - 0.10 (T - 20)) 1e8` (Pa) (the parameter table, the paper's eqs
/// 19-20). At 40 degC: Af = 13, Bf = 1.64e9 Pa.
pub fn hlp_compressibility(temperature: f64) -> (f64, f64) {
    let dt = temperature - 20.0;
    (14.0 - 0.05 * dt, (18.4 - 0.10 * dt) * 1e8)
}

/// Oil with entrained air as the hose MODEL.md describes it (H3). All laws
/// are functions of the segment's mean gauge pressure `p_m` (Pa) and are
/// valid for `p_m > -p0` (the air law has a pole at `p_m = -p0`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HoseFluid {
    /// Fluid temperature T, degC.
    pub temperature: f64,
    /// Kinematic viscosity of the oil at T (without air, at p_m = 0), m2/s.
    pub nu0: f64,
    /// Density of the oil at 15 degC, kg/m3.
    pub rho15: f64,
    /// Relative air volume at p_m = 0, `vol0 = V_A0 / V_H0` (1).
    pub vol0: f64,
    /// Compressibility coefficient Af (1) of `eps = p_m / (Af p_m + Bf)`.
    pub af: f64,
    /// Compressibility coefficient Bf of `eps = p_m / (Af p_m + Bf)`, Pa.
    pub bf: f64,
    /// Polytropic exponent of the air (1); 1.4 is adiabatic.
    pub ka: f64,
    /// Atmospheric (absolute reference) pressure of the air law, Pa.
    pub p0: f64,
}

/// Fluid properties at one mean pressure and their derivatives with respect
/// to it (H3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FluidProperties {
    /// Kinematic viscosity nu, m2/s.
    pub nu: f64,
    /// d nu / d p_m, m2/s/Pa.
    pub nu_dp: f64,
    /// Relative compression of the oil `eps = p_m / (Af p_m + Bf)` (1).
    pub eps: f64,
    /// d eps / d p_m = Bf / (Af p_m + Bf)^2, 1/Pa.
    pub eps_dp: f64,
    /// d2 eps / d p_m2 = -2 Af Bf / (Af p_m + Bf)^3, 1/Pa2.
    pub eps_dpp: f64,
    /// Density rho, kg/m3.
    pub rho: f64,
    /// d rho / d p_m, kg/m3/Pa.
    pub rho_dp: f64,
}

/// The entrained air of one segment at a mean pressure (H4; eq 22 of the paper).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AirVolume {
    /// Air volume `V_A = V_A0 (p0 / (p_m + p0))^(1/ka)`, m3.
    pub volume: f64,
    /// Air compliance `C_A = -dV_A/dp_m = V_A0 / (ka (p_m + p0)) (p0 / (p_m + p0))^(1/ka)`, m3/Pa.
    pub compliance: f64,
    /// d C_A / d p_m = -(1 + 1/ka) C_A / (p_m + p0), m3/Pa2.
    pub compliance_dp: f64,
}

impl HoseFluid {
    /// A higher-viscosity HLP oil with Af and Bf from its temperature
    /// (the paper's eqs 19-20, [`hlp_compressibility`]). Units as the fields.
    pub fn new(temperature: f64, nu0: f64, rho15: f64, vol0: f64, ka: f64, p0: f64) -> Self {
        let (af, bf) = hlp_compressibility(temperature);
        HoseFluid {
            temperature,
            nu0,
            rho15,
            vol0,
            af,
            bf,
            ka,
            p0,
        }
    }

    /// The model description's fluid: HLP46 at 40 degC, nu0 = 46e-6 m2/s, rho15 = 875
    /// kg/m3, vol0 = 0.08, ka = 1.4, p0 = 1e5 Pa (Af = 13, Bf = 1.64e9 Pa).
    pub fn hlp46() -> Self {
        HoseFluid::new(40.0, 46e-6, 875.0, 0.08, 1.4, 1e5)
    }

    /// Checks that the constants are finite and physical.
    pub fn check(&self) -> Result<(), String> {
        let all = [
            self.temperature,
            self.nu0,
            self.rho15,
            self.vol0,
            self.af,
            self.bf,
            self.ka,
            self.p0,
        ];
        if !all.iter().all(|v| v.is_finite()) {
            return Err("hose fluid constants must be finite".into());
        }
        if self.nu0 <= 0.0 || self.rho15 <= 0.0 || self.ka <= 0.0 || self.p0 <= 0.0 {
            return Err("nu0, rho15, ka and p0 must be positive".into());
        }
        if !(0.0..1.0).contains(&self.vol0) {
            return Err(format!("vol0 must be in [0, 1), got {}", self.vol0));
        }
        if self.bf <= 0.0 || self.af < 0.0 {
            return Err(format!(
                "Bf must be positive and Af >= 0 (Af = {}, Bf = {})",
                self.af, self.bf
            ));
        }
        if 1.0 + self.thermal_expansion() * (self.temperature - 15.0) <= 0.0 {
            return Err("temperature outside the density law's range".into());
        }
        Ok(())
    }

    /// Thermal expansion coefficient `alpha = (4 + 0.1 T) 1e-4`, 1/K (H3).
    pub fn thermal_expansion(&self) -> f64 {
        (4.0 + 0.1 * self.temperature) * 1e-4
    }

    /// Kinematic viscosity `nu = nu0 (1 + 1.5 vol0)(1 + 3e-8 p_m)` at mean
    /// pressure `p_m` (Pa), m2/s (H3).
    pub fn kinematic_viscosity(&self, p_m: f64) -> f64 {
        self.nu0 * (1.0 + 1.5 * self.vol0) * (1.0 + 3e-8 * p_m)
    }

    /// d nu / d p_m (constant), m2/s/Pa (H3).
    pub fn kinematic_viscosity_dp(&self) -> f64 {
        self.nu0 * (1.0 + 1.5 * self.vol0) * 3e-8
    }

    /// Relative compression of the oil `eps = p_m / (Af p_m + Bf)` (1) at
    /// mean pressure `p_m` (Pa) (H3).
    pub fn compression(&self, p_m: f64) -> f64 {
        p_m / (self.af * p_m + self.bf)
    }

    /// d eps / d p_m = Bf / (Af p_m + Bf)^2, 1/Pa (H3).
    pub fn compression_dp(&self, p_m: f64) -> f64 {
        let den = self.af * p_m + self.bf;
        self.bf / (den * den)
    }

    /// d2 eps / d p_m2 = -2 Af Bf / (Af p_m + Bf)^3, 1/Pa2 (for dC/dp_m, H4).
    pub fn compression_dpp(&self, p_m: f64) -> f64 {
        let den = self.af * p_m + self.bf;
        -2.0 * self.af * self.bf / (den * den * den)
    }

    /// Density `rho = rho15 (1 + eps (1 - vol0)) / (1 + alpha (T - 15))` at
    /// mean pressure `p_m` (Pa), kg/m3 (H3).
    pub fn density(&self, p_m: f64) -> f64 {
        self.density_at_zero() * (1.0 + self.compression(p_m) * (1.0 - self.vol0))
    }

    /// d rho / d p_m = rho(0) (1 - vol0) d eps/d p_m, kg/m3/Pa (H3).
    pub fn density_dp(&self, p_m: f64) -> f64 {
        self.density_at_zero() * (1.0 - self.vol0) * self.compression_dp(p_m)
    }

    /// Density at p_m = 0 and T, `rho15 / (1 + alpha (T - 15))`, kg/m3.
    fn density_at_zero(&self) -> f64 {
        self.rho15 / (1.0 + self.thermal_expansion() * (self.temperature - 15.0))
    }

    /// All fluid properties at mean pressure `p_m` (Pa) with their
    /// derivatives (H3).
    pub fn properties(&self, p_m: f64) -> FluidProperties {
        FluidProperties {
            nu: self.kinematic_viscosity(p_m),
            nu_dp: self.kinematic_viscosity_dp(),
            eps: self.compression(p_m),
            eps_dp: self.compression_dp(p_m),
            eps_dpp: self.compression_dpp(p_m),
            rho: self.density(p_m),
            rho_dp: self.density_dp(p_m),
        }
    }

    /// The air that occupies `v_a0` (m3) at p_m = 0, compressed polytropically
    /// to mean pressure `p_m` (Pa): its volume, compliance `C_A` and dC_A/dp_m
    /// (H4). `v_a0 = 1` gives the values per unit initial air volume.
    pub fn air(&self, v_a0: f64, p_m: f64) -> AirVolume {
        let abs = p_m + self.p0;
        let volume = v_a0 * (self.p0 / abs).powf(1.0 / self.ka);
        let compliance = volume / (self.ka * abs);
        AirVolume {
            volume,
            compliance,
            compliance_dp: -(1.0 + 1.0 / self.ka) * compliance / abs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn compressibility_coefficients_at_40_degc() {
        let (af, bf) = hlp_compressibility(40.0);
        assert!((af - 13.0).abs() < 1e-12);
        assert!(rel(bf, 1.64e9) < 1e-12);
        let f = HoseFluid::hlp46();
        assert_eq!((f.af, f.bf), (af, bf));
        assert!(f.check().is_ok());
        assert!(rel(f.thermal_expansion(), 8e-4) < 1e-12);
    }

    #[test]
    fn values_at_zero_and_ten_megapascal() {
        let f = HoseFluid::hlp46();
        // nu = 46e-6 * 1.12 * (1 + 3e-8 p_m).
        assert!(rel(f.kinematic_viscosity(0.0), 5.152e-5) < 1e-12);
        assert!(rel(f.kinematic_viscosity(1e7), 5.152e-5 * 1.3) < 1e-12);
        // eps(1e7) = 1e7 / (13e7 + 1.64e9) = 1 / 177.
        assert_eq!(f.compression(0.0), 0.0);
        assert!(rel(f.compression(1e7), 1.0 / 177.0) < 1e-12);
        assert!(rel(f.compression_dp(0.0), 1.0 / 1.64e9) < 1e-12);
        // rho(0) = 875 / 1.02, rho(1e7) = rho(0) (1 + 0.92 / 177).
        let rho0 = 875.0 / 1.02;
        assert!(rel(f.density(0.0), rho0) < 1e-12);
        assert!(rel(f.density(1e7), rho0 * (1.0 + 0.92 / 177.0)) < 1e-12);
        assert!((f.density(1e7) - 862.302).abs() < 1e-3);
        // Air per unit V_A0: V_A(0) = 1, C_A(0) = 1 / (ka p0).
        let a0 = f.air(1.0, 0.0);
        assert!(rel(a0.volume, 1.0) < 1e-15);
        assert!(rel(a0.compliance, 1.0 / 1.4e5) < 1e-12);
        let a1 = f.air(1.0, 1e7);
        let ratio = (1e5_f64 / 1.01e7).powf(1.0 / 1.4);
        assert!(rel(a1.volume, ratio) < 1e-12);
        assert!(rel(a1.compliance, ratio / (1.4 * 1.01e7)) < 1e-12);
        // Linear in the initial air volume.
        assert!(rel(f.air(3e-5, 1e7).compliance, 3e-5 * a1.compliance) < 1e-12);
    }

    #[test]
    fn derivatives_match_finite_differences() {
        let f = HoseFluid::hlp46();
        for p in [-5e4_f64, 0.0, 1e5, 2e6, 1e7, 3e7] {
            let h = 1e-4 * (p.abs() + f.p0);
            let c = |g: &dyn Fn(f64) -> f64| (g(p + h) - g(p - h)) / (2.0 * h);
            let s = f.properties(p);
            assert!(rel(c(&|q| f.kinematic_viscosity(q)), s.nu_dp) < 1e-8);
            assert!(rel(c(&|q| f.compression(q)), s.eps_dp) < 1e-7);
            assert!(rel(c(&|q| f.compression_dp(q)), s.eps_dpp) < 1e-7);
            assert!(rel(c(&|q| f.density(q)), s.rho_dp) < 1e-7);
            let air = f.air(2e-5, p);
            assert!(rel(-c(&|q| f.air(2e-5, q).volume), air.compliance) < 1e-6);
            assert!(rel(c(&|q| f.air(2e-5, q).compliance), air.compliance_dp) < 1e-6);
        }
    }

    #[test]
    fn check_rejects_bad_constants() {
        let bad = HoseFluid {
            vol0: 1.0,
            ..HoseFluid::hlp46()
        };
        assert!(bad.check().unwrap_err().contains("vol0"));
        let bad = HoseFluid {
            p0: f64::NAN,
            ..HoseFluid::hlp46()
        };
        assert!(bad.check().is_err());
    }
}
