//! The status column of the benchmarks: whether a run's result can be
//! trusted, from what the run produced, not from whether `doStep` returned
//! OK. A run is
//!
//! - **failed** when a `doStep` returned an error status;
//! - **diverged** when a watched signal became NaN or infinite;
//! - **out of range** when a watched signal left its physical range (a
//!   pressure below the tank's or above the supply's, a rod outside its
//!   stroke);
//! - at a **wrong final value** when a watched signal ended farther from the
//!   value it must settle to (the analytic steady state, or the reference
//!   trace's final value) than the given tolerance; the status says by how
//!   much.
//!
//! Otherwise it is `ok`. The measured figures of the run are printed as they
//! are either way; the status says which of them mean something.
//!
//! Also here, what the benchmarks that drive a packaged FMU through its FMI 3
//! functions share: the one timed loop of communication steps
//! ([`timed_do_steps`]: wall time, `doStep` latencies, the integrator's
//! counters; [`timed_steps`] on it with one input and sampled outputs), the
//! error against a reference on the grid both have
//! ([`common_grid`], [`relative_errors`]) and the fastest of several rounds
//! ([`fastest_of`]).

use crate::fmi::fmu3::Instance;
use crate::harness::units::{DisplayUnit, number};
use crate::{Trace, percentile, relative_rms_percent};
use anyhow::{Result, ensure};
use std::time::Instant;

/// The value a signal must end at.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// The final value, SI.
    pub value: f64,
    /// The largest accepted distance from it, SI.
    pub tolerance: f64,
    /// Where the value comes from, for the status text (`analytic steady
    /// state`, `reference`).
    pub source: String,
}

/// What a benchmark expects of one signal.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// The signal's name.
    pub name: String,
    /// The unit its values are shown in.
    pub unit: DisplayUnit,
    /// The physical range, SI (inclusive).
    pub range: (f64, f64),
    /// The value it must end at, if known.
    pub target: Option<Target>,
}

/// Follows one signal through a run: where it first went non-finite, where
/// it first left its range, its last value.
#[derive(Debug, Clone)]
pub struct Watch {
    /// What is expected of the signal.
    pub expect: Expectation,
    non_finite: Option<f64>,
    outside: Option<(f64, f64)>,
    last: Option<(f64, f64)>,
}

impl Watch {
    /// A watch with nothing observed yet.
    pub fn new(expect: Expectation) -> Self {
        Watch {
            expect,
            non_finite: None,
            outside: None,
            last: None,
        }
    }

    /// Records the value `v` at time `t` (s).
    pub fn observe(&mut self, t: f64, v: f64) {
        if !v.is_finite() {
            self.non_finite.get_or_insert(t);
        } else if (v < self.expect.range.0 || v > self.expect.range.1) && self.outside.is_none() {
            self.outside = Some((t, v));
        }
        self.last = Some((t, v));
    }

    /// Records every sample of a trace.
    pub fn observe_all(&mut self, time: &[f64], values: &[f64]) {
        for (&t, &v) in time.iter().zip(values) {
            self.observe(t, v);
        }
    }

    /// The last recorded value, SI.
    pub fn last(&self) -> Option<f64> {
        self.last.map(|(_, v)| v)
    }
}

/// The status of a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Nothing wrong found.
    Ok,
    /// One or more problems, worst first; see [`Status::text`].
    Problems(Vec<Problem>),
}

/// One thing wrong with a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// `doStep` returned an error status.
    Failed(String),
    /// A signal became NaN or infinite at time `t`.
    Diverged {
        /// Signal name.
        signal: String,
        /// Time, s.
        t: f64,
    },
    /// A signal left its physical range.
    OutOfRange {
        /// Signal name.
        signal: String,
        /// Time it first did, s.
        t: f64,
        /// Its value then, in display units.
        value: String,
        /// The range, in display units.
        range: String,
    },
    /// A signal ended too far from its target.
    WrongFinal {
        /// Signal name.
        signal: String,
        /// The final value, in display units.
        value: String,
        /// The target, in display units, and its source.
        target: String,
        /// The signed distance, in display units and in % of the target.
        off_by: String,
    },
}

impl Problem {
    /// The problem as a short phrase.
    pub fn text(&self) -> String {
        match self {
            Problem::Failed(why) => format!("FAILED: {why}"),
            Problem::Diverged { signal, t } => {
                format!("DIVERGED: {signal} non-finite at t = {} s", number(*t))
            }
            Problem::OutOfRange {
                signal,
                t,
                value,
                range,
            } => format!(
                "OUT OF RANGE: {signal} = {value} at t = {} s (physical {range})",
                number(*t)
            ),
            Problem::WrongFinal {
                signal,
                value,
                target,
                off_by,
            } => format!("WRONG END VALUE: {signal} = {value} vs {target} ({off_by})"),
        }
    }
}

impl Status {
    /// `ok`, or the problems joined by `; `.
    pub fn text(&self) -> String {
        match self {
            Status::Ok => "ok".to_string(),
            Status::Problems(p) => p.iter().map(Problem::text).collect::<Vec<_>>().join("; "),
        }
    }

    /// Whether nothing is wrong.
    pub fn is_ok(&self) -> bool {
        *self == Status::Ok
    }
}

/// The status of a run from its `doStep` failure (if any) and the watched
/// signals. A failed run is not judged on its final values (it stopped
/// early); a diverged signal is not judged on its range or final value.
pub fn classify(step_failure: Option<&str>, watches: &[Watch]) -> Status {
    let mut problems = Vec::new();
    if let Some(why) = step_failure {
        problems.push(Problem::Failed(why.to_string()));
    }
    for w in watches {
        let e = &w.expect;
        if let Some(t) = w.non_finite {
            problems.push(Problem::Diverged {
                signal: e.name.clone(),
                t,
            });
            continue;
        }
        if let Some((t, v)) = w.outside {
            problems.push(Problem::OutOfRange {
                signal: e.name.clone(),
                t,
                value: e.unit.show(v),
                range: format!(
                    "{}..{}",
                    number(e.unit.value(e.range.0)),
                    e.unit.show(e.range.1)
                ),
            });
        }
        if step_failure.is_some() {
            continue;
        }
        if let (Some(target), Some(last)) = (&e.target, w.last()) {
            let off = last - target.value;
            if off.abs() > target.tolerance {
                let percent = if target.value != 0.0 {
                    format!(" = {:+.3} %", 100.0 * off / target.value.abs())
                } else {
                    String::new()
                };
                problems.push(Problem::WrongFinal {
                    signal: e.name.clone(),
                    value: e.unit.show(last),
                    target: format!("{} {}", target.source, e.unit.show(target.value)),
                    off_by: format!(
                        "{}{} {}{percent}",
                        if off > 0.0 { "+" } else { "" },
                        number(e.unit.delta(off)),
                        e.unit.name
                    ),
                });
            }
        }
    }
    // Worst first: failures, divergence, range, then final values.
    let rank = |p: &Problem| match p {
        Problem::Failed(_) => 0,
        Problem::Diverged { .. } => 1,
        Problem::OutOfRange { .. } => 2,
        Problem::WrongFinal { .. } => 3,
    };
    problems.sort_by_key(rank);
    if problems.is_empty() {
        Status::Ok
    } else {
        Status::Problems(problems)
    }
}

/// The integrator's counters that every FMU of this project exposes
/// (fmu-core's `solver_*` variables), totals since initialization.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SolverCounts {
    /// Right-hand-side evaluations (`solver_rhs_evals`).
    pub rhs_evals: f64,
    /// Jacobian evaluations (`solver_jacobian_evals`).
    pub jacobians: f64,
    /// Accepted substeps (`solver_steps`).
    pub steps: f64,
    /// Rejected substeps (`solver_rejected`).
    pub rejected: f64,
}

impl SolverCounts {
    /// Reads the counters of an instance.
    pub fn read(inst: &Instance<'_>) -> Result<Self> {
        Ok(SolverCounts {
            rhs_evals: inst.get("solver_rhs_evals")?,
            jacobians: inst.get("solver_jacobian_evals")?,
            steps: inst.get("solver_steps")?,
            rejected: inst.get("solver_rejected")?,
        })
    }
}

/// The spread of the `doStep` times of a run, s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    /// Median.
    pub median: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Slowest call.
    pub worst: f64,
}

impl Latency {
    /// The latencies of the given call times, s (any order; NaN when empty).
    pub fn of(mut times: Vec<f64>) -> Self {
        times.sort_by(f64::total_cmp);
        Latency {
            median: percentile(&times, 0.5),
            p999: percentile(&times, 0.999),
            worst: times.last().copied().unwrap_or(f64::NAN),
        }
    }
}

/// What [`timed_steps`] measured.
#[derive(Debug, Clone)]
pub struct TimedRun {
    /// Wall time of the whole loop (input sets, samples and `doStep`s), s.
    pub wall: f64,
    /// Time reached: the end of the last successful step, s.
    pub t_end: f64,
    /// Why the loop stopped early (a `doStep` status other than OK).
    pub failure: Option<String>,
    /// Per sampled signal, its values at every `every`-th communication
    /// point from t = 0 on.
    pub samples: Vec<Vec<f64>>,
    /// Time between two samples, s.
    pub sample_dt: f64,
    /// Per sampled signal, its value at [`TimedRun::t_end`] (read after the
    /// timing).
    pub finals: Vec<f64>,
    /// The `doStep` times.
    pub latency: Latency,
    /// The integrator's counters at the end.
    pub counts: SolverCounts,
}

impl TimedRun {
    /// Simulated time over wall time.
    pub fn realtime_factor(&self) -> f64 {
        self.t_end / self.wall
    }

    /// The status of the run (see [`classify`]) when its sampled signals
    /// are expected to do what `expect` says, one expectation per signal in
    /// the same order; the final values count as the last samples.
    pub fn status(&self, expect: &[Expectation]) -> Status {
        let mut watches: Vec<Watch> = expect.iter().cloned().map(Watch::new).collect();
        for ((watch, samples), &last) in watches.iter_mut().zip(&self.samples).zip(&self.finals) {
            let time: Vec<f64> = (0..samples.len())
                .map(|k| k as f64 * self.sample_dt)
                .collect();
            watch.observe_all(&time, samples);
            watch.observe(self.t_end, last);
        }
        classify(self.failure.as_deref(), &watches)
    }
}

/// A `doStep` that did not return OK.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepFailure {
    /// The status it returned.
    pub status: i32,
    /// The communication point it started from, s.
    pub t: f64,
}

/// What [`timed_do_steps`] measured.
#[derive(Debug, Clone)]
pub struct StepTimes {
    /// Wall time of the whole loop (what is done at the communication
    /// points and the `doStep`s), s.
    pub wall: f64,
    /// The wall time of each `doStep` call, s, in call order.
    pub steps: Vec<f64>,
    /// Time reached: the end of the last successful step, s.
    pub t_end: f64,
    /// The first `doStep` that did not return OK (the loop stopped there).
    pub failure: Option<StepFailure>,
    /// The integrator's counters after the loop.
    pub counts: SolverCounts,
}

/// The one timed `doStep` loop of the benchmarks: runs an initialized
/// instance from t = 0 in `n` communication steps of `h`, timing each
/// `doStep` and the whole loop. At every communication point k = 0 ..= n
/// (before step k; k = n is the end) `at_point(inst, k)` does what the
/// benchmark does there: set the inputs of its schedule, read the signals
/// it samples. Stops at the first `doStep` that does not return OK; the
/// solver counters ([`SolverCounts`]) are read after the loop.
pub fn timed_do_steps(
    inst: &mut Instance<'_>,
    h: f64,
    n: usize,
    mut at_point: impl FnMut(&mut Instance<'_>, usize) -> Result<()>,
) -> Result<StepTimes> {
    let mut steps = Vec::with_capacity(n);
    let (mut failure, mut t_end) = (None, 0.0);
    let started = Instant::now();
    for k in 0..=n {
        at_point(inst, k)?;
        if k == n {
            break;
        }
        let t = k as f64 * h;
        let t0 = Instant::now();
        let status = inst.do_step(t, h);
        steps.push(t0.elapsed().as_secs_f64());
        if status != crate::fmi::status::OK {
            failure = Some(StepFailure { status, t });
            break;
        }
        t_end = t + h;
    }
    let wall = started.elapsed().as_secs_f64();
    Ok(StepTimes {
        wall,
        steps,
        t_end,
        failure,
        counts: SolverCounts::read(inst)?,
    })
}

/// Runs an initialized instance from t = 0 to `stop` in communication steps
/// of `h` ([`timed_do_steps`]): before every step the input `input` (a
/// value reference) is set to `value(t)`, and at every `every`-th
/// communication point (t = 0 included) the `signals` are read. Stops early
/// at the first `doStep` that does not return OK.
pub fn timed_steps(
    inst: &mut Instance<'_>,
    input: u32,
    value: impl Fn(f64) -> f64,
    h: f64,
    stop: f64,
    signals: &[u32],
    every: usize,
) -> Result<TimedRun> {
    ensure!(
        h > 0.0 && stop > 0.0 && every > 0,
        "bad step, stop or sampling"
    );
    let n = (stop / h).round() as usize;
    let mut samples = vec![Vec::with_capacity(n / every + 1); signals.len()];
    let timed = timed_do_steps(inst, h, n, |inst, k| {
        if k % every == 0 {
            for (trace, &vr) in samples.iter_mut().zip(signals) {
                trace.push(inst.get_vr(vr)?);
            }
        }
        if k < n {
            inst.set_vr(input, value(k as f64 * h))?;
        }
        Ok(())
    })?;
    let finals = signals
        .iter()
        .map(|&vr| inst.get_vr(vr))
        .collect::<Result<_>>()?;
    Ok(TimedRun {
        wall: timed.wall,
        t_end: timed.t_end,
        failure: timed
            .failure
            .map(|f| format!("doStep status {} at t = {:.3} s", f.status, f.t)),
        samples,
        sample_dt: every as f64 * h,
        finals,
        latency: Latency::of(timed.steps),
        counts: timed.counts,
    })
}

/// How a run at communication step `h` meets a reference sampled every
/// `ref_dt`: on the coarser of the two grids. Returns (`every`, `stride`):
/// sample the run at every `every`-th communication point and take every
/// `stride`-th reference row.
pub fn common_grid(h: f64, ref_dt: f64) -> (usize, usize) {
    (
        ((ref_dt / h).round() as usize).max(1),
        ((h / ref_dt).round() as usize).max(1),
    )
}

/// Relative RMS errors in % (see [`relative_rms_percent`]) of the sampled
/// signals `samples` (one per name, as [`TimedRun::samples`]) against the
/// reference's columns of those names, every `stride`-th row, over the
/// samples both have.
pub fn relative_errors(
    reference: &Trace,
    names: &[&str],
    samples: &[Vec<f64>],
    stride: usize,
) -> Result<Vec<f64>> {
    names
        .iter()
        .zip(samples)
        .map(|(name, run)| {
            let reference: Vec<f64> = reference
                .require(name)?
                .iter()
                .step_by(stride)
                .copied()
                .collect();
            let m = run.len().min(reference.len());
            ensure!(m > 0, "no samples of `{name}` to compare");
            Ok(relative_rms_percent(&run[..m], &reference[..m]))
        })
        .collect()
}

/// The smallest count `n` in 1 ..= `limit` for which `passes(n)` holds,
/// for a property that holds from some count on (enough substeps for a
/// fixed-step method to be stable or accurate): doubling from 1, then
/// bisection between the last failing and the first passing count. `None`
/// when even the largest count tried (a power of two, at most `limit`)
/// fails. Every trial is `passes`'s to report.
pub fn fewest_passing(
    limit: u32,
    mut passes: impl FnMut(u32) -> Result<bool>,
) -> Result<Option<u32>> {
    let mut hi = 1;
    while !passes(hi)? {
        if hi.saturating_mul(2) > limit {
            return Ok(None);
        }
        hi *= 2;
    }
    let mut lo = hi / 2;
    while hi > 1 && hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if passes(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(Some(hi))
}

/// Runs every configuration `rounds` times, round after round (not the
/// repeats of one in a row, so that a slow spell of the machine does not hit
/// one configuration only), and keeps per configuration the outcome with
/// the smallest `wall` time. Shows the round on standard error.
pub fn fastest_of<C, O>(
    rounds: u32,
    configs: &[C],
    mut run: impl FnMut(&C) -> Result<O>,
    wall: impl Fn(&O) -> f64,
) -> Result<Vec<O>> {
    let mut best: Vec<Option<O>> = configs.iter().map(|_| None).collect();
    for round in 0..rounds.max(1) {
        eprint!("\rround {}/{}", round + 1, rounds.max(1));
        for (c, slot) in configs.iter().zip(best.iter_mut()) {
            let o = run(c)?;
            if slot.as_ref().is_none_or(|b| wall(&o) < wall(b)) {
                *slot = Some(o);
            }
        }
    }
    eprintln!();
    Ok(best.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fewest_passing_finds_the_threshold_with_few_trials() {
        for threshold in [1u32, 2, 3, 7, 29, 100, 1000] {
            let mut tried = Vec::new();
            let found = fewest_passing(1 << 14, |n| {
                tried.push(n);
                Ok(n >= threshold)
            })
            .unwrap();
            assert_eq!(found, Some(threshold));
            assert!(tried.len() <= 2 * 11, "{threshold}: {tried:?}");
        }
        assert_eq!(fewest_passing(64, |_| Ok(false)).unwrap(), None);
        assert!(fewest_passing(8, |_| anyhow::bail!("no")).is_err());
    }

    /// A pressure that must stay within 0..100 bar and end at 33.333 bar.
    fn pressure() -> Watch {
        Watch::new(Expectation {
            name: "p2".into(),
            unit: DisplayUnit::for_si("Pa"),
            range: (0.0, 1e7),
            target: Some(Target {
                value: 1e7 / 3.0,
                tolerance: 1e2,
                source: "analytic steady state".into(),
            }),
        })
    }

    fn run(values: &[f64]) -> Watch {
        let mut w = pressure();
        let time: Vec<f64> = (0..values.len()).map(|k| k as f64 * 1e-3).collect();
        w.observe_all(&time, values);
        w
    }

    #[test]
    fn a_settled_run_is_ok() {
        let w = run(&[0.0, 2e6, 3.3e6, 1e7 / 3.0 + 50.0]);
        assert_eq!(classify(None, &[w]), Status::Ok);
        assert_eq!(Status::Ok.text(), "ok");
    }

    #[test]
    fn non_finite_values_are_divergence() {
        let w = run(&[0.0, 5e6, f64::INFINITY, f64::NAN]);
        let s = classify(None, &[w]);
        assert_eq!(
            s,
            Status::Problems(vec![Problem::Diverged {
                signal: "p2".into(),
                t: 2e-3
            }])
        );
        assert!(s.text().starts_with("DIVERGED: p2"), "{}", s.text());
    }

    #[test]
    fn leaving_the_range_and_a_wrong_end_are_both_reported() {
        // Oscillating through negative pressures, ending at -43.5 bar.
        let w = run(&[0.0, 6e6, -2e6, 4e6, -4.35e6]);
        let s = classify(None, &[w]);
        let Status::Problems(p) = &s else {
            panic!("{s:?} is ok")
        };
        assert_eq!(p.len(), 2);
        assert!(matches!(&p[0], Problem::OutOfRange { t, value, .. }
            if (*t - 2e-3).abs() < 1e-12 && value == "-20 bar"));
        let text = s.text();
        assert!(text.contains("physical 0..100 bar"), "{text}");
        assert!(
            text.contains(
                "WRONG END VALUE: p2 = -43.5 bar vs analytic steady state 33.333 bar \
                 (-76.833 bar = -230.500 %)"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_wrong_steady_state_within_the_range_is_reported() {
        let w = run(&[0.0, 2e6, 3.0e6]);
        let text = classify(None, &[w]).text();
        assert_eq!(
            text,
            "WRONG END VALUE: p2 = 30 bar vs analytic steady state 33.333 bar \
             (-3.3333 bar = -10.000 %)"
        );
    }

    #[test]
    fn a_failed_step_is_not_judged_on_its_end_value() {
        let w = run(&[0.0, 2e6]);
        let s = classify(Some("doStep status 3 at t = 0.002 s"), &[w]);
        assert_eq!(s.text(), "FAILED: doStep status 3 at t = 0.002 s");
        // Without a target and within range, only the failure counts.
        let mut w = pressure();
        w.expect.target = None;
        w.observe(0.0, 1.0);
        assert!(classify(None, &[w]).is_ok());
    }

    #[test]
    fn latencies_grids_and_errors() {
        let l = Latency::of(vec![3.0, 1.0, 2.0]);
        assert_eq!((l.median, l.p999, l.worst), (2.0, 3.0, 3.0));
        assert!(Latency::of(Vec::new()).worst.is_nan());
        // A 1 ms run against a 1 ms reference, a 10 ms run against it, a
        // 0.1 ms run against it.
        assert_eq!(common_grid(1e-3, 1e-3), (1, 1));
        assert_eq!(common_grid(1e-2, 1e-3), (1, 10));
        assert_eq!(common_grid(1e-4, 1e-3), (10, 1));
        let reference = Trace {
            names: vec!["y".into()],
            time: vec![0.0, 1.0, 2.0, 3.0, 4.0],
            columns: vec![vec![1.0, 9.0, -3.0, 9.0, 2.0]],
        };
        // Rows 0, 2, 4 (1, -3, 2): an offset of 0.1 over a mean of 2 is 5 %.
        let e = relative_errors(&reference, &["y"], &[vec![1.1, -2.9, 2.1]], 2).unwrap();
        assert!((e[0] - 5.0).abs() < 1e-12);
        assert!(relative_errors(&reference, &["z"], &[vec![1.0]], 1).is_err());
    }

    #[test]
    fn the_fastest_round_is_kept() {
        let mut walls = vec![5.0, 1.0, 3.0, 2.0, 4.0, 0.5].into_iter();
        let best = fastest_of(
            3,
            &["a", "b"],
            |c| Ok((c.to_string(), walls.next().unwrap())),
            |o| o.1,
        )
        .unwrap();
        assert_eq!(best, [("a".to_string(), 3.0), ("b".to_string(), 0.5)]);
    }
}
