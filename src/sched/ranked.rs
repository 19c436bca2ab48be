//! A queue ordered from outside: at each pass a [`Ranking`] scores the waiting jobs, which
//! are then tried in ascending order of score (ties by arrival), with no backfilling,
//! EASY's, or conservative backfilling. The Python package's `schedlab.Priority` runs a
//! Python function as the ranking.
//!
//! - [`Backfill::None`]: jobs start in rank order while they fit; the first that does not
//!   blocks the rest.
//! - [`Backfill::Easy`]: the first job in rank order that does not fit gets a reservation
//!   at its shadow time, and the jobs ranked after it start if they fit now and either end
//!   by the shadow time (by their predictions) or use only processors the reservation leaves
//!   free, as in EASY with the queue in rank order.
//! - [`Backfill::Conservative`]: every waiting job, in rank order, is placed at its
//!   earliest fit in a profile of the running jobs' predicted ends and the reservations
//!   placed before it; those placed now start. Reservations are rebuilt at every pass, since
//!   the ranks may change between passes. In arrival order and with exact estimates this is
//!   the engine's conservative backfilling (tested); when jobs end before their estimates it
//!   is full rescheduling, where the engine's compresses the reservations it holds (Mu'alem
//!   & Feitelson), so the two then differ.
//!
//! The ranking is asked only when a job could start (jobs wait and a processor is free).

use crate::Time;
use crate::params::ParamError;
use crate::sim::profile::Profile;
use crate::sim::{SchedCtx, Scheduler};
use crate::workload::{JobId, Jobs};

/// Scores of waiting jobs: lower starts first.
pub trait Ranking {
    /// Pushes one score per job of `waiting` (in arrival order) onto `scores`, which is
    /// empty. A score that is not a number ranks last.
    fn rank(&mut self, ctx: &SchedCtx, waiting: &[JobId], scores: &mut Vec<f64>);
}

/// How jobs behind a blocked one may start (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backfill {
    None,
    Easy,
    Conservative,
}

impl std::str::FromStr for Backfill {
    type Err = ParamError;
    fn from_str(s: &str) -> Result<Self, ParamError> {
        match s {
            "none" => Ok(Backfill::None),
            "easy" => Ok(Backfill::Easy),
            "conservative" => Ok(Backfill::Conservative),
            other => Err(ParamError::BadValue {
                key: "backfill".into(),
                value: other.into(),
                expected: "easy, conservative or none".into(),
            }),
        }
    }
}

/// The waiting queue in the order a [`Ranking`] gives it.
#[derive(Debug)]
pub struct Ranked<R> {
    pub ranking: R,
    backfill: Backfill,
    /// Waiting jobs in arrival order.
    waiting: Vec<JobId>,
    scores: Vec<f64>,
    /// Indices into `waiting` in rank order.
    order: Vec<usize>,
    started: Vec<bool>,
    profile: Profile,
    backfilled: u64,
    /// Passes that asked the ranking.
    pub rankings: u64,
}

impl<R: Ranking> Ranked<R> {
    pub fn new(ranking: R, backfill: Backfill) -> Self {
        Ranked {
            ranking,
            backfill,
            waiting: Vec::new(),
            scores: Vec::new(),
            order: Vec::new(),
            started: Vec::new(),
            profile: Profile::default(),
            backfilled: 0,
            rankings: 0,
        }
    }

    /// Starts `waiting[i]`, counting it as backfilled when a job ranked before it waits.
    fn start(&mut self, ctx: &mut SchedCtx, i: usize, ahead_of_a_waiting_job: bool) {
        ctx.start(self.waiting[i]);
        self.started[i] = true;
        self.backfilled += u64::from(ahead_of_a_waiting_job);
    }

    fn easy(&mut self, ctx: &mut SchedCtx) {
        let mut reservation: Option<(Time, u32)> = None;
        for r in 0..self.order.len() {
            let i = self.order[r];
            let job = self.waiting[i];
            let procs = ctx.procs(job);
            match &mut reservation {
                None if procs <= ctx.free() => self.start(ctx, i, false),
                None => reservation = Some(ctx.shadow(procs)),
                Some((shadow, extra)) => {
                    if super::easy_backfills(ctx, job, *shadow, extra) {
                        self.start(ctx, i, true);
                    }
                }
            }
            if ctx.free() == 0 {
                break;
            }
        }
    }

    fn conservative(&mut self, ctx: &mut SchedCtx) {
        let now = ctx.now();
        self.profile.reset(now, ctx.total());
        for running in ctx.running_sorted() {
            self.profile
                .add(now, running.predicted_end, -(running.procs as i64));
        }
        let mut waits = false;
        let mut wake = Time::MAX;
        for r in 0..self.order.len() {
            let i = self.order[r];
            let job = self.waiting[i];
            let (procs, duration) = (ctx.procs(job), ctx.prediction(job));
            let at = self.profile.earliest_fit(now, procs, duration);
            self.profile.add(at, at + duration, -(procs as i64));
            if at == now {
                self.start(ctx, i, waits);
            } else {
                waits = true;
                wake = wake.min(at);
            }
        }
        if wake != Time::MAX {
            ctx.wake_at(wake);
        }
    }
}

impl<R: Ranking> Scheduler for Ranked<R> {
    fn reset(&mut self, _jobs: &Jobs, _procs: u32) {
        self.waiting.clear();
        self.backfilled = 0;
        self.rankings = 0;
    }

    fn on_arrival(&mut self, job: JobId, _ctx: &SchedCtx) {
        self.waiting.push(job);
    }

    fn backfilled(&self) -> u64 {
        self.backfilled
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        if self.waiting.is_empty() || ctx.free() == 0 {
            return;
        }
        self.scores.clear();
        self.ranking.rank(ctx, &self.waiting, &mut self.scores);
        self.rankings += 1;
        assert_eq!(self.scores.len(), self.waiting.len(), "one score per waiting job");
        let scores = &self.scores;
        // A NaN ranks last: total order with NaN mapped to infinity, ties by arrival.
        let key = |i: usize| {
            if scores[i].is_nan() {
                f64::INFINITY
            } else {
                scores[i]
            }
        };
        self.order.clear();
        self.order.extend(0..self.waiting.len());
        self.order
            .sort_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
        self.started.clear();
        self.started.resize(self.waiting.len(), false);
        match self.backfill {
            Backfill::None => {
                for r in 0..self.order.len() {
                    let i = self.order[r];
                    if ctx.procs(self.waiting[i]) > ctx.free() {
                        break;
                    }
                    self.start(ctx, i, false);
                }
            }
            Backfill::Easy => self.easy(ctx),
            Backfill::Conservative => self.conservative(ctx),
        }
        let started = &self.started;
        let mut i = 0;
        self.waiting.retain(|_| {
            i += 1;
            !started[i - 1]
        });
    }

    fn waiting(&self) -> usize {
        self.waiting.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::SchedulerKind;
    use crate::sim::Engine;
    use crate::workload::synth::Model;

    /// Arrival order, or shortest estimate first.
    struct ByArrival;
    impl Ranking for ByArrival {
        fn rank(&mut self, _ctx: &SchedCtx, waiting: &[JobId], scores: &mut Vec<f64>) {
            scores.extend(waiting.iter().map(|j| j.0 as f64));
        }
    }

    fn workload(seed: u64, estimates: &str) -> crate::workload::Workload {
        let params = [("procs", "64"), ("jobs", "3000"), ("estimates", estimates)];
        let params: Vec<(String, String)> = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Model::from_name("lublin", &params).unwrap().generate(seed)
    }

    /// Ranked by arrival, each mode is the engine's own scheduler: FCFS, EASY and
    /// conservative backfilling give the same start times, job by job. Conservative only
    /// with exact estimates: with early ends, the engine's compresses reservations (each
    /// re-fitted among all the others) where this one rebuilds them in rank order.
    #[test]
    fn arrival_order_is_fcfs_easy_and_conservative() {
        for seed in 1..3 {
            let mut engine = Engine::new();
            for (backfill, kind, estimates) in [
                (Backfill::None, SchedulerKind::Fcfs, "tsafrir"),
                (Backfill::Easy, SchedulerKind::Easy, "tsafrir"),
                (Backfill::Conservative, SchedulerKind::Conservative, "exact"),
            ] {
                let w = workload(seed, estimates);
                let ranked = Ranked::new(ByArrival, backfill).run_on(&mut engine, &w).0;
                let expected = kind.build().run(&mut engine, &w.jobs, w.procs).start.to_vec();
                assert!(ranked == expected, "{kind}, seed {seed}");
            }
        }
    }

    impl<R: Ranking> Ranked<R> {
        fn run_on(mut self, engine: &mut Engine, w: &crate::workload::Workload) -> (Vec<Time>, Self) {
            let start = engine.run(&w.jobs, w.procs, &mut self).start.to_vec();
            (start, self)
        }
    }

    /// Shortest estimate first without backfilling, checked by hand on three jobs: the
    /// machine is busy until 100, then the two waiting jobs start shortest first.
    #[test]
    fn shortest_first_by_hand() {
        struct Shortest;
        impl Ranking for Shortest {
            fn rank(&mut self, ctx: &SchedCtx, waiting: &[JobId], scores: &mut Vec<f64>) {
                scores.extend(waiting.iter().map(|&j| ctx.prediction(j) as f64));
            }
        }
        let records = [(0, 100, 4, 100), (1, 50, 4, 500), (2, 50, 4, 60)];
        let records: Vec<_> = records
            .iter()
            .enumerate()
            .map(|(i, &(submit, runtime, procs, estimate))| {
                crate::workload::JobRecord::new(i as u64 + 1, submit, runtime, procs, estimate)
            })
            .collect();
        let jobs = Jobs::from_records(&records);
        let mut engine = Engine::new();
        let mut ranked = Ranked::new(Shortest, Backfill::None);
        let start = engine.run(&jobs, 4, &mut ranked).start.to_vec();
        assert_eq!(start, vec![0, 150, 100]);
        assert_eq!(ranked.rankings, 3, "asked at 0, at 100 and at 150 only");
    }

    #[test]
    fn modes_parse() {
        assert_eq!("easy".parse::<Backfill>(), Ok(Backfill::Easy));
        assert!(
            "eas"
                .parse::<Backfill>()
                .unwrap_err()
                .to_string()
                .contains("expected easy")
        );
    }
}
