//! One replication of one cell: the cell's experiment run with the replication's seed,
//! measured by the plan's metrics. Cells are prepared once per sweep, and traces shared.

use std::collections::HashMap;

use super::spec::{Cell, Plan};
use crate::error::{Error, Result};
use crate::experiment::{Experiment, Prepared, Shared, Worker};

/// The result of one replication, as one row of `runs.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRecord {
    pub cell: usize,
    pub rep: usize,
    pub seed: u64,
    pub saturated: bool,
    /// One value per metric of the plan, in its order.
    pub metrics: Vec<f64>,
}

/// The cells of one sweep (or shard), prepared once: each trace read and checked before
/// any task runs, shared by every cell that replays it.
pub struct PreparedCells {
    prepared: HashMap<usize, Prepared>,
    /// What to know about the traces read (no estimates, offered load at least 1), each
    /// said once.
    pub warnings: Vec<String>,
}

impl PreparedCells {
    /// Prepares `cells` for the plan's window.
    pub fn new(plan: &Plan, cells: &[&Cell]) -> Result<PreparedCells> {
        let rigid = cells.iter().filter_map(|c| match &c.experiment {
            Experiment::Rigid(r) => Some(&r.workload),
            _ => None,
        });
        let mut shared = Shared::new(rigid, false);
        let mut prepared = HashMap::new();
        let mut warnings: Vec<String> = Vec::new();
        for cell in cells {
            let p = cell.experiment.prepare(&mut shared, plan.window.as_ref())?;
            for w in p.warnings() {
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
            prepared.insert(cell.index, p);
        }
        Ok(PreparedCells { prepared, warnings })
    }
}

/// Runs replication `rep` of `cell`; returns the record and the jobs simulated. A run that
/// saturates is a record like any other; a run that cannot be simulated at all (a cluster
/// job that never fits, say) is an error naming the cell.
pub fn run_replication(
    plan: &Plan,
    cell: &Cell,
    rep: usize,
    cells: &PreparedCells,
    worker: &mut Worker,
) -> Result<(RunRecord, u64)> {
    let seed = plan.seed_for(cell, rep);
    let (outcome, simulated) = cells.prepared[&cell.index]
        .run(seed, worker, &plan.metrics)
        .map_err(|e| {
            Error::Invalid(format!(
                "cell {} ({}), replication {rep}: {e}",
                cell.index,
                plan.cell_label(cell.index)
            ))
        })?;
    let record = RunRecord {
        cell: cell.index,
        rep,
        seed,
        saturated: outcome.saturated(),
        metrics: plan.metrics.iter().map(|m| outcome.metric(m)).collect(),
    };
    Ok((record, simulated))
}
