//! Experiments: one typed value per run of any model, built and validated in one place
//! from a run's parameters, for the sweep runner and every command alike.
//!
//! A kind of experiment is a module here: its parameter keys (and which of them shape the
//! workload, which decides seeding), `from_params` with typed errors, and its run. The
//! kind is chosen by one rule ([`Experiment::from_params`]); each kind's outcome has one
//! metric registry ([`crate::metrics::registry`]).
//!
//! Adding a model parameter: a [`Key`] in the kind's table and a line in its
//! `from_params`. Adding a kind: a module here, a variant of [`Experiment`] and of
//! [`RunOutcome`], an arm in [`Experiment::from_params`], and its registry.

pub mod cluster;
pub mod malleable;
pub mod moldable;
pub mod prepare;
pub mod rigid;
pub mod wiring;

pub use crate::error::TooLarge;
pub use crate::params::{Key, ParamError, Params, Value};
pub use prepare::{Prepared, Shared, Worker};
pub use wiring::{Simulate, predictor_for};

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use crate::machine::Machine;

use crate::malleable::{MALLEABLE_METRICS, MalleableReport};
use crate::metrics::{
    ENERGY_METRICS, MetricError, RESOURCE_METRICS, RIGID_METRICS, UTILITY_METRICS, check_rigid_metric,
};
use crate::nondedicated::{CLUSTER_METRICS, Report};
use crate::partition::{PARTITION_METRICS, PartitionOutcome};
use crate::sim::Window;
use crate::workload::synth::{DowneyParams, ModelEntry};

/// One run's experiment, of any kind.
#[derive(Clone, Debug)]
pub enum Experiment {
    /// Rigid jobs under a scheduler: a trace or the Downey model.
    Rigid(Box<rigid::Rigid>),
    /// Malleable jobs of the Downey model choosing their cluster size (Downey 1997).
    Malleable(malleable::Malleable),
    /// Moldable jobs under a partitioning policy (Anastasiadis & Sevcik).
    Moldable(moldable::Moldable),
    /// A non-dedicated cluster (Hanzich et al.).
    Cluster(Box<crate::nondedicated::ClusterExperiment>),
}

/// A metric as a reader and the statistics see it, whatever the kind of run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct About {
    pub label: &'static str,
    pub unit: crate::metrics::registry::Unit,
    pub range: crate::metrics::registry::Range,
}

/// Where a run's named inputs come from: the folder that relative paths (traces, machine
/// files, series) start at, and the machines a sweep spec describes inline
/// (`[machines.NAME]`), which a `machine` value names before any file.
#[derive(Clone, Copy)]
pub struct Sources<'a> {
    pub dir: &'a Path,
    pub machines: &'a BTreeMap<String, Arc<Machine>>,
}

static NO_MACHINES: BTreeMap<String, Arc<Machine>> = BTreeMap::new();

impl Default for Sources<'_> {
    /// Files alone, their relative paths starting at the working directory.
    fn default() -> Self {
        Sources::files(Path::new(""))
    }
}

impl<'a> Sources<'a> {
    /// Files alone, their relative paths starting at `dir`.
    pub fn files(dir: &'a Path) -> Sources<'a> {
        Sources {
            dir,
            machines: &NO_MACHINES,
        }
    }
}

impl Experiment {
    /// Builds the experiment `params` describe. The kind: `model = "sevcik"` or a `policy`
    /// is moldable, `model = "cisne"` a cluster, a `strategy` (or `evaluation`) malleable,
    /// anything else rigid. Named inputs come from `sources`; `window` is the measured
    /// window, which some kinds need and others refuse.
    pub fn from_params(
        params: &Params,
        sources: Sources<'_>,
        window: Option<&Window>,
    ) -> Result<Experiment, ParamError> {
        if params.has("policy") || params.is("model", "sevcik") {
            return Ok(Experiment::Moldable(moldable::from_params(params, window)?));
        }
        if params.is("model", "cisne") {
            if window.is_some() {
                return Err(ParamError::Invalid(
                    "model cisne: a cluster run measures every job; drop [measure]".to_string(),
                ));
            }
            return Ok(Experiment::Cluster(Box::new(cluster::from_params(params)?)));
        }
        if params.has("strategy") || params.has("evaluation") {
            return Ok(Experiment::Malleable(malleable::from_params(params, window)?));
        }
        Ok(Experiment::Rigid(Box::new(rigid::from_params(
            params, sources, window,
        )?)))
    }

    /// The keys this experiment takes.
    pub fn keys(&self) -> Vec<Key> {
        let (own, workload): (&[Key], Vec<Key>) = match self {
            Experiment::Rigid(r) => match &r.workload.source {
                rigid::Source::Model(m) => (
                    &rigid::POLICY_KEYS,
                    [rigid::model_keys(m.keys()), rigid::MACHINE_KEYS.to_vec()].concat(),
                ),
                rigid::Source::Trace(_) => (
                    &rigid::POLICY_KEYS,
                    [&rigid::TRACE_KEYS[..], &rigid::MACHINE_KEYS].concat(),
                ),
            },
            Experiment::Malleable(_) => (
                &malleable::KEYS,
                rigid::model_keys(<DowneyParams as ModelEntry>::KEYS),
            ),
            Experiment::Moldable(_) => (&moldable::KEYS, Vec::new()),
            Experiment::Cluster(_) => (&cluster::KEYS, Vec::new()),
        };
        [own, &workload].concat()
    }

    /// Jobs one replication generates, for kinds that generate them (a trace's size is
    /// bounded by its file).
    pub fn expected_jobs(&self) -> Option<u64> {
        match self {
            Experiment::Rigid(r) => match &r.workload.source {
                rigid::Source::Model(m) => Some(m.expected_jobs()),
                rigid::Source::Trace(_) => None,
            },
            Experiment::Malleable(m) => Some(m.model.expected_jobs()),
            Experiment::Moldable(m) => Some(m.jobs() as u64),
            Experiment::Cluster(c) => Some(c.simulated_jobs()),
        }
    }

    /// The queue's scheduler, for rigid runs and the FCFS queue of malleable ones; the
    /// other kinds have a policy of their own.
    pub fn scheduler_name(&self) -> Option<&'static str> {
        match self {
            Experiment::Rigid(r) => Some(r.scheduler.name()),
            Experiment::Malleable(_) => Some("fcfs"),
            Experiment::Moldable(_) | Experiment::Cluster(_) => None,
        }
    }

    /// What metric `name` is, from the registry of this kind of run: its label for readers
    /// ("Mean wait"), unit and range; `None` for a metric it does not report.
    pub fn metric_about(&self, name: &str) -> Option<About> {
        fn about<O>(m: &crate::metrics::registry::Metric<O>) -> About {
            About {
                label: m.label,
                unit: m.unit,
                range: m.range,
            }
        }
        match self {
            // A partition's metric (METRIC@PARTITION) is the metric's, of its jobs.
            Experiment::Rigid(_) => {
                let name = name.split_once('@').map_or(name, |(metric, _)| metric);
                RIGID_METRICS
                    .get(name)
                    .map(about)
                    .or_else(|_| UTILITY_METRICS.get(name).map(about))
                    .or_else(|_| ENERGY_METRICS.get(name).map(about))
                    .or_else(|_| RESOURCE_METRICS.get(name).map(about))
                    .ok()
            }
            Experiment::Malleable(_) => MALLEABLE_METRICS.get(name).ok().map(about),
            Experiment::Moldable(_) => PARTITION_METRICS.get(name).ok().map(about),
            Experiment::Cluster(_) => CLUSTER_METRICS.get(name).ok().map(about),
        }
    }

    /// Whether this experiment reports metric `name`; the error names those it does.
    pub fn check_metric(&self, name: &str) -> Result<(), MetricError> {
        match self {
            Experiment::Rigid(r) => {
                if let Some((metric, partition)) = name.split_once('@') {
                    // A partition's own summary: the run's metrics of its jobs, over its cores,
                    // memory and GPUs, and the share of its cores stranded on its nodes.
                    if RESOURCE_METRICS.get(metric).is_err() {
                        RIGID_METRICS.get(metric).map_err(|e| match e {
                            MetricError::Unknown {
                                name, mut allowed, ..
                            } => {
                                allowed.extend(RESOURCE_METRICS.names());
                                MetricError::Unknown {
                                    name,
                                    kind: "one partition's jobs",
                                    allowed,
                                }
                            }
                            other => other,
                        })?;
                    }
                    let machine = r.workload.machine();
                    let Some(p) = machine.and_then(|m| m.partitions.iter().find(|p| p.name == partition))
                    else {
                        return Err(MetricError::NoPartition {
                            name: name.to_string(),
                            partition: partition.to_string(),
                            partitions: machine.map_or(Vec::new(), |m| {
                                m.partitions.iter().map(|p| p.name.clone()).collect()
                            }),
                        });
                    };
                    let name = name.to_string();
                    return match metric {
                        "gpu_utilization" if p.gpus() == 0 => Err(MetricError::NeedsGpus { name }),
                        "memory_utilization" if p.memory_kb().is_none() => {
                            Err(MetricError::NeedsMemory { name })
                        }
                        _ => Ok(()),
                    };
                }
                check_rigid_metric(name)?;
                if UTILITY_METRICS.get(name).is_ok() && r.workload.augmentation.is_none() {
                    return Err(MetricError::NeedsUtility {
                        name: name.to_string(),
                    });
                }
                if ENERGY_METRICS.get(name).is_ok() && !r.workload.machine().is_some_and(|m| m.has_power()) {
                    return Err(MetricError::NeedsPower {
                        name: name.to_string(),
                    });
                }
                let machine = r.workload.machine();
                if name == "gpu_utilization" && machine.is_none_or(|m| m.gpus() == 0) {
                    return Err(MetricError::NeedsGpus {
                        name: name.to_string(),
                    });
                }
                if name == "fragmentation" && machine.is_none() {
                    return Err(MetricError::NeedsMachine {
                        name: name.to_string(),
                    });
                }
                if name == "memory_utilization" && machine.is_none_or(|m| m.memory_kb().is_none()) {
                    return Err(MetricError::NeedsMemory {
                        name: name.to_string(),
                    });
                }
                let carbon = matches!(&r.workload.source, rigid::Source::Trace(t) if t.carbon.is_some());
                if name == "carbon_kg" && !carbon {
                    return Err(MetricError::NeedsCarbon {
                        name: name.to_string(),
                    });
                }
                Ok(())
            }
            Experiment::Malleable(_) => MALLEABLE_METRICS.get(name).map(drop),
            Experiment::Moldable(_) => PARTITION_METRICS.get(name).map(drop),
            Experiment::Cluster(_) => CLUSTER_METRICS.get(name).map(drop),
        }
    }
}

/// Jobs one replication may generate without `--yes`: job tables take about 100 to 200
/// bytes a job, so this is 2 to 4 GB, what a laptop or a server core can hold.
pub const JOB_LIMIT: u64 = 20_000_000;

/// Bytes of job tables a generated job takes, about (docs/performance.md, memory per job).
const BYTES_PER_JOB: f64 = 150.0;

/// Refuses a replication of about `jobs` jobs above [`JOB_LIMIT`] unless `yes`, and, `yes`
/// or not, one whose job tables would not fit in this machine's memory (read from
/// `/proc/meminfo` where there is one).
pub fn check_size(jobs: Option<u64>, yes: bool) -> Result<(), TooLarge> {
    let Some(n) = jobs else { return Ok(()) };
    let gigabytes = n as f64 * BYTES_PER_JOB / 1e9;
    if let Some(memory) = machine_memory()
        && n as f64 * BYTES_PER_JOB > memory as f64
    {
        return Err(TooLarge::Memory {
            jobs: n,
            gigabytes,
            memory_gigabytes: memory as f64 / 1e9,
        });
    }
    if n > JOB_LIMIT && !yes {
        return Err(TooLarge::Limit {
            jobs: n,
            gigabytes,
            limit: JOB_LIMIT,
        });
    }
    Ok(())
}

/// The memory this process may use, in bytes, where the system says: the machine's
/// (`MemTotal`), or its control group's limit if lower (a container, a Slurm job).
fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    let total = kb.checked_mul(1024)?;
    let limit = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok());
    Some(limit.map_or(total, |l| l.min(total)))
}

/// What one run of an experiment gave.
// One per replication, moved once: boxing the large variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum RunOutcome {
    Rigid(prepare::RigidOutcome),
    Malleable(MalleableReport),
    Moldable(PartitionOutcome),
    /// `None`: the queue stopped moving (saturated).
    Cluster(Option<Box<Report>>),
}

impl RunOutcome {
    /// Whether the run saturated: its queue grew without bound.
    pub fn saturated(&self) -> bool {
        match self {
            RunOutcome::Rigid(r) => r.summary.is_none(),
            RunOutcome::Malleable(_) => false,
            RunOutcome::Moldable(m) => m.run.saturated,
            RunOutcome::Cluster(report) => report.is_none(),
        }
    }

    /// The value of metric `name` (which the experiment's check accepted); a saturated
    /// run's follows the metric's rule.
    pub fn metric(&self, name: &str) -> f64 {
        let known = "a metric the experiment checked";
        match self {
            RunOutcome::Rigid(r) => {
                let (summary, measured, metric) = match name.split_once('@') {
                    Some((metric, partition)) => {
                        let p = r.partitions.iter().find(|p| p.name == partition).expect(known);
                        (&p.summary, p.measured, metric)
                    }
                    None => (&r.summary, r.measured, name),
                };
                match summary {
                    Some(s) => s.metric(metric).expect(known),
                    None => crate::metrics::saturated_metric(metric, measured).expect(known),
                }
            }
            RunOutcome::Malleable(m) => (MALLEABLE_METRICS.get(name).expect(known).value)(m),
            RunOutcome::Moldable(m) => (PARTITION_METRICS.get(name).expect(known).value)(m),
            RunOutcome::Cluster(Some(report)) => (CLUSTER_METRICS.get(name).expect(known).value)(report),
            RunOutcome::Cluster(None) => CLUSTER_METRICS.get(name).expect(known).saturated_value(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A replication whose job tables would not fit in memory is refused even with `--yes`
    /// (a Python caller's interpreter is not aborted by a failed allocation); one above the
    /// soft limit needs `--yes`.
    #[test]
    fn yes_lifts_the_soft_job_limit_but_not_the_machines_memory() {
        assert!(check_size(Some(JOB_LIMIT), false).is_ok());
        let e = check_size(Some(JOB_LIMIT + 1), false).unwrap_err().to_string();
        assert!(e.contains("pass --yes"), "{e}");
        let Some(memory) = machine_memory() else {
            eprintln!("skipped: this system has no /proc/meminfo to bound memory by");
            return;
        };
        let too_many = memory / 100;
        let e = check_size(Some(too_many), true).unwrap_err().to_string();
        assert!(e.contains("--yes cannot lift this"), "{e}");
    }
}
