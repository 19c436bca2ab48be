//! The stopping rule of sequential replications: whether a cell (or a group of compared
//! cells) has run enough, read only from its own complete prefix of replications, so that
//! every cell stops where the rounds of `runner`'s docs stop it whatever the order in which
//! tasks finished.

use std::collections::HashMap;

use super::runs::Results;
use super::spec::{Plan, Replications, StopOn};
use super::stats::{Interval, estimate};
use super::task::RunRecord;

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
                let e = estimate(
                    &super::compare::paired(runs, base, k).1,
                    plan.confidence,
                    plan.metric_range(k).of_change(),
                );
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
fn stopping_estimate(plan: &Plan, metric: &str, runs: &[RunRecord]) -> Interval {
    let k = plan.metrics.iter().position(|m| m == metric).expect("validated");
    let samples: Vec<f64> = runs.iter().map(|r| r.metrics[k]).collect();
    estimate(&samples, plan.confidence, plan.metric_range(k))
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
