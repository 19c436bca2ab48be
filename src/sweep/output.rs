//! Sweep outputs: `runs.csv` (`super::runs`), `summary.csv`, `summary.json`,
//! `summary.md`, SVG plots, and a copy of the spec with its hash. Every file is written
//! atomically, in an order that depends only on the plan, so the bytes do not depend on
//! threads, shards or the order in which tasks finished.

use std::fs;
use std::io::Write;
use std::path::Path;

use serde_json::json;

use super::runs::{
    HASH_FILE, RUNS_FILE, Results, SPEC_DIR_FILE, SPEC_FILE, number, runs_header, runs_line, runs_row,
};
use super::spec::{Plan, Replications, StopOn};
use super::stats::{CellEstimates, Interval, estimate};
use super::stopping::statuses;
use super::task::RunRecord;
use crate::atomic::write_atomically;
use crate::error::{Error, Result};

fn cell_estimates(plan: &Plan, runs: &[RunRecord]) -> Vec<Interval> {
    (0..plan.metrics.len())
        .map(|k| {
            estimate(
                &runs.iter().map(|r| r.metrics[k]).collect::<Vec<_>>(),
                plan.confidence,
                plan.metric_range(k),
            )
        })
        .collect()
}

/// Writes every output for the cells in `cells` (all cells for a whole sweep, one shard's
/// cells for a shard).
pub fn write_outputs(dir: &Path, plan: &Plan, results: &Results, cells: &[usize]) -> Result<()> {
    fs::create_dir_all(dir).map_err(|e| Error::Output {
        path: dir.to_path_buf(),
        error: e,
    })?;
    write_atomically(&dir.join(SPEC_FILE), |w| w.write_all(plan.spec_text.as_bytes()))?;
    write_atomically(&dir.join(HASH_FILE), |w| writeln!(w, "{}", plan.spec_hash))?;
    write_atomically(&dir.join(SPEC_DIR_FILE), |w| {
        writeln!(w, "{}", plan.spec_dir.display())
    })?;
    write_atomically(&dir.join(RUNS_FILE), |w| {
        w.write_all(&runs_line(&runs_header(plan)))?;
        for &c in cells {
            for r in &results[c] {
                w.write_all(&runs_line(&runs_row(plan, r)))?;
            }
        }
        Ok(())
    })?;
    let status = statuses(plan, results, cells);
    let estimates: Vec<CellEstimates> = cells
        .iter()
        .map(|&c| (c, cell_estimates(plan, &results[c]), status[&c].1))
        .collect();
    write_summary_csv(dir, plan, &estimates)?;
    write_summary_json(dir, plan, results, &estimates)?;
    super::figures::write(dir, plan, results, &estimates)?;
    super::compare::write(dir, plan, results, cells)?;
    Ok(())
}

fn write_summary_csv(dir: &Path, plan: &Plan, estimates: &[CellEstimates]) -> Result<()> {
    // Whether each metric's interval meets the target; under difference stopping, the
    // cell's stopping verdict on its difference, in the stopping metric's rows only.
    let target = match &plan.replications {
        Replications::Sequential {
            target,
            on: StopOn::Mean,
            ..
        } => Some(*target),
        _ => None,
    };
    let difference_metric = match &plan.replications {
        Replications::Sequential {
            metric,
            on: StopOn::Difference,
            ..
        } => Some(metric),
        _ => None,
    };
    write_atomically(&dir.join("summary.csv"), |w| {
        let mut header: Vec<String> = plan.axes.iter().map(|a| a.name.clone()).collect();
        header.extend(
            [
                "metric",
                "n",
                "mean",
                "sd",
                "ci_low",
                "ci_high",
                "half_width",
                "level",
                "target_met",
            ]
            .map(String::from),
        );
        w.write_all(&runs_line(&header))?;
        for (c, per_metric, met) in estimates {
            for (m, e) in plan.metrics.iter().zip(per_metric) {
                let mut row: Vec<String> = plan.cells[*c].values.iter().map(|v| v.to_string()).collect();
                row.push(m.clone());
                row.push(e.n.to_string());
                for x in [e.mean, e.sd, e.ci_low, e.ci_high, e.half_width, e.level] {
                    row.push(number(x));
                }
                let verdict = match (target, difference_metric, met) {
                    (Some(t), _, _) => e.meets(t).to_string(),
                    (None, Some(stopping), Some(met)) if stopping == m => met.to_string(),
                    _ => String::new(),
                };
                row.push(verdict);
                w.write_all(&runs_line(&row))?;
            }
        }
        Ok(())
    })
}

fn write_summary_json(dir: &Path, plan: &Plan, results: &Results, estimates: &[CellEstimates]) -> Result<()> {
    let cells: Vec<serde_json::Value> = estimates
        .iter()
        .map(|(c, per_metric, met)| {
            let params: serde_json::Map<String, serde_json::Value> = plan
                .axes
                .iter()
                .zip(&plan.cells[*c].values)
                .map(|(a, v)| (a.name.clone(), json!(v.to_string())))
                .collect();
            let metrics: serde_json::Map<String, serde_json::Value> = plan
                .metrics
                .iter()
                .zip(per_metric)
                .map(|(m, e)| (m.clone(), serde_json::to_value(e).expect("serialisable")))
                .collect();
            json!({
                "cell": c,
                "params": params,
                "scheduler": plan.cells[*c].experiment.scheduler_name(),
                "replications": results[*c].len(),
                "saturated": results[*c].iter().any(|r| r.saturated),
                "target_met": met,
                "metrics": metrics,
            })
        })
        .collect();
    let replications = match &plan.replications {
        Replications::Fixed(n) => json!({ "count": n }),
        Replications::Sequential {
            min,
            max,
            batch,
            target,
            metric,
            on,
        } => {
            let mut rule =
                json!({ "min": min, "max": max, "batch": batch, "target": target, "metric": metric });
            // Only when it differs from the default, so that earlier summaries keep their bytes.
            if *on == StopOn::Difference {
                rule["on"] = json!("difference");
            }
            rule
        }
    };
    let doc = json!({
        "name": plan.name,
        "description": plan.description,
        "spec_hash": plan.spec_hash,
        "seed": plan.seed,
        "confidence": plan.confidence,
        "interval": "two-sided, inside the metric's range: log-scale (modified Cox) for a positive metric, else Student-t; half_width is the Student-t one",
        "replications": replications,
        "axes": plan.axes.iter().map(|a| a.name.clone()).collect::<Vec<_>>(),
        "metrics": plan.metrics,
        "cells": cells,
    });
    write_atomically(&dir.join("summary.json"), |w| {
        serde_json::to_writer_pretty(&mut *w, &doc)?;
        writeln!(w)
    })
}
