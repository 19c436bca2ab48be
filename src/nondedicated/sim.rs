//! The off-line simulator of a non-dedicated cluster (Hanzich et al., section 5), which
//! plays the "real cluster" the estimators are judged against.
//!
//! Events: parallel arrivals, parallel completions, local sessions starting and ending.
//! Time is continuous (seconds, f64). At each instant: local session ends, then starts, then
//! completions, then arrivals; then one scheduling pass; then every running job whose
//! progress rate changed (see `cluster`) has its completion moved: its remaining dedicated
//! time is brought up to date at the old rate and a new completion is pushed with a new
//! generation, so a stale one is dropped when popped. Rates are exact between events.
//!
//! Job selection is `policy::pass`, with each running job projected to end at the rate the
//! CPU model gives (now + remaining / rate). Jobs really progress at `Truth::rate`, which is
//! that rate unless the setup's `truth` adds node speed noise or co-scheduling slowdown.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::cluster::{Hardware, Node, Truth, rate};
use super::model::{LocalLoad, LocalProcess, LocalSession, ParallelJob};
use super::policy::{PassScratch, Projected, Started, pass};
use super::{JobSelection, NodeSelection};

/// Policies and hardware of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    pub hardware: Hardware,
    pub jsp: JobSelection,
    pub nsp: NodeSelection,
    /// How the real cluster departs from the CPU model (exact by default).
    pub truth: Truth,
}

impl Setup {
    /// The paper's Basic policy: FCFS, Normal, MPL_paral = 1.
    pub fn basic(nodes: u32) -> Self {
        Setup {
            hardware: Hardware {
                nodes,
                mpl: 1,
                ..Hardware::default()
            },
            jsp: JobSelection::Fcfs,
            nsp: NodeSelection::Normal,
            truth: Truth::default(),
        }
    }
}

/// What happened to one parallel job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobOutcome {
    pub arrival: f64,
    pub start: f64,
    pub end: f64,
    /// CPU time its tasks received, summed over its life.
    pub cpu_time: f64,
    pub nodes: Vec<u32>,
}

impl JobOutcome {
    pub fn wait(&self) -> f64 {
        self.start - self.arrival
    }
    pub fn exec(&self) -> f64 {
        self.end - self.start
    }
    pub fn turnaround(&self) -> f64 {
        self.end - self.arrival
    }
}

/// A whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterRun {
    pub jobs: Vec<JobOutcome>,
    /// Local sessions that started during the run.
    pub local_sessions: u64,
    pub passes: u64,
    /// Time-averaged number of waiting jobs, from the first arrival to the last end.
    pub mean_queue: f64,
}

impl ClusterRun {
    pub fn mean(&self, f: impl Fn(&JobOutcome) -> f64) -> f64 {
        self.jobs.iter().map(f).sum::<f64>() / self.jobs.len().max(1) as f64
    }

    /// Last end minus first arrival.
    pub fn makespan(&self) -> f64 {
        let first = self.jobs.iter().map(|j| j.arrival).fold(f64::INFINITY, f64::min);
        let last = self.jobs.iter().map(|j| j.end).fold(f64::NEG_INFINITY, f64::max);
        if self.jobs.is_empty() { 0.0 } else { last - first }
    }
}

/// Why a run cannot be done.
#[derive(Clone, Debug, PartialEq)]
pub enum SimError {
    /// A job needs more nodes than the cluster has, or more memory than a node.
    NeverFits { job: usize, app: String },
    /// `job` arrives before the job listed before it (or at a time that is not a number).
    NotInArrivalOrder { job: usize },
    /// The queue stopped moving for longer than the bound, or for good (e.g. a social
    /// contract no task can meet on a fully loaded cluster, or a local user who never leaves).
    Stuck { at: f64, waiting: usize },
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::NeverFits { job, app } => write!(
                f,
                "job {job} ({app}) can never run: it needs more nodes than the cluster has or more memory than a node"
            ),
            SimError::NotInArrivalOrder { job } => write!(
                f,
                "job {job} arrives before the job before it: jobs must be listed in arrival order"
            ),
            SimError::Stuck { at, waiting } => write!(
                f,
                "at t = {at:.0} s, {waiting} jobs wait and none has started for 10^8 s or ever can: the social contract or the local load leaves no room"
            ),
        }
    }
}

impl std::error::Error for SimError {}

/// A running job.
#[derive(Clone, Debug)]
struct Running {
    job: usize,
    nodes: Vec<u32>,
    /// Dedicated seconds still to run, as of `last`.
    remaining: f64,
    rate: f64,
    last: f64,
    generation: u32,
    cpu_time: f64,
}

/// A future event, earliest first.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Event {
    t: f64,
    /// 0: a local session ends (id = node); 1: a job completes (id = job).
    kind: u8,
    id: u32,
    generation: u32,
}

impl Eq for Event {}
impl Ord for Event {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .t
            .total_cmp(&self.t)
            .then(other.kind.cmp(&self.kind))
            .then(other.id.cmp(&self.id))
            .then(other.generation.cmp(&self.generation))
    }
}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Longest time the queue may stand still before the run is declared stuck.
const STUCK_AFTER: f64 = 1e8;

/// What a run fills, kept between runs by [`ClusterSimulator`].
#[derive(Debug, Default)]
struct Buffers {
    nodes: Vec<Node>,
    /// Each node's true speed (`Truth::speeds`).
    speeds: Vec<f64>,
    sessions: Vec<Option<LocalSession>>,
    running: Vec<Running>,
    queue: Vec<usize>,
    events: BinaryHeap<Event>,
    outcomes: Vec<Option<JobOutcome>>,
    /// Generation of each job's valid completion.
    generation: Vec<u32>,
    scratch: PassScratch,
    started: Started,
    /// The running jobs as a pass sees them, kept across passes: each entry's node list
    /// is refilled in place.
    projected: Vec<Projected>,
    /// The outcomes in job order, as the run gives them.
    finished: Vec<JobOutcome>,
    /// Each job's node lists while it runs and in its outcome, given back when it ends and
    /// when its outcome is recycled: a job's lists fit it again in the next run.
    running_lists: Vec<Vec<u32>>,
    outcome_lists: Vec<Vec<u32>>,
}

/// The simulator's state.
struct Cluster<'a> {
    setup: Setup,
    jobs: &'a [ParallelJob],
    state: Buffers,
    passes: u64,
}

/// A running job as an observer sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunningView {
    pub job: usize,
    pub start: f64,
    pub nodes: Vec<u32>,
    /// ExecTime_cur: seconds since it started.
    pub exec_cur: f64,
    /// CPUtime_cur: CPU time its tasks received so far.
    pub cpu_cur: f64,
}

/// The cluster as the scheduler knows it at an instant: what an on-line estimator reads.
#[derive(Clone, Debug)]
pub struct Snapshot<'a> {
    pub now: f64,
    pub setup: &'a Setup,
    pub jobs: &'a [ParallelJob],
    pub nodes: &'a [Node],
    pub running: Vec<RunningView>,
    /// Waiting jobs in arrival order.
    pub queue: &'a [usize],
}

/// Watches a run: estimators predict at arrivals and learn from starts and ends.
pub trait Observer {
    /// `job` has just joined the end of the queue (before the scheduling pass).
    fn arrived(&mut self, _job: usize, _state: &Snapshot) {}
    /// `job` has just started (after the pass; `state.queue` holds those still waiting).
    fn started(&mut self, _job: usize, _state: &Snapshot) {}
    /// `job` has ended.
    fn ended(&mut self, _job: usize, _outcome: &JobOutcome) {}
    /// Whether it reads arrivals and starts at all: if not, the run builds no snapshot for
    /// it (a snapshot copies every running job's nodes).
    fn watches(&self) -> bool {
        true
    }
}

/// Observes nothing.
pub struct NoObserver;
impl Observer for NoObserver {
    fn watches(&self) -> bool {
        false
    }
}

/// Runs `jobs` (in arrival order) on the cluster with the local users of `local`.
pub fn simulate(setup: &Setup, jobs: &[ParallelJob], local: &LocalLoad) -> Result<ClusterRun, SimError> {
    simulate_observed(setup, jobs, local, &mut NoObserver)
}

/// Refuses jobs out of arrival order, and jobs no node set of the cluster could ever run.
fn check_jobs(setup: &Setup, jobs: &[ParallelJob]) -> Result<(), SimError> {
    let hw = &setup.hardware;
    for (i, j) in jobs.iter().enumerate() {
        let ordered = j.arrival.is_finite() && j.arrival >= jobs[i.saturating_sub(1)].arrival;
        if !ordered {
            return Err(SimError::NotInArrivalOrder { job: i });
        }
        if j.app.tasks > hw.nodes || j.app.memory_mb > hw.memory_mb || j.app.tasks == 0 {
            return Err(SimError::NeverFits {
                job: i,
                app: j.app.to_string(),
            });
        }
    }
    Ok(())
}

/// [`simulate`], telling `observer` of every arrival, start and end.
pub fn simulate_observed(
    setup: &Setup,
    jobs: &[ParallelJob],
    local: &LocalLoad,
    observer: &mut dyn Observer,
) -> Result<ClusterRun, SimError> {
    ClusterSimulator::new().run(setup, jobs, local, observer)
}

/// The simulator with its buffers, kept between runs so that a warm run allocates nothing
/// once each run's job outcomes are given back ([`ClusterSimulator::recycle`]) and no
/// observer watches (a snapshot copies the running jobs' nodes).
#[derive(Debug, Default)]
pub struct ClusterSimulator {
    spare: Buffers,
    process: LocalProcess,
    /// Whether each run is checked after it; by default, in debug builds.
    validate: Option<bool>,
}

impl ClusterSimulator {
    /// A simulator that checks every run in debug builds ([`check_run`]).
    pub fn new() -> Self {
        ClusterSimulator::default()
    }

    /// Whether each run is checked (which allocates) after it ends.
    pub fn with_validation(mut self, validate: bool) -> Self {
        self.validate = Some(validate);
        self
    }

    /// Gives a run's job outcomes (and their node lists) back for the next run to fill.
    pub fn recycle(&mut self, mut run: ClusterRun) {
        let lists = &mut self.spare.outcome_lists;
        lists.resize(run.jobs.len(), Vec::new());
        for (list, o) in lists.iter_mut().zip(run.jobs.drain(..)) {
            *list = o.nodes;
        }
        self.spare.finished = run.jobs;
    }

    /// Runs `jobs` (in arrival order) on the cluster with the local users of `local`,
    /// telling `observer` of every arrival, start and end.
    pub fn run(
        &mut self,
        setup: &Setup,
        jobs: &[ParallelJob],
        local: &LocalLoad,
        observer: &mut dyn Observer,
    ) -> Result<ClusterRun, SimError> {
        check_jobs(setup, jobs)?;
        let mut c = Cluster::new(setup, jobs, std::mem::take(&mut self.spare));
        self.process.reset(local, setup.hardware.nodes);
        let run = events(&mut c, &mut self.process, observer);
        self.spare = c.state;
        let run = run?;
        if self.validate.unwrap_or(cfg!(debug_assertions)) {
            check_run(setup, jobs, &run);
        }
        Ok(run)
    }
}

/// The event loop of a run.
fn events(
    c: &mut Cluster,
    process: &mut LocalProcess,
    observer: &mut dyn Observer,
) -> Result<ClusterRun, SimError> {
    let (hw, jobs) = (c.setup.hardware, c.jobs);
    let mut next_arrival = 0;
    let mut done = 0;
    let mut local_sessions = 0;
    let mut last_start = jobs.first().map_or(0.0, |j| j.arrival);
    let (mut queue_area, mut last_t) = (0.0, last_start);
    while done < jobs.len() {
        let t_arrival = jobs.get(next_arrival).map_or(f64::INFINITY, |j| j.arrival);
        let t_local = process.next_start().unwrap_or(f64::INFINITY);
        let t_event = c.state.events.peek().map_or(f64::INFINITY, |e| e.t);
        let now = t_arrival.min(t_local).min(t_event);
        if !now.is_finite() {
            // Jobs wait, yet nothing will ever happen again (local sessions that never end).
            return Err(SimError::Stuck {
                at: last_t,
                waiting: c.state.queue.len(),
            });
        }
        queue_area += c.state.queue.len() as f64 * (now - last_t);
        last_t = now;
        if !c.state.queue.is_empty() && now - last_start > STUCK_AFTER {
            return Err(SimError::Stuck {
                at: now,
                waiting: c.state.queue.len(),
            });
        }
        // Local ends, then starts, then completions, then arrivals. A pass runs only when
        // one of them happened: a stale completion (a job's projected end before its rate
        // changed) is no event, and a pass there would let the schedule depend on when
        // projections were made.
        let mut happened = false;
        while let Some(&e) = c.state.events.peek()
            && e.t == now
            && e.kind == 0
        {
            c.state.events.pop();
            happened = true;
            let s = c.state.sessions[e.id as usize].take().expect("a session to end");
            let n = &mut c.state.nodes[e.id as usize];
            (n.has_local, n.local_cpu, n.local_memory) = (false, 0.0, 0.0);
            process.ended(&s, now);
        }
        while process.next_start() == Some(now) {
            happened = true;
            let s = process.pop().expect("a session to start");
            local_sessions += 1;
            let n = &mut c.state.nodes[s.node as usize];
            (n.has_local, n.local_cpu, n.local_memory) = (true, s.cpu, s.memory * hw.memory_mb);
            c.state.sessions[s.node as usize] = Some(s);
            c.state.events.push(Event {
                t: s.end,
                kind: 0,
                id: s.node,
                generation: 0,
            });
        }
        while let Some(&e) = c.state.events.peek()
            && e.t == now
        {
            c.state.events.pop();
            if e.generation == c.state.generation[e.id as usize] {
                happened = true;
                c.complete(e.id as usize, now);
                observer.ended(
                    e.id as usize,
                    c.state.outcomes[e.id as usize].as_ref().expect("ended"),
                );
                done += 1;
            }
        }
        while next_arrival < jobs.len() && jobs[next_arrival].arrival == now {
            happened = true;
            c.state.queue.push(next_arrival);
            if observer.watches() {
                observer.arrived(next_arrival, &c.snapshot(now));
            }
            next_arrival += 1;
        }
        if happened && c.schedule(now) {
            last_start = now;
            if observer.watches() {
                let started = std::mem::take(&mut c.state.started);
                for (job, _) in started.iter() {
                    observer.started(job, &c.snapshot(now));
                }
                c.state.started = started;
            }
        }
        c.update_rates(now);
    }
    let mut finished = std::mem::take(&mut c.state.finished);
    finished.clear();
    finished.extend(
        c.state
            .outcomes
            .iter_mut()
            .map(|o| o.take().expect("every job ran")),
    );
    let run = ClusterRun {
        jobs: finished,
        local_sessions,
        passes: c.passes,
        mean_queue: 0.0,
    };
    let span = run.makespan();
    Ok(ClusterRun {
        mean_queue: if span > 0.0 { queue_area / span } else { 0.0 },
        ..run
    })
}

/// A run's invariants, checked in debug builds and by the tests: each job starts no
/// earlier than it arrives, on as many distinct nodes of the cluster as it has tasks,
/// receives exactly the CPU time it needs alone (work is conserved through every change of
/// load) and never runs faster than alone; on every node the parallel tasks never exceed
/// MPL_paral, nor their memory the node's.
pub fn check_run(setup: &Setup, jobs: &[ParallelJob], run: &ClusterRun) {
    let hw = &setup.hardware;
    let mut on_node: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new(); hw.nodes as usize];
    for (i, (job, o)) in jobs.iter().zip(&run.jobs).enumerate() {
        assert!(
            o.start >= job.arrival,
            "job {i} starts at {} before it arrives at {}",
            o.start,
            job.arrival
        );
        let mut nodes = o.nodes.clone();
        nodes.sort_unstable();
        nodes.dedup();
        assert!(
            nodes.len() == o.nodes.len()
                && nodes.len() == job.app.tasks as usize
                && nodes.iter().all(|&n| n < hw.nodes),
            "job {i} runs on nodes {:?}: not {} distinct nodes of the {}",
            o.nodes,
            job.app.tasks,
            hw.nodes
        );
        let need = job.app.cpu_time();
        assert!(
            (o.cpu_time - need).abs() < 1e-6 * need.max(1.0),
            "job {i} received {} s of CPU, not the {need} s it needs",
            o.cpu_time
        );
        assert!(
            o.exec() >= job.app.exec * (1.0 - 1e-9),
            "job {i} ran {} s, faster than alone ({} s)",
            o.exec(),
            job.app.exec
        );
        for &n in &nodes {
            on_node[n as usize].push((o.start, o.end, job.app.memory_mb));
        }
    }
    for (n, held) in on_node.iter().enumerate() {
        let tasks = held.iter().map(|&(start, end, _)| (start, end, 1.0));
        if let Err(o) = crate::occupancy::check(tasks, hw.mpl as f64) {
            panic!(
                "t={}: node {n} runs {} parallel tasks, above MPL_paral {}",
                o.at, o.held, o.capacity
            );
        }
        if let Err(o) = crate::occupancy::check(held.iter().copied(), hw.memory_mb) {
            panic!(
                "t={}: node {n}'s parallel tasks hold {} MB of its {} MB",
                o.at, o.held, o.capacity
            );
        }
    }
}

impl<'j> Cluster<'j> {
    /// An idle cluster of `setup`'s nodes, before the first of `jobs` arrives, in the
    /// buffers `b`.
    fn new(setup: &Setup, jobs: &'j [ParallelJob], mut b: Buffers) -> Self {
        let count = setup.hardware.nodes as usize;
        b.nodes.clear();
        b.nodes.resize(count, Node::default());
        setup.truth.speeds_into(setup.hardware.nodes, &mut b.speeds);
        b.sessions.clear();
        b.sessions.resize(count, None);
        b.running.clear();
        b.queue.clear();
        b.events.clear();
        b.outcomes.clear();
        b.outcomes.resize(jobs.len(), None);
        b.generation.clear();
        b.generation.resize(jobs.len(), 0);
        b.started.clear();
        b.running_lists.resize(jobs.len(), Vec::new());
        b.outcome_lists.resize(jobs.len(), Vec::new());
        Cluster {
            setup: *setup,
            jobs,
            state: b,
            passes: 0,
        }
    }
}

impl Cluster<'_> {
    /// The state at `now` as an observer sees it.
    fn snapshot(&self, now: f64) -> Snapshot<'_> {
        let running = self
            .state
            .running
            .iter()
            .map(|r| {
                let app = &self.jobs[r.job].app;
                let outcome = self.state.outcomes[r.job].as_ref().expect("started");
                RunningView {
                    job: r.job,
                    start: outcome.start,
                    nodes: r.nodes.clone(),
                    exec_cur: now - outcome.start,
                    cpu_cur: r.cpu_time + app.tasks as f64 * app.cpu * r.rate * (now - r.last),
                }
            })
            .collect();
        Snapshot {
            now,
            setup: &self.setup,
            jobs: self.jobs,
            nodes: &self.state.nodes,
            running,
            queue: &self.state.queue,
        }
    }

    /// Ends running job `job` at `now`, releasing its tasks.
    fn complete(&mut self, job: usize, now: f64) {
        let i = self
            .state
            .running
            .iter()
            .position(|r| r.job == job)
            .expect("completing a running job");
        let mut r = self.state.running.swap_remove(i);
        let app = self.jobs[job].app;
        r.cpu_time += app.tasks as f64 * app.cpu * r.rate * (now - r.last);
        for &n in &r.nodes {
            self.state.nodes[n as usize].remove_task(&app);
        }
        let o = self.state.outcomes[job].as_mut().expect("started");
        o.end = now;
        o.cpu_time = r.cpu_time;
        self.state.running_lists[job] = r.nodes;
    }

    /// Records `job` as started at `now` on `on` (the pass already placed its tasks).
    fn start(&mut self, job: usize, on: &[u32], now: f64) {
        let app = self.jobs[job].app;
        let mut kept = std::mem::take(&mut self.state.outcome_lists[job]);
        kept.clear();
        kept.extend_from_slice(on);
        let mut nodes = std::mem::take(&mut self.state.running_lists[job]);
        nodes.clear();
        nodes.extend_from_slice(on);
        self.state.outcomes[job] = Some(JobOutcome {
            arrival: self.jobs[job].arrival,
            start: now,
            end: f64::NAN,
            cpu_time: 0.0,
            nodes: kept,
        });
        // Rate 0 until `update_rates` sets the real one and pushes the completion.
        self.state.running.push(Running {
            job,
            nodes,
            remaining: app.exec,
            rate: 0.0,
            last: now,
            generation: self.state.generation[job],
            cpu_time: 0.0,
        });
    }

    /// Brings every running job whose rate changed up to date and moves its completion.
    fn update_rates(&mut self, now: f64) {
        for r in &mut self.state.running {
            // The true rate: the scheduler's projections below use the model's.
            let new = self
                .setup
                .truth
                .rate(&self.state.nodes, &self.state.speeds, &r.nodes);
            if new == r.rate {
                continue;
            }
            let app = self.jobs[r.job].app;
            let progress = r.rate * (now - r.last);
            r.remaining = (r.remaining - progress).max(0.0);
            r.cpu_time += app.tasks as f64 * app.cpu * progress;
            r.last = now;
            r.rate = new;
            self.state.generation[r.job] += 1;
            r.generation = self.state.generation[r.job];
            self.state.events.push(Event {
                t: now + r.remaining / new,
                kind: 1,
                id: r.job as u32,
                generation: r.generation,
            });
        }
    }

    /// One pass of the job selection policy; whether any job started.
    fn schedule(&mut self, now: f64) -> bool {
        self.passes += 1;
        // Entries past the running jobs keep their buffers for later passes.
        let mut projected = std::mem::take(&mut self.state.projected);
        for (i, r) in self.state.running.iter().enumerate() {
            // Progress so far at the rate that held; the rest at the rate the nodes give now
            // (this instant's ends and starts may have changed it).
            let end =
                now + (r.remaining - r.rate * (now - r.last)).max(0.0) / rate(&self.state.nodes, &r.nodes);
            let app = self.jobs[r.job].app;
            match projected.get_mut(i) {
                Some(p) => {
                    (p.end, p.app) = (end, app);
                    p.nodes.clone_from(&r.nodes);
                }
                None => projected.push(Projected {
                    end,
                    app,
                    nodes: r.nodes.clone(),
                }),
            }
        }
        let mut started = std::mem::take(&mut self.state.started);
        started.clear();
        pass(
            &self.setup,
            self.jobs,
            &mut self.state.nodes,
            &mut self.state.queue,
            &projected[..self.state.running.len()],
            now,
            &mut self.state.scratch,
            &mut started,
        );
        for (job, on) in started.iter() {
            self.start(job, on, now);
        }
        let any = !started.is_empty();
        self.state.started = started;
        self.state.projected = projected;
        any
    }
}
