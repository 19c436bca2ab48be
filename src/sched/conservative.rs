//! Conservative backfilling with compression (the Mu'alem & Feitelson variant).
//!
//! Every waiting job holds a reservation: the earliest time at which it fits for its whole
//! estimate in the availability profile made of running jobs (until start + estimate) and
//! the other waiting jobs' reservations. Each pass:
//! 1. if the profile gained room since the last pass (a job ended before its estimate, or a
//!    zero-estimate job could not start), the waiting jobs are re-fitted in arrival order:
//!    each is taken out of the profile and put back at its earliest fit, which is never later
//!    than its previous reservation (without new room nothing could move, so the pass skips
//!    this step);
//! 2. jobs that arrived at this instant get reservations, in trace order;
//! 3. every job whose reservation is now starts. Zero-estimate jobs (runtime 0, since the
//!    runtime never exceeds the estimate) reserve nothing and only need their processors free
//!    at this instant; they go first, and one that does not fit is re-fitted. Positive-estimate
//!    jobs fit by construction of the profile, except beside zero-estimate jobs started in the
//!    same round: those end within the instant, and the further round at the same instant
//!    starts them, still at their reserved time.
//!
//! After the pass it asks the engine for a wake-up at the earliest future reservation, since
//! a reservation need not coincide with an arrival or a termination.
//!
//! Invariant (exposed by [`Conservative::first_reservations`] for tests): no job with a
//! positive estimate starts later than the first reservation it was given. A zero-estimate
//! job holds no reservation, so a later job may take its processors at its instant and it
//! carries no such promise.
//!
//! Cost: O(profile) per reservation; a re-fit pass is O(waiting x profile).

use crate::Time;
use crate::sim::profile::Profile;
use crate::sim::{SchedCtx, Scheduler};
use crate::workload::{JobId, Jobs};

#[derive(Debug, Default)]
pub struct Conservative {
    /// Waiting jobs with reservations, in arrival order.
    queue: Vec<JobId>,
    /// Jobs that arrived at this instant, waiting for their reservation.
    arrived: Vec<JobId>,
    reservation: Vec<Time>,
    first_reservation: Vec<Time>,
    profile: Profile,
    /// The profile gained room since the last pass.
    refit: bool,
}

impl Conservative {
    /// Per job, the first reservation it was given.
    pub fn first_reservations(&self) -> &[Time] {
        &self.first_reservation
    }

    fn reserve(&mut self, ctx: &SchedCtx, job: JobId) -> Time {
        let (procs, duration) = (ctx.procs(job), ctx.jobs().estimate[job.index()]);
        let at = self.profile.earliest_fit(ctx.now(), procs, duration);
        self.profile.add(at, at + duration, -(procs as i64));
        self.reservation[job.index()] = at;
        at
    }
}

impl Scheduler for Conservative {
    fn reset(&mut self, jobs: &Jobs, procs: u32) {
        self.queue.clear();
        self.arrived.clear();
        self.reservation.clear();
        self.reservation.resize(jobs.len(), Time::MAX);
        self.first_reservation.clear();
        self.first_reservation.resize(jobs.len(), Time::MAX);
        self.profile
            .reset(jobs.submit.first().copied().unwrap_or(0), procs);
        self.refit = false;
    }

    fn on_arrival(&mut self, job: JobId, _ctx: &SchedCtx) {
        self.arrived.push(job);
    }

    fn on_termination(&mut self, job: JobId, ctx: &SchedCtx) {
        let j = job.index();
        let reserved_until = ctx.start_time(job).expect("a terminated job started") + ctx.jobs().estimate[j];
        if ctx.now() < reserved_until {
            self.profile.add(ctx.now(), reserved_until, ctx.procs(job) as i64);
            self.refit = true;
        }
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        let now = ctx.now();
        self.profile.advance(now);
        if std::mem::take(&mut self.refit) {
            for i in 0..self.queue.len() {
                let job = self.queue[i];
                let j = job.index();
                let (old, procs) = (self.reservation[j], ctx.procs(job));
                let duration = ctx.jobs().estimate[j];
                if duration > 0 {
                    self.profile.add(old, old + duration, procs as i64);
                }
                let new = self.reserve(ctx, job);
                // Zero-estimate jobs hold nothing, so another job's reservation may cover
                // their instant; every other job keeps its promise.
                debug_assert!(duration == 0 || new <= old, "job {job:?} pushed from {old} to {new}");
            }
        }
        for i in 0..self.arrived.len() {
            let job = self.arrived[i];
            let at = self.reserve(ctx, job);
            self.first_reservation[job.index()] = at;
            self.queue.push(job);
        }
        self.arrived.clear();
        // Zero-estimate jobs first: they end within this instant, and a further round at the
        // same instant then starts the positive-estimate jobs reserved now, at the same time.
        let mut started = false;
        let mut started_zero = false;
        for zero_estimate in [true, false] {
            for &job in &self.queue {
                let j = job.index();
                if self.reservation[j] != now || (ctx.jobs().estimate[j] == 0) != zero_estimate {
                    continue;
                }
                if ctx.procs(job) <= ctx.free() {
                    ctx.start(job);
                    started = true;
                    started_zero |= zero_estimate;
                } else if zero_estimate {
                    // Another zero-estimate job took the processors: fit again next round.
                    self.refit = true;
                } else {
                    debug_assert!(started_zero, "job {job:?} reserved at {now} does not fit");
                }
            }
        }
        if started {
            self.queue.retain(|&j| ctx.start_time(j).is_none());
        }
        // A reservation may sit at a time when no job arrives or ends (its job was fitted
        // behind a reservation that later moved earlier), so ask for a pass there.
        let next = self
            .queue
            .iter()
            .map(|j| self.reservation[j.index()])
            .filter(|&r| r > now)
            .min();
        if let Some(t) = next {
            ctx.wake_at(t);
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len() + self.arrived.len()
    }
}
