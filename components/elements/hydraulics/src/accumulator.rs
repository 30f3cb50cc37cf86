//! Gas-charged (bladder or piston) accumulator: the gas follows a
//! polytropic law, the oil fills what the gas leaves.
//!
//! With the gauge pressure `p` at the accumulator's port, the ambient
//! pressure `p_atm` (the gas law needs absolute pressures `P = p + p_atm`),
//! the precharge `p0` and the accumulator's total volume `V0`:
//!
//! ```text
//! P V_gas^n = P0 V0^n                      (P0 = p0 + p_atm)
//! V_f(p)  = V0 (1 - (P0 / P)^(1/n))        for p >= p0, 0 below
//! C_g(p)  = dV_f/dp = V0 / (n P) (P0 / P)^(1/n)
//! ```
//!
//! The node the accumulator sits on also holds oil: a dead volume `V_d`
//! (port, block, line) and the accumulator's own fluid `V_f`, all of bulk
//! modulus `B(p)`. Conservation of the oil's mass at the node gives
//!
//! ```text
//! dp/dt = Q_net / C(p),   C(p) = (V_d + V_f(p)) / B(p) + C_g(p)
//! ```
//!
//! Source: the polytropic process of an ideal gas (n = 1 isothermal, slow
//! cycling; n = 1.4 adiabatic nitrogen, fast cycling) and the lumped
//! compressible volume of Merritt (Hydraulic Control Systems, 1967), whose
//! continuity equation for a volume that changes with its pressure gives
//! the capacitance form above. The map is static: heat exchange between
//! the gas and the shell (thermal time-constant models) is not modelled,
//! and the gas is ideal.
//!
//! Choice at the precharge: below `p0` the bladder lies on the poppet at
//! the port and the accumulator holds no oil, so `C_g` jumps from 0 to
//! `V0 / (n P0)` at `p0`, a jump in `dp/dt` that implicit integrators
//! handle badly. The pressure fed to the gas law is therefore a smoothed
//! `max(p, p0)`: `p_g = p0 + m(p - p0)` with `m(y) = 0` for
//! `y <= -w/2`, `m(y) = y` for `y >= w/2` and, between, the integral of
//! the cubic smoothstep (`m(y) = w (u^3 - u^4/2)`, `u = y/w + 1/2`), so
//! `m` and its first two derivatives are continuous. Outside the band of
//! width `w = p_band` around `p0` the law is exact (no fluid below
//! `p0 - w/2`, the polytropic law above `p0 + w/2`); inside, the fluid
//! volume rises smoothly from 0 (it is `3 V0 w / (32 n P0)` to first order
//! at `p0`). `V_f` is twice continuously differentiable, so `C` and `dC/dp`,
//! hence `dp/dt` and its Jacobian, are continuous. The dead volume must be
//! positive: below the precharge its oil is the node's only compliance.

use crate::fluid::BulkModulus;
use crate::validate::{non_negative, positive, show};

/// A gas-charged accumulator with the dead volume of its node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GasAccumulator {
    /// Precharge gas pressure p0 (gauge), Pa.
    pub p0: f64,
    /// Total (gas) volume V0 at precharge, m3.
    pub v0: f64,
    /// Polytropic exponent n (1): 1 isothermal, 1.4 adiabatic nitrogen.
    pub n: f64,
    /// Ambient pressure p_atm, Pa, added to gauge pressures for the gas
    /// law (0 if the circuit's pressures are absolute).
    pub p_atm: f64,
    /// Width of the smoothed transition around the precharge, Pa.
    pub p_band: f64,
    /// Dead volume V_d of oil at the node (port, block, lines), m3.
    pub v_dead: f64,
}

/// Pressure rate at an accumulator's node and its partials.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AccumulatorRate {
    /// dp/dt, Pa/s.
    pub dp: f64,
    /// d(dp/dt)/dp, 1/s.
    pub d_p: f64,
    /// d(dp/dt)/dQ_net, Pa/m3.
    pub d_q: f64,
}

/// The smoothed `max(y, 0)` of the accumulator's law over a band of width
/// `w`, with its first and second derivatives.
#[inline]
fn smooth_max0(y: f64, w: f64) -> (f64, f64, f64) {
    let u = y / w + 0.5;
    if u <= 0.0 {
        (0.0, 0.0, 0.0)
    } else if u >= 1.0 {
        (y, 1.0, 0.0)
    } else {
        let u2 = u * u;
        (
            w * u2 * u * (1.0 - 0.5 * u),
            u2 * (3.0 - 2.0 * u),
            6.0 * u * (1.0 - u) / w,
        )
    }
}

impl GasAccumulator {
    /// An accumulator with checked parameters: `p0`, `v0`, `p_band` and
    /// `v_dead` positive, `p_atm` not negative, `1 <= n <= 2`, all finite.
    pub fn new(
        p0: f64,
        v0: f64,
        n: f64,
        p_atm: f64,
        p_band: f64,
        v_dead: f64,
    ) -> Result<Self, String> {
        positive("precharge pressure", "p0", p0, "Pa")?;
        positive("accumulator volume", "v0", v0, "m3")?;
        if !(1.0..=2.0).contains(&n) {
            return Err(format!(
                "polytropic exponent n = {} (1) must lie in [1, 2] (1 isothermal, 1.4 adiabatic nitrogen)",
                show(n)
            ));
        }
        non_negative("ambient pressure", "p_atm", p_atm, "Pa")?;
        positive("transition band", "p_band", p_band, "Pa")?;
        if p_band > p0 {
            return Err(format!(
                "transition band p_band = {} Pa must not exceed the precharge pressure p0 = {} Pa",
                show(p_band),
                show(p0)
            ));
        }
        positive("dead volume", "v_dead", v_dead, "m3")?;
        Ok(GasAccumulator {
            p0,
            v0,
            n,
            p_atm,
            p_band,
            v_dead,
        })
    }

    /// Fluid volume in the accumulator (m3) at gauge pressure `p` (Pa),
    /// with its first and second derivatives: the gas capacitance
    /// `C_g = dV_f/dp` (m3/Pa) and `dC_g/dp` (m3/Pa^2).
    #[inline]
    pub fn fluid_volume(&self, p: f64) -> (f64, f64, f64) {
        let (m, dm, ddm) = smooth_max0(p - self.p0, self.p_band);
        if dm == 0.0 {
            return (0.0, 0.0, 0.0);
        }
        let pa0 = self.p0 + self.p_atm;
        let pa = pa0 + m;
        let inv_n = 1.0 / self.n;
        let ratio = (pa0 / pa).powf(inv_n);
        let v = self.v0 * (1.0 - ratio);
        // d/dP of V0 (1 - (P0/P)^(1/n)) and its second derivative.
        let dv = self.v0 * inv_n * ratio / pa;
        let ddv = -dv * (1.0 + inv_n) / pa;
        (v, dv * dm, ddv * dm * dm + dv * ddm)
    }

    /// The gas capacitance `dV_f/dp` at `p`, m3/Pa (zero below the
    /// precharge band).
    #[inline]
    pub fn capacitance(&self, p: f64) -> f64 {
        self.fluid_volume(p).1
    }

    /// The node's total capacitance `C = (V_d + V_f)/B + C_g` (m3/Pa) at
    /// `p` with its derivative `dC/dp` (m3/Pa^2), for oil of bulk modulus
    /// `fluid`.
    #[inline]
    pub fn node_capacitance(&self, fluid: &BulkModulus, p: f64) -> (f64, f64) {
        let (v, c_g, dc_g) = self.fluid_volume(p);
        let b = fluid.value(p);
        let db = fluid.derivative(p);
        let oil = self.v_dead + v;
        (oil / b + c_g, c_g / b - oil * db / (b * b) + dc_g)
    }

    /// The node's pressure rate `dp/dt = Q_net / C(p)` for net inflow
    /// `q_net` (m3/s) at `p` (Pa), with its partials.
    #[inline]
    pub fn pressure_rate(&self, fluid: &BulkModulus, p: f64, q_net: f64) -> AccumulatorRate {
        let (c, dc) = self.node_capacitance(fluid, p);
        let inv = 1.0 / c;
        AccumulatorRate {
            dp: q_net * inv,
            d_p: -q_net * dc * inv * inv,
            d_q: inv,
        }
    }

    /// The switching functions at `p`: the two ends of the precharge band,
    /// `p - (p0 - p_band/2)` and `p - (p0 + p_band/2)`, where the law's
    /// third derivative jumps (everything the integrator uses is
    /// continuous across them).
    pub fn switching(&self, p: f64) -> [f64; 2] {
        let y = p - self.p0;
        [y + 0.5 * self.p_band, y - 0.5 * self.p_band]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4 L, 50 bar precharge, gauge pressures.
    fn example(n: f64) -> GasAccumulator {
        GasAccumulator::new(5e6, 4e-3, n, 1.01325e5, 1e5, 1e-4).unwrap()
    }

    #[test]
    fn boyle_isothermal_numbers() {
        // Absolute pressures (p_atm = 0): at twice the precharge the gas has
        // half the volume, at four times a quarter.
        let a = GasAccumulator::new(5e6, 4e-3, 1.0, 0.0, 1e4, 1e-4).unwrap();
        let (v, c, _) = a.fluid_volume(1e7);
        assert!((v - 2e-3).abs() <= 1e-15, "{v}");
        // C = V0 P0 / P^2 = 4e-3 * 5e6 / 1e14.
        assert!((c / 2e-10 - 1.0).abs() < 1e-12, "{c}");
        assert!((a.fluid_volume(2e7).0 - 3e-3).abs() <= 1e-15);
        // Gauge pressures: twice the absolute precharge.
        let g = example(1.0);
        let p2 = 2.0 * (g.p0 + g.p_atm) - g.p_atm;
        assert!((g.fluid_volume(p2).0 - 2e-3).abs() <= 1e-15);
    }

    #[test]
    fn adiabatic_numbers() {
        let a = GasAccumulator::new(5e6, 4e-3, 1.4, 0.0, 1e4, 1e-4).unwrap();
        // V_gas = V0 2^(-1/1.4) = 0.6095 V0: the fluid is 1.562 L at twice
        // the precharge, less than the isothermal 2 L (the gas is stiffer).
        let v = a.fluid_volume(1e7).0;
        assert!((v - 4e-3 * (1.0 - 2f64.powf(-1.0 / 1.4))).abs() <= 1e-15);
        assert!((v / 1.562e-3 - 1.0).abs() < 1e-3, "{v}");
        // Capacitance just above the precharge: V0 / (n P0).
        let c = a.capacitance(5e6 + 5e3);
        assert!((c / (4e-3 / (1.4 * 5e6)) - 1.0).abs() < 3e-3, "{c}");
        // Monotone and bounded by V0 however high the pressure.
        let mut prev = 0.0;
        for i in 0..200 {
            let v = a.fluid_volume(4.9e6 + i as f64 * 1e6).0;
            assert!(v >= prev && v < 4e-3);
            prev = v;
        }
    }

    #[test]
    fn empty_below_precharge_and_exact_outside_the_band() {
        let a = example(1.4);
        for p in [-1e5, 0.0, 1e6, 4.9e6, 5e6 - 0.5e5] {
            assert_eq!(a.fluid_volume(p), (0.0, 0.0, 0.0), "{p}");
        }
        // Above the band: the unregularised law.
        let p = 5e6 + 0.5e5;
        let pa0 = 5e6 + a.p_atm;
        let exact = 4e-3 * (1.0 - (pa0 / (p + a.p_atm)).powf(1.0 / 1.4));
        assert!((a.fluid_volume(p).0 - exact).abs() <= 1e-18);
        // At the precharge: 3 V0 w / (32 n P0) to first order.
        let v = a.fluid_volume(5e6).0;
        let first_order = 3.0 * 4e-3 * 1e5 / (32.0 * 1.4 * pa0);
        assert!((v / first_order - 1.0).abs() < 1e-2, "{v} vs {first_order}");
    }

    #[test]
    fn derivatives_agree_with_central_differences() {
        let fluid = BulkModulus::reference_oil();
        for n in [1.0, 1.4] {
            let a = example(n);
            // Below, through and above the precharge band, and far above.
            for p in [
                1e6, 4.949e6, 4.951e6, 4.99e6, 5e6, 5.03e6, 5.049e6, 5.051e6, 1e7, 3e7,
            ] {
                let h = 1.0;
                let (_, c, dc) = a.fluid_volume(p);
                let fd_c = (a.fluid_volume(p + h).0 - a.fluid_volume(p - h).0) / (2.0 * h);
                let fd_dc = (a.fluid_volume(p + h).1 - a.fluid_volume(p - h).1) / (2.0 * h);
                let scale = 4e-3 / (n * 5e6);
                assert!((c - fd_c).abs() <= 1e-6 * scale, "C at {p}: {c} vs {fd_c}");
                assert!(
                    (dc - fd_dc).abs() <= 1e-5 * scale / 1e5,
                    "dC at {p}: {dc} vs {fd_dc}"
                );
                let q = 1e-4;
                let r = a.pressure_rate(&fluid, p, q);
                let fd_p = (a.pressure_rate(&fluid, p + h, q).dp
                    - a.pressure_rate(&fluid, p - h, q).dp)
                    / (2.0 * h);
                let fd_q = (a.pressure_rate(&fluid, p, q * (1.0 + 1e-6)).dp
                    - a.pressure_rate(&fluid, p, q * (1.0 - 1e-6)).dp)
                    / (2e-6 * q);
                assert!(
                    (r.d_p - fd_p).abs() <= 1e-5 * fd_p.abs(),
                    "d/dp at {p}: {} vs {fd_p}",
                    r.d_p
                );
                assert!((r.d_q - fd_q).abs() <= 1e-6 * fd_q.abs(), "d/dq at {p}");
            }
        }
    }

    #[test]
    fn the_node_is_stiff_below_precharge_and_soft_above() {
        let fluid = BulkModulus::reference_oil();
        let a = example(1.4);
        let q = 1e-4;
        // Below: the dead volume's oil alone, B/V_d.
        let below = a.pressure_rate(&fluid, 2e6, q).dp;
        assert!((below - fluid.value(2e6) / 1e-4 * q).abs() <= 1e-9 * below);
        // Above: the gas dominates, the rate drops by orders of magnitude.
        let above = a.pressure_rate(&fluid, 6e6, q).dp;
        let c = a.capacitance(6e6) + (1e-4 + a.fluid_volume(6e6).0) / fluid.value(6e6);
        assert!((above - q / c).abs() <= 1e-12 * above);
        assert!(below / above > 100.0);
    }

    #[test]
    fn switching_marks_the_band() {
        let a = example(1.0);
        assert_eq!(a.switching(5e6), [0.5e5, -0.5e5]);
    }

    #[test]
    fn constructor_rejects_bad_parameters_by_name() {
        let new = |p0, v0, n, v_dead| GasAccumulator::new(p0, v0, n, 1e5, 1e5, v_dead);
        assert_eq!(
            new(-1e5, 4e-3, 1.4, 1e-4).unwrap_err(),
            "precharge pressure p0 = -100000 Pa must be positive"
        );
        assert_eq!(
            new(5e6, 0.0, 1.4, 1e-4).unwrap_err(),
            "accumulator volume v0 = 0 m3 must be positive"
        );
        assert!(
            new(5e6, 4e-3, 0.9, 1e-4)
                .unwrap_err()
                .starts_with("polytropic exponent n = 0.9 (1) must lie in [1, 2]")
        );
        assert!(new(5e6, 4e-3, f64::NAN, 1e-4).is_err());
        assert_eq!(
            new(5e6, 4e-3, 1.4, 0.0).unwrap_err(),
            "dead volume v_dead = 0 m3 must be positive"
        );
        assert!(
            GasAccumulator::new(5e6, 4e-3, 1.4, -1.0, 1e5, 1e-4)
                .unwrap_err()
                .contains("p_atm = -1 Pa")
        );
        assert!(
            GasAccumulator::new(5e6, 4e-3, 1.4, 1e5, 6e6, 1e-4)
                .unwrap_err()
                .contains("must not exceed the precharge")
        );
    }
}
