//! Sweep outputs: `runs.csv` (one row per replication), `summary.csv`, `summary.json`,
//! `summary.md`, SVG plots, and a copy of the spec with its hash. Every file is written
//! atomically, in an order that depends only on the plan, so the bytes do not depend on
//! threads, shards or the order in which tasks finished.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::Path;

use serde_json::json;

use super::spec::{Plan, Replications, StopOn};
use super::stats::{Estimate, estimate};
use super::task::RunRecord;
use crate::atomic::write_atomically;
use crate::error::{Error, Result};
use crate::seed::fnv1a;

pub const RUNS_FILE: &str = "runs.csv";
pub const SPEC_FILE: &str = "spec.toml";
pub const HASH_FILE: &str = "spec.hash";
/// The spec's folder, absolute, so that `merge` resolves relative trace paths as the run
/// did. Kept out of the summaries so that they do not depend on where the repository lies.
pub const SPEC_DIR_FILE: &str = "spec.dir";

/// Formats a float so that parsing it back gives the same value: shortest round trip,
/// `inf` and `NaN` as Rust and pandas read them.
pub fn number(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{x}")
    }
}

/// The header of `runs.csv`: one column per axis, then rep, seed, saturated, the metrics,
/// and `check`.
pub fn runs_header(plan: &Plan) -> Vec<String> {
    let mut h: Vec<String> = plan.axes.iter().map(|a| a.name.clone()).collect();
    h.extend(["rep", "seed", "saturated"].map(String::from));
    h.extend(plan.metrics.iter().cloned());
    h.push("check".into());
    h
}

/// A row's check: 32 bits of the FNV-1a hash of its other fields (separated by the unit
/// separator, so CSV quoting does not matter), in hex. An edited or corrupted row no longer
/// matches it (accidents, not forgery, are what it guards against).
fn check(fields: &[impl AsRef<str>]) -> String {
    let mut bytes = Vec::new();
    for f in fields {
        bytes.extend_from_slice(f.as_ref().as_bytes());
        bytes.push(0x1f);
    }
    format!("{:08x}", fnv1a(&bytes) as u32)
}

pub fn runs_row(plan: &Plan, r: &RunRecord) -> Vec<String> {
    let mut row: Vec<String> = plan.cells[r.cell].values.iter().map(|v| v.to_string()).collect();
    row.push(r.rep.to_string());
    row.push(r.seed.to_string());
    row.push(r.saturated.to_string());
    row.extend(r.metrics.iter().map(|&m| number(m)));
    row.push(check(&row));
    row
}

/// One CSV line (with its newline) for the journal.
pub fn runs_line(fields: &[String]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(fields).expect("writing to memory");
    w.into_inner().expect("writing to memory")
}

/// Reads the complete rows of a `runs.csv` written for `plan`. A last line without its
/// newline (the process was killed mid-write) is ignored; any other bad row is an error
/// naming the file and line: one whose check does not match its fields, whose seed is not
/// the one the spec gives its cell and replication, or that records a replication again.
pub fn read_runs(path: &Path, plan: &Plan) -> Result<Vec<RunRecord>> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(path, e)),
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(&bytes[..complete]);
    let bad = |line: u64, message: String| Error::Swf {
        path: path.to_path_buf(),
        line: line as usize,
        message,
    };
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| bad(1, e.to_string()))?
        .iter()
        .map(String::from)
        .collect();
    if complete > 0 && header != runs_header(plan) {
        return Err(bad(
            1,
            format!(
                "header {header:?} does not match the spec's {:?}",
                runs_header(plan)
            ),
        ));
    }
    let by_values: HashMap<Vec<String>, usize> = plan
        .cells
        .iter()
        .map(|c| (c.values.iter().map(|v| v.to_string()).collect(), c.index))
        .collect();
    let mut out = Vec::new();
    let mut first_line: HashMap<(usize, usize), u64> = HashMap::new();
    for (i, row) in reader.records().enumerate() {
        let line = i as u64 + 2;
        let row = row.map_err(|e| bad(line, e.to_string()))?;
        let fields: Vec<&str> = row.iter().collect();
        let record = parse_row(plan, &by_values, &fields).map_err(|m| bad(line, m))?;
        if let Some(earlier) = first_line.insert((record.cell, record.rep), line) {
            return Err(bad(
                line,
                format!(
                    "cell {} replication {} recorded again (first on line {earlier})",
                    record.cell, record.rep
                ),
            ));
        }
        out.push(record);
    }
    Ok(out)
}

/// One row of `runs.csv` (the header's worth of fields) as a record, checked: its cell is
/// the spec's, its check matches its fields, its seed is the spec's for its cell and rep.
fn parse_row(
    plan: &Plan,
    by_values: &HashMap<Vec<String>, usize>,
    fields: &[&str],
) -> std::result::Result<RunRecord, String> {
    let (axes, width) = (plan.axes.len(), runs_header(plan).len());
    if fields.len() != width {
        return Err(format!("{} fields, expected {width}", fields.len()));
    }
    let (last, rest) = fields.split_last().expect("a header's worth of fields");
    if *last != check(rest) {
        return Err(format!(
            "the row does not match its check ({last}, its fields give {}): edited or corrupt",
            check(rest)
        ));
    }
    let values: Vec<String> = fields[..axes].iter().map(|s| s.to_string()).collect();
    let cell = *by_values
        .get(&values)
        .ok_or_else(|| format!("no cell of the spec has the values {values:?}"))?;
    let whole = |k: usize, what: &str| -> std::result::Result<u64, String> {
        fields[axes + k]
            .parse()
            .map_err(|_| format!("{what}: '{}' is not a whole number", fields[axes + k]))
    };
    let saturated = match fields[axes + 2] {
        "true" => true,
        "false" => false,
        other => return Err(format!("saturated: '{other}' is not true or false")),
    };
    let metrics = fields[axes + 3..]
        .iter()
        .zip(&plan.metrics)
        .map(|(f, m)| {
            f.parse::<f64>()
                .map_err(|_| format!("{m}: '{f}' is not a number"))
        })
        .collect::<std::result::Result<Vec<f64>, String>>()?;
    let record = RunRecord {
        cell,
        rep: whole(0, "rep")? as usize,
        seed: whole(1, "seed")?,
        saturated,
        metrics,
    };
    let expected = plan.seed_for(&plan.cells[cell], record.rep);
    if record.seed != expected {
        return Err(format!(
            "seed {} is not the spec's seed of cell {cell} replication {} ({expected})",
            record.seed, record.rep
        ));
    }
    Ok(record)
}

/// Replications per cell, sorted by rep; cells of other shards stay empty.
pub type Results = Vec<Vec<RunRecord>>;

/// Whether a cell's replications are complete under the plan's stopping rule, and whether
/// its target was met (None for a fixed count).
pub fn cell_status(plan: &Plan, runs: &[RunRecord]) -> (bool, Option<bool>) {
    let n = runs.len();
    let saturated = runs.iter().any(|r| r.saturated);
    match &plan.replications {
        Replications::Fixed(count) => (n >= *count || (saturated && n > 0), None),
        Replications::Sequential {
            min,
            max,
            target,
            metric,
            ..
        } => {
            let met = stopping_estimate(plan, metric, runs).meets(*target);
            (saturated && n > 0 || (n >= *min && met) || n >= *max, Some(met))
        }
    }
}

/// The cells that decide together, as each cell's group: the index of the group's
/// baseline. Under difference stopping a `[compare]` baseline and the cells compared with
/// it form a group; otherwise every cell is its own.
pub fn decision_group(plan: &Plan, c: usize) -> usize {
    match (&plan.replications, &plan.compare) {
        (
            Replications::Sequential {
                on: StopOn::Difference,
                ..
            },
            Some(compare),
        ) => compare.partner[c].unwrap_or(c),
        _ => c,
    }
}

/// [`cell_status`] for each member of one decision group ([`decision_group`]), given as
/// (cell, its replications), the baseline among them. Under difference stopping the
/// group stops at `max`, or from `min` on once every compared cell's paired relative
/// difference in the stopping metric has an interval within ±target times the larger of 1
/// (the baseline's value) and the difference itself (a cell ten times worse than its
/// baseline need not be known to a tenth of the baseline); a saturated cell
/// stops alone, a saturated baseline stops the group, and a group left with no cell to
/// compare (or a cell in no comparison) stops as a lone cell does, on its mean. A member
/// is complete only with as many replications as its baseline (or when saturated).
pub fn group_status(plan: &Plan, group: &[(usize, &[RunRecord])]) -> Vec<(bool, Option<bool>)> {
    let Replications::Sequential {
        min,
        max,
        target,
        metric,
        on: StopOn::Difference,
        ..
    } = &plan.replications
    else {
        return group.iter().map(|(_, runs)| cell_status(plan, runs)).collect();
    };
    if group.len() == 1 {
        return vec![cell_status(plan, group[0].1)];
    }
    let root = decision_group(plan, group[0].0);
    let base = group
        .iter()
        .find(|(c, _)| *c == root)
        .expect("a decision group holds its baseline")
        .1;
    let saturated = |runs: &[RunRecord]| !runs.is_empty() && runs.iter().any(|r| r.saturated);
    let k = plan.metrics.iter().position(|m| m == metric).expect("validated");
    // Per compared cell that still runs: whether its difference is precise enough.
    let met: Vec<Option<bool>> = group
        .iter()
        .map(|&(c, runs)| {
            (c != root && !saturated(runs)).then(|| {
                let e = estimate(&super::compare::paired(runs, base, k).1, plan.confidence);
                e.half_width <= *target * e.mean.abs().max(1.0)
            })
        })
        .collect();
    if met.iter().all(Option::is_none) {
        // Nothing left to compare: the baseline decides on its own mean.
        let alone = cell_status(plan, base);
        return group
            .iter()
            .map(|&(c, runs)| {
                if c == root {
                    alone
                } else {
                    (saturated(runs), Some(false))
                }
            })
            .collect();
    }
    let n = base.len();
    let all_met = met.iter().flatten().all(|&m| m);
    let stops = saturated(base) || n >= *max || (n >= *min && all_met);
    group
        .iter()
        .zip(&met)
        .map(|(&(c, runs), m)| match m {
            _ if c == root => (stops, Some(all_met)),
            None => (true, Some(false)),
            Some(m) => (
                stops && runs.len() == n || saturated(base) && !runs.is_empty(),
                Some(*m),
            ),
        })
        .collect()
}

/// Every cell's [`group_status`], for the cells in `cells` (their groups lie among them).
pub fn statuses(plan: &Plan, results: &Results, cells: &[usize]) -> HashMap<usize, (bool, Option<bool>)> {
    let mut groups: std::collections::BTreeMap<usize, Vec<(usize, &[RunRecord])>> = Default::default();
    for &c in cells {
        groups
            .entry(decision_group(plan, c))
            .or_default()
            .push((c, &results[c]));
    }
    let mut out = HashMap::new();
    for members in groups.values() {
        for (&(c, _), status) in members.iter().zip(group_status(plan, members)) {
            out.insert(c, status);
        }
    }
    out
}

/// The interval of the stopping rule's `metric` over `runs`.
fn stopping_estimate(plan: &Plan, metric: &str, runs: &[RunRecord]) -> Estimate {
    let k = plan.metrics.iter().position(|m| m == metric).expect("validated");
    let samples: Vec<f64> = runs.iter().map(|r| r.metrics[k]).collect();
    estimate(&samples, plan.confidence)
}

/// How many replications an open cell will probably have run when it stops, for the
/// progress's ETA: the fixed count; under sequential stopping, the usual sample-size
/// projection n (h / target)^2 from its relative half-width h over its `runs` so far,
/// rounded up to the next batch, between `next` (the batch under way) and `max`; under
/// difference stopping, which a group decides, `next`. A projection, not a promise: the
/// interval itself decides.
pub fn projected_replications(plan: &Plan, runs: &[RunRecord], next: usize) -> usize {
    match &plan.replications {
        Replications::Fixed(count) => *count,
        Replications::Sequential {
            on: StopOn::Difference,
            ..
        } => next,
        Replications::Sequential {
            max,
            batch,
            target,
            metric,
            ..
        } => {
            let e = stopping_estimate(plan, metric, runs);
            let relative = e.half_width / e.mean.abs();
            if !relative.is_finite() || runs.len() < 2 {
                return next;
            }
            let needed = (runs.len() as f64 * (relative / target).powi(2)).ceil() as usize;
            let rounds = needed.saturating_sub(next).div_ceil(*batch);
            (next + rounds * batch).clamp(next, *max)
        }
    }
}

fn cell_estimates(plan: &Plan, runs: &[RunRecord]) -> Vec<Estimate> {
    (0..plan.metrics.len())
        .map(|k| {
            estimate(
                &runs.iter().map(|r| r.metrics[k]).collect::<Vec<_>>(),
                plan.confidence,
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

/// Per-cell estimates, one per metric, and whether the stopping target was met.
pub type CellEstimates = (usize, Vec<Estimate>, Option<bool>);

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
        "interval": "Student-t, two-sided",
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
