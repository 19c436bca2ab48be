//! SVG line plots with confidence-interval error bars (plotters), drawn from a plain
//! [`Figure`]: the caller (the sweep's outputs) decides what the series are.

use std::path::Path;

use plotters::element::ErrorBar;
use plotters::prelude::*;

use std::io::Write;

use crate::atomic::write_atomically;
use crate::error::{Error, Result};

const COLORS: [RGBColor; 14] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 0),
    RGBColor(174, 199, 232),
    RGBColor(255, 187, 120),
    RGBColor(152, 223, 138),
];

/// Readable tick labels: whole numbers for large values, three significant digits else.
fn tick(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else {
        let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
        format!("{v:.digits$}")
    }
}

/// A point: the mean and its interval (both ends the mean when there is none).
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
    /// Legend entry; `None` draws no legend.
    pub label: Option<String>,
    /// Index into the palette, so a series keeps its colour from figure to figure.
    pub color: usize,
    pub points: Vec<Point>,
}

/// What to draw, in the units of the data.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Categorical x values, drawn evenly at positions 0, 1, ... (a point's x is its
    /// position); `None` places numeric x values to scale.
    pub categories: Option<Vec<String>>,
    /// Logarithmic y axis (for metrics spanning orders of magnitude).
    pub log_y: bool,
    pub series: Vec<Series>,
}

/// Draws `figure` to the SVG file `path` (atomically). Points whose mean is not finite
/// (saturated cells), or not positive on a log axis, are left out and counted in the title.
/// On a log axis values are drawn as log10 and labelled in the data's own units; an
/// interval reaching below zero is cut at a tenth of the mean.
pub fn write_svg(path: &Path, figure: &Figure) -> Result<()> {
    let log_y = figure.log_y;
    let mut left_out = 0;
    let series: Vec<Vec<(f64, f64, f64, f64)>> = figure
        .series
        .iter()
        .map(|s| {
            let mut points: Vec<(f64, f64, f64, f64)> = Vec::new();
            for p in &s.points {
                if !p.mean.is_finite() || (log_y && p.mean <= 0.0) {
                    left_out += 1;
                } else if log_y {
                    let lo = if p.low > 0.0 { p.low } else { p.mean / 10.0 };
                    points.push((p.x, p.mean.log10(), lo.log10(), p.high.log10()));
                } else {
                    points.push((p.x, p.mean, p.low, p.high));
                }
            }
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            points
        })
        .collect();
    let numeric = figure.categories.is_none();
    let all: Vec<&(f64, f64, f64, f64)> = series.iter().flatten().collect();
    let (x_min, x_max) = all
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y_min, y_max) = all
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.2), b.max(p.3)));
    let (x_min, x_max) = if all.is_empty() {
        (0.0, 1.0)
    } else {
        (x_min, x_max)
    };
    let (y_min, y_max) = match (all.is_empty(), log_y) {
        (true, _) => (0.0, 1.0),
        (false, true) => (y_min.floor(), y_max.ceil()),
        (false, false) => (y_min.min(0.0), y_max),
    };
    let pad_x = ((x_max - x_min) * 0.05)
        .max(0.5 * (!numeric) as u8 as f64)
        .max(1e-9);
    let pad_y = ((y_max - y_min) * 0.08).max(1e-9);
    let mut svg = String::new();
    let mut draw = || -> std::result::Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut title = figure.title.clone();
        if left_out > 0 {
            title.push_str(&format!(
                "; {left_out} cells left out (saturated or not positive)"
            ));
        }
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d((x_min - pad_x)..(x_max + pad_x), (y_min - pad_y)..(y_max + pad_y))?;
        let labels: &[String] = figure.categories.as_deref().unwrap_or_default();
        let formatter = |x: &f64| {
            if numeric {
                format!("{}", (x * 1e6).round() / 1e6)
            } else {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                    labels[i as usize].clone()
                } else {
                    String::new()
                }
            }
        };
        let y_formatter = |y: &f64| if log_y { tick(10f64.powf(*y)) } else { tick(*y) };
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(figure.x_label.as_str())
            .y_desc(figure.y_label.as_str())
            .x_label_formatter(&formatter)
            .y_label_formatter(&y_formatter);
        if !numeric {
            mesh.x_labels(labels.len().max(2));
        }
        if log_y {
            // One label per decade.
            mesh.y_labels((y_max - y_min) as usize + 1);
        }
        mesh.draw()?;
        for (s, points) in figure.series.iter().zip(&series) {
            if points.is_empty() {
                continue;
            }
            let color = COLORS[s.color % COLORS.len()];
            let line = chart.draw_series(LineSeries::new(
                points.iter().map(|p| (p.0, p.1)),
                color.stroke_width(2),
            ))?;
            if let Some(label) = &s.label {
                line.label(label)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            }
            chart.draw_series(
                points
                    .iter()
                    .map(|p| ErrorBar::new_vertical(p.0, p.2, p.1, p.3, color.filled(), 8)),
            )?;
        }
        if figure.series.iter().any(|s| s.label.is_some()) {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()?;
        }
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| Error::Output {
        path: path.to_path_buf(),
        error: std::io::Error::other(e.to_string()),
    })?;
    write_atomically(path, |w| w.write_all(svg.as_bytes()))
}
