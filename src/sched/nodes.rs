//! FCFS, EASY backfilling (in arrival order, or shortest prediction first as SJBF) and
//! conservative backfilling on a partition of nodes with cores, memory and GPUs, where a
//! job fits only when enough nodes can hold its request ([`crate::machine::pool`]).
//!
//! EASY's reservation is kept on every resource: the head's shadow time is the earliest
//! predicted end of running jobs (taken in ascending order, every job ending at that
//! instant released) after which the head fits on the nodes then free. A later job starts
//! now if it fits now and either ends by the shadow time, or the head still fits at the
//! shadow time on the nodes left once the job's own nodes are taken too: the node-level
//! form of EASY's `extra` processors. Each backfilled job is placed where best fit puts it
//! now, and only that placement is tested.
//!
//! Priority-FIFO (Lee & Snavely) is EASY on nodes with the waiting jobs kept in (priority,
//! arrival) order instead of arrival order (`priority.rs` states the policy): the head is
//! the first job of that order that does not fit, and the others backfill in that order.
//!
//! The GA (Lee & Snavely) evolves an ordering of the waiting jobs as on one pool
//! (`ga/mod.rs`), its fitness projected by EASY on these nodes (`ga/nodes.rs`), and starts
//! the jobs that ordering starts now, where the projection placed them. Its shortcuts read
//! the nodes: no decision when no waiting job fits, and every job started, in arrival
//! order, when they all fit placed in that order.
//!
//! Conservative backfilling reserves nodes: every waiting job with a positive estimate holds
//! a reservation, a start time and a placement, at the earliest time (now, or when a
//! running job or a reservation ends) where best fit places it on the nodes free
//! throughout its estimate, beside running jobs (until their predicted ends) and the
//! reservations of the jobs before and after it. Each pass, if a job ended before its
//! estimate or a reservation moved since the last pass, the waiting jobs are re-fitted in
//! arrival order, each taken out and put back at its earliest fit if that is earlier than
//! its reservation (else it keeps its reservation, nodes included): no job starts later
//! than its first reservation (Mu'alem & Feitelson's
//! compression, on nodes). New jobs are then reserved in arrival order, and every job
//! reserved now starts where it was reserved. A job of estimate 0 holds nothing and
//! starts whenever it fits now. Unlike the one-pool scheduler (`conservative.rs`), which
//! treats processors as interchangeable over time, a reservation here is on named nodes,
//! as Slurm's backfill reserves them, so the two differ even on one-core nodes.
//!
//! Plain by design (an EASY pass costs O(waiting x nodes); a conservative re-fit makes, for
//! each waiting job, the nodes free at every instant where what is held changes, in one
//! sweep, O(reservations x (nodes + placement)), then tries windows of them, at worst
//! O(reservations^2 x nodes)): the one-pool schedulers in `easy.rs`, `fcfs.rs`
//! and `conservative.rs` stay the fast path for processors alone; FCFS and EASY are checked
//! against them where the two must agree (one-core nodes without memory), and all against
//! a plain reference in `tests/it/machine.rs`.

use crate::Time;
use crate::machine::pool::{NodePool, NodeRequest, Placement, Unfit};
use crate::sim::{SchedCtx, Scheduler};
use crate::workload::{JobId, Jobs};

use super::easy::BackfillOrder;
use super::ga::{Ga, GaParams, NodesNow, RunningOnNodes};

/// The policies that run on nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodePolicy {
    Fcfs,
    Easy(BackfillOrder),
    Conservative,
    /// Priority-FIFO: EASY in (priority, arrival) order.
    Priority,
    Ga(GaParams),
}

impl NodePolicy {
    /// Whether it runs under a power cap over time (`super::capped`): all but
    /// Priority-FIFO and the GA.
    pub fn runs_capped(self) -> bool {
        !matches!(self, NodePolicy::Priority | NodePolicy::Ga(_))
    }
}

/// A scheduler of one partition of nodes.
#[derive(Debug)]
pub struct NodeScheduler {
    policy: NodePolicy,
    pool: NodePool,
    /// Per job of the run.
    requests: Vec<NodeRequest>,
    held: Held,
    stranded: Stranded,
    /// Waiting jobs in arrival order, or in (priority, arrival) order under Priority-FIFO.
    waiting: Vec<JobId>,
    /// Priority-FIFO: each job's priority (0 the highest); empty under other policies.
    priority: Vec<u16>,
    backfilled: u64,
    /// The head's reservation after the last pass: its shadow time, with `at_shadow`
    /// holding the nodes free then (less what jobs backfilled past it hold), or, where only
    /// cores bind the head, the count of cores then to spare beyond it. Valid while the head
    /// is the same and no job has ended nor changed its prediction since: starts only
    /// shrink what is free, and arrivals change neither (a job started ahead of the head,
    /// as under Priority-FIFO, drops it).
    reservation: Option<(JobId, Time, Option<u64>)>,
    /// In arrival order, where only cores bind the head: the waiting jobs before this
    /// index were tested under that reservation and did not start, so while it holds they
    /// cannot (what is free only shrinks, so does the count of cores to spare, and time
    /// only moves a job's end past the shadow time): a pass tests the jobs that arrived
    /// since. Not where the head's nodes at the shadow time are tested: whether a job
    /// leaves room for the head then depends on where best fit places it now, which moves
    /// as the nodes fill (a job that would have taken the head's node may later go
    /// elsewhere; `results/memory` showed it).
    tested: usize,
    at_shadow: NodePool,
    /// Conservative: each waiting job's reservation (start, placement), by job.
    slots: Vec<Option<(Time, Placement)>>,
    /// Conservative: whether room may have appeared before some reservation since the last
    /// re-fit (a job ended before its estimate, or a reservation moved).
    refit: bool,
    /// Conservative: the nodes all free, the nodes at one instant, and those free
    /// throughout a window; what holds resources then (from, to, job).
    blank: NodePool,
    at: NodePool,
    over: NodePool,
    commitments: Vec<(Time, Time, JobId)>,
    /// Conservative: the instants from now where what is held changes, whether something
    /// ends at each, the nodes free at each, and the starts and ends that make them
    /// ([`NodeScheduler::earliest`]).
    times: Vec<Time>,
    ends_at: Vec<bool>,
    snapshots: Vec<NodePool>,
    events: Vec<(Time, bool, JobId)>,
    fits_alone: Vec<Option<bool>>,
    /// The GA, under its policy; the running jobs and the waiting jobs' requests it reads.
    ga: Option<Ga>,
    running_now: Vec<RunningOnNodes>,
    requests_now: Vec<NodeRequest>,
    /// Buffers kept across passes.
    choice: Placement,
    order: Vec<JobId>,
}

/// Cores idle on nodes that running jobs partly hold, and their integral over the run so
/// far (core-seconds): the partition's fragmentation.
#[derive(Debug, Default)]
struct Stranded {
    cores: u64,
    since: Time,
    core_seconds: u64,
}

impl Stranded {
    /// The integral up to `now`, then the change at `now` (from
    /// [`NodePool::take_counting`] or [`NodePool::give_back_counting`]).
    fn change(&mut self, now: Time, by: i64) {
        self.core_seconds += self.cores * (now - self.since).max(0) as u64;
        self.since = now;
        self.cores = (self.cores as i64 + by) as u64;
    }
}

/// Where the running jobs hold their nodes. A placement per job of the run, kept after the
/// job ended, cost about 50 bytes a job (the list's header and its smallest block); here a
/// job holds an index into placements that are reused once their job ends, so the lists
/// number the jobs running at once.
#[derive(Debug, Default)]
struct Held {
    /// Per job of the run: its placement's index, while it runs.
    index: Vec<u32>,
    placements: Vec<Placement>,
    /// Placements no running job holds.
    unused: Vec<u32>,
}

impl Held {
    fn reset(&mut self, jobs: usize) {
        self.index.clear();
        self.index.resize(jobs, u32::MAX);
        self.unused.clear();
        self.unused.extend(0..self.placements.len() as u32);
    }

    /// Records that `job` holds `placement`.
    fn keep(&mut self, job: JobId, placement: &Placement) {
        let i = self.unused.pop().unwrap_or_else(|| {
            self.placements.push(Placement::new());
            self.placements.len() as u32 - 1
        });
        self.placements[i as usize].clone_from(placement);
        self.index[job.index()] = i;
    }

    /// What running `job` holds.
    fn of(&self, job: JobId) -> &Placement {
        &self.placements[self.index[job.index()] as usize]
    }

    /// `job` ended: its placement is free for another.
    fn release(&mut self, job: JobId) {
        let i = std::mem::replace(&mut self.index[job.index()], u32::MAX);
        self.unused.push(i);
    }
}

impl NodeScheduler {
    /// `policy` on `pool`, for jobs asking `requests` (one per job of the run, in its
    /// order).
    pub fn new(policy: NodePolicy, pool: NodePool, requests: Vec<NodeRequest>) -> NodeScheduler {
        let mut blank = pool.clone();
        blank.reset();
        NodeScheduler {
            policy,
            at_shadow: pool.clone(),
            at: blank.clone(),
            over: blank.clone(),
            blank,
            slots: Vec::new(),
            refit: false,
            commitments: Vec::new(),
            times: Vec::new(),
            ends_at: Vec::new(),
            snapshots: Vec::new(),
            events: Vec::new(),
            fits_alone: Vec::new(),
            pool,
            requests,
            held: Held::default(),
            stranded: Stranded::default(),
            waiting: Vec::new(),
            priority: Vec::new(),
            backfilled: 0,
            reservation: None,
            tested: 0,
            ga: match policy {
                NodePolicy::Ga(params) => Some(Ga::new(params)),
                _ => None,
            },
            running_now: Vec::new(),
            requests_now: Vec::new(),
            choice: Placement::new(),
            order: Vec::new(),
        }
    }

    /// Seeds the GA's random choices (others draw none).
    pub fn set_seed(&mut self, seed: u64) {
        if let Some(ga) = &mut self.ga {
            ga.set_seed(seed);
        }
    }

    /// What `job` asks of the nodes.
    pub fn request(&self, job: JobId) -> &NodeRequest {
        &self.requests[job.index()]
    }

    /// The nodes, with what is free now.
    pub fn pool(&self) -> &NodePool {
        &self.pool
    }

    /// A pass for an agent (`crate::agent`) that chose `head` among `waiting` (arrival
    /// order, `head` included): `head` starts if it fits now; else, with `backfill`, the
    /// other waiting jobs EASY backfills beside it start, in arrival order. Whether `head`
    /// started, and how many jobs backfilled.
    pub fn agent_pass(
        &mut self,
        ctx: &mut SchedCtx,
        head: JobId,
        waiting: &[JobId],
        backfill: bool,
    ) -> (bool, u64) {
        let mut choice = std::mem::take(&mut self.choice);
        let fits = self.pool.choose(&self.requests[head.index()], &mut choice);
        if fits {
            self.start(ctx, head, &choice);
        }
        self.choice = choice;
        if fits || !backfill {
            return (fits, 0);
        }
        self.waiting.clear();
        self.waiting.push(head);
        self.waiting.extend(waiting.iter().filter(|&&j| j != head));
        // The head is the agent's choice, which may differ from the last pass's.
        self.reservation = None;
        let before = self.backfilled;
        self.backfill(ctx, BackfillOrder::Arrival);
        (false, self.backfilled - before)
    }

    /// Starts `job` on `a`, which must fit now.
    fn start(&mut self, ctx: &mut SchedCtx, job: JobId, a: &Placement) {
        let r = self.requests[job.index()];
        let by = self.pool.take_counting(&r, a);
        self.stranded.change(ctx.now(), by);
        self.held.keep(job, a);
        ctx.start(job);
    }

    /// Starts waiting heads while they fit; the number started.
    fn start_heads(&mut self, ctx: &mut SchedCtx) -> usize {
        let mut started = 0;
        let mut choice = std::mem::take(&mut self.choice);
        while let Some(&head) = self.waiting.get(started) {
            if !self.pool.choose(&self.requests[head.index()], &mut choice) {
                break;
            }
            self.start(ctx, head, &choice);
            started += 1;
        }
        self.choice = choice;
        self.waiting.drain(..started);
        if started > 0 {
            // What started holds what the head's reservation counted as free: in arrival
            // order the head has changed too, but under Priority-FIFO a job that arrived
            // ahead of an unchanged head may have started.
            self.reservation = None;
        }
        started
    }

    /// The head's shadow time, with `at_shadow` left holding the nodes free then; or,
    /// where only cores bind the head, the cores free then beyond its need, counted
    /// without placing anything.
    fn shadow(&mut self, ctx: &mut SchedCtx, head: JobId) -> (Time, Option<u64>) {
        let need = self.requests[head.index()];
        if self.pool.counts_cores(&need) {
            // It fits wherever enough cores are free: EASY's count of processors, walked
            // on the engine's calendar of running jobs. A job holds as many of the pool's
            // cores as it has processors (a request's units times its cores), so the
            // engine's free processors are the pool's free cores.
            debug_assert_eq!(ctx.free() as u64, self.pool.free_cores());
            let (end, spare) = ctx.shadow(need.units);
            return (end, Some(spare as u64));
        }
        let running = ctx.running_sorted();
        self.at_shadow.copy_free_from(&self.pool);
        let mut i = 0;
        while i < running.len() {
            let end = running[i].predicted_end;
            while i < running.len() && running[i].predicted_end == end {
                let job = running[i].job;
                self.at_shadow
                    .give_back(&self.requests[job.index()], self.held.of(job));
                i += 1;
            }
            if self.at_shadow.fits(&need) {
                return (end, None);
            }
        }
        unreachable!("job {} fits its partition's empty nodes", head.0)
    }

    fn backfill(&mut self, ctx: &mut SchedCtx, order: BackfillOrder) {
        let head = self.waiting[0];
        let sorted = order == BackfillOrder::ShortestPrediction;
        let (shadow, mut spare, first) = match self.reservation {
            Some((h, shadow, spare)) if h == head => {
                let monotone = !sorted && spare.is_some();
                (shadow, spare, if monotone { self.tested } else { 1 })
            }
            _ => {
                let (shadow, spare) = self.shadow(ctx, head);
                (shadow, spare, 1)
            }
        };
        let need = self.requests[head.index()];
        // In arrival order the candidates are the waiting jobs after the head, read in place
        // (no job leaves the list until the pass ends); SJBF's are a sorted copy.
        let mut candidates = std::mem::take(&mut self.order);
        if sorted {
            candidates.clear();
            candidates.extend_from_slice(&self.waiting[1..]);
            // Stable: ties stay in arrival order.
            candidates.sort_by_key(|&j| ctx.prediction(j));
        }
        let mut choice = std::mem::take(&mut self.choice);
        let now = ctx.now();
        let mut started = 0;
        // What is free only shrinks within the pass.
        let mut unfit = Unfit::default();
        for i in first.max(1)..self.waiting.len() {
            let job = if sorted {
                candidates[i - 1]
            } else {
                self.waiting[i]
            };
            if self.pool.free_cores() == 0 {
                break;
            }
            let r = self.requests[job.index()];
            if unfit.rules_out(&r) {
                continue;
            }
            let past_shadow = now + ctx.prediction(job) > shadow;
            let taken = r.units as u64 * r.cores as u64;
            if past_shadow && spare.is_some_and(|cores| taken > cores) {
                // The head's count of cores, without placing anything.
                continue;
            }
            if !self.pool.choose(&r, &mut choice) {
                unfit.add(r);
                continue;
            }
            if past_shadow {
                // Still running at the shadow time: the head must fit beside it then.
                if let Some(cores) = &mut spare {
                    *cores -= taken;
                } else {
                    self.at_shadow.take(&r, &choice);
                    if !self.at_shadow.fits(&need) {
                        self.at_shadow.give_back(&r, &choice);
                        continue;
                    }
                }
            }
            self.start(ctx, job, &choice);
            started += 1;
        }
        self.choice = choice;
        self.order = candidates;
        self.reservation = Some((head, shadow, spare));
        if started > 0 {
            self.backfilled += started as u64;
            self.waiting.retain(|&j| ctx.start_time(j).is_none());
        }
        self.tested = self.waiting.len();
    }
}

impl NodeScheduler {
    /// A GA pass (module docs): the shortcuts, else one evolved decision.
    fn evolve(&mut self, ctx: &mut SchedCtx) {
        if !self
            .waiting
            .iter()
            .any(|&j| self.pool.fits(&self.requests[j.index()]))
        {
            return;
        }
        let mut choice = std::mem::take(&mut self.choice);
        self.at_shadow.copy_free_from(&self.pool);
        let all_fit = self.waiting.iter().all(|&j| {
            let r = &self.requests[j.index()];
            let fits = self.at_shadow.choose(r, &mut choice);
            if fits {
                self.at_shadow.take(r, &choice);
            }
            fits
        });
        let mut started = std::mem::take(&mut self.order);
        started.clear();
        if all_fit {
            started.extend_from_slice(&self.waiting);
        } else {
            self.running_now.clear();
            let (requests, held) = (&self.requests, &self.held);
            self.running_now
                .extend(ctx.running_sorted().iter().map(|r| RunningOnNodes {
                    predicted_end: r.predicted_end,
                    request: requests[r.job.index()],
                    placement: held.index[r.job.index()],
                }));
            self.requests_now.clear();
            self.requests_now
                .extend(self.waiting.iter().map(|&j| self.requests[j.index()]));
            let nodes = NodesNow {
                pool: &self.pool,
                running: &self.running_now,
                held: &self.held.placements,
                requests: &self.requests_now,
            };
            let ga = self.ga.as_mut().expect("the GA's policy holds a GA");
            started.extend_from_slice(
                ga.decide_on_nodes(ctx.jobs(), ctx.now(), &self.waiting, nodes, |j| ctx.prediction(j)),
            );
        }
        for &job in &started {
            let fits = self.pool.choose(&self.requests[job.index()], &mut choice);
            debug_assert!(fits, "job {} was projected to start now", job.0);
            self.start(ctx, job, &choice);
        }
        self.choice = choice;
        self.order = started;
        self.waiting.retain(|&j| ctx.start_time(j).is_none());
    }
}

impl NodeScheduler {
    /// What holds resources from now on, but `job`: running jobs until their predicted end
    /// (at least the next instant), and the reservations of positive estimate.
    fn collect_commitments(&mut self, ctx: &mut SchedCtx, job: JobId) {
        let now = ctx.now();
        self.commitments.clear();
        for r in ctx.running_sorted() {
            self.commitments
                .push((Time::MIN, r.predicted_end.max(now + 1), r.job));
        }
        for &w in &self.waiting {
            if let (Some((at, _)), true) = (&self.slots[w.index()], w != job) {
                let estimate = ctx.jobs().estimate[w.index()];
                if estimate > 0 {
                    self.commitments.push((*at, at + estimate, w));
                }
            }
        }
    }

    /// The earliest reservation of `job` (with its own taken out): now, or the end of a
    /// running job or a reservation, wherever best fit places it on the nodes free
    /// throughout its estimate (the least each node has free at any instant of the window).
    ///
    /// The nodes free at each instant where what is held changes (`self.snapshots`, one per
    /// instant of `self.times`) are made in one sweep of the commitments' starts and ends;
    /// a window's least is then the least of its instants' (what a node holds grows only
    /// at a start, so instants where jobs only end change nothing).
    fn earliest(&mut self, ctx: &mut SchedCtx, job: JobId) -> (Time, Placement) {
        let now = ctx.now();
        let duration = ctx.jobs().estimate[job.index()].max(1);
        self.collect_commitments(ctx, job);
        self.snapshot_from(now);
        let request = self.requests[job.index()];
        let mut placement = Placement::new();
        // Whether the job fits the nodes free at each instant alone, where asked (None: not
        // yet): a window holding an instant where it does not cannot hold it either, nor
        // can any later candidate's window that holds that instant.
        self.fits_alone.clear();
        self.fits_alone.resize(self.times.len(), None);
        let mut k = 0;
        while k < self.times.len() {
            // Candidates are now and the ends of what is held, not its starts.
            if k > 0 && !self.ends_at[k] {
                k += 1;
                continue;
            }
            let t = self.times[k];
            let end = self.times.partition_point(|&i| i < t + duration);
            let blocked = (k..end)
                .find(|&j| !*self.fits_alone[j].get_or_insert_with(|| self.snapshots[j].fits(&request)));
            if let Some(j) = blocked {
                k = j + 1;
                continue;
            }
            self.over.copy_free_from(&self.snapshots[k]);
            for later in &self.snapshots[k + 1..end] {
                self.over.narrow_to(later);
            }
            if self.over.choose(&request, &mut placement) {
                return (t, placement);
            }
            k += 1;
        }
        unreachable!("job {} fits its partition's empty nodes", job.0)
    }

    /// The nodes free at `now` and at every later instant where a commitment starts or ends,
    /// into `self.times` (ascending, whether a commitment ends there in `self.ends_at`) and
    /// `self.snapshots`.
    fn snapshot_from(&mut self, now: Time) {
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        self.at.copy_free_from(&self.blank);
        for &(from, to, holder) in &self.commitments {
            if from <= now {
                let placement = placement_of(&self.slots, &self.held, holder);
                self.at.take(&self.requests[holder.index()], placement);
            } else {
                events.push((from, true, holder));
            }
            events.push((to, false, holder));
        }
        // At one instant, ends before starts: what ends frees room for what starts.
        events.sort_unstable_by_key(|&(t, starts, holder)| (t, starts, holder));
        self.times.clear();
        self.ends_at.clear();
        self.times.push(now);
        self.ends_at.push(false);
        self.snapshot(0);
        let mut i = 0;
        while i < events.len() {
            let t = events[i].0;
            let mut ends = false;
            while let Some(&(at, starts, holder)) = events.get(i).filter(|e| e.0 == t) {
                debug_assert_eq!(at, t);
                let request = &self.requests[holder.index()];
                let placement = placement_of(&self.slots, &self.held, holder);
                if starts {
                    self.at.take(request, placement);
                } else {
                    self.at.give_back(request, placement);
                    ends = true;
                }
                i += 1;
            }
            self.times.push(t);
            self.ends_at.push(ends);
            self.snapshot(self.times.len() - 1);
        }
        self.events = events;
    }

    /// `self.at` as snapshot `k`, reusing the buffers of earlier calls.
    fn snapshot(&mut self, k: usize) {
        if k < self.snapshots.len() {
            self.snapshots[k].copy_free_from(&self.at);
        } else {
            self.snapshots.push(self.at.clone());
        }
    }

    /// One pass of conservative backfilling (module docs).
    fn conservative(&mut self, ctx: &mut SchedCtx) {
        let now = ctx.now();
        let positive = |ctx: &SchedCtx, j: JobId| ctx.jobs().estimate[j.index()] > 0;
        if std::mem::take(&mut self.refit) {
            for i in 0..self.waiting.len() {
                let job = self.waiting[i];
                let Some(old) = self.slots[job.index()].take() else {
                    continue;
                };
                let new = self.earliest(ctx, job);
                debug_assert!(
                    new.0 <= old.0,
                    "job {} re-fitted later than its reservation",
                    job.0
                );
                // A job moves only to an earlier start (at the same start it keeps its nodes,
                // which other reservations may since have been fitted around), and leaves
                // room where it was.
                let moved = new.0 < old.0;
                self.refit |= moved;
                self.slots[job.index()] = Some(if moved { new } else { old });
            }
        }
        for i in 0..self.waiting.len() {
            let job = self.waiting[i];
            if self.slots[job.index()].is_none() && positive(ctx, job) {
                let slot = self.earliest(ctx, job);
                self.slots[job.index()] = Some(slot);
            }
        }
        let mut started = false;
        for i in 0..self.waiting.len() {
            let job = self.waiting[i];
            if let Some((at, placement)) = self.slots[job.index()].take_if(|(at, _)| *at == now) {
                debug_assert_eq!(at, now);
                self.start(ctx, job, &placement);
                started = true;
            }
        }
        // Jobs of estimate 0 hold nothing: each starts if it fits now.
        let mut choice = std::mem::take(&mut self.choice);
        for i in 0..self.waiting.len() {
            let job = self.waiting[i];
            if !positive(ctx, job) && self.pool.choose(&self.requests[job.index()], &mut choice) {
                self.start(ctx, job, &choice);
                started = true;
            }
        }
        self.choice = choice;
        if started {
            self.waiting.retain(|&j| ctx.start_time(j).is_none());
        }
        let next = self
            .waiting
            .iter()
            .filter_map(|j| self.slots[j.index()].as_ref().map(|(at, _)| *at))
            .filter(|&at| at > now)
            .min();
        if let Some(t) = next {
            ctx.wake_at(t);
        }
    }
}

impl Scheduler for NodeScheduler {
    fn reset(&mut self, jobs: &Jobs, procs: u32) {
        assert_eq!(jobs.len(), self.requests.len(), "one request per job");
        self.pool.reset();
        self.held.reset(jobs.len());
        self.stranded = Stranded::default();
        self.waiting.clear();
        self.backfilled = 0;
        self.reservation = None;
        self.slots.clear();
        if self.policy == NodePolicy::Conservative {
            self.slots.resize_with(jobs.len(), || None);
        }
        self.priority.clear();
        if self.policy == NodePolicy::Priority {
            let priority = jobs
                .priority
                .as_ref()
                .expect("prio needs job priorities: give a priority map (--priorities or `priorities`)");
            self.priority.extend_from_slice(priority);
        }
        self.refit = false;
        if let Some(ga) = &mut self.ga {
            ga.reset(jobs, procs);
        }
    }

    fn on_arrival(&mut self, job: JobId, _ctx: &SchedCtx) {
        if self.policy == NodePolicy::Priority {
            // Behind every waiting job of its priority or a higher one.
            let priority = &self.priority;
            let key = (priority[job.index()], job);
            let at = self.waiting.partition_point(|&w| (priority[w.index()], w) < key);
            self.waiting.insert(at, job);
            // The jobs from `at` on move: test them again.
            self.tested = self.tested.min(at);
        } else {
            self.waiting.push(job);
        }
    }

    fn on_prediction_changed(&mut self, _job: JobId, _old: Time, _ctx: &SchedCtx) {
        // A new predicted end moves the shadow time.
        self.reservation = None;
    }

    fn on_termination(&mut self, job: JobId, ctx: &SchedCtx) {
        self.reservation = None;
        let start = ctx.start_time(job).expect("a terminated job started");
        // Ended before its estimate: its nodes are free earlier than reservations assumed.
        self.refit |= ctx.now() < start + ctx.jobs().estimate[job.index()];
        let by = self
            .pool
            .give_back_counting(&self.requests[job.index()], self.held.of(job));
        self.stranded.change(ctx.now(), by);
        self.held.release(job);
    }

    fn stranded_core_seconds(&self) -> u64 {
        self.stranded.core_seconds
    }

    fn backfilled(&self) -> u64 {
        self.backfilled
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        match self.policy {
            NodePolicy::Conservative => return self.conservative(ctx),
            NodePolicy::Ga(_) => return self.evolve(ctx),
            _ => {}
        }
        self.start_heads(ctx);
        if self.waiting.len() > 1 {
            match self.policy {
                NodePolicy::Easy(order) => self.backfill(ctx, order),
                // The queue is in priority order: backfill reads it in place.
                NodePolicy::Priority => self.backfill(ctx, BackfillOrder::Arrival),
                NodePolicy::Fcfs | NodePolicy::Conservative | NodePolicy::Ga(_) => {}
            }
        }
    }

    fn waiting(&self) -> usize {
        self.waiting.len()
    }
}

/// Where `holder` holds its resources: its reservation's nodes while it waits (`slots`),
/// else the nodes it runs on (`held`).
fn placement_of<'a>(slots: &'a [Option<(Time, Placement)>], held: &'a Held, holder: JobId) -> &'a Placement {
    match &slots[holder.index()] {
        Some((_, p)) => p,
        None => held.of(holder),
    }
}
