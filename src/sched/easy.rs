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
//! which stops as soon as no processor is free.

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

#[derive(Debug)]
pub struct Easy {
    order: BackfillOrder,
    /// Waiting jobs in arrival order.
    queue: Vec<JobId>,
    /// SJBF only: waiting jobs sorted by (prediction at arrival, arrival).
    by_prediction: Vec<(Time, JobId)>,
    /// Per job: shadow time when it first was a blocked head, or `NO_SHADOW`.
    head_shadow: Vec<Time>,
}

impl Easy {
    pub fn new(order: BackfillOrder) -> Self {
        Easy {
            order,
            queue: Vec::new(),
            by_prediction: Vec::new(),
            head_shadow: Vec::new(),
        }
    }

    /// Per job, the shadow time computed when it first was a blocked head (`None` if it
    /// never waited at the head).
    pub fn head_shadows(&self) -> impl Iterator<Item = Option<Time>> + '_ {
        self.head_shadow.iter().map(|&s| (s != NO_SHADOW).then_some(s))
    }

    /// The head's shadow time and the extra processors at that time.
    fn reservation(ctx: &SchedCtx, head: JobId) -> (Time, u32) {
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
        (shadow, avail - need)
    }
}

impl Scheduler for Easy {
    fn reset(&mut self, jobs: &Jobs, _procs: u32) {
        self.queue.clear();
        self.by_prediction.clear();
        self.head_shadow.clear();
        self.head_shadow.resize(jobs.len(), NO_SHADOW);
    }

    fn on_arrival(&mut self, job: JobId, ctx: &SchedCtx) {
        self.queue.push(job);
        if self.order == BackfillOrder::ShortestPrediction {
            let key = (ctx.prediction(job), job);
            let at = self.by_prediction.partition_point(|&k| k < key);
            self.by_prediction.insert(at, key);
        }
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        // FCFS part: start heads while they fit.
        let mut first_waiting = 0;
        while let Some(&head) = self.queue.get(first_waiting) {
            if ctx.procs(head) > ctx.free() {
                break;
            }
            debug_assert!(
                ctx.now() <= self.head_shadow[head.index()],
                "head {head:?} started after its reservation"
            );
            ctx.start(head);
            first_waiting += 1;
        }
        let started_heads = first_waiting > 0;
        let mut backfilled = false;
        if let Some(&head) = self.queue.get(first_waiting) {
            let (shadow, mut extra) = Self::reservation(ctx, head);
            let recorded = &mut self.head_shadow[head.index()];
            *recorded = (*recorded).min(shadow);
            let now = ctx.now();
            let mut try_backfill = |ctx: &mut SchedCtx, job: JobId| {
                let procs = ctx.procs(job);
                if procs > ctx.free() {
                    return false;
                }
                if now + ctx.prediction(job) <= shadow {
                    ctx.start(job);
                } else if procs <= extra {
                    extra -= procs;
                    ctx.start(job);
                } else {
                    return false;
                }
                true
            };
            match self.order {
                BackfillOrder::Arrival => {
                    for &job in &self.queue[first_waiting + 1..] {
                        if ctx.free() == 0 {
                            break;
                        }
                        backfilled |= try_backfill(ctx, job);
                    }
                }
                BackfillOrder::ShortestPrediction => {
                    for &(_, job) in &self.by_prediction {
                        if ctx.free() == 0 {
                            break;
                        }
                        if job != head && ctx.start_time(job).is_none() {
                            backfilled |= try_backfill(ctx, job);
                        }
                    }
                }
            }
        }
        if backfilled {
            self.queue.retain(|&j| ctx.start_time(j).is_none());
        } else if started_heads {
            self.queue.drain(..first_waiting);
        }
        if (backfilled || started_heads) && self.order == BackfillOrder::ShortestPrediction {
            self.by_prediction.retain(|&(_, j)| ctx.start_time(j).is_none());
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }
}
