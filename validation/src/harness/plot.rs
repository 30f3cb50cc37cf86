//! PNG figures of the tools (`freq-response`, `cosim-valve-actuator`,
//! `estimate`, `estimator-experiment`), drawn in Rust with `plotters`: a
//! grid of panels, each with its own axes, a caption, curves, shaded bands
//! and a legend, and a legend for the whole figure under its title (wrapped
//! over as many rows as it needs). Logarithmic axes are labelled at
//! 1-2-5, 1-3 or whole decades, whichever fits. Text needs a TrueType font:
//! the system's sans-serif font is found at run time (`fc-match`, then the
//! usual DejaVu/Liberation paths); without one the tools skip the PNG and
//! say so.

use anyhow::{Context, Result, anyhow, bail};
use plotters::coord::combinators::{BindKeyPoints, LogCoord, WithKeyPoints};
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

/// A shaded area between a lower and an upper bound (an estimate's
/// uncertainty band, say), drawn in a light tint of its colour under the
/// curves of one panel (see [`draw_png_with_bands`]). Where the bounds
/// leave the panel's range the band is cut at the axes.
#[derive(Debug, Clone)]
pub struct Band {
    /// Index of the panel in [`Figure::panels`].
    pub panel: usize,
    /// Legend text: the figure's legend lists each labelled band (label and
    /// colour) once, after [`Figure::legend`]; empty: not listed.
    pub label: String,
    /// Abscissae.
    pub x: Vec<f64>,
    /// Lower bounds (same length as `x`); non-finite points leave a gap.
    pub lo: Vec<f64>,
    /// Upper bounds (same length as `x`).
    pub hi: Vec<f64>,
    /// Index into the palette.
    pub color: usize,
    /// Drawn after this many of the panel's curves (0: under them all).
    pub layer: usize,
}

/// Opacity of a band's tint over the white background.
const BAND_ALPHA: f64 = 0.22;

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
    /// panels' own legends list only curves with a label: leave those
    /// labels empty so that the figure has one legend).
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

/// A palette that reads on white and in grey print; the last entry,
/// [`LIGHT_GREY`], is for data in the background (noisy measurements).
const PALETTE: [RGBColor; 9] = [
    RGBColor(0x1f, 0x4e, 0x9c),
    RGBColor(0xd6, 0x5f, 0x00),
    RGBColor(0x2a, 0x8a, 0x3a),
    RGBColor(0xb0, 0x1e, 0x3a),
    RGBColor(0x6b, 0x3f, 0xa0),
    RGBColor(0x40, 0x40, 0x40),
    RGBColor(0x00, 0x8b, 0x8b),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xb4, 0xb4, 0xb4),
];

/// The palette index of a light grey, for data in the background.
pub const LIGHT_GREY: usize = 8;

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
    draw_png_with_bands(figure, &[], path)
}

/// How a legend entry shows its curve or band.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Swatch {
    Line { dashed: bool },
    Area,
}

/// The figure's legend: its entries, then each distinct labelled band.
fn legend_items(figure: &Figure, bands: &[Band]) -> Vec<(String, usize, Swatch)> {
    let mut items: Vec<(String, usize, Swatch)> = figure
        .legend
        .iter()
        .map(|e| (e.label.clone(), e.color, Swatch::Line { dashed: e.dashed }))
        .collect();
    for b in bands.iter().filter(|b| !b.label.is_empty()) {
        let item = (b.label.clone(), b.color, Swatch::Area);
        if !items.contains(&item) {
            items.push(item);
        }
    }
    items
}

/// Legend layout: entries left to right, a new row when the next one would
/// pass the right edge. Returns each entry's (x, row).
fn legend_layout(widths: &[u32], width: u32) -> Vec<(i32, usize)> {
    const START: i32 = 14;
    let mut out = Vec::with_capacity(widths.len());
    let (mut x, mut row) = (START, 0);
    for &w in widths {
        let w = LEGEND_SWATCH + w as i32;
        if x > START && x + w > width as i32 - 10 {
            x = START;
            row += 1;
        }
        out.push((x, row));
        x += w + 36;
    }
    out
}

/// Width of a legend swatch and the gap after it, px.
const LEGEND_SWATCH: i32 = 40;
/// Height of a row of the figure's legend, px.
const LEGEND_ROW: u32 = 26;

/// Draws `figure` into a PNG at `path`, with `bands` shaded under the
/// curves of their panels.
pub fn draw_png_with_bands(figure: &Figure, bands: &[Band], path: &Path) -> Result<()> {
    font_ready()?;
    if figure.panels.is_empty() {
        bail!("a figure without panels");
    }
    if let Some(b) = bands.iter().find(|b| b.panel >= figure.panels.len()) {
        bail!(
            "band '{}' is for panel {} of a figure with {}",
            b.label,
            b.panel,
            figure.panels.len()
        );
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let columns = figure.columns.max(1);
    let rows = figure.panels.len().div_ceil(columns);
    let legend = legend_items(figure, bands);
    let font = (FAMILY, 15).into_font().color(&BLACK);
    let widths = legend
        .iter()
        .map(|(label, _, _)| font.font.box_size(label).map(|(w, _)| w))
        .collect::<Result<Vec<u32>, _>>()
        .map_err(|e| anyhow!("cannot measure the legend's text: {e:?}"))?;
    let layout = legend_layout(&widths, figure.width);
    let legend_rows = layout.last().map_or(0, |&(_, row)| row + 1) as u32;
    let title_height = 44 + legend_rows * LEGEND_ROW + if legend_rows > 0 { 2 } else { 0 };
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
    for ((label, c, swatch), &(x, row)) in legend.iter().zip(&layout) {
        let y = 54 + (row as u32 * LEGEND_ROW) as i32;
        let style = ShapeStyle::from(color(*c)).stroke_width(2);
        match swatch {
            Swatch::Line { dashed: true } => {
                for dash in [0, 12, 24] {
                    top.draw(&PathElement::new(
                        vec![(x + dash, y), (x + dash + 7, y)],
                        style,
                    ))
                    .map_err(plot_error)?;
                }
            }
            Swatch::Line { dashed: false } => {
                top.draw(&PathElement::new(vec![(x, y), (x + 31, y)], style))
                    .map_err(plot_error)?;
            }
            Swatch::Area => {
                top.draw(&Rectangle::new(
                    [(x, y - 7), (x + 31, y + 7)],
                    color(*c).mix(BAND_ALPHA).filled(),
                ))
                .map_err(plot_error)?;
            }
        }
        top.draw(&Text::new(
            label.clone(),
            (x + LEGEND_SWATCH, y - 8),
            font.clone(),
        ))
        .map_err(plot_error)?;
    }
    let cells = body.split_evenly((rows, columns));
    for (i, (panel, area)) in figure.panels.iter().zip(cells.iter()).enumerate() {
        let shaded: Vec<&Band> = bands.iter().filter(|b| b.panel == i).collect();
        let x = range(
            panel
                .curves
                .iter()
                .flat_map(|c| c.x.iter().copied())
                .chain(shaded.iter().flat_map(|b| b.x.iter().copied())),
            panel.x_scale,
            false,
        );
        let y = range(
            panel.curves.iter().flat_map(|c| c.y.iter().copied()).chain(
                shaded
                    .iter()
                    .flat_map(|b| b.lo.iter().chain(&b.hi).copied()),
            ),
            panel.y_scale,
            true,
        );
        let spans = (x.1 - x.0, y.1 - y.0);
        match (panel.x_scale, panel.y_scale) {
            (Scale::Linear, Scale::Linear) => {
                draw_panel(area, panel, &shaded, x.0..x.1, y.0..y.1, spans)
            }
            (Scale::Linear, Scale::Log) => {
                draw_panel(area, panel, &shaded, x.0..x.1, log_axis(y, 6), spans)
            }
            (Scale::Log, Scale::Linear) => {
                draw_panel(area, panel, &shaded, log_axis(x, 8), y.0..y.1, spans)
            }
            (Scale::Log, Scale::Log) => {
                draw_panel(area, panel, &shaded, log_axis(x, 8), log_axis(y, 6), spans)
            }
        }?;
    }
    root.present()
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// A logarithmic axis over `range` with at most `labels` labelled ticks
/// (see [`log_ticks`]) and a light grid line at every whole multiple of a
/// power of ten.
fn log_axis(range: (f64, f64), labels: usize) -> WithKeyPoints<LogCoord<f64>> {
    let (bold, light) = log_ticks(range.0, range.1, labels);
    (range.0..range.1)
        .log_scale()
        .with_key_points(bold)
        .with_light_points(light)
}

/// The ticks of a logarithmic axis from `lo` to `hi` (both > 0): the
/// labelled ones, at most `max` of them (the densest of 1-2-3-...-9, 1-2-5,
/// 1-3 and 1 per decade that fits, else every k-th decade; within less
/// than a decade, evenly spaced round values), and the grid lines between
/// them (every whole multiple of a power of ten over up to six decades).
fn log_ticks(lo: f64, hi: f64, max: usize) -> (Vec<f64>, Vec<f64>) {
    let max = max.max(2);
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return (Vec::new(), Vec::new());
    }
    let first = lo.log10().floor() as i32;
    let last = hi.log10().ceil() as i32;
    let inside = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    let with = |mantissas: &[f64], every: i32| -> Vec<f64> {
        (first..=last)
            .filter(|e| e.rem_euclid(every) == 0)
            .flat_map(|e| mantissas.iter().map(move |m| m * 10f64.powi(e)))
            .filter(inside)
            .collect()
    };
    let light = if last - first <= 6 {
        with(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], 1)
    } else {
        with(&[1.0], 1)
    };
    let mut bold = Vec::new();
    for mantissas in [
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0][..],
        &[1.0, 2.0, 5.0],
        &[1.0, 3.0],
        &[1.0],
    ] {
        let ticks = with(mantissas, 1);
        if ticks.len() <= max {
            bold = ticks;
            break;
        }
    }
    if bold.is_empty() {
        // Many decades: every k-th one.
        let k = ((last - first) as usize).div_ceil(max).max(1) as i32;
        bold = with(&[1.0], k);
    }
    if bold.len() < 2 {
        // Within about a decade: round values evenly spaced.
        let raw = (hi - lo) / max as f64;
        let magnitude = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * magnitude)
            .find(|s| (hi - lo) / s <= max as f64)
            .unwrap_or(10.0 * magnitude);
        let mut v = (lo / step).ceil() * step;
        bold.clear();
        while v <= hi * (1.0 + 1e-12) {
            bold.push(v);
            v += step;
        }
    }
    (bold, light)
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

/// Shades `band` on `chart`: per pixel column of the plotting area, a
/// vertical line from the lowest lower bound to the highest upper bound
/// that falls in that column (bounds interpolated between samples wider
/// apart than a pixel), cut at the axes. Each pixel is drawn once, so the
/// tint is even however dense the samples.
fn shade<DB, X, Y>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
    band: &Band,
    log_x: bool,
    log_y: bool,
) -> Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let (x_px, y_px) = chart.plotting_area().get_pixel_range();
    let (y_lo, y_hi) = {
        let r = chart.y_range();
        (r.start.min(r.end), r.start.max(r.end))
    };
    let width = (x_px.end - x_px.start).max(1) as usize;
    // Per column: the topmost (smallest) and bottommost (largest) pixel row.
    let mut top = vec![i32::MAX; width];
    let mut bottom = vec![i32::MIN; width];
    let mut previous: Option<(i32, i32, i32)> = None;
    for ((&x, &lo), &hi) in band.x.iter().zip(&band.lo).zip(&band.hi) {
        let ok = x.is_finite() && lo.is_finite() && hi.is_finite() && (!log_x || x > 0.0);
        if !ok {
            previous = None;
            continue;
        }
        let (a, b) = (lo.min(hi).clamp(y_lo, y_hi), lo.max(hi).clamp(y_lo, y_hi));
        if log_y && a <= 0.0 {
            previous = None;
            continue;
        }
        let (px, py_lo) = chart.backend_coord(&(x, a));
        let (_, py_hi) = chart.backend_coord(&(x, b));
        let current = (px, py_hi, py_lo);
        let (from, to) = match previous {
            Some(p) if p.0 <= px => (p, current),
            Some(p) => (current, p),
            None => (current, current),
        };
        for column in from.0..=to.0 {
            let f = if to.0 > from.0 {
                (column - from.0) as f64 / (to.0 - from.0) as f64
            } else {
                0.0
            };
            let lerp = |a: i32, b: i32| (a as f64 + f * (b - a) as f64).round() as i32;
            let (t, btm) = if to.0 > from.0 {
                (lerp(from.1, to.1), lerp(from.2, to.2))
            } else {
                (from.1.min(to.1), from.2.max(to.2))
            };
            let i = column - x_px.start;
            if (0..width as i32).contains(&i) {
                let i = i as usize;
                top[i] = top[i].min(t);
                bottom[i] = bottom[i].max(btm);
            }
        }
        previous = Some(current);
    }
    let (dx, dy) = area.get_base_pixel();
    let style = ShapeStyle::from(color(band.color).mix(BAND_ALPHA)).stroke_width(1);
    for (i, (&t, &b)) in top.iter().zip(&bottom).enumerate() {
        if t > b {
            continue;
        }
        let column = x_px.start + i as i32 - dx;
        let (t, b) = (
            t.clamp(y_px.start, y_px.end - 1) - dy,
            b.clamp(y_px.start, y_px.end - 1) - dy,
        );
        area.draw(&PathElement::new(vec![(column, t), (column, b)], style))
            .map_err(plot_error)?;
    }
    Ok(())
}

fn draw_panel<DB, X, Y>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    panel: &Panel,
    bands: &[&Band],
    x: X,
    y: Y,
    (x_span, y_span): (f64, f64),
) -> Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
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
    for layer in 0..=panel.curves.len() {
        for band in bands
            .iter()
            .filter(|b| b.layer.min(panel.curves.len()) == layer)
        {
            shade(area, &chart, band, log_x, log_y)?;
        }
        let Some(curve) = panel.curves.get(layer) else {
            break;
        };
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

    fn close(got: &[f64], want: &[f64]) -> bool {
        got.len() == want.len()
            && got
                .iter()
                .zip(want)
                .all(|(a, b)| (a / b - 1.0).abs() < 1e-12)
    }

    #[test]
    fn log_axes_are_labelled_at_round_values_that_fit() {
        // The Bode plot's 2 .. 150 Hz: 1-2-5 in each decade.
        let (bold, light) = log_ticks(2.0, 150.0, 8);
        assert!(
            close(&bold, &[2.0, 5.0, 10.0, 20.0, 50.0, 100.0]),
            "{bold:?}"
        );
        assert!(close(&light[..3], &[2.0, 3.0, 4.0]), "{light:?}");
        assert_eq!(light.len(), 8 + 9 + 1);
        // Almost three decades in six labels: 1-3.
        let (bold, _) = log_ticks(0.05, 35.0, 6);
        assert!(close(&bold, &[0.1, 0.3, 1.0, 3.0, 10.0, 30.0]), "{bold:?}");
        // Many decades: every third.
        let (bold, light) = log_ticks(1e-12, 1e3, 6);
        assert!(
            close(&bold, &[1e-12, 1e-9, 1e-6, 1e-3, 1.0, 1e3]),
            "{bold:?}"
        );
        assert_eq!(light.len(), 16);
        // Within a decade: the whole multiples, or evenly spaced values.
        let (bold, _) = log_ticks(80.0, 120.0, 8);
        assert!(close(&bold, &[80.0, 90.0, 100.0]), "{bold:?}");
        let (bold, _) = log_ticks(85.0, 95.0, 8);
        assert!(close(&bold, &[86.0, 88.0, 90.0, 92.0, 94.0]), "{bold:?}");
        assert_eq!(log_ticks(0.0, 10.0, 8), (Vec::new(), Vec::new()));
    }

    #[test]
    fn a_long_legend_wraps_onto_more_rows() {
        // Each entry is the swatch (40 px) and its text, 36 px apart.
        assert_eq!(
            legend_layout(&[100, 100, 100], 400),
            [(14, 0), (190, 0), (14, 1)]
        );
        assert_eq!(legend_layout(&[100, 100], 1000), [(14, 0), (190, 0)]);
        // An entry wider than the figure still gets a row of its own.
        assert_eq!(legend_layout(&[900, 10], 400), [(14, 0), (14, 1)]);
    }

    #[test]
    fn bands_join_the_legend_once_and_must_name_a_panel() {
        let band = |panel: usize, label: &str| Band {
            panel,
            label: label.into(),
            x: vec![0.0, 1.0, 2.0],
            lo: vec![-1.0, f64::NAN, 0.0],
            hi: vec![1.0, 2.0, 3.0],
            color: 0,
            layer: 0,
        };
        let figure = Figure {
            title: "bands".into(),
            legend: vec![LegendEntry {
                label: "estimate".into(),
                color: 0,
                dashed: false,
            }],
            columns: 2,
            width: 700,
            row_height: 250,
            panels: vec![
                Panel {
                    legend_at: Corner::UpperLeft,
                    caption: "a".into(),
                    y_label: "y".into(),
                    y_scale: Scale::Linear,
                    x_label: "x".into(),
                    x_scale: Scale::Linear,
                    curves: vec![Curve {
                        label: String::new(),
                        x: vec![0.0, 1.0, 2.0],
                        y: vec![0.0, 1.0, 1.5],
                        color: 0,
                        dashed: false,
                    }],
                };
                2
            ],
        };
        let bands = [band(0, "±1.96 σ"), band(1, "±1.96 σ"), band(1, "")];
        let items = legend_items(&figure, &bands);
        assert_eq!(items.len(), 2);
        assert_eq!(items[1], ("±1.96 σ".to_string(), 0, Swatch::Area));
        if font_ready().is_err() {
            return; // no font on this machine: the drawing is not tried
        }
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("bands.png");
        draw_png_with_bands(&figure, &bands, &png).unwrap();
        assert!(std::fs::metadata(&png).unwrap().len() > 1000);
        let err = draw_png_with_bands(&figure, &[band(2, "x")], &png).unwrap_err();
        assert!(err.to_string().contains("panel 2"), "{err}");
    }
}
