//! What the co-simulation tools (`cosim-valve-actuator`, `cosim-four-bar`)
//! have in common once their master loops have run: the table of coupling
//! errors (relative RMS in %, largest difference in the signal's display
//! unit), the CSV of every trace (SI units, the unit in each column header)
//! and the PNG that overlays the monolithic and the coupled traces with
//! their difference underneath.
//!
//! A tool samples each run on the same grid, one trace per compared signal,
//! and hands over one or more monolithic [`Reference`] runs and the
//! [`CoupledRun`]s, each of which names the reference it is compared with.

use crate::fmi::fmu3::Fmu3;
use crate::harness::plot::{Corner, Curve, Figure, LegendEntry, Panel, Scale};
use crate::harness::units::{DisplayUnit, significant};
use crate::{max_abs_error, relative_rms_percent, repo_root};
use anyhow::Result;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A monolithic run the coupled runs are compared with.
#[derive(Debug, Clone)]
pub struct Reference {
    /// Label in the CSV headers (`<signal> <label> [<unit>]`).
    pub label: String,
    /// Label in the figure's legend.
    pub legend: String,
    /// One trace per compared signal, SI.
    pub traces: Vec<Vec<f64>>,
}

/// One coupled run.
#[derive(Debug, Clone)]
pub struct CoupledRun {
    /// Communication step, s.
    pub step: f64,
    /// Index of the [`Reference`] this run is compared with.
    pub reference: usize,
    /// Label in the figure's legend.
    pub legend: String,
    /// One trace per compared signal, SI.
    pub traces: Vec<Vec<f64>>,
}

/// The runs of one study, sampled on one time grid.
#[derive(Debug, Clone, Default)]
pub struct Runs {
    /// Sample times, s.
    pub time: Vec<f64>,
    /// The monolithic runs.
    pub references: Vec<Reference>,
    /// The coupled runs.
    pub coupled: Vec<CoupledRun>,
}

/// The compared signals of a coupled-versus-monolithic study, with their
/// SI and display units (taken from the monolithic FMU).
#[derive(Debug, Clone)]
pub struct Comparison {
    /// Signal names (the same in the monolithic and the coupled FMUs).
    pub signals: Vec<String>,
    /// Display unit per signal.
    pub units: Vec<DisplayUnit>,
    /// SI unit per signal (`1` when the FMU declares none).
    pub si: Vec<String>,
}

impl Comparison {
    /// The signals' units as the monolithic FMU declares them.
    pub fn new(monolithic: &Fmu3, signals: &[&str]) -> Self {
        let description = &monolithic.description;
        Comparison {
            signals: signals.iter().map(|s| s.to_string()).collect(),
            units: signals
                .iter()
                .map(|s| DisplayUnit::of(description, s))
                .collect(),
            si: signals
                .iter()
                .map(|s| {
                    description
                        .variable_by_name(s)
                        .and_then(|v| v.unit.clone())
                        .unwrap_or_else(|| "1".into())
                })
                .collect(),
        }
    }

    /// The table's column headers after the caller's leading columns
    /// (`lead`, already padded): per signal its RMS [%] and max [unit]
    /// (at least 10 and 12 characters wide, wider for a long name).
    pub fn header(&self, lead: &str) -> String {
        let mut line = lead.to_string();
        for (rms, max) in self.labels() {
            let _ = write!(
                line,
                " {rms:>w1$} {max:>w2$}",
                w1 = rms.len().max(10),
                w2 = max.len().max(12)
            );
        }
        line
    }

    /// Per signal, the labels of its two table columns.
    fn labels(&self) -> Vec<(String, String)> {
        self.signals
            .iter()
            .zip(&self.units)
            .map(|(s, u)| (format!("{s} RMS [%]"), format!("{s} max [{}]", u.name)))
            .collect()
    }

    /// One table row: the caller's leading columns (`lead`), then per
    /// signal the relative RMS difference [%] and the largest difference in
    /// its display unit, three significant digits.
    pub fn row(&self, lead: &str, run: &[Vec<f64>], reference: &[Vec<f64>]) -> String {
        let mut line = lead.to_string();
        let columns = run
            .iter()
            .zip(reference)
            .zip(&self.units)
            .zip(self.labels());
        for (((r, m), unit), (rms, max)) in columns {
            let _ = write!(
                line,
                " {:>w1$} {:>w2$}",
                significant(relative_rms_percent(r, m), 3),
                significant(unit.delta(max_abs_error(r, m)), 3),
                w1 = rms.len().max(10),
                w2 = max.len().max(12)
            );
        }
        line
    }

    /// Writes the traces as CSV in SI units, the unit in each header:
    /// `time [s]`, `<signal> <reference label> [<unit>]` for every
    /// reference, then `<signal> coupled <h> s [<unit>]` for every run.
    pub fn write_csv(&self, path: &Path, runs: &Runs) -> Result<()> {
        let (time, references, runs) = (&runs.time, &runs.references, &runs.coupled);
        let mut header = vec!["time [s]".to_string()];
        let mut columns: Vec<&[f64]> = vec![time.as_slice()];
        for reference in references {
            for ((s, si), trace) in self.signals.iter().zip(&self.si).zip(&reference.traces) {
                header.push(format!("{s} {} [{si}]", reference.label));
                columns.push(trace);
            }
        }
        for run in runs {
            for ((s, si), trace) in self.signals.iter().zip(&self.si).zip(&run.traces) {
                header.push(format!("{s} coupled {:e} s [{si}]", run.step));
                columns.push(trace);
            }
        }
        let rows = columns.iter().map(|c| c.len()).min().unwrap_or(0);
        let mut text = header.join(",");
        text.push('\n');
        for r in 0..rows {
            let row: Vec<String> = columns.iter().map(|c| format!("{:e}", c[r])).collect();
            writeln!(text, "{}", row.join(","))?;
        }
        std::fs::write(path, text)?;
        Ok(())
    }

    /// Per signal, the monolithic traces (solid) and the coupled ones
    /// (dashed) on the left, each coupled run minus its reference on the
    /// right, in display units. Reference `k` is drawn in palette colour
    /// `5 + k`, run `k` in colour `k`.
    pub fn figure(&self, title: String, runs: &Runs) -> Figure {
        let (time, references, runs) = (&runs.time, &runs.references, &runs.coupled);
        let mut panels = Vec::new();
        for (i, (name, unit)) in self.signals.iter().zip(&self.units).enumerate() {
            let shown = |trace: &[f64]| trace.iter().map(|&v| unit.value(v)).collect::<Vec<_>>();
            let curve = |y: Vec<f64>, color: usize, dashed: bool| Curve {
                label: String::new(),
                x: time.to_vec(),
                y,
                color,
                dashed,
            };
            let mut traces: Vec<Curve> = references
                .iter()
                .enumerate()
                .map(|(k, r)| curve(shown(&r.traces[i]), 5 + k, false))
                .collect();
            let mut differences = Vec::new();
            for (k, run) in runs.iter().enumerate() {
                traces.push(curve(shown(&run.traces[i]), k, true));
                let reference = &references[run.reference].traces[i];
                let diff = run.traces[i]
                    .iter()
                    .zip(reference)
                    .map(|(a, b)| unit.delta(a - b))
                    .collect();
                differences.push(curve(diff, k, false));
            }
            let last = i + 1 == self.signals.len();
            let x_label = if last { "time [s]" } else { "" }.to_string();
            panels.push(Panel {
                legend_at: Corner::UpperLeft,
                caption: format!("{name} [{}]", unit.name),
                y_label: format!("{name} [{}]", unit.name),
                y_scale: Scale::Linear,
                x_label: x_label.clone(),
                x_scale: Scale::Linear,
                curves: traces,
            });
            panels.push(Panel {
                legend_at: Corner::UpperLeft,
                caption: format!("{name}: coupled - monolithic [{}]", unit.name),
                y_label: format!("difference [{}]", unit.name),
                y_scale: Scale::Linear,
                x_label,
                x_scale: Scale::Linear,
                curves: differences,
            });
        }
        let mut legend: Vec<LegendEntry> = references
            .iter()
            .enumerate()
            .map(|(k, r)| LegendEntry {
                label: r.legend.clone(),
                color: 5 + k,
                dashed: false,
            })
            .collect();
        legend.extend(runs.iter().enumerate().map(|(k, run)| LegendEntry {
            label: run.legend.clone(),
            color: k,
            dashed: true,
        }));
        Figure {
            title,
            legend,
            columns: 2,
            width: 1500,
            row_height: 270,
            panels,
        }
    }

    /// Writes `<out>/<stem>.csv` and, unless `no_plot`, `<out>/<stem>.png`
    /// (a missing font only skips the plot, with a note); returns the
    /// paths written.
    pub fn write_files(
        &self,
        out: &Path,
        stem: &str,
        title: String,
        runs: &Runs,
        no_plot: bool,
    ) -> Result<Vec<PathBuf>> {
        let csv = out.join(format!("{stem}.csv"));
        self.write_csv(&csv, runs)?;
        let mut written = vec![csv.clone()];
        if !no_plot {
            let png = csv.with_extension("png");
            match crate::harness::plot::draw_png(&self.figure(title, runs), &png) {
                Ok(()) => written.push(png),
                Err(e) => eprintln!("note: no plot ({e:#})"),
            }
        }
        Ok(written)
    }
}

/// A path given on the command line: absolute as is, relative to the
/// repository root otherwise (the tools run from any folder).
pub fn in_repo(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        repo_root().join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comparison() -> Comparison {
        Comparison {
            signals: vec!["p".into(), "x".into()],
            units: vec![DisplayUnit::for_si("Pa"), DisplayUnit::for_si("m")],
            si: vec!["Pa".into(), "m".into()],
        }
    }

    #[test]
    fn table_rows_in_display_units() {
        let c = comparison();
        let reference = vec![vec![1e5, 1e5], vec![1.0, 1.0]];
        let run = vec![vec![1e5, 1.01e5], vec![1.0, 1.002]];
        let row = c.row("lead", &run, &reference);
        // p: RMS of (0, 1000) = 707.1 over a mean of 1e5 -> 0.707 %; 1000 Pa = 0.01 bar.
        // x: 2 mm at most.
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells, ["lead", "0.707", "0.01", "0.141", "2"]);
        assert!(c.header("").contains("p max [bar]"));
        assert!(c.header("").contains("x max [mm]"));
    }

    #[test]
    fn csv_has_units_and_every_run() {
        let c = comparison();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        let references = vec![Reference {
            label: "monolithic".into(),
            legend: String::new(),
            traces: vec![vec![1.0, 2.0], vec![3.0, 4.0]],
        }];
        let coupled = vec![CoupledRun {
            step: 1e-3,
            reference: 0,
            legend: String::new(),
            traces: vec![vec![1.5, 2.5], vec![3.5, 4.5]],
        }];
        let runs = Runs {
            time: vec![0.0, 0.01],
            references,
            coupled,
        };
        c.write_csv(&path, &runs).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next().unwrap(),
            "time [s],p monolithic [Pa],x monolithic [m],p coupled 1e-3 s [Pa],x coupled 1e-3 s [m]"
        );
        assert_eq!(lines.next().unwrap(), "0e0,1e0,3e0,1.5e0,3.5e0");
        assert_eq!(lines.count(), 1);
        let figure = c.figure("t".into(), &runs);
        assert_eq!(figure.panels.len(), 4);
        assert_eq!(figure.legend.len(), 2);
    }
}
