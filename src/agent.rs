//! A learning agent at the scheduler's seat: episodes of the engine in which an outside
//! agent (the Python package's Gymnasium environment) chooses which waiting job starts
//! next.
//!
//! An episode is `jobs` consecutive jobs of a workload (a trace, a resampled trace or a
//! model, drawn with the episode's seed), their submit times shifted so that the first
//! arrives at 0 on an empty machine. Whenever jobs wait and none is chosen, the engine
//! stops and the agent picks one of the first `window` waiting jobs, in arrival order (the
//! valid actions are always a prefix `0..valid`). A chosen job that fits starts at once; one
//! that does not is reserved and starts as soon as enough processors are free, time moving
//! on meanwhile; with `backfill`, other waiting jobs start ahead of it by EASY's rule (they
//! fit now, and end by its shadow time by their estimates or use only processors it leaves
//! free). The episode ends when every job has ended; its reward is then known.
//!
//! Observation: a `window` x [`FEATURES`] matrix, one row per slot, in the order of
//! [`FEATURE_NAMES`]: whether the slot holds a job; the job's wait so far and its
//! estimate, in hours; its processors, as a fraction of the machine; whether it fits in
//! the free processors now; the share of the window's jobs that belong to its user; and,
//! the same on every row holding a job, the free processors as a fraction of the machine and
//! the waiting jobs divided by `window`. Empty slots are all zero.
//!
//! On a machine of one partition whose nodes describe memory or GPUs (or are whole-node),
//! jobs are placed on its nodes as the node schedulers place them (best fit), a job fits
//! when its nodes can hold its request, and backfilling is EASY on nodes
//! (`crate::sched::nodes`). The observation then has [`NODE_FEATURE_NAMES`]: four more
//! columns, the job's request and the free resources as shares of the partition's memory
//! and GPUs (0 where its nodes describe none).

use crate::params::ParamError;
use std::path::Path;

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

use crate::Time;
use crate::experiment::prepare::PreparedWorkload;
use crate::experiment::rigid::{Source, WorkloadSpec};
use crate::experiment::{Params, Shared, Value};
use crate::metrics::bsld;
use crate::sched::BackfillOrder;
use crate::sched::easy_backfills;
use crate::sched::nodes::{NodePolicy, NodeScheduler};
use crate::seed::mix64;
use crate::sim::{Engine, Run, SchedCtx, Scheduler, UserEstimates};
use crate::workload::{JobId, Jobs};

/// Features per waiting job in an observation.
pub const FEATURES: usize = 8;

/// The observation's columns on a partition of nodes: [`FEATURE_NAMES`], then the job's
/// memory and GPUs and the memory and GPUs free, each a share of the partition's.
pub const NODE_FEATURE_NAMES: [&str; FEATURES + 4] = [
    "present",
    "wait_hours",
    "estimate_hours",
    "procs_share",
    "fits_now",
    "user_share",
    "free_share",
    "queue_per_window",
    "memory_share",
    "gpus_share",
    "free_memory_share",
    "free_gpus_share",
];

/// The observation's columns (see the module docs): the first of [`NODE_FEATURE_NAMES`].
pub const FEATURE_NAMES: [&str; FEATURES] = {
    let mut names = [""; FEATURES];
    let mut i = 0;
    while i < FEATURES {
        names[i] = NODE_FEATURE_NAMES[i];
        i += 1;
    }
    names
};

/// What an episode's reward measures; it is paid once, at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reward {
    /// Minus the mean bounded slowdown (10 s bound).
    Bsld,
    /// Minus the mean wait, in hours.
    Wait,
    /// The utilisation from the first arrival to the last end, in [0, 1].
    Utilization,
    /// Minus the episode's energy from the first arrival to the last end, kWh, on a
    /// machine that describes its power (`crate::energy`).
    Energy,
    /// Minus the episode's carbon, kg of CO2, with a carbon-intensity series.
    Carbon,
}

impl std::str::FromStr for Reward {
    type Err = ParamError;
    fn from_str(s: &str) -> Result<Self, ParamError> {
        match s {
            "bsld" => Ok(Reward::Bsld),
            "wait" => Ok(Reward::Wait),
            "utilization" => Ok(Reward::Utilization),
            "energy" => Ok(Reward::Energy),
            "carbon" => Ok(Reward::Carbon),
            other => Err(ParamError::BadValue {
                key: "reward".into(),
                value: other.into(),
                expected: "bsld, wait, utilization, energy or carbon".into(),
            }),
        }
    }
}

/// The shape of an environment's episodes.
#[derive(Clone, Copy, Debug)]
pub struct EpisodeOptions {
    /// Waiting jobs the agent chooses among (the action space).
    pub window: usize,
    /// Jobs per episode.
    pub jobs: usize,
    /// EASY backfilling while a chosen job waits for processors.
    pub backfill: bool,
    pub reward: Reward,
}

/// The waiting queue in arrival order, and the job the agent chose.
#[derive(Debug, Default)]
pub struct AgentQueue {
    waiting: Vec<JobId>,
    chosen: Option<JobId>,
    backfill: bool,
    backfilled: u64,
    /// On a partition of nodes: its nodes, which place the jobs and backfill on them.
    nodes: Option<NodeScheduler>,
}

impl AgentQueue {
    /// Whether the engine must stop for the agent: jobs wait and none is chosen.
    pub fn needs_choice(&self) -> bool {
        self.chosen.is_none() && !self.waiting.is_empty()
    }

    /// Waiting jobs in arrival order (the chosen one among them until it starts).
    pub fn waiting_jobs(&self) -> &[JobId] {
        &self.waiting
    }

    fn start(&mut self, ctx: &mut SchedCtx, i: usize) {
        ctx.start(self.waiting.remove(i));
    }
}

impl Scheduler for AgentQueue {
    fn reset(&mut self, jobs: &Jobs, procs: u32) {
        self.waiting.clear();
        self.chosen = None;
        self.backfilled = 0;
        if let Some(nodes) = &mut self.nodes {
            nodes.reset(jobs, procs);
        }
    }

    fn on_arrival(&mut self, job: JobId, _ctx: &SchedCtx) {
        self.waiting.push(job);
    }

    fn on_termination(&mut self, job: JobId, ctx: &SchedCtx) {
        if let Some(nodes) = &mut self.nodes {
            nodes.on_termination(job, ctx);
        }
    }

    fn on_prediction_changed(&mut self, job: JobId, old: Time, ctx: &SchedCtx) {
        if let Some(nodes) = &mut self.nodes {
            nodes.on_prediction_changed(job, old, ctx);
        }
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        let Some(chosen) = self.chosen else { return };
        if let Some(nodes) = &mut self.nodes {
            let (started, backfilled) = nodes.agent_pass(ctx, chosen, &self.waiting, self.backfill);
            self.backfilled += backfilled;
            self.waiting.retain(|&j| ctx.start_time(j).is_none());
            if started {
                self.chosen = None;
            }
            return;
        }
        let need = ctx.procs(chosen);
        let at = self
            .waiting
            .iter()
            .position(|&j| j == chosen)
            .expect("the chosen job waits");
        if need <= ctx.free() {
            self.start(ctx, at);
            self.chosen = None;
            return;
        }
        if !self.backfill {
            return;
        }
        let (shadow, mut extra) = ctx.shadow(need);
        let mut i = 0;
        while i < self.waiting.len() && ctx.free() > 0 {
            let job = self.waiting[i];
            if job != chosen && easy_backfills(ctx, job, shadow, &mut extra) {
                self.start(ctx, i);
                self.backfilled += 1;
            } else {
                i += 1;
            }
        }
    }

    fn backfilled(&self) -> u64 {
        self.backfilled
    }

    fn waiting(&self) -> usize {
        self.waiting.len()
    }
}

/// The result of one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentStep {
    /// The episode is over (every job has ended).
    pub terminated: bool,
    /// The reward: 0 until the episode ends.
    pub reward: f64,
    /// The action named an empty slot, so the first waiting job was chosen instead.
    pub invalid: bool,
}

/// An environment: a workload source and the episode under way.
pub struct Environment {
    /// The workload episodes are drawn from, its trace read once.
    workload: PreparedWorkload,
    options: EpisodeOptions,
    engine: Engine,
    queue: AgentQueue,
    /// The episode's jobs (submit times from 0) and machine size.
    jobs: Jobs,
    procs: u32,
    /// The trace's time of the episode's time 0, for its carbon.
    origin: Time,
    run: Option<Run>,
    /// The reward, once the episode is over.
    outcome: Option<f64>,
    /// Choices made in this episode.
    pub steps: u64,
}

impl Environment {
    /// An environment over the workload `params` describe (the keys of a sweep's rigid
    /// run, without `scheduler` and `predictor`); relative trace paths start at `base_dir`.
    pub fn new(params: &Params, base_dir: &Path, options: EpisodeOptions) -> crate::Result<Environment> {
        let invalid = |m: String| crate::Error::Invalid(m);
        if options.window == 0 || options.window > 4096 {
            return Err(invalid(format!(
                "window = {}: expected 1 to 4096 waiting jobs",
                options.window
            )));
        }
        // An episode is a window of a workload, not a whole log: a million jobs bounds the
        // memory an episode takes (about 200 MB) and the time a reset takes.
        if options.jobs == 0 || options.jobs > 1_000_000 {
            return Err(invalid(format!(
                "episode_jobs = {}: expected 1 to 1000000",
                options.jobs
            )));
        }
        for key in ["scheduler", "predictor"] {
            if params.has(key) {
                return Err(invalid(format!(
                    "{key}: the agent schedules; an environment takes no {key}"
                )));
            }
        }
        if params.has("feedback") {
            return Err(invalid("feedback: not available in the environment yet".into()));
        }
        let mut params = params.clone();
        if params.has("model") && !params.has("jobs") {
            params.insert("jobs", Value::Int(options.jobs as i64));
        }
        let spec = WorkloadSpec::from_params(&params, crate::experiment::Sources::files(base_dir), None)?;
        // The environment schedules one partition: a pool of processors, or nodes.
        if let Some(m) = spec.machine() {
            let [p] = &m.partitions[..] else {
                return Err(invalid(format!(
                    "machine: the environment schedules one partition; this machine has {}",
                    m.partitions.len()
                )));
            };
            if p.cap_w.is_some()
                || p.cap_over_time.is_some()
                || p.switch_off.is_some()
                || p.scheduler.is_some()
            {
                return Err(invalid(
                    "machine: a partition under a power cap, switching nodes off or naming its scheduler is not \
                     available in the environment yet"
                        .into(),
                ));
            }
        }
        let carbon = match &spec.source {
            Source::Trace(t) => t.carbon.as_deref(),
            Source::Model(_) => None,
        };
        if carbon.is_some_and(|c| c.hold.is_some()) {
            return Err(invalid(
                "carbon_hold: not available in the environment yet".into(),
            ));
        }
        match options.reward {
            Reward::Energy if !spec.machine().is_some_and(|m| m.has_power()) => {
                return Err(invalid(
                    "reward = 'energy': needs a machine that describes its power (machine = \"FILE.toml\" whose \
                     node groups give idle_w and busy_w)"
                        .into(),
                ));
            }
            Reward::Carbon if carbon.is_none() => {
                return Err(invalid(
                    "reward = 'carbon': needs a carbon-intensity series (carbon = \"FILE.csv\", with a machine \
                     that describes its power)"
                        .into(),
                ));
            }
            _ => {}
        }
        let workload = spec.prepare(&mut Shared::new([&spec], true), None)?;
        match (&spec.source, workload.trace()) {
            (Source::Trace(t), Some(read)) if read.workload.jobs.len() < options.jobs => {
                return Err(invalid(format!(
                    "{}: {} jobs, fewer than an episode's {}; lower episode_jobs",
                    t.path.display(),
                    read.workload.jobs.len(),
                    options.jobs
                )));
            }
            (Source::Model(m), _) if (m.expected_jobs() as usize) < options.jobs => {
                return Err(invalid(format!(
                    "the model generates about {} jobs, fewer than an episode's {}",
                    m.expected_jobs(),
                    options.jobs
                )));
            }
            _ => {}
        }
        Ok(Environment {
            workload,
            options,
            engine: Engine::new().with_validation(cfg!(debug_assertions)),
            queue: AgentQueue {
                backfill: options.backfill,
                ..AgentQueue::default()
            },
            jobs: Jobs::default(),
            procs: 1,
            origin: 0,
            run: None,
            outcome: None,
            steps: 0,
        })
    }

    /// Starts the episode of `seed`: its workload and the window of jobs within it, then
    /// the engine up to the first choice.
    pub fn reset(&mut self, seed: u64) -> crate::Result<()> {
        let workload = self.workload.draw(mix64(seed))?;
        let n = workload.jobs.len();
        let want = self.options.jobs;
        if n < want {
            return Err(crate::Error::Invalid(format!(
                "{}: {n} jobs generated, fewer than an episode's {want}",
                workload.name
            )));
        }
        let first = (Xoshiro256PlusPlus::seed_from_u64(seed).next_u64() % (n - want + 1) as u64) as usize;
        let order: Vec<u32> = (first as u32..(first + want) as u32).collect();
        self.jobs = workload.jobs.gather(&order);
        let origin = self.jobs.submit[0];
        for s in &mut self.jobs.submit {
            *s -= origin;
        }
        self.origin = origin;
        self.procs = workload.procs;
        self.queue.nodes = self
            .workload
            .spec()
            .machine()
            .filter(|m| !m.is_plain_pool())
            .map(|m| {
                let requests = (0..want).map(|j| m.request(&self.jobs, j)).collect();
                NodeScheduler::new(
                    NodePolicy::Easy(BackfillOrder::Arrival),
                    m.partitions[0].pool(),
                    requests,
                )
            });
        let run = self
            .engine
            .begin(&self.jobs, self.procs, &mut self.queue, &mut UserEstimates, None);
        self.run = Some(run);
        self.outcome = None;
        self.steps = 0;
        self.run_to_choice();
        Ok(())
    }

    /// Advances the engine until the agent must choose, or to the episode's end.
    fn run_to_choice(&mut self) {
        let run = self.run.as_mut().expect("an episode under way");
        while !self.queue.needs_choice() {
            if !self
                .engine
                .advance(run, &self.jobs, &mut self.queue, &mut UserEstimates)
            {
                let outcome = self.engine.finish(run, &self.jobs, &self.queue);
                let (start, end) = (outcome.start, outcome.end);
                let by_jobs = reward(&self.jobs, self.procs, start, end, self.options.reward);
                self.outcome = Some(match by_jobs {
                    Some(r) => r,
                    None => {
                        let spec = self.workload.spec();
                        let machine = spec.machine().expect("checked when the environment was made");
                        // The episode's time 0 is the trace's `origin`.
                        let carbon = match &spec.source {
                            Source::Trace(t) => {
                                t.carbon.as_ref().map(|c| (&c.series, c.offset + self.origin))
                            }
                            Source::Model(_) => None,
                        };
                        let e = crate::energy::of_run(machine, &self.jobs, start, end, &[], carbon)
                            .expect("an episode's jobs all end");
                        match self.options.reward {
                            Reward::Energy => -e.energy_kwh,
                            _ => -e.carbon_kg.expect("checked when the environment was made"),
                        }
                    }
                });
                return;
            }
        }
    }

    /// Valid actions: slots `0..valid_actions()` hold waiting jobs.
    pub fn valid_actions(&self) -> usize {
        self.queue.waiting.len().min(self.options.window)
    }

    /// Whether the episode is over.
    pub fn done(&self) -> bool {
        self.outcome.is_some()
    }

    /// Chooses the job in slot `action` (the first waiting job if that slot is empty) and
    /// runs the engine to the next choice.
    ///
    /// # Panics
    /// Before [`Environment::reset`] or after the episode's end.
    pub fn step(&mut self, action: usize) -> AgentStep {
        assert!(
            self.run.is_some() && !self.done(),
            "step outside an episode: call reset"
        );
        let invalid = action >= self.valid_actions();
        let slot = if invalid { 0 } else { action };
        self.queue.chosen = Some(self.queue.waiting[slot]);
        self.engine.pass(&self.jobs, &mut self.queue, &mut UserEstimates);
        self.steps += 1;
        self.run_to_choice();
        AgentStep {
            terminated: self.done(),
            reward: self.outcome.unwrap_or(0.0),
            invalid,
        }
    }

    /// The observation's columns: [`NODE_FEATURE_NAMES`] on a partition of nodes, else
    /// [`FEATURE_NAMES`].
    pub fn features(&self) -> &'static [&'static str] {
        let machine = self.workload.spec().machine();
        if machine.is_some_and(|m| !m.is_plain_pool()) {
            &NODE_FEATURE_NAMES
        } else {
            &FEATURE_NAMES
        }
    }

    /// Writes the observation, `window` rows of [`Environment::features`], into `out`.
    pub fn observe(&mut self, out: &mut [f32]) {
        let (k, width) = (self.options.window, self.features().len());
        assert_eq!(
            out.len(),
            k * width,
            "an observation has window x features values"
        );
        out.fill(0.0);
        if self.done() {
            return;
        }
        let ctx = self.engine.view(&self.jobs);
        let (now, free, total) = (ctx.now(), ctx.free(), ctx.total() as f32);
        let waiting = &self.queue.waiting;
        let shown = &waiting[..waiting.len().min(k)];
        let hours = |t: Time| t as f32 / 3600.0;
        let nodes = self.queue.nodes.as_ref();
        // Shares of the partition's memory and GPUs, 0 where its nodes describe none.
        let share = |part: u64, whole: u64| {
            if whole == 0 {
                0.0
            } else {
                part as f32 / whole as f32
            }
        };
        let (free_memory, memory) = nodes.map_or((0, 0), |n| n.pool().memory_kb());
        let (free_gpus, gpus) = nodes.map_or((0, 0), |n| n.pool().gpus());
        for (slot, &job) in shown.iter().enumerate() {
            let j = job.index();
            let user = self.jobs.user[j];
            let same_user = shown.iter().filter(|o| self.jobs.user[o.index()] == user).count();
            let procs = self.jobs.procs[j];
            let fits = match nodes {
                Some(n) => n.pool().fits(n.request(job)),
                None => procs <= free,
            };
            let row = &mut out[slot * width..(slot + 1) * width];
            row[..FEATURES].copy_from_slice(&[
                1.0,
                hours(now - self.jobs.submit[j]),
                hours(ctx.prediction(job)),
                procs as f32 / total,
                f32::from(u8::from(fits)),
                same_user as f32 / shown.len() as f32,
                free as f32 / total,
                waiting.len() as f32 / k as f32,
            ]);
            if let Some(n) = nodes {
                let r = n.request(job);
                row[FEATURES..].copy_from_slice(&[
                    share(r.units as u64 * r.memory_kb, memory),
                    share(r.units as u64 * r.gpus as u64, gpus),
                    share(free_memory, memory),
                    share(free_gpus, gpus),
                ]);
            }
        }
    }

    /// The episode's jobs (submit times from 0) and machine size.
    pub fn episode(&self) -> (&Jobs, u32) {
        (&self.jobs, self.procs)
    }

    /// Start and end of each of the episode's jobs (unset, `Time::MIN`, until known).
    pub fn schedule(&mut self) -> (Vec<Time>, Vec<Time>) {
        let n = self.jobs.len();
        let ctx = self.engine.view(&self.jobs);
        let start: Vec<Time> = (0..n)
            .map(|j| ctx.start_time(JobId(j as u32)).unwrap_or(Time::MIN))
            .collect();
        let end = (0..n)
            .map(|j| {
                if start[j] == Time::MIN {
                    Time::MIN
                } else {
                    start[j] + self.jobs.runtime[j]
                }
            })
            .collect();
        (start, end)
    }
}

/// The reward of a finished episode, where the jobs' times give it (`None` for the
/// machine's energy and carbon).
fn reward(jobs: &Jobs, procs: u32, start: &[Time], end: &[Time], what: Reward) -> Option<f64> {
    let n = jobs.len() as f64;
    Some(match what {
        Reward::Bsld => {
            -(0..jobs.len())
                .map(|j| bsld(end[j] - jobs.submit[j], jobs.runtime[j]))
                .sum::<f64>()
                / n
        }
        Reward::Wait => {
            -(0..jobs.len())
                .map(|j| (start[j] - jobs.submit[j]) as f64)
                .sum::<f64>()
                / n
                / 3600.0
        }
        Reward::Energy | Reward::Carbon => return None,
        Reward::Utilization => {
            let work: f64 = (0..jobs.len())
                .map(|j| jobs.runtime[j] as f64 * jobs.procs[j] as f64)
                .sum();
            let span = end.iter().copied().max().unwrap_or(0) - jobs.submit[0];
            if span <= 0 {
                1.0
            } else {
                work / (procs as f64 * span as f64)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::SchedulerKind;

    /// Episodes of the Lublin model's first 3,000 jobs, with `extra` parameters.
    fn lublin_with(extra: &[(&str, Value)], jobs: usize, window: usize, backfill: bool) -> Environment {
        let mut params = Params::default();
        params.insert("model", Value::Str("lublin".into()));
        params.insert("jobs", Value::Int(3000));
        for (key, value) in extra {
            params.insert(*key, value.clone());
        }
        let options = EpisodeOptions {
            window,
            jobs,
            backfill,
            reward: Reward::Bsld,
        };
        Environment::new(&params, Path::new(""), options).unwrap()
    }

    fn lublin(jobs: usize, window: usize, backfill: bool) -> Environment {
        lublin_with(&[("procs", Value::Int(64))], jobs, window, backfill)
    }

    /// Plays an episode choosing `pick(valid)` at each step; returns the start times.
    fn play(env: &mut Environment, seed: u64, mut pick: impl FnMut(usize) -> usize) -> Vec<Time> {
        env.reset(seed).unwrap();
        let mut steps = 0;
        while !env.done() {
            let valid = env.valid_actions();
            assert!(valid >= 1, "a choice with no job waiting");
            let step = env.step(pick(valid));
            assert!(!step.invalid);
            assert_eq!(step.reward != 0.0, step.terminated);
            steps += 1;
        }
        assert_eq!(env.steps, steps);
        env.schedule().0
    }

    /// Always choosing the first waiting job is FCFS; with backfilling, EASY: the engine's
    /// own schedulers on the episode's jobs give the same start times, job by job.
    #[test]
    fn choosing_the_head_is_fcfs_and_with_backfilling_easy() {
        for (backfill, kind) in [(false, SchedulerKind::Fcfs), (true, SchedulerKind::Easy)] {
            let mut env = lublin(400, 16, backfill);
            for seed in 0..4 {
                let start = play(&mut env, seed, |_| 0);
                let (jobs, procs) = env.episode();
                let mut engine = Engine::new();
                let expected = kind.build().run(&mut engine, jobs, procs).start.to_vec();
                assert!(start == expected, "{kind} seed {seed}");
            }
        }
    }

    /// Random choices: every job starts once, at or after its submit, the reward is the
    /// episode's mean bounded slowdown, and the same seed replays the same episode.
    #[test]
    fn random_choices_give_a_valid_schedule() {
        let mut env = lublin(300, 8, true);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let a = play(&mut env, 11, |valid| (rng.next_u64() % valid as u64) as usize);
        let jobs = env.episode().0.clone();
        assert!((0..jobs.len()).all(|j| a[j] >= jobs.submit[j]));
        let (start, end) = env.schedule();
        let mean_bsld = (0..jobs.len())
            .map(|j| bsld(end[j] - jobs.submit[j], jobs.runtime[j]))
            .sum::<f64>()
            / jobs.len() as f64;
        assert_eq!(env.outcome, Some(-mean_bsld));
        assert!(start.iter().zip(&end).all(|(s, e)| s <= e));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let b = play(&mut env, 11, |valid| (rng.next_u64() % valid as u64) as usize);
        assert_eq!(a, b);
    }

    /// An empty slot counts as the first waiting job, and says so.
    #[test]
    fn an_invalid_action_chooses_the_head() {
        let mut env = lublin(50, 4, false);
        env.reset(3).unwrap();
        let step = env.step(99);
        assert!(step.invalid);
        let mut other = lublin(50, 4, false);
        other.reset(3).unwrap();
        other.step(0);
        assert_eq!(env.schedule(), other.schedule());
    }

    /// The first observation of an episode: one job waiting on an empty machine.
    #[test]
    fn the_first_observation_by_hand() {
        let mut env = lublin(50, 4, false);
        env.reset(5).unwrap();
        let mut obs = vec![0.0f32; 4 * FEATURES];
        env.observe(&mut obs);
        let (jobs, procs) = env.episode();
        assert_eq!(env.valid_actions(), 1);
        let row = &obs[..FEATURES];
        assert_eq!(row[0], 1.0);
        assert_eq!(row[1], 0.0, "the first job has just arrived");
        assert_eq!(row[2], jobs.estimate[0].max(1) as f32 / 3600.0);
        assert_eq!(row[3], jobs.procs[0] as f32 / procs as f32);
        assert_eq!((row[4], row[5], row[6]), (1.0, 1.0, 1.0));
        assert_eq!(row[7], 0.25);
        assert!(obs[FEATURES..].iter().all(|&v| v == 0.0));
    }

    #[test]
    fn bad_options_are_refused() {
        let mut params = Params::default();
        params.insert("model", Value::Str("lublin".into()));
        let options = EpisodeOptions {
            window: 0,
            jobs: 10,
            backfill: false,
            reward: Reward::Bsld,
        };
        let e = Environment::new(&params, Path::new(""), options).err().unwrap();
        assert!(e.to_string().contains("window = 0"), "{e}");
        params.insert("scheduler", Value::Str("easy".into()));
        let options = EpisodeOptions { window: 4, ..options };
        let e = Environment::new(&params, Path::new(""), options).err().unwrap();
        assert!(e.to_string().contains("takes no scheduler"), "{e}");
        assert!("slowdown".parse::<Reward>().is_err());
    }

    /// The energy and carbon rewards, by hand: two one-node jobs of 100 s on one node at
    /// 100 W idle and 300 W busy, submitted at 1,000 and 1,050 s on the trace's clock (the
    /// episode's 0 and 50 s). The first runs 0-100 s, the second 100-200 s: 300 W for 200 s,
    /// 60 kJ. The carbon series is 100 g/kWh until 1,100 s and 400 g/kWh after, so the
    /// episode's carbon reads the trace's clock: 300 W x 100 s at 100 and 300 W x 100 s at
    /// 400 g/kWh. Without a power model, or a series, the reward is refused.
    #[test]
    fn energy_and_carbon_rewards_by_hand() {
        let dir = std::env::temp_dir().join(format!("schedlab-agent-energy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let trace = dir.join("two.swf");
        std::fs::write(
            &trace,
            "; MaxProcs: 1\n1 1000 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n\
             2 1050 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n",
        )
        .unwrap();
        let machine = dir.join("one.toml");
        std::fs::write(
            &machine,
            "[[partition]]\nname = \"p\"\ndefault = true\n[[partition.nodes]]\ncount = 1\ncores = 1\nidle_w = 100\nbusy_w = 300\n",
        )
        .unwrap();
        let series = dir.join("i.csv");
        std::fs::write(&series, "time,gco2_per_kwh\n0,100\n1100,400\n").unwrap();
        let env = |reward: Reward, with_machine: bool, with_carbon: bool| {
            let mut params = Params::default();
            params.insert("trace", Value::Str(trace.display().to_string()));
            if with_machine {
                params.insert("machine", Value::Str(machine.display().to_string()));
            }
            if with_carbon {
                params.insert("carbon", Value::Str(series.display().to_string()));
            }
            let options = EpisodeOptions {
                window: 2,
                jobs: 2,
                backfill: false,
                reward,
            };
            Environment::new(&params, Path::new(""), options)
        };
        let mut energy = env(Reward::Energy, true, false).unwrap();
        play(&mut energy, 0, |_| 0);
        assert_eq!(energy.schedule(), (vec![0, 100], vec![100, 200]));
        assert!((energy.outcome.unwrap() + 60_000.0 / 3.6e6).abs() < 1e-12);
        let mut carbon = env(Reward::Carbon, true, true).unwrap();
        play(&mut carbon, 0, |_| 0);
        let grams = 300.0 * 100.0 / 3.6e6 * 100.0 + 300.0 * 100.0 / 3.6e6 * 400.0;
        assert!(
            (carbon.outcome.unwrap() + grams / 1e3).abs() < 1e-12,
            "{:?}",
            carbon.outcome
        );
        let e = env(Reward::Energy, false, false).err().unwrap().to_string();
        assert!(e.contains("reward = 'energy': needs a machine"), "{e}");
        let e = env(Reward::Carbon, true, false).err().unwrap().to_string();
        assert!(
            e.contains("reward = 'carbon': needs a carbon-intensity series"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A scratch directory holding `files` (name, text), for the tests on nodes.
    fn scratch(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("schedlab-agent-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (file, text) in files {
            std::fs::write(dir.join(file), text).unwrap();
        }
        dir
    }

    /// The Lublin model (64 processors) on `machine`, its memory drawn at `pressure`.
    fn lublin_on(machine: &Path, pressure: f64, jobs: usize, window: usize, backfill: bool) -> Environment {
        let extra = [
            ("machine", Value::Str(machine.display().to_string())),
            ("memory_pressure", Value::Float(pressure)),
        ];
        lublin_with(&extra, jobs, window, backfill)
    }

    /// On nodes where memory binds (8 nodes of 8 cores and 32 GB, memory drawn at pressure
    /// 1.5), always choosing the first waiting job is FCFS on nodes and with backfilling
    /// EASY on nodes: the node schedulers on the episode's jobs give the same start times.
    #[test]
    fn on_nodes_choosing_the_head_is_fcfs_and_easy_on_nodes() {
        let nodes = "[[partition]]\nname = \"p\"\ndefault = true\n[[partition.nodes]]\ncount = 8\ncores = 8\nmemory_gb = 32\n";
        let dir = scratch("nodes-head", &[("m.toml", nodes)]);
        let machine = crate::machine::Machine::read(&dir.join("m.toml")).unwrap();
        for (backfill, kind) in [(false, SchedulerKind::Fcfs), (true, SchedulerKind::Easy)] {
            let mut env = lublin_on(&dir.join("m.toml"), 1.5, 400, 16, backfill);
            assert_eq!(env.features(), NODE_FEATURE_NAMES);
            let mut memory_binds = false;
            for seed in 0..3 {
                let start = play(&mut env, seed, |_| 0);
                let (jobs, procs) = env.episode();
                let requests = (0..jobs.len()).map(|j| machine.request(jobs, j)).collect();
                let mut nodes = NodeScheduler::new(
                    kind.node_policy().unwrap(),
                    machine.partitions[0].pool(),
                    requests,
                );
                let expected = Engine::new().run(jobs, procs, &mut nodes).start.to_vec();
                assert!(start == expected, "{kind} seed {seed}");
                memory_binds |= kind.build().run(&mut Engine::new(), jobs, procs).start != &expected[..];
            }
            assert!(memory_binds, "{kind}: the pool's schedule every time");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Nodes whose memory never binds (64 one-core nodes of 1 TB, memory drawn at pressure
    /// 1: 16 GB a processor at the median) are the pool of their cores: random choices give
    /// the same schedule and, column for column, the pool's observation at every step.
    #[test]
    fn on_nodes_where_memory_never_binds_the_episode_is_the_pools() {
        let nodes = "[[partition]]\nname = \"p\"\ndefault = true\n[[partition.nodes]]\ncount = 64\ncores = 1\nmemory_gb = 1024\n";
        let dir = scratch("nodes-pool", &[("m.toml", nodes)]);
        let mut on_nodes = lublin_on(&dir.join("m.toml"), 1.0 / 64.0, 300, 8, true);
        assert!(on_nodes.features() == NODE_FEATURE_NAMES);
        let mut pool = lublin(300, 8, true);
        let (mut a, mut b) = (vec![0.0; 8 * (FEATURES + 4)], vec![0.0; 8 * FEATURES]);
        for seed in 0..3 {
            on_nodes.reset(seed).unwrap();
            pool.reset(seed).unwrap();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            while !pool.done() {
                on_nodes.observe(&mut a);
                pool.observe(&mut b);
                for (row, expected) in a.chunks(FEATURES + 4).zip(b.chunks(FEATURES)) {
                    assert_eq!(&row[..FEATURES], expected);
                }
                let action = (rng.next_u64() % pool.valid_actions() as u64) as usize;
                assert_eq!(on_nodes.step(action), pool.step(action));
            }
            assert!(on_nodes.done());
            assert_eq!(on_nodes.schedule(), pool.schedule());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The observation on nodes by hand: two nodes of 4 cores, 8 GB and a GPU. Three jobs
    /// arrive at 0: A, 2 processors of 4 GB; B, 4 processors of 4 GB (all 16 GB); C, one
    /// processor without memory, with a GPU. On the empty machine every job fits; A asks
    /// half the memory, B all of it, C half the GPUs. Once A runs (on one node, whose memory
    /// it fills), B does not fit though 6 of 8 cores are free, C does, and half the memory
    /// is free.
    #[test]
    fn the_observation_on_nodes_by_hand() {
        let nodes = "[[partition]]\nname = \"p\"\ndefault = true\n[[partition.nodes]]\ncount = 2\ncores = 4\nmemory_gb = 8\ngpus = 1\n";
        let trace = "; MaxProcs: 8\n; Extension: GPUs\n\
            1 0 -1 100 2 -1 -1 2 100 4194304 1 1 -1 -1 -1 -1 -1 -1 0\n\
            2 0 -1 100 4 -1 -1 4 100 4194304 1 1 -1 -1 -1 -1 -1 -1 0\n\
            3 0 -1 100 1 -1 -1 1 100 -1 1 2 -1 -1 -1 -1 -1 -1 1\n";
        let dir = scratch("nodes-by-hand", &[("m.toml", nodes), ("t.swf", trace)]);
        let mut params = Params::default();
        params.insert("trace", Value::Str(dir.join("t.swf").display().to_string()));
        params.insert("machine", Value::Str(dir.join("m.toml").display().to_string()));
        let options = EpisodeOptions {
            window: 4,
            jobs: 3,
            backfill: false,
            reward: Reward::Bsld,
        };
        let mut env = Environment::new(&params, Path::new(""), options).unwrap();
        env.reset(0).unwrap();
        let width = FEATURES + 4;
        let mut obs = vec![0.0f32; 4 * width];
        env.observe(&mut obs);
        let column = |obs: &[f32], c: usize| obs.chunks(width).map(|row| row[c]).collect::<Vec<f32>>();
        // fits_now, free_share, memory_share, gpus_share, free_memory_share, free_gpus_share.
        assert_eq!(column(&obs, 4), [1.0, 1.0, 1.0, 0.0]);
        assert_eq!(column(&obs, 6), [1.0, 1.0, 1.0, 0.0]);
        assert_eq!(column(&obs, 8), [0.5, 1.0, 0.0, 0.0]);
        assert_eq!(column(&obs, 9), [0.0, 0.0, 0.5, 0.0]);
        assert_eq!(column(&obs, 10), [1.0, 1.0, 1.0, 0.0]);
        assert_eq!(column(&obs, 11), [1.0, 1.0, 1.0, 0.0]);
        env.step(0);
        env.observe(&mut obs);
        assert_eq!(env.valid_actions(), 2);
        assert_eq!(column(&obs, 4), [0.0, 1.0, 0.0, 0.0]);
        assert_eq!(column(&obs, 6), [0.75, 0.75, 0.0, 0.0]);
        assert_eq!(column(&obs, 8), [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(column(&obs, 10), [0.5, 0.5, 0.0, 0.0]);
        assert_eq!(column(&obs, 11), [1.0, 1.0, 0.0, 0.0]);
        // Several partitions are refused, naming the count.
        let two = format!(
            "{nodes}[[partition]]\nname = \"q\"\nswf = [2]\n[[partition.nodes]]\ncount = 1\ncores = 1\n"
        );
        std::fs::write(dir.join("two.toml"), two).unwrap();
        params.insert("machine", Value::Str(dir.join("two.toml").display().to_string()));
        let e = Environment::new(&params, Path::new(""), options)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("the environment schedules one partition; this machine has 2"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
