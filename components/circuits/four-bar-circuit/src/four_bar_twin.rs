//! FourBarTwin: the FourBar circuit as the estimation model of a digital
//! twin. The equations are FourBar's (M1-M7, F1-F8 of the four-bar's
//! `MODEL.md`, evaluated by `crate::coupled`); what an estimator
//! wants to learn is an input instead of a parameter, so that the FMU's
//! directional derivatives with respect to it are standard FMI:
//!
//! - `kp`, `k0`: the bulk modulus β(p) = kp + k0 p (F3);
//! - `N1` .. `N4`: the interior control points of the valve curve (F7), one
//!   curve for all four edges, `points` control points equally spaced over
//!   0 .. `U_max` with the ends fixed at 0 and `N_max` (the catalogue's
//!   closed and fully open values). With `points` = 3 only `N1` is used,
//!   with 4 `N1`, `N2`, and so on.

use crate::coupled::FourBarStates;
use crate::{
    Actuator, BulkParams, HydraulicParams, HydraulicStates, Linkage, LinkageParams, coupled,
};
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Context, Known, Model, Record};
use hydraulics::BSplineCurve;

/// Most interior control points (inputs `N1` .. `N4`).
pub const MAX_INTERIOR: usize = 4;

fmu_core::circuit! {
    model FourBarTwin {
        description: "FourBar as an estimation model: the bulk-modulus coefficients and the valve \
                      curve's interior control points are inputs, for augmented-state estimators",
        documentation: concat!(
            include_str!("../MODEL.md"),
            "\n## Schematic of FourBarTwin\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). FourBarTwin is this circuit. The planar four-bar linkage has no ISO 1219-1 symbol: it is the labelled box the cylinder rod drives.\n\n",
            include_str!("../schematic-FourBar.svg")
        ),
        stop_time: 10.0,
        step_size: 1e-3,
    }
    states {
        /// θ, θ', the hydraulics (pp, p1, p2, U), W_h, W_f
        layout FourBarStates;
    }
    inputs Inputs {
        /// Valve command (spool signal set point)
        U_ref: ["V"] = 0.0, min -10.0, max 10.0;
        /// Bulk modulus at zero pressure, beta = kp + k0 p
        kp: ["Pa" => "MPa"] = 1.6e9;
        /// Pressure slope of the bulk modulus, dimensionless
        k0: ["1"] = 0.5;
        /// Valve curve: gain of interior control point 1 (at U_max / (points - 1)), 95 = Cv at 10 V
        N1: ["1"] = 19.0;
        /// Valve curve: gain of interior control point 2 (used when points >= 4)
        N2: ["1"] = 38.0;
        /// Valve curve: gain of interior control point 3 (used when points >= 5)
        N3: ["1"] = 57.0;
        /// Valve curve: gain of interior control point 4 (used when points = 6)
        N4: ["1"] = 76.0;
    }
    outputs Outputs {
        /// Crank angle θ from the +x axis
        theta: ["rad" => "deg"] = x[FourBarStates::theta];
        /// Crank angular velocity
        omega: ["rad/s" => "deg/s"] = x[FourBarStates::omega];
        /// Cylinder pin-to-pin length
        s: ["m"];
        /// Cylinder extension rate
        s_dot: ["m/s" => "mm/s"];
        /// Pump-line pressure
        pp: ["Pa" => "MPa"] = x[FourBarStates::hyd.index(HydraulicStates::pp)];
        /// Piston-side pressure
        p1: ["Pa" => "MPa"] = x[FourBarStates::hyd.index(HydraulicStates::p1)];
        /// Rod-side pressure
        p2: ["Pa" => "MPa"] = x[FourBarStates::hyd.index(HydraulicStates::p2)];
        /// Spool signal
        U: ["V"] = x[FourBarStates::hyd.index(HydraulicStates::U)];
        /// Valve flow into the piston side (P->A minus A->T)
        Qd1: ["m3/s" => "L/min"];
        /// Relief-valve flow
        Q_R: ["m3/s" => "L/min"];
        /// Cylinder force on the linkage, p1 A1 - p2 A2 - F_mu
        F_h: ["N" => "kN"];
        /// Loop-closure residual |Phi|
        loop_residual: ["m"];
    }
    parameters Params {
        /// Control points of the valve curve, ends included, equally spaced over 0 .. U_max
        points: int = 6, min 3, max 6;
        /// Degree of the B-spline valve curve
        degree: int = 3, min 1, max 3;
        /// Spool signal of the last control point (the curve is held beyond it)
        U_max: real ["V"] = 10.0, above 0.0;
        /// Gain of the last control point (catalogue value; 95 = Cv at 10 V)
        N_max: real ["1"] = 95.0, above 0.0;
    }
    groups {
        /// The linkage
        linkage: LinkageParams,
        /// The hydraulics
        hydraulics: HydraulicParams,
    }
}

/// The FourBarTwin circuit.
#[derive(Debug, Clone, PartialEq)]
pub struct FourBarTwin {
    linkage: Linkage,
    /// The hydraulics with the start values of the inputs; each evaluation
    /// puts in the inputs' bulk modulus and curve.
    actuator: Actuator,
    /// The curve's abscissae (its ordinates come from the inputs).
    curve: BSplineCurve,
    points: usize,
    n_max: f64,
}

impl FourBarTwin {
    /// The hydraulics with the bulk modulus and valve curve of inputs `u`;
    /// an error for a curve that cannot be built.
    fn actuator(&self, u: &Inputs) -> Result<Actuator, String> {
        let mut y = [0.0; MAX_INTERIOR + 2];
        let interior = [u.N1, u.N2, u.N3, u.N4];
        let n = self.points;
        y[1..n - 1].copy_from_slice(&interior[..n - 2]);
        y[n - 1] = self.n_max;
        let curve = self.curve.with_ordinates(&y[..n])?;
        let mut a = self.actuator;
        a.kp = u.kp;
        a.k0 = u.k0;
        a.valve.curves = [curve; 4];
        Ok(a)
    }

    fn evaluate(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        jac: Option<&mut SMatrix<f64, NX, NX>>,
    ) -> SVector<f64, NX> {
        match self.actuator(u) {
            Ok(a) => coupled::rates(&self.linkage, &a, u.U_ref, x, jac),
            Err(_) => SVector::repeat(f64::NAN),
        }
    }
}

impl Model<NX> for FourBarTwin {
    fn configure(p: &Params, _context: &Context) -> Result<Self, String> {
        let linkage = p.linkage.linkage(p.hydraulics.s0)?;
        let points = p.points as usize;
        let step = p.U_max / (points - 1) as f64;
        let u: Vec<f64> = (0..points).map(|i| i as f64 * step).collect();
        let y: Vec<f64> = (0..points)
            .map(|i| i as f64 * p.N_max / (points - 1) as f64)
            .collect();
        let curve = BSplineCurve::new(&u, &y, p.degree as usize)
            .map_err(|e| format!("valve curve: {e}"))?;
        let actuator = p.hydraulics.actuator(&BulkParams::defaults(), [curve; 4])?;
        Ok(FourBarTwin {
            linkage,
            actuator,
            curve,
            points,
            n_max: p.N_max,
        })
    }

    fn derived(&self) -> Vec<fmu_core::Derived> {
        self.actuator.derived()
    }

    /// The valve's switch at the spool centre.
    fn event_indicators() -> Vec<fmu_core::EventIndicator> {
        Actuator::EVENT_INDICATORS.to_vec()
    }

    fn event_indicator_values(&self, _u: &Inputs, x: &SVector<f64, NX>, z: &mut [f64]) {
        self.actuator
            .event_indicator_values(&FourBarStates::hyd.read(x), z);
    }

    /// At rest at s = s0, as FourBar (MODEL.md, start).
    fn initial_state(&self, u: &Inputs) -> SVector<f64, NX> {
        let actuator = self.actuator(u).unwrap_or(self.actuator);
        coupled::initial_state(&self.linkage, &actuator)
    }

    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        self.evaluate(u, x, None)
    }

    /// The rates and the analytic Jacobian from one evaluation.
    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        (self.evaluate(u, x, Some(j)), true)
    }

    /// The rates' derivatives with respect to the inputs: U_ref through
    /// the spool (F5), kp and k0 through the bulk modulus (F3), and each
    /// interior control point through the valve's gain at the present
    /// opening times that point's B-spline weight (F7).
    fn rate_input_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        columns: &mut [SVector<f64, NX>],
    ) -> bool {
        let (Ok(a), Ok(l)) = (
            self.actuator(u),
            self.linkage
                .eval(x[FourBarStates::theta], x[FourBarStates::omega]),
        ) else {
            return false;
        };
        let h = FourBarStates::hyd.read(x);
        let rates = a.eval(u.U_ref, &h, l.s, l.s_dot).rates;
        let hyd = |c: &mut SVector<f64, NX>, v: &crate::HydraulicState| {
            FourBarStates::hyd.write(c, v);
        };
        columns.iter_mut().for_each(|c| c.fill(0.0));
        columns[input::U_ref][FourBarStates::hyd.index(HydraulicStates::U)] = 1.0 / a.tau;
        let [kp, k0] = a.rates_per_bulk(&h, &rates);
        hyd(&mut columns[input::kp], &kp);
        hyd(&mut columns[input::k0], &k0);
        let per_gain = a.rates_per_gain(&h, l.s);
        let mut w = [0.0; MAX_INTERIOR + 2];
        self.curve
            .weights(h[HydraulicStates::U].abs(), &mut w[..self.points]);
        let interior = [input::N1, input::N2, input::N3, input::N4];
        for (j, &i) in interior.iter().enumerate().take(self.points - 2) {
            hyd(&mut columns[i], &(per_gain * w[j + 1]));
        }
        true
    }

    /// The cylinder's length and rate depend on the crank angle and rate
    /// only (M4, M6): their derivatives, analytic; the others by
    /// differences.
    fn output_partial(
        &self,
        _u: &Inputs,
        x: &SVector<f64, NX>,
        output: usize,
        wrt: Known,
    ) -> Option<f64> {
        if output != output::s && output != output::s_dot {
            return None;
        }
        let (theta, omega) = (x[FourBarStates::theta], x[FourBarStates::omega]);
        match wrt {
            Known::State(c) if c == FourBarStates::theta => {
                let (l, d) = self.linkage.dynamics_with_derivatives(theta, omega).ok()?;
                Some(if output == output::s {
                    l.ds
                } else {
                    d.dds * omega
                })
            }
            Known::State(c) if c == FourBarStates::omega => {
                if output == output::s {
                    Some(0.0)
                } else {
                    Some(self.linkage.dynamics(theta, omega).ok()?.ds)
                }
            }
            _ => Some(0.0),
        }
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        // The rates' dynamics (interpolated), the coordinates assembled.
        let (theta, omega) = (x[FourBarStates::theta], x[FourBarStates::omega]);
        let (Ok(q), Ok(l), Ok(a)) = (
            self.linkage.assemble(theta),
            self.linkage.dynamics(theta, omega),
            self.actuator(u),
        ) else {
            out.loop_residual = f64::NAN;
            return;
        };
        let e = a.eval(u.U_ref, &FourBarStates::hyd.read(x), l.s, l.s_dot);
        out.s = l.s;
        out.s_dot = l.s_dot;
        out.Qd1 = e.flows.pa.q - e.flows.at.q;
        out.Q_R = e.q_relief;
        out.F_h = e.force;
        out.loop_residual = self.linkage.residual(&q);
    }
}

#[cfg(test)]
mod tests;
