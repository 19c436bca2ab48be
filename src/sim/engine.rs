//! The event loop: arrivals read by cursor, completions from a calendar queue, one
//! scheduling pass per instant.

use super::Scheduler;
use super::feedback::{Dependencies, Lane};
use super::power_states::{NodeSwitch, SwitchOffPolicy};
use super::predictor::{RuntimePredictor, UserEstimates};
use super::state::{PredictionChange, SchedCtx, SimState};
use super::validator;
use crate::Time;
use crate::workload::{JobId, Jobs};

/// A reusable simulator. One engine runs many replications; its buffers are cleared, not
/// reallocated, so in steady state the loop performs no heap allocation.
#[derive(Debug)]
pub struct Engine {
    state: SimState,
    validate: bool,
    passes: u64,
    events: u64,
    /// Predictions a predictor propagated from a termination hook, applied at once.
    updates: Vec<(JobId, Time)>,
    /// The dependencies set for the runs to come ([`Engine::set_feedback`]) and the
    /// arrival lane that honours them.
    lane: Lane,
    /// When idle nodes are switched off in the runs to come, and since when they are idle
    /// ([`Engine::set_switch_off`]).
    switch_off: Option<SwitchOffPolicy>,
    idle_from: Option<Time>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

/// The schedule of one run: per-job start and end times, indexed by `JobId`.
#[derive(Debug, Clone, Copy)]
pub struct Outcome<'a> {
    pub start: &'a [Time],
    pub end: &'a [Time],
    /// Scheduling passes run (one per instant with events, plus one per zero-runtime round).
    pub passes: u64,
    /// Arrivals plus terminations processed.
    pub events: u64,
    /// The run stopped because the backlog passed the window's saturation bound.
    pub saturated: bool,
    /// Time of the last instant simulated.
    pub stopped_at: Time,
    /// Each job's last runtime prediction.
    pub prediction: &'a [Time],
    /// When each job's last prediction was made; empty, or `UNSET` for a job, where it was
    /// made at the job's arrival.
    pub(super) since: &'a [Time],
    /// Per job, as in `PredictionLog`: empty where no prediction changed.
    pub(super) inaccuracy: &'a [f64],
    pub(super) accuracy: &'a [f64],
    pub(super) misses: &'a [u32],
    /// Jobs the scheduler started ahead of the queue head.
    pub backfilled: u64,
    /// Core-seconds idle on nodes that jobs partly held ([`Scheduler::stranded_core_seconds`]).
    pub stranded_core_seconds: u64,
    /// A run assembled from the partitions of a machine ([`crate::sim::Parts`]): each
    /// partition's `stranded_core_seconds`, by partition (none for a partition without
    /// jobs past the last that had some); empty for a run of one part.
    pub stranded_by_partition: &'a [u64],
    /// Every prediction of every job in time order, if the engine was asked to keep them
    /// ([`Engine::with_prediction_history`]); empty otherwise.
    pub history: &'a [PredictionChange],
    /// With dependencies ([`Engine::set_feedback`]), when each job really arrived (unset for
    /// jobs that never did); `None` when every job arrived at its submit time.
    pub arrivals: Option<&'a [Time]>,
    /// With idle nodes switched off ([`Engine::set_switch_off`]), every switch-off and boot
    /// in the order logged; empty otherwise.
    pub switches: &'a [NodeSwitch],
    /// Where jobs were held back before they reached the scheduler (a run assembled by
    /// [`crate::sim::Parts`]), when each reached it: the predictions' accuracy is weighed
    /// from then. `None`: every job reached it at its arrival.
    pub released: Option<&'a [Time]>,
}

impl Outcome<'_> {
    /// The jobs as this run saw them: `jobs` itself, or under feedback a copy with each
    /// job's submit time set to when it arrived (for waits, responses and metrics).
    pub fn jobs_as_run<'j>(&self, jobs: &'j Jobs) -> std::borrow::Cow<'j, Jobs> {
        match self.arrivals {
            None => std::borrow::Cow::Borrowed(jobs),
            Some(arrivals) => {
                let mut copy = jobs.clone();
                copy.submit.copy_from_slice(arrivals);
                std::borrow::Cow::Owned(copy)
            }
        }
    }

    /// Whether job `j` ended before the run stopped.
    pub fn finished(&self, j: usize) -> bool {
        self.end[j] != crate::sim::state::UNSET
    }

    /// Absolute inaccuracy and relative accuracy of finished job `j`'s predictions
    /// (Talby et al., equations 1 and 2): each prediction's |runtime - prediction| and
    /// min/max ratio, weighted by how long it held from submit to end. A job that ended at
    /// its submit instant had one prediction, taken as is.
    pub fn accuracy(&self, jobs: &Jobs, j: usize) -> (f64, f64) {
        let (r, p) = (jobs.runtime[j], self.prediction[j]);
        let (last_inaccuracy, last_accuracy) = ((r - p).abs() as f64, crate::sim::state::ratio(r, p));
        let from = self.released.map_or(jobs.submit[j], |released| released[j]);
        let life = (self.end[j] - from) as f64;
        if life <= 0.0 {
            return (last_inaccuracy, last_accuracy);
        }
        // A job whose prediction never changed holds its first over its whole life (an
        // assembled run leaves `since` unset for it, [`crate::sim::Parts`]).
        let held = match self.since.get(j) {
            Some(&since) if since != crate::sim::state::UNSET => (self.end[j] - since) as f64,
            _ => life,
        };
        let (inaccuracy, accuracy) = match self.inaccuracy.is_empty() {
            true => (0.0, 0.0),
            false => (self.inaccuracy[j], self.accuracy[j]),
        };
        (
            (inaccuracy + last_inaccuracy * held) / life,
            (accuracy + last_accuracy * held) / life,
        )
    }

    /// How often job `j` outlived its prediction.
    pub fn misses(&self, j: usize) -> u32 {
        self.misses.get(j).copied().unwrap_or(0)
    }

    /// Prediction-over events of the jobs in `jobs`.
    pub fn deadline_misses(&self, jobs: std::ops::Range<usize>) -> u64 {
        self.misses
            .get(jobs)
            .map_or(0, |m| m.iter().map(|&m| m as u64).sum())
    }
}

/// Where a run driven an instant at a time stands ([`Engine::begin`]).
#[derive(Debug)]
pub struct Run {
    /// Jobs arrived so far (the arrival cursor: job ids are arrival indices).
    pub arrived: usize,
    measured: std::ops::Range<usize>,
    unfinished: usize,
    saturation_at: Option<usize>,
    windowed: bool,
    /// The backlog passed the window's saturation bound.
    pub saturated: bool,
}

/// Which jobs a run measures, and when it counts as saturated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// Measured jobs by index (arrival order): e.g. `500..20_000` discards 500 warm-up jobs
    /// and measures 19,500.
    pub measured: std::ops::Range<usize>,
    /// Stop as saturated once this many jobs have arrived after the window while measured
    /// jobs are unfinished.
    pub saturation: Option<usize>,
}

impl Engine {
    /// Applies a prediction a predictor propagated to `job`: ignored for jobs not yet
    /// arrived or already ended, and for a running job that has already run that long (it
    /// outlived that prediction, so the one it has stands; lowering it to just past its
    /// runtime would only trade it for a deadline miss a second later).
    fn apply_update<S: Scheduler>(
        &mut self,
        jobs: &Jobs,
        scheduler: &mut S,
        arrived: bool,
        job: JobId,
        p: Time,
    ) {
        let j = job.index();
        let state = &mut self.state;
        if !arrived || state.end[j] != crate::sim::state::UNSET {
            return;
        }
        let old = state.prediction[j];
        if state.start[j] == crate::sim::state::UNSET {
            state.repredict_waiting(jobs, j, p);
        } else {
            if p <= state.now - state.start[j] || p == old {
                return;
            }
            state.repredict_running(jobs, job, p);
        }
        if state.prediction[j] != old {
            let ctx = SchedCtx { jobs, state };
            scheduler.on_prediction_changed(job, old, &ctx);
        }
    }

    /// An engine with the invariant validator on in debug builds and off in release.
    pub fn new() -> Self {
        Engine {
            state: SimState::default(),
            validate: cfg!(debug_assertions),
            passes: 0,
            events: 0,
            updates: Vec::new(),
            lane: Lane::default(),
            switch_off: None,
            idle_from: None,
        }
    }

    /// Turns the validator on or off. When on, the invariants are checked after every pass
    /// (free + running processors = machine size; no job started before it arrived) and over
    /// the whole schedule at the end (never more processors busy than the machine has).
    pub fn with_validation(mut self, on: bool) -> Self {
        self.validate = on;
        self
    }

    /// Keeps every prediction each job had ([`Outcome::history`]): for per-job reports.
    /// The log grows with the run, so the event loop then allocates.
    pub fn with_prediction_history(mut self, on: bool) -> Self {
        self.state.record_history = on;
        self
    }

    /// Dependencies for the runs that follow (`None`: every job arrives at its submit
    /// time): a dependent job arrives its think time after its predecessor ends, whenever
    /// that is ([`crate::sim::feedback`]). The caller sets them before each run.
    pub fn set_feedback(&mut self, dependencies: Option<Dependencies>) {
        self.lane.set(dependencies);
    }

    /// Whether the runs that follow switch idle nodes off (`None`: nodes stay on), on a
    /// pool of one-core nodes ([`crate::sim::power_states`]), the nodes idle from
    /// `idle_from` (`None`: the first submit; a part of a larger run, or a run whose jobs
    /// reach it later than they were submitted, gives the whole run's first submit). The
    /// caller sets it before each run.
    pub fn set_switch_off(&mut self, policy: Option<SwitchOffPolicy>, idle_from: Option<Time>) {
        self.switch_off = policy;
        self.idle_from = idle_from;
    }

    /// Simulates `jobs` (sorted by submit) on `procs` processors under `scheduler`.
    ///
    /// # Panics
    /// If a job needs more processors than the machine has or is submitted before time 0
    /// (the readers skip those), or if the scheduler breaks an invariant: both are bugs, not
    /// input errors.
    pub fn run<S: Scheduler>(&mut self, jobs: &Jobs, procs: u32, scheduler: &mut S) -> Outcome<'_> {
        self.run_window(jobs, procs, scheduler, &mut UserEstimates, None)
    }

    /// Like [`Engine::run`], measuring only the jobs of `window`: the run stops at the end of
    /// the instant at which the last measured job ends, or as saturated when
    /// `window.saturation` further jobs have arrived after the window while measured jobs are
    /// still unfinished (Anastasiadis & Sevcik's rule). Jobs still running or waiting at the
    /// stop keep their start and end unset ([`Outcome::finished`]). `predictor` supplies the
    /// runtime predictions the scheduler sees.
    pub fn run_window<S: Scheduler, P: RuntimePredictor>(
        &mut self,
        jobs: &Jobs,
        procs: u32,
        scheduler: &mut S,
        predictor: &mut P,
        window: Option<&Window>,
    ) -> Outcome<'_> {
        let mut run = self.begin(jobs, procs, scheduler, predictor, window);
        while self.advance(&mut run, jobs, scheduler, predictor) {}
        self.finish(&run, jobs, scheduler)
    }

    /// Starts a run that the caller drives an instant at a time with [`Engine::advance`]
    /// (and, between instants, further passes with [`Engine::pass`]), then closes with
    /// [`Engine::finish`]; [`Engine::run_window`] is the three in a loop. A learning agent
    /// (`crate::agent`) drives it this way to make its choices between passes.
    pub fn begin<S: Scheduler, P: RuntimePredictor>(
        &mut self,
        jobs: &Jobs,
        procs: u32,
        scheduler: &mut S,
        predictor: &mut P,
        window: Option<&Window>,
    ) -> Run {
        assert!(
            jobs.procs.iter().all(|&p| p >= 1 && p <= procs),
            "every job must need between 1 and {procs} processors"
        );
        debug_assert!(
            jobs.submit.windows(2).all(|w| w[0] <= w[1]),
            "jobs not sorted by submit"
        );
        // The event calendars start at time 0 (the readers skip negative submit times).
        assert!(
            jobs.submit.first().is_none_or(|&t| t >= 0),
            "every job must be submitted at time 0 or later"
        );
        self.state
            .reset(jobs, procs, S::USES_RUNNING_SET, P::USES_START_HOOK);
        let first = jobs.submit.first().copied().unwrap_or(0);
        let idle_from = self.idle_from.map_or(first, |t| t.min(first));
        self.state
            .power
            .reset(self.switch_off, procs, idle_from, jobs.len());
        scheduler.reset(jobs, procs);
        predictor.reset(jobs);
        self.passes = 0;
        self.updates.clear();
        self.events = 0;
        let n = jobs.len();
        self.lane.start(jobs);
        let measured = window.map_or(0..n, |w| w.measured.start.min(n)..w.measured.end.min(n));
        Run {
            arrived: 0,
            unfinished: measured.len(),
            saturation_at: window
                .and_then(|w| w.saturation)
                .map(|s| measured.end.saturating_add(s)),
            windowed: window.is_some(),
            saturated: false,
            measured,
        }
    }

    /// Simulates the next instant with an event: its terminations, deadline misses and
    /// arrivals, then one scheduling pass. False, with nothing simulated, once the run is
    /// over: no event is left, or the window's last measured job has ended, or the run
    /// saturated.
    #[inline(always)]
    pub fn advance<S: Scheduler, P: RuntimePredictor>(
        &mut self,
        run: &mut Run,
        jobs: &Jobs,
        scheduler: &mut S,
        predictor: &mut P,
    ) -> bool {
        // One branch per instant; the loop below is compiled with and without the lane.
        if self.lane.active {
            self.instant::<S, P, true>(run, jobs, scheduler, predictor)
        } else {
            self.instant::<S, P, false>(run, jobs, scheduler, predictor)
        }
    }

    /// [`Engine::advance`], for runs with (`FEEDBACK`) or without dependencies.
    #[inline(always)]
    fn instant<S: Scheduler, P: RuntimePredictor, const FEEDBACK: bool>(
        &mut self,
        run: &mut Run,
        jobs: &Jobs,
        scheduler: &mut S,
        predictor: &mut P,
    ) -> bool {
        if run.windowed && (run.unfinished == 0 || run.saturated) {
            return false;
        }
        let n = jobs.len();
        let next_arrival = if FEEDBACK {
            self.lane.next(jobs)
        } else {
            jobs.submit.get(run.arrived).copied()
        };
        let next_completion = self.state.next_completion();
        let next_completion = match (next_completion, self.state.next_deadline()) {
            (Some(c), Some(d)) => Some(c.min(d)),
            (c, None) => c,
            (None, d) => d,
        };
        // Three lanes: presorted arrivals (cursor), completions (calendar), one wake-up.
        let earliest = |a: Option<Time>, b: Option<Time>| match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, None) => x,
            (None, y) => y,
        };
        let Some(now) = earliest(earliest(next_arrival, next_completion), self.state.wake) else {
            return false;
        };
        self.state.now = now;
        self.state.power.advance(now);
        self.state.completions.advance(now);
        if S::USES_RUNNING_SET {
            self.state.running.advance(now);
        }
        while let Some(job) = self.state.pop_completion_at(jobs, now) {
            self.events += 1;
            let ctx = SchedCtx {
                jobs,
                state: &mut self.state,
            };
            scheduler.on_termination(job, &ctx);
            if FEEDBACK {
                self.lane.release(job.index(), now);
            }
            predictor.on_termination(job, &self.state.predictor_view(jobs), &mut self.updates);
            for i in 0..self.updates.len() {
                let (other, prediction) = self.updates[i];
                let arrived = if FEEDBACK {
                    self.lane.arrived[other.index()] != crate::sim::state::UNSET
                } else {
                    other.index() < run.arrived
                };
                self.apply_update(jobs, scheduler, arrived, other, prediction);
            }
            self.updates.clear();
            run.unfinished -= usize::from(run.measured.contains(&job.index()));
        }
        // Jobs still running at their predicted end get a larger prediction.
        while let Some(job) = self.state.pop_deadline_at(now) {
            let j = job.index();
            let misses = self.state.log.misses[j];
            let answer = predictor.on_deadline_missed(job, misses, &self.state.predictor_view(jobs));
            self.state.log.misses[j] += 1;
            let old = self.state.prediction[j];
            let runtime_so_far = now - self.state.start[j];
            self.state
                .repredict_running(jobs, job, answer.max(runtime_so_far + 1));
            let ctx = SchedCtx {
                jobs,
                state: &mut self.state,
            };
            scheduler.on_prediction_changed(job, old, &ctx);
        }
        loop {
            let j = if FEEDBACK {
                match self.lane.pop_at(now, jobs) {
                    Some(j) => j,
                    None => break,
                }
            } else if run.arrived < n && jobs.submit[run.arrived] == now {
                run.arrived
            } else {
                break;
            };
            self.events += 1;
            let job = JobId(j as u32);
            let prediction = predictor.on_arrival(job, &self.state.predictor_view(jobs));
            self.state.predict_on_arrival(j, prediction);
            let ctx = SchedCtx {
                jobs,
                state: &mut self.state,
            };
            scheduler.on_arrival(job, &ctx);
            run.arrived += 1;
        }
        self.pass(jobs, scheduler, predictor);
        if run.saturation_at.is_some_and(|s| run.arrived >= s) && run.unfinished > 0 {
            run.saturated = true;
        }
        true
    }

    /// One scheduling pass at the current instant, with no new event: after the instant's
    /// own pass, when something outside the engine (an agent's choice) changed what the
    /// scheduler will do.
    #[inline(always)]
    pub fn pass<S: Scheduler, P: RuntimePredictor>(
        &mut self,
        jobs: &Jobs,
        scheduler: &mut S,
        predictor: &mut P,
    ) {
        self.state.wake = None;
        let mut ctx = SchedCtx {
            jobs,
            state: &mut self.state,
        };
        scheduler.schedule(&mut ctx);
        self.passes += 1;
        for i in 0..self.state.started_now.len() {
            // Empty unless the predictor has a start hook.
            let job = self.state.started_now[i];
            predictor.on_start(job, &self.state.predictor_view(jobs));
        }
        self.state.started_now.clear();
        if self.validate {
            let arrivals = if self.lane.active {
                &self.lane.arrived
            } else {
                &jobs.submit
            };
            validator::check_pass(jobs, arrivals, &self.state);
        }
    }

    /// The machine as the scheduler sees it between instants (for an agent's observations).
    pub fn view<'a>(&'a mut self, jobs: &'a Jobs) -> SchedCtx<'a> {
        SchedCtx {
            jobs,
            state: &mut self.state,
        }
    }

    /// Closes a run [`Engine::begin`] started: checks the whole schedule (when validating)
    /// and returns it.
    pub fn finish<S: Scheduler>(&mut self, run: &Run, jobs: &Jobs, scheduler: &S) -> Outcome<'_> {
        let n = jobs.len();
        let finished = run.unfinished == 0 && run.arrived == n && scheduler.waiting() == 0;
        if !run.windowed {
            assert_eq!(
                scheduler.waiting(),
                0,
                "the machine is idle and no job will arrive, yet the scheduler left jobs waiting"
            );
        }
        if self.validate && finished && self.state.completions.is_empty() {
            let arrivals = if self.lane.active {
                &self.lane.arrived
            } else {
                &jobs.submit
            };
            validator::check_schedule(jobs, arrivals, &self.state);
        }
        Outcome {
            start: &self.state.start,
            end: &self.state.end,
            passes: self.passes,
            events: self.events,
            saturated: run.saturated,
            stopped_at: self.state.now,
            prediction: &self.state.prediction,
            since: &self.state.since,
            inaccuracy: &self.state.log.inaccuracy,
            accuracy: &self.state.log.accuracy,
            misses: &self.state.log.misses,
            backfilled: scheduler.backfilled(),
            stranded_core_seconds: scheduler.stranded_core_seconds(),
            stranded_by_partition: &[],
            history: &self.state.history,
            arrivals: self.lane.active.then_some(self.lane.arrived.as_slice()),
            switches: &self.state.power.log,
            released: None,
        }
    }
}
