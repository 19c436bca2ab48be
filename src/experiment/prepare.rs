//! An experiment made ready to run: what every replication starts from is made once (each
//! trace read and checked once, with its offered load; the reference runs moldable cells
//! share), and a replication is then one call, [`Prepared::run`]. The sweep, the CLI, the
//! Python package, the agent's environment and `trace resample` all assemble runs here.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::moldable::References;
use super::rigid::{Rigid, Source, TraceSource, WorkloadSpec};
use super::{Experiment, RunOutcome, Simulate, cluster};
use crate::Time;
use crate::energy::EnergySummary;
use crate::error::{Error, Result};
use crate::machine::{Fit, Machine};
use crate::malleable::VERSUS_AVG_METRICS;
use crate::metrics::Summary;
use crate::partition::Partitioner;
use crate::predict::PredictorKind;
use crate::sched::{AnyScheduler, CappedScheduler, NodeScheduler, SchedulerKind};
use crate::seed::mix64;
use crate::sim::{Engine, Outcome, Parts, Window};
use crate::workload::info::TraceInfo;
use crate::workload::read_trace;
use crate::workload::resample::{Resample, shake};
use crate::workload::swf::SwfOptions;
use crate::workload::{Columns, Workload};

/// Identity of a trace as read (before any load scaling), the columns kept aside, and the
/// machine its jobs are placed on (as JSON: two descriptions of one machine are one).
type TraceKey = (PathBuf, SwfOptions, Option<String>);

fn trace_key(t: &TraceSource, machine: Option<&Machine>) -> TraceKey {
    let machine = machine.map(|m| serde_json::to_string(m).unwrap_or_default());
    (t.path.clone(), t.options.clone(), machine)
}

/// A trace as read, with what is known of it before any run.
#[derive(Debug)]
pub struct ReadTrace {
    pub workload: Workload,
    /// Its offered load (what `load` scales from) and what to warn about.
    pub info: TraceInfo,
    /// On a machine of partitions, how its jobs fall on them.
    pub fit: Option<Fit>,
    /// Jobs that request GPUs the machine does not have (one pool of cores, or a machine
    /// file without GPUs): their GPUs are not simulated.
    pub gpus_ignored: usize,
}

/// What the experiments of one sweep (or one command) share: the traces, each read once,
/// and DYN-EQUI's reference runs for moldable cells.
#[derive(Default)]
pub struct Shared {
    /// The columns each trace is read into: the most any experiment replaying it reads.
    columns: HashMap<TraceKey, Columns>,
    traces: HashMap<TraceKey, Arc<ReadTrace>>,
    references: Arc<References>,
}

impl Shared {
    /// For runs of `workloads`: a trace is read in the columns the workloads replaying it
    /// read ([`WorkloadSpec::columns_read`]; the simulated ones alone take about half the
    /// memory of every column), or in every column where `every_column` is set (a caller
    /// that writes the trace back, say).
    pub fn new<'a>(workloads: impl IntoIterator<Item = &'a WorkloadSpec>, every_column: bool) -> Shared {
        let mut columns = HashMap::new();
        for w in workloads {
            if let Source::Trace(t) = &w.source {
                let read = if every_column {
                    Columns::Every
                } else {
                    w.columns_read()
                };
                let most = columns.entry(trace_key(t, w.machine())).or_insert(read);
                *most = (*most).max(read);
            }
        }
        Shared {
            columns,
            ..Shared::default()
        }
    }

    /// The trace `t` names, read on first use: every job it keeps on `machine`, or an error.
    fn read(&mut self, t: &TraceSource, machine: Option<&Machine>) -> Result<Arc<ReadTrace>> {
        let key = trace_key(t, machine);
        if let Some(read) = self.traces.get(&key) {
            return Ok(read.clone());
        }
        let options = SwfOptions {
            columns: self.columns.get(&key).copied().unwrap_or_default(),
            ..t.options.clone()
        };
        let mut workload = read_trace(&t.path, &options)?;
        let gpu_jobs = workload.jobs.gpus.iter().flatten().filter(|&&g| g > 0).count();
        let gpus_ignored = match machine.map_or(0, Machine::gpus) {
            0 => gpu_jobs,
            _ => 0,
        };
        let mut fit = None;
        if let Some(machine) = machine {
            workload = machine.place(workload);
            fit = Some(Fit::of(&workload, machine, Path::new("")));
        }
        workload.require_jobs(&t.path)?;
        let info = TraceInfo::of(&workload);
        let read = Arc::new(ReadTrace {
            workload,
            info,
            fit,
            gpus_ignored,
        });
        self.traces.insert(key, read.clone());
        Ok(read)
    }
}

/// A rigid workload ready to draw replications from: its trace read, checked and scaled
/// within bounds.
#[derive(Clone, Debug)]
pub struct PreparedWorkload {
    /// What it was prepared from; private, so that the trace always matches it.
    spec: WorkloadSpec,
    trace: Option<Arc<ReadTrace>>,
    /// The factor on the trace's inter-arrival times, checked once here (`None`: as
    /// recorded).
    factor: Option<f64>,
}

impl WorkloadSpec {
    /// Reads the trace (through `shared`) and checks everything a replication would find
    /// wrong before any is run: a trace shorter than `window`, a scale that leaves the
    /// bounds, a priority map that misses a queue.
    pub fn prepare(&self, shared: &mut Shared, window: Option<&Window>) -> Result<PreparedWorkload> {
        let (trace, factor) = match &self.source {
            Source::Model(_) => (None, None),
            Source::Trace(t) => {
                let read = shared.read(t, self.machine())?;
                let w = &read.workload;
                if let Some(window) = window
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
                let factor = scale_factor(t, &read)?;
                if self.gpu_share.is_some() && w.jobs.gpus.is_some() {
                    return Err(Error::Workload {
                        path: t.path.clone(),
                        message: "its jobs record their GPUs; gpu_share draws GPU jobs for a trace that records none"
                            .into(),
                    });
                }
                let records_memory = |column: &[i32]| column.iter().any(|&m| m > 0);
                if self.memory_pressure.is_some()
                    && (records_memory(&w.jobs.requested_memory) || records_memory(&w.jobs.used_memory))
                {
                    return Err(Error::Workload {
                        path: t.path.clone(),
                        message:
                            "its jobs record their memory (SWF field 10 or 7); memory_pressure draws memory \
                                  for a trace that records none"
                                .into(),
                    });
                }
                if let (Some(carbon), Some(&first)) = (&t.carbon, w.jobs.submit.first())
                    && let (series, offset) = (&carbon.series, carbon.offset)
                    && series.start() > first + offset
                {
                    return Err(Error::Workload {
                        path: series.steps.path.clone(),
                        message: format!(
                            "the series starts at {}, after the run's first instant on its clock, {} (the trace's \
                             first submit {first} plus carbon_offset {offset}); it must cover the run from its start",
                            series.start(),
                            first + offset
                        ),
                    });
                }
                if let Some(a) = &self.augmentation {
                    a.priorities.apply(&w.jobs).map_err(|e| Error::Workload {
                        path: t.path.clone(),
                        message: e.to_string(),
                    })?;
                }
                (Some(read), factor)
            }
        };
        Ok(PreparedWorkload {
            spec: self.clone(),
            trace,
            factor,
        })
    }
}

impl WorkloadSpec {
    /// Replication `seed`'s memory per processor, then its GPU jobs (whether a GPU job
    /// fits its partition depends on its memory), where the spec draws them.
    fn draw_requests(&self, jobs: &mut crate::workload::Jobs, seed: u64) {
        let Some(machine) = self.machine() else {
            return;
        };
        if let Some(memory) = &self.memory_pressure {
            memory.apply(jobs, machine, seed);
        }
        if let Some(share) = &self.gpu_share {
            share.apply(jobs, machine, seed);
        }
    }
}

impl PreparedWorkload {
    /// What the workload was prepared from.
    pub fn spec(&self) -> &WorkloadSpec {
        &self.spec
    }

    /// The trace as read, for workloads that replay one.
    pub fn trace(&self) -> Option<&ReadTrace> {
        self.trace.as_deref()
    }

    /// What to know about the trace before trusting a run of it (no estimates, an offered
    /// load of at least 1), or about a model asked for an offered load of at least 1.
    pub fn warnings(&self) -> Vec<String> {
        let modelled = matches!(&self.spec.source, Source::Trace(t) if t.estimates.is_some());
        if let Source::Model(m) = &self.spec.source
            && let Some(load) = m.load_target().filter(|&l| l >= 1.0)
        {
            return vec![format!(
                "model {}: offered load {load} is at least 1: the queue grows without bound, so waits \
                 depend on how many jobs the run has",
                m.name()
            )];
        }
        let Some(trace) = self.trace() else {
            return Vec::new();
        };
        let mut warnings = trace.info.warnings(modelled);
        if trace.gpus_ignored > 0 {
            warnings.push(format!(
                "{} jobs request GPUs, which the machine does not have: their GPUs are not simulated (a \
                 CPU-only model of them); give a machine with GPUs (machine = \"FILE.toml\", --machine)",
                trace.gpus_ignored
            ));
        }
        let partitions = trace.fit.iter().flat_map(|f| &f.partitions);
        for p in partitions.filter(|p| p.offered_load >= 1.0) {
            warnings.push(format!(
                "partition {}: offered load {:.3} (its jobs' work over its {} cores and the \
                 trace's span); its queue grows without bound",
                p.partition, p.offered_load, p.cores
            ));
        }
        warnings
    }

    /// The jobs of replication `seed`: the model's, or the trace scaled to the target load;
    /// then the trace's resampling and modelled estimates, the utility functions drawn with
    /// the seed, exact requests and sessions.
    pub fn draw(&self, seed: u64) -> Result<Cow<'_, Workload>> {
        let spec = &self.spec;
        let base: Cow<Workload> = match (&spec.source, &self.trace) {
            (Source::Model(model), _) => {
                let generated = model.generate(seed);
                match &spec.machine {
                    Some(machine) => {
                        let mut placed = machine.place(generated);
                        spec.draw_requests(&mut placed.jobs, seed);
                        Cow::Owned(placed)
                    }
                    None => Cow::Owned(generated),
                }
            }
            (Source::Trace(t), Some(read)) => {
                let scaled = match self.factor {
                    Some(factor) => Cow::Owned(scale_arrivals(&read.workload, factor)),
                    None => Cow::Borrowed(&read.workload),
                };
                // Shaking moves submit times in a copy (the scaled one, if scaled); user
                // resampling reads the shared trace and builds new jobs, so nothing is
                // copied that it replaces.
                let shaken = match &t.resample {
                    Some(Resample::Shake(jitter)) => {
                        let mut shaken = scaled.into_owned();
                        shake(&mut shaken.jobs, *jitter, seed);
                        Cow::Owned(shaken)
                    }
                    Some(Resample::Users(users)) => {
                        Cow::Owned(scaled.with_jobs(users.resample(&scaled.jobs, seed)))
                    }
                    None => scaled,
                };
                let estimated = match &t.estimates {
                    Some(model) => {
                        let mut estimated = shaken.into_owned();
                        model.apply(&mut estimated.jobs, &mut estimated.header.comments, seed);
                        Cow::Owned(estimated)
                    }
                    None => shaken,
                };
                if spec.gpu_share.is_none() && spec.memory_pressure.is_none() {
                    estimated
                } else {
                    let mut drawn = estimated.into_owned();
                    spec.draw_requests(&mut drawn.jobs, seed);
                    Cow::Owned(drawn)
                }
            }
            (Source::Trace(_), None) => unreachable!("preparing a trace workload reads its trace"),
        };
        if spec.augmentation.is_none() && !spec.exact_estimates && !spec.feedback {
            return Ok(base);
        }
        let mut owned = base.into_owned();
        if let Some(a) = &spec.augmentation {
            a.apply(&mut owned.jobs, seed).map_err(|e| Error::Workload {
                path: owned.name.clone().into(),
                message: e.to_string(),
            })?;
        }
        if spec.exact_estimates {
            crate::utility::exact_estimates(&mut owned.jobs);
        }
        if spec.feedback {
            crate::workload::sessions::infer_sessions(
                &mut owned.jobs,
                crate::workload::sessions::SESSION_GAP,
            );
        }
        Ok(Cow::Owned(owned))
    }
}

impl PreparedWorkload {
    /// [`PreparedWorkload::draw`] for a run of its own, which says nothing without a job:
    /// a model's draw with none (a load or a span too small) is refused.
    pub fn draw_some(&self, seed: u64) -> Result<Cow<'_, Workload>> {
        let workload = self.draw(seed)?;
        if workload.jobs.is_empty() {
            return Err(Error::Invalid(format!(
                "{}: the seed {seed} draws no job to simulate; raise the load, the days or the jobs",
                workload.name
            )));
        }
        Ok(workload)
    }
}

/// The factor on `t`'s inter-arrival times its `load` or `load_scale` asks for (`None`:
/// replayed as recorded), refused when it leaves the bounds.
fn scale_factor(t: &TraceSource, read: &ReadTrace) -> Result<Option<f64>> {
    let offered = read.info.offered_load;
    let (factor, asked) = match (t.load, t.load_scale) {
        // An offered load of 0 (no work, or one submit instant) scales to no target: the
        // factor would be 0 and every job would arrive at once.
        (Some(target), _) if offered <= 0.0 => {
            return Err(Error::Workload {
                path: t.path.clone(),
                message: format!(
                    "load {target}: the trace offers no load to scale (its jobs do no work, or \
                     all arrive at one instant)"
                ),
            });
        }
        (Some(target), _) => (offered / target, format!("load {target}")),
        (None, Some(f)) => (f, format!("load_scale {f}")),
        (None, None) => return Ok(None),
    };
    check_scale(&read.workload, &t.path, offered, factor, &asked)?;
    Ok(Some(factor))
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

/// Refuses a factor on `w`'s inter-arrival times that asks (`asked`, in the user's words)
/// for a load outside [`LOAD_RANGE`](crate::workload::LOAD_RANGE) or takes a submit time
/// past [`MAX_TIME`](crate::workload::MAX_TIME), before anything is simulated.
fn check_scale(w: &Workload, path: &Path, offered: f64, factor: f64, asked: &str) -> Result<()> {
    let range = crate::workload::LOAD_RANGE;
    let refuse = |message: String| {
        Err(Error::Workload {
            path: path.to_path_buf(),
            message: format!("{asked}: {message}"),
        })
    };
    // Four decimals where that reads well, else scientific notation.
    let number = |x: f64| {
        if (1e-3..1e6).contains(&x.abs()) {
            format!("{}", (x * 1e4).round() / 1e4)
        } else {
            format!("{x:.3e}")
        }
    };
    let implied = offered / factor;
    if offered > 0.0 && !range.contains(&implied) {
        return refuse(format!(
            "the trace's offered load {} would become {}, outside {} to {}",
            number(offered),
            number(implied),
            range.start(),
            range.end()
        ));
    }
    // Offsets are scaled from the first job's submit; the latest submit goes farthest.
    let (first, last) = match (w.jobs.submit.first(), w.jobs.submit.iter().max()) {
        (Some(&f), Some(&l)) => (f, l),
        _ => return Ok(()),
    };
    let reach = first as f64 + (last - first) as f64 * factor;
    if reach > crate::workload::MAX_TIME as f64 {
        return refuse(format!(
            "inter-arrival times scaled by {} take the last submit to {} s, past the longest \
             time schedlab accepts (2^40 s)",
            number(factor),
            number(reach)
        ));
    }
    Ok(())
}

/// The GA's stream of random choices, apart from the workload's.
const GA_STREAM: u64 = 0x6761_5f73_6565_6473;

/// A rigid run's result: a summary of the measured jobs, or a saturated run.
#[derive(Clone, Debug)]
pub struct RigidOutcome {
    /// `None` when the run saturated.
    pub summary: Option<Summary>,
    /// Jobs in the measured window.
    pub measured: usize,
    /// Jobs simulated (for throughput reports).
    pub simulated: u64,
    /// Each partition's own, where the run was asked for them (a sweep's metrics named
    /// `METRIC@PARTITION`), in the machine's order; empty otherwise.
    pub partitions: Vec<PartitionMeasured>,
}

/// One partition's measured jobs in a rigid run, summarised over its own cores.
#[derive(Clone, Debug)]
pub struct PartitionMeasured {
    pub name: String,
    /// Its jobs in the measured window.
    pub measured: usize,
    /// `None` when the run saturated.
    pub summary: Option<Summary>,
}

/// What a thread reuses across runs: one engine, one scheduler per kind, the buffers of
/// runs on a machine of partitions, and those of runs whose jobs are held back.
#[derive(Default)]
pub struct Worker {
    run: Runner,
    /// A held run's outcome, back in the workload's job order.
    held: Parts,
    /// The partitioning simulator of moldable runs.
    partitioner: Partitioner,
}

/// What a run as submitted uses (see [`Worker`]).
#[derive(Default)]
struct Runner {
    engine: Engine,
    schedulers: HashMap<SchedulerKind, AnyScheduler>,
    parts: Parts,
    rows: Vec<Vec<u32>>,
}

impl Worker {
    pub fn new() -> Self {
        Worker::with_engine(Engine::new().with_validation(false))
    }

    /// A worker running `engine` (say, one that validates or keeps prediction histories).
    pub fn with_engine(engine: Engine) -> Self {
        Worker {
            run: Runner {
                engine,
                ..Runner::default()
            },
            held: Parts::default(),
            partitioner: Partitioner::new(),
        }
    }
}

/// A rigid experiment ready to run: its workload prepared, its policy and measured window.
#[derive(Clone, Debug)]
pub struct PreparedRigid {
    pub workload: PreparedWorkload,
    pub scheduler: SchedulerKind,
    /// On a machine, each partition's scheduler ([`Rigid::partition_schedulers`]).
    pub partition_schedulers: Vec<SchedulerKind>,
    pub predictor: Option<PredictorKind>,
    pub window: Option<Window>,
}

impl Rigid {
    /// Prepares this experiment's workload ([`WorkloadSpec::prepare`]) for runs measuring
    /// `window`.
    pub fn prepare(&self, shared: &mut Shared, window: Option<&Window>) -> Result<PreparedRigid> {
        Ok(PreparedRigid {
            workload: self.workload.prepare(shared, window)?,
            scheduler: self.scheduler,
            partition_schedulers: self.partition_schedulers.clone(),
            predictor: self.predictor,
            window: window.cloned(),
        })
    }
}

impl PreparedRigid {
    /// Simulates `workload` (replication `seed`) on `worker` with a scheduler of this
    /// experiment's kind, measuring `window`. The GA's choices get their own stream, apart
    /// from the workload's. On a machine of partitions each partition is a pool of its own
    /// with its own queue, simulated apart and merged back into the workload's job order.
    ///
    /// Where jobs are held back while the grid is dirty (`carbon_hold`), each job reaches
    /// the scheduler at its release ([`crate::carbon::Intensity::release`]): the jobs are
    /// simulated in order of release, and the outcome put back in the workload's order, so
    /// that waits count from the submit and include the hold.
    pub fn simulate<'w>(&self, worker: &'w mut Worker, workload: &Workload, seed: u64) -> Outcome<'w> {
        let carbon = match &self.workload.spec.source {
            Source::Trace(t) => t.carbon.as_deref(),
            Source::Model(_) => None,
        };
        // Nodes are idle from the first submit, whenever the first job reaches the scheduler.
        let first = workload.jobs.submit.first().copied();
        let Some((carbon, hold)) = carbon.and_then(|c| Some((c, c.hold?))) else {
            return self.simulate_as_submitted(&mut worker.run, workload, seed, first);
        };
        let jobs = &workload.jobs;
        let release: Vec<Time> = jobs
            .submit
            .iter()
            .map(|&s| carbon.series.release(s, carbon.offset, hold))
            .collect();
        let mut order: Vec<u32> = (0..jobs.len() as u32).collect();
        order.sort_by_key(|&j| (release[j as usize], j));
        let mut held = jobs.gather(&order);
        for (i, &j) in order.iter().enumerate() {
            held.submit[i] = release[j as usize];
        }
        let held = Workload {
            name: workload.name.clone(),
            jobs: held,
            procs: workload.procs,
            header: workload.header.clone(),
            skipped: workload.skipped.clone(),
            not_selected: workload.not_selected,
        };
        let outcome = self.simulate_as_submitted(&mut worker.run, &held, seed, first);
        worker.held.begin(jobs.len());
        worker.held.absorb(&outcome, &order);
        worker.held.hold(release.iter().copied());
        worker.held.outcome()
    }

    /// [`PreparedRigid::simulate`] with every job reaching the scheduler at its submit; the
    /// machine's nodes idle from `first`.
    fn simulate_as_submitted<'w>(
        &self,
        worker: &'w mut Runner,
        workload: &Workload,
        seed: u64,
        first: Option<Time>,
    ) -> Outcome<'w> {
        // Partition `p`'s scheduler: its own, else the run's; the run's predictor serves those
        // that read predictions.
        let kind = |p: usize| {
            self.partition_schedulers
                .get(p)
                .copied()
                .unwrap_or(self.scheduler)
        };
        let predictor = |kind: SchedulerKind| self.predictor.filter(|_| kind.uses_predictor());
        let machine = self.workload.spec.machine();
        let one_pool = |m: &&Machine| {
            m.partitions.len() == 1
                && !m.partitions[0].needs_nodes()
                && m.partitions[0].cap_over_time.is_none()
        };
        // One pool: the machine's cores, or under a power cap those that may be busy at once.
        let procs = machine
            .filter(one_pool)
            .map_or(workload.procs, |m| m.partitions[0].usable_cores() as u32);
        let Some(machine) = machine.filter(|m| !one_pool(m)) else {
            let scheduler = worker
                .schedulers
                .entry(kind(0))
                .or_insert_with(|| kind(0).build());
            scheduler.set_seed(mix64(seed ^ GA_STREAM));
            worker
                .engine
                .set_switch_off(machine.and_then(|m| m.partitions[0].switch_off_policy()), first);
            worker.engine.set_feedback(
                self.workload
                    .spec
                    .feedback
                    .then(|| crate::sim::Dependencies::from_jobs(&workload.jobs).0),
            );
            return scheduler.simulate(
                &mut worker.engine,
                &workload.jobs,
                procs,
                predictor(kind(0)),
                self.window.as_ref(),
            );
        };
        machine.split(&workload.jobs, &mut worker.rows);
        worker.parts.begin(workload.jobs.len());
        worker.engine.set_feedback(None);
        for (p, rows) in worker.rows.iter().enumerate().filter(|(_, r)| !r.is_empty()) {
            // What the partition's simulation reads; its requests come from the whole table,
            // which holds the memory columns.
            let jobs = workload.jobs.gather_simulated(rows);
            let window = self.window.as_ref().map(|w| w.of_part(rows));
            let partition = &machine.partitions[p];
            // Under a power cap, the cores that may be busy at once.
            let cores = partition.usable_cores() as u32;
            worker.engine.set_switch_off(partition.switch_off_policy(), first);
            let kind = kind(p);
            let node_policy = || kind.node_policy().expect("refused when the experiment was built");
            let outcome = if let Some(capacity) = partition.capacity() {
                let mut capped = CappedScheduler::new(node_policy(), capacity);
                capped.simulate(&mut worker.engine, &jobs, cores, predictor(kind), window.as_ref())
            } else if partition.needs_nodes() {
                let requests = rows
                    .iter()
                    .map(|&r| machine.request(&workload.jobs, r as usize))
                    .collect();
                let mut nodes = NodeScheduler::new(node_policy(), partition.pool(), requests);
                nodes.set_seed(mix64(seed ^ GA_STREAM ^ p as u64));
                nodes.simulate(&mut worker.engine, &jobs, cores, predictor(kind), window.as_ref())
            } else {
                let scheduler = worker.schedulers.entry(kind).or_insert_with(|| kind.build());
                scheduler.set_seed(mix64(seed ^ GA_STREAM ^ p as u64));
                scheduler.simulate(&mut worker.engine, &jobs, cores, predictor(kind), window.as_ref())
            };
            worker.parts.absorb_partition(&outcome, rows, p);
        }
        worker.parts.outcome()
    }

    /// Draws replication `seed`'s workload, simulates it with a worker's engine and
    /// scheduler, and summarises the measured jobs.
    pub fn run(&self, seed: u64, worker: &mut Worker) -> Result<RigidOutcome> {
        self.run_asking(seed, worker, false)
    }

    /// [`Self::run`], with each partition's own summary where `by_partition`.
    pub fn run_asking(&self, seed: u64, worker: &mut Worker, by_partition: bool) -> Result<RigidOutcome> {
        let workload = self.workload.draw(seed)?;
        let outcome = self.simulate(worker, &workload, seed);
        let n = workload.jobs.len();
        let measured = self
            .window
            .as_ref()
            .map_or(0..n, |w| w.measured.start.min(n)..w.measured.end.min(n));
        let simulated = outcome.events / 2;
        let jobs = outcome.jobs_as_run(&workload.jobs);
        let summary = (!outcome.saturated).then(|| {
            self.summarise(
                &jobs,
                workload.procs,
                &outcome,
                measured.clone(),
                &workload.skipped,
            )
        });
        let partitions = match self.workload.spec.machine() {
            Some(machine) if by_partition => {
                let times = (!outcome.saturated).then_some((outcome.start, outcome.end));
                measured_by_partition(
                    machine,
                    &jobs,
                    times,
                    measured.clone(),
                    outcome.stranded_by_partition,
                )
            }
            _ => Vec::new(),
        };
        Ok(RigidOutcome {
            summary,
            measured: measured.len(),
            simulated,
            partitions,
        })
    }

    /// The summary of a run of `jobs` on `procs` processors measuring `measured`
    /// ([`Summary::of_outcome`]) with, on a machine that describes its power, what the
    /// whole run cost (`crate::energy`).
    pub fn summarise(
        &self,
        jobs: &crate::workload::Jobs,
        procs: u32,
        outcome: &Outcome,
        measured: std::ops::Range<usize>,
        skipped: &crate::workload::SkipCounts,
    ) -> Summary {
        let machine = self.workload.spec.machine();
        let (start, end) = (outcome.start, outcome.end);
        let utilization = |capacity: f64, units: &dyn Fn(usize) -> f64| {
            crate::metrics::resource_utilization(jobs, start, end, measured.clone(), capacity, units)
        };
        let gpus = machine.map_or(0, Machine::gpus);
        Summary {
            energy: self.energy(jobs, start, end, outcome.switches),
            gpu_utilization: (gpus > 0).then(|| utilization(gpus as f64, &|j| jobs.gpus_of(j) as f64)),
            memory_utilization: machine
                .and_then(Machine::memory_kb)
                .map(|kb| utilization(kb, &|j| Machine::memory_of(jobs, j))),
            // Written only where a partition places jobs on nodes, so that a machine of pools
            // (today's, described) prints what a pool of processors does.
            fragmentation: machine
                .filter(|m| m.partitions.iter().any(|p| p.needs_nodes()))
                .map(|m| fragmentation(m.cores(), jobs, end, outcome.stranded_core_seconds)),
            ..Summary::of_outcome(jobs, procs, outcome, measured, skipped)
        }
    }

    /// On a machine that describes its power, what a run of `jobs` that started and ended
    /// them at `start` and `end`, and switched nodes as `switches` says, cost.
    fn energy(
        &self,
        jobs: &crate::workload::Jobs,
        start: &[Time],
        end: &[Time],
        switches: &[crate::sim::NodeSwitch],
    ) -> Option<EnergySummary> {
        crate::energy::of_run(
            self.workload.spec.machine()?,
            jobs,
            start,
            end,
            switches,
            self.carbon(),
        )
    }

    /// The trace's carbon-intensity series and the offset from its clock to the series'.
    fn carbon(&self) -> Option<(&crate::carbon::Intensity, Time)> {
        match &self.workload.spec.source {
            Source::Trace(t) => t.carbon.as_ref().map(|c| (&c.series, c.offset)),
            Source::Model(_) => None,
        }
    }

    /// On a machine that describes its power, each job's energy and, with a carbon series,
    /// carbon ([`crate::energy::per_job`]).
    pub fn job_costs(
        &self,
        jobs: &crate::workload::Jobs,
        start: &[Time],
        end: &[Time],
    ) -> Option<crate::energy::PerJob> {
        crate::energy::per_job(self.workload.spec.machine()?, jobs, start, end, self.carbon())
    }

    /// On a machine that describes its power, its power over the run
    /// ([`crate::energy::power_over_time`]), watts, and the machine's cap where every
    /// partition has one (their sum).
    pub fn power_over_time(
        &self,
        jobs: &crate::workload::Jobs,
        outcome: &Outcome,
    ) -> Option<crate::energy::PowerOverTime> {
        let machine = self.workload.spec.machine()?;
        let steps =
            crate::energy::power_over_time(machine, jobs, outcome.start, outcome.end, outcome.switches)?;
        let last = outcome.end.iter().copied().max()?;
        Some(crate::energy::PowerOverTime {
            cap: machine.cap_steps(steps[0].0, last).unwrap_or_default(),
            steps,
        })
    }

    /// On a machine of several partitions, or one whose partition names its own scheduler,
    /// each partition's own summary of a run of `workload` (all its jobs) that started and
    /// ended them at `start` and `end`; empty otherwise.
    pub fn by_partition(&self, workload: &Workload, start: &[Time], end: &[Time]) -> Vec<PartitionSummary> {
        let apart =
            |m: &&Machine| m.partitions.len() > 1 || m.partitions.iter().any(|p| p.scheduler.is_some());
        let Some(machine) = self.workload.spec.machine().filter(apart) else {
            return Vec::new();
        };
        let all = 0..workload.jobs.len();
        measured_by_partition(machine, &workload.jobs, Some((start, end)), all, &[])
            .into_iter()
            .zip(&machine.partitions)
            .enumerate()
            .map(|(i, (run, p))| PartitionSummary {
                partition: run.name,
                scheduler: p
                    .scheduler
                    .as_ref()
                    .and_then(|_| self.partition_schedulers.get(i).copied()),
                summary: run.summary.expect("a run's times give a summary"),
            })
            .collect()
    }

    /// The run as one JSON object, as `schedlab run --json` prints it and the Python
    /// package returns it: workload, scheduler and predictor (as `run` prints them, with
    /// their parameters), seed and the jobs outside the selection, then the summary's keys
    /// (jobs, mean_wait, ...) at the top level, and on a machine of several partitions (or
    /// one that names its own scheduler), `partitions`: each one's name, its own scheduler
    /// where it names one, and main figures.
    pub fn summary_json(
        &self,
        workload: &Workload,
        seed: u64,
        summary: &Summary,
        partitions: &[PartitionSummary],
    ) -> serde_json::Value {
        let predictor = self.predictor.map_or("estimate".to_string(), |p| p.to_string());
        let mut object = serde_json::json!({
            "workload": workload.name,
            "scheduler": self.scheduler.to_string(),
            "predictor": predictor,
            "seed": seed,
            "not_selected": workload.not_selected,
        });
        if let (Some(o), Ok(serde_json::Value::Object(s))) =
            (object.as_object_mut(), serde_json::to_value(summary))
        {
            o.extend(s);
        }
        if !partitions.is_empty() {
            object["partitions"] = partitions.iter().map(PartitionSummary::json).collect();
        }
        object
    }
}

/// The share of `cores` (a machine's, or a partition's) idle on nodes that jobs partly held (`stranded`
/// core-seconds) over the whole run of `jobs`, from the first submit to the last end.
fn fragmentation(cores: u64, jobs: &crate::workload::Jobs, end: &[Time], stranded: u64) -> f64 {
    let first = jobs.submit.iter().copied().min();
    let last = end.iter().copied().filter(|&e| e != Time::MIN).max();
    match (first, last) {
        (Some(first), Some(last)) if last > first => stranded as f64 / (cores as f64 * (last - first) as f64),
        _ => 0.0,
    }
}

/// Each partition of `machine`: its jobs of `measured` (indices into `jobs`, the run's table),
/// and, where the run gives its `times` (start and end of every job; `None` when it
/// saturated), their summary over the partition's own cores, memory and GPUs; with the
/// partitions' `stranded` core-seconds ([`Outcome::stranded_by_partition`]; empty: not
/// counted), the fragmentation of those that place jobs on nodes, over the whole run.
fn measured_by_partition(
    machine: &Machine,
    jobs: &crate::workload::Jobs,
    times: Option<(&[Time], &[Time])>,
    measured: std::ops::Range<usize>,
    stranded: &[u64],
) -> Vec<PartitionMeasured> {
    let mut rows = Vec::new();
    machine.split(jobs, &mut rows);
    let pick =
        |column: &[Time], rows: &[u32]| -> Vec<Time> { rows.iter().map(|&r| column[r as usize]).collect() };
    machine
        .partitions
        .iter()
        .zip(&rows)
        .enumerate()
        .map(|(i, (p, rows))| {
            // Rows are in job order, so the measured ones are a run of them.
            let at = |j: usize| rows.partition_point(|&r| (r as usize) < j);
            let window = at(measured.start)..at(measured.end);
            let summary = times.map(|(all_start, all_end)| {
                let table = jobs.gather_simulated(rows);
                let (start, end) = (pick(all_start, rows), pick(all_end, rows));
                // The requests are read off the whole table, which holds the memory columns.
                let utilization = |capacity: f64, units: &dyn Fn(usize) -> f64| {
                    crate::metrics::resource_utilization(
                        &table,
                        &start,
                        &end,
                        window.clone(),
                        capacity,
                        units,
                    )
                };
                Summary {
                    gpu_utilization: (p.gpus() > 0)
                        .then(|| utilization(p.gpus() as f64, &|j| jobs.gpus_of(rows[j] as usize) as f64)),
                    memory_utilization: p
                        .memory_kb()
                        .map(|kb| utilization(kb, &|j| Machine::memory_of(jobs, rows[j] as usize))),
                    fragmentation: stranded
                        .get(i)
                        .filter(|_| p.needs_nodes())
                        .map(|&s| fragmentation(p.cores(), jobs, all_end, s)),
                    ..Summary::of_window(
                        &table,
                        p.cores() as u32,
                        &start,
                        &end,
                        window.clone(),
                        &Default::default(),
                    )
                }
            });
            PartitionMeasured {
                name: p.name.clone(),
                measured: window.len(),
                summary,
            }
        })
        .collect()
}

/// One partition's jobs in a run on a machine of partitions, summarised over its own cores.
#[derive(Clone, Debug)]
pub struct PartitionSummary {
    pub partition: String,
    /// Its own scheduler, where its `[[partition]]` names one (not the run's).
    pub scheduler: Option<SchedulerKind>,
    pub summary: Summary,
}

impl PartitionSummary {
    /// Its main figures, as `--json` and the Python package give them.
    pub fn json(&self) -> serde_json::Value {
        let s = &self.summary;
        let mut object = serde_json::json!({
            "partition": self.partition,
            "cores": s.procs,
            "jobs": s.jobs,
            "mean_wait": s.mean_wait,
            "p50_wait": s.wait.p50,
            "mean_bsld": s.mean_bsld,
            "utilization": s.utilization,
        });
        if let Some(kind) = self.scheduler {
            object["scheduler"] = serde_json::json!(kind.to_string());
        }
        object
    }

    /// Its line in `schedlab run`'s text.
    pub fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let s = &self.summary;
        let own = self.scheduler.map_or(String::new(), |k| format!(" ({k})"));
        writeln!(
            out,
            "partition    {}{own}: {} cores, {} jobs, wait mean {:.2} s p50 {:.2}, bsld mean {:.2}, utilization {:.4}",
            self.partition, s.procs, s.jobs, s.mean_wait, s.wait.p50, s.mean_bsld, s.utilization
        )
    }
}

/// An experiment of any kind ready to run.
// One per cell, made once: boxing the rigid variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Prepared {
    Rigid(PreparedRigid),
    Malleable(super::malleable::Malleable),
    Moldable(super::moldable::Moldable, Arc<References>),
    Cluster(Box<crate::nondedicated::ClusterExperiment>),
}

impl Experiment {
    /// Makes this experiment ready for runs measuring `window`, with what it shares with
    /// others in `shared`.
    pub fn prepare(&self, shared: &mut Shared, window: Option<&Window>) -> Result<Prepared> {
        Ok(match self {
            Experiment::Rigid(r) => Prepared::Rigid(r.prepare(shared, window)?),
            Experiment::Malleable(m) => Prepared::Malleable(m.clone()),
            Experiment::Moldable(m) => Prepared::Moldable(m.clone(), shared.references.clone()),
            Experiment::Cluster(c) => Prepared::Cluster(c.clone()),
        })
    }
}

impl Prepared {
    /// Runs replication `seed` on `worker`, computing what `metrics` need (runs beside it
    /// for comparisons only when asked); returns the outcome and the jobs simulated. A run
    /// that saturates is an outcome like any other.
    pub fn run(&self, seed: u64, worker: &mut Worker, metrics: &[String]) -> Result<(RunOutcome, u64)> {
        let asks = |names: &[&str]| metrics.iter().any(|m| names.contains(&m.as_str()));
        Ok(match self {
            Prepared::Rigid(rigid) => {
                let by_partition = metrics.iter().any(|m| m.contains('@'));
                let outcome = rigid.run_asking(seed, worker, by_partition)?;
                let simulated = outcome.simulated;
                (RunOutcome::Rigid(outcome), simulated)
            }
            Prepared::Malleable(m) => {
                let (report, jobs) = m.run(seed, asks(&VERSUS_AVG_METRICS))?;
                (RunOutcome::Malleable(report), jobs)
            }
            Prepared::Moldable(m, references) => {
                let normalize = asks(&["normalized_response"]);
                let outcome = m.run_with(seed, normalize.then_some(&**references), &mut worker.partitioner);
                (RunOutcome::Moldable(outcome), m.jobs() as u64)
            }
            Prepared::Cluster(c) => {
                let report = cluster::run(c, seed).map_err(|e| Error::Invalid(e.to_string()))?;
                let jobs = report.as_ref().map_or(0, |r| r.jobs.len() as u64);
                (RunOutcome::Cluster(report.map(Box::new)), jobs)
            }
        })
    }

    /// What to know about this experiment's inputs before trusting its runs.
    pub fn warnings(&self) -> Vec<String> {
        match self {
            Prepared::Rigid(r) => r.workload.warnings(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{Params, Value};

    /// A three-job trace in a folder of its own, and the rigid experiment replaying it with
    /// `extra` parameters.
    fn experiment(dir: &Path, extra: &[(&str, Value)]) -> Rigid {
        let path = dir.join("three.swf");
        std::fs::write(
            &path,
            "; MaxProcs: 4\n\
             1 0 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 1 -1 -1\n\
             2 10 0 50 4 -1 -1 4 60 -1 1 2 1 1 2 1 -1 -1\n\
             3 20 0 10 1 -1 -1 1 20 -1 1 1 1 1 1 1 -1 -1\n",
        )
        .unwrap();
        let mut params = Params::default();
        params.insert("trace", Value::Str(path.display().to_string()));
        params.insert("scheduler", Value::Str("fcfs".into()));
        for (k, v) in extra {
            params.insert(*k, v.clone());
        }
        super::super::rigid::from_params(&params, super::super::Sources::default(), None).unwrap()
    }

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("schedlab-prepare-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Experiments on one trace share one reading of it, in every column when one of them
    /// needs more than a simulation reads, in the simulated columns alone otherwise.
    #[test]
    fn a_trace_is_read_once_in_the_columns_its_experiments_need() {
        let dir = folder("columns");
        let plain = experiment(&dir, &[]);
        let prioritised = experiment(&dir, &[("priorities", Value::Str("*:0".into()))]);
        // Resampling reads and writes simulated columns alone.
        let shaken = experiment(&dir, &[("resample", Value::Str("shake".into()))]);
        for alone in [&plain, &shaken] {
            let mut shared = Shared::new([&alone.workload], false);
            let read = alone.prepare(&mut shared, None).unwrap();
            let jobs = &read.workload.trace().unwrap().workload.jobs;
            assert_eq!((jobs.len(), jobs.queue.len()), (3, 0));
        }

        let mut both = Shared::new([&plain.workload, &prioritised.workload], false);
        let a = plain.prepare(&mut both, None).unwrap();
        let b = prioritised.prepare(&mut both, None).unwrap();
        let (a, b) = (a.workload.trace.unwrap(), b.workload.trace.unwrap());
        assert!(Arc::ptr_eq(&a, &b), "one reading for both");
        assert_eq!(a.workload.jobs.queue.len(), 3);

        let mut kept = Shared::new([&plain.workload], true);
        let every = plain.prepare(&mut kept, None).unwrap();
        assert_eq!(every.workload.trace().unwrap().workload.jobs.queue.len(), 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// What would fail a replication fails the preparation, before any run: a window longer
    /// than the trace, a scale past the bounds, a priority map that misses a queue.
    #[test]
    fn preparing_refuses_what_a_replication_would() {
        let dir = folder("refuses");
        let window = Window {
            measured: 0..10,
            saturation: None,
        };
        let plain = experiment(&dir, &[]);
        let e = plain
            .prepare(&mut Shared::new([], false), Some(&window))
            .unwrap_err();
        assert!(
            e.to_string().contains("3 jobs, but the measure window needs 10"),
            "{e}"
        );

        let far = experiment(&dir, &[("load_scale", Value::Float(1e15))]);
        let e = far.prepare(&mut Shared::new([], false), None).unwrap_err();
        assert!(e.to_string().contains("load_scale 1000000000000000"), "{e}");

        let prio = experiment(
            &dir,
            &[
                ("priorities", Value::Str("1:0".into())),
                ("scheduler", Value::Str("prio".into())),
            ],
        );
        let e = prio.prepare(&mut Shared::new([], false), None).unwrap_err();
        assert!(e.to_string().contains("queue 2"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Draws are the replication's own: the same seed gives the same jobs, and a plain
    /// replay borrows the trace as read.
    #[test]
    fn a_plain_replay_borrows_the_trace_and_a_shaken_one_draws_per_seed() {
        let dir = folder("draw");
        let plain = experiment(&dir, &[])
            .prepare(&mut Shared::default(), None)
            .unwrap();
        assert!(matches!(plain.workload.draw(1).unwrap(), Cow::Borrowed(_)));
        let shaken = experiment(&dir, &[("resample", Value::Str("shake".into()))]);
        let shaken = shaken.prepare(&mut Shared::default(), None).unwrap();
        let (one, again, other) = (
            shaken.workload.draw(1).unwrap(),
            shaken.workload.draw(1).unwrap(),
            shaken.workload.draw(2).unwrap(),
        );
        assert_eq!(one.jobs.submit, again.jobs.submit);
        assert_ne!(one.jobs.submit, other.jobs.submit);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
