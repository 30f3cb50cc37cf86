//! The parameter groups of the four-bar circuit, declared once for the
//! FourBar, FourBarActuator and FourBarMechanism tables, with the values of
//! the model description (`MODEL.md`; replaced and proposed values are
//! marked there and in the descriptions below).

use crate::actuator::Actuator;
use crate::linkage::Linkage;
use hydraulics::{BSplineCurve, BrownMcPhee, CurveValve, ReliefValve};

fmu_core::parameters! {
    /// The linkage: ground pivots, bar lengths and masses, gravity (M1-M5).
    pub struct LinkageParams {
        /// Crank pivot A, x (proposed: the paper gives no ground geometry)
        Ax: real ["m"] = -2.0;
        /// Crank pivot A, y (proposed)
        Ay: real ["m"] = 3.0;
        /// Rocker pivot C, x (proposed)
        Cx: real ["m"] = 8.0;
        /// Rocker pivot C, y (proposed)
        Cy: real ["m"] = 0.0;
        /// Cylinder's ground pin D, x (proposed; the rod pin is the crank's centre G)
        Dx: real ["m"] = -1.0;
        /// Cylinder's ground pin D, y (proposed)
        Dy: real ["m"] = 0.0;
        /// Crank length
        L1: real ["m"] = 2.0, above 0.0;
        /// Coupler length
        L2: real ["m"] = 8.0, above 0.0;
        /// Rocker length
        L3: real ["m"] = 5.0, above 0.0;
        /// Crank mass (uniform slender bar)
        m1: real ["kg"] = 100.0, above 0.0;
        /// Coupler mass (uniform slender bar)
        m2: real ["kg"] = 400.0, above 0.0;
        /// Rocker mass (uniform slender bar)
        m3: real ["kg"] = 250.0, above 0.0;
        /// Gravitational acceleration (along -y)
        g: real ["m/s2"] = 9.81, min 0.0;
    }
}

fmu_core::parameters! {
    /// The hydraulics: pump, relief valve, lines, spool, cylinder, oil and
    /// seal friction (F1-F8).
    pub struct HydraulicParams {
        /// Piston-side area
        A1: real ["m2" => "cm2"] = 2e-3, above 0.0;
        /// Rod-side area
        A2: real ["m2" => "cm2"] = 1.8e-3, above 0.0;
        /// Pin-to-pin cylinder length at the start (the mechanism starts at rest there)
        s0: real ["m"] = 3.0, above 0.0;
        /// Shortest pin-to-pin length, piston on its end (proposed)
        s_min: real ["m"] = 2.0, above 0.0;
        /// Cylinder stroke (proposed)
        stroke: real ["m"] = 2.0, above 0.0;
        /// Pump flow (constant-flow pump)
        Qp: real ["m3/s" => "L/min"] = 1e-3, min 0.0;
        /// Tank pressure
        pT: real ["Pa" => "MPa"] = 1e5;
        /// Oil density
        rho: real ["kg/m3"] = 869.0, above 0.0;
        /// Pump-line volume
        Vp: real ["m3" => "L"] = 3.42e-3, above 0.0;
        /// Piston-side line volume (replaced: the paper prints 3.42e-1 m3)
        Vh1: real ["m3" => "L"] = 3.42e-4, above 0.0;
        /// Rod-side line volume (replaced: the paper prints 3.42e-1 m3)
        Vh2: real ["m3" => "L"] = 3.42e-4, above 0.0;
        /// Valve discharge coefficient
        Cd: real ["1"] = 0.5, above 0.0;
        /// Valve opening area per volt of spool signal
        Ad: real ["m2/V" => "mm2/V"] = 1.96e-6, above 0.0;
        /// Relief cracking pressure
        p_cr: real ["Pa" => "MPa"] = 7.0e6;
        /// Relief flow gain above cracking (replaced: the paper's area passes only 1.5e-10 m3/s)
        K_R: real ["m3/(s.Pa)"] = 1.667e-9, above 0.0;
        /// Width of the relief's rounded opening
        dp_R: real ["Pa" => "kPa"] = 2e4, above 0.0;
        /// Transition pressure of the valve's regularised orifice law
        delta: real ["Pa" => "kPa"] = 2e4, above 0.0;
        /// Spool time constant (assumed: not in the paper)
        tau: real ["s" => "ms"] = 0.02, above 0.0;
        /// Seal friction: Coulomb force
        Fc: real ["N"] = 210.0, min 0.0;
        /// Seal friction: static force
        Fs: real ["N"] = 830.0, min 0.0;
        /// Seal friction: Stribeck velocity
        vs: real ["m/s" => "mm/s"] = 0.0125, above 0.0;
        /// Seal friction: viscous coefficient
        sigma: real ["N.s/m"] = 330.0, min 0.0;
        /// Initial rod-side pressure
        p2_0: real ["Pa" => "MPa"] = 1e6;
    }
}

fmu_core::parameters! {
    /// The oil's bulk modulus (F3), a group of its own: the estimation
    /// model FourBarTwin takes these two as inputs instead.
    pub struct BulkParams {
        /// Bulk modulus at zero pressure, beta = kp + k0 p
        kp: real ["Pa" => "MPa"] = 1.6e9, above 0.0;
        /// Pressure slope of the bulk modulus, dimensionless
        k0: real ["1"] = 0.5, min 0.0;
    }
}

fmu_core::parameters! {
    /// The valve's characteristic curves (F7): a preset for all four edges,
    /// or custom control points per edge.
    pub struct CurveParams {
        /// Valve curve of all four edges: 1 = linear (the catalogue line), 2 = real-1 (mildly progressive), 3 = real-2 (S-shaped), 0 = custom (the control points below)
        curve: int = 1, min 0, max 3;
        /// Degree of the B-spline curves (lowered to points - 1 for fewer points)
        degree: int = 3, min 1, max 3;
        /// Edge P to A (opens for U >= 0): number of control points of its custom curve (curve = 0)
        PA_n: int = 6, min 2, max 8;
        /// Edge P to A (opens for U >= 0): spool signal of control point {i} (custom curve)
        PA_U: [real; 8] ["V"] = [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0];
        /// Edge P to A (opens for U >= 0): gain of control point {i}, dimensionless, 95 = Cv at 10 V (custom curve)
        PA_N: [real; 8] ["1"] = [0.0, 19.0, 38.0, 57.0, 76.0, 95.0, 95.0, 95.0], min 0.0;
        /// Edge A to T (opens for U < 0): number of control points of its custom curve (curve = 0)
        AT_n: int = 6, min 2, max 8;
        /// Edge A to T (opens for U < 0): spool signal of control point {i} (custom curve)
        AT_U: [real; 8] ["V"] = [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0];
        /// Edge A to T (opens for U < 0): gain of control point {i}, dimensionless, 95 = Cv at 10 V (custom curve)
        AT_N: [real; 8] ["1"] = [0.0, 19.0, 38.0, 57.0, 76.0, 95.0, 95.0, 95.0], min 0.0;
        /// Edge P to B (opens for U < 0): number of control points of its custom curve (curve = 0)
        PB_n: int = 6, min 2, max 8;
        /// Edge P to B (opens for U < 0): spool signal of control point {i} (custom curve)
        PB_U: [real; 8] ["V"] = [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0];
        /// Edge P to B (opens for U < 0): gain of control point {i}, dimensionless, 95 = Cv at 10 V (custom curve)
        PB_N: [real; 8] ["1"] = [0.0, 19.0, 38.0, 57.0, 76.0, 95.0, 95.0, 95.0], min 0.0;
        /// Edge B to T (opens for U >= 0): number of control points of its custom curve (curve = 0)
        BT_n: int = 6, min 2, max 8;
        /// Edge B to T (opens for U >= 0): spool signal of control point {i} (custom curve)
        BT_U: [real; 8] ["V"] = [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0];
        /// Edge B to T (opens for U >= 0): gain of control point {i}, dimensionless, 95 = Cv at 10 V (custom curve)
        BT_N: [real; 8] ["1"] = [0.0, 19.0, 38.0, 57.0, 76.0, 95.0, 95.0, 95.0], min 0.0;
    }
}

/// Control points `(U in V, N)` of the presets (`MODEL.md` F7).
pub const PRESETS: [(&str, &[f64], &[f64]); 3] = [
    (
        "linear",
        &[0.0, 2.0, 4.0, 6.0, 8.0, 10.0],
        &[0.0, 19.0, 38.0, 57.0, 76.0, 95.0],
    ),
    (
        "real-1",
        &[0.0, 2.5, 5.0, 7.5, 10.0],
        &[0.0, 12.0, 35.0, 65.0, 95.0],
    ),
    (
        "real-2",
        &[0.0, 2.0, 4.0, 6.0, 8.0, 10.0],
        &[0.0, 5.0, 12.0, 30.0, 70.0, 95.0],
    ),
];

impl CurveParams {
    /// The four edges' curves, order PA, AT, PB, BT; an error naming the
    /// edge whose control points are unusable.
    pub fn curves(&self) -> Result<[BSplineCurve; 4], String> {
        let degree = self.degree as usize;
        if self.curve > 0 {
            let (_, u, n) = PRESETS[(self.curve - 1) as usize];
            let c = BSplineCurve::new(u, n, degree)?;
            return Ok([c; 4]);
        }
        let custom = [
            ("PA", self.PA_n, self.PA_U, self.PA_N),
            ("AT", self.AT_n, self.AT_U, self.AT_N),
            ("PB", self.PB_n, self.PB_U, self.PB_N),
            ("BT", self.BT_n, self.BT_U, self.BT_N),
        ];
        let mut out = Vec::with_capacity(4);
        for (edge, n, u, y) in custom {
            let n = n as usize;
            let c = BSplineCurve::new(&u[..n], &y[..n], degree)
                .map_err(|e| format!("custom valve curve of edge {edge}: {e}"))?;
            if c.eval(0.0).value != 0.0 {
                return Err(format!(
                    "custom valve curve of edge {edge}: the gain at U = 0 must be 0 (closed centre), it is {}",
                    c.eval(0.0).value
                ));
            }
            out.push(c);
        }
        Ok([out[0], out[1], out[2], out[3]])
    }
}

impl LinkageParams {
    /// The linkage of these parameters starting at pin-to-pin length `s0`.
    pub fn linkage(&self, s0: f64) -> Result<Linkage, String> {
        Linkage::new(self, s0)
    }
}

impl HydraulicParams {
    /// The hydraulic elements with bulk modulus `bulk` and the valve's four
    /// edge curves (order PA, AT, PB, BT); an error for values inconsistent
    /// with each other.
    pub fn actuator(
        &self,
        bulk: &BulkParams,
        curves: [BSplineCurve; 4],
    ) -> Result<Actuator, String> {
        if self.Fs < self.Fc {
            return Err(format!(
                "static friction Fs = {} N must be at least the Coulomb force Fc = {} N",
                self.Fs, self.Fc
            ));
        }
        if !(self.s0 >= self.s_min && self.s0 <= self.s_min + self.stroke) {
            return Err(format!(
                "the start length s0 = {} m lies outside the stroke s_min .. s_min + stroke = {} .. {} m",
                self.s0,
                self.s_min,
                self.s_min + self.stroke
            ));
        }
        let cv = self.Cd * self.Ad * (2.0 / self.rho).sqrt();
        Ok(Actuator {
            a1: self.A1,
            a2: self.A2,
            s_min: self.s_min,
            stroke: self.stroke,
            qp: self.Qp,
            pt: self.pT,
            vp: self.Vp,
            vh1: self.Vh1,
            vh2: self.Vh2,
            kp: bulk.kp,
            k0: bulk.k0,
            relief: ReliefValve {
                p_crack: self.p_cr,
                gain: self.K_R,
                smoothing: self.dp_R,
            },
            valve: CurveValve {
                curves,
                // Table 3's ordinate 95 is Cv at 10 V (F7).
                k_scale: cv * 10.0 / 95.0,
                delta: self.delta,
            },
            tau: self.tau,
            friction: BrownMcPhee {
                fc: self.Fc,
                fs: self.Fs,
                vs: self.vs,
                sigma: self.sigma,
            },
            p2_0: self.p2_0,
            s0: self.s0,
        })
    }
}
