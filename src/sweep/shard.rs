//! Sweep shards: which cells `--shard K/N` runs, spread so that each shard gets about the
//! same estimated work, whatever order the grid's axes put the costly cells in.
//!
//! The assignment must be the same in every shard's process and known before anything
//! runs, so it rests on a cost estimate read from the spec alone (never on timings, nor
//! on files a node might see differently): a cell costs its scheduler's relative cost
//! ([`crate::sched::SchedulerKind::relative_cost`]) times 1 / (1 - load), the growth of a
//! queue with its offered load (the load the cell asks for, capped at 0.95; 0.5 when it
//! names none), times its jobs where the spec says how many (a model's, or a trace's
//! `first`) over the sweep's mean of those (1 otherwise). Decision groups
//! stay whole; the groups go, costliest first, each to the shard with the least estimated
//! work so far (ties to the lower index; longest-processing-time first, within 4/3 of the
//! best split). Shards count from 0, as Slurm's array task ids do.

use crate::params::ParamError;
use std::collections::BTreeMap;
use std::str::FromStr;

use super::spec::{Cell, Plan};
use super::stopping;
use crate::experiment::Experiment;
use crate::experiment::rigid::Source;

/// The most shards a sweep is split into: far more than any job array needs, few enough
/// that the split's tables stay small.
pub const MAX_SHARDS: usize = 100_000;

/// Which part of the cells this process runs: shard `index` of `count`, from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = ParamError;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let bad = || ParamError::BadValue {
            key: "shard".into(),
            value: s.into(),
            expected: "K/N with 0 <= K < N, e.g. 0/4".into(),
        };
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 {
            return Err(bad());
        }
        if count > MAX_SHARDS {
            return Err(ParamError::BadValue {
                key: "shard".into(),
                value: s.into(),
                expected: format!("at most {MAX_SHARDS} shards"),
            });
        }
        if index == count {
            return Err(ParamError::BadValue {
                key: "shard".into(),
                value: s.into(),
                expected: format!(
                    "a shard counted from 0: the {count} shards are 0/{count} to {}/{count}",
                    count - 1
                ),
            });
        }
        if index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// The cells this process runs, in plan order (all of them without a shard).
pub fn shard_cells(plan: &Plan, shard: Option<Shard>) -> Vec<usize> {
    let Some(shard) = shard else {
        return (0..plan.cells.len()).collect();
    };
    let owner = assignment(plan, shard.count);
    (0..plan.cells.len())
        .filter(|&c| owner[c] == shard.index)
        .collect()
}

/// Each shard's share of the sweep's estimated work, from 0 to 1.
pub fn shares(plan: &Plan, count: usize) -> Vec<f64> {
    let costs = estimated_costs(plan);
    let owner = assignment(plan, count);
    let total: f64 = costs.iter().sum();
    let mut share = vec![0.0; count];
    for (c, &cost) in costs.iter().enumerate() {
        share[owner[c]] += cost / total;
    }
    share
}

/// The shard of each cell.
fn assignment(plan: &Plan, count: usize) -> Vec<usize> {
    let costs = estimated_costs(plan);
    let mut groups: BTreeMap<usize, (f64, Vec<usize>)> = BTreeMap::new();
    for cell in &plan.cells {
        let group = groups
            .entry(stopping::decision_group(plan, cell.index))
            .or_default();
        group.0 += costs[cell.index];
        group.1.push(cell.index);
    }
    let mut order: Vec<(usize, f64)> = groups.iter().map(|(&root, (cost, _))| (root, *cost)).collect();
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut load = vec![0.0f64; count];
    let mut owner = vec![0; plan.cells.len()];
    for (root, cost) in order {
        let least = (0..count)
            .min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b)))
            .expect("at least one shard");
        load[least] += cost;
        for &c in &groups[&root].1 {
            owner[c] = least;
        }
    }
    owner
}

/// Every cell's estimated cost (module docs), in plan order.
pub fn estimated_costs(plan: &Plan) -> Vec<f64> {
    let jobs: Vec<Option<f64>> = plan.cells.iter().map(declared_jobs).collect();
    let known: Vec<f64> = jobs.iter().flatten().copied().collect();
    let mean = known.iter().sum::<f64>() / known.len().max(1) as f64;
    plan.cells
        .iter()
        .zip(&jobs)
        .map(|(cell, jobs)| {
            let size = jobs.map_or(1.0, |n| n / mean.max(1.0));
            let queue = |load: Option<f64>| 1.0 / (1.0 - load.unwrap_or(0.5).clamp(0.0, 0.95));
            match &cell.experiment {
                Experiment::Rigid(r) => {
                    let load = match &r.workload.source {
                        Source::Model(m) => m.load_target(),
                        Source::Trace(t) => t.load,
                    };
                    r.scheduler.relative_cost() * size * queue(load)
                }
                _ => size,
            }
        })
        .collect()
}

/// The jobs a cell's replications simulate, where the spec says: a model's count, or the
/// first jobs of a trace.
fn declared_jobs(cell: &Cell) -> Option<f64> {
    match &cell.experiment {
        Experiment::Rigid(r) => match &r.workload.source {
            Source::Model(m) => Some(m.expected_jobs() as f64),
            Source::Trace(t) => t.options.selection.first.map(|n| n as f64),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn plan(text: &str) -> Plan {
        Plan::from_str(text, Path::new("t.toml"), Path::new("."), "t").unwrap()
    }

    #[test]
    fn shards_count_from_zero_and_say_so() {
        assert_eq!("3/4".parse::<Shard>(), Ok(Shard { index: 3, count: 4 }));
        let four = "4/4".parse::<Shard>().unwrap_err().to_string();
        assert!(
            four.contains("counted from 0: the 4 shards are 0/4 to 3/4"),
            "{four}"
        );
        let many = "0/100001".parse::<Shard>().unwrap_err().to_string();
        assert!(many.contains("at most 100000 shards"), "{many}");
        for bad in ["5/4", "0/0", "1", "a/4", "-1/4"] {
            assert!(
                bad.parse::<Shard>()
                    .unwrap_err()
                    .to_string()
                    .contains("expected K/N"),
                "{bad}"
            );
        }
    }

    /// The demo's grid: 7 loads x 4 schedulers. Taking cells K mod 4 put every
    /// conservative cell on one shard; by cost, each shard gets some, every cell is run by
    /// exactly one shard, and the costliest shard's share is within 4/3 of the best split
    /// (which is at least an even split, and at least the costliest cell).
    #[test]
    fn the_demos_conservative_cells_are_spread_over_the_shards() {
        let spec =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/sweeps/quick.toml")).unwrap();
        let plan = plan(&spec);
        for count in 1..=8 {
            let mut seen = vec![0; plan.cells.len()];
            for index in 0..count {
                for c in shard_cells(&plan, Some(Shard { index, count })) {
                    seen[c] += 1;
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{count} shards: {seen:?}");
            let shares = shares(&plan, count);
            assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            let costs = estimated_costs(&plan);
            let total: f64 = costs.iter().sum();
            let best = (1.0 / count as f64).max(costs.iter().cloned().fold(0.0, f64::max) / total);
            let most = shares.iter().cloned().fold(0.0, f64::max);
            assert!(most <= 4.0 / 3.0 * best + 1e-9, "{count}: {shares:?}");
        }
        let conservative = |index| {
            shard_cells(&plan, Some(Shard { index, count: 4 }))
                .iter()
                .filter(|&&c| plan.cell_label(c).contains("conservative"))
                .count()
        };
        assert!(
            (0..4).all(|k| conservative(k) > 0),
            "{:?}",
            (0..4).map(conservative).collect::<Vec<_>>()
        );
    }

    /// A cell's estimated cost follows its scheduler, its load and its trace's size.
    #[test]
    fn costs_follow_scheduler_load_and_size() {
        let plan = plan(
            "metrics = [\"mean_wait\"]\n[run]\nmodel = \"lublin\"\njobs = 100\n\
             [axes]\nscheduler = [\"fcfs\", \"conservative\"]\nload = [0.5, 0.75]\n[replications]\ncount = 1\n",
        );
        let costs = estimated_costs(&plan);
        let by = |s: &str, l: &str| {
            (0..plan.cells.len())
                .find(|&c| plan.cell_label(c).contains(s) && plan.cell_label(c).contains(l))
                .map(|c| costs[c])
                .unwrap()
        };
        assert_eq!(by("fcfs", "0.5"), 2.0);
        assert_eq!(by("fcfs", "0.75"), 4.0);
        assert_eq!(by("conservative", "0.5"), 20.0);
    }
}
