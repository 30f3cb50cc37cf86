//! Results of the reliability suite: what a child process reports (one
//! JSON line per event on stdout, behind a marker so that nothing else on
//! stdout can be mistaken for a result) and what the parent sums up.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;

/// The marker in front of every result line of a child process.
pub(crate) const MARKER: &str = "@@reliability ";

/// The categories, in report order.
pub(crate) const CATEGORIES: [&str; 10] = [
    "setters",
    "states",
    "null pointers",
    "value refs/types",
    "doStep args",
    "serialized states",
    "forged states",
    "concurrency",
    "valgrind",
    "RSS",
];

/// One event of a child process.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "t")]
pub(crate) enum Event {
    /// A category starts (progress; names the category a crash hit).
    Begin { cat: String },
    /// A failed case.
    Fail {
        cat: String,
        case: String,
        why: String,
    },
    /// The totals of a category.
    Count {
        cat: String,
        cases: usize,
        passed: usize,
    },
    /// An outcome recorded without a verdict (forged states accepted).
    Info {
        cat: String,
        case: String,
        outcome: String,
    },
    /// The child finished every category.
    Done,
}

/// Sends an event to the parent.
pub(crate) fn emit(event: &Event) {
    let line = serde_json::to_string(event).unwrap_or_default();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{MARKER}{line}");
    let _ = out.flush();
}

/// Counts the cases of the categories of one child and reports each
/// failure once, as it happens.
#[derive(Default)]
pub(crate) struct Tally {
    counts: BTreeMap<String, (usize, usize)>,
}

impl Tally {
    /// Records one case of `cat`.
    pub(crate) fn case(&mut self, cat: &str, case: impl Into<String>, result: Result<(), String>) {
        let entry = self.counts.entry(cat.to_owned()).or_default();
        entry.0 += 1;
        match result {
            Ok(()) => entry.1 += 1,
            Err(why) => emit(&Event::Fail {
                cat: cat.to_owned(),
                case: case.into(),
                why,
            }),
        }
    }

    /// Announces a category.
    pub(crate) fn begin(&mut self, cat: &str) {
        self.counts.entry(cat.to_owned()).or_default();
        emit(&Event::Begin {
            cat: cat.to_owned(),
        });
    }

    /// Reports the totals of a category.
    pub(crate) fn end(&mut self, cat: &str) {
        let (cases, passed) = self.counts.get(cat).copied().unwrap_or_default();
        emit(&Event::Count {
            cat: cat.to_owned(),
            cases,
            passed,
        });
    }
}
