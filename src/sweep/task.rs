//! One replication of one cell: build the workload, simulate, measure.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::spec::{Cell, Plan, WorkloadConfig};
use crate::error::{Error, Result};
use crate::experiment::Simulate;
use crate::malleable::{MALLEABLE_METRICS, MalleableReport, VERSUS_AVG_METRICS};
use crate::metrics::registry::Registry;
use crate::metrics::{Summary, saturated_metric};
use crate::nondedicated::{CLUSTER_METRICS, SimError};
use crate::partition::{PARTITION_METRICS, PartitionOutcome};
use crate::sched::{AnyScheduler, SchedulerKind};
use crate::sim::Engine;
use crate::workload::info::TraceInfo;
use crate::workload::selection::JobRange;
use crate::workload::swf::{SwfOptions, read_swf};
use crate::workload::{Selection, Workload};

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
type TraceKey = (PathBuf, Option<u32>, Option<JobRange>, Option<usize>);

fn trace_key(w: &WorkloadConfig) -> Option<TraceKey> {
    match w {
        WorkloadConfig::Trace {
            path,
            procs,
            jobs,
            first,
            ..
        } => Some((path.clone(), *procs, jobs.clone(), *first)),
        WorkloadConfig::Model(_) | WorkloadConfig::Moldable { .. } | WorkloadConfig::Cisne(_) => None,
    }
}

/// Traces read once per sweep and shared by every task that replays them.
#[derive(Default)]
pub struct Traces {
    loaded: HashMap<TraceKey, (Arc<Workload>, f64)>,
}

impl Traces {
    /// Reads every trace the plan's cells use, checking each is long enough for the window.
    pub fn load(plan: &Plan, cells: &[&Cell]) -> Result<Traces> {
        let mut traces = Traces::default();
        for cell in cells {
            let Some(key) = trace_key(&cell.workload) else {
                continue;
            };
            if traces.loaded.contains_key(&key) {
                continue;
            }
            let options = SwfOptions {
                procs: key.1,
                selection: Selection {
                    range: key.2.clone(),
                    first: key.3,
                },
                lenient: false,
            };
            let w = read_swf(&key.0, &options)?;
            if let Some(window) = &plan.window
                && w.jobs.len() < window.measured.end
            {
                return Err(Error::Workload {
                    path: key.0.clone(),
                    message: format!(
                        "{} jobs, but the measure window needs {} (warm-up plus window)",
                        w.jobs.len(),
                        window.measured.end
                    ),
                });
            }
            for c in cells
                .iter()
                .filter(|c| trace_key(&c.workload).as_ref() == Some(&key))
            {
                if let WorkloadConfig::Trace {
                    augmentation: Some(a),
                    ..
                } = &c.workload
                {
                    a.priorities.apply(&w.jobs).map_err(|message| Error::Workload {
                        path: key.0.clone(),
                        message,
                    })?;
                }
            }
            let load = TraceInfo::of(&w).offered_load;
            traces.loaded.insert(key, (Arc::new(w), load));
        }
        Ok(traces)
    }
}

/// Buffers a worker thread reuses across its tasks: one engine, one scheduler per kind.
#[derive(Default)]
pub struct Worker {
    engine: Engine,
    schedulers: HashMap<SchedulerKind, AnyScheduler>,
}

impl Worker {
    pub fn new() -> Self {
        Worker {
            engine: Engine::new().with_validation(false),
            schedulers: HashMap::new(),
        }
    }
}

/// Multiplies inter-arrival times by `factor`, keeping the first submit where it is.
fn scale_arrivals(w: &Workload, factor: f64) -> Workload {
    let mut scaled = w.clone();
    let first = w.jobs.submit.first().copied().unwrap_or(0);
    for s in &mut scaled.jobs.submit {
        *s = first + ((*s - first) as f64 * factor).round() as i64;
    }
    scaled
}

/// The plan's metrics of `outcome`, in the plan's order.
fn values<O>(plan: &Plan, registry: &Registry<O>, outcome: &O) -> Vec<f64> {
    plan.metrics
        .iter()
        .map(|m| (registry.get(m).expect("validated metric").value)(outcome))
        .collect()
}

/// The plan's metrics for a saturated run that measured `jobs` jobs.
fn saturated_values<O>(plan: &Plan, registry: &Registry<O>, jobs: usize) -> Vec<f64> {
    plan.metrics
        .iter()
        .map(|m| registry.get(m).expect("validated metric").saturated_value(jobs))
        .collect()
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
    if let (
        WorkloadConfig::Moldable {
            workload,
            procs,
            load,
        },
        Some(policy),
    ) = (&cell.workload, cell.policy)
    {
        let window = plan
            .window
            .as_ref()
            .expect("validated: moldable sweeps have a window");
        let measure = crate::partition::Measure {
            warmup: window.measured.start,
            window: window.measured.len(),
            saturation: window.saturation,
        };
        let count = window.measured.end + window.saturation.unwrap_or(0);
        let jobs = crate::partition::generate(*workload, *procs, *load, count, seed);
        let run = crate::partition::simulate(&jobs, *procs, policy, &measure);
        // Normalised by DYN-EQUI on the same jobs, when asked for.
        let reference =
            plan.metrics.iter().any(|m| m == "normalized_response").then(|| {
                crate::partition::simulate(&jobs, *procs, crate::partition::Policy::DynEqui, &measure)
            });
        let saturated = run.saturated;
        let outcome = PartitionOutcome { run, reference };
        let record = RunRecord {
            cell: cell.index,
            rep,
            seed,
            saturated,
            metrics: values(plan, &PARTITION_METRICS, &outcome),
        };
        return Ok((record, count as u64));
    }
    if let WorkloadConfig::Cisne(experiment) = &cell.workload {
        // A run whose queue stops moving (a social contract that leaves no room) is
        // recorded as saturated: infinite waits, other metrics undefined. Any other failure
        // is an error.
        let (metrics, saturated, jobs) = match experiment.run(seed) {
            Ok(report) => (
                values(plan, &CLUSTER_METRICS, &report),
                false,
                report.jobs.len() as u64,
            ),
            Err(SimError::Stuck { .. }) => (saturated_values(plan, &CLUSTER_METRICS, 0), true, 0),
            Err(e) => {
                return Err(Error::Invalid(format!(
                    "cell {} ({}), replication {rep}: {e}",
                    cell.index,
                    cell_label(plan, cell)
                )));
            }
        };
        let record = RunRecord {
            cell: cell.index,
            rep,
            seed,
            saturated,
            metrics,
        };
        return Ok((record, jobs));
    }
    let mut owned;
    let workload: &Workload = match &cell.workload {
        WorkloadConfig::Moldable { .. } | WorkloadConfig::Cisne(_) => unreachable!("handled above"),
        WorkloadConfig::Model(model) => {
            owned = model.generate(seed);
            &owned
        }
        config @ WorkloadConfig::Trace { load, load_scale, .. } => {
            let key = trace_key(config).expect("a trace config");
            let (w, offered) = &traces.loaded[&key];
            match (load, load_scale) {
                (Some(target), _) => {
                    owned = scale_arrivals(w, offered / target);
                    &owned
                }
                (None, Some(f)) => {
                    owned = scale_arrivals(w, *f);
                    &owned
                }
                (None, None) => w,
            }
        }
    };
    let workload: &Workload = match &cell.workload {
        WorkloadConfig::Trace {
            augmentation,
            exact_estimates,
            ..
        } if augmentation.is_some() || *exact_estimates => {
            // Utility functions drawn with the replication's seed, then exact requests.
            owned = workload.clone();
            if let Some(a) = augmentation {
                a.apply(&mut owned.jobs, seed).expect("validated priority map");
            }
            if *exact_estimates {
                crate::utility::exact_estimates(&mut owned.jobs);
            }
            &owned
        }
        _ => workload,
    };
    if let Some(allocation) = &cell.strategy {
        let (jobs, procs) = (&workload.jobs, workload.procs);
        let report = if cell.application {
            MalleableReport::Application(
                crate::malleable::application_centric(jobs, procs, allocation)
                    .expect("validated: a Downey workload and a strategy other than AVG"),
            )
        } else {
            let mut outcome =
                crate::malleable::simulate(jobs, procs, allocation).expect("validated: a Downey workload");
            // Job by job against AVG on the same workload, when asked for.
            if plan
                .metrics
                .iter()
                .any(|m| VERSUS_AVG_METRICS.contains(&m.as_str()))
            {
                let avg = "avg".parse().expect("valid");
                let avg = crate::malleable::simulate(jobs, procs, &avg).expect("validated");
                outcome.compare_with(jobs, &avg);
            }
            MalleableReport::System(outcome)
        };
        let metrics = values(plan, &MALLEABLE_METRICS, &report);
        let record = RunRecord {
            cell: cell.index,
            rep,
            seed,
            saturated: false,
            metrics,
        };
        return Ok((record, workload.jobs.len() as u64));
    }
    let scheduler = worker
        .schedulers
        .entry(cell.scheduler)
        .or_insert_with(|| cell.scheduler.build());
    // The GA's choices get their own stream, apart from the workload's.
    scheduler.set_seed(crate::seed::mix64(seed ^ 0x6761_5f73_6565_6473));
    let window = plan.window.as_ref();
    let outcome = scheduler.simulate(
        &mut worker.engine,
        &workload.jobs,
        workload.procs,
        cell.predictor,
        window,
    );
    let n = workload.jobs.len();
    let measured = window.map_or(0..n, |w| w.measured.start.min(n)..w.measured.end.min(n));
    let simulated = outcome.events / 2;
    let metrics = if outcome.saturated {
        plan.metrics
            .iter()
            .map(|m| saturated_metric(m, measured.len()).expect("validated metric"))
            .collect()
    } else {
        let summary = Summary::of_outcome(
            &workload.jobs,
            workload.procs,
            &outcome,
            measured,
            &workload.skipped,
        );
        plan.metrics
            .iter()
            .map(|m| summary.metric(m).expect("validated metric"))
            .collect()
    };
    Ok((
        RunRecord {
            cell: cell.index,
            rep,
            seed,
            saturated: outcome.saturated,
            metrics,
        },
        simulated,
    ))
}

/// The cell's axis values, `name=value` joined by commas, for messages.
fn cell_label(plan: &Plan, cell: &Cell) -> String {
    let parts: Vec<String> = plan
        .axes
        .iter()
        .zip(&cell.values)
        .map(|(a, v)| format!("{}={v}", a.name))
        .collect();
    parts.join(", ")
}
