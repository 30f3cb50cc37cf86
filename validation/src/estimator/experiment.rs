//! The pieces of the valve-curve estimation experiment of Khadim et al.
//! (2021), done on this project's FMUs (the `estimator-experiment` tool;
//! docs/digital-twin.md): the true run of
//! the FourBar FMU, reproducible sensor noise, the curve error and the best
//! fit a given number of control points can make, and one estimation run
//! with its figures of merit.

use crate::estimator::{self, Config, Estimator, Measurements, Sample};
use crate::fmi::fmu3::Fmu3;
use anyhow::{Result, bail};
use hydraulics::BSplineCurve;
use std::path::Path;
use std::time::Instant;

/// Noise of the sensors of Khadim et al. (2021), SI: s, pp, p1.
pub const SIGMA: [f64; 3] = [1.12e-3, 1.5e5, 1.5e5];
/// The curve's end value (Cv at 10 V).
pub const N_MAX: f64 = 95.0;
/// Spool-signal samples of the curve error.
pub const CURVE_SAMPLES: usize = 201;

/// The true run: per sample the held command and the true signals.
pub struct Truth {
    /// Sample times, s.
    pub t: Vec<f64>,
    /// The command held over the period that starts at each sample, V.
    pub u_ref: Vec<f64>,
    /// s, pp, p1 (measured), theta, omega, p2.
    pub signals: Vec<[f64; 6]>,
}

/// The FourBar outputs recorded as the truth, in [`Truth::signals`] order.
pub const TRUE_NAMES: [&str; 6] = ["s", "pp", "p1", "theta", "omega", "p2"];

/// A valve with a dead band: the curve is closed up to about 1.5 V (below
/// 0.5 % of N_max up to 1.65 V), then rises to N_max at 10 V; given to
/// FourBar as its custom curve on all four edges. Six control points
/// equally spaced over 0 .. 10 V fit it best (0.30 % RMSE) with a first
/// interior point of -3.4, a curve down to -0.73 % of N_max near the dead
/// band: not a valve. The best admissible fit, non-negative and
/// non-decreasing, is at 0.81 %.
pub const DEAD_BAND: (&str, &[f64], &[f64]) = (
    "dead-band",
    &[0.0, 1.5, 2.5, 4.5, 7.0, 10.0],
    &[0.0, 0.0, 0.0, 24.0, 60.0, 95.0],
);

/// A true valve curve of the experiment: its control points (spool signal
/// in V, gain with 95 = Cv at 10 V, a cubic B-spline) and the FourBar
/// parameters that make it the plant's curve.
#[derive(Debug, Clone)]
pub struct TrueCurve {
    /// Its name (`real-2`, `real-1`, `linear`, `dead-band`).
    pub name: &'static str,
    /// Spool signals of the control points, V.
    pub u: &'static [f64],
    /// Gains of the control points.
    pub n: &'static [f64],
    /// FourBar's parameters for it.
    pub parameters: Vec<(String, f64)>,
}

impl TrueCurve {
    /// The curve as a B-spline.
    pub fn curve(&self) -> Result<BSplineCurve> {
        BSplineCurve::new(self.u, self.n, 3).map_err(anyhow::Error::msg)
    }
}

/// The true curve called `name`: one of FourBar's presets (its `curve`
/// parameter) or [`DEAD_BAND`] (its custom curve on every edge).
pub fn true_curve(name: &str) -> Result<TrueCurve> {
    use four_bar_circuit::PRESETS;
    if let Some(i) = PRESETS.iter().position(|(n, _, _)| *n == name) {
        let (name, u, n) = PRESETS[i];
        return Ok(TrueCurve {
            name,
            u,
            n,
            parameters: vec![("curve".into(), (i + 1) as f64)],
        });
    }
    let (dead, u, n) = DEAD_BAND;
    if name != dead {
        let known: Vec<&str> = PRESETS.iter().map(|(n, _, _)| *n).collect();
        bail!(
            "no true curve '{name}': the curves are {}, {dead}",
            known.join(", ")
        );
    }
    let mut parameters = vec![("curve".to_string(), 0.0)];
    for edge in ["PA", "AT", "PB", "BT"] {
        parameters.push((format!("{edge}_n"), u.len() as f64));
        for (k, (&uk, &nk)) in u.iter().zip(n).enumerate() {
            parameters.push((format!("{edge}_U{}", k + 1), uk));
            parameters.push((format!("{edge}_N{}", k + 1), nk));
        }
    }
    Ok(TrueCurve {
        name: dead,
        u,
        n,
        parameters,
    })
}

/// The true run: FourBar (Co-Simulation) with the true curve `curve` under
/// the command of Khadim et al. (2021), 10 sin(0.4 π t) V, each step's
/// command held at its midpoint value, sampled every `dt`.
pub fn truth(fmu: &Fmu3, curve: &TrueCurve, duration: f64, dt: f64) -> Result<Truth> {
    let mut inst = fmu.instantiate("truth")?;
    inst.set_parameters(&curve.parameters)?;
    inst.initialize(duration)?;
    let vrs: Vec<u32> = TRUE_NAMES
        .iter()
        .map(|n| fmu.vr(n))
        .collect::<Result<_>>()?;
    let u_vr = fmu.vr("U_ref")?;
    let n = (duration / dt).round() as usize;
    let mut out = Truth {
        t: Vec::with_capacity(n + 1),
        u_ref: Vec::with_capacity(n + 1),
        signals: Vec::with_capacity(n + 1),
    };
    for k in 0..=n {
        let t = k as f64 * dt;
        // The command over [t, t + dt], held at its midpoint value.
        let u = 10.0 * (0.4 * std::f64::consts::PI * (t + 0.5 * dt)).sin();
        let mut row = [0.0; 6];
        for (r, &vr) in row.iter_mut().zip(&vrs) {
            *r = inst.get_vr(vr)?;
        }
        out.t.push(t);
        out.u_ref.push(u);
        out.signals.push(row);
        if k < n {
            inst.set_vr(u_vr, u)?;
            let status = inst.do_step(t, dt);
            if status != 0 {
                bail!("FourBar doStep at t = {t} s returned status {status}");
            }
        }
    }
    Ok(out)
}

/// SplitMix64 with Box-Muller: reproducible normal noise for a seed.
pub struct Noise {
    state: u64,
    spare: Option<f64>,
}

impl Noise {
    /// The generator of `seed`.
    pub fn new(seed: u64) -> Self {
        Noise {
            state: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d,
            spare: None,
        }
    }

    fn uniform(&mut self) -> f64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((z >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// A standard normal sample.
    pub fn normal(&mut self) -> f64 {
        if let Some(v) = self.spare.take() {
            return v;
        }
        let (a, b) = (self.uniform(), self.uniform());
        let r = (-2.0 * a.ln()).sqrt();
        let phi = 2.0 * std::f64::consts::PI * b;
        self.spare = Some(r * phi.sin());
        r * phi.cos()
    }
}

/// The truth's s, pp and p1 with the paper's white sensor noise
/// ([`SIGMA`]), drawn with noise seed `seed`.
pub fn measurements(truth: &Truth, seed: u64) -> Measurements {
    let mut noise = Noise::new(seed);
    Measurements {
        t: truth.t.clone(),
        inputs: truth.u_ref.iter().map(|&u| vec![u]).collect(),
        z: truth
            .signals
            .iter()
            .map(|s| (0..3).map(|i| s[i] + SIGMA[i] * noise.normal()).collect())
            .collect(),
    }
}

/// Writes measurements as the `estimate` tool reads them.
pub fn write_measurements(path: &Path, data: &Measurements) -> Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record(["time", "U_ref", "s", "pp", "p1"])?;
    for k in 0..data.t.len() {
        let mut row = vec![format!("{}", data.t[k]), format!("{:e}", data.inputs[k][0])];
        row.extend(data.z[k].iter().map(|v| format!("{v:e}")));
        w.write_record(&row)?;
    }
    w.flush()?;
    Ok(())
}

/// The estimated curve's abscissae and ordinates for `points` control
/// points with interior values `interior`.
pub fn curve_of(points: usize, interior: &[f64]) -> Result<BSplineCurve> {
    let u: Vec<f64> = (0..points)
        .map(|i| 10.0 * i as f64 / (points - 1) as f64)
        .collect();
    let mut y = vec![0.0];
    y.extend_from_slice(interior);
    y.push(N_MAX);
    BSplineCurve::new(&u, &y, 3).map_err(anyhow::Error::msg)
}

/// The spool signals the curve error is taken at, 0 .. 10 V.
pub fn grid() -> Vec<f64> {
    (0..CURVE_SAMPLES)
        .map(|i| 10.0 * i as f64 / (CURVE_SAMPLES - 1) as f64)
        .collect()
}

/// RMSE of curve `c` against the truth over 0 .. 10 V, % of N_max.
pub fn rmse(c: &BSplineCurve, truth: &BSplineCurve) -> f64 {
    let g = grid();
    let sum: f64 = g
        .iter()
        .map(|&u| (c.eval(u).value - truth.eval(u).value).powi(2))
        .sum();
    100.0 * (sum / g.len() as f64).sqrt() / N_MAX
}

/// The least-squares best fit of the true curve with `points` control
/// points (ends fixed) whose curve is admissible (interior ordinates in
/// order within 0 .. N_max, as the estimator keeps them): interior
/// ordinates and RMSE. The curve is linear in its ordinates, so this is a
/// linear least-squares problem; a solution out of order is projected onto
/// the ordered ones in the metric of the normal matrix `AᵀA`
/// (`estimator::project_ordered`), which is the constrained least-squares
/// solution when the constraints it violates are the ones that bind (for
/// every curve and count of the experiment whose free fit is out of
/// order, 20,000 random admissible ordinates around it found none
/// better).
pub fn best_fit(points: usize, truth: &BSplineCurve) -> Result<(Vec<f64>, f64)> {
    let m = points - 2;
    let g = grid();
    let base = curve_of(points, &vec![0.0; m])?;
    let mut a = fmu_core::nalgebra::DMatrix::<f64>::zeros(g.len(), m);
    let mut b = fmu_core::nalgebra::DVector::<f64>::zeros(g.len());
    for (r, &u) in g.iter().enumerate() {
        b[r] = truth.eval(u).value - base.eval(u).value;
        for c in 0..m {
            let mut e = vec![0.0; m];
            e[c] = 1.0;
            a[(r, c)] = curve_of(points, &e)?.eval(u).value - base.eval(u).value;
        }
    }
    let x = a
        .clone()
        .svd(true, true)
        .solve(&b, 1e-12)
        .map_err(anyhow::Error::msg)?;
    let mut x = x;
    let at: Vec<usize> = (0..m).collect();
    let ordered = x.iter().all(|v| (0.0..=N_MAX).contains(v)) && x.as_slice().is_sorted();
    if !ordered {
        let normal = a.transpose() * &a;
        let inverse = normal
            .try_inverse()
            .ok_or_else(|| anyhow::anyhow!("the best fit's normal matrix is singular"))?;
        estimator::project_ordered(&mut x, &inverse, &at, 0.0, N_MAX);
    }
    let fit: Vec<f64> = x.iter().copied().collect();
    let e = rmse(&curve_of(points, &fit)?, truth);
    Ok((fit, e))
}

/// For a sample (and its index) the estimate, its standard deviation and
/// the value it should be near, when there is one.
type Against<'a> = dyn Fn(&Sample, usize) -> Option<(f64, f64, f64)> + 'a;

/// The results of one run.
pub struct RunResult {
    /// The true curve's preset name.
    pub curve: String,
    /// Control points of the estimated curve.
    pub points: usize,
    /// Noise seed.
    pub seed: u64,
    /// Curve RMSE at 5 s, % of N_max.
    pub rmse5: f64,
    /// Curve RMSE at the end of the run, % of N_max.
    pub rmse10: f64,
    /// Curve RMSE averaged over the run's second half (5 to 10 s in a
    /// 10 s run), every 10th sample, % of N_max: steadier than the value at
    /// the end, which moves from seed to seed as the control points
    /// random-walk.
    pub rmse_late: f64,
    /// The estimated curve's lowest value over 0 .. 10 V at any sample, %
    /// of N_max (below 0: the curve was not admissible somewhere).
    pub lowest: f64,
    /// The estimated curve's largest fall between neighbouring spool
    /// signals of the error grid at any sample, % of N_max (above 0: it
    /// decreased somewhere).
    pub largest_fall: f64,
    /// The best-fit RMSE with this many control points, % of N_max.
    pub floor: f64,
    /// The time from which the curve RMSE stays below 1 %, s (`None`:
    /// not before the end).
    pub below_1_from: Option<f64>,
    /// Coverage per named quantity, share of samples inside ±1.96 σ.
    pub coverage: Vec<(String, f64)>,
    /// kp at the end, Pa.
    pub kp: f64,
    /// k0 at the end.
    pub k0: f64,
    /// Simulated time over the estimator's wall-clock time.
    pub realtime: f64,
    /// The prediction's integration work.
    pub work: String,
    /// Why the filter stopped, if it did.
    pub error: Option<String>,
}

/// One estimation run: the base configuration with `points` control
/// points starting on the catalogue line (Table 3), over `data`, measured
/// against the truth; also the samples and the configuration used.
#[allow(clippy::too_many_arguments)]
pub fn run_one(
    twin: &Fmu3,
    base: &Config,
    data: &Measurements,
    truth: &Truth,
    true_curve: &BSplineCurve,
    representable: bool,
    points: usize,
    curve: &str,
    seed: u64,
    duration: f64,
) -> Result<(RunResult, Vec<Sample>, Config)> {
    let mut config = base.clone();
    config.parameters.insert("points".into(), points as f64);
    let m = points - 2;
    config.augment.retain(|p| match p.input.strip_prefix('N') {
        Some(i) => i.parse::<usize>().is_ok_and(|i| i <= m),
        None => true,
    });
    if let Some(order) = config.monotone.as_mut() {
        order
            .inputs
            .retain(|name| config.augment.iter().any(|p| &p.input == name));
    }
    for p in config.augment.iter_mut() {
        if let Some(i) = p
            .input
            .strip_prefix('N')
            .and_then(|i| i.parse::<usize>().ok())
        {
            // Table 3: the catalogue line at the control points.
            p.start = N_MAX * i as f64 / (points - 1) as f64;
        }
    }
    let (fit, floor) = best_fit(points, true_curve)?;
    let mut est = Estimator::new(twin, config.clone(), duration)?;
    let started = Instant::now();
    let outcome = estimator::run(&mut est, data, |_| {});
    let elapsed = started.elapsed().as_secs_f64();
    let per_sample = |v: u64| v as f64 / data.t.len() as f64;
    let work = format!(
        "{:.2} substeps, {:.1} rate evaluations, {:.2} Jacobians per sample",
        per_sample(est.stats.accepted + est.stats.rejected),
        per_sample(est.stats.rhs_evals),
        per_sample(est.stats.jacobian_evals)
    );
    let names = config.names();
    let n_index = names.iter().position(|n| n == "N1");
    let (samples, error) = match outcome {
        Ok(s) => (s, None),
        Err(e) => (Vec::new(), Some(format!("{e:#}"))),
    };
    let curve_at = |s: &Sample| -> f64 {
        let interior = &s.x[n_index.unwrap_or(0)..n_index.unwrap_or(0) + m];
        curve_of(points, interior).map_or(f64::NAN, |c| rmse(&c, true_curve))
    };
    let at = |t: f64| {
        samples
            .iter()
            .find(|s| (s.t - t).abs() < 1e-9)
            .map_or(f64::NAN, curve_at)
    };
    let late: Vec<f64> = samples
        .iter()
        .step_by(10)
        .filter(|s| s.t >= 0.5 * duration - 1e-9)
        .map(curve_at)
        .collect();
    let rmse_late = late.iter().sum::<f64>() / late.len() as f64;
    // Admissibility at every sample: the lowest value and the largest fall
    // of each estimated curve on the error grid.
    let g = grid();
    let (mut lowest, mut largest_fall) = (f64::INFINITY, f64::NEG_INFINITY);
    if let Some(n0) = n_index {
        for s in &samples {
            let Ok(c) = curve_of(points, &s.x[n0..n0 + m]) else {
                continue;
            };
            let values: Vec<f64> = g.iter().map(|&u| c.eval(u).value).collect();
            lowest = values.iter().copied().fold(lowest, f64::min);
            for w in values.windows(2) {
                largest_fall = largest_fall.max(w[0] - w[1]);
            }
        }
    }
    let mut below = None;
    let mut last_above = None;
    for s in samples.iter().step_by(10) {
        let e = curve_at(s);
        if e.is_nan() || e >= 1.0 {
            last_above = Some(s.t);
        }
    }
    if !samples.is_empty() {
        below = Some(last_above.map_or(0.0, |t| t + 0.01));
        if below.is_some_and(|b| b > duration - 0.01) {
            below = None;
        }
    }
    // Coverage of the estimate's ±1.96 σ band.
    let mut coverage = Vec::new();
    if !samples.is_empty() {
        let mut add = |label: &str, value: &Against<'_>| {
            let mut inside = 0usize;
            let mut total = 0usize;
            for (k, s) in samples.iter().enumerate() {
                if let Some((est, sd, truth)) = value(s, k) {
                    total += 1;
                    if (est - truth).abs() <= 1.96 * sd {
                        inside += 1;
                    }
                }
            }
            if total > 0 {
                coverage.push((label.to_string(), inside as f64 / total as f64));
            }
        };
        let pos = |n: &str| names.iter().position(|x| x == n);
        add("s", &|s, k| {
            Some((s.y[0], s.y_sigma[0], truth.signals[k][0]))
        });
        for (label, col) in [("pp", 1), ("p1", 2), ("theta", 3), ("omega", 4), ("p2", 5)] {
            if let Some(i) = pos(label) {
                add(label, &move |s, k| {
                    Some((s.x[i], s.sigma[i], truth.signals[k][col]))
                });
            }
        }
        for (label, value) in [("kp", 1.6e9), ("k0", 0.5)] {
            if let Some(i) = pos(label) {
                add(label, &move |s, _| Some((s.x[i], s.sigma[i], value)));
            }
        }
        if let Some(n0) = n_index {
            for j in 0..m {
                let target = fit[j];
                let label = if representable {
                    format!("N{}", j + 1)
                } else {
                    format!("N{} (vs fit)", j + 1)
                };
                add(&label, &move |s, _| {
                    Some((s.x[n0 + j], s.sigma[n0 + j], target))
                });
            }
        }
    }
    let last = samples.last();
    let pick = |n: &str| {
        names
            .iter()
            .position(|x| x == n)
            .and_then(|i| last.map(|s| s.x[i]))
            .unwrap_or(f64::NAN)
    };
    Ok((
        RunResult {
            curve: curve.to_string(),
            points,
            seed,
            rmse5: at(5.0),
            rmse10: at(duration),
            rmse_late,
            lowest: 100.0 * lowest / N_MAX,
            largest_fall: 100.0 * largest_fall / N_MAX,
            floor,
            below_1_from: below,
            coverage,
            kp: pick("kp"),
            k0: pick("k0"),
            realtime: duration / elapsed,
            work,
            error,
        },
        samples,
        config,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_fit_of_a_representable_curve_is_that_curve() {
        let real1 = BSplineCurve::new(
            &[0.0, 2.5, 5.0, 7.5, 10.0],
            &[0.0, 12.0, 35.0, 65.0, 95.0],
            3,
        )
        .unwrap();
        let (fit, floor) = best_fit(5, &real1).unwrap();
        assert!(floor < 1e-9, "{floor}");
        for (got, want) in fit.iter().zip([12.0, 35.0, 65.0]) {
            assert!((got - want).abs() < 1e-7, "{fit:?}");
        }
        // Fewer points cannot: a positive floor, and no other set of
        // points does better than the fit.
        let (fit3, floor3) = best_fit(3, &real1).unwrap();
        assert!(floor3 > 0.5, "{floor3}");
        for delta in [-1.0, 1.0] {
            let other = curve_of(3, &[fit3[0] + delta]).unwrap();
            assert!(rmse(&other, &real1) > floor3);
        }
        // The catalogue line against itself.
        let line = curve_of(6, &[19.0, 38.0, 57.0, 76.0]).unwrap();
        assert!(rmse(&line, &line) == 0.0);
    }

    #[test]
    fn noise_is_standard_normal_and_reproducible() {
        let mut a = Noise::new(3);
        let v: Vec<f64> = (0..200_000).map(|_| a.normal()).collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64;
        assert!(mean.abs() < 0.01, "{mean}");
        assert!((var - 1.0).abs() < 0.01, "{var}");
        let within = v.iter().filter(|x| x.abs() <= 1.96).count() as f64 / v.len() as f64;
        assert!((within - 0.95).abs() < 0.003, "{within}");
        let mut b = Noise::new(3);
        assert!(v.iter().take(10).all(|&x| x == b.normal()));
        let mut c = Noise::new(4);
        assert_ne!(v[0], c.normal());
    }

    #[test]
    fn measurement_files_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.csv");
        let data = Measurements {
            t: vec![0.0, 1e-3],
            inputs: vec![vec![0.5], vec![-0.25]],
            z: vec![vec![3.0, 7.6e6, 3.4e6], vec![3.001, 7.59e6, 3.41e6]],
        };
        write_measurements(&path, &data).unwrap();
        let config: Config = serde_json::from_str(
            r#"{"inputs": ["U_ref"], "states": [{"name": "theta", "sigma0": 1}],
                "measurements": [{"output": "s", "sigma": 1}, {"output": "pp", "sigma": 1},
                                 {"output": "p1", "sigma": 1}], "sample_period": 1e-3}"#,
        )
        .unwrap();
        let back = Measurements::read(&path, &config).unwrap();
        assert_eq!(back.t, data.t);
        assert_eq!(back.inputs, data.inputs);
        assert_eq!(back.z, data.z);
    }
}
