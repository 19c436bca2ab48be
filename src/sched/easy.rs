//! EASY backfilling and SJBF (shortest job backfilled first).
//!
//! Each pass: start queue heads in arrival order while they fit (FCFS). If jobs still wait,
//! the head gets a reservation at its shadow time: the earliest predicted end of running
//! jobs, in ascending order, at which the free processors reach the head's size. `extra` is
//! the processors free at the shadow time (every running job predicted to end at or before
//! it counted) minus the head's size. Each later waiting job then starts now if it fits in
//! the free processors and either ends by the shadow time (`now + prediction <= shadow`) or
//! fits in `extra`; only in the second case is `extra` reduced.
//!
//! EASY tries the later jobs in arrival order; SJBF in ascending order of prediction, ties
//! by arrival. Predictions are the engine's (the estimate, at least 1 s, until a runtime
//! predictor replaces it). Both keep one queue in arrival order: since `free` and `extra`
//! only fall during a scan, a job that fails the test against their values at the scan's
//! start fails it at its turn too, so SJBF looks for the least prediction only among the
//! jobs that pass (see `WaitList::backfill`) instead of keeping every waiting job in
//! prediction order.
//!
//! Invariant (checked in debug builds, exposed by [`Easy::head_shadows`] for tests): while
//! no running job outlives its prediction (always, with estimates or perfect predictions),
//! a job never starts later than the shadow time computed when it first became a blocked
//! head. Where idle nodes are switched off, a job started now may wait up to
//! [`SchedCtx::boot_margin`] for nodes to boot (0 while no node is off): the backfill test
//! then reads the shadow time less that margin, so the head is still started by its shadow
//! time, and runs at most the margin later.
//!
//! Cost per pass: O(running) for the shadow time plus O(waiting) for the backfill scan,
//! which stops as soon as no processor is free. A pass with no termination since the last
//! one reuses the last reservation and tries only the new arrivals (see `schedule`); a
//! runtime predictor that changes a running job's prediction must invalidate it the same way
//! a termination does.

use crate::Time;
use crate::sim::{SchedCtx, Scheduler};
use crate::workload::{JobId, Jobs};

use super::waitlist::{Reservation, STARTED, WaitList, Waiting};
use super::{NodePolicy, SchedulerEntry, SchedulerKind};

/// Order in which waiting jobs behind the head are tried for backfilling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackfillOrder {
    /// EASY.
    Arrival,
    /// SJBF: ascending prediction, ties by arrival.
    ShortestPrediction,
}

/// No shadow time recorded.
const NO_SHADOW: Time = Time::MAX;

/// EASY backfilling, or SJBF with [`BackfillOrder::ShortestPrediction`] (see the module docs).
#[derive(Debug)]
pub struct Easy {
    order: BackfillOrder,
    /// Waiting jobs in arrival order from `front` on. Backfilled jobs stay, marked
    /// `STARTED`, until they are half of it: removal is then one compaction, O(1) amortised
    /// per job.
    queue: WaitList,
    front: usize,
    /// Started entries in `queue[front..]`.
    dead: usize,
    /// Per job: shadow time when it first was a blocked head, or `NO_SHADOW`.
    head_shadow: Vec<Time>,
    /// The head's reservation after the last pass, valid while no job has ended since.
    reservation: Option<Reservation>,
    /// `queue[..tested]` failed the backfill test against `reservation` in earlier passes.
    tested: usize,
    /// Jobs started ahead of the head.
    backfilled: u64,
    /// A running job outlived its prediction in this run: from then on the head may start
    /// after its first shadow time, as the shadow rested on a prediction that proved low.
    missed: bool,
    /// The boot margin the last pass's test read ([`SchedCtx::boot_margin`]).
    margin: Time,
}

impl Easy {
    pub fn new(order: BackfillOrder) -> Self {
        Easy {
            order,
            queue: WaitList::default(),
            front: 0,
            dead: 0,
            head_shadow: Vec::new(),
            reservation: None,
            tested: 0,
            backfilled: 0,
            missed: false,
            margin: 0,
        }
    }

    /// Per job, the shadow time computed when it first was a blocked head (`None` if it
    /// never waited at the head).
    pub fn head_shadows(&self) -> impl Iterator<Item = Option<Time>> + '_ {
        self.head_shadow.iter().map(|&s| (s != NO_SHADOW).then_some(s))
    }

    /// The head's reservation: its shadow time and the extra processors then.
    pub(super) fn compute_reservation(ctx: &mut SchedCtx, head: JobId) -> Reservation {
        let (shadow, extra) = ctx.shadow(ctx.procs(head));
        Reservation { head, shadow, extra }
    }
}

impl SchedulerEntry for Easy {
    type Scheduler = Easy;
    const NAME: &'static str = "easy";
    const COUNTS_BOOTS: bool = true;
    const SYNTAX: &'static str = "easy";
    const HELP: &'static str = "EASY backfilling, the classic baseline: jobs pass the head in arrival order when \
                                they leave its reservation alone, by the users' estimates";
    const DEFAULT: SchedulerKind = SchedulerKind::Easy;
    fn build(_: &SchedulerKind) -> Easy {
        Easy::new(BackfillOrder::Arrival)
    }
    fn on_nodes(_: &SchedulerKind) -> Option<NodePolicy> {
        Some(NodePolicy::Easy(BackfillOrder::Arrival))
    }
}

/// The registry's `sjbf`: [`Easy`] backfilling shortest predicted job first.
pub struct Sjbf;

impl SchedulerEntry for Sjbf {
    type Scheduler = Easy;
    const NAME: &'static str = "sjbf";
    const COUNTS_BOOTS: bool = true;
    const SYNTAX: &'static str = "sjbf";
    const HELP: &'static str =
        "EASY backfilling the shortest predicted job first, with the runtime predictor";
    const USES_PREDICTIONS: bool = true;
    const DEFAULT: SchedulerKind = SchedulerKind::Sjbf;
    fn build(_: &SchedulerKind) -> Easy {
        Easy::new(BackfillOrder::ShortestPrediction)
    }
    fn on_nodes(_: &SchedulerKind) -> Option<NodePolicy> {
        Some(NodePolicy::Easy(BackfillOrder::ShortestPrediction))
    }
}

/// The registry's `easy-pred`: [`Easy`] in arrival order, its shadow time and backfill test
/// from the runtime predictor.
pub struct EasyPred;

impl SchedulerEntry for EasyPred {
    type Scheduler = Easy;
    const NAME: &'static str = "easy-pred";
    const COUNTS_BOOTS: bool = true;
    const SYNTAX: &'static str = "easy-pred";
    const HELP: &'static str = "EASY in arrival order with the runtime predictor's predictions for the shadow time \
                                and the backfill test";
    const USES_PREDICTIONS: bool = true;
    const DEFAULT: SchedulerKind = SchedulerKind::EasyPred;
    fn build(_: &SchedulerKind) -> Easy {
        Easy::new(BackfillOrder::Arrival)
    }
    fn on_nodes(_: &SchedulerKind) -> Option<NodePolicy> {
        Some(NodePolicy::Easy(BackfillOrder::Arrival))
    }
}

impl Scheduler for Easy {
    fn reset(&mut self, jobs: &Jobs, _procs: u32) {
        self.queue.clear();
        self.front = 0;
        self.dead = 0;
        self.head_shadow.clear();
        self.head_shadow.resize(jobs.len(), NO_SHADOW);
        self.reservation = None;
        self.tested = 0;
        self.backfilled = 0;
        self.missed = false;
        self.margin = 0;
    }

    fn on_arrival(&mut self, job: JobId, ctx: &SchedCtx) {
        self.queue.push(Waiting {
            prediction: ctx.prediction(job),
            job,
            procs: ctx.procs(job),
        });
    }

    fn on_termination(&mut self, _job: JobId, _ctx: &SchedCtx) {
        // Freed processors change the shadow time and extra: every waiting job is retried.
        self.reservation = None;
    }

    fn on_prediction_changed(&mut self, job: JobId, old: Time, ctx: &SchedCtx) {
        // A new predicted end moves the shadow time; a new prediction for a waiting job
        // changes its backfill test: retry everything.
        self.reservation = None;
        let new = ctx.prediction(job);
        if ctx.start_time(job).is_some() {
            // The shadow rested on the old prediction, which may have been too low.
            self.missed |= new > old;
            return;
        }
        if let Some(i) = self.queue.jobs()[self.front..].iter().position(|w| w.job == job) {
            self.queue.set_prediction(self.front + i, new);
        }
    }

    fn backfilled(&self) -> u64 {
        self.backfilled
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        // FCFS part: start heads while they fit, passing over entries started earlier.
        let mut heads = 0;
        let mut i = self.front;
        while let Some(&w) = self.queue.jobs().get(i) {
            if w.procs == STARTED {
                self.dead -= 1;
            } else if w.procs <= ctx.free() {
                debug_assert!(
                    self.missed || ctx.now() <= self.head_shadow[w.job.index()],
                    "head {:?} started after its reservation",
                    w.job
                );
                ctx.start(w.job);
                heads += 1;
            } else {
                break;
            }
            i += 1;
        }
        self.front = i;
        let mut backfilled = 0;
        let mut reservation = None;
        if let Some(head) = self.queue.jobs().get(self.front).map(|w| w.job) {
            // Incremental pass: with no termination since the last pass and the same head,
            // the reservation is unchanged (jobs backfilled then are already counted in it)
            // and every job tested then fails again, since `now` only grew while the free
            // processors and `extra` did not. Only the arrivals since then are tried.
            // The boot margin of this instant (`SchedCtx::boot_margin`) is part of the test:
            // a change of it retests every job.
            let margin = ctx.boot_margin();
            let cached = self
                .reservation
                .filter(|r| r.head == head && heads == 0 && self.margin == margin);
            let (mut r, from) = match cached {
                Some(r) => (r, self.tested),
                None => {
                    // Only a new reservation can lower the head's recorded shadow time.
                    let r = Self::compute_reservation(ctx, head);
                    let recorded = &mut self.head_shadow[head.index()];
                    *recorded = (*recorded).min(r.shadow);
                    (r, self.front + 1)
                }
            };
            let (now, free) = (ctx.now(), ctx.free());
            // A job started now may wait for a boot before it runs: the time test leaves
            // that much room, so that no backfilled job delays the head.
            // (At `now` itself no job passes the time test, predictions being 1 s or more.)
            let shadow = r.shadow;
            r.shadow = (shadow - margin).max(now);
            backfilled = self
                .queue
                .backfill(from, now, free, &mut r, self.order, |job| ctx.start(job));
            r.shadow = shadow;
            reservation = Some(r);
            self.margin = margin;
        }
        self.dead += backfilled;
        self.backfilled += backfilled as u64;
        let live = self.queue.len() - self.front - self.dead;
        if live == 0 {
            self.queue.clear();
            (self.front, self.dead) = (0, 0);
        } else if self.front + self.dead > live + 16 {
            self.queue.compact(self.front, |w| w.procs != STARTED);
            (self.front, self.dead) = (0, 0);
        }
        self.reservation = reservation;
        self.tested = self.queue.len();
    }

    fn waiting(&self) -> usize {
        self.queue.len() - self.front - self.dead
    }
}
