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
//! predictor replaces it).
//!
//! Invariant (checked in debug builds, exposed by [`Easy::head_shadows`] for tests): a job
//! never starts later than the shadow time computed when it first became a blocked head.
//!
//! Cost per pass: O(running) for the shadow time plus O(waiting) for the backfill scan,
//! which stops as soon as no processor is free. A pass with no termination since the last
//! one reuses the last reservation and tries only the new arrivals (see `schedule`); a
//! runtime predictor that changes a running job's prediction must invalidate it the same way
//! a termination does.

use crate::Time;
use crate::sim::{SchedCtx, Scheduler};
use crate::workload::{JobId, Jobs};

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

/// A waiting job with what the backfill test reads, kept inline so the scan touches one
/// array. The prediction of a waiting job does not change while it waits.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    prediction: Time,
    job: JobId,
    procs: u32,
}

/// `Waiting::procs` of a job started during this pass: no free count is that large, so the
/// marked entry is never tried again, and compaction needs no lookup.
const STARTED: u32 = u32::MAX;

/// The head's reservation as computed at the end of the previous pass.
#[derive(Clone, Copy, Debug)]
struct Reservation {
    head: JobId,
    shadow: Time,
    extra: u32,
}

#[derive(Debug)]
pub struct Easy {
    order: BackfillOrder,
    /// Waiting jobs in arrival order.
    queue: Vec<Waiting>,
    /// SJBF only: waiting jobs sorted by (prediction, arrival).
    by_prediction: Vec<Waiting>,
    /// Per job: shadow time when it first was a blocked head, or `NO_SHADOW`.
    head_shadow: Vec<Time>,
    /// The head's reservation after the last pass, valid while no job has ended since.
    reservation: Option<Reservation>,
    /// `queue[..tested]` failed the backfill test against `reservation` in earlier passes.
    tested: usize,
    /// SJBF scratch: the arrivals since the last pass, in prediction order.
    fresh: Vec<Waiting>,
}

impl Easy {
    pub fn new(order: BackfillOrder) -> Self {
        Easy {
            order,
            queue: Vec::new(),
            by_prediction: Vec::new(),
            head_shadow: Vec::new(),
            reservation: None,
            tested: 0,
            fresh: Vec::new(),
        }
    }

    /// Per job, the shadow time computed when it first was a blocked head (`None` if it
    /// never waited at the head).
    pub fn head_shadows(&self) -> impl Iterator<Item = Option<Time>> + '_ {
        self.head_shadow.iter().map(|&s| (s != NO_SHADOW).then_some(s))
    }

    /// The head's shadow time and the extra processors at that time. O(running).
    fn compute_reservation(ctx: &SchedCtx, head: JobId) -> Reservation {
        let need = ctx.procs(head);
        let mut avail = ctx.free();
        let running = ctx.running();
        let mut i = 0;
        while avail < need {
            avail += running[i].procs;
            i += 1;
        }
        let shadow = running[i - 1].predicted_end;
        while i < running.len() && running[i].predicted_end == shadow {
            avail += running[i].procs;
            i += 1;
        }
        Reservation {
            head,
            shadow,
            extra: avail - need,
        }
    }

    /// Tries `candidates` in order against the reservation, marking those it starts with
    /// `STARTED`; returns whether any started.
    fn backfill<'a>(
        ctx: &mut SchedCtx,
        candidates: impl Iterator<Item = &'a mut Waiting>,
        r: &mut Reservation,
    ) -> bool {
        let now = ctx.now();
        let mut started = false;
        for w in candidates {
            let free = ctx.free();
            if free == 0 {
                break;
            }
            if w.procs > free || w.job == r.head {
                continue;
            }
            if now + w.prediction <= r.shadow {
                ctx.start(w.job);
            } else if w.procs <= r.extra {
                r.extra -= w.procs;
                ctx.start(w.job);
            } else {
                continue;
            }
            w.procs = STARTED;
            started = true;
        }
        started
    }
}

impl Scheduler for Easy {
    fn reset(&mut self, jobs: &Jobs, _procs: u32) {
        self.queue.clear();
        self.by_prediction.clear();
        self.head_shadow.clear();
        self.head_shadow.resize(jobs.len(), NO_SHADOW);
        self.reservation = None;
        self.tested = 0;
    }

    fn on_arrival(&mut self, job: JobId, ctx: &SchedCtx) {
        let w = Waiting {
            prediction: ctx.prediction(job),
            job,
            procs: ctx.procs(job),
        };
        self.queue.push(w);
        if self.order == BackfillOrder::ShortestPrediction {
            let key = (w.prediction, job);
            let at = self
                .by_prediction
                .partition_point(|v| (v.prediction, v.job) < key);
            self.by_prediction.insert(at, w);
        }
    }

    fn on_termination(&mut self, _job: JobId, _ctx: &SchedCtx) {
        // Freed processors change the shadow time and extra: every waiting job is retried.
        self.reservation = None;
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        // FCFS part: start heads while they fit.
        let mut heads = 0;
        while let Some(w) = self.queue.get(heads) {
            if w.procs > ctx.free() {
                break;
            }
            debug_assert!(
                ctx.now() <= self.head_shadow[w.job.index()],
                "head {:?} started after its reservation",
                w.job
            );
            ctx.start(w.job);
            heads += 1;
        }
        if heads > 0 && self.order == BackfillOrder::ShortestPrediction {
            self.by_prediction.retain(|w| ctx.start_time(w.job).is_none());
        }
        let mut backfilled = false;
        let mut reservation = None;
        if let Some(head) = self.queue.get(heads).map(|w| w.job) {
            // Incremental pass: with no termination since the last pass and the same head,
            // the reservation is unchanged (jobs backfilled then are already counted in it)
            // and every job tested then fails again, since `now` only grew while the free
            // processors and `extra` did not. Only the arrivals since then are tried.
            let cached = self.reservation.filter(|r| r.head == head && heads == 0);
            let mut r = cached.unwrap_or_else(|| Self::compute_reservation(ctx, head));
            let recorded = &mut self.head_shadow[head.index()];
            *recorded = (*recorded).min(r.shadow);
            let from = if cached.is_some() { self.tested } else { heads + 1 };
            backfilled = match self.order {
                BackfillOrder::Arrival => Self::backfill(ctx, self.queue[from..].iter_mut(), &mut r),
                BackfillOrder::ShortestPrediction if cached.is_some() => {
                    self.fresh.clear();
                    self.fresh.extend_from_slice(&self.queue[from..]);
                    self.fresh.sort_unstable_by_key(|w| (w.prediction, w.job));
                    Self::backfill(ctx, self.fresh.iter_mut(), &mut r)
                }
                BackfillOrder::ShortestPrediction => {
                    Self::backfill(ctx, self.by_prediction.iter_mut(), &mut r)
                }
            };
            reservation = Some(r);
        }
        match (backfilled, self.order) {
            (true, BackfillOrder::Arrival) => {
                self.queue.drain(..heads);
                self.queue.retain(|w| w.procs != STARTED);
            }
            (true, BackfillOrder::ShortestPrediction) => {
                // Marks were made in `by_prediction` or `fresh`, not in the queue.
                self.by_prediction
                    .retain(|w| w.procs != STARTED && ctx.start_time(w.job).is_none());
                self.queue.retain(|w| ctx.start_time(w.job).is_none());
            }
            (false, _) => {
                self.queue.drain(..heads);
            }
        }
        self.reservation = reservation;
        self.tested = self.queue.len();
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }
}
