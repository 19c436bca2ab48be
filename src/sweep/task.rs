//! One replication of one cell: the cell's experiment run with the replication's seed,
//! measured by the plan's metrics. Traces are read once per sweep and shared.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::spec::{Cell, Plan};
use crate::error::{Error, Result};
use crate::experiment::moldable::References;
use crate::experiment::rigid::{Rigid, Source, TraceSource, Worker};
use crate::experiment::{Experiment, Outcome, cluster};
use crate::malleable::VERSUS_AVG_METRICS;
use crate::workload::Workload;
use crate::workload::info::TraceInfo;
use crate::workload::swf::{SwfOptions, read_swf};

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

/// Identity of a trace as read (before any load scaling).
type TraceKey = (PathBuf, SwfOptions);

fn trace_of(cell: &Cell) -> Option<(&Rigid, &TraceSource)> {
    match &cell.experiment {
        Experiment::Rigid(r) => match &r.source {
            Source::Trace(t) => Some((r, t)),
            Source::Model(_) => None,
        },
        _ => None,
    }
}

fn trace_key(t: &TraceSource) -> TraceKey {
    (t.path.clone(), t.options.clone())
}

/// What a sweep's tasks share: traces read once, with their offered loads, and the
/// reference runs of moldable cells.
#[derive(Default)]
pub struct Traces {
    loaded: HashMap<TraceKey, (Arc<Workload>, f64)>,
    /// What to know about the traces read (no estimates, offered load at least 1).
    pub warnings: Vec<String>,
    /// DYN-EQUI's runs, which every moldable cell on the same workload divides by.
    references: References,
}

impl Traces {
    /// Reads every trace the plan's cells use, checking each is long enough for the window
    /// and that every priority map covers its queues.
    pub fn load(plan: &Plan, cells: &[&Cell]) -> Result<Traces> {
        let mut traces = Traces::default();
        let uses: Vec<(&Rigid, &TraceSource)> = cells.iter().filter_map(|c| trace_of(c)).collect();
        for &(rigid, t) in &uses {
            let key = trace_key(t);
            if !traces.loaded.contains_key(&key) {
                // A trace that no cell resamples, augments or follows sessions on is read
                // in the columns a simulation reads alone, about half the memory.
                let simulation_only = uses
                    .iter()
                    .filter(|(_, u)| trace_key(u) == key)
                    .all(|(r, _)| r.reads_only_simulated_columns());
                let options = SwfOptions {
                    simulation_only,
                    ..t.options.clone()
                };
                let w = read_swf(&t.path, &options)?;
                w.require_jobs(&t.path)?;
                if let Some(window) = &plan.window
                    && w.jobs.len() < window.measured.end
                {
                    return Err(Error::Workload {
                        path: t.path.clone(),
                        message: format!(
                            "{} jobs, but the measure window needs {} (warm-up plus window)",
                            w.jobs.len(),
                            window.measured.end
                        ),
                    });
                }
                let info = TraceInfo::of(&w);
                traces.warnings.extend(info.warnings(t.estimates.is_some()));
                traces
                    .loaded
                    .insert(key.clone(), (Arc::new(w), info.offered_load));
            }
            if let Some(a) = &rigid.augmentation {
                let (w, _) = &traces.loaded[&key];
                a.priorities.apply(&w.jobs).map_err(|message| Error::Workload {
                    path: t.path.clone(),
                    message,
                })?;
            }
        }
        Ok(traces)
    }
}

/// Runs replication `rep` of `cell`; returns the record and the jobs simulated. A run that
/// saturates is a record like any other; a run that cannot be simulated at all (a cluster
/// job that never fits, say) is an error naming the cell.
pub fn run_replication(
    plan: &Plan,
    cell: &Cell,
    rep: usize,
    traces: &Traces,
    worker: &mut Worker,
) -> Result<(RunRecord, u64)> {
    let seed = plan.seed_for(cell, rep);
    let asks = |names: &[&str]| plan.metrics.iter().any(|m| names.contains(&m.as_str()));
    let (outcome, simulated) = match &cell.experiment {
        Experiment::Rigid(rigid) => {
            let trace = trace_of(cell).map(|(_, t)| {
                let (w, offered) = &traces.loaded[&trace_key(t)];
                (w.as_ref(), *offered)
            });
            let workload = rigid.workload(seed, trace)?;
            let outcome = rigid.run(worker, &workload, seed, plan.window.as_ref());
            let simulated = outcome.simulated;
            (Outcome::Rigid(outcome), simulated)
        }
        Experiment::Malleable(m) => {
            let (report, jobs) = m.run(seed, asks(&VERSUS_AVG_METRICS))?;
            (Outcome::Malleable(report), jobs)
        }
        Experiment::Moldable(m) => (
            Outcome::Moldable(m.run_with(seed, asks(&["normalized_response"]).then_some(&traces.references))),
            m.jobs() as u64,
        ),
        Experiment::Cluster(c) => {
            let report = cluster::run(c, seed).map_err(|e| {
                Error::Invalid(format!(
                    "cell {} ({}), replication {rep}: {e}",
                    cell.index,
                    plan.cell_label(cell.index)
                ))
            })?;
            let jobs = report.as_ref().map_or(0, |r| r.jobs.len() as u64);
            (Outcome::Cluster(report.map(Box::new)), jobs)
        }
    };
    let record = RunRecord {
        cell: cell.index,
        rep,
        seed,
        saturated: outcome.saturated(),
        metrics: plan.metrics.iter().map(|m| outcome.metric(m)).collect(),
    };
    Ok((record, simulated))
}
