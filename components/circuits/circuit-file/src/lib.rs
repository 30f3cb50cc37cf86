//! Circuit description files: a hydraulic circuit written as a TOML file,
//! read into a composed circuit ([`fmu_core::compose::Assembly`]) with its
//! FMU inputs, outputs and default experiment.
//!
//! # The format
//!
//! ```toml
//! [circuit]
//! name = "PumpRelief"        # the FMU's model identifier: [A-Za-z_][A-Za-z0-9_]*
//! description = "A pump into a chamber with a relief valve"
//!
//! [experiment]               # optional: the FMU's default experiment
//! start_time = "0 s"
//! stop_time = "2 s"
//! step_size = "1 ms"
//! tolerance = 1e-6
//!
//! [parts.tank]               # one table per part: its name, its type ...
//! type = "Tank"
//!
//! [parts.pump]
//! type = "ConstantFlowPump"
//! Q = "25 L/min"             # ... and its parameters, in SI or with a unit
//!
//! [parts.line]
//! type = "Chamber"
//! V = "0.5 L"
//! p0 = "1 bar"
//!
//! [parts.relief]
//! type = "ReliefValve"
//! p_crack = "210 bar"
//! gain = "1e-9 m3/(s Pa)"
//!
//! [[nodes]]                  # each node: the ports it joins
//! ports = ["tank.T", "pump.T", "relief.T"]
//!
//! [[nodes]]
//! ports = ["pump.P", "line.A", "relief.P"]
//!
//! [[outputs]]                # any part state or port variable
//! name = "p_line"
//! of = "line.p"
//! display_unit = "bar"
//! ```
//!
//! * Parts are named by the keys of `[parts]` (a letter, then letters,
//!   digits and `_`); `type` is one of [`registry::part_types`], and every
//!   other key is one of that type's parameters. A value is a number (SI)
//!   or a string of a number and a unit (`"210 bar"`, `"25 L/min"`,
//!   `"40 mm"`, `"1500 rpm"`, `"16 cm3/rev"`; see [`units`]); a unit of the
//!   wrong dimension is an error.
//! * `[[nodes]]` lists the ports (`part.port`) each node joins. Every port
//!   that must be connected is in exactly one node, a node joins ports of
//!   one domain, and exactly one part (or FMU input) sets each node's
//!   pressure (motion, signal): two valves meet in a volume.
//! * `[[inputs]]`: an FMU input named `name` that either sets the across
//!   value of the node holding a port (`sets = "supply.P"` for a
//!   hydraulic port's pressure or a signal, `"m.rod.s"` for one variable of
//!   a mechanical port) or delivers a through value into that node
//!   (`sets = "line.A.q"`, a flow; `.f` a force, `.tau` a torque).
//!   Optional: `unit` (must be the quantity's SI unit), `display_unit`,
//!   `start` (a number in SI or a quantity; 0 by default), `description`.
//! * `[[outputs]]`: an FMU output named `name`, `of` a part's state
//!   (`"line.p"`), a port's across value (`"relief.P"` or `"relief.P.p"`,
//!   `"m.rod.v"`) or a port's through value (`"relief.P.q"`, positive into
//!   the part). Optional: `unit`, `display_unit`, `description`.
//! * A signal (a spool's command or travel, a mass's friction force) is in
//!   volts unless its part type says otherwise
//!   ([`registry::signal_unit`]); an input or output on a signal may
//!   name any SI `unit` (`"1"` for a command as a fraction of full
//!   travel, `"m"` for a spool's travel).
//! * Names of parts, inputs and outputs are unique together.
//!
//! [`read`] reports every problem it can find, each as a [`Diagnostic`]
//! with the file, line and column and what to do.

pub mod documentation;
pub mod engine;
pub mod registry;
pub mod schematic;
pub mod units;

mod reader;

pub use documentation::documentation_markdown;
pub use reader::read;

use fmu_core::compose::{Assembly, Part};
use std::fmt;
use std::sync::Arc;

/// A problem in a description: where it is and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file's name as given to [`read`].
    pub file: String,
    /// Line, from 1.
    pub line: usize,
    /// Column (in characters), from 1.
    pub column: usize,
    /// What is wrong and how to put it right.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

/// The default experiment (SI).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Experiment {
    /// Start time, s.
    pub start_time: f64,
    /// Stop time, s, if given.
    pub stop_time: Option<f64>,
    /// Output step size, s, if given.
    pub step_size: Option<f64>,
    /// Relative tolerance, if given.
    pub tolerance: Option<f64>,
}

/// A display unit: its name and the factor from SI (`value_in_unit =
/// si / factor`).
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayUnit {
    /// The unit as written (`bar`).
    pub name: String,
    /// Its factor to SI (`1e5` for bar).
    pub factor: f64,
}

/// What an FMU input drives.
#[derive(Debug, Clone, PartialEq)]
pub enum InputTarget {
    /// The across variable `variable` (`p`, `s`, `v`, `phi`, `w`, `value`)
    /// of the node holding the port `port` (`part.port`).
    Across {
        /// The port, `part.port`.
        port: String,
        /// The variable.
        variable: String,
    },
    /// A through value (flow, force, torque) delivered into the node
    /// holding `port` from outside.
    Through {
        /// The port, `part.port`.
        port: String,
    },
}

/// An FMU input.
#[derive(Debug, Clone, PartialEq)]
pub struct InputSpec {
    /// Its name (the FMU variable).
    pub name: String,
    /// What it drives.
    pub target: InputTarget,
    /// Its SI unit (`Pa`, `m3/s`, `V` for a signal).
    pub unit: String,
    /// The unit a tool shows it in, if given.
    pub display_unit: Option<DisplayUnit>,
    /// Its start value, SI.
    pub start: f64,
    /// Its description.
    pub description: String,
}

/// What an FMU output reads.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputSource {
    /// The state of this index in the assembly's state vector.
    State(usize),
    /// Across variable `variable` (slot index within the domain's across
    /// values) at port `port` of part `part` (indices in the circuit).
    Across {
        /// Part index, in file order.
        part: usize,
        /// Port index within the part.
        port: usize,
        /// Across variable index.
        variable: usize,
    },
    /// The through value at that port, positive into the part.
    Through {
        /// Part index, in file order.
        part: usize,
        /// Port index within the part.
        port: usize,
    },
}

/// An FMU output.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSpec {
    /// Its name (the FMU variable).
    pub name: String,
    /// What it reads, as written (`line.p`, `relief.P.q`).
    pub of: String,
    /// Where its value comes from.
    pub source: OutputSource,
    /// Its SI unit.
    pub unit: String,
    /// The unit a tool shows it in, if given.
    pub display_unit: Option<DisplayUnit>,
    /// Its description.
    pub description: String,
}

/// A circuit read from a description.
#[derive(Debug, Clone)]
pub struct Circuit {
    /// The model identifier.
    pub name: String,
    /// The description.
    pub description: String,
    /// The default experiment.
    pub experiment: Experiment,
    /// The composed circuit.
    pub assembly: Assembly,
    /// The FMU inputs, in the order [`Assembly::evaluate`] takes them.
    pub inputs: Vec<InputSpec>,
    /// The FMU outputs.
    pub outputs: Vec<OutputSpec>,
    /// The parts (name, type, part), in file order.
    pub parts: Vec<(String, &'static registry::PartType, Arc<dyn Part>)>,
    /// Per output of a port, the slot of its value in
    /// [`Assembly::port_values`] (`None` for an output of a state).
    output_slots: Vec<Option<usize>>,
}

impl Circuit {
    /// The inputs' start values, in order.
    pub fn input_starts(&self) -> Vec<f64> {
        self.inputs.iter().map(|i| i.start).collect()
    }

    /// The outputs' values (SI) at states `x` and inputs `u`, into `y`
    /// (one per output), from one evaluation of the ports' values; no
    /// allocation.
    pub fn output_values(&self, u: &[f64], x: &[f64], y: &mut [f64]) {
        self.assembly.port_values(u, x, |slots| {
            for ((out, at), value) in self.outputs.iter().zip(&self.output_slots).zip(y) {
                *value = match (&out.source, at) {
                    (OutputSource::State(i), _) => x.get(*i).copied().unwrap_or(f64::NAN),
                    (_, Some(k)) => slots.get(*k).copied().unwrap_or(f64::NAN),
                    (_, None) => f64::NAN,
                };
            }
        });
    }
}

/// The candidate closest to `word` (edit distance at most a third of its
/// length, at least 1; a different case counts as close), if any.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .map(|c| {
            let d = if c.eq_ignore_ascii_case(word) {
                0
            } else {
                distance(word, c)
            };
            (d, c)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The Levenshtein distance between `a` and `b`.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for j in 0..b.len() {
            let cost = usize::from(ca != b[j]);
            let next = (row[j + 1] + 1).min(row[j] + 1).min(prev + cost);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_finds_typos() {
        let names = ["Chamber", "Orifice", "ReliefValve"];
        assert_eq!(closest("Chamer", names.iter().copied()), Some("Chamber"));
        assert_eq!(closest("chamber", names.iter().copied()), Some("Chamber"));
        assert_eq!(closest("Pump", names.iter().copied()), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
