//! Machine state during a run: free processors, the running set filed by predicted end,
//! the completion events and per-job start/end times.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::completions::{Completion, Completions};
use super::power_states::PowerStates;
use super::predictor::PredictorView;
use super::running::{RunningJob, RunningSet};
use crate::Time;
use crate::workload::{JobId, Jobs};

/// Not yet started / not yet ended.
pub const UNSET: Time = Time::MIN;

/// A prediction-over event: (time, job, prediction generation); a stale one is dropped
/// when popped.
type Deadline = Reverse<(Time, u32, u32)>;

/// Everything the engine knows about the machine and the jobs during a run. Buffers are
/// sized once per workload and reused by later runs.
#[derive(Debug, Default)]
pub struct SimState {
    pub(crate) total: u32,
    pub(crate) free: u32,
    pub(crate) now: Time,
    /// Running jobs by predicted end, for EASY's shadow time. Kept only for schedulers that
    /// read it (`Scheduler::USES_RUNNING_SET`).
    pub(crate) running: RunningSet,
    pub(crate) track_running: bool,
    pub(crate) completions: Completions,
    /// The wake-up the last pass asked for: a pass happens at that instant even with no
    /// arrival or termination. Each pass replaces it.
    pub(crate) wake: Option<Time>,
    pub(crate) start: Vec<Time>,
    pub(crate) end: Vec<Time>,
    pub(crate) generation: Vec<u32>,
    /// Current runtime prediction of each job, never below 1 s.
    pub(crate) prediction: Vec<Time>,
    /// Prediction-over events: (start + prediction, job, prediction generation), pushed only
    /// for running jobs that will outlive their prediction.
    pub(crate) deadlines: BinaryHeap<Deadline>,
    /// Accuracy of the predictions (Talby et al., equations 1 and 2), weighted by how long
    /// each held: since when the current one holds (written at arrival and at each
    /// change), and the per-job record of changes ([`PredictionLog`]). The averages are
    /// computed after the run ([`crate::sim::Outcome::accuracy`]), outside the event loop.
    pub(crate) since: Vec<Time>,
    pub(crate) log: PredictionLog,
    /// Jobs started in the current pass, for the predictor's start hook (only recorded for
    /// predictors that have one).
    pub(crate) started_now: Vec<JobId>,
    pub(crate) record_starts: bool,
    /// Every prediction each job had, in time order, when asked for
    /// ([`crate::sim::Engine::with_prediction_history`]); empty otherwise.
    pub(crate) history: Vec<PredictionChange>,
    pub(crate) record_history: bool,
    /// Free nodes on and off, when idle nodes are switched off (`crate::sim::power_states`).
    pub(crate) power: PowerStates,
}

/// What only changing predictions write, per job: empty, standing for zeros, until the
/// run's first change of a prediction or first job that will outlive its prediction. Most
/// runs (no predictor, or one that never revises) have neither, and so keep 24 bytes per
/// job fewer.
#[derive(Clone, Debug, Default)]
pub(crate) struct PredictionLog {
    /// Bumped at each change, to tell stale prediction-over events.
    pub(crate) generation: Vec<u32>,
    /// Prediction-over events per job.
    pub(crate) misses: Vec<u32>,
    /// Sums of each replaced prediction's inaccuracy and accuracy times how long it held.
    pub(crate) inaccuracy: Vec<f64>,
    pub(crate) accuracy: Vec<f64>,
}

impl PredictionLog {
    /// Empties the log (keeping its memory for the next run).
    fn clear(&mut self) {
        self.generation.clear();
        self.misses.clear();
        self.inaccuracy.clear();
        self.accuracy.clear();
    }

    /// Makes the log hold its `n` jobs, all zero so far.
    #[inline]
    fn open(&mut self, n: usize) {
        if self.generation.len() != n {
            self.open_cold(n);
        }
    }

    #[cold]
    fn open_cold(&mut self, n: usize) {
        self.generation.resize(n, 0);
        self.misses.resize(n, 0);
        self.inaccuracy.resize(n, 0.0);
        self.accuracy.resize(n, 0.0);
    }
}

/// A prediction a job got at an instant: at its arrival, or later when it changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PredictionChange {
    pub job: JobId,
    pub at: Time,
    pub prediction: Time,
}

/// Relative accuracy of prediction `p` for runtime `r`: the smaller over the larger, in
/// [0, 1] (1 when both are 0).
pub(crate) fn ratio(r: Time, p: Time) -> f64 {
    let (lo, hi) = (r.min(p), r.max(p));
    if hi == 0 { 1.0 } else { lo as f64 / hi as f64 }
}

impl SimState {
    pub(crate) fn reset(&mut self, jobs: &Jobs, procs: u32, track_running: bool, record_starts: bool) {
        let n = jobs.len();
        self.record_starts = record_starts;
        self.track_running = track_running;
        self.total = procs;
        self.free = procs;
        self.now = 0;
        // At most one running job per processor, since every job holds at least one. The
        // running set's per-job slots are sized only for schedulers that read it.
        self.running
            .reset(if track_running { n } else { 0 }, (procs as usize).min(n));
        self.completions.reset((procs as usize).min(n) + 1);
        self.wake = None;
        for v in [&mut self.start, &mut self.end] {
            v.clear();
            v.resize(n, UNSET);
        }
        self.generation.clear();
        self.generation.resize(n, 0);
        self.prediction.clear();
        self.prediction.extend(jobs.estimate.iter().map(|&e| e.max(1)));
        self.deadlines.clear();
        self.deadlines.reserve(procs as usize + 1);
        // `since` is written when each job arrives, so a warm engine only sizes it here.
        self.since.resize(n, 0);
        self.log.clear();
        self.started_now.clear();
        self.started_now.reserve(procs as usize + 1);
        self.history.clear();
        if self.record_history {
            self.history.reserve(n);
        }
    }

    /// Logs `j`'s new prediction when the history is kept.
    #[inline]
    fn log_prediction(&mut self, j: usize) {
        if self.record_history {
            self.history.push(PredictionChange {
                job: JobId(j as u32),
                at: self.now,
                prediction: self.prediction[j],
            });
        }
    }

    /// Sets the prediction of waiting job `j` at `now`.
    pub(crate) fn repredict_waiting(&mut self, jobs: &Jobs, j: usize, prediction: Time) {
        self.weigh_prediction(jobs, j, self.now);
        self.prediction[j] = prediction.max(1);
        self.log_prediction(j);
    }

    /// What a predictor sees.
    pub(crate) fn predictor_view<'a>(&'a self, jobs: &'a Jobs) -> PredictorView<'a> {
        PredictorView {
            now: self.now,
            jobs,
            start: &self.start,
            prediction: &self.prediction,
        }
    }

    /// Adds the current prediction's accuracy, weighted by how long it held, up to `t`.
    fn weigh_prediction(&mut self, jobs: &Jobs, j: usize, t: Time) {
        self.log.open(jobs.len());
        let (r, p) = (jobs.runtime[j], self.prediction[j]);
        let held = (t - self.since[j]) as f64;
        self.log.inaccuracy[j] += (r - p).abs() as f64 * held;
        self.log.accuracy[j] += ratio(r, p) * held;
        self.since[j] = t;
    }

    /// Sets a job's prediction at its arrival (never below 1 s).
    pub(crate) fn predict_on_arrival(&mut self, j: usize, prediction: Time) {
        self.prediction[j] = prediction.max(1);
        self.since[j] = self.now;
        self.log_prediction(j);
    }

    /// Replaces the prediction of running job `j`, which must exceed its current runtime:
    /// the running set and the prediction-over event follow.
    pub(crate) fn repredict_running(&mut self, jobs: &Jobs, job: JobId, prediction: Time) {
        let j = job.index();
        let start = self.start[j];
        debug_assert!(
            start + prediction > self.now,
            "a running job's prediction must exceed its runtime"
        );
        self.weigh_prediction(jobs, j, self.now);
        if self.track_running {
            self.running.remove(job, start + self.prediction[j]);
            self.running.insert(RunningJob {
                predicted_end: start + prediction,
                job,
                procs: jobs.procs[j],
            });
        }
        self.prediction[j] = prediction;
        self.log.generation[j] += 1;
        self.log_prediction(j);
        self.push_deadline(jobs, j);
    }

    /// Schedules the prediction-over event of running job `j` if it will outlive its
    /// prediction.
    #[inline]
    fn push_deadline(&mut self, jobs: &Jobs, j: usize) {
        if self.prediction[j] < jobs.runtime[j] {
            self.log.open(jobs.len());
            let at = self.start[j] + self.prediction[j];
            self.deadlines
                .push(Reverse((at, j as u32, self.log.generation[j])));
        }
    }

    /// Time of the next valid prediction-over event, dropping stale ones.
    pub(crate) fn next_deadline(&mut self) -> Option<Time> {
        while let Some(&Reverse((t, job, generation))) = self.deadlines.peek() {
            if generation == self.log.generation[job as usize] {
                return Some(t);
            }
            self.deadlines.pop();
        }
        None
    }

    /// Pops the next valid prediction-over event at `now` of a job still running.
    pub(crate) fn pop_deadline_at(&mut self, now: Time) -> Option<JobId> {
        loop {
            let &Reverse((t, job, generation)) = self.deadlines.peek()?;
            if t != now {
                return None;
            }
            self.deadlines.pop();
            let j = job as usize;
            if generation == self.log.generation[j] && self.end[j] == UNSET {
                return Some(JobId(job));
            }
        }
    }

    /// Marks `job` started now; returns false (and changes nothing) if it does not fit.
    pub(crate) fn start(&mut self, jobs: &Jobs, job: JobId) -> bool {
        let j = job.index();
        let procs = jobs.procs[j];
        if procs > self.free || self.start[j] != UNSET {
            return false;
        }
        self.free -= procs;
        // With nodes switched off, the job holds its nodes from now and starts once those
        // it boots are on.
        let start = self.now + self.power.take(self.now, procs);
        self.start[j] = start;
        self.completions.push(Completion {
            time: start + jobs.runtime[j],
            job: job.0,
            generation: self.generation[j],
        });
        self.push_deadline(jobs, j);
        if self.record_starts {
            self.started_now.push(job);
        }
        if self.track_running {
            self.running.insert(RunningJob {
                predicted_end: start + self.prediction[j],
                job,
                procs,
            });
        }
        true
    }

    /// Time of the next valid completion, dropping stale ones.
    pub(crate) fn next_completion(&mut self) -> Option<Time> {
        while let Some(c) = self.completions.peek() {
            if c.generation == self.generation[c.job as usize] {
                return Some(c.time);
            }
            self.completions.pop();
        }
        None
    }

    /// Pops the next valid completion at `now`, freeing its processors. The test is
    /// inlined into the event loop, where it fails at every instant once the instant's
    /// completions are done; only an actual completion pays for the call.
    #[inline]
    pub(crate) fn pop_completion_at(&mut self, jobs: &Jobs, now: Time) -> Option<JobId> {
        match self.completions.peek() {
            Some(c) if c.time == now => self.pop_completion(jobs, now),
            _ => None,
        }
    }

    fn pop_completion(&mut self, jobs: &Jobs, now: Time) -> Option<JobId> {
        loop {
            let c = self.completions.peek()?;
            if c.time != now {
                return None;
            }
            self.completions.pop();
            let j = c.job as usize;
            if c.generation != self.generation[j] {
                continue;
            }
            let id = JobId(c.job);
            if self.track_running {
                self.running.remove(id, self.start[j] + self.prediction[j]);
            }
            self.end[j] = now;
            self.free += jobs.procs[j];
            self.power.release(now, jobs.procs[j]);
            return Some(id);
        }
    }
}

/// What a scheduler sees and may do during a pass or a hook.
pub struct SchedCtx<'a> {
    pub(crate) jobs: &'a Jobs,
    pub(crate) state: &'a mut SimState,
}

impl SchedCtx<'_> {
    #[inline]
    pub fn now(&self) -> Time {
        self.state.now
    }
    #[inline]
    pub fn jobs(&self) -> &Jobs {
        self.jobs
    }
    #[inline]
    pub fn free(&self) -> u32 {
        self.state.free
    }
    #[inline]
    pub fn total(&self) -> u32 {
        self.state.total
    }
    /// The longest a job started now may wait for nodes to boot, seconds: 0 unless idle
    /// nodes are switched off and some are off now (`crate::sim::power_states`). A job
    /// started now holds its processors at once and starts at most this much later.
    #[inline]
    pub fn boot_margin(&self) -> Time {
        self.state.power.margin()
    }

    /// The longest a job started at any time may wait for nodes to boot: for reservations
    /// made now and honoured later (0 unless idle nodes are switched off).
    #[inline]
    pub fn most_boot_margin(&self) -> Time {
        self.state.power.most_margin()
    }
    /// EASY's shadow time for a job of `need` processors, more than are free: the earliest
    /// predicted end of running jobs at which the free processors reach `need`, and the
    /// processors beyond `need` then, every job predicted to end at that instant counted.
    /// O(buckets passed) (see `sim::running`). Only for schedulers whose `USES_RUNNING_SET`
    /// is true.
    #[inline]
    pub fn shadow(&mut self, need: u32) -> (Time, u32) {
        debug_assert!(
            self.state.track_running,
            "this scheduler declared USES_RUNNING_SET = false"
        );
        assert!(
            need > self.state.free && need <= self.state.total,
            "no shadow time for {need} processors with {} of {} free",
            self.state.free,
            self.state.total
        );
        self.state.running.shadow(need, self.state.free)
    }

    /// Running jobs in ascending order of (predicted end, job). O(running log running).
    /// Only for schedulers whose `USES_RUNNING_SET` is true.
    pub fn running_sorted(&mut self) -> &[RunningJob] {
        debug_assert!(
            self.state.track_running,
            "this scheduler declared USES_RUNNING_SET = false"
        );
        self.state.running.sorted()
    }
    /// The job's current runtime prediction (at least 1 s).
    #[inline]
    pub fn prediction(&self, job: JobId) -> Time {
        self.state.prediction[job.index()]
    }
    #[inline]
    pub fn procs(&self, job: JobId) -> u32 {
        self.jobs.procs[job.index()]
    }
    /// Start time of a job, or None while it waits.
    #[inline]
    pub fn start_time(&self, job: JobId) -> Option<Time> {
        let s = self.state.start[job.index()];
        (s != UNSET).then_some(s)
    }
    /// Asks for a scheduling pass at time `t` (later than now) even if no job arrives or
    /// ends then: for reservations that must start at their time. One wake-up at a time:
    /// the engine forgets it at the next pass, so a scheduler asks again at every pass for
    /// as long as it needs one, and a stale request never causes a pass.
    #[inline]
    pub fn wake_at(&mut self, t: Time) {
        debug_assert!(t > self.state.now, "wake-up at {t} is not in the future");
        self.state.wake = Some(self.state.wake.map_or(t, |w| w.min(t)));
    }

    /// Starts `job` now.
    ///
    /// # Panics
    /// If the job does not fit in the free processors or has started already: that is a
    /// scheduler bug, and continuing would corrupt the schedule.
    #[inline]
    pub fn start(&mut self, job: JobId) {
        assert!(
            self.state.start(self.jobs, job),
            "scheduler started job {} (procs {}, started {:?}) with {} free at t={}",
            job.0,
            self.jobs.procs[job.index()],
            self.start_time(job),
            self.state.free,
            self.state.now
        );
    }
}
