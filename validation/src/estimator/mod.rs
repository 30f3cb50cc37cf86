//! A state and parameter estimator for any FMI 3.0 Model Exchange FMU,
//! driven through the FMU's C API alone: the augmented discrete extended
//! Kalman filter of Khadim et al. (2021), the four-bar's paper
//! (docs/digital-twin.md).
//!
//! The augmented state is the FMU's continuous states named in the
//! configuration followed by the parameters to learn, which the FMU exposes
//! as inputs (so that their derivatives are standard FMI directional
//! derivatives). Every sample period:
//!
//! 1. prediction: the FMU is integrated over the period with fmu-core's
//!    Rodas3 (the FMU's derivatives for the rates, its directional
//!    derivatives for the Jacobian), with the known inputs held and the
//!    parameters at their estimates; the parameters stay (random walk);
//! 2. the transition Jacobian is `F = exp(A T)` of the augmented Jacobian
//!    `A = [[df/dx, df/dp], [0, 0]]` from directional derivatives at the
//!    start of the period (exact for the linearized system, stiff or not);
//! 3. `P- = F P+ F^T + Q`, then the measurement update in Joseph form with
//!    `h(x)` the FMU's outputs and `H` their directional derivatives.
//!
//! States of the FMU that are not estimated are carried along by the
//! integration and never corrected. The filter stops with a message when it
//! diverges ([`kalman::FilterError`]).
//!
//! Here too: the filter itself ([`kalman`], also on a linear system given
//! in a file: the `kalman-linear` tool) and the pieces of the estimation
//! experiment of the paper ([`experiment`]: the `estimator-experiment`
//! tool). The tools `estimate`, `estimator-experiment` and `kalman-linear`
//! are in `bin/`.

pub mod experiment;
pub mod kalman;

use crate::estimator::kalman::Ekf;
use crate::fmi::fmu3::{Fmu3, Instance};
use anyhow::{Context, Result, anyhow, bail};
use fmu_core::nalgebra::{DMatrix, DVector, SMatrix, SVector};
use fmu_core::solver::{Carried, OdeSystem, SolverSettings, Stats};
use serde::Deserialize;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;

/// One estimated state of the FMU.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateSpec {
    /// The state's name (an output that shows it, or `state_<name>`).
    pub name: String,
    /// Initial standard deviation, SI unit of the state.
    pub sigma0: f64,
    /// Plant-noise variance added per sample period, SI unit squared.
    #[serde(default)]
    pub q: f64,
}

/// A parameter to learn: an input of the FMU.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParameterSpec {
    /// The FMU input that carries it.
    pub input: String,
    /// The filter's starting value, SI.
    pub start: f64,
    /// Initial standard deviation, SI.
    pub sigma0: f64,
    /// Random-walk variance per sample period, SI squared.
    #[serde(default)]
    pub q: f64,
}

/// A measured output.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasurementSpec {
    /// The FMU output measured (and the column of the measurement file).
    pub output: String,
    /// Standard deviation of the measurement noise, SI.
    pub sigma: f64,
}

/// White-noise acceleration on a position-velocity pair of states (the
/// kinematic block of the plant noise): `Q += σ² [[T⁴/4, T³/2], [T³/2, T²]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WhiteAcceleration {
    /// The position state.
    pub position: String,
    /// The velocity state.
    pub velocity: String,
    /// Acceleration variance σ², SI (m²/s⁴ or rad²/s⁴).
    pub variance: f64,
}

/// Learned parameters that must stay in order between two bounds: a
/// curve's control points, whose B-spline is then non-negative and
/// non-decreasing everywhere (a B-spline lies within the range of its
/// control points, and its slope is a B-spline of their differences).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Monotone {
    /// The parameters (names in `augment`), in the order they must keep.
    pub inputs: Vec<String>,
    /// The value none may go below.
    pub lower: f64,
    /// The value none may go above.
    pub upper: f64,
}

/// The estimator's configuration file (JSON).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Free text for people (ignored).
    #[serde(default)]
    pub note: Vec<String>,
    /// Parameters of the FMU set before initialization (its start values
    /// otherwise), SI.
    #[serde(default)]
    pub parameters: BTreeMap<String, f64>,
    /// Known inputs, read from the measurement file's columns of the same
    /// name and held over each sample period.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// The states to estimate.
    pub states: Vec<StateSpec>,
    /// Kinematic plant noise.
    #[serde(default)]
    pub white_acceleration: Option<WhiteAcceleration>,
    /// The parameters to learn.
    #[serde(default)]
    pub augment: Vec<ParameterSpec>,
    /// The measured outputs.
    pub measurements: Vec<MeasurementSpec>,
    /// Sample period, s.
    pub sample_period: f64,
    /// Relative tolerance of the prediction's integration.
    #[serde(default = "default_rtol")]
    pub rtol: f64,
    /// Largest normalized innovation squared accepted (the chi-square
    /// bound); absent: no bound.
    #[serde(default)]
    pub nis_bound: Option<f64>,
    /// Parameters kept in order between bounds: after every measurement
    /// update the estimate is moved to the nearest one where they are in
    /// order ([`project_ordered`]); absent: none.
    #[serde(default)]
    pub monotone: Option<Monotone>,
}

fn default_rtol() -> f64 {
    1e-6
}

impl Config {
    /// Reads and checks a configuration file.
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the estimator configuration {}", path.display()))?;
        let config: Config = serde_json::from_str(&text)
            .with_context(|| format!("parsing the estimator configuration {}", path.display()))?;
        config.check()?;
        Ok(config)
    }

    /// Plausibility of the numbers.
    pub fn check(&self) -> Result<()> {
        if !(self.sample_period > 0.0 && self.sample_period.is_finite()) {
            bail!("sample_period must be positive, not {}", self.sample_period);
        }
        if !(self.rtol > 0.0 && self.rtol < 1.0) {
            bail!("rtol must lie in (0, 1), not {}", self.rtol);
        }
        if self.states.is_empty() || self.measurements.is_empty() {
            bail!("the configuration needs at least one state and one measurement");
        }
        for s in &self.states {
            if !(s.sigma0 > 0.0 && s.q >= 0.0) {
                bail!(
                    "state '{}': sigma0 must be positive and q not negative",
                    s.name
                );
            }
        }
        for p in &self.augment {
            if !(p.sigma0 > 0.0 && p.q >= 0.0 && p.start.is_finite()) {
                bail!(
                    "parameter '{}': start must be finite, sigma0 positive, q not negative",
                    p.input
                );
            }
        }
        for m in &self.measurements {
            if m.sigma.is_nan() || m.sigma <= 0.0 {
                bail!("measurement '{}': sigma must be positive", m.output);
            }
        }
        if let Some(m) = &self.monotone {
            if !(m.lower.is_finite() && m.upper.is_finite() && m.lower < m.upper) {
                bail!(
                    "monotone: lower ({}) must lie below upper ({}), both finite",
                    m.lower,
                    m.upper
                );
            }
            for name in &m.inputs {
                if !self.augment.iter().any(|p| &p.input == name) {
                    bail!(
                        "monotone: '{name}' is not a learned parameter (the 'augment' list has {})",
                        self.augment
                            .iter()
                            .map(|p| p.input.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                }
            }
        }
        Ok(())
    }

    /// Names of the augmented state's entries: the states, then the
    /// parameters.
    pub fn names(&self) -> Vec<String> {
        self.states
            .iter()
            .map(|s| s.name.clone())
            .chain(self.augment.iter().map(|p| p.input.clone()))
            .collect()
    }
}

/// Moves the estimate `x` (covariance `p`) to the nearest point, in the
/// metric of `p`'s inverse, where the entries at `at` do not decrease and
/// lie in `[lower, upper]`: estimate projection onto inequality
/// constraints (Simon and Chia, 2002). The violated constraints are held
/// as equalities, `x - P Dᵀ (D P Dᵀ)⁻¹ (D x - d)`, which moves every entry
/// correlated with them (the other control points, the states) as the
/// filter's covariance says, adding any constraint the step violates in
/// turn; [`project_monotone`] then removes what rounding leaves (and is
/// the whole projection should `D P Dᵀ` be singular). The covariance stays
/// as the update left it.
pub fn project_ordered(
    x: &mut DVector<f64>,
    p: &DMatrix<f64>,
    at: &[usize],
    lower: f64,
    upper: f64,
) {
    let n = at.len();
    if n == 0 {
        return;
    }
    // Constraint k as (row entries, right-hand side) of `a x <= b`:
    // 0: lower bound of the first, 1..n-1: order, n: upper bound of the last.
    let constraint = |k: usize| -> (Vec<(usize, f64)>, f64) {
        match k {
            0 => (vec![(at[0], -1.0)], -lower),
            k if k < n => (vec![(at[k - 1], 1.0), (at[k], -1.0)], 0.0),
            _ => (vec![(at[n - 1], 1.0)], upper),
        }
    };
    let violated = |x: &DVector<f64>, k: usize| {
        let (row, b) = constraint(k);
        row.iter().map(|&(i, a)| a * x[i]).sum::<f64>() > b
    };
    let mut active: Vec<usize> = (0..=n).filter(|&k| violated(x, k)).collect();
    let original = x.clone();
    while !active.is_empty() {
        let m = active.len();
        let mut d = DMatrix::zeros(m, x.len());
        let mut excess = DVector::zeros(m);
        for (r, &k) in active.iter().enumerate() {
            let (row, b) = constraint(k);
            for &(i, a) in &row {
                d[(r, i)] = a;
            }
            excess[r] = row.iter().map(|&(i, a)| a * original[i]).sum::<f64>() - b;
        }
        let pd = p * d.transpose();
        let Some(lambda) = (&d * &pd).lu().solve(&excess) else {
            x.copy_from(&original);
            break;
        };
        let projected = &original - pd * lambda;
        x.copy_from(&projected);
        let more: Vec<usize> = (0..=n)
            .filter(|k| !active.contains(k) && violated(x, *k))
            .collect();
        if more.is_empty() {
            break;
        }
        active.extend(more);
    }
    let mut values: Vec<f64> = at.iter().map(|&i| x[i]).collect();
    project_monotone(&mut values, lower, upper);
    for (&i, v) in at.iter().zip(values) {
        x[i] = v;
    }
}

/// Replaces `values` by the nearest sequence (least squares, every entry
/// weighted alike) that does not decrease and lies in `[lower, upper]`:
/// pool-adjacent-violators, then each value clamped to the bounds (which
/// keeps the order, and is the projection onto the bounded set).
pub fn project_monotone(values: &mut [f64], lower: f64, upper: f64) {
    // Blocks of pooled values: (mean, count).
    let mut blocks: Vec<(f64, usize)> = Vec::with_capacity(values.len());
    for &v in values.iter() {
        blocks.push((v, 1));
        while blocks.len() > 1 && blocks[blocks.len() - 2].0 > blocks[blocks.len() - 1].0 {
            let (m2, n2) = blocks.pop().expect("two blocks");
            let (m1, n1) = blocks.pop().expect("two blocks");
            let n = n1 + n2;
            blocks.push(((m1 * n1 as f64 + m2 * n2 as f64) / n as f64, n));
        }
    }
    let mut k = 0;
    for (mean, n) in blocks {
        for v in &mut values[k..k + n] {
            *v = mean.clamp(lower, upper);
        }
        k += n;
    }
}

/// The estimate after one sample.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Time, s.
    pub t: f64,
    /// The augmented state estimate after the update.
    pub x: Vec<f64>,
    /// Its standard deviations.
    pub sigma: Vec<f64>,
    /// The measured outputs as the updated estimate gives them
    /// (linearized: `h(x-) + H (x+ - x-)`).
    pub y: Vec<f64>,
    /// Their standard deviations, `sqrt(diag(H P+ H^T))`.
    pub y_sigma: Vec<f64>,
    /// Normalized innovation squared of the update.
    pub nis: f64,
}

/// The estimator on one FMU instance.
pub struct Estimator<'a> {
    config: Config,
    instance: Instance<'a>,
    /// Every continuous state of the FMU (estimated or carried).
    x: Vec<f64>,
    /// Positions of the estimated states in `x`.
    estimated: Vec<usize>,
    /// Value references: the estimated states, the parameters' inputs
    /// (the knowns of the Jacobians), the derivatives of the estimated
    /// states, the measured outputs, the known inputs.
    knowns: Vec<u32>,
    derivatives: Vec<u32>,
    all_derivatives: Vec<u32>,
    outputs: Vec<u32>,
    inputs: Vec<u32>,
    state_vrs: Vec<u32>,
    nominal: Vec<f64>,
    ekf: Ekf,
    q: DMatrix<f64>,
    r: DMatrix<f64>,
    settings: SolverSettings,
    /// The integrator's substep carried from one period to the next.
    substep: f64,
    /// Integrator work over the run.
    pub stats: Stats,
    t: f64,
    started: bool,
    /// The positions in the augmented state of the parameters kept in
    /// order ([`Config::monotone`]), and their bounds.
    monotone: Option<(Vec<usize>, f64, f64)>,
}

/// Largest FMU state count the estimator integrates.
pub const MAX_STATES: usize = 16;

impl<'a> Estimator<'a> {
    /// An estimator on a new Model Exchange instance of `fmu`, initialized
    /// with the configuration's parameters and parameter start values, for
    /// samples up to `stop_time` (s).
    pub fn new(fmu: &'a Fmu3, config: Config, stop_time: f64) -> Result<Self> {
        config.check()?;
        let desc = &fmu.description;
        let pairs = desc.continuous_states();
        let n_fmu = pairs.len();
        if n_fmu == 0 || n_fmu > MAX_STATES {
            bail!(
                "the FMU has {n_fmu} continuous states; the estimator integrates 1 to {MAX_STATES}"
            );
        }
        let state_vrs: Vec<u32> = pairs.iter().map(|&(s, _)| s).collect();
        let all_derivatives: Vec<u32> = pairs.iter().map(|&(_, d)| d).collect();
        let mut estimated = Vec::new();
        for s in &config.states {
            let vr = fmu.vr(&s.name)?;
            let i = state_vrs
                .iter()
                .position(|&v| v == vr)
                .ok_or_else(|| anyhow!("'{}' is not a continuous state of the FMU", s.name))?;
            if estimated.contains(&i) {
                bail!("state '{}' is named twice", s.name);
            }
            estimated.push(i);
        }
        let mut knowns: Vec<u32> = estimated.iter().map(|&i| state_vrs[i]).collect();
        let derivatives: Vec<u32> = estimated.iter().map(|&i| all_derivatives[i]).collect();
        for p in &config.augment {
            let vr = fmu.vr(&p.input)?;
            let v = desc
                .variable_by_name(&p.input)
                .ok_or_else(|| anyhow!("no variable '{}'", p.input))?;
            if v.causality != model_description::Causality::Input {
                bail!(
                    "'{}' is not an input of the FMU: a parameter to learn must be an input",
                    p.input
                );
            }
            knowns.push(vr);
        }
        let outputs = config
            .measurements
            .iter()
            .map(|m| fmu.vr(&m.output))
            .collect::<Result<Vec<_>>>()?;
        let inputs = config
            .inputs
            .iter()
            .map(|n| fmu.vr(n))
            .collect::<Result<Vec<_>>>()?;

        let mut instance = fmu.instantiate_model_exchange("estimator")?;
        let parameters: Vec<(String, f64)> = config
            .parameters
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        instance.set_parameters(&parameters)?;
        for p in &config.augment {
            instance.set(&p.input, p.start)?;
        }
        instance.initialize_model_exchange(stop_time)?;
        let mut x = vec![0.0; n_fmu];
        instance.states(&mut x)?;
        let mut nominal = vec![1.0; n_fmu];
        instance.nominals(&mut nominal)?;

        let n = knowns.len();
        let ns = estimated.len();
        let x0 = DVector::from_iterator(
            n,
            estimated
                .iter()
                .map(|&i| x[i])
                .chain(config.augment.iter().map(|p| p.start)),
        );
        let sigma0: Vec<f64> = config
            .states
            .iter()
            .map(|s| s.sigma0)
            .chain(config.augment.iter().map(|p| p.sigma0))
            .collect();
        let p0 = DMatrix::from_diagonal(&DVector::from_iterator(n, sigma0.iter().map(|s| s * s)));
        let mut q = DMatrix::from_diagonal(&DVector::from_iterator(
            n,
            config
                .states
                .iter()
                .map(|s| s.q)
                .chain(config.augment.iter().map(|p| p.q)),
        ));
        if let Some(w) = &config.white_acceleration {
            let find = |name: &str| {
                config
                    .states
                    .iter()
                    .position(|s| s.name == name)
                    .ok_or_else(|| {
                        anyhow!(
                            "white_acceleration names '{name}', which is not an estimated state"
                        )
                    })
            };
            let (a, b) = (find(&w.position)?, find(&w.velocity)?);
            let t = config.sample_period;
            q[(a, a)] += w.variance * t.powi(4) / 4.0;
            q[(a, b)] += w.variance * t.powi(3) / 2.0;
            q[(b, a)] += w.variance * t.powi(3) / 2.0;
            q[(b, b)] += w.variance * t * t;
        }
        debug_assert_eq!(ns, config.states.len());
        let r = DMatrix::from_diagonal(&DVector::from_iterator(
            config.measurements.len(),
            config.measurements.iter().map(|m| m.sigma * m.sigma),
        ));
        let mut ekf = Ekf::new(x0, p0)?;
        if let Some(b) = config.nis_bound {
            ekf.nis_bound = b;
        }
        let settings = SolverSettings {
            rtol: config.rtol,
            atol: config.rtol,
            ..SolverSettings::default()
        };
        let ns = config.states.len();
        let monotone = config.monotone.as_ref().map(|m| {
            let at = m
                .inputs
                .iter()
                .map(|name| {
                    ns + config
                        .augment
                        .iter()
                        .position(|p| &p.input == name)
                        .expect("checked by Config::check")
                })
                .collect();
            (at, m.lower, m.upper)
        });
        let mut estimator = Estimator {
            config,
            instance,
            x,
            estimated,
            knowns,
            derivatives,
            all_derivatives,
            outputs,
            inputs,
            state_vrs,
            nominal,
            ekf,
            q,
            r,
            settings,
            substep: 0.0,
            stats: Stats::default(),
            t: 0.0,
            started: false,
            monotone,
        };
        estimator.keep_in_order();
        Ok(estimator)
    }

    /// Projects the ordered parameters' estimate onto their admissible
    /// set ([`project_ordered`]).
    fn keep_in_order(&mut self) {
        if let Some((at, lower, upper)) = &self.monotone {
            project_ordered(&mut self.ekf.x, &self.ekf.p, at, *lower, *upper);
        }
    }

    /// The configuration in use.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The filter (estimate and covariance).
    pub fn filter(&self) -> &Ekf {
        &self.ekf
    }

    /// One sample: `inputs` (the known inputs over the coming period, one
    /// per configured input) and `z` (the measurements at time `t`). The
    /// first call only updates; each later one first predicts from the
    /// previous sample's time to `t` with the previous sample's inputs.
    pub fn sample(&mut self, t: f64, inputs: &[f64], z: &[f64]) -> Result<Sample> {
        if inputs.len() != self.inputs.len() || z.len() != self.outputs.len() {
            bail!(
                "{} inputs and {} measurements given, the configuration has {} and {}",
                inputs.len(),
                z.len(),
                self.inputs.len(),
                self.outputs.len()
            );
        }
        if self.started {
            let h = t - self.t;
            if h.is_nan() || h <= 0.0 {
                bail!("time must increase: {t} s after {} s", self.t);
            }
            self.predict(h)
                .with_context(|| format!("prediction from t = {} s to {t} s", self.t))?;
        }
        self.started = true;
        self.t = t;
        // The inputs of the coming period (held; they do not move the
        // present state).
        self.instance.set_vrs(&self.inputs, inputs)?;
        self.update(t, z)
            .with_context(|| format!("measurement update at t = {t} s"))
    }

    /// Puts the estimate into the FMU: the estimated states into the state
    /// vector, the parameters into their inputs.
    fn load(&mut self) -> Result<()> {
        let ns = self.estimated.len();
        for (k, &i) in self.estimated.iter().enumerate() {
            self.x[i] = self.ekf.x[k];
        }
        let parameters: Vec<f64> = self.ekf.x.iter().skip(ns).copied().collect();
        self.instance.set_vrs(&self.knowns[ns..], &parameters)?;
        self.instance.set_states(&self.x)
    }

    /// Columns of the derivatives of `unknowns` with respect to the knowns
    /// (estimated states, then parameters), one directional derivative each.
    fn jacobian(&self, unknowns: &[u32]) -> Result<DMatrix<f64>> {
        let m = unknowns.len();
        let mut a = DMatrix::zeros(m, self.knowns.len());
        // Column-major: column j is one contiguous run.
        for (column, known) in a.as_mut_slice().chunks_exact_mut(m).zip(&self.knowns) {
            self.instance.directional_derivative(
                unknowns,
                std::slice::from_ref(known),
                &[1.0],
                column,
            )?;
        }
        Ok(a)
    }

    fn predict(&mut self, h: f64) -> Result<()> {
        self.load()?;
        self.instance.set_time(self.t)?;
        let n = self.knowns.len();
        let ns = self.estimated.len();
        // Augmented Jacobian at the start of the period; the parameters'
        // rows are zero (random walk).
        let mut a = DMatrix::zeros(n, n);
        let rows = self.jacobian(&self.derivatives)?;
        a.rows_mut(0, ns).copy_from(&rows);
        let f = transition(&(a * h))?;
        self.integrate(h)?;
        let x_next = DVector::from_iterator(
            n,
            self.estimated
                .iter()
                .map(|&i| self.x[i])
                .chain(self.ekf.x.iter().skip(ns).copied()),
        );
        self.ekf.predict(x_next, &f, &self.q)?;
        Ok(())
    }

    fn integrate(&mut self, h: f64) -> Result<()> {
        macro_rules! sizes {
            ($($n:literal)*) => {
                match self.x.len() {
                    $($n => self.integrate_n::<$n>(h),)*
                    n => bail!("{n} continuous states: the estimator integrates 1 to {MAX_STATES}"),
                }
            };
        }
        sizes!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    }

    fn integrate_n<const N: usize>(&mut self, h: f64) -> Result<()> {
        let mut x = SVector::<f64, N>::from_column_slice(&self.x);
        let system = FmuOde::<N> {
            instance: RefCell::new(&mut self.instance),
            states: &self.state_vrs,
            derivatives: &self.all_derivatives,
            nominal: SVector::from_column_slice(&self.nominal),
            error: RefCell::new(None),
        };
        let mut carried = Carried::<N>::with_step(self.substep);
        crate::harness::me_stepper::rodas3_step(
            &system,
            &system.error,
            &mut x,
            h,
            &self.settings,
            &mut carried,
            &mut self.stats,
        )?;
        self.substep = carried.h;
        self.x.copy_from_slice(x.as_slice());
        self.instance.set_time(self.t + h)?;
        self.instance.set_states(&self.x)?;
        Ok(())
    }

    fn update(&mut self, t: f64, z: &[f64]) -> Result<Sample> {
        self.load()?;
        let m = self.outputs.len();
        let mut hx = DVector::zeros(m);
        self.instance.get_vrs(&self.outputs, hx.as_mut_slice())?;
        let jac = self.jacobian(&self.outputs)?;
        let prior = self.ekf.x.clone();
        let z = DVector::from_column_slice(z);
        let u = self.ekf.update(&z, &hx, &jac, &self.r)?;
        self.keep_in_order();
        let y = &hx + &jac * (&self.ekf.x - prior);
        let y_var = (&jac * &self.ekf.p * jac.transpose()).diagonal();
        let ns = self.estimated.len();
        for (k, &i) in self.estimated.iter().enumerate() {
            self.x[i] = self.ekf.x[k];
        }
        debug_assert!(ns <= self.ekf.x.len());
        Ok(Sample {
            t,
            x: self.ekf.x.iter().copied().collect(),
            sigma: self.ekf.sigma().iter().copied().collect(),
            y: y.iter().copied().collect(),
            y_sigma: y_var.iter().map(|v| v.max(0.0).sqrt()).collect(),
            nis: u.nis,
        })
    }
}

/// Largest augmented state the transition matrix is computed for.
pub const MAX_AUGMENTED: usize = 24;

/// `exp(M)` on a fixed-size matrix of the augmented state's size (no heap
/// work in the Padé scaling and squaring).
fn transition(m: &DMatrix<f64>) -> Result<DMatrix<f64>> {
    macro_rules! sizes {
        ($($n:literal)*) => {
            match m.nrows() {
                $($n => {
                    let e = SMatrix::<f64, $n, $n>::from_column_slice(m.as_slice()).exp();
                    Ok(DMatrix::from_column_slice($n, $n, e.as_slice()))
                })*
                n => bail!("{n} augmented states: the estimator handles 1 to {MAX_AUGMENTED}"),
            }
        };
    }
    sizes!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24)
}

/// The FMU as an ODE system of `N` states for the prediction: rates from
/// its derivatives, the Jacobian from its directional derivatives.
struct FmuOde<'i, 'a, const N: usize> {
    instance: RefCell<&'i mut Instance<'a>>,
    states: &'i [u32],
    derivatives: &'i [u32],
    nominal: SVector<f64, N>,
    error: RefCell<Option<anyhow::Error>>,
}

impl<const N: usize> FmuOde<'_, '_, N> {
    fn keep(&self, e: anyhow::Error) {
        self.error.borrow_mut().get_or_insert(e);
    }

    /// The Jacobian at `x` from the FMU's directional derivatives, one
    /// column per state, into `j`; false (the error kept) when the FMU
    /// refuses.
    fn state_jacobian(&self, x: &SVector<f64, N>, j: &mut SMatrix<f64, N, N>) -> bool {
        let mut instance = self.instance.borrow_mut();
        if let Err(e) = instance.set_states(x.as_slice()) {
            self.keep(e);
            return false;
        }
        let mut column = [0.0; N];
        for (c, known) in self.states.iter().enumerate() {
            if let Err(e) = instance.directional_derivative(
                self.derivatives,
                std::slice::from_ref(known),
                &[1.0],
                &mut column,
            ) {
                self.keep(e);
                return false;
            }
            j.set_column(c, &SVector::from_column_slice(&column));
        }
        true
    }
}

impl<const N: usize> OdeSystem<N> for FmuOde<'_, '_, N> {
    fn rates(&self, x: &SVector<f64, N>) -> SVector<f64, N> {
        let mut dx = SVector::<f64, N>::repeat(f64::NAN);
        let mut instance = self.instance.borrow_mut();
        let result = instance
            .set_states(x.as_slice())
            .and_then(|()| instance.derivatives(dx.as_mut_slice()));
        if let Err(e) = result {
            // A refused state makes the integrator reject the substep.
            self.keep(e);
            dx.fill(f64::NAN);
        }
        dx
    }

    /// The Jacobian first, then the rates (the FMU is left at `x`).
    fn rates_and_jacobian(
        &self,
        x: &SVector<f64, N>,
        j: &mut SMatrix<f64, N, N>,
    ) -> (SVector<f64, N>, bool) {
        let analytic = self.state_jacobian(x, j);
        (self.rates(x), analytic)
    }

    fn nominal(&self) -> SVector<f64, N> {
        self.nominal
    }
}

/// A measurement file: a `time` column, the known inputs and the measured
/// outputs, by name (CSV with a header line).
#[derive(Debug, Clone)]
pub struct Measurements {
    /// Sample times, s.
    pub t: Vec<f64>,
    /// Known inputs per sample, in the configuration's order.
    pub inputs: Vec<Vec<f64>>,
    /// Measurements per sample, in the configuration's order.
    pub z: Vec<Vec<f64>>,
}

impl Measurements {
    /// Reads the columns `config` needs from a CSV file.
    pub fn read(path: &Path, config: &Config) -> Result<Self> {
        let mut reader = csv::Reader::from_path(path)
            .with_context(|| format!("reading the measurements {}", path.display()))?;
        let header = reader.headers()?.clone();
        let column = |name: &str| {
            header
                .iter()
                .position(|h| h.trim() == name)
                .ok_or_else(|| anyhow!("{} has no column '{name}'", path.display()))
        };
        let time = column("time")?;
        let inputs = config
            .inputs
            .iter()
            .map(|n| column(n))
            .collect::<Result<Vec<_>>>()?;
        let outputs = config
            .measurements
            .iter()
            .map(|m| column(&m.output))
            .collect::<Result<Vec<_>>>()?;
        let mut out = Measurements {
            t: Vec::new(),
            inputs: Vec::new(),
            z: Vec::new(),
        };
        for (line, record) in reader.records().enumerate() {
            let record = record?;
            let value = |c: usize| -> Result<f64> {
                record
                    .get(c)
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        anyhow!(
                            "{} line {}: column {} is not a number",
                            path.display(),
                            line + 2,
                            c + 1
                        )
                    })
            };
            out.t.push(value(time)?);
            out.inputs
                .push(inputs.iter().map(|&c| value(c)).collect::<Result<_>>()?);
            out.z
                .push(outputs.iter().map(|&c| value(c)).collect::<Result<_>>()?);
        }
        if out.t.is_empty() {
            bail!("{} holds no samples", path.display());
        }
        Ok(out)
    }
}

/// Runs the estimator over every sample of `data`; `progress` is called
/// with the fraction done now and then.
pub fn run(
    estimator: &mut Estimator<'_>,
    data: &Measurements,
    mut progress: impl FnMut(f64),
) -> Result<Vec<Sample>> {
    let mut out = Vec::with_capacity(data.t.len());
    let every = (data.t.len() / 20).max(1);
    for k in 0..data.t.len() {
        out.push(estimator.sample(data.t[k], &data.inputs[k], &data.z[k])?);
        if k % every == 0 {
            progress(k as f64 / data.t.len() as f64);
        }
    }
    Ok(out)
}

/// Writes the estimates as CSV: time, then per augmented entry its value
/// and the band `value ± 1.96 σ`, then per measured output the estimate
/// and its band, then the NIS.
pub fn write_csv(path: &Path, config: &Config, samples: &[Sample]) -> Result<()> {
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("writing {}", path.display()))?;
    let mut header = vec!["time".to_string()];
    for name in config.names().into_iter().chain(
        config
            .measurements
            .iter()
            .map(|m| format!("y_{}", m.output)),
    ) {
        header.push(name.clone());
        header.push(format!("{name}_lo95"));
        header.push(format!("{name}_hi95"));
    }
    header.push("nis".into());
    w.write_record(&header)?;
    for s in samples {
        let mut row = vec![format!("{}", s.t)];
        for (v, sd) in s.x.iter().zip(&s.sigma).chain(s.y.iter().zip(&s.y_sigma)) {
            row.push(format!("{v:e}"));
            row.push(format!("{:e}", v - 1.96 * sd));
            row.push(format!("{:e}", v + 1.96 * sd));
        }
        row.push(format!("{:e}", s.nis));
        w.write_record(&row)?;
    }
    w.flush()?;
    Ok(())
}

/// Plots the estimates with their ±1.96 σ bands in the display units of
/// the FMU's description: each measured output, then each augmented entry
/// (except those measured under the same name and those in `skip`). Per
/// panel the band is a light shaded area, the estimate a line over it,
/// `truth(name)` (one value per sample, where it gives one) a dashed line
/// over both, and `measured(name)` a light grey line under the band. One
/// legend for the figure lists what is drawn.
#[allow(clippy::too_many_arguments)]
pub fn plot(
    path: &Path,
    desc: &model_description::ParsedDescription,
    config: &Config,
    samples: &[Sample],
    title: &str,
    skip: &[&str],
    truth: &dyn Fn(&str) -> Option<Vec<f64>>,
    measured: &dyn Fn(&str) -> Option<Vec<f64>>,
) -> Result<()> {
    use crate::harness::plot::{
        self, Band, Corner, Curve, Figure, LIGHT_GREY, LegendEntry, Panel, Scale,
    };
    use crate::harness::units::DisplayUnit;
    const ESTIMATE: usize = 0;
    const TRUTH: usize = 1;
    let names = config.names();
    let t: Vec<f64> = samples.iter().map(|s| s.t).collect();
    let mut panels = Vec::new();
    let mut bands = Vec::new();
    let (mut any_truth, mut any_measured) = (false, false);
    let mut add = |name: &str, est: Vec<f64>, sd: Vec<f64>| {
        let unit = DisplayUnit::of(desc, name);
        let shown = |v: &[f64]| v.iter().map(|&v| unit.value(v)).collect::<Vec<_>>();
        let line = |y: Vec<f64>, color: usize, dashed: bool| Curve {
            label: String::new(),
            x: t.clone(),
            y,
            color,
            dashed,
        };
        let mut curves = Vec::new();
        if let Some(m) = measured(name) {
            any_measured = true;
            curves.push(line(shown(&m[..m.len().min(t.len())]), LIGHT_GREY, false));
        }
        let layer = curves.len();
        curves.push(line(shown(&est), ESTIMATE, false));
        if let Some(tr) = truth(name) {
            any_truth = true;
            curves.push(line(shown(&tr[..tr.len().min(t.len())]), TRUTH, true));
        }
        bands.push(Band {
            panel: panels.len(),
            label: "±1.96 σ band of the estimate".into(),
            x: t.clone(),
            lo: est
                .iter()
                .zip(&sd)
                .map(|(v, s)| unit.value(v - 1.96 * s))
                .collect(),
            hi: est
                .iter()
                .zip(&sd)
                .map(|(v, s)| unit.value(v + 1.96 * s))
                .collect(),
            color: ESTIMATE,
            layer,
        });
        // The caption: the name and the first clause of its description.
        let about = desc
            .variable_by_name(name)
            .map(|v| v.description.as_str())
            .unwrap_or_default();
        let about = about
            .split([',', '('])
            .next()
            .unwrap_or_default()
            .trim_end_matches([' ', ':']);
        panels.push(Panel {
            legend_at: Corner::UpperRight,
            caption: if about.is_empty() {
                name.to_string()
            } else {
                format!("{name}: {about}")
            },
            y_label: format!("{name} [{}]", unit.name),
            y_scale: Scale::Linear,
            x_label: "time [s]".into(),
            x_scale: Scale::Linear,
            curves,
        });
    };
    // The measured outputs first.
    for (j, m) in config.measurements.iter().enumerate() {
        add(
            &m.output,
            samples.iter().map(|s| s.y[j]).collect(),
            samples.iter().map(|s| s.y_sigma[j]).collect(),
        );
    }
    for (i, name) in names.iter().enumerate() {
        if skip.contains(&name.as_str()) || config.measurements.iter().any(|m| &m.output == name) {
            continue;
        }
        add(
            name,
            samples.iter().map(|s| s.x[i]).collect(),
            samples.iter().map(|s| s.sigma[i]).collect(),
        );
    }
    let mut legend = vec![LegendEntry {
        label: "estimate".into(),
        color: ESTIMATE,
        dashed: false,
    }];
    if any_truth {
        legend.push(LegendEntry {
            label: "truth".into(),
            color: TRUTH,
            dashed: true,
        });
    }
    if any_measured {
        legend.push(LegendEntry {
            label: "measurement".into(),
            color: LIGHT_GREY,
            dashed: false,
        });
    }
    let figure = Figure {
        title: title.to_string(),
        legend,
        columns: 3,
        width: 1500,
        row_height: 330,
        panels,
    };
    plot::draw_png_with_bands(&figure, &bands, path)
}

#[cfg(test)]
mod tests {
    use super::project_monotone;

    /// The bounded isotonic regression by its min-max formula,
    /// `y_i = max over j <= i of min over k >= i of mean(x_j..=x_k)`,
    /// clamped: an independent statement of the projection.
    fn by_formula(x: &[f64], lower: f64, upper: f64) -> Vec<f64> {
        let n = x.len();
        let mean = |j: usize, k: usize| x[j..=k].iter().sum::<f64>() / (k - j + 1) as f64;
        (0..n)
            .map(|i| {
                (0..=i)
                    .map(|j| (i..n).map(|k| mean(j, k)).fold(f64::INFINITY, f64::min))
                    .fold(f64::NEG_INFINITY, f64::max)
                    .clamp(lower, upper)
            })
            .collect()
    }

    #[test]
    fn the_projection_is_the_nearest_ordered_sequence_within_the_bounds() {
        // Around the bounds and beyond them on both sides.
        let mut noise = super::experiment::Noise::new(7);
        for n in 1..=7 {
            for _ in 0..300 {
                let x: Vec<f64> = (0..n).map(|_| 47.5 + 45.0 * noise.normal()).collect();
                let mut y = x.clone();
                project_monotone(&mut y, 0.0, 95.0);
                let expected = by_formula(&x, 0.0, 95.0);
                for (a, b) in y.iter().zip(&expected) {
                    assert!((a - b).abs() < 1e-12, "{x:?}: {y:?} against {expected:?}");
                }
                assert!(y.windows(2).all(|w| w[0] <= w[1]), "{y:?}");
                assert!(y.iter().all(|v| (0.0..=95.0).contains(v)), "{y:?}");
            }
        }
        // What is already admissible stays as it is.
        let mut ordered = [0.0, 5.0, 12.0, 30.0, 70.0];
        project_monotone(&mut ordered, 0.0, 95.0);
        assert_eq!(ordered, [0.0, 5.0, 12.0, 30.0, 70.0]);
        // A negative first point and two points out of order.
        let mut bent = [-0.9, 8.0, 31.0, 29.0];
        project_monotone(&mut bent, 0.0, 95.0);
        assert_eq!(bent, [0.0, 8.0, 30.0, 30.0]);
    }
}
