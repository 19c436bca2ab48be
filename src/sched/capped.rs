//! FCFS, EASY (in arrival order, or shortest prediction first as SJBF) and conservative
//! backfilling under a power cap that changes over time: the cores that may be busy at once
//! follow a step function of time (`crate::machine::cap`), and a job starts only if, with
//! it, the busy cores stay within the cap from now until its predicted end, every running
//! job counted until its own.
//!
//! FCFS and EASY build, at each pass, the profile of cores free over time: the cap's cores
//! less the running jobs' until their predicted ends. Heads start in arrival order while
//! they fit for their whole prediction. EASY then reserves the first head that does not fit
//! at the earliest time it fits for its whole prediction, takes that from the profile, and
//! starts each later job (in arrival or prediction order) that fits from now to its
//! predicted end in what is left. With a constant cap this is EASY's own rule (the profile
//! only rises after now, so "fits for its whole prediction" is "fits now", and a job that
//! runs past the reservation must fit in what the head leaves then: `extra`); all are
//! checked job for job against `easy.rs`, `fcfs.rs` and `conservative.rs` under a constant
//! cap (`tests/it/power_cap.rs`). A pass asks for a wake-up at the next change of the cap
//! and at the head's reservation, since a rise of the cap may let jobs start when no job
//! arrives or ends.
//!
//! A job is counted until its predicted end, or its estimate's end where a runtime
//! predictor predicts more than the estimate: no job runs past its estimate, so that is
//! the tighter bound, and with it every job the partition keeps (`Partition::cap_holds`,
//! by the estimate) finds a window under a repeating cap.
//!
//! Conservative backfilling is `conservative.rs` with its profile made of the cap's cores
//! instead of the whole pool (`Conservative::under_cap`).
//!
//! The profile holds the cap only as far ahead as the pass's questions need: a fit that
//! reaches past what it holds is asked again once the cap's steps up to its end are in.
//! A pass costs O(running log running) for the running set, and O(steps) for each waiting
//! job it tries, where the steps are the running jobs' ends and the cap's changes up to
//! the head's reservation: plain by design, `easy.rs` stays the fast path where the cap is
//! constant.
//!
//! Guarantee, with predictions that hold (the users' estimates, which jobs never exceed):
//! the busy cores never exceed the cap, so the power stays at most the cap. A job that
//! outlives its prediction keeps running; where the cap falls meanwhile, the time over the
//! cap is what `crate::energy` reports.

use super::cap_profile::CapInProfile;
use super::conservative::Conservative;
use super::easy::BackfillOrder;
use super::nodes::NodePolicy;
use crate::Time;
use crate::machine::cap::CapOverTime;
use crate::sim::profile::Profile;
use crate::sim::{RunningJob, SchedCtx, Scheduler};
use crate::workload::{JobId, Jobs};

/// A scheduler of one pool of cores under a cap over time.
#[derive(Debug)]
pub struct CappedScheduler {
    policy: NodePolicy,
    /// FCFS and EASY: waiting jobs in arrival order.
    waiting: Vec<JobId>,
    /// Conservative backfilling, its profile made of the cap's cores.
    conservative: Conservative,
    /// FCFS and EASY, during a pass: cores free over time, and the cap taken into it.
    profile: Profile,
    cap: CapInProfile,
    /// Buffers kept across passes.
    candidates: Vec<JobId>,
    running: Vec<RunningJob>,
    ends: Vec<(Time, u32)>,
    backfilled: u64,
}

impl CappedScheduler {
    /// `policy` under `capacity`: the cores that may be busy over time.
    pub fn new(policy: NodePolicy, capacity: CapOverTime) -> CappedScheduler {
        CappedScheduler {
            policy,
            conservative: Conservative::under_cap(CapInProfile::new(capacity.clone())),
            cap: CapInProfile::new(capacity),
            waiting: Vec::new(),
            profile: Profile::default(),
            candidates: Vec::new(),
            running: Vec::new(),
            ends: Vec::new(),
            backfilled: 0,
        }
    }

    /// Whether `procs` cores are free from now for `duration`, the cap included.
    fn fits_now(&mut self, now: Time, procs: u32, duration: Time) -> bool {
        self.cap.fits_now(&mut self.profile, now, procs, duration)
    }

    /// How long `job` is counted from its start: its prediction, at most its estimate (see
    /// the module docs), at least 1 s.
    fn counted(ctx: &SchedCtx, job: JobId) -> Time {
        ctx.prediction(job).min(ctx.jobs().estimate[job.index()].max(1))
    }

    /// Starts `job` now, taking its cores from the profile for as long as it is counted.
    fn start(&mut self, ctx: &mut SchedCtx, job: JobId) {
        let (now, procs) = (ctx.now(), ctx.procs(job));
        self.profile
            .add(now, now + Self::counted(ctx, job), -(procs as i64));
        ctx.start(job);
    }

    /// The profile at `now`: every core, less the running jobs' for as long as they are
    /// counted (at least to the next instant: a job past its prediction still holds its
    /// cores); the cap is taken in as questions reach ahead. O(running log running).
    fn rebuild(&mut self, ctx: &mut SchedCtx) {
        let now = ctx.now();
        // A copy, as the running set is borrowed from the engine while `ctx` is read.
        self.running.clear();
        self.running.extend_from_slice(ctx.running_sorted());
        let mut ends = std::mem::take(&mut self.ends);
        ends.clear();
        for r in &self.running {
            let start = ctx.start_time(r.job).expect("a running job has started");
            let end = r.predicted_end.min(start + Self::counted(ctx, r.job));
            ends.push((end.max(now + 1), r.procs));
        }
        ends.sort_unstable();
        self.profile.reset_releasing(now, ctx.total(), &ends);
        self.ends = ends;
        self.cap.reset(now, ctx.total());
    }

    /// FCFS or EASY (`backfill`) at `ctx.now()`.
    fn pass(&mut self, ctx: &mut SchedCtx, backfill: Option<BackfillOrder>) {
        if self.waiting.is_empty() {
            return;
        }
        self.rebuild(ctx);
        let now = ctx.now();
        let mut started = 0;
        while let Some(&head) = self.waiting.get(started) {
            if !self.fits_now(now, ctx.procs(head), Self::counted(ctx, head)) {
                break;
            }
            self.start(ctx, head);
            started += 1;
        }
        self.waiting.drain(..started);
        let Some(&head) = self.waiting.first() else {
            return;
        };
        let (procs, duration) = (ctx.procs(head), Self::counted(ctx, head));
        let reserved = self.cap.earliest_fit(&mut self.profile, now, procs, duration);
        ctx.wake_at(reserved.min(self.cap.next_change(now)));
        let Some(order) = backfill else {
            return;
        };
        self.profile.add(reserved, reserved + duration, -(procs as i64));
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        candidates.extend_from_slice(&self.waiting[1..]);
        if order == BackfillOrder::ShortestPrediction {
            // Stable: ties stay in arrival order.
            candidates.sort_by_key(|&j| ctx.prediction(j));
        }
        let mut any = false;
        for &job in &candidates {
            if ctx.procs(job) <= ctx.free() && self.fits_now(now, ctx.procs(job), Self::counted(ctx, job)) {
                self.start(ctx, job);
                self.backfilled += 1;
                any = true;
            }
        }
        self.candidates = candidates;
        if any {
            self.waiting.retain(|&j| ctx.start_time(j).is_none());
        }
    }
}

impl Scheduler for CappedScheduler {
    fn reset(&mut self, jobs: &Jobs, procs: u32) {
        self.waiting.clear();
        self.backfilled = 0;
        if self.policy == NodePolicy::Conservative {
            self.conservative.reset(jobs, procs);
        }
    }

    fn on_arrival(&mut self, job: JobId, ctx: &SchedCtx) {
        match self.policy {
            NodePolicy::Conservative => self.conservative.on_arrival(job, ctx),
            _ => self.waiting.push(job),
        }
    }

    fn on_termination(&mut self, job: JobId, ctx: &SchedCtx) {
        if self.policy == NodePolicy::Conservative {
            self.conservative.on_termination(job, ctx);
        }
    }

    fn backfilled(&self) -> u64 {
        match self.policy {
            NodePolicy::Conservative => self.conservative.backfilled(),
            _ => self.backfilled,
        }
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        match self.policy {
            NodePolicy::Fcfs => self.pass(ctx, None),
            NodePolicy::Easy(order) => self.pass(ctx, Some(order)),
            NodePolicy::Conservative => self.conservative.schedule(ctx),
            NodePolicy::Priority | NodePolicy::Ga(_) => {
                unreachable!(
                    "Priority-FIFO and the GA under a cap over time are refused when the run is built"
                )
            }
        }
    }

    fn waiting(&self) -> usize {
        match self.policy {
            NodePolicy::Conservative => self.conservative.waiting(),
            _ => self.waiting.len(),
        }
    }
}
