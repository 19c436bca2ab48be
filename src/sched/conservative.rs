//! Conservative backfilling with compression (the Mu'alem & Feitelson variant).
//!
//! Every waiting job holds a reservation: the earliest time at which it fits for its whole
//! estimate in the availability profile made of running jobs (until start + estimate) and
//! the other waiting jobs' reservations. Each pass:
//! 1. the waiting jobs are re-fitted in arrival order: each is taken out of the profile and
//!    put back at its earliest fit, which is never later than its previous reservation.
//!    A job can only move if the profile gained room before its reservation since the last
//!    re-fit: a job ended before its estimate, a job later in the order moved earlier during
//!    the last re-fit (freeing its old slot after the earlier jobs had been placed), or a
//!    zero-estimate job could not start. Otherwise every job would find the same place, so
//!    the pass re-fits only the zero-estimate jobs (which hold nothing, so any reservation
//!    may cover their instant); the result is the same as re-fitting every job at every pass
//!    (checked against a naive implementation in `tests/it/reference.rs`);
//! 2. jobs that arrived at this instant get reservations, in trace order;
//! 3. every job whose reservation is now starts. Zero-estimate jobs (runtime 0, since the
//!    runtime never exceeds the estimate) reserve nothing and only need their processors free
//!    at this instant; they go first, and one that does not fit is re-fitted in the further
//!    round at this instant that the started ones cause. Positive-estimate
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
//! Where idle nodes are switched off, a job may wait up to
//! [`SchedCtx::most_boot_margin`] for a boot when it starts: every reservation then lasts
//! its estimate plus that margin (so no job has a reservation of length 0), and a job is started by its first
//! reservation and runs at most the margin later, within its reservation.
//!
//! Cost: O(profile) per reservation; a re-fit pass is O(waiting x profile).

use super::cap_profile::CapInProfile;
use super::{NodePolicy, SchedulerEntry, SchedulerKind};
use crate::Time;
use crate::sim::profile::Profile;
use crate::sim::{SchedCtx, Scheduler};
use crate::workload::{JobId, Jobs};

/// An interval where free processors increased, with the most free at any of its instants
/// right after the increase. Free processors there can only drop until another room covers
/// them, so a job needing more than `max_free` cannot use this room.
#[derive(Clone, Copy, Debug)]
struct Room {
    from: Time,
    to: Time,
    max_free: i64,
}

impl Room {
    /// Could a job of `procs` x `duration`, reserved at `reserved`, start earlier thanks to
    /// this room? Its new window `[t, t + duration)`, `now <= t < reserved`, must overlap
    /// the room at an instant where it fits.
    fn may_help(&self, now: Time, procs: u32, duration: Time, reserved: Time) -> bool {
        self.max_free >= procs as i64 && self.from < reserved + duration - 1 && self.to > now
    }
}

/// Adds `room` to `rooms`, merging it with the rooms it overlaps: the union covers their
/// intervals with the largest `max_free`, a bound that stays safe, and the list stays short.
fn merge_room(rooms: &mut Vec<Room>, mut room: Room) {
    rooms.retain(|r| {
        let overlaps = r.from <= room.to && room.from <= r.to;
        if overlaps {
            room = Room {
                from: room.from.min(r.from),
                to: room.to.max(r.to),
                max_free: room.max_free.max(r.max_free),
            };
        }
        !overlaps
    });
    rooms.push(room);
}

/// A waiting job with its reservation, and the size and estimate every pass reads, kept
/// inline: each pass walks the whole queue, and this way it reads one array in order.
#[derive(Clone, Copy, Debug)]
struct Queued {
    job: JobId,
    procs: u32,
    /// How long the reservation lasts: the estimate, plus the boot margin where idle nodes
    /// are switched off.
    duration: Time,
    reserved: Time,
}

/// Conservative backfilling with compression (see the module docs).
#[derive(Debug, Default)]
pub struct Conservative {
    /// Waiting jobs with reservations, in arrival order.
    queue: Vec<Queued>,
    /// Jobs that arrived at this instant, waiting for their reservation.
    arrived: Vec<JobId>,
    /// Waiting jobs with estimate 0.
    waiting_zero_estimate: usize,
    first_reservation: Vec<Time>,
    /// Per started job, the end of the reservation it started in: the profile holds its
    /// processors until then.
    reserved_until: Vec<Time>,
    profile: Profile,
    /// Where the profile gained room since the last re-fit began: a job ended before its
    /// estimate, or a job moved earlier and freed its old slot.
    rooms: Vec<Room>,
    /// Rooms found during the current re-fit, for the next one.
    next_rooms: Vec<Room>,
    /// Under a cap over time, the cap's cores taken into the profile as reservations reach
    /// ahead; `None`: the whole pool.
    cap: Option<CapInProfile>,
}

impl Conservative {
    /// Conservative backfilling with its profile made of the cap's cores over time instead of
    /// the whole pool (`super::capped`): every reservation, and so every start, keeps the
    /// busy cores within the cap for the job's whole estimate. The cap is in the profile
    /// wherever a reservation reaches, so its rises are room no re-fit needs to find (a
    /// re-fit only moves a job earlier, within what is already taken in).
    pub(super) fn under_cap(cap: CapInProfile) -> Conservative {
        Conservative {
            cap: Some(cap),
            ..Conservative::default()
        }
    }

    /// Per job, the first reservation it was given.
    pub fn first_reservations(&self) -> &[Time] {
        &self.first_reservation
    }

    /// Records room that appeared over `[from, to)`, for this re-fit if `now_too`, and for
    /// the next one.
    fn add_room(&mut self, from: Time, to: Time, now_too: bool) {
        let room = Room {
            from,
            to,
            max_free: self.profile.max_free(from, to),
        };
        merge_room(&mut self.next_rooms, room);
        if now_too {
            merge_room(&mut self.rooms, room);
        }
    }

    /// Reserves the earliest fit for `q` from now on (under `cap`, if any) and records it in
    /// `q`.
    fn reserve(profile: &mut Profile, cap: Option<&mut CapInProfile>, now: Time, q: &mut Queued) {
        let at = match cap {
            Some(cap) => cap.earliest_fit(profile, now, q.procs, q.duration),
            None => profile.earliest_fit(now, q.procs, q.duration),
        };
        profile.add(at, at + q.duration, -(q.procs as i64));
        q.reserved = at;
    }
}

impl SchedulerEntry for Conservative {
    type Scheduler = Conservative;
    const NAME: &'static str = "conservative";
    const COUNTS_BOOTS: bool = true;
    const SYNTAX: &'static str = "conservative";
    const HELP: &'static str = "conservative backfilling: every waiting job holds a reservation, and a job passes \
                                others only if it delays none of them";
    const DEFAULT: SchedulerKind = SchedulerKind::Conservative;
    /// Each start reshapes every waiting job's reservation: on Lublin's model at load 0.6
    /// (25,000 jobs), 127 ms of simulation against FCFS's 3.3 ms and EASY's 4.6 ms, plus
    /// the 7 ms every run spends generating its jobs; on KTH, 25 ms against 3.5 ms.
    fn relative_cost(_: &SchedulerKind) -> f64 {
        10.0
    }
    fn build(_: &SchedulerKind) -> Conservative {
        Conservative::default()
    }
    fn on_nodes(_: &SchedulerKind) -> Option<NodePolicy> {
        Some(NodePolicy::Conservative)
    }
}

impl Scheduler for Conservative {
    const USES_RUNNING_SET: bool = false;

    fn reset(&mut self, jobs: &Jobs, procs: u32) {
        self.queue.clear();
        self.arrived.clear();
        self.first_reservation.clear();
        self.first_reservation.resize(jobs.len(), Time::MAX);
        self.reserved_until.clear();
        self.reserved_until.resize(jobs.len(), Time::MAX);
        let first = jobs.submit.first().copied().unwrap_or(0);
        self.profile.reset(first, procs);
        if let Some(cap) = &mut self.cap {
            cap.reset(first, procs);
        }
        self.rooms.clear();
        self.next_rooms.clear();
        self.waiting_zero_estimate = 0;
    }

    fn on_arrival(&mut self, job: JobId, _ctx: &SchedCtx) {
        self.arrived.push(job);
    }

    fn on_termination(&mut self, job: JobId, ctx: &SchedCtx) {
        let reserved_until = self.reserved_until[job.index()];
        if ctx.now() < reserved_until {
            self.profile.add(ctx.now(), reserved_until, ctx.procs(job) as i64);
            self.add_room(ctx.now(), reserved_until, false);
        }
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        let now = ctx.now();
        self.profile.advance(now);
        // Re-fit the waiting jobs in arrival order. A job moves only into room that appeared
        // since the last re-fit, so jobs no room can help are passed over in O(rooms).
        // Zero-estimate jobs reserve nothing, so a later reservation may cover their instant
        // and push them: they are re-fitted at every pass.
        // (Copied rather than swapped, so each buffer keeps its own role and capacity and a
        // warm replication allocates nothing.)
        self.rooms.clear();
        self.rooms
            .extend(self.next_rooms.drain(..).filter(|r| r.to > now));
        if !self.rooms.is_empty() || self.waiting_zero_estimate > 0 {
            for i in 0..self.queue.len() {
                let Queued {
                    procs,
                    duration,
                    reserved: old,
                    ..
                } = self.queue[i];
                if duration == 0 {
                    Self::reserve(&mut self.profile, self.cap.as_mut(), now, &mut self.queue[i]);
                    continue;
                }
                // A new start must put the job's window over a room where it fits: starts
                // in [lo, hi). None earlier can be feasible, or the job would be there.
                let (mut lo, mut hi) = (Time::MAX, Time::MIN);
                for r in self
                    .rooms
                    .iter()
                    .filter(|r| r.may_help(now, procs, duration, old))
                {
                    lo = lo.min(r.from - duration + 1);
                    hi = hi.max(r.to);
                }
                let (lo, hi) = (lo.max(now), hi.min(old));
                if lo >= hi {
                    continue;
                }
                // Could the job start earlier with its own reservation taken out? Asked
                // without changing the profile, since most jobs stay where they are.
                let credit = Some((old, old + duration, procs as i64));
                if let Some(new) = self.profile.earliest_fit_with(lo, procs, duration, credit, hi) {
                    self.profile.add(old, old + duration, procs as i64);
                    self.profile.add(new, new + duration, -(procs as i64));
                    self.queue[i].reserved = new;
                    // Its old slot is room for the jobs after it now and before it next pass.
                    self.add_room(old, old + duration, true);
                }
            }
        }
        for i in 0..self.arrived.len() {
            let job = self.arrived[i];
            let mut q = Queued {
                job,
                procs: ctx.procs(job),
                duration: ctx.jobs().estimate[job.index()] + ctx.most_boot_margin(),
                reserved: Time::MAX,
            };
            Self::reserve(&mut self.profile, self.cap.as_mut(), now, &mut q);
            self.first_reservation[job.index()] = q.reserved;
            self.queue.push(q);
            self.waiting_zero_estimate += usize::from(q.duration == 0);
        }
        self.arrived.clear();
        // Zero-estimate jobs first: they end within this instant, and a further round at the
        // same instant then starts the positive-estimate jobs reserved now, at the same time.
        let mut started = false;
        let mut started_zero = false;
        for zero_estimate in [true, false] {
            for q in &self.queue {
                if q.reserved != now || (q.duration == 0) != zero_estimate {
                    continue;
                }
                let job = q.job;
                if q.procs <= ctx.free() {
                    ctx.start(job);
                    self.reserved_until[job.index()] = now + q.duration;
                    started = true;
                    started_zero |= zero_estimate;
                    self.waiting_zero_estimate -= usize::from(zero_estimate);
                } else if !zero_estimate {
                    debug_assert!(started_zero, "job {job:?} reserved at {now} does not fit");
                }
            }
        }
        if started {
            self.queue.retain(|q| ctx.start_time(q.job).is_none());
        }
        // A reservation may sit at a time when no job arrives or ends (its job was fitted
        // behind a reservation that later moved earlier), so ask for a pass there.
        let next = self.queue.iter().map(|q| q.reserved).filter(|&r| r > now).min();
        if let Some(t) = next {
            ctx.wake_at(t);
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len() + self.arrived.len()
    }
}
