//! Paired differences against a baseline (`[compare]`): for each cell and metric, the mean
//! of (cell - baseline) and of (cell - baseline) / baseline over the replications the two
//! cells share, with Student-t intervals, written to `differences.csv` and
//! `differences.md`. Replication r of both cells replays the same workload, so the pairs
//! cancel the workload's variation that separate intervals would carry.

use std::io::Write;
use std::path::Path;

use super::runs::{Results, number, runs_line};
use super::spec::{Compare, Plan};
use super::stats::{Interval, estimate};
use super::task::RunRecord;
use crate::atomic::write_atomically;
use crate::error::Result;
use crate::metrics::registry::Range;
use crate::report::markdown::{self, Table};

/// One cell's paired difference in one metric: absolute and relative.
pub struct Difference {
    pub cell: usize,
    pub metric: usize,
    pub absolute: Interval,
    pub relative: Interval,
}

/// Paired differences of metric `m` between `runs` and their baseline's `base`, over the
/// replications both have: absolute, and relative to the baseline's value (skipping pairs
/// whose baseline value is 0 or not finite).
pub fn paired(runs: &[RunRecord], base: &[RunRecord], m: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut absolute, mut relative) = (Vec::new(), Vec::new());
    for run in runs {
        let Some(b) = base.iter().find(|r| r.rep == run.rep) else {
            continue;
        };
        let (x, y) = (run.metrics[m], b.metrics[m]);
        absolute.push(x - y);
        if y != 0.0 && y.is_finite() {
            relative.push((x - y) / y);
        }
    }
    (absolute, relative)
}

/// The paired differences of `cells` that have their baseline partner among the results.
pub fn differences(plan: &Plan, compare: &Compare, results: &Results, cells: &[usize]) -> Vec<Difference> {
    let mut out = Vec::new();
    for &c in cells {
        let Some(b) = compare.partner[c] else { continue };
        if results[b].is_empty() || !cells.contains(&b) {
            continue;
        }
        for m in 0..plan.metrics.len() {
            let (absolute, relative) = paired(&results[c], &results[b], m);
            out.push(Difference {
                cell: c,
                metric: m,
                absolute: estimate(&absolute, plan.confidence, Range::Signed),
                relative: estimate(&relative, plan.confidence, plan.metric_range(m).of_change()),
            });
        }
    }
    out
}

/// Writes `differences.csv` and `differences.md` for the cells in `cells`.
pub fn write(dir: &Path, plan: &Plan, results: &Results, cells: &[usize]) -> Result<()> {
    let Some(compare) = &plan.compare else {
        return Ok(());
    };
    let rows = differences(plan, compare, results, cells);
    let baseline = format!("{}={}", plan.axes[compare.axis].name, compare.baseline);
    write_atomically(&dir.join("differences.csv"), |w| {
        let mut header: Vec<String> = plan.axes.iter().map(|a| a.name.clone()).collect();
        header.extend(
            [
                "metric",
                "baseline",
                "n",
                "mean",
                "ci_low",
                "ci_high",
                "half_width",
                "relative",
                "relative_ci_low",
                "relative_ci_high",
                "level",
            ]
            .map(String::from),
        );
        w.write_all(&runs_line(&header))?;
        for d in &rows {
            let mut row: Vec<String> = plan.cells[d.cell].values.iter().map(|v| v.to_string()).collect();
            row.push(plan.metrics[d.metric].clone());
            row.push(baseline.clone());
            row.push(d.absolute.n.to_string());
            let (a, r) = (&d.absolute, &d.relative);
            for x in [
                a.mean,
                a.ci_low,
                a.ci_high,
                a.half_width,
                r.mean,
                r.ci_low,
                r.ci_high,
                a.level,
            ] {
                row.push(number(x));
            }
            w.write_all(&runs_line(&row))?;
        }
        Ok(())
    })?;
    let mut header: Vec<String> = plan.axes.iter().map(|a| a.name.clone()).collect();
    header.extend(plan.metrics.iter().map(|m| format!("{m}: difference (relative)")));
    let mut table_rows = Vec::new();
    for chunk in rows.chunks(plan.metrics.len().max(1)) {
        let mut row: Vec<String> = plan.cells[chunk[0].cell]
            .values
            .iter()
            .map(|v| v.to_string())
            .collect();
        for d in chunk {
            let relative = if d.relative.mean.is_finite() {
                let r = &d.relative;
                let percent = |x: f64| format!("{:.1}%", 100.0 * x);
                format!(
                    " ({}{})",
                    if r.mean.is_sign_positive() { "+" } else { "" },
                    markdown::interval(r.mean, r.ci_low, r.ci_high, percent)
                )
            } else {
                String::new()
            };
            row.push(format!(
                "{}{relative}",
                markdown::estimate(d.absolute.mean, d.absolute.ci_low, d.absolute.ci_high)
            ));
        }
        table_rows.push(row);
    }
    let table = Table {
        title: format!("{}: paired differences against {baseline}", plan.name),
        description: String::new(),
        legend: format!(
            "Each cell minus its {baseline} partner, replication by replication (the same workloads): the mean \
             difference ± the half-width of its {}% Student-t interval, and in parentheses the mean relative \
             difference with its own (never below -100% for a metric that cannot be negative: [low, high] where \
             cut). Spec hash {}.",
            plan.confidence * 100.0,
            plan.spec_hash
        ),
        warnings: Vec::new(),
        header,
        rows: table_rows,
    };
    markdown::write_markdown(&dir.join("differences.md"), &table)
}
