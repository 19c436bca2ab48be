//! What a sweep shows a reader: the rows of `summary.md` and the figures its `[[plot]]`
//! entries ask for, built from the plan and the estimates and handed to [`crate::report`]
//! to render.

use std::path::Path;

use super::runs::Results;
use super::spec::{Plan, PlotSpec};
use super::stats::{CellEstimates, Interval};
use crate::error::Result;
use crate::metrics::registry::Unit;
use crate::report::markdown::{self, Table};
use crate::report::plot::{self, Figure, Point, Series};

/// `summary.md`: one row per cell, the axes' values, each metric as its mean and interval, and
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
                    .map(|e| markdown::estimate(e.mean, e.ci_low, e.ci_high)),
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
            "Mean and {}% confidence interval (± where symmetric: Student-t; [low, high] where not: \
             log-scale, or cut at the metric's range; docs/sweeps.md); {}. Spec hash {}.{}",
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

/// The unit that reads best for times up to the largest drawn (finite) value, as its
/// name and its length in seconds: seconds below 2 minutes, minutes below 2 hours, hours
/// below 2 days, days from there; so that an axis reads "3.5 days", not "302,400 s".
fn readable_time_unit(series: &[Series]) -> (&'static str, f64) {
    let largest = series
        .iter()
        .flat_map(|s| &s.points)
        .flat_map(|p| [p.mean, p.high])
        .filter(|v| v.is_finite())
        .fold(0.0, |m: f64, v| m.max(v.abs()));
    match largest {
        v if v < 120.0 => ("s", 1.0),
        v if v < 7_200.0 => ("min", 60.0),
        v if v < 172_800.0 => ("h", 3_600.0),
        _ => ("days", 86_400.0),
    }
}

/// File name of a plot, without the extension:
/// `<metric>_vs_<x>[_by_<series>][_<facet>-<value>]`, the facet value's characters other
/// than letters, digits, '.' and '-' replaced by '_'.
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
    name
}

/// An axis's name in words for an axis title: the common run parameters spelt out, any
/// other name with its underscores as spaces and a capital.
pub fn axis_label(name: &str) -> String {
    let known = match name {
        "load" => "Offered load",
        "procs" => "Machine size (processors)",
        "load_scale" => "Inter-arrival time scale",
        "users_scale" => "Users (relative to the log)",
        "trace" => "Trace",
        "scheduler" => "Scheduler",
        "predictor" => "Predictor",
        "policy" => "Policy",
        "strategy" => "Strategy",
        _ => "",
    };
    if !known.is_empty() {
        return known.into();
    }
    let words = name.replace('_', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => words,
    }
}

/// The figure of plot `p` over `estimates` (one facet's cells, named by `facet` such as
/// `workload=wk1`, or all): numeric x values to scale, others evenly in axis order; one
/// series per value of the series axis, styled by its position on that axis so that it
/// looks the same in every figure of the sweep.
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
            label: p.series.as_ref().map(|_| value_label(value)),
            style: i,
            points: Vec::new(),
        })
        .collect();
    let mut intervals = false;
    // Other axes' cells are separate points of the same series.
    for (c, per_metric, _) in estimates {
        let e = &per_metric[metric];
        let s = series_axis.map_or(0, |s| {
            let v = plan.cells[*c].values[s].to_string();
            series_values.iter().position(|x| *x == v).expect("an axis value")
        });
        let (low, high) = if e.half_width.is_finite() {
            intervals |= e.half_width > 0.0;
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
    let (name, unit) = plan
        .cells
        .first()
        .and_then(|c| c.experiment.metric_about(&p.metric))
        .map_or_else(
            || (p.metric.clone(), None),
            |a| (a.label.to_string(), Some(a.unit)),
        );
    let x_label = axis_label(&p.x);
    let (y_label, title) = match plan.compare.as_ref().filter(|_| p.difference) {
        Some(c) => {
            // The baseline's own series would be a line at 0: leave it out.
            let value = value_label(&c.baseline.to_string());
            series.retain(|s| s.label.as_ref() != Some(&value));
            (
                format!("{name}: difference against {value} (%)"),
                format!(
                    "{name}, paired difference against {} = {value}",
                    plan.axes[c.axis].name
                ),
            )
        }
        None => (String::new(), format!("{name} vs {}", x_label.to_lowercase())),
    };
    if let Some(shown) = &p.series_values {
        series.retain(|s| {
            s.label
                .as_ref()
                .is_some_and(|l| shown.iter().any(|v| value_label(v) == *l))
        });
    }
    // Times in the unit that reads best for the values drawn, unless the spec names the
    // axis itself (its label then says the unit, seconds).
    let suffix = match unit {
        Some(Unit::Seconds) if !p.difference && p.y_label.is_none() => in_readable_time(&mut series),
        _ => unit.map_or("", Unit::suffix),
    };
    let y_label = match (y_label.is_empty(), suffix) {
        (false, _) => y_label,
        (true, "") => name.clone(),
        (true, suffix) => format!("{name} ({suffix})"),
    };
    let title = figure_title(p, title, facet, intervals.then_some(plan.confidence));
    Figure {
        title,
        x_label: p.x_label.clone().unwrap_or(x_label),
        y_label: p.y_label.clone().unwrap_or(y_label),
        categories: (!numeric).then(|| x_values.iter().map(|v| value_label(&v.to_string())).collect()),
        log_x: p.log_x,
        log_y: p.log_y,
        legend: p.legend,
        legend_title: p.series.as_deref().map(axis_label),
        size: p.size,
        markers: true,
        series,
    }
}

/// The figure's title: the spec's (none if empty), else `title` with the facet's axis and
/// value, and the confidence level where intervals are drawn.
fn figure_title(
    p: &PlotSpec,
    mut title: String,
    facet: Option<&str>,
    confidence: Option<f64>,
) -> Option<String> {
    if let Some(t) = &p.title {
        return (!t.is_empty()).then(|| t.clone());
    }
    if let Some((axis, value)) = facet.and_then(|f| f.split_once('=')) {
        title = format!("{title}, {axis} = {}", value_label(value));
    }
    if let Some(level) = confidence {
        title.push_str(&format!(" (mean, {}% CI)", level * 100.0));
    }
    Some(title)
}

/// Rescales seconds in `series` to the time unit that reads best for them, and names it.
fn in_readable_time(series: &mut [Series]) -> &'static str {
    let (name, seconds) = readable_time_unit(series);
    for point in series.iter_mut().flat_map(|s| s.points.iter_mut()) {
        point.mean /= seconds;
        point.low /= seconds;
        point.high /= seconds;
    }
    name
}

/// An axis value as a reader sees it: a file (a trace, a machine, a series) by its name
/// without folders and extension (`.swf[.gz]`, `.csv[.gz]`, `.toml`).
fn value_label(value: &str) -> String {
    let name = value.rsplit('/').next().unwrap_or(value);
    [".swf.gz", ".swf", ".csv.gz", ".csv", ".toml"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .map_or_else(|| value.to_string(), str::to_string)
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
        by_cell.last_mut().expect("pushed").1[d.metric] = Interval {
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

/// Writes `summary.md` and every plot of the plan, in each of its formats, into `dir`.
pub fn write(dir: &Path, plan: &Plan, results: &Results, estimates: &[CellEstimates]) -> Result<()> {
    markdown::write_markdown(&dir.join("summary.md"), &summary_table(plan, results, estimates))?;
    let differences = difference_estimates(plan, results, estimates);
    for p in &plan.plots {
        let estimates = if p.difference { &differences } else { estimates };
        let mut figures: Vec<(String, Figure)> = Vec::new();
        match &p.facet {
            None => figures.push((plot_file(p, None), figure(plan, p, estimates, None))),
            Some(name) => {
                let axis = plan.axes.iter().position(|a| &a.name == name).expect("validated");
                for value in &plan.axes[axis].values {
                    let facet: Vec<CellEstimates> = estimates
                        .iter()
                        .filter(|(c, _, _)| &plan.cells[*c].values[axis] == value)
                        .cloned()
                        .collect();
                    let label = format!("{name}={value}");
                    figures.push((plot_file(p, Some(&label)), figure(plan, p, &facet, Some(&label))));
                }
            }
        }
        for (file, figure) in &figures {
            for &format in &p.formats {
                let path = dir.join(format!("{file}.{}", format.extension()));
                plot::write(&path, figure, format)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(values: &[f64]) -> Vec<Series> {
        let points = values
            .iter()
            .map(|&v| Point {
                x: 0.0,
                mean: v,
                low: v * 0.9,
                high: v * 1.1,
            })
            .collect();
        vec![Series {
            label: None,
            style: 0,
            points,
        }]
    }

    /// Times read in the unit their largest drawn value (an interval's top included) calls
    /// for; a saturated (infinite) point does not count.
    #[test]
    fn times_read_in_seconds_minutes_hours_or_days() {
        let unit = |values: &[f64]| readable_time_unit(&series(values)).0;
        assert_eq!(unit(&[5.0, 100.0]), "s");
        assert_eq!(unit(&[5.0, 110.0]), "min");
        assert_eq!(unit(&[300.0, f64::INFINITY]), "min");
        assert_eq!(unit(&[7_000.0]), "h");
        assert_eq!(unit(&[100_000.0, f64::NAN]), "h");
        assert_eq!(unit(&[170_000.0]), "days");
        assert_eq!(readable_time_unit(&series(&[3.0e5])).1, 86_400.0);
    }
}
