//! Fluid properties: the pressure-dependent effective bulk modulus of oil
//! with entrained air (E4 of the orifice chain).

/// Which logarithm the bulk-modulus law uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogBase {
    /// log10: the physically consistent law (B(pmax) close to Emax).
    Ten,
    /// ln: what MATLAB's `log` gives; reproduces the paper's explicit-step
    /// instability but overshoots Emax by a factor of 2.3.
    Natural,
}

/// Effective bulk modulus `B(p) = a1 * Emax * log(a2 * max(p, 0) / pmax + a3)`
/// (E4), in Pa.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BulkModulus {
    /// Maximum bulk modulus of the oil, Pa.
    pub e_max: f64,
    /// Maximum system pressure, Pa.
    pub p_max: f64,
    /// Empirical constant a1 (1).
    pub a1: f64,
    /// Empirical constant a2 (1).
    pub a2: f64,
    /// Empirical constant a3 (1).
    pub a3: f64,
    /// Logarithm base.
    pub log: LogBase,
}

impl BulkModulus {
    /// The model description's default law: Emax 1.8e9 Pa, pmax 2.8e7 Pa, a = (0.5, 90, 3), log10.
    pub fn reference_oil() -> Self {
        BulkModulus {
            e_max: 1.8e9,
            p_max: 2.8e7,
            a1: 0.5,
            a2: 90.0,
            a3: 3.0,
            log: LogBase::Ten,
        }
    }

    /// Checks that the law gives a positive, finite bulk modulus for every
    /// pressure >= 0.
    pub fn check(&self) -> Result<(), String> {
        let finite = [self.e_max, self.p_max, self.a1, self.a2, self.a3]
            .iter()
            .all(|v| v.is_finite());
        if !finite {
            return Err("bulk-modulus law constants must be finite".into());
        }
        if self.e_max <= 0.0 || self.p_max <= 0.0 || self.a1 <= 0.0 {
            return Err("Emax, pmax and a1 must be positive".into());
        }
        if self.a2 < 0.0 || self.a3 <= 1.0 {
            return Err(format!(
                "a2 must be >= 0 and a3 > 1 so that B(p) > 0 for p >= 0 (a2 = {}, a3 = {})",
                self.a2, self.a3
            ));
        }
        Ok(())
    }

    fn ln_scale(&self) -> f64 {
        match self.log {
            LogBase::Ten => std::f64::consts::LN_10,
            LogBase::Natural => 1.0,
        }
    }

    /// Bulk modulus at gauge pressure `p` (Pa), in Pa (E4).
    #[inline]
    pub fn value(&self, p: f64) -> f64 {
        let arg = self.a2 * p.max(0.0) / self.p_max + self.a3;
        self.a1 * self.e_max * arg.ln() / self.ln_scale()
    }

    /// dB/dp at `p` (1); zero below 0 Pa where B is held at B(0).
    #[inline]
    pub fn derivative(&self, p: f64) -> f64 {
        if p <= 0.0 {
            return 0.0;
        }
        let arg = self.a2 * p / self.p_max + self.a3;
        self.a1 * self.e_max * self.a2 / (self.p_max * arg * self.ln_scale())
    }
}

/// A bulk-modulus law ready for evaluation: the law, with its value kept
/// when it does not depend on pressure (`a2 = 0`, a constant bulk modulus
/// written with the law: `B = a1 Emax log(a3)`), so that a constant bulk
/// modulus costs no logarithm per evaluation. Its values are the law's,
/// bit for bit, at every finite pressure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fluid {
    law: BulkModulus,
    constant: Option<f64>,
}

impl Fluid {
    /// The law `law`, with its constant value kept when `a2 = 0`.
    pub fn new(law: BulkModulus) -> Self {
        Fluid {
            law,
            constant: (law.a2 == 0.0).then(|| law.value(0.0)),
        }
    }

    /// The law.
    pub fn law(&self) -> &BulkModulus {
        &self.law
    }

    /// Bulk modulus at gauge pressure `p` (Pa), in Pa (E4).
    #[inline]
    pub fn value(&self, p: f64) -> f64 {
        match self.constant {
            Some(b) => b,
            None => self.law.value(p),
        }
    }

    /// dB/dp at `p` (1): zero for a constant bulk modulus.
    #[inline]
    pub fn derivative(&self, p: f64) -> f64 {
        match self.constant {
            Some(_) => 0.0,
            None => self.law.derivative(p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_values_with_log10() {
        let b = BulkModulus::reference_oil();
        // E4: B(pmax) = 0.5 * 1.8e9 * log10(93) = 1.77e9, B(0) = 4.3e8.
        assert!((b.value(2.8e7) - 0.9e9 * 93f64.log10()).abs() < 1.0);
        assert!((b.value(2.8e7) / 1.77e9 - 1.0).abs() < 2e-3);
        assert!((b.value(0.0) / 4.294e8 - 1.0).abs() < 1e-3);
        assert_eq!(b.value(-1e5), b.value(0.0));
    }

    #[test]
    fn natural_log_overshoots_emax() {
        let b = BulkModulus {
            log: LogBase::Natural,
            ..BulkModulus::reference_oil()
        };
        assert!((b.value(2.8e7) / 4.08e9 - 1.0).abs() < 1e-2);
    }

    #[test]
    fn a_constant_law_is_kept_and_gives_the_laws_values() {
        let constant = BulkModulus {
            e_max: 1e9,
            a1: 1.0,
            a2: 0.0,
            a3: 10.0,
            ..BulkModulus::reference_oil()
        };
        for law in [constant, BulkModulus::reference_oil()] {
            let fluid = Fluid::new(law);
            assert_eq!(fluid.constant.is_some(), law.a2 == 0.0);
            for p in [-1e5, 0.0, 1e3, 5e6, 2e7, 1e9] {
                assert_eq!(fluid.value(p).to_bits(), law.value(p).to_bits(), "{p}");
                assert_eq!(
                    fluid.derivative(p).to_bits(),
                    law.derivative(p).to_bits(),
                    "{p}"
                );
            }
        }
        assert!((Fluid::new(constant).value(3e6) - 1e9).abs() < 1e-3);
    }

    #[test]
    fn derivative_matches_finite_difference() {
        for log in [LogBase::Ten, LogBase::Natural] {
            let b = BulkModulus {
                log,
                ..BulkModulus::reference_oil()
            };
            for p in [1e3, 1e5, 5e6, 2e7] {
                let h = p * 1e-6;
                let fd = (b.value(p + h) - b.value(p - h)) / (2.0 * h);
                assert!((fd - b.derivative(p)).abs() / fd.abs() < 1e-7);
            }
        }
    }

    #[test]
    fn check_rejects_bad_constants() {
        assert!(BulkModulus::reference_oil().check().is_ok());
        let bad = BulkModulus {
            a3: 0.5,
            ..BulkModulus::reference_oil()
        };
        assert!(bad.check().unwrap_err().contains("a3"));
        let bad = BulkModulus {
            e_max: -1.0,
            ..BulkModulus::reference_oil()
        };
        assert!(bad.check().is_err());
    }
}
