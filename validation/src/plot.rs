//! PNG figures of the tools (`freq-response`, `cosim-valve-actuator`),
//! drawn in Rust with `plotters`: a grid of panels, each with its own axes,
//! a caption, curves and a legend. Text needs a TrueType font: the system's
//! sans-serif font is found at run time (`fc-match`, then the usual
//! DejaVu/Liberation paths); without one the tools skip the PNG and say so.

use anyhow::{Context, Result, anyhow, bail};
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The font family the figures use (registered by [`font_ready`]).
const FAMILY: &str = "sans-serif";

/// How an axis maps values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Linear.
    Linear,
    /// Logarithmic (values must be > 0; others are left out).
    Log,
}

/// One curve.
#[derive(Debug, Clone)]
pub struct Curve {
    /// Legend text (empty: not in the panel's legend).
    pub label: String,
    /// Abscissae.
    pub x: Vec<f64>,
    /// Ordinates (same length as `x`); non-finite points are left out.
    pub y: Vec<f64>,
    /// Index into the palette.
    pub color: usize,
    /// Drawn dashed.
    pub dashed: bool,
}

/// Where a panel's legend goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Corner {
    /// Upper left.
    #[default]
    UpperLeft,
    /// Upper right.
    UpperRight,
    /// Lower left.
    LowerLeft,
    /// Lower right.
    LowerRight,
}

/// One panel: a caption above, axes, curves, a legend.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Where the legend of the labelled curves goes.
    pub legend_at: Corner,
    /// Caption above the panel (what is plotted, with units).
    pub caption: String,
    /// Short y-axis label, e.g. `[bar]`.
    pub y_label: String,
    /// Y scale.
    pub y_scale: Scale,
    /// X-axis label, e.g. `frequency [Hz]`.
    pub x_label: String,
    /// X scale.
    pub x_scale: Scale,
    /// The curves.
    pub curves: Vec<Curve>,
}

/// An entry of a figure-wide legend.
#[derive(Debug, Clone)]
pub struct LegendEntry {
    /// Text.
    pub label: String,
    /// Index into the palette.
    pub color: usize,
    /// Dashed line.
    pub dashed: bool,
}

/// A figure: a title and panels in a grid filled row by row.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Title over the figure.
    pub title: String,
    /// A legend under the title for curves that every panel shares (the
    /// panels' own legends list only curves with a label).
    pub legend: Vec<LegendEntry>,
    /// Panels per row.
    pub columns: usize,
    /// Width of the image, px.
    pub width: u32,
    /// Height of one row of panels, px.
    pub row_height: u32,
    /// The panels.
    pub panels: Vec<Panel>,
}

/// A palette that reads on white and in grey print.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0x1f, 0x4e, 0x9c),
    RGBColor(0xd6, 0x5f, 0x00),
    RGBColor(0x2a, 0x8a, 0x3a),
    RGBColor(0xb0, 0x1e, 0x3a),
    RGBColor(0x6b, 0x3f, 0xa0),
    RGBColor(0x40, 0x40, 0x40),
    RGBColor(0x00, 0x8b, 0x8b),
    RGBColor(0x8c, 0x56, 0x4b),
];

/// The palette color `i` (0 is black-ish blue, see [`PALETTE`]).
fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Registers a TrueType font for the figures once; an error says which
/// package to install.
pub fn font_ready() -> Result<()> {
    static FONT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let found = FONT.get_or_init(|| {
        let path = find_font().ok_or_else(|| {
            "no TrueType font found (install fonts-dejavu-core, or fontconfig and any TTF font)"
                .to_string()
        })?;
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        for style in [FontStyle::Normal, FontStyle::Bold] {
            plotters::style::register_font(FAMILY, style, bytes)
                .map_err(|_| format!("{} is not a usable TrueType font", path.display()))?;
        }
        Ok(path)
    });
    found.as_ref().map(|_| ()).map_err(|e| anyhow!("{e}"))
}

/// The system's sans-serif TrueType font.
fn find_font() -> Option<PathBuf> {
    let is_ttf = |p: &Path| {
        p.is_file()
            && p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("ttf") || e.eq_ignore_ascii_case("otf"))
    };
    if let Ok(out) = std::process::Command::new("fc-match")
        .args(["--format=%{file}", "sans-serif:style=Book"])
        .output()
        && out.status.success()
    {
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if is_ttf(&path) {
            return Some(path);
        }
    }
    [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
        "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| is_ttf(p))
}

/// The range of `values` (finite, and > 0 on a log scale), padded by 4 %
/// of the span (a factor on a log scale); a flat or empty set gets a small
/// range around its value.
fn range(values: impl Iterator<Item = f64>, scale: Scale, pad: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite() && (scale == Scale::Linear || *v > 0.0)) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        return match scale {
            Scale::Linear => (0.0, 1.0),
            Scale::Log => (1.0, 10.0),
        };
    }
    match scale {
        Scale::Linear => {
            let span = if hi > lo {
                hi - lo
            } else {
                lo.abs().max(1.0) * 1e-3
            };
            let margin = if pad { 0.04 * span } else { 0.0 };
            if hi > lo {
                (lo - margin, hi + margin)
            } else {
                (lo - span, hi + span)
            }
        }
        Scale::Log => {
            if hi <= lo {
                return (lo / 2.0, hi * 2.0);
            }
            let f = if pad { (hi / lo).powf(0.04) } else { 1.0 };
            (lo / f, hi * f)
        }
    }
}

/// Draws `figure` into a PNG at `path`.
pub fn draw_png(figure: &Figure, path: &Path) -> Result<()> {
    font_ready()?;
    if figure.panels.is_empty() {
        bail!("a figure without panels");
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let columns = figure.columns.max(1);
    let rows = figure.panels.len().div_ceil(columns);
    let title_height = if figure.legend.is_empty() { 44 } else { 72 };
    let height = title_height + rows as u32 * figure.row_height;
    let root = BitMapBackend::new(path, (figure.width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let (top, body) = root.split_vertically(title_height);
    top.draw(&Text::new(
        figure.title.clone(),
        (12, 12),
        (FAMILY, 20)
            .into_font()
            .style(FontStyle::Bold)
            .color(&BLACK),
    ))
    .map_err(plot_error)?;
    let mut x = 14;
    for entry in &figure.legend {
        let style = ShapeStyle::from(color(entry.color)).stroke_width(2);
        let y = 54;
        if entry.dashed {
            for dash in [0, 12, 24] {
                top.draw(&PathElement::new(
                    vec![(x + dash, y), (x + dash + 7, y)],
                    style,
                ))
                .map_err(plot_error)?;
            }
        } else {
            top.draw(&PathElement::new(vec![(x, y), (x + 31, y)], style))
                .map_err(plot_error)?;
        }
        let font = (FAMILY, 15).into_font().color(&BLACK);
        top.draw(&Text::new(
            entry.label.clone(),
            (x + 40, y - 8),
            font.clone(),
        ))
        .map_err(plot_error)?;
        let (w, _) = top
            .estimate_text_size(&entry.label, &font)
            .map_err(plot_error)?;
        x += 40 + w as i32 + 36;
    }
    let cells = body.split_evenly((rows, columns));
    for (panel, area) in figure.panels.iter().zip(cells.iter()) {
        let x = range(
            panel.curves.iter().flat_map(|c| c.x.iter().copied()),
            panel.x_scale,
            false,
        );
        let y = range(
            panel.curves.iter().flat_map(|c| c.y.iter().copied()),
            panel.y_scale,
            true,
        );
        match (panel.x_scale, panel.y_scale) {
            (Scale::Linear, Scale::Linear) => draw_panel(area, panel, x.0..x.1, y.0..y.1),
            (Scale::Linear, Scale::Log) => {
                draw_panel(area, panel, x.0..x.1, (y.0..y.1).log_scale())
            }
            (Scale::Log, Scale::Linear) => {
                draw_panel(area, panel, (x.0..x.1).log_scale(), y.0..y.1)
            }
            (Scale::Log, Scale::Log) => {
                draw_panel(area, panel, (x.0..x.1).log_scale(), (y.0..y.1).log_scale())
            }
        }?;
    }
    root.present()
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

fn plot_error<E: std::error::Error + Send + Sync + 'static>(e: E) -> anyhow::Error {
    anyhow!("drawing failed: {e}")
}

/// Tick labels: at most four significant digits, exponent notation for
/// very small or large magnitudes; a value within 1e-9 of the axis span of
/// zero is zero (not -5.55e-17).
fn tick(v: f64, span: f64) -> String {
    if v == 0.0 || v.abs() <= 1e-9 * span.abs() {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e5).contains(&a) {
        let text = format!("{v:.2e}");
        // 1.00e-9 -> 1e-9, 2.50e3 -> 2.5e3.
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
        return format!("{mantissa}e{exponent}");
    }
    let text = format!("{v:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

fn draw_panel<DB, X, Y>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    panel: &Panel,
    x: X,
    y: Y,
) -> Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: AsRangedCoord<Value = f64> + Clone,
    Y: AsRangedCoord<Value = f64> + Clone,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let x_span = {
        let r = X::CoordDescType::from(x.clone()).range();
        r.end - r.start
    };
    let y_span = {
        let r = Y::CoordDescType::from(y.clone()).range();
        r.end - r.start
    };
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.caption, (FAMILY, 16))
        .margin(8)
        .margin_right(18)
        .x_label_area_size(38)
        .y_label_area_size(78)
        .build_cartesian_2d(x, y)
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .x_desc(&panel.x_label)
        .y_desc(&panel.y_label)
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(&|v| tick(*v, x_span))
        .y_label_formatter(&|v| tick(*v, y_span))
        .label_style((FAMILY, 13))
        .axis_desc_style((FAMILY, 14))
        .light_line_style(RGBColor(0xee, 0xee, 0xee))
        .bold_line_style(RGBColor(0xcc, 0xcc, 0xcc))
        .draw()
        .map_err(plot_error)?;
    let log_x = panel.x_scale == Scale::Log;
    let log_y = panel.y_scale == Scale::Log;
    let mut labelled = false;
    for curve in &panel.curves {
        let style = ShapeStyle::from(color(curve.color)).stroke_width(2);
        // Non-finite (or, on a log axis, non-positive) points break the line.
        let mut pieces: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for (&a, &b) in curve.x.iter().zip(&curve.y) {
            let ok = a.is_finite() && b.is_finite() && (!log_x || a > 0.0) && (!log_y || b > 0.0);
            if ok {
                pieces.last_mut().expect("a piece").push((a, b));
            } else if !pieces.last().expect("a piece").is_empty() {
                pieces.push(Vec::new());
            }
        }
        for (i, piece) in pieces.into_iter().filter(|p| !p.is_empty()).enumerate() {
            // Solid curves as separate segments: a wide polyline's miter
            // joins shoot far past a sharp spike.
            let anno = if curve.dashed {
                chart
                    .draw_series(DashedLineSeries::new(piece, 7, 5, style))
                    .map_err(plot_error)?
            } else if piece.len() == 1 {
                chart
                    .draw_series(std::iter::once(Circle::new(piece[0], 1, style.filled())))
                    .map_err(plot_error)?
            } else {
                chart
                    .draw_series(
                        piece
                            .windows(2)
                            .map(|w| PathElement::new(vec![w[0], w[1]], style)),
                    )
                    .map_err(plot_error)?
            };
            if i == 0 && !curve.label.is_empty() {
                labelled = true;
                let dashed = curve.dashed;
                anno.label(curve.label.clone()).legend(move |(x, y)| {
                    let end = if dashed { x + 9 } else { x + 20 };
                    PathElement::new(vec![(x, y), (end, y)], style)
                });
            }
        }
    }
    if labelled {
        chart
            .configure_series_labels()
            .position(match panel.legend_at {
                Corner::UpperLeft => SeriesLabelPosition::UpperLeft,
                Corner::UpperRight => SeriesLabelPosition::UpperRight,
                Corner::LowerLeft => SeriesLabelPosition::LowerLeft,
                Corner::LowerRight => SeriesLabelPosition::LowerRight,
            })
            .label_font((FAMILY, 13))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(0xbb, 0xbb, 0xbb))
            .draw()
            .map_err(plot_error)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_ticks() {
        assert_eq!(
            range([1.0, 3.0].into_iter(), Scale::Linear, false),
            (1.0, 3.0)
        );
        let (lo, hi) = range([1.0, 3.0, f64::NAN].into_iter(), Scale::Linear, true);
        assert!((lo - 0.92).abs() < 1e-12 && (hi - 3.08).abs() < 1e-12);
        let (lo, hi) = range([-1.0, 1e-3, 1e3].into_iter(), Scale::Log, false);
        assert_eq!((lo, hi), (1e-3, 1e3));
        let (lo, hi) = range([5.0].into_iter(), Scale::Linear, true);
        assert!(lo < 5.0 && hi > 5.0);
        assert_eq!(tick(100.0, 100.0), "100");
        assert_eq!(tick(0.25, 1.0), "0.25");
        assert_eq!(tick(1e-9, 1e-9), "1e-9");
        assert_eq!(tick(2.5e-8, 1e-7), "2.5e-8");
        assert_eq!(tick(-0.0, 1.0), "0");
        assert_eq!(tick(-5.55e-17, 0.8), "0");
    }
}
