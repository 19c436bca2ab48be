//! SVG plots (plotters): a metric against one axis, one series per value of another, with
//! confidence-interval error bars.

use std::path::Path;

use plotters::element::ErrorBar;
use plotters::prelude::*;

use crate::error::{Error, Result};
use crate::sweep::output::CellEstimates;
use crate::sweep::spec::{Plan, PlotSpec};

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

/// File name of a plot: `<metric>_vs_<x>[_by_<series>][_<facet>-<value>].svg`, the facet
/// value's characters other than letters, digits, '.' and '-' replaced by '_'.
pub fn plot_file(p: &PlotSpec, facet: Option<&str>) -> String {
    let mut name = match &p.series {
        Some(s) => format!("{}_vs_{}_by_{s}", p.metric, p.x),
        None => format!("{}_vs_{}", p.metric, p.x),
    };
    if let Some(label) = facet {
        let clean: String = label
            .replacen('=', "-", 1)
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        name.push('_');
        name.push_str(&clean);
    }
    name + ".svg"
}

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

/// Draws one plot. Numeric x values are placed to scale; others evenly, in axis order.
/// Points whose mean is not finite (saturated cells) are left out and named in the title.
/// With `log_y`, values are drawn as log10 (non-positive ones left out) and labelled in
/// the metric's own units.
/// With `facet` (e.g. `workload=wk1`), `estimates` hold that facet's cells and the title
/// names it.
pub fn write_plot(
    dir: &Path,
    plan: &Plan,
    p: &PlotSpec,
    estimates: &[CellEstimates],
    facet: Option<&str>,
) -> Result<()> {
    let x_axis = plan.axes.iter().position(|a| a.name == p.x).expect("validated");
    let series_axis = p
        .series
        .as_ref()
        .map(|s| plan.axes.iter().position(|a| &a.name == s).expect("validated"));
    let metric = plan
        .metrics
        .iter()
        .position(|m| m == &p.metric)
        .expect("validated");
    let x_values = &plan.axes[x_axis].values;
    let numeric = x_values.iter().all(|v| v.as_f64().is_some());
    let x_of = |c: usize| -> f64 {
        let v = &plan.cells[c].values[x_axis];
        if numeric {
            v.as_f64().expect("numeric")
        } else {
            x_values.iter().position(|x| x == v).expect("an axis value") as f64
        }
    };
    let series_values: Vec<String> = match series_axis {
        Some(s) => plan.axes[s].values.iter().map(|v| v.to_string()).collect(),
        None => vec![String::new()],
    };
    // Points per series: (x, mean, low, high), other axes' cells included as separate points.
    let mut series: Vec<Vec<(f64, f64, f64, f64)>> = vec![Vec::new(); series_values.len()];
    let mut left_out = 0;
    for (c, per_metric, _) in estimates {
        let e = &per_metric[metric];
        if !e.mean.is_finite() {
            left_out += 1;
            continue;
        }
        let s = series_axis.map_or(0, |s| {
            let v = plan.cells[*c].values[s].to_string();
            series_values.iter().position(|x| *x == v).expect("an axis value")
        });
        let (lo, hi) = if e.half_width.is_finite() {
            (e.ci_low, e.ci_high)
        } else {
            (e.mean, e.mean)
        };
        if p.log_y {
            if e.mean <= 0.0 {
                left_out += 1;
                continue;
            }
            // An interval reaching below zero is cut at a tenth of the mean.
            let lo = if lo > 0.0 { lo } else { e.mean / 10.0 };
            series[s].push((x_of(*c), e.mean.log10(), lo.log10(), hi.log10()));
        } else {
            series[s].push((x_of(*c), e.mean, lo, hi));
        }
    }
    for s in &mut series {
        s.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
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
    let (y_min, y_max) = match (all.is_empty(), p.log_y) {
        (true, _) => (0.0, 1.0),
        (false, true) => (y_min.floor(), y_max.ceil()),
        (false, false) => (y_min.min(0.0), y_max),
    };
    let pad_x = ((x_max - x_min) * 0.05)
        .max(0.5 * (!numeric) as u8 as f64)
        .max(1e-9);
    let pad_y = ((y_max - y_min) * 0.08).max(1e-9);
    let file = plot_file(p, facet);
    let path = dir.join(&file);
    let tmp = dir.join(format!(".{file}.tmp{}", std::process::id()));
    let draw = || -> std::result::Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::new(&tmp, (800, 500)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut title = format!("{} vs {} ({}% CI)", p.metric, p.x, plan.confidence * 100.0);
        if let Some(label) = facet {
            title = format!("{label}: {title}");
        }
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
        let labels: Vec<String> = x_values.iter().map(|v| v.to_string()).collect();
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
        let y_formatter = |y: &f64| if p.log_y { tick(10f64.powf(*y)) } else { tick(*y) };
        let y_desc = if p.log_y {
            format!("{} (log scale)", p.metric)
        } else {
            p.metric.clone()
        };
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(p.x.as_str())
            .y_desc(y_desc)
            .x_label_formatter(&formatter)
            .y_label_formatter(&y_formatter);
        if !numeric {
            mesh.x_labels(labels.len().max(2));
        }
        if p.log_y {
            // One label per decade.
            mesh.y_labels((y_max - y_min) as usize + 1);
        }
        mesh.draw()?;
        for (i, points) in series.iter().enumerate() {
            if points.is_empty() {
                continue;
            }
            let color = COLORS[i % COLORS.len()];
            let line = chart.draw_series(LineSeries::new(
                points.iter().map(|p| (p.0, p.1)),
                color.stroke_width(2),
            ))?;
            if let Some(name) = &p.series {
                line.label(format!("{name}={}", series_values[i]))
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            }
            chart.draw_series(
                points
                    .iter()
                    .map(|p| ErrorBar::new_vertical(p.0, p.2, p.1, p.3, color.filled(), 8)),
            )?;
        }
        if p.series.is_some() {
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
        path: path.clone(),
        error: std::io::Error::other(e.to_string()),
    })?;
    std::fs::rename(&tmp, &path).map_err(|e| Error::Output { path, error: e })
}
