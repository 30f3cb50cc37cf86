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

use crate::units::{DisplayUnit, number};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
