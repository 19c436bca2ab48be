//! Priority-FIFO (Lee & Snavely, section 7): every waiting job of a higher priority is
//! considered before any of a lower one, FIFO within a priority, with EASY backfilling
//! within that order.
//!
//! Each pass: start jobs in (priority, arrival) order while they fit; the first that does
//! not is the head and gets EASY's reservation (its shadow time and extra processors, see
//! `easy`); every later job in the same order then starts if it fits now and either ends by
//! the shadow time or fits in the extra processors. A job of a lower priority may thus
//! backfill ahead of a higher one, but never delays the head. A newly arrived job of a
//! higher priority becomes the head at once, so unlike EASY's a head's reservation can move
//! later: that is the policy.
//!
//! Priorities come from the jobs' `priority` column (0 the highest, see
//! [`crate::utility::PriorityMap`]). Cost per pass: O(running + waiting); an arrival is
//! inserted in order in O(waiting).

use super::easy::{BackfillOrder, Easy};
use super::waitlist::{STARTED, WaitList, Waiting};
use super::{NodePolicy, SchedulerEntry, SchedulerKind};
use crate::sim::{SchedCtx, Scheduler};
use crate::workload::{JobId, Jobs};

/// Priority-FIFO with EASY backfilling (module docs).
#[derive(Debug, Default)]
pub struct PriorityFifo {
    /// Waiting jobs sorted by (priority, arrival).
    queue: WaitList,
    /// Priority of each job of the run.
    priority: Vec<u16>,
    backfilled: u64,
}

impl SchedulerEntry for PriorityFifo {
    type Scheduler = PriorityFifo;
    const NAME: &'static str = "prio";
    const SYNTAX: &'static str = "prio";
    const HELP: &'static str = "Priority-FIFO (Lee & Snavely): the highest priority class first, FIFO within it, \
                                with EASY backfilling; needs --priorities";
    const NEEDS: Option<&'static str> = Some("priorities");
    const DEFAULT: SchedulerKind = SchedulerKind::Prio;
    fn build(_: &SchedulerKind) -> PriorityFifo {
        PriorityFifo::default()
    }
    fn on_nodes(_: &SchedulerKind) -> Option<NodePolicy> {
        Some(NodePolicy::Priority)
    }
}

impl Scheduler for PriorityFifo {
    fn reset(&mut self, jobs: &Jobs, _procs: u32) {
        let priority = jobs
            .priority
            .as_ref()
            .expect("prio needs job priorities: give a priority map (--priorities or `priorities`)");
        self.priority.clear();
        self.priority.extend_from_slice(priority);
        self.queue.clear();
        self.backfilled = 0;
    }

    fn on_arrival(&mut self, job: JobId, ctx: &SchedCtx) {
        let key = (self.priority[job.index()], job);
        let priority = &self.priority;
        let at = self
            .queue
            .jobs()
            .partition_point(|w| (priority[w.job.index()], w.job) < key);
        self.queue.insert(
            at,
            Waiting {
                prediction: ctx.prediction(job),
                job,
                procs: ctx.procs(job),
            },
        );
    }

    fn on_prediction_changed(&mut self, job: JobId, _old: crate::Time, ctx: &SchedCtx) {
        if let Some(i) = self.queue.jobs().iter().position(|w| w.job == job) {
            self.queue.set_prediction(i, ctx.prediction(job));
        }
    }

    fn backfilled(&self) -> u64 {
        self.backfilled
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        let heads = self
            .queue
            .jobs()
            .iter()
            .take_while(|w| w.procs <= ctx.free())
            .count();
        // Starting in order: each start lowers `free`, so re-test as we go.
        let mut started = 0;
        for w in &self.queue.jobs()[..heads] {
            if w.procs > ctx.free() {
                break;
            }
            ctx.start(w.job);
            started += 1;
        }
        if started > 0 {
            self.queue.compact(started, |_| true);
        }
        let Some(head) = self.queue.jobs().first().map(|w| w.job) else {
            return;
        };
        let mut r = Easy::compute_reservation(ctx, head);
        let (now, free) = (ctx.now(), ctx.free());
        let backfilled = self
            .queue
            .backfill(1, now, free, &mut r, BackfillOrder::Arrival, |job| ctx.start(job));
        if backfilled > 0 {
            self.queue.compact(0, |w| w.procs != STARTED);
            self.backfilled += backfilled as u64;
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }
}
