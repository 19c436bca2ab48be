//! What a sweep shows a reader: the rows of `summary.md` and the figures its `[[plot]]`
//! entries ask for, built from the plan and the estimates and handed to [`crate::report`]
//! to render.

use std::path::Path;

use super::output::{CellEstimates, Results};
use super::spec::{Plan, PlotSpec};
use crate::error::Result;
use crate::report::markdown::{self, Table};
use crate::report::plot::{self, Figure, Point, Series};

/// `summary.md`: one row per cell, the axes' values, each metric as mean ± half-width, and
/// the replications with the cell's status.
pub fn summary_table(plan: &Plan, results: &Results, estimates: &[CellEstimates]) -> Table {
    let mut header: Vec<String> = plan.axes.iter().map(|a| a.name.clone()).collect();
    header.extend(plan.metrics.iter().cloned());
    header.push("n".into());
    let rows = estimates
        .iter()
        .map(|(c, per_metric, met)| {
            let mut row: Vec<String> = plan.cells[*c].values.iter().map(|v| v.to_string()).collect();
            row.extend(
                per_metric
                    .iter()
                    .map(|e| markdown::estimate(e.mean, e.half_width)),
            );
            let flag = if results[*c].iter().any(|r| r.saturated) {
                " (saturated)"
            } else if *met == Some(false) {
                " (target not met)"
            } else {
                ""
            };
            row.push(format!("{}{flag}", results[*c].len()));
            row
        })
        .collect();
    Table {
        title: plan.name.clone(),
        description: plan.description.clone(),
        legend: format!(
            "Mean ± half-width of the {}% Student-t confidence interval; {}. Spec hash {}.{}",
            plan.confidence * 100.0,
            plan.replications.describe(),
            plan.spec_hash,
            match &plan.compare {
                Some(c) => format!(
                    " Paired differences against {}={}: differences.md and differences.csv.",
                    plan.axes[c.axis].name, c.baseline
                ),
                None => String::new(),
            }
        ),
        warnings: plan.warnings.clone(),
        header,
        rows,
    }
}

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

/// The figure of plot `p` over `estimates` (one facet's cells, named by `facet` such as
/// `workload=wk1`, or all): numeric x values to scale, others evenly in axis order; one
/// series per value of the series axis, coloured by its position on that axis.
pub fn figure(plan: &Plan, p: &PlotSpec, estimates: &[CellEstimates], facet: Option<&str>) -> Figure {
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
    let mut series: Vec<Series> = series_values
        .iter()
        .enumerate()
        .map(|(i, value)| Series {
            label: p.series.as_ref().map(|name| format!("{name}={value}")),
            color: i,
            points: Vec::new(),
        })
        .collect();
    // Other axes' cells are separate points of the same series.
    for (c, per_metric, _) in estimates {
        let e = &per_metric[metric];
        let s = series_axis.map_or(0, |s| {
            let v = plan.cells[*c].values[s].to_string();
            series_values.iter().position(|x| *x == v).expect("an axis value")
        });
        let (low, high) = if e.half_width.is_finite() {
            (e.ci_low, e.ci_high)
        } else {
            (e.mean, e.mean)
        };
        series[s].points.push(Point {
            x: x_of(*c),
            mean: e.mean,
            low,
            high,
        });
    }
    let mut title = format!("{} vs {} ({}% CI)", p.metric, p.x, plan.confidence * 100.0);
    if let Some(label) = facet {
        title = format!("{label}: {title}");
    }
    Figure {
        title,
        x_label: p.x.clone(),
        y_label: if p.log_y {
            format!("{} (log scale)", p.metric)
        } else {
            p.metric.clone()
        },
        categories: (!numeric).then(|| x_values.iter().map(|v| v.to_string()).collect()),
        log_y: p.log_y,
        series,
    }
}

/// Writes `summary.md` and every plot of the plan into `dir`.
pub fn write(dir: &Path, plan: &Plan, results: &Results, estimates: &[CellEstimates]) -> Result<()> {
    markdown::write_markdown(&dir.join("summary.md"), &summary_table(plan, results, estimates))?;
    for p in &plan.plots {
        match &p.facet {
            None => plot::write_svg(&dir.join(plot_file(p, None)), &figure(plan, p, estimates, None))?,
            Some(name) => {
                let axis = plan.axes.iter().position(|a| &a.name == name).expect("validated");
                for value in &plan.axes[axis].values {
                    let facet: Vec<CellEstimates> = estimates
                        .iter()
                        .filter(|(c, _, _)| &plan.cells[*c].values[axis] == value)
                        .cloned()
                        .collect();
                    let label = format!("{name}={value}");
                    let path = dir.join(plot_file(p, Some(&label)));
                    plot::write_svg(&path, &figure(plan, p, &facet, Some(&label)))?;
                }
            }
        }
    }
    Ok(())
}
