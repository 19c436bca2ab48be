//! The genetic-algorithm scheduler of Lee & Snavely (section 6): at each scheduling point it
//! evolves an ordering of the waiting queue that maximises aggregate utility, then starts
//! the jobs that ordering starts now.
//!
//! - Fitness of an ordering: the aggregate utility of scheduling the queue in that order by
//!   EASY backfilling from the current machine state, with every job (running or waiting)
//!   taking its predicted runtime: the requested time (the estimate, at least 1 s, as for
//!   EASY) unless the run names a runtime predictor (`--predictor`, as for SJBF): a
//!   projection of the future.
//!   Each job earns u(projected start + requested time - submit).
//! - Initial population: the seeds sorted by arrival; by priority, then arrival; by current
//!   utility per node-hour; by absolute current utility (both descending, ties by arrival;
//!   "current utility" = what the job earns if started now), cut to the population size,
//!   then random permutations.
//! - Each generation keeps the fittest ordering (elitism of one) and breeds the rest: two
//!   parents by binary tournament (the fitter of two drawn at random, ties to the earlier),
//!   the zipper crossover of section 6 (alternately the next job of each parent not yet in
//!   the child), and with probability `mutation` percent a swap of two random positions.
//!   The paper adapted the GA of Russell & Norvig's code, which selects in proportion to
//!   fitness; aggregate utilities of orderings differ by a few percent, so proportional
//!   selection barely selects, and the tournament is scale-free.
//! - Budget: generations, never wall-clock time. Defaults: population 20, 100 generations,
//!   mutation 10% (the textbook code's rate): 20 + 100 x 19 = 1,920 evaluations a decision.
//!
//! A decision's generations run on a team of rayon threads that stays hot from the first
//! generation to the last (`team.rs`): the calling thread draws each generation's random
//! choices (tournaments, mutations) with one seeded generator, in the serial order, and
//! every member breeds and projects the rows it claims. A row depends on those choices
//! alone, so the result is the same for any thread count. Buffers grow to the largest
//! queue seen and are then reused, so a warm decision allocates nothing.
//!
//! Islands (`ga(islands=K)`, not in the paper; K = 1, the default, is the paper's GA): K
//! populations of `population` rows evolve side by side from the same seed orderings and
//! their own random ones, each keeping its elite and breeding from its own rows. Every
//! `migration` generations (10 by default; 0: never), each island's first bred row is the
//! previous island's fittest row instead (a ring). The decision takes the fittest row of
//! all. A generation then has K times the rows to share among a team's threads, which is
//! what the variant is for (docs/performance.md, "Islands"); K is a parameter, never the
//! thread count, so the schedule is the same on any number of threads.
//!
//! Passes whose outcome cannot depend on the order are decided without evolving: when no
//! waiting job fits in the free processors (nothing starts), and when all of them fit
//! together (all start).

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

use std::fmt;

mod nodes;
mod team;

use nodes::NodeScratch;
pub use nodes::{NodesNow, RunningOnNodes};
use team::{Breeding, Shape, Team};

use super::{NodePolicy, SchedulerEntry, SchedulerKind};
use crate::Time;
use crate::call::{Call, CallError};
use crate::sim::{SchedCtx, Scheduler};
use crate::workload::UtilityFunction;
use crate::workload::{JobId, Jobs};

/// The GA's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GaParams {
    pub population: u32,
    pub generations: u32,
    /// Chance that a child gets a swap mutation, percent.
    pub mutation: u32,
    /// Which of several GA runs on the same workload and utility functions: 0 seeds the
    /// GA's random choices from the replication, as always; trial K > 0 from that seed
    /// mixed with K, so trials differ in the GA's own choices alone (Lee & Snavely's "runs
    /// on the same functions", `sweeps/lee-snavely-trials.toml`).
    pub trial: u32,
    /// Populations evolved side by side (module docs, "Islands"); 1 is the paper's GA.
    pub islands: u32,
    /// With more than one island, generations between migrations (0: never).
    pub migration: u32,
}

impl Default for GaParams {
    fn default() -> Self {
        GaParams::DEFAULT
    }
}

impl GaParams {
    /// The paper's: a population of 20 over 100 generations, 10% mutation.
    pub const DEFAULT: GaParams = GaParams {
        population: 20,
        generations: 100,
        mutation: 10,
        trial: 0,
        islands: 1,
        migration: 10,
    };

    /// Fitness evaluations of one decision.
    pub fn evaluations(&self) -> u64 {
        let island = self.population as u64 + self.generations as u64 * (self.population as u64 - 1);
        self.islands as u64 * island
    }
}

/// Smallest decision (population x queue length) evolved by a team of threads: below it
/// the hand-over between threads costs more than a generation's rows. On a lent 16-core
/// machine (docs/performance.md) 128 and 0 gave the same 16-thread time within noise, and
/// 512 took 1.9 times as long.
const TEAM_MIN_WORK: usize = 128;

/// A waiting job as the projection reads it.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    job: JobId,
    procs: u32,
    /// Requested time (the engine's prediction).
    request: Time,
    submit: Time,
}

/// What every evaluation of one decision shares: the machine now and the waiting jobs.
struct Snapshot<'a> {
    now: Time,
    machine: MachineNow<'a>,
    queue: &'a [Candidate],
    utility: &'a [UtilityFunction],
}

/// The machine a decision projects on.
#[derive(Clone, Copy, Debug)]
enum MachineNow<'a> {
    /// One pool of processors: those free, and the running jobs' predicted ends and
    /// processors, ascending by end.
    Pool { free: u32, running: &'a [(Time, u32)] },
    /// A partition of nodes (`nodes.rs`).
    Nodes(NodesNow<'a>),
}

/// Buffers of the projection, one per member of the team.
#[derive(Debug, Default)]
struct Scratch {
    /// Predicted ends still to come, ascending from `ends_from`.
    ends: Vec<(Time, u32)>,
    /// The ordering's jobs not yet started (queue indices), `u32::MAX` once started.
    pending: Vec<u32>,
    /// The projection's on nodes.
    nodes: NodeScratch,
}

impl Snapshot<'_> {
    /// Aggregate utility of running the queue in `order` (queue indices) by EASY
    /// backfilling; the jobs that start at `now` are appended to `started_now` if given.
    fn project(&self, order: &[u32], s: &mut Scratch, started_now: Option<&mut Vec<JobId>>) -> f64 {
        match self.machine {
            MachineNow::Pool { free, running } => self.project_on_pool(free, running, order, s, started_now),
            MachineNow::Nodes(nodes) => nodes.project(self, order, &mut s.nodes, started_now),
        }
    }

    /// Files queue job `i`, started at `t` in a projection, among the `ends` still to come
    /// (those from `ends_from`, after any equal end) with `tag`, lists it in `started_now`
    /// if it starts now, and returns the utility it earns.
    fn started(
        &self,
        i: u32,
        t: Time,
        tag: u32,
        ends: &mut Vec<(Time, u32)>,
        ends_from: usize,
        started_now: &mut Option<&mut Vec<JobId>>,
    ) -> f64 {
        let c = self.queue[i as usize];
        let end = t + c.request;
        let at = ends_from + ends[ends_from..].partition_point(|e| e.0 <= end);
        ends.insert(at, (end, tag));
        if t == self.now
            && let Some(list) = started_now.as_deref_mut()
        {
            list.push(c.job);
        }
        self.utility[c.job.index()].value((end - c.submit) as f64)
    }

    /// [`Snapshot::project`] on one pool of `free` processors beside `running`.
    fn project_on_pool(
        &self,
        free: u32,
        running: &[(Time, u32)],
        order: &[u32],
        s: &mut Scratch,
        mut started_now: Option<&mut Vec<JobId>>,
    ) -> f64 {
        const DONE: u32 = u32::MAX;
        s.ends.clear();
        s.ends.extend_from_slice(running);
        s.pending.clear();
        s.pending.extend_from_slice(order);
        let mut ends_from = 0;
        let (mut t, mut free) = (self.now, free);
        let mut front = 0;
        let mut total = 0.0;
        let queue = self.queue;
        let mut start = |i: u32, t: Time, ends: &mut Vec<(Time, u32)>, ends_from: usize| {
            let procs = queue[i as usize].procs;
            total += self.started(i, t, procs, ends, ends_from, &mut started_now);
        };
        loop {
            // Heads in order while they fit.
            while front < s.pending.len() {
                let i = s.pending[front];
                if i != DONE {
                    let procs = queue[i as usize].procs;
                    if procs > free {
                        break;
                    }
                    free -= procs;
                    start(i, t, &mut s.ends, ends_from);
                }
                front += 1;
            }
            if front == s.pending.len() {
                break;
            }
            // The blocked head's shadow time and extra processors.
            let need = queue[s.pending[front] as usize].procs;
            let mut avail = free;
            let mut k = ends_from;
            while avail < need {
                avail += s.ends[k].1;
                k += 1;
            }
            let shadow = s.ends[k - 1].0;
            while k < s.ends.len() && s.ends[k].0 == shadow {
                avail += s.ends[k].1;
                k += 1;
            }
            let mut extra = avail - need;
            // Backfill the rest in order.
            for p in front + 1..s.pending.len() {
                if free == 0 {
                    break;
                }
                let i = s.pending[p];
                if i == DONE {
                    continue;
                }
                let c = queue[i as usize];
                if c.procs > free {
                    continue;
                }
                if t + c.request <= shadow {
                } else if c.procs <= extra {
                    extra -= c.procs;
                } else {
                    continue;
                }
                free -= c.procs;
                start(i, t, &mut s.ends, ends_from);
                s.pending[p] = DONE;
            }
            // Next instant at which processors free up.
            let next = s.ends[ends_from].0;
            t = t.max(next);
            while ends_from < s.ends.len() && s.ends[ends_from].0 <= t {
                free += s.ends[ends_from].1;
                ends_from += 1;
            }
        }
        total
    }
}

/// The GA scheduler (module docs).
#[derive(Debug)]
pub struct Ga {
    params: GaParams,
    seed: u64,
    rng: Xoshiro256PlusPlus,
    /// Waiting jobs in arrival order.
    queue: Vec<JobId>,
    /// The populations' rows, and the threads that evolve them.
    team: Team,
    /// Fitness of the last generation's rows.
    fitness: Vec<f64>,
    /// Seed-ordering keys.
    keys: Vec<(f64, u32)>,
    /// One row outside the team: a seed being drawn, the ordering chosen.
    order: Vec<u32>,
    started: Vec<JobId>,
    /// Buffers of the projection that picks the jobs to start.
    scratch: Scratch,
    /// Snapshot buffers, kept between decisions.
    running: Vec<(Time, u32)>,
    candidates: Vec<Candidate>,
    /// Decisions evolved, and passes decided without evolving, in this run.
    pub decisions: u64,
    pub shortcuts: u64,
    /// Decisions evolved by a team of more than one thread.
    pub team_decisions: u64,
}

impl Ga {
    pub fn new(params: GaParams) -> Self {
        assert!(params.population >= 1, "the GA needs a population of at least 1");
        assert!(params.islands >= 1, "the GA needs at least 1 island");
        Ga {
            params,
            seed: 0,
            rng: Xoshiro256PlusPlus::seed_from_u64(0),
            queue: Vec::new(),
            team: Team::default(),
            fitness: Vec::new(),
            keys: Vec::new(),
            order: Vec::new(),
            started: Vec::new(),
            running: Vec::new(),
            candidates: Vec::new(),
            scratch: Scratch::default(),
            decisions: 0,
            shortcuts: 0,
            team_decisions: 0,
        }
    }

    pub fn params(&self) -> GaParams {
        self.params
    }

    /// Seeds the GA's random choices for the next runs (each run restarts from it).
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = match self.params.trial {
            0 => seed,
            k => crate::seed::mix64(seed ^ u64::from(k).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
        };
    }

    /// Evolves an ordering for the current queue; returns the decision's shape and the
    /// best row's index in the team's last generation.
    fn evolve(&mut self, snapshot: &Snapshot, priority: Option<&[u16]>) -> (Shape, usize) {
        let q = self.queue.len();
        let pop = self.params.population as usize;
        let shape = Shape {
            population: pop,
            islands: self.params.islands as usize,
            queue: q,
            generations: if pop > 1 {
                self.params.generations as usize
            } else {
                0
            },
        };
        let members = if shape.rows() * q >= TEAM_MIN_WORK {
            rayon::current_num_threads().min(shape.rows())
        } else {
            1
        };
        if members > 1 {
            self.team_decisions += 1;
        }
        self.team.prepare(shape, members);
        // Seeds of every island: arrival; priority then arrival; current utility per
        // node-hour; current utility; then random orders, island after island.
        let now = snapshot.now;
        let current =
            |c: &Candidate| snapshot.utility[c.job.index()].value((now + c.request - c.submit) as f64);
        for seed in 0..pop.min(4) {
            self.keys.clear();
            for (i, c) in snapshot.queue.iter().enumerate() {
                let key = match seed {
                    0 => 0.0,
                    1 => priority.map_or(0.0, |p| p[c.job.index()] as f64),
                    2 => -current(c) / (c.procs as f64 * c.request as f64 / 3600.0),
                    _ => -current(c),
                };
                self.keys.push((key, i as u32));
            }
            self.keys.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            self.order.clear();
            self.order.extend(self.keys.iter().map(|k| k.1));
            for first in (0..shape.rows()).step_by(pop) {
                self.team.set_seed_row(shape, first + seed, &self.order);
            }
        }
        for first in (0..shape.rows()).step_by(pop) {
            for seed in pop.min(4)..pop {
                self.order.clear();
                self.order.extend(0..q as u32);
                for i in (1..q).rev() {
                    let j = below(&mut self.rng, i + 1);
                    self.order.swap(i, j);
                }
                self.team.set_seed_row(shape, first + seed, &self.order);
            }
        }
        // Each generation keeps each island's fittest row and breeds the island's others
        // from two of its rows chosen by tournament, with a chance of a swap; on a
        // generation of migration, each island's first bred row is instead the previous
        // island's fittest, as it is.
        let (rng, mutation, every) = (
            &mut self.rng,
            self.params.mutation as usize,
            self.params.migration as usize,
        );
        let migrates = |generation: usize| shape.islands > 1 && every > 0 && generation.is_multiple_of(every);
        self.team.evolve(
            snapshot,
            shape,
            members,
            &mut self.fitness,
            |generation, fitness, plan| {
                for (island, breedings) in plan.chunks_mut(pop - 1).enumerate() {
                    let first = island * pop;
                    let own = &fitness[first..first + pop];
                    for (k, breeding) in breedings.iter_mut().enumerate() {
                        if k == 0 && migrates(generation) {
                            let from = (island + shape.islands - 1) % shape.islands * pop;
                            let migrant = (from + argmax(&fitness[from..from + pop])) as u32;
                            *breeding = Breeding {
                                a: migrant,
                                b: migrant,
                                swap: None,
                            };
                            continue;
                        }
                        let a = first as u32 + tournament(rng, own);
                        let b = first as u32 + tournament(rng, own);
                        let swap = (q > 1 && below(rng, 100) < mutation).then(|| {
                            let i = below(rng, q);
                            (i as u32, below(rng, q) as u32)
                        });
                        *breeding = Breeding { a, b, swap };
                    }
                }
            },
        );
        (shape, argmax(&self.fitness))
    }
}

/// Uniform index below `n`.
fn below(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    ((rng.next_u64() as u128 * n as u128) >> 64) as usize
}

/// The fitter of two random rows (ties to the lower index).
fn tournament(rng: &mut Xoshiro256PlusPlus, fitness: &[f64]) -> u32 {
    let (a, b) = (below(rng, fitness.len()), below(rng, fitness.len()));
    let (a, b) = (a.min(b), a.max(b));
    (if fitness[b] > fitness[a] { b } else { a }) as u32
}

impl Ga {
    /// One decision outside the engine (for benches and tests): the jobs the evolved
    /// ordering of `waiting` starts at `now` with `free` processors free and `running`
    /// (predicted end, processors) ascending by end. The GA keeps its random state between
    /// calls.
    pub fn decide(
        &mut self,
        jobs: &Jobs,
        now: Time,
        free: u32,
        running: &[(Time, u32)],
        waiting: &[JobId],
    ) -> &[JobId] {
        self.queue.clear();
        self.queue.extend_from_slice(waiting);
        self.running.clear();
        self.running.extend_from_slice(running);
        self.evolve_and_pick(jobs, now, free, |j| jobs.estimate[j.index()].max(1));
        &self.started
    }

    /// One decision on a partition of nodes (`crate::sched::nodes`): the jobs the evolved
    /// ordering of `waiting` starts now, in the order they start; `request` gives each
    /// job's predicted runtime.
    pub fn decide_on_nodes(
        &mut self,
        jobs: &Jobs,
        now: Time,
        waiting: &[JobId],
        nodes: NodesNow,
        request: impl Fn(JobId) -> Time,
    ) -> &[JobId] {
        self.queue.clear();
        self.queue.extend_from_slice(waiting);
        if nodes.requests.iter().all(|r| nodes.pool.counts_cores(r)) {
            // Every waiting job fits wherever enough cores are free: the projection on
            // nodes is the one-pool projection, start for start (`nodes.rs`'s property
            // test), which places nothing and costs a tenth as much.
            self.running.clear();
            self.running.extend(
                nodes
                    .running
                    .iter()
                    .map(|r| (r.predicted_end, r.request.units * r.request.cores)),
            );
            self.evolve_and_pick(jobs, now, nodes.pool.free_cores() as u32, request);
        } else {
            self.pick(jobs, now, MachineNow::Nodes(nodes), request);
        }
        &self.started
    }

    /// Evolves an ordering of `self.queue` against `free` processors and `self.running`,
    /// and leaves the jobs it starts now in `self.started`.
    fn evolve_and_pick(&mut self, jobs: &Jobs, now: Time, free: u32, request: impl Fn(JobId) -> Time) {
        let running = std::mem::take(&mut self.running);
        self.pick(
            jobs,
            now,
            MachineNow::Pool {
                free,
                running: &running,
            },
            request,
        );
        self.running = running;
    }

    /// Evolves an ordering of `self.queue` on `machine` and leaves the jobs it starts now
    /// in `self.started`.
    fn pick(&mut self, jobs: &Jobs, now: Time, machine: MachineNow, request: impl Fn(JobId) -> Time) {
        self.decisions += 1;
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        candidates.extend(self.queue.iter().map(|&job| Candidate {
            job,
            procs: jobs.procs[job.index()],
            request: request(job),
            submit: jobs.submit[job.index()],
        }));
        let snapshot = Snapshot {
            now,
            machine,
            queue: &candidates,
            utility: jobs.utility.as_deref().expect("the GA needs utility functions"),
        };
        let (shape, best) = self.evolve(&snapshot, jobs.priority.as_deref());
        self.started.clear();
        self.team.final_row(shape, best, &mut self.order);
        snapshot.project(&self.order, &mut self.scratch, Some(&mut self.started));
        self.candidates = candidates;
    }
}

/// Index of the largest value, the first of equals.
fn argmax(values: &[f64]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = i;
        }
    }
    best
}

/// The zipper crossover (Lee & Snavely, section 6): the child takes the first job of
/// parent `a`, then the first of `b`, and so on alternately, each time passing over jobs
/// the child already holds. Appends the child to `out`; `taken` is all false on entry and
/// on return.
pub fn zipper(a: &[u32], b: &[u32], taken: &mut [bool], out: &mut Vec<u32>) {
    let q = a.len();
    let from = out.len();
    let (mut ia, mut ib) = (0, 0);
    for k in 0..q {
        let (parent, cursor) = if k % 2 == 0 { (a, &mut ia) } else { (b, &mut ib) };
        while taken[parent[*cursor] as usize] {
            *cursor += 1;
        }
        let job = parent[*cursor];
        taken[job as usize] = true;
        out.push(job);
        *cursor += 1;
    }
    for &job in &out[from..] {
        taken[job as usize] = false;
    }
}

impl SchedulerEntry for Ga {
    type Scheduler = Ga;
    const NAME: &'static str = "ga";
    const SYNTAX: &'static str =
        "ga(population=20,generations=100,mutation=10,trial=0,islands=1,migration=10)";
    const HELP: &'static str = "Lee & Snavely's genetic algorithm, evolving the queue's order for the most \
                                utility; needs --priorities (the utility functions of an augmented trace)";
    const USES_PREDICTIONS: bool = true;
    const NEEDS: Option<&'static str> = Some("utility functions");
    const DEFAULT: SchedulerKind = SchedulerKind::Ga(GaParams::DEFAULT);

    /// Each generation evaluates its population by simulating the queue: one run of the
    /// paper's GA (20 x 100) on 5,000 SDSC-BLUE jobs took 24 s on one thread (issue 41),
    /// about 10^4 times an EASY run of the same jobs, so 5 per individual and generation.
    fn relative_cost(kind: &SchedulerKind) -> f64 {
        match kind {
            SchedulerKind::Ga(p) => 5.0 * (p.islands * p.population) as f64 * p.generations as f64,
            _ => 1.0,
        }
    }

    fn parse(call: &mut Call) -> Result<SchedulerKind, CallError> {
        let d = GaParams::DEFAULT;
        let population = call.take(
            "population",
            d.population,
            "a whole number from 1 to 10000",
            |&v| (1..=10_000).contains(&v),
        )?;
        let generations = call.take(
            "generations",
            d.generations,
            "a whole number up to 1000000",
            |&v| v <= 1_000_000,
        )?;
        let mutation = call.take("mutation", d.mutation, "a percentage from 0 to 100", |&v| {
            v <= 100
        })?;
        let trial = call.take("trial", d.trial, "a whole number", |_| true)?;
        let islands = call.take("islands", d.islands, "a whole number from 1 to 1000", |&v| {
            (1..=1000).contains(&v)
        })?;
        let migration = call.take(
            "migration",
            d.migration,
            "a whole number of generations (0: never)",
            |_| true,
        )?;
        // Its default is accepted alone, so that the syntax written out parses.
        if islands == 1 && migration != d.migration {
            return Err(call.invalid("migration is taken only with islands above 1"));
        }
        // The rows of a generation are held twice, each the queue's length.
        if islands * population > 10_000 {
            return Err(call.invalid("islands x population must be at most 10000"));
        }
        Ok(SchedulerKind::Ga(GaParams {
            population,
            generations,
            mutation,
            trial,
            islands,
            migration,
        }))
    }

    fn write(kind: &SchedulerKind, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match kind {
            SchedulerKind::Ga(p) if *p != GaParams::DEFAULT => {
                write!(
                    f,
                    "ga(population={},generations={},mutation={}",
                    p.population, p.generations, p.mutation
                )?;
                if p.trial != 0 {
                    write!(f, ",trial={}", p.trial)?;
                }
                if p.islands != 1 {
                    write!(f, ",islands={},migration={}", p.islands, p.migration)?;
                }
                f.write_str(")")
            }
            _ => f.write_str("ga"),
        }
    }

    fn build(kind: &SchedulerKind) -> Ga {
        match kind {
            SchedulerKind::Ga(p) => Ga::new(*p),
            _ => Ga::new(GaParams::DEFAULT),
        }
    }

    fn seed(ga: &mut Ga, seed: u64) {
        ga.set_seed(seed);
    }

    fn on_nodes(kind: &SchedulerKind) -> Option<NodePolicy> {
        match kind {
            SchedulerKind::Ga(p) => Some(NodePolicy::Ga(*p)),
            _ => None,
        }
    }
}

impl Scheduler for Ga {
    fn reset(&mut self, jobs: &Jobs, _procs: u32) {
        assert!(
            jobs.utility.is_some(),
            "ga needs utility functions: give a priority map (--priorities or `priorities`) or an augmented trace"
        );
        self.rng = Xoshiro256PlusPlus::seed_from_u64(self.seed);
        self.queue.clear();
        self.decisions = 0;
        self.shortcuts = 0;
        self.team_decisions = 0;
    }

    fn on_arrival(&mut self, job: JobId, _ctx: &SchedCtx) {
        self.queue.push(job);
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        if self.queue.is_empty() {
            return;
        }
        let free = ctx.free();
        let (mut fits, mut sum) = (false, 0u64);
        for &j in &self.queue {
            let p = ctx.procs(j);
            fits |= p <= free;
            sum += p as u64;
        }
        if !fits {
            self.shortcuts += 1;
            return;
        }
        if sum <= free as u64 {
            self.shortcuts += 1;
            for &j in &self.queue {
                ctx.start(j);
            }
            self.queue.clear();
            return;
        }
        self.running.clear();
        self.running
            .extend(ctx.running_sorted().iter().map(|r| (r.predicted_end, r.procs)));
        self.evolve_and_pick(ctx.jobs(), ctx.now(), free, |j| ctx.prediction(j));
        for &j in &self.started {
            ctx.start(j);
        }
        self.queue.retain(|&j| ctx.start_time(j).is_none());
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipper_by_hand() {
        let mut taken = vec![false; 5];
        let mut child = Vec::new();
        zipper(&[0, 1, 2, 3, 4], &[4, 3, 2, 1, 0], &mut taken, &mut child);
        assert_eq!(child, [0, 4, 1, 3, 2]);
        // Duplicates are passed over in each parent.
        child.clear();
        zipper(&[2, 0, 1, 3, 4], &[2, 1, 0, 4, 3], &mut taken, &mut child);
        assert_eq!(child, [2, 1, 0, 4, 3]);
        assert!(taken.iter().all(|&t| !t));
    }

    /// The GA as it was written before the team, with islands: one generation after
    /// another on one thread, each island's children bred in order as the generator's draws
    /// come. Returns the last generation's rows and fitness, island after island.
    fn plain_evolve(params: GaParams, seed: u64, snapshot: &Snapshot) -> (Vec<Vec<u32>>, Vec<f64>) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let (q, pop, k) = (
            snapshot.queue.len(),
            params.population as usize,
            params.islands as usize,
        );
        let mut s = Scratch::default();
        let current = |c: &Candidate| {
            snapshot.utility[c.job.index()].value((snapshot.now + c.request - c.submit) as f64)
        };
        let heuristic: Vec<Vec<u32>> = (0..pop.min(4))
            .map(|seed| {
                let mut keys: Vec<(f64, u32)> = (snapshot.queue.iter().enumerate())
                    .map(|(i, c)| {
                        let key = match seed {
                            0 | 1 => 0.0,
                            2 => -current(c) / (c.procs as f64 * c.request as f64 / 3600.0),
                            _ => -current(c),
                        };
                        (key, i as u32)
                    })
                    .collect();
                keys.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                keys.iter().map(|k| k.1).collect()
            })
            .collect();
        let mut islands: Vec<Vec<Vec<u32>>> = Vec::new();
        for _ in 0..k {
            let mut population = heuristic.clone();
            for _ in pop.min(4)..pop {
                let mut row: Vec<u32> = (0..q as u32).collect();
                for i in (1..q).rev() {
                    row.swap(i, below(&mut rng, i + 1));
                }
                population.push(row);
            }
            islands.push(population);
        }
        let mut fitness: Vec<Vec<f64>> = (islands.iter())
            .map(|rows| rows.iter().map(|r| snapshot.project(r, &mut s, None)).collect())
            .collect();
        for generation in 1..=if pop > 1 { params.generations } else { 0 } {
            let best: Vec<usize> = fitness.iter().map(|f| argmax(f)).collect();
            let migrates = k > 1 && params.migration > 0 && generation.is_multiple_of(params.migration);
            let mut taken = vec![false; q];
            let (mut next_islands, mut next_fitness) = (Vec::new(), Vec::new());
            for i in 0..k {
                let mut next = vec![islands[i][best[i]].clone()];
                let mut values = vec![fitness[i][best[i]]];
                for row in 1..pop {
                    let child = if row == 1 && migrates {
                        let from = (i + k - 1) % k;
                        islands[from][best[from]].clone()
                    } else {
                        let a = tournament(&mut rng, &fitness[i]) as usize;
                        let b = tournament(&mut rng, &fitness[i]) as usize;
                        let mut child = Vec::new();
                        zipper(&islands[i][a], &islands[i][b], &mut taken, &mut child);
                        if q > 1 && below(&mut rng, 100) < params.mutation as usize {
                            let (x, y) = (below(&mut rng, q), below(&mut rng, q));
                            child.swap(x, y);
                        }
                        child
                    };
                    values.push(snapshot.project(&child, &mut s, None));
                    next.push(child);
                }
                next_islands.push(next);
                next_fitness.push(values);
            }
            islands = next_islands;
            fitness = next_fitness;
        }
        (islands.concat(), fitness.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// The team's generations are the plain GA's, row for row and bit for bit, on any
        /// number of threads, small decisions (evolved on one thread) and large ones alike,
        /// with one island or several.
        #[test]
        fn the_team_evolves_what_the_plain_ga_evolves(
            q in 1usize..40,
            population in 1u32..24,
            generations in 0u32..12,
            mutation in 0u32..=100,
            seed in 0u64..1000,
            threads in 1usize..5,
            islands in 1u32..4,
            migration in 0u32..4,
        ) {
            let utility: Vec<UtilityFunction> = (0..q)
                .map(|i| UtilityFunction::new(vec![(0.0, 50.0 + i as f64), (500.0 + 37.0 * i as f64, 0.0)]).unwrap())
                .collect();
            let queue: Vec<Candidate> = (0..q as u32)
                .map(|i| Candidate {
                    job: JobId(i),
                    procs: 1 + (i * 7 + seed as u32) % 9,
                    request: 5 + ((i as Time * 31 + seed as Time) % 200),
                    submit: (i as Time * 3) % 20,
                })
                .collect();
            let running = [(30, 3), (60, 4), (60, 1)];
            let snapshot = Snapshot { now: 20, machine: MachineNow::Pool { free: 2, running: &running }, queue: &queue, utility: &utility };
            let params = GaParams { population, generations, mutation, trial: 0, islands, migration };
            let (rows, fitness) = plain_evolve(params, seed, &snapshot);
            let mut ga = Ga::new(params);
            ga.rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            ga.queue = queue.iter().map(|c| c.job).collect();
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let (shape, best) = pool.install(|| ga.evolve(&snapshot, None));
            proptest::prop_assert_eq!(&ga.fitness, &fitness);
            proptest::prop_assert_eq!(best, argmax(&fitness));
            let mut final_row = Vec::new();
            for (row, plain) in rows.iter().enumerate() {
                ga.team.final_row(shape, row, &mut final_row);
                proptest::prop_assert_eq!(&final_row, plain);
            }
        }
    }

    #[test]
    fn every_row_stays_a_permutation_under_crossover_and_mutation() {
        let utility = vec![UtilityFunction::new(vec![(0.0, 10.0), (1000.0, 0.0)]).unwrap(); 30];
        let queue: Vec<Candidate> = (0..30)
            .map(|i| Candidate {
                job: JobId(i),
                procs: 1 + i % 7,
                request: 10 + 13 * i as Time,
                submit: 0,
            })
            .collect();
        let running = [(50, 6), (80, 2)];
        let snapshot = Snapshot {
            now: 5,
            machine: MachineNow::Pool {
                free: 0,
                running: &running,
            },
            queue: &queue,
            utility: &utility,
        };
        let mut ga = Ga::new(GaParams {
            population: 9,
            generations: 25,
            mutation: 100,
            ..GaParams::DEFAULT
        });
        ga.queue = queue.iter().map(|c| c.job).collect();
        let (shape, best) = ga.evolve(&snapshot, None);
        assert_eq!(ga.fitness.len(), 9);
        for row in 0..9 {
            let mut sorted = Vec::new();
            ga.team.final_row(shape, row, &mut sorted);
            sorted.sort_unstable();
            assert_eq!(sorted, (0..30).collect::<Vec<u32>>());
        }
        // Elitism: the best of the last generation is at least the best seed.
        let arrival: Vec<u32> = (0..30).collect();
        let seed_fitness = snapshot.project(&arrival, &mut Scratch::default(), None);
        assert!(ga.fitness[best] >= seed_fitness);
    }

    #[test]
    fn projection_by_hand() {
        // 4 processors, 2 free until t = 100. Jobs (procs, request): A (2, 50), B (4, 10),
        // C (1, 20). Order A, B, C: A starts now (ends 50), B is the head, shadow 100
        // (extra 0), C cannot backfill (0 + 20 <= 100 but no processor is free). At 50 A
        // ends: C ends by the shadow (50 + 20 <= 100) and starts; B starts at 100.
        let utility: Vec<UtilityFunction> = (0..3)
            .map(|_| UtilityFunction::new(vec![(0.0, 1000.0), (1000.0, 0.0)]).unwrap())
            .collect();
        let queue = [
            Candidate {
                job: JobId(0),
                procs: 2,
                request: 50,
                submit: 0,
            },
            Candidate {
                job: JobId(1),
                procs: 4,
                request: 10,
                submit: 0,
            },
            Candidate {
                job: JobId(2),
                procs: 1,
                request: 20,
                submit: 0,
            },
        ];
        let snapshot = Snapshot {
            now: 0,
            machine: MachineNow::Pool {
                free: 2,
                running: &[(100, 2)],
            },
            queue: &queue,
            utility: &utility,
        };
        let mut started = Vec::new();
        let total = snapshot.project(&[0, 1, 2], &mut Scratch::default(), Some(&mut started));
        // Turnarounds 50, 110, 70: utilities 950 + 890 + 930.
        assert_eq!(total, 950.0 + 890.0 + 930.0);
        assert_eq!(started, [JobId(0)]);
        // Order B, A, C: B blocks (shadow 100, extra 0); A (2 procs, ends 50 <= 100)
        // backfills now; C does not fit. A ends at 50, C starts (ends 70 <= 100); B at 100.
        started.clear();
        let total = snapshot.project(&[1, 0, 2], &mut Scratch::default(), Some(&mut started));
        assert_eq!(total, 950.0 + 890.0 + 930.0);
        assert_eq!(started, [JobId(0)]);
    }
}
