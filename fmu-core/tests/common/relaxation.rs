//! `Relaxation`: a physics-free test model for fmu-core's FMI-call tests.
//! Two first-order lags in series, `y1' = k (u - y1)` (stiff for large k)
//! and `y2' = slow (y1 - y2)`, with every kind of variable a circuit has:
//! inputs, outputs that show states or depend directly on inputs, fixed,
//! tunable and structural parameters, Booleans and integers, and two ways to
//! compute the fast rate (the equation, or a gain read from the FMU's
//! resource folder), with and without an analytic Jacobian.

use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Context, Known, Model};

fmu_core::circuit! {
    model Relaxation {
        description: "Two first-order lags in series: the test model of fmu-core",
        documentation: "# Relaxation\n\nTwo first-order lags in series.\n",
        stop_time: 10.0,
        step_size: 1e-3,
    }
    states {
        /// The fast lag's output
        y1: nominal 1.0;
        /// The slow lag's output
        y2: nominal 1.0;
    }
    inputs Inputs {
        /// Target the fast lag relaxes to
        u: ["1"] = 1.0, min -1e3, max 1e3;
        /// An input that only the output `total` sees
        w: ["1"] = 0.0;
    }
    outputs Outputs {
        /// The fast lag's output
        y1: ["1"] = x[state::y1];
        /// The slow lag's output
        y2: ["1"] = x[state::y2];
        /// Rate of the fast lag, k (u - y1)
        dy1: ["1/s"], depends(u);
        /// u + w + y2
        total: ["1"], depends(u, w);
    }
    parameters Params {
        /// Rate constant of the fast lag
        k: real ["1/s"] = 1e3, above 0.0;
        /// Rate constant of the slow lag
        slow: real tunable ["1/s"] = 1.0, above 0.0;
        /// Initial value of y1
        y1_0: real ["1"] = 0.0;
        /// Initial value of y2
        y2_0: real ["1"] = 0.0;
        /// |y1| beyond which the rates are undefined (NaN): forces solver
        /// failures
        limit: real ["1"] = 1e6, above 0.0;
        /// Lags in use (structural): 1 leaves y2 inactive
        stages: int structural = 2, min 1, max 2;
        /// Provide the analytic Jacobian (false: finite differences)
        analytic: bool = true;
        /// How the fast rate is computed: 1 = the equation, 2 = with a gain
        /// read from the resource file gain.txt
        law: int = 1, min 1, max 2;
    }
}

/// The test model with its coefficients.
#[derive(Debug, Clone, PartialEq)]
pub struct Relaxation {
    k: f64,
    slow: f64,
    initial: [f64; 2],
    limit: f64,
    stages: usize,
    analytic: bool,
}

impl Model<NX> for Relaxation {
    fn configure(p: &Params, context: &Context) -> Result<Self, String> {
        let gain = if p.law == 2 {
            let text = context.read_resource("gain.txt")?;
            let text = String::from_utf8_lossy(&text);
            text.trim()
                .parse::<f64>()
                .map_err(|e| format!("gain.txt: '{}' is not a number ({e})", text.trim()))?
        } else {
            1.0
        };
        if p.y1_0.abs() > p.limit {
            return Err(format!(
                "|y1_0| = {} exceeds limit = {}",
                p.y1_0.abs(),
                p.limit
            ));
        }
        Ok(Relaxation {
            k: p.k * gain,
            slow: p.slow,
            initial: [p.y1_0, if p.stages == 2 { p.y2_0 } else { 0.0 }],
            limit: p.limit,
            stages: p.stages as usize,
            analytic: p.analytic,
        })
    }

    fn initial_state(&self, _u: &Inputs) -> SVector<f64, NX> {
        SVector::from(self.initial)
    }

    fn rates(&self, u: &Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        if x[state::y1].abs() > self.limit {
            return SVector::repeat(f64::NAN);
        }
        let mut dx = SVector::zeros();
        dx[state::y1] = self.k * (u.u - x[state::y1]);
        if self.stages == 2 {
            dx[state::y2] = self.slow * (x[state::y1] - x[state::y2]);
        }
        dx
    }

    fn rates_and_jacobian(
        &self,
        u: &Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        if !self.analytic {
            return (self.rates(u, x), false);
        }
        j.fill(0.0);
        j[(state::y1, state::y1)] = -self.k;
        if self.stages == 2 {
            j[(state::y2, state::y1)] = self.slow;
            j[(state::y2, state::y2)] = -self.slow;
        }
        (self.rates(u, x), true)
    }

    fn outputs(&self, u: &Inputs, x: &SVector<f64, NX>, out: &mut Outputs) {
        out.dy1 = self.k * (u.u - x[state::y1]);
        out.total = u.u + u.w + x[state::y2];
    }

    fn event_indicators() -> Vec<fmu_core::EventIndicator> {
        vec![fmu_core::EventIndicator {
            name: "y1_reaches_u",
            description: "u - y1: zero where the fast lag reaches its input",
            offset: 0.0,
        }]
    }

    fn event_indicator_values(&self, u: &Inputs, x: &SVector<f64, NX>, z: &mut [f64]) {
        z[0] = u.u - x[state::y1];
    }

    fn active_states(&self) -> usize {
        self.stages
    }

    /// Analytic for dy1; `total` is left to finite differences.
    fn output_partial(
        &self,
        _u: &Inputs,
        _x: &SVector<f64, NX>,
        of: usize,
        wrt: Known,
    ) -> Option<f64> {
        match (of, wrt) {
            (output::dy1, Known::Input(input::u)) => Some(self.k),
            (output::dy1, Known::State(state::y1)) => Some(-self.k),
            (output::dy1, _) => Some(0.0),
            _ => None,
        }
    }
}

fmu_core::export_fmu!(Relaxation);
