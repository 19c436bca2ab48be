//! FCFS and EASY backfilling (in arrival order, or shortest prediction first as SJBF) on a
//! partition of nodes with cores, memory and GPUs, where a job fits only when enough nodes
//! can hold its request ([`crate::machine::pool`]).
//!
//! EASY's reservation is kept on every resource: the head's shadow time is the earliest
//! predicted end of running jobs (taken in ascending order, every job ending at that
//! instant released) after which the head fits on the nodes then free. A later job starts
//! now if it fits now and either ends by the shadow time, or the head still fits at the
//! shadow time on the nodes left once the job's own nodes are taken too: the node-level
//! form of EASY's `extra` processors. Each backfilled job is placed where best fit puts it
//! now, and only that placement is tested.
//!
//! Plain by design (a pass costs O(waiting x nodes)): the one-pool schedulers in
//! `easy.rs` and `fcfs.rs` stay the fast path for processors alone, and these are checked
//! against them where the two must agree (one-core nodes without memory).

use crate::Time;
use crate::machine::pool::{NodePool, NodeRequest, Placement};
use crate::sim::{SchedCtx, Scheduler};
use crate::workload::{JobId, Jobs};

use super::SchedulerKind;
use super::easy::BackfillOrder;

/// The policies that run on nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodePolicy {
    Fcfs,
    Easy(BackfillOrder),
}

impl NodePolicy {
    /// The policy a scheduler kind runs on nodes, if it has one yet.
    pub fn of(kind: SchedulerKind) -> Option<NodePolicy> {
        match kind {
            SchedulerKind::Fcfs => Some(NodePolicy::Fcfs),
            SchedulerKind::Easy | SchedulerKind::EasyPred => Some(NodePolicy::Easy(BackfillOrder::Arrival)),
            SchedulerKind::Sjbf => Some(NodePolicy::Easy(BackfillOrder::ShortestPrediction)),
            _ => None,
        }
    }

    /// The schedulers that run on nodes, for messages.
    pub const NAMES: [&'static str; 4] = ["fcfs", "easy", "sjbf", "easy-pred"];
}

/// A scheduler of one partition of nodes.
#[derive(Debug)]
pub struct NodeScheduler {
    policy: NodePolicy,
    pool: NodePool,
    /// Per job of the run.
    requests: Vec<NodeRequest>,
    held: Vec<Placement>,
    /// Waiting jobs in arrival order.
    waiting: Vec<JobId>,
    backfilled: u64,
    /// The head's reservation after the last pass: its shadow time, with `at_shadow`
    /// holding the nodes free then (less what jobs backfilled past it hold). Valid while
    /// the head is the same and no job has ended nor changed its prediction since: starts
    /// only shrink what is free, and arrivals change neither.
    reservation: Option<(JobId, Time)>,
    at_shadow: NodePool,
    /// Buffers kept across passes.
    choice: Placement,
    order: Vec<JobId>,
}

impl NodeScheduler {
    /// `policy` on `pool`, for jobs asking `requests` (one per job of the run, in its
    /// order).
    pub fn new(policy: NodePolicy, pool: NodePool, requests: Vec<NodeRequest>) -> NodeScheduler {
        NodeScheduler {
            policy,
            at_shadow: pool.clone(),
            pool,
            requests,
            held: Vec::new(),
            waiting: Vec::new(),
            backfilled: 0,
            reservation: None,
            choice: Placement::new(),
            order: Vec::new(),
        }
    }

    /// Starts `job` on `a`, which must fit now.
    fn start(&mut self, ctx: &mut SchedCtx, job: JobId, a: &Placement) {
        let r = self.requests[job.index()];
        self.pool.take(&r, a);
        self.held[job.index()].clone_from(a);
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
        started
    }

    /// The head's shadow time, with `at_shadow` left holding the nodes free then.
    fn shadow(&mut self, ctx: &mut SchedCtx, head: JobId) -> Time {
        self.at_shadow.clone_from(&self.pool);
        let need = self.requests[head.index()];
        let running = ctx.running_sorted();
        let mut i = 0;
        while i < running.len() {
            let end = running[i].predicted_end;
            while i < running.len() && running[i].predicted_end == end {
                let job = running[i].job.index();
                self.at_shadow.give_back(&self.requests[job], &self.held[job]);
                i += 1;
            }
            if self.at_shadow.fits(&need) {
                return end;
            }
        }
        unreachable!("job {} fits its partition's empty nodes", head.0)
    }

    fn backfill(&mut self, ctx: &mut SchedCtx, order: BackfillOrder) {
        let head = self.waiting[0];
        let shadow = match self.reservation {
            Some((h, shadow)) if h == head => shadow,
            _ => self.shadow(ctx, head),
        };
        self.reservation = Some((head, shadow));
        let need = self.requests[head.index()];
        let mut candidates = std::mem::take(&mut self.order);
        candidates.clear();
        candidates.extend_from_slice(&self.waiting[1..]);
        if order == BackfillOrder::ShortestPrediction {
            // Stable: ties stay in arrival order.
            candidates.sort_by_key(|&j| ctx.prediction(j));
        }
        let mut choice = std::mem::take(&mut self.choice);
        let now = ctx.now();
        let mut started = 0;
        for &job in &candidates {
            if self.pool.free_cores() == 0 {
                break;
            }
            let r = self.requests[job.index()];
            if !self.pool.choose(&r, &mut choice) {
                continue;
            }
            if now + ctx.prediction(job) > shadow {
                // Still running at the shadow time: the head must fit beside it then.
                self.at_shadow.take(&r, &choice);
                if !self.at_shadow.fits(&need) {
                    self.at_shadow.give_back(&r, &choice);
                    continue;
                }
            }
            self.start(ctx, job, &choice);
            started += 1;
        }
        self.choice = choice;
        self.order = candidates;
        if started > 0 {
            self.backfilled += started as u64;
            self.waiting.retain(|&j| ctx.start_time(j).is_none());
        }
    }
}

impl Scheduler for NodeScheduler {
    fn reset(&mut self, jobs: &Jobs, _procs: u32) {
        assert_eq!(jobs.len(), self.requests.len(), "one request per job");
        self.pool.reset();
        self.held.iter_mut().for_each(Vec::clear);
        self.held.resize_with(jobs.len(), Vec::new);
        self.waiting.clear();
        self.backfilled = 0;
        self.reservation = None;
    }

    fn on_arrival(&mut self, job: JobId, _ctx: &SchedCtx) {
        self.waiting.push(job);
    }

    fn on_prediction_changed(&mut self, _job: JobId, _old: Time, _ctx: &SchedCtx) {
        // A new predicted end moves the shadow time.
        self.reservation = None;
    }

    fn on_termination(&mut self, job: JobId, _ctx: &SchedCtx) {
        self.reservation = None;
        let held = std::mem::take(&mut self.held[job.index()]);
        self.pool.give_back(&self.requests[job.index()], &held);
        self.held[job.index()] = held;
        self.held[job.index()].clear();
    }

    fn backfilled(&self) -> u64 {
        self.backfilled
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        self.start_heads(ctx);
        if let (NodePolicy::Easy(order), true) = (self.policy, self.waiting.len() > 1) {
            self.backfill(ctx, order);
        }
    }

    fn waiting(&self) -> usize {
        self.waiting.len()
    }
}
