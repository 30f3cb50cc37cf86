//! The hose's parameters, declared once for the four forms' tables, with
//! the values of the model description (`MODEL.md`: Grossschmidt and
//! Harf 2017, and the value that replaces the paper's x_ref).

use hydraulics::hose::{HoseParameters, WallSlope};

fmu_core::parameters! {
    /// The hose, its wall and its oil (H1-H6), and its number of segments.
    pub struct HoseParams {
        /// Number of lumped segments (structural; 1..14: the resistance
        /// correction kr vanishes at 15)
        n: int structural = 1, min 1, max 14;
        /// Hose length
        L_hose: real ["m" => "mm"] = 2.0, above 0.0;
        /// Inner diameter
        d: real ["m" => "mm"] = 0.016, above 0.0;
        /// Reference pressure of the wall law
        p_ref: real ["Pa" => "bar"] = 1e7, above 0.0;
        /// Radial wall deformation at p_ref (replaced: the paper's 4e-4 m
        /// puts the resonance at 41 Hz)
        x_ref: real ["m" => "mm"] = 3.508e-5, above 0.0;
        /// Hysteresis width of the wall
        b: real ["m" => "mm"] = 2e-5, min 0.0;
        /// Saturation velocity of the wall hysteresis
        v_lim: real ["m/s" => "mm/s"] = 1e-4, above 0.0;
        /// Wall damping (quasi-static wall: time constant h/k ~ 1e-8 s)
        h: real ["N.s/m"] = 200.0, min 0.0;
        /// Frequency correction coefficient
        kn: real ["1"] = 0.011, min 0.0;
        /// Resistance correction kr = kr1 - kr2 (n - 1)
        kr1: real ["1"] = 1.4, min 0.0;
        /// Resistance correction slope
        kr2: real ["1"] = 0.10, min 0.0;
        /// Local loss coefficient (per segment)
        zeta: real ["1"] = 2.0, min 0.0;
        /// Turbulent friction coefficient
        lambda: real ["1"] = 0.04, min 0.0;
        /// Laminar coefficient (64: Hagen-Poiseuille)
        Al: real ["1"] = 64.0, min 0.0;
        /// Fluid temperature (HLP46)
        T: real ["K" => "degC"] = 313.15, above 0.0;
        /// Kinematic viscosity at T
        nu0: real ["m2/s" => "cSt"] = 46e-6, above 0.0;
        /// Density at 15 degC
        rho15: real ["kg/m3"] = 875.0, above 0.0;
        /// Relative air volume at p_m = 0
        vol0: real ["1"] = 0.08, min 0.0;
        /// Polytropic exponent of the air
        ka: real ["1"] = 1.4, above 0.0;
        /// Atmospheric pressure of the air law
        p0: real ["Pa" => "bar"] = 1e5, above 0.0;
        /// Use the full derivative dx/dp_m (with dk/dp_m) in the compliance
        /// instead of the paper's eq 30 slope with k held (the reproduced
        /// numbers need the latter)
        tangent_wall_slope: bool = false;
    }
}

impl HoseParams {
    /// The hose's parameters for the segment laws (temperature in degC).
    pub fn parameters(&self) -> HoseParameters {
        HoseParameters {
            hose_length: self.L_hose,
            d: self.d,
            p_ref: self.p_ref,
            x_ref: self.x_ref,
            b: self.b,
            v_lim: self.v_lim,
            h: self.h,
            kn: self.kn,
            kr1: self.kr1,
            kr2: self.kr2,
            zeta: self.zeta,
            lambda: self.lambda,
            al: self.Al,
            temperature: self.T - 273.15,
            nu0: self.nu0,
            rho15: self.rho15,
            vol0: self.vol0,
            ka: self.ka,
            p0: self.p0,
            wall_slope: if self.tangent_wall_slope {
                WallSlope::Tangent
            } else {
                WallSlope::FrozenStiffness
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_core::Record;

    #[test]
    fn defaults_are_the_model_description_values() {
        let p = HoseParams::defaults().parameters();
        let reference = HoseParameters::reference();
        assert_eq!(p.hose_length, reference.hose_length);
        assert!((p.temperature - reference.temperature).abs() < 1e-12);
        assert_eq!(
            HoseParameters {
                temperature: reference.temperature,
                ..p
            },
            reference
        );
    }
}
