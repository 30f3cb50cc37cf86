//! Frequency response of an FMU through the FMI 3 API (see the
//! `freq-response` tool and the `bench-hose-sweep` benchmark): a sinusoid
//! on one input around a settled operating point restored from an FMU state
//! snapshot for every frequency.

use crate::fmu3::{Fmu3, Instance};
use anyhow::{Context, Result, bail};
use std::f64::consts::PI;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// What to sweep and how.
#[derive(Debug, Clone)]
pub struct SweepOptions {
    /// The input to excite.
    pub input: String,
    /// The outputs to measure.
    pub outputs: Vec<String>,
    /// Sinusoid amplitude, SI.
    pub amplitude: f64,
    /// Parameters and operating-point inputs (structural ones are set in
    /// Configuration Mode).
    pub settings: Vec<(String, f64)>,
    /// The frequencies, Hz.
    pub frequencies: Vec<f64>,
    /// Settling time at the operating point, s.
    pub settle: f64,
    /// Transient time per frequency (at least 3 periods), s.
    pub transient: f64,
    /// Measured periods per frequency.
    pub periods: usize,
    /// Communication steps per period.
    pub steps_per_period: usize,
    /// Largest communication step, s.
    pub max_step: f64,
    /// The FMU's `rtol` during the sweep, unless `settings` sets it.
    pub rtol: f64,
}

/// Frequencies from `fmin` to `fmax`, linear or logarithmic.
pub fn frequencies(fmin: f64, fmax: f64, points: usize, log: bool) -> Vec<f64> {
    (0..points)
        .map(|i| {
            let s = if points > 1 {
                i as f64 / (points - 1) as f64
            } else {
                0.0
            };
            if log {
                fmin * (fmax / fmin).powf(s)
            } else {
                fmin + (fmax - fmin) * s
            }
        })
        .collect()
}

/// The result of a sweep.
pub struct SweepResult {
    /// One entry per frequency.
    pub points: Vec<Point>,
    /// Input value at the operating point, SI.
    pub u0: f64,
    /// Output values at the operating point, SI.
    pub y0: Vec<f64>,
    /// Communication steps taken.
    pub total_steps: usize,
    /// Wall time of the sweep (after loading), s.
    pub wall: f64,
}

/// One measured frequency.
pub struct Point {
    /// Frequency, Hz.
    pub f: f64,
    /// Per output: (peak ratio dB, fundamental ratio dB, phase deg).
    pub values: Vec<(f64, f64, f64)>,
}

/// Drives one frequency from the restored operating point and returns, per
/// output, the peak ratio 20 log10(max|y - y0| / A), the ratio of the
/// fundamental components and the phase of the output relative to the input.
/// The settled operating point every frequency starts from.
struct OperatingPoint {
    vr_in: u32,
    vr_out: Vec<u32>,
    /// Input value, SI.
    u0: f64,
    /// Output values, SI.
    y0: Vec<f64>,
    /// Time of the snapshot, s.
    t0: f64,
}

fn measure(
    inst: &mut Instance<'_>,
    args: &SweepOptions,
    op: &OperatingPoint,
    f: f64,
) -> Result<Vec<(f64, f64, f64)>> {
    let OperatingPoint {
        vr_in,
        vr_out,
        u0,
        y0,
        t0,
    } = op;
    let (vr_in, u0, t0) = (*vr_in, *u0, *t0);
    let period = 1.0 / f;
    let steps = args
        .steps_per_period
        .max(((period / args.max_step).ceil()) as usize);
    let h = period / steps as f64;
    let transient_periods = ((args.transient / period).ceil() as usize).max(3);
    let total = (transient_periods + args.periods) * steps;
    let start_measure = transient_periods * steps;
    let mut peak = vec![0.0f64; vr_out.len()];
    let mut re = vec![0.0; vr_out.len()];
    let mut im = vec![0.0; vr_out.len()];
    // The input the FMU actually saw is a staircase (held over each step):
    // its fundamental is the reference for ratio and phase, so that the
    // hold's small delay and attenuation cancel out.
    let (mut re_u, mut im_u) = (0.0, 0.0);
    let mut t = t0;
    for k in 0..total {
        let phase = 2.0 * PI * f * (k as f64 * h);
        let du = args.amplitude * phase.sin();
        inst.set_vr(vr_in, u0 + du)?;
        if k >= start_measure {
            // Exact Fourier integral of the held value over [t_k, t_k + h].
            let (w, a) = (2.0 * PI * f, 2.0 * PI * f * (k as f64 * h));
            re_u += du * ((a).cos() - (a + w * h).cos()) / w;
            im_u += du * ((a + w * h).sin() - (a).sin()) / w;
        }
        let s = inst.do_step(t, h);
        if s != 0 {
            bail!("doStep returned status {s} at t = {t} s (f = {f} Hz)");
        }
        t = t0 + (k + 1) as f64 * h;
        if k + 1 > start_measure {
            let phase_end = 2.0 * PI * f * ((k + 1) as f64 * h);
            for (i, &vr) in vr_out.iter().enumerate() {
                let y = inst.get_vr(vr)? - y0[i];
                peak[i] = peak[i].max(y.abs());
                re[i] += y * phase_end.sin();
                im[i] += y * phase_end.cos();
            }
        }
    }
    let n = (args.periods * steps) as f64;
    let duration = args.periods as f64 * period;
    // Input fundamental: u ~ au sin(wt) + bu cos(wt).
    let (au, bu) = (2.0 * re_u / duration, 2.0 * im_u / duration);
    let amp_u = (au * au + bu * bu).sqrt();
    let phase_u = bu.atan2(au);
    Ok((0..vr_out.len())
        .map(|i| {
            // Output fundamental from its samples: y ~ a sin(wt) + b cos(wt).
            let (a, b) = (2.0 * re[i] / n, 2.0 * im[i] / n);
            let amp = (a * a + b * b).sqrt();
            let mut phase = (b.atan2(a) - phase_u).to_degrees();
            if phase > 180.0 {
                phase -= 360.0;
            } else if phase < -180.0 {
                phase += 360.0;
            }
            (
                20.0 * (peak[i] / args.amplitude).log10(),
                20.0 * (amp / amp_u).log10(),
                phase,
            )
        })
        .collect())
}

/// Communication steps spent on frequency `f`.
fn steps_for(args: &SweepOptions, f: f64) -> usize {
    let period = 1.0 / f;
    let steps = args
        .steps_per_period
        .max(((period / args.max_step).ceil()) as usize);
    let transient_periods = ((args.transient / period).ceil() as usize).max(3);
    (transient_periods + args.periods) * steps
}

/// Local maxima of a curve that stand at least `PROMINENCE_DB` above the
/// lowest point on each side before a higher peak (so that numerical ripple
/// of a flat curve is not reported), refined by a parabola through the
/// three points around each (in frequency and dB).
const PROMINENCE_DB: f64 = 3.0;

fn prominent(y: &[f64], k: usize) -> bool {
    let side = |range: &mut dyn Iterator<Item = usize>| {
        let mut low = y[k];
        for i in range {
            if y[i] > y[k] {
                break;
            }
            low = low.min(y[i]);
        }
        y[k] - low
    };
    let left = side(&mut (0..k).rev());
    let right = side(&mut (k + 1..y.len()));
    left.min(right) >= PROMINENCE_DB
        || (left.max(right) >= PROMINENCE_DB && (k < 3 || k + 3 >= y.len()))
}

/// Resonances of output `output`: (frequency Hz, peak ratio dB).
pub fn resonances(points: &[Point], output: usize) -> Vec<(f64, f64)> {
    let y: Vec<f64> = points.iter().map(|p| p.values[output].0).collect();
    let mut found = Vec::new();
    for k in 1..y.len().saturating_sub(1) {
        if y[k] > y[k - 1] && y[k] >= y[k + 1] && prominent(&y, k) {
            let (x0, x1, x2) = (points[k - 1].f, points[k].f, points[k + 1].f);
            let (y0, y1, y2) = (y[k - 1], y[k], y[k + 1]);
            let denom = (x0 - x1) * (x0 - x2) * (x1 - x2);
            let a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / denom;
            let b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / denom;
            if a < 0.0 {
                let xv = -b / (2.0 * a);
                let c = y0 - a * x0 * x0 - b * x0;
                found.push((xv, a * xv * xv + b * xv + c));
            } else {
                found.push((x1, y1));
            }
        }
    }
    found
}

/// Runs the sweep on a fresh instance of `fmu`.
pub fn sweep(fmu: &Fmu3, opts: &SweepOptions, progress: bool) -> Result<SweepResult> {
    let vr_in = fmu.vr(&opts.input)?;
    let vr_out: Vec<u32> = opts
        .outputs
        .iter()
        .map(|o| fmu.vr(o))
        .collect::<Result<_>>()?;
    let started = Instant::now();
    let mut inst = fmu.instantiate("frequency-response")?;
    let mut settings = opts.settings.clone();
    if fmu.description.variable_by_name("rtol").is_some()
        && !settings.iter().any(|(n, _)| n == "rtol")
    {
        settings.push(("rtol".to_owned(), opts.rtol));
    }
    inst.set_parameters(&settings)?;
    inst.initialize(f64::MAX)?;
    let u0 = inst.get_vr(vr_in)?;
    let h = opts.max_step;
    let n_settle = (opts.settle / h).round() as usize;
    for k in 0..n_settle {
        let s = inst.do_step(k as f64 * h, h);
        if s != 0 {
            bail!(
                "doStep returned status {s} while settling at t = {} s",
                k as f64 * h
            );
        }
    }
    let t0 = n_settle as f64 * h;
    let y0: Vec<f64> = vr_out
        .iter()
        .map(|&v| inst.get_vr(v))
        .collect::<Result<_>>()?;
    let operating_point = inst.snapshot()?;
    let op = OperatingPoint {
        vr_in,
        vr_out,
        u0,
        y0: y0.clone(),
        t0,
    };
    let mut points = Vec::with_capacity(opts.frequencies.len());
    let mut total_steps = 0usize;
    for (i, &f) in opts.frequencies.iter().enumerate() {
        inst.restore(&operating_point)?;
        total_steps += steps_for(opts, f);
        let values = measure(&mut inst, opts, &op, f).with_context(|| format!("at {f} Hz"))?;
        points.push(Point { f, values });
        if progress && ((i + 1) % 50 == 0 || i + 1 == opts.frequencies.len()) {
            eprintln!(
                "  {}/{} frequencies ({:.1} s)",
                i + 1,
                opts.frequencies.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    Ok(SweepResult {
        points,
        u0,
        y0,
        total_steps,
        wall: started.elapsed().as_secs_f64(),
    })
}

/// Writes the sweep as CSV: frequency, then per output the peak ratio (dB),
/// the fundamental ratio (dB) and the phase (deg).
pub fn write_csv(path: &Path, outputs: &[String], points: &[Point]) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut csv = std::fs::File::create(path)?;
    write!(csv, "frequency_hz")?;
    for o in outputs {
        write!(csv, ",{o}_peak_ratio_db,{o}_ratio_db,{o}_phase_deg")?;
    }
    writeln!(csv)?;
    for p in points {
        write!(csv, "{}", p.f)?;
        for v in &p.values {
            write!(csv, ",{},{},{}", v.0, v.1, v.2)?;
        }
        writeln!(csv)?;
    }
    Ok(())
}
