//! Line plots with confidence-interval error bars (plotters), drawn from a plain
//! [`Figure`]: the caller (the sweep's outputs) decides what the series are, this module
//! how they look. Choices a reader relies on:
//! - a series keeps its style (colour and marker) wherever its index is the same, from a
//!   colour-blind-safe palette (Okabe & Ito) crossed with five markers, so 40 series stay
//!   distinct and black-and-white prints still tell them apart;
//! - ticks are round numbers formatted alike on each axis (same decimals, thousands
//!   separated), log axes tight to the data with labels at 1, 2 and 5 times powers of ten
//!   when the data span less than two decades;
//! - the legend sits beside or below the plot, never over data;
//! - a saturated cell (infinite mean) is drawn on the top edge as its series' own marker,
//!   hollow (a cross stays a cross), under an arrow pointing up (off the scale), so it
//!   differs from every series' marker and still says whose it is; a footnote says so, and counts the points that
//!   cannot be drawn (undefined, or not positive on a log axis).

use std::io::Write;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::atomic::write_atomically;
use crate::error::{Error, Result};

/// Okabe & Ito's colour-blind-safe palette, yellow replaced by grey (yellow vanishes on
/// white).
const COLORS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
    RGBColor(120, 120, 120), // grey
];

/// Marker shapes, cycled independently of the colours (8 and 5 are coprime, so series 0 to
/// 39 all differ in colour or marker).
#[derive(Clone, Copy, Debug)]
enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
}

const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::Cross,
];

/// The colour and marker of series style `i`.
fn style(i: usize) -> (RGBColor, Marker) {
    (COLORS[i % COLORS.len()], MARKERS[i % MARKERS.len()])
}

/// A point: the mean and its interval (both ends the mean when there is none). An infinite
/// mean is a saturated cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

/// One line of a figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend entry; `None` draws no legend entry.
    pub label: Option<String>,
    /// Index of the style (colour and marker), so a series keeps its look from figure to
    /// figure.
    pub style: usize,
    pub points: Vec<Point>,
}

/// Where the legend goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Legend {
    /// In a column right of the plot.
    Right,
    /// In rows below the plot.
    Bottom,
    /// No legend.
    None,
}

/// The file formats a figure is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    /// Rasterised from the SVG at twice its size (crisp on screens and in print).
    Png,
}

impl Format {
    pub fn extension(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
        }
    }
}

/// What to draw, in the units of the data.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// `None`: no title (a paper's caption says it).
    pub title: Option<String>,
    pub x_label: String,
    pub y_label: String,
    /// Categorical x values, drawn evenly at positions 0, 1, ... (a point's x is its
    /// position), as points side by side without connecting lines; `None` places numeric x
    /// values to scale, joined by lines.
    pub categories: Option<Vec<String>>,
    pub log_x: bool,
    pub log_y: bool,
    pub legend: Legend,
    /// The legend's heading, e.g. the series axis ("Scheduler").
    pub legend_title: Option<String>,
    /// Width and height in pixels (SVG user units).
    pub size: (u32, u32),
    /// A marker at every point (off for dense series such as a timeline).
    pub markers: bool,
    pub series: Vec<Series>,
}

/// Writes `figure` to `path` in `format` (atomically).
pub fn write(path: &Path, figure: &Figure, format: Format) -> Result<()> {
    let output = |error| Error::Output {
        path: path.to_path_buf(),
        error,
    };
    let svg = render_svg(figure).map_err(output)?;
    let bytes = match format {
        Format::Svg => svg.into_bytes(),
        Format::Png => super::raster::png(&svg).map_err(output)?,
    };
    write_atomically(path, |w| w.write_all(&bytes))
}

/// The points of one series as drawn: (x, mean, low, high) in plot coordinates (log10 on a
/// log axis), and the x of saturated points.
struct Drawn {
    points: Vec<(f64, f64, f64, f64)>,
    saturated: Vec<f64>,
}

/// A value on an axis: itself, or its log10 on a log axis (`None` if not positive there).
fn scaled(v: f64, log: bool) -> Option<f64> {
    match log {
        true if v > 0.0 => Some(v.log10()),
        true => None,
        false => Some(v),
    }
}

/// A drawing call's failure (plotters' error, generic over its backend) as an I/O error:
/// what a figure's writer reports.
fn drawing(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

/// Renders `figure` as an SVG document.
pub fn render_svg(figure: &Figure) -> std::io::Result<String> {
    let categorical = figure.categories.is_some();
    let (log_x, log_y) = (figure.log_x && !categorical, figure.log_y);
    let mut left_out = 0usize;
    let visible: Vec<&Series> = figure.series.iter().filter(|s| !s.points.is_empty()).collect();
    // Side by side within a category, so intervals do not hide each other.
    let dodge = |k: usize| -> f64 {
        if !categorical || visible.len() < 2 {
            return 0.0;
        }
        let width = 0.6 / visible.len() as f64;
        (k as f64 - (visible.len() - 1) as f64 / 2.0) * width
    };
    let drawn: Vec<Drawn> = visible
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let mut d = Drawn {
                points: Vec::new(),
                saturated: Vec::new(),
            };
            for p in &s.points {
                let Some(x) = scaled(p.x, log_x) else {
                    left_out += 1;
                    continue;
                };
                let x = x + dodge(k);
                if p.mean == f64::INFINITY {
                    d.saturated.push(x);
                    continue;
                }
                match scaled(p.mean, log_y) {
                    Some(mean) if p.mean.is_finite() => {
                        // An interval reaching below zero on a log axis is cut at the mean's tenth.
                        let low = scaled(p.low, log_y).unwrap_or(mean - 1.0).min(mean);
                        let high = scaled(p.high, log_y).unwrap_or(mean).max(mean);
                        d.points.push((x, mean, low, high));
                    }
                    _ => left_out += 1,
                }
            }
            d.points.sort_by(|a, b| a.0.total_cmp(&b.0));
            d
        })
        .collect();
    let any_saturated = drawn.iter().any(|d| !d.saturated.is_empty());
    let xs = drawn
        .iter()
        .flat_map(|d| d.points.iter().map(|p| p.0).chain(d.saturated.iter().copied()));
    let ys = drawn
        .iter()
        .flat_map(|d| d.points.iter().flat_map(|p| [p.2, p.3]));
    let x_range = match &figure.categories {
        Some(c) => (-0.5, c.len().max(1) as f64 - 0.5),
        None => axis_range(xs, log_x, false),
    };
    let y_range = {
        let (lo, hi) = axis_range(ys, log_y, true);
        // Room on the top edge for the saturated markers.
        let room = if any_saturated { 0.06 * (hi - lo) } else { 0.0 };
        (lo, hi + room)
    };
    let x_ticks = match &figure.categories {
        Some(c) => (0..c.len()).map(|i| i as f64).collect(),
        None => ticks(x_range, log_x),
    };
    let y_ticks = ticks(y_range, log_y);
    let x_labels: Vec<String> = match &figure.categories {
        Some(c) => c.clone(),
        None => tick_labels(&x_ticks, log_x),
    };
    let y_labels = tick_labels(&y_ticks, log_y);

    let labelled: Vec<(usize, &str)> = visible
        .iter()
        .filter_map(|s| s.label.as_deref().map(|l| (s.style, l)))
        .collect();
    let legend = if labelled.is_empty() {
        Legend::None
    } else {
        figure.legend
    };
    let mut notes = Vec::new();
    if any_saturated {
        notes.push("hollow markers under ↑ on the top edge: saturated (unbounded)".to_string());
    }
    if left_out > 0 {
        notes.push(format!(
            "{left_out} point{} not drawn (undefined{})",
            if left_out == 1 { "" } else { "s" },
            if log_x || log_y {
                ", or not positive on a log axis"
            } else {
                ""
            }
        ));
    }

    let (width, height) = figure.size;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(drawing)?;
        let font = ("sans-serif", 14);
        let char_width = 7.5;
        let mut area = root.clone();
        if !notes.is_empty() {
            let (top, bottom) = area.split_vertically(height as i32 - 22);
            bottom
                .draw_text(
                    &notes.join("; "),
                    &("sans-serif", 14).into_font().color(&RGBColor(40, 40, 40)),
                    (12, 2),
                )
                .map_err(drawing)?;
            area = top;
        }
        let legend_area = match legend {
            Legend::Right => {
                let longest = labelled
                    .iter()
                    .map(|(_, l)| l.chars().count())
                    .chain(figure.legend_title.iter().map(|t| t.chars().count()))
                    .max()
                    .unwrap_or(0);
                let w = ((longest as f64 * char_width) as i32 + 48).clamp(80, width as i32 / 3);
                let (plot, side) = area.split_horizontally(area.dim_in_pixel().0 as i32 - w);
                area = plot;
                Some(side)
            }
            Legend::Bottom => {
                let longest = labelled.iter().map(|(_, l)| l.chars().count()).max().unwrap_or(0);
                let entry = (longest as f64 * char_width) as u32 + 44;
                let columns = (width.saturating_sub(40) / entry.max(1)).max(1) as usize;
                let rows = labelled.len().div_ceil(columns) + usize::from(figure.legend_title.is_some());
                let h = rows as i32 * 20 + 12;
                let (plot, below) = area.split_vertically(area.dim_in_pixel().1 as i32 - h);
                area = plot;
                Some(below)
            }
            Legend::None => None,
        };

        let mut builder = ChartBuilder::on(&area);
        if let Some(title) = &figure.title {
            // Smaller type for a long title, so that it fits the width.
            let fits = (area.dim_in_pixel().0 as f64 - 24.0) / (0.46 * title.chars().count().max(1) as f64);
            builder.caption(title, ("sans-serif", fits.clamp(10.0, 18.0).floor()));
        }
        let longest_y = y_labels.iter().map(|l| l.chars().count()).max().unwrap_or(1);
        let mut chart = builder
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size((longest_y as f64 * char_width) as u32 + 34)
            .build_cartesian_2d(x_range.0..x_range.1, y_range.0..y_range.1)
            .map_err(drawing)?;
        // Axes and their titles from plotters; grid lines, ticks and tick labels drawn here at
        // the round values chosen above.
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(0)
            .y_labels(0)
            .x_desc(figure.x_label.as_str())
            .y_desc(figure.y_label.as_str())
            .axis_desc_style(("sans-serif", 15))
            .draw()
            .map_err(drawing)?;
        let plot = chart.plotting_area();
        let grid = RGBColor(225, 225, 225);
        let ink = RGBColor(40, 40, 40);
        for (t, label) in y_ticks.iter().zip(&y_labels) {
            let (left, y) = plot.map_coordinate(&(x_range.0, *t));
            let (right, _) = plot.map_coordinate(&(x_range.1, *t));
            root.draw(&PathElement::new(
                vec![(left, y), (right, y)],
                grid.stroke_width(1),
            ))
            .and_then(|_| {
                root.draw(&PathElement::new(
                    vec![(left - 5, y), (left, y)],
                    ink.stroke_width(1),
                ))
            })
            .and_then(|_| {
                root.draw_text(
                    label,
                    &TextStyle::from(font.into_font()).pos(Pos::new(HPos::Right, VPos::Center)),
                    (left - 8, y),
                )
            })
            .map_err(drawing)?;
        }
        for (t, label) in x_ticks.iter().zip(&x_labels) {
            let (x, bottom) = plot.map_coordinate(&(*t, y_range.0));
            root.draw(&PathElement::new(
                vec![(x, bottom), (x, bottom + 5)],
                ink.stroke_width(1),
            ))
            .and_then(|_| {
                root.draw_text(
                    label,
                    &TextStyle::from(font.into_font()).pos(Pos::new(HPos::Center, VPos::Top)),
                    (x, bottom + 8),
                )
            })
            .map_err(drawing)?;
        }

        let top = y_range.1 - 0.03 * (y_range.1 - y_range.0);
        for (k, (s, d)) in visible.iter().zip(&drawn).enumerate() {
            let (color, marker) = style(s.style);
            let at = |x: f64, y: f64| plot.map_coordinate(&(x, y));
            if !categorical && d.points.len() > 1 {
                let line: Vec<(i32, i32)> = d.points.iter().map(|p| at(p.0, p.1)).collect();
                root.draw(&PathElement::new(line, color.stroke_width(2)))
                    .map_err(drawing)?;
            }
            for p in d.points.iter().filter(|p| p.3 > p.2) {
                let ((x, low), (_, high)) = (at(p.0, p.2), at(p.0, p.3));
                for segment in [
                    [(x, low), (x, high)],
                    [(x - 4, low), (x + 4, low)],
                    [(x - 4, high), (x + 4, high)],
                ] {
                    root.draw(&PathElement::new(segment.to_vec(), color.stroke_width(1)))
                        .map_err(drawing)?;
                }
            }
            for p in d.points.iter().filter(|_| figure.markers || categorical) {
                draw_marker(&root, at(p.0, p.1), marker, color, true)?;
            }
            for &x in &d.saturated {
                // Side by side, so that every saturated series shows at a shared x.
                let (px, py) = at(x, top);
                let step = (60 / visible.len() as i32).clamp(2, 11);
                let px = match categorical {
                    true => px,
                    false => px + ((2 * k) as i32 - visible.len() as i32 + 1) * step / 2,
                };
                draw_marker(&root, (px, py + 2), marker, color, false)?;
                let arrow = [(px - 3, py - 8), (px, py - 12), (px + 3, py - 8)];
                root.draw(&PathElement::new(
                    vec![(px, py - 4), (px, py - 12)],
                    color.stroke_width(1),
                ))
                .and_then(|_| root.draw(&PathElement::new(arrow.to_vec(), color.stroke_width(1))))
                .map_err(drawing)?;
            }
        }

        if let Some(side) = legend_area {
            let heading = ("sans-serif", 14).into_font().style(FontStyle::Bold);
            let (x0, y0) = side.get_base_pixel();
            let mut y = y0 + if legend == Legend::Right { 40 } else { 4 };
            if let Some(t) = &figure.legend_title {
                root.draw_text(t, &TextStyle::from(heading.clone()), (x0 + 8, y))
                    .map_err(drawing)?;
                y += 20;
            }
            let entry_width = match legend {
                Legend::Bottom => {
                    let longest = labelled.iter().map(|(_, l)| l.chars().count()).max().unwrap_or(0);
                    (longest as f64 * char_width) as i32 + 44
                }
                _ => 0,
            };
            let columns = match legend {
                Legend::Bottom => ((width as i32 - 40) / entry_width.max(1)).max(1) as usize,
                _ => 1,
            };
            for (i, (style_index, label)) in labelled.iter().enumerate() {
                let (color, marker) = style(*style_index);
                let ex = x0 + 8 + (i % columns) as i32 * entry_width;
                let ey = y + (i / columns) as i32 * 20;
                if !categorical {
                    root.draw(&PathElement::new(
                        vec![(ex, ey + 8), (ex + 24, ey + 8)],
                        color.stroke_width(2),
                    ))
                    .map_err(drawing)?;
                }
                if figure.markers || categorical {
                    draw_marker(&root, (ex + 12, ey + 8), marker, color, true)?;
                }
                root.draw_text(label, &TextStyle::from(font.into_font()), (ex + 32, ey))
                    .map_err(drawing)?;
            }
        }
        root.present().map_err(drawing)?;
    }
    Ok(svg)
}

/// Draws `marker` centred on pixel `at` of `area`, `filled` or as an outline.
fn draw_marker(
    area: &DrawingArea<SVGBackend, Shift>,
    at: (i32, i32),
    marker: Marker,
    color: RGBColor,
    filled: bool,
) -> std::io::Result<()> {
    let (x, y) = at;
    let fill = match filled {
        true => color.filled(),
        false => color.stroke_width(2),
    };
    let r = 4;
    let result = match marker {
        Marker::Circle => area.draw(&Circle::new((x, y), r, fill)),
        Marker::Square => area.draw(&Rectangle::new([(x - r, y - r), (x + r, y + r)], fill)),
        Marker::Triangle | Marker::Diamond => {
            let corners = match marker {
                Marker::Triangle => vec![(x, y - r - 1), (x - r - 1, y + r), (x + r + 1, y + r)],
                _ => vec![(x, y - r - 1), (x + r + 1, y), (x, y + r + 1), (x - r - 1, y)],
            };
            match filled {
                true => area.draw(&Polygon::new(corners, fill)),
                // A polygon is always filled: its outline is a closed path.
                false => area.draw(&PathElement::new([&corners[..], &corners[..1]].concat(), fill)),
            }
        }
        Marker::Cross => area.draw(&Cross::new((x, y), r, color.stroke_width(2))),
    };
    result.map_err(drawing)
}

/// An axis's extent over `values` (plot coordinates): tight to the data with a 5% margin,
/// from zero on a linear axis of values that are all positive when `from_zero`.
fn axis_range(values: impl Iterator<Item = f64>, log: bool, from_zero: bool) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if lo > hi {
        return (0.0, 1.0);
    }
    let lo = if from_zero && !log && lo > 0.0 { 0.0 } else { lo };
    // A flat series still gets an axis: a span of a tenth of its value (a third of a decade).
    let span = if hi > lo {
        hi - lo
    } else if log {
        0.5
    } else {
        hi.abs().max(1.0) * 0.2
    };
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - span / 2.0, hi + span / 2.0)
    };
    let margin = 0.05 * span;
    let lo = if from_zero && !log && lo == 0.0 {
        0.0
    } else {
        lo - margin
    };
    (lo, hi + margin)
}

/// Round tick positions within `range` (plot coordinates): steps of 1, 2 or 5 times a power
/// of ten, about seven of them; on a log axis the powers of ten, with 2 and 5 times them when
/// fewer than three powers fall inside.
pub fn ticks(range: (f64, f64), log: bool) -> Vec<f64> {
    let (lo, hi) = range;
    if log {
        let decades: Vec<f64> = ((lo.ceil() as i32)..=(hi.floor() as i32))
            .map(f64::from)
            .collect();
        if decades.len() >= 3 {
            let every = decades.len().div_ceil(8);
            return decades.into_iter().step_by(every).collect();
        }
        let mut t: Vec<f64> = ((lo.floor() as i32)..=(hi.ceil() as i32))
            .flat_map(|d| [1.0, 2.0, 5.0].map(|m: f64| f64::from(d) + m.log10()))
            .filter(|v| *v >= lo - 1e-12 && *v <= hi + 1e-12)
            .collect();
        if t.len() < 2 {
            return linear_ticks(10f64.powf(lo), 10f64.powf(hi))
                .into_iter()
                .filter(|v| *v > 0.0)
                .map(f64::log10)
                .collect();
        }
        t.dedup();
        return t;
    }
    linear_ticks(lo, hi)
}

fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let step = nice_step((hi - lo) / 7.0);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// 1, 2 or 5 times a power of ten, the nearest above `raw`.
fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let m = raw / magnitude;
    let nice = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

/// Labels of `ticks` (plot coordinates): one number of decimals for a linear axis, the
/// fewest that write every tick; each value's own on a log axis; thousands separated by commas.
pub fn tick_labels(ticks: &[f64], log: bool) -> Vec<String> {
    if log {
        return ticks
            .iter()
            .map(|t| {
                let v = 10f64.powf(*t);
                let decimals = (-v.log10().floor()).max(0.0) as usize;
                number(v, decimals)
            })
            .collect();
    }
    // The fewest decimals that write every tick exactly (to a millionth of its step).
    let step = ticks
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::INFINITY, f64::min);
    let tolerance = if step.is_finite() && step > 0.0 {
        step * 1e-6
    } else {
        1e-9
    };
    let exact = |d: usize| {
        let scale = 10f64.powi(d as i32);
        ticks
            .iter()
            .all(|t| ((t * scale).round() / scale - t).abs() <= tolerance)
    };
    let decimals = (0..=6).find(|&d| exact(d)).unwrap_or(6);
    ticks.iter().map(|t| number(*t, decimals)).collect()
}

/// `v` with `decimals` decimals and its whole part's thousands separated ("12,500").
pub fn number(v: f64, decimals: usize) -> String {
    let text = format!("{:.*}", decimals, v);
    let text = if text.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
        format!("{:.*}", decimals, 0.0)
    } else {
        text
    };
    let (sign, rest) = match text.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", text.as_str()),
    };
    let (whole, fraction) = match rest.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (rest, None),
    };
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    match fraction {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(series: Vec<Series>) -> Figure {
        Figure {
            title: Some("Mean wait vs offered load".into()),
            x_label: "Offered load".into(),
            y_label: "Mean wait (s)".into(),
            categories: None,
            log_x: false,
            log_y: false,
            legend: Legend::Right,
            legend_title: Some("Scheduler".into()),
            size: (800, 500),
            markers: true,
            series,
        }
    }

    fn point(x: f64, mean: f64) -> Point {
        Point {
            x,
            mean,
            low: mean * 0.9,
            high: mean * 1.1,
        }
    }

    #[test]
    fn numbers_are_grouped_and_rounded_alike() {
        assert_eq!(number(123.0, 0), "123");
        assert_eq!(number(1234.0, 0), "1,234");
        assert_eq!(number(12345.0, 0), "12,345");
        assert_eq!(number(1234567.5, 1), "1,234,567.5");
        assert_eq!(number(-12345.0, 0), "-12,345");
        assert_eq!(number(-0.0001, 2), "0.00");
        assert_eq!(tick_labels(&[0.3, 0.4, 0.5], false), ["0.3", "0.4", "0.5"]);
        assert_eq!(tick_labels(&[0.0, 0.25, 0.5], false), ["0.00", "0.25", "0.50"]);
        assert_eq!(
            tick_labels(&[0.0, 20000.0, 40000.0], false),
            ["0", "20,000", "40,000"]
        );
        assert_eq!(
            tick_labels(&[-1.0, 0.0, 1.0, 2.0], true),
            ["0.1", "1", "10", "100"]
        );
    }

    #[test]
    fn ticks_are_round_and_inside_the_range() {
        let t = ticks((0.27, 0.93), false);
        assert_eq!(t.len(), 7, "{t:?}");
        assert!((t[0] - 0.3).abs() < 1e-12 && (t[6] - 0.9).abs() < 1e-12, "{t:?}");
        // Log: decades when three or more fall inside, else 1-2-5.
        assert_eq!(ticks((3.9, 6.2), true), [4.0, 5.0, 6.0]);
        let t = ticks((3.9, 4.9), true);
        let values: Vec<f64> = t.iter().map(|v| 10f64.powf(*v).round()).collect();
        assert_eq!(values, [10_000.0, 20_000.0, 50_000.0]);
        // A span inside one 1-2-5 gap falls back to linear steps.
        let t = ticks((4.0f64.log10(), 4.5f64.log10()), true);
        assert!(t.len() >= 2, "{t:?}");
    }

    #[test]
    fn log_axes_are_tight_to_the_data() {
        let (lo, hi) = axis_range([4.2, 5.1].into_iter(), true, true);
        assert!(lo > 4.1 && lo < 4.2 && hi > 5.1 && hi < 5.2, "{lo} {hi}");
        let (lo, hi) = axis_range([0.3, 0.9].into_iter(), false, true);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.9 && hi < 1.0);
    }

    #[test]
    fn styles_differ_for_forty_series() {
        let styles: Vec<(RGBColor, usize)> = (0..40).map(|i| (style(i).0, i % MARKERS.len())).collect();
        for i in 0..40 {
            for j in 0..i {
                assert!(styles[i] != styles[j], "series {i} and {j} look alike");
            }
        }
    }

    #[test]
    fn svg_has_labels_legend_outside_and_saturated_markers() {
        let mut sat = point(0.9, 1.0);
        sat.mean = f64::INFINITY;
        let f = figure(vec![
            Series {
                label: Some("easy".into()),
                style: 0,
                points: vec![point(0.3, 100.0), point(0.6, 2000.0), sat],
            },
            Series {
                label: Some("fcfs".into()),
                style: 1,
                points: vec![point(0.3, 300.0), point(0.6, f64::NAN)],
            },
        ]);
        let svg = render_svg(&f).unwrap();
        for text in [
            "Mean wait (s)",
            "Offered load",
            "Scheduler",
            "easy",
            "fcfs",
            "saturated",
            "1 point not drawn",
        ] {
            assert!(svg.contains(text), "missing {text}");
        }
        // The saturated point is series 0's circle, hollow, under an arrow.
        let hollow = svg
            .lines()
            .filter(|l| l.starts_with("<circle") && l.contains("fill=\"none\"") && l.contains("#0072B2"))
            .count();
        assert_eq!(hollow, 1, "{svg}");
        // The legend's entries lie right of every tick of the plot's x axis.
        let texts = texts(&svg);
        let x_of = |needle: &str| texts.iter().find(|t| t.1 == needle).expect(needle).0;
        assert!(x_of("easy") > x_of("0.6"), "legend over the plot");
        assert!(x_of("0.3") < x_of("0.6"));
    }

    /// Each `<text>` element's x and content.
    fn texts(svg: &str) -> Vec<(f64, String)> {
        svg.split("<text")
            .skip(1)
            .map(|chunk| {
                let x = chunk
                    .split("x=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                let content = chunk
                    .split_once('>')
                    .unwrap()
                    .1
                    .split("</text>")
                    .next()
                    .unwrap()
                    .trim();
                (x, content.to_string())
            })
            .collect()
    }

    /// Polylines in colour `hex` with at least `points` points.
    fn lines(svg: &str, hex: &str, points: usize) -> usize {
        svg.split("<polyline")
            .skip(1)
            .filter(|l| l.contains(&format!("stroke=\"{hex}\"")))
            .filter(|l| {
                l.split("points=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .split_whitespace()
                    .count()
                    >= points
            })
            .count()
    }

    #[test]
    fn categories_are_points_without_lines_and_every_format_writes() {
        let mut f = figure(vec![Series {
            label: Some("a".into()),
            style: 2,
            points: vec![point(0.0, 1.0), point(1.0, 2.0), point(2.0, 1.5)],
        }]);
        f.categories = Some(vec!["SDSC".into(), "CTC".into(), "KTH".into()]);
        f.legend = Legend::Bottom;
        let svg = render_svg(&f).unwrap();
        let labels: Vec<String> = texts(&svg).into_iter().map(|t| t.1).collect();
        for c in ["SDSC", "CTC", "KTH"] {
            assert!(labels.iter().any(|l| l == c), "{c} not labelled");
        }
        assert_eq!(lines(&svg, "#009E73", 3), 0, "a categorical axis draws no lines");
        f.categories = None;
        assert_eq!(
            lines(&render_svg(&f).unwrap(), "#009E73", 3),
            1,
            "a numeric axis joins its points"
        );
        let dir = std::env::temp_dir().join(format!("schedlab-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write(&dir.join("f.svg"), &f, Format::Svg).unwrap();
        write(&dir.join("f.png"), &f, Format::Png).unwrap();
        let png = std::fs::read(dir.join("f.png")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png).unwrap();
        assert_eq!(
            (pixmap.width(), pixmap.height()),
            (1600, 1000),
            "twice the SVG's size"
        );
        // The text is drawn: another axis title (same layout) gives another picture.
        f.x_label = "Another label".into();
        write(&dir.join("g.png"), &f, Format::Png).unwrap();
        assert!(
            std::fs::read(dir.join("g.png")).unwrap() != png,
            "PNG without its text"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
