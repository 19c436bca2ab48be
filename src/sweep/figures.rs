//! What a sweep shows a reader: the rows of `summary.md` and the figures its `[[plot]]`
//! entries ask for, built from the plan and the estimates and handed to [`crate::report`]
//! to render.

use std::path::Path;

use super::output::{CellEstimates, Results};
use super::spec::{Plan, PlotSpec};
use super::stats::Estimate;
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
    let metric = if p.difference {
        format!("{}_difference", p.metric)
    } else {
        p.metric.clone()
    };
    let mut name = match &p.series {
        Some(s) => format!("{metric}_vs_{}_by_{s}", p.x),
        None => format!("{metric}_vs_{}", p.x),
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
    let baseline = plan
        .compare
        .as_ref()
        .filter(|_| p.difference)
        .map(|c| format!("{}={}", plan.axes[c.axis].name, c.baseline));
    let what = match &baseline {
        Some(b) => format!("{} against {b}, paired difference (%)", p.metric),
        None => p.metric.clone(),
    };
    // The baseline's own series would be a line at 0: leave it out.
    if let Some(b) = &baseline {
        series.retain(|s| s.label.as_ref() != Some(b));
    }
    let mut title = format!("{what} vs {} ({}% CI)", p.x, plan.confidence * 100.0);
    if let Some(label) = facet {
        title = format!("{label}: {title}");
    }
    Figure {
        title,
        x_label: p.x.clone(),
        y_label: if p.log_y {
            format!("{what} (log scale)")
        } else {
            what
        },
        categories: (!numeric).then(|| x_values.iter().map(|v| v.to_string()).collect()),
        log_y: p.log_y,
        series,
    }
}

/// Each cell's paired relative difference against its baseline partner, in percent, in
/// place of its estimates (cells without a partner left out).
fn difference_estimates(plan: &Plan, results: &Results, estimates: &[CellEstimates]) -> Vec<CellEstimates> {
    let Some(compare) = &plan.compare else {
        return Vec::new();
    };
    let cells: Vec<usize> = estimates.iter().map(|e| e.0).collect();
    let mut by_cell: Vec<CellEstimates> = Vec::new();
    for d in super::compare::differences(plan, compare, results, &cells) {
        if by_cell.last().is_none_or(|e| e.0 != d.cell) {
            let nan = d.relative.clone();
            by_cell.push((d.cell, vec![nan; plan.metrics.len()], None));
        }
        let r = d.relative;
        by_cell.last_mut().expect("pushed").1[d.metric] = Estimate {
            mean: 100.0 * r.mean,
            sd: 100.0 * r.sd,
            ci_low: 100.0 * r.ci_low,
            ci_high: 100.0 * r.ci_high,
            half_width: 100.0 * r.half_width,
            ..r
        };
    }
    by_cell
}

/// Writes `summary.md` and every plot of the plan into `dir`.
pub fn write(dir: &Path, plan: &Plan, results: &Results, estimates: &[CellEstimates]) -> Result<()> {
    markdown::write_markdown(&dir.join("summary.md"), &summary_table(plan, results, estimates))?;
    let differences = difference_estimates(plan, results, estimates);
    for p in &plan.plots {
        let estimates = if p.difference { &differences } else { estimates };
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
