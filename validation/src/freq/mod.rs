//! Frequency response of an FMU through the FMI 3 API (see the
//! `freq-response` tool and the `bench-hose-sweep` benchmark): a sinusoid
//! on one input around a settled operating point restored from an FMU state
//! snapshot for every frequency.
//!
//! Amplitude ratios are output amplitude over input amplitude in SI units:
//! dimensionless for a pressure over a pressure, in m3/(s Pa) for a flow
//! over a pressure. Their decibels, 20 log10(ratio), are plain dB only for a
//! dimensionless ratio; for a dimensional one they are dB re 1 SI unit of
//! the ratio, and [`write_csv`] and [`bode_figure`] say so.

use crate::fmi::fmu3::{Fmu3, Instance};
use crate::harness::plot::{Corner, Curve, Figure, Panel, Scale};
use crate::harness::units::{DisplayUnit, ratio_unit};
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

/// Frequencies from `fmin` to `fmax`, both included: logarithmically
/// spaced (a constant ratio from one to the next, evenly spread over a
/// Bode plot's log axis) or linearly.
pub fn frequencies(fmin: f64, fmax: f64, points: usize, log: bool) -> Vec<f64> {
    (0..points)
        .map(|i| {
            let s = if points > 1 {
                i as f64 / (points - 1) as f64
            } else {
                0.0
            };
            if points > 1 && i == points - 1 {
                fmax
            } else if log {
                fmin * (fmax / fmin).powf(s)
            } else {
                fmin + (fmax - fmin) * s
            }
        })
        .collect()
}

/// The result of a sweep.
pub struct SweepResult {
    /// One entry per frequency, in frequency order.
    pub points: Vec<Point>,
    /// How many of them were added around the resonances (see
    /// [`sweep_refined`]).
    pub refined: usize,
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
    /// One response per output.
    pub values: Vec<Response>,
}

/// The response of one output at one frequency. Ratios are in the SI unit
/// of the output per SI unit of the input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Response {
    /// Peak ratio: max|y - y0| over the measured periods over the input
    /// amplitude A.
    pub peak_ratio: f64,
    /// Ratio of the fundamental (first-harmonic) amplitudes of output and
    /// input.
    pub gain: f64,
    /// Phase of the output's fundamental relative to the input's, deg.
    pub phase_deg: f64,
}

impl Response {
    /// 20 log10 of the peak ratio (dB re 1 SI unit of the ratio).
    pub fn peak_db(&self) -> f64 {
        db(self.peak_ratio)
    }

    /// 20 log10 of the fundamental ratio (dB re 1 SI unit of the ratio).
    pub fn gain_db(&self) -> f64 {
        db(self.gain)
    }
}

/// 20 log10(ratio).
pub fn db(ratio: f64) -> f64 {
    20.0 * ratio.log10()
}

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

/// Drives one frequency from the restored operating point and returns, per
/// output, the peak ratio max|y - y0| / A, the ratio of the fundamental
/// components and the phase of the output relative to the input.
fn measure(
    inst: &mut Instance<'_>,
    args: &SweepOptions,
    op: &OperatingPoint,
    f: f64,
) -> Result<Vec<Response>> {
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
            Response {
                peak_ratio: peak[i] / args.amplitude,
                gain: amp / amp_u,
                phase_deg: phase,
            }
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

/// Indices of the points where output `output` has a resonance peak (a
/// prominent local maximum of its peak ratio).
fn peak_indices(points: &[Point], output: usize) -> Vec<usize> {
    let y: Vec<f64> = points.iter().map(|p| p.values[output].peak_db()).collect();
    (1..y.len().saturating_sub(1))
        .filter(|&k| y[k] > y[k - 1] && y[k] >= y[k + 1] && prominent(&y, k))
        .collect()
}

/// Resonances of output `output`: (frequency Hz, peak ratio in dB re 1 SI
/// unit of the ratio, see [`Response::peak_db`]).
pub fn resonances(points: &[Point], output: usize) -> Vec<(f64, f64)> {
    let y: Vec<f64> = points.iter().map(|p| p.values[output].peak_db()).collect();
    let mut found = Vec::new();
    for k in peak_indices(points, output) {
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
    found
}

/// Runs the sweep on a fresh instance of `fmu`.
pub fn sweep(fmu: &Fmu3, opts: &SweepOptions, progress: bool) -> Result<SweepResult> {
    sweep_refined(fmu, opts, progress, 0)
}

/// Runs the sweep of [`sweep`], then measures `refine` more frequencies
/// evenly spread between the two neighbours of each resonance peak of any
/// output (see [`resonances`]) and merges them into the points in
/// frequency order: a peak that falls between two frequencies of a coarse
/// (or logarithmic, coarse at the top) grid is measured, not only
/// interpolated.
pub fn sweep_refined(
    fmu: &Fmu3,
    opts: &SweepOptions,
    progress: bool,
    refine: usize,
) -> Result<SweepResult> {
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
    let mut extra: Vec<f64> = Vec::new();
    if refine > 0 {
        for output in 0..op.vr_out.len() {
            for k in peak_indices(&points, output) {
                let (a, b) = (points[k - 1].f, points[k + 1].f);
                extra.extend((1..=refine).map(|j| a + (b - a) * j as f64 / (refine + 1) as f64));
            }
        }
        extra.sort_by(f64::total_cmp);
        let near = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
        extra.dedup_by(|a, b| near(*a, *b));
        extra.retain(|&f| !points.iter().any(|p| near(p.f, f)));
    }
    for &f in &extra {
        inst.restore(&operating_point)?;
        total_steps += steps_for(opts, f);
        let values = measure(&mut inst, opts, &op, f).with_context(|| format!("at {f} Hz"))?;
        points.push(Point { f, values });
    }
    if !extra.is_empty() {
        points.sort_by(|a, b| a.f.total_cmp(&b.f));
        if progress {
            eprintln!(
                "  {} more frequencies around the resonances ({:.1} s)",
                extra.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    Ok(SweepResult {
        points,
        refined: extra.len(),
        u0,
        y0,
        total_steps,
        wall: started.elapsed().as_secs_f64(),
    })
}

/// A signal of the sweep: its name and units.
#[derive(Debug, Clone)]
pub struct Channel {
    /// Variable name.
    pub name: String,
    /// Its SI unit (in `unit.si`) and display unit.
    pub unit: DisplayUnit,
}

impl Channel {
    /// A variable of `fmu` with the units its model description declares.
    pub fn of(fmu: &Fmu3, name: &str) -> Self {
        Channel {
            name: name.to_string(),
            unit: DisplayUnit::of(&fmu.description, name),
        }
    }
}

/// How the ratio of an output to the input is labelled.
#[derive(Debug, Clone, PartialEq)]
pub struct RatioUnits {
    /// The SI unit of output / input, `None` when dimensionless.
    pub si: Option<String>,
    /// The display unit of output / input (e.g. `L/(min bar)`), `None` when
    /// dimensionless in SI.
    pub display: Option<String>,
    /// Display-unit ratio per SI ratio.
    pub display_factor: f64,
}

impl RatioUnits {
    /// The units of `output / input`.
    pub fn of(output: &Channel, input: &Channel) -> Self {
        let si = ratio_unit(&output.unit.si, &input.unit.si);
        let display = si
            .as_ref()
            .and_then(|_| ratio_unit(&output.unit.name, &input.unit.name));
        RatioUnits {
            display_factor: output.unit.factor / input.unit.factor,
            si,
            display,
        }
    }

    /// The SI ratio unit as written in a header: `Pa/Pa` style for a
    /// dimensionless ratio (`{output}/{input}`), else the reduced unit.
    pub fn si_label(&self, output: &Channel, input: &Channel) -> String {
        self.si
            .clone()
            .unwrap_or_else(|| format!("{}/{}", output.unit.si, input.unit.si))
    }

    /// `dB` for a dimensionless ratio, else `dB re 1 <unit>`.
    pub fn db_label(&self) -> String {
        match &self.si {
            None => "dB".to_string(),
            Some(unit) => format!("dB re 1 {unit}"),
        }
    }
}

/// Writes the sweep as CSV with the unit in every header: `frequency [Hz]`,
/// then per output `<o> peak ratio [<unit>]`, `<o> peak ratio [dB...]`,
/// `<o> gain [<unit>]`, `<o> gain [dB...]`, `<o> phase [deg]`, where the
/// ratio unit is the output's SI unit per the input's and its decibels are
/// `dB` for a dimensionless ratio, `dB re 1 <unit>` otherwise.
pub fn write_csv(
    path: &Path,
    input: &Channel,
    outputs: &[Channel],
    points: &[Point],
) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut csv = std::fs::File::create(path)?;
    write!(csv, "frequency [Hz]")?;
    for o in outputs {
        let units = RatioUnits::of(o, input);
        let (unit, db) = (units.si_label(o, input), units.db_label());
        let n = &o.name;
        write!(
            csv,
            ",{n} peak ratio [{unit}],{n} peak ratio [{db}],{n} gain [{unit}],{n} gain [{db}],\
             {n} phase [deg]"
        )?;
    }
    writeln!(csv)?;
    for p in points {
        write!(csv, "{}", p.f)?;
        for v in &p.values {
            write!(
                csv,
                ",{:e},{},{:e},{},{}",
                v.peak_ratio,
                v.peak_db(),
                v.gain,
                v.gain_db(),
                v.phase_deg
            )?;
        }
        writeln!(csv)?;
    }
    Ok(())
}

/// A Bode plot of a sweep: one magnitude panel per ratio unit (outputs of
/// the same unit share one), then one phase panel, all over a logarithmic
/// frequency axis (whatever the spacing of the frequencies). A
/// dimensionless ratio is plotted in dB; a dimensional one as the ratio in
/// display units (e.g. L/(min bar)) on a log axis, never in dB. Each output
/// shows its fundamental ratio (solid) and its peak ratio max|y - y0| / A
/// (dashed).
pub fn bode_figure(title: &str, input: &Channel, outputs: &[Channel], points: &[Point]) -> Figure {
    let f: Vec<f64> = points.iter().map(|p| p.f).collect();
    let x_scale = Scale::Log;
    let x_label = "frequency [Hz], log scale".to_string();
    // Group the outputs by ratio unit, in the order they come.
    let mut groups: Vec<(RatioUnits, Vec<usize>)> = Vec::new();
    for (i, o) in outputs.iter().enumerate() {
        let units = RatioUnits::of(o, input);
        match groups
            .iter_mut()
            .find(|(u, _)| u.si == units.si && u.display == units.display)
        {
            Some((_, members)) => members.push(i),
            None => groups.push((units, vec![i])),
        }
    }
    let mut panels = Vec::new();
    for (units, members) in &groups {
        let names: Vec<String> = members
            .iter()
            .map(|&i| format!("{} / {}", outputs[i].name, input.name))
            .collect();
        let mut curves = Vec::new();
        for &i in members {
            let value = |r: &Response, peak: bool| {
                let ratio = if peak { r.peak_ratio } else { r.gain };
                match units.si {
                    None => db(ratio),
                    Some(_) => ratio * units.display_factor,
                }
            };
            for peak in [false, true] {
                curves.push(Curve {
                    label: format!(
                        "{} {}",
                        outputs[i].name,
                        if peak {
                            "peak max|y - y0| / A"
                        } else {
                            "fundamental"
                        }
                    ),
                    x: f.clone(),
                    y: points.iter().map(|p| value(&p.values[i], peak)).collect(),
                    color: i,
                    dashed: peak,
                });
            }
        }
        let (caption, y_label, y_scale) = match (&units.si, &units.display) {
            (None, _) => (
                format!(
                    "{}: amplitude ratio ({}/{}, dimensionless) in dB",
                    names.join(", "),
                    outputs[members[0]].unit.si,
                    input.unit.si
                ),
                "ratio [dB]".to_string(),
                Scale::Linear,
            ),
            (Some(si), display) => {
                let shown = display.clone().unwrap_or_else(|| si.clone());
                (
                    format!(
                        "{}: amplitude ratio in {shown} (1 {shown} = {} {si}), log scale",
                        names.join(", "),
                        crate::harness::units::number(1.0 / units.display_factor)
                    ),
                    format!("ratio [{shown}]"),
                    Scale::Log,
                )
            }
        };
        panels.push(Panel {
            legend_at: Corner::UpperLeft,
            caption,
            y_label,
            y_scale,
            x_label: x_label.clone(),
            x_scale,
            curves,
        });
    }
    panels.push(Panel {
        // Phases start near 0 (or -90) deg and fall: the lower left is free.
        legend_at: Corner::LowerLeft,
        caption: format!(
            "phase of each output's fundamental relative to {}'s [deg], unwrapped",
            input.name
        ),
        y_label: "phase [deg]".to_string(),
        y_scale: Scale::Linear,
        x_label,
        x_scale,
        curves: outputs
            .iter()
            .enumerate()
            .map(|(i, o)| Curve {
                label: o.name.clone(),
                x: f.clone(),
                y: unwrap_degrees(points.iter().map(|p| p.values[i].phase_deg)),
                color: i,
                dashed: false,
            })
            .collect(),
    });
    Figure {
        title: title.to_string(),
        legend: Vec::new(),
        columns: 1,
        width: 1100,
        row_height: 330,
        panels,
    }
}

/// A phase curve without the 360 deg jumps of the (-180, 180] range: each
/// value is moved by whole turns to within 180 deg of the previous one.
pub fn unwrap_degrees(phases: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::new();
    for p in phases {
        let value = match out.last() {
            Some(&prev) if p.is_finite() && prev.is_finite() => {
                p - 360.0 * ((p - prev) / 360.0).round()
            }
            _ => p,
        };
        out.push(value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequencies_are_spaced_by_a_constant_ratio_or_step() {
        let log = frequencies(2.0, 150.0, 300, true);
        assert_eq!((log[0], log[299]), (2.0, 150.0));
        let ratio = (150.0f64 / 2.0).powf(1.0 / 299.0);
        for w in log.windows(2) {
            assert!((w[1] / w[0] / ratio - 1.0).abs() < 1e-12, "{w:?}");
        }
        let linear = frequencies(2.0, 150.0, 5, false);
        assert_eq!(linear, [2.0, 39.0, 76.0, 113.0, 150.0]);
        assert_eq!(frequencies(3.0, 9.0, 1, true), [3.0]);
    }

    #[test]
    fn phases_are_unwrapped() {
        let u = unwrap_degrees([-90.0, -170.0, 175.0, 100.0, 170.0, -175.0]);
        assert_eq!(u, [-90.0, -170.0, -185.0, -260.0, -190.0, -175.0]);
    }

    fn channel(name: &str, si: &str) -> Channel {
        Channel {
            name: name.into(),
            unit: DisplayUnit::for_si(si),
        }
    }

    #[test]
    fn ratio_units_say_what_the_decibels_are_relative_to() {
        let (p2, p1, q2) = (
            channel("p2", "Pa"),
            channel("p1", "Pa"),
            channel("Q2", "m3/s"),
        );
        let pressure = RatioUnits::of(&p1, &p2);
        assert_eq!(pressure.si, None);
        assert_eq!(pressure.db_label(), "dB");
        assert_eq!(pressure.si_label(&p1, &p2), "Pa/Pa");
        let flow = RatioUnits::of(&q2, &p2);
        assert_eq!(flow.si.as_deref(), Some("m3/(s Pa)"));
        assert_eq!(flow.display.as_deref(), Some("L/(min bar)"));
        assert_eq!(flow.db_label(), "dB re 1 m3/(s Pa)");
        // 1 m3/(s Pa) = 6e4 L/min per 1e-5 bar = 6e9 L/(min bar).
        assert!((flow.display_factor / 6e9 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_bode_figure_has_one_magnitude_panel_per_unit() {
        let input = channel("p2", "Pa");
        let outputs = [
            channel("p1", "Pa"),
            channel("Q2", "m3/s"),
            channel("p3", "Pa"),
        ];
        let points: Vec<Point> = [10.0, 20.0]
            .iter()
            .map(|&f| Point {
                f,
                values: vec![
                    Response {
                        peak_ratio: 10.0,
                        gain: 10.0,
                        phase_deg: -90.0
                    };
                    3
                ],
            })
            .collect();
        let fig = bode_figure("t", &input, &outputs, &points);
        assert_eq!(fig.panels.len(), 3);
        // A Bode plot: frequency on a log axis in every panel.
        assert!(fig.panels.iter().all(|p| p.x_scale == Scale::Log));
        // Pressures share a dB panel; the flow has its own log panel.
        assert_eq!(fig.panels[0].curves.len(), 4);
        assert_eq!(fig.panels[0].y_label, "ratio [dB]");
        assert!((fig.panels[0].curves[0].y[0] - 20.0).abs() < 1e-12);
        assert_eq!(fig.panels[1].y_scale, Scale::Log);
        assert_eq!(fig.panels[1].y_label, "ratio [L/(min bar)]");
        assert!((fig.panels[1].curves[0].y[0] - 6e10).abs() < 1.0);
        assert!(
            !fig.panels
                .iter()
                .any(|p| p.caption.contains("dB") && p.y_scale == Scale::Log)
        );
    }
}
