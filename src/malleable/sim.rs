//! The malleable-job simulator (Downey 1997, sections 4 and 6): one FCFS queue with no
//! passing; the job at its head picks a cluster size by the allocation strategy, then runs
//! R(n) = L / S(n) seconds. Time is continuous (f64 seconds).
//!
//! Within an instant: completions, then arrivals, then a fired prompt, then the head
//! decides, as often as heads start. When the head decides depends on the strategy:
//! - AVG and OPT at every event (OPT's oracle gives the same plan until the plan starts);
//! - PRED and BIAS when the job becomes the head, on each arrival and when its predicted
//!   queue time elapses (Downey's prompts), and when completions free the processors it
//!   holds out for (with lock-in it then starts on exactly those); with `prompts=events`,
//!   at every event;
//! - HEUR at every event; a rebel starts when its f A processors are free or, at the
//!   latest, k t_save after it rebelled (t_save from the processors free then).
//!
//! Rebel predictions (PRED, BIAS) are paired with their outcome, the time until the
//! processors held out for were free; a rebel that starts before that leaves no outcome.
//!
//! A *rebel* holds out while processors are free (target > free >= 1). Prompts come at
//! least [`MIN_PROMPT_INTERVAL`](super::MIN_PROMPT_INTERVAL) apart: a predictor that keeps answering "any moment now"
//! (a running job older than the fitted distribution allows) would otherwise prompt
//! without end.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use serde::Serialize;

use super::Allocation;
use super::bias::{BiasFit, PredictionQuality};
use super::strategy::{
    Chooser, Deciding, Head, Pending, RunningCluster, Situation, resolve_pending, run_time,
};
use crate::error::{Error, Result};
use crate::metrics::registry::{Registry, row};
use crate::queue_time::{LifetimeFit, UniformLog};
use crate::workload::{Jobs, MalleableColumns};

/// The schedule of one malleable run, indexed by job.
#[derive(Clone, Debug, Serialize)]
pub struct MalleableOutcome {
    pub start: Vec<f64>,
    pub end: Vec<f64>,
    pub size: Vec<u32>,
    /// Jobs that held out for more processors than were free (at least one free).
    pub rebels: u64,
    /// Mean of end - submit over all jobs.
    pub mean_response: f64,
    /// Median of end - submit over all jobs.
    pub median_response: f64,
    /// Mean and median of the run times R(n) = end - start: the job "durations" Downey
    /// quotes (median 3 minutes, mean 78 minutes).
    pub mean_run: f64,
    pub median_run: f64,
    /// Mean efficiency S(n)/n over processors and time, from the first arrival to the last
    /// end (idle processors count 0); it equals sum(L) / (N x span), so strategies differ
    /// only by their span.
    pub utilization: f64,
    /// The same mean over the instants at which jobs wait: what holding out and L-shaped
    /// schedules change.
    pub utilization_while_waiting: f64,
    /// Efficiency of the processor time handed out: sum(L) / sum(n R(n)).
    pub allocated_efficiency: f64,
    /// Queue-time predictions of rebels against the time their processors took to free up
    /// (PRED and BIAS; the predictions as used, bias-corrected for BIAS).
    pub quality: Option<PredictionQuality>,
    /// Those predictions and outcomes, seconds, in the order the outcomes came.
    #[serde(skip)]
    pub pairs: Vec<(f64, f64)>,
    /// The same jobs compared one by one with AVG's schedule of the same workload, once
    /// [`MalleableOutcome::compare_with`] has been given it.
    pub vs_avg: Option<JobByJob>,
}

/// Turnarounds compared job by job with another schedule of the same jobs (AVG's).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct JobByJob {
    /// Fractions of jobs that finish sooner / later after their submit than under AVG.
    pub faster: f64,
    pub slower: f64,
    /// Median of (turnaround - AVG's turnaround), seconds.
    pub median_change: f64,
}

impl MalleableOutcome {
    /// Records the job-by-job comparison with `avg`, a schedule of the same jobs.
    pub fn compare_with(&mut self, jobs: &Jobs, avg: &MalleableOutcome) {
        let n = jobs.len();
        assert_eq!(avg.end.len(), n, "the same jobs");
        let mut change: Vec<f64> = (0..n).map(|j| self.end[j] - avg.end[j]).collect();
        let faster = change.iter().filter(|&&d| d < 0.0).count();
        let slower = change.iter().filter(|&&d| d > 0.0).count();
        self.vs_avg = Some(JobByJob {
            faster: faster as f64 / n.max(1) as f64,
            slower: slower as f64 / n.max(1) as f64,
            median_change: crate::metrics::median(&mut change),
        });
    }
}

/// What a malleable run reports: the system-centric outcome, or the application-centric
/// evaluation ([`super::ApplicationReport`]).
#[derive(Clone, Debug)]
pub enum MalleableReport {
    System(MalleableOutcome),
    Application(super::ApplicationReport),
}

impl MalleableReport {
    fn quality(&self) -> Option<&PredictionQuality> {
        match self {
            MalleableReport::System(o) => o.quality.as_ref(),
            MalleableReport::Application(a) => a.quality.as_ref(),
        }
    }
}

/// A system-centric value; NaN in the application-centric evaluation.
fn system(r: &MalleableReport, f: fn(&MalleableOutcome) -> f64) -> f64 {
    match r {
        MalleableReport::System(o) => f(o),
        MalleableReport::Application(_) => f64::NAN,
    }
}

/// An application-centric value; NaN in the system-centric evaluation.
fn application(r: &MalleableReport, f: fn(&super::ApplicationReport) -> f64) -> f64 {
    match r {
        MalleableReport::Application(a) => f(a),
        MalleableReport::System(_) => f64::NAN,
    }
}

/// A value of the log-space fit of predictions against outcomes; NaN without predictions.
fn quality(r: &MalleableReport, f: fn(&PredictionQuality) -> f64) -> f64 {
    r.quality().map_or(f64::NAN, f)
}

/// The job-by-job comparison with AVG on the same workload (system-centric).
fn versus_avg(r: &MalleableReport, f: fn(&JobByJob) -> f64) -> f64 {
    match r {
        MalleableReport::System(o) => o.vs_avg.as_ref().map_or(f64::NAN, f),
        MalleableReport::Application(_) => f64::NAN,
    }
}

/// The names of [`MALLEABLE_METRICS`] that need the run compared with AVG.
pub const VERSUS_AVG_METRICS: [&str; 3] = ["faster_than_avg", "slower_than_avg", "median_response_change"];

/// The metrics a malleable run reports: system-centric ones, then those of the
/// application-centric evaluation; each evaluation reports NaN for the other's.
pub static MALLEABLE_METRICS: Registry<MalleableReport> = Registry {
    kind: "a malleable run",
    metrics: &[
        row!("jobs", "Jobs", Jobs, Undefined, |r| match r {
            MalleableReport::System(o) => o.start.len() as f64,
            MalleableReport::Application(a) => a.jobs as f64,
        }),
        row!("mean_response", "Mean response time", Seconds, Infinite, |r| {
            system(r, |o| o.mean_response)
        }),
        row!("p50_response", "Median response time", Seconds, Infinite, |r| {
            system(r, |o| o.median_response)
        }),
        row!("mean_run", "Mean run time", Seconds, Infinite, |r| system(
            r,
            |o| o.mean_run
        )),
        row!("p50_run", "Median run time", Seconds, Infinite, |r| system(
            r,
            |o| o.median_run
        )),
        row!(
            "faster_than_avg",
            "Jobs faster than under AVG",
            Fraction,
            Undefined,
            |r| versus_avg(r, |c| c.faster)
        ),
        row!(
            "slower_than_avg",
            "Jobs slower than under AVG",
            Fraction,
            Undefined,
            |r| versus_avg(r, |c| c.slower)
        ),
        row!(
            "median_response_change",
            "Median change of response time against AVG",
            Seconds,
            Undefined,
            |r| { versus_avg(r, |c| c.median_change) },
            Signed
        ),
        row!("utilization", "Utilisation", Fraction, Undefined, |r| system(
            r,
            |o| o.utilization
        )),
        row!(
            "utilization_while_waiting",
            "Utilisation while jobs wait",
            Fraction,
            Undefined,
            |r| { system(r, |o| o.utilization_while_waiting) }
        ),
        row!(
            "allocated_efficiency",
            "Efficiency of allocated processors",
            Fraction,
            Undefined,
            |r| { system(r, |o| o.allocated_efficiency) }
        ),
        row!("rebels", "Rebels", Jobs, Undefined, |r| match r {
            MalleableReport::System(o) => o.rebels as f64,
            MalleableReport::Application(a) => a.rebels as f64,
        }),
        row!(
            "rebel_fraction",
            "Share of jobs that rebel",
            Fraction,
            Undefined,
            |r| match r {
                MalleableReport::System(o) => o.rebels as f64 / o.start.len().max(1) as f64,
                MalleableReport::Application(a) => a.rebels as f64 / a.jobs.max(1) as f64,
            }
        ),
        row!(
            "prediction_pairs",
            "Predictions scored",
            Number,
            Undefined,
            |r| r.quality().map_or(0.0, |q| q.pairs as f64),
            NonNegative
        ),
        row!(
            "prediction_correlation",
            "Correlation of log prediction and log outcome",
            Number,
            Undefined,
            |r| { quality(r, |q| q.correlation) }
        ),
        row!(
            "prediction_slope",
            "Slope of log outcome on log prediction",
            Number,
            Undefined,
            |r| { quality(r, |q| q.slope) }
        ),
        row!(
            "prediction_intercept",
            "Intercept of log outcome on log prediction",
            Number,
            Undefined,
            |r| { quality(r, |q| q.intercept) }
        ),
        row!(
            "prediction_short_bias",
            "Mean log ratio of outcome to prediction, predictions under 10 min",
            Number,
            Undefined,
            |r| { quality(r, |q| q.short_bias) }
        ),
        row!(
            "prediction_long_bias",
            "Mean log ratio of outcome to prediction, predictions of 10 min or more",
            Number,
            Undefined,
            |r| { quality(r, |q| q.long_bias) }
        ),
        row!(
            "spoiled_fraction",
            "Share of jobs spoiled",
            Fraction,
            Undefined,
            |r| { application(r, |a| a.spoiled as f64 / a.jobs.max(1) as f64) }
        ),
        row!(
            "docile_fraction",
            "Share of docile jobs",
            Fraction,
            Undefined,
            |r| { application(r, |a| a.docile as f64 / a.jobs.max(1) as f64) }
        ),
        row!(
            "savings_per_job",
            "Saving per job",
            Seconds,
            Undefined,
            |r| application(r, |a| a.savings_per_job),
            Signed
        ),
        row!(
            "median_savings_per_rebel",
            "Median saving per rebel",
            Seconds,
            Undefined,
            |r| { application(r, |a| a.median_savings_per_rebel) },
            Signed
        ),
        row!(
            "mean_savings_per_rebel",
            "Mean saving per rebel",
            Seconds,
            Undefined,
            |r| { application(r, |a| a.mean_savings_per_rebel) },
            Signed
        ),
        row!(
            "losing_rebel_fraction",
            "Share of rebels that lose",
            Fraction,
            Undefined,
            |r| { application(r, |a| a.losing_rebel_fraction) }
        ),
        row!(
            "mean_loss_per_losing_rebel",
            "Mean loss of the rebels that lose",
            Seconds,
            Undefined,
            |r| { application(r, |a| a.mean_loss_per_losing_rebel) }
        ),
        row!(
            "rebel_lifetime_ratio",
            "Rebels' mean lifetime over docile jobs'",
            Ratio,
            Undefined,
            |r| { application(r, |a| a.rebel_lifetime_ratio) }
        ),
    ],
};

/// Seconds as a heap key: non-negative finite floats order like their bits.
fn key(t: f64) -> u64 {
    debug_assert!(t >= 0.0 && t.is_finite());
    t.to_bits()
}

/// Job `j`'s largest cluster under `allocation`'s rule, at least 1, at most the machine.
pub(crate) fn max_size(model: &MalleableColumns, j: usize, procs: u32, allocation: &Allocation) -> u32 {
    allocation.max_cluster.of(model.avg_parallelism[j], procs)
}

/// The next instant: the earliest of the next arrival, the next completion and the head's
/// prompt; `None` when nothing is left.
fn next_instant(
    arrival: Option<f64>,
    completions: &BinaryHeap<Reverse<(u64, u32)>>,
    prompt: Option<f64>,
) -> Option<f64> {
    let completion = completions.peek().map(|Reverse((t, _))| f64::from_bits(*t));
    [arrival, completion, prompt]
        .into_iter()
        .flatten()
        .min_by(f64::total_cmp)
}

/// Simulates `jobs` (with the Downey model's columns) on `procs` processors.
pub fn simulate(jobs: &Jobs, procs: u32, allocation: &Allocation) -> Result<MalleableOutcome> {
    MalleableSimulator::new().run(jobs, procs, allocation)
}

/// The simulator with its buffers, kept between runs so that a warm run allocates nothing
/// once each outcome's columns are given back ([`MalleableSimulator::recycle`]).
#[derive(Debug, Default)]
pub struct MalleableSimulator {
    max_size: Vec<u32>,
    running: Vec<RunningCluster>,
    completions: BinaryHeap<Reverse<(u64, u32)>>,
    queue: VecDeque<u32>,
    pending: Vec<Pending>,
    chooser: Chooser,
    /// The columns of the next outcome, and the copies its medians sort.
    spare: Decided,
    response: Vec<f64>,
    runs: Vec<f64>,
    /// Whether each run is checked after it; by default, in debug builds.
    validate: Option<bool>,
}

impl MalleableSimulator {
    /// A simulator that checks every schedule in debug builds.
    pub fn new() -> Self {
        MalleableSimulator::default()
    }

    /// Whether each schedule is checked (which allocates) after its run.
    pub fn with_validation(mut self, validate: bool) -> Self {
        self.validate = Some(validate);
        self
    }

    /// Gives an outcome's columns back for the next run to fill.
    pub fn recycle(&mut self, outcome: MalleableOutcome) {
        self.spare = Decided {
            start: outcome.start,
            end: outcome.end,
            size: outcome.size,
            rebels: 0,
            pairs: outcome.pairs,
        };
    }

    /// Simulates `jobs` (with the Downey model's columns) on `procs` processors.
    pub fn run(&mut self, jobs: &Jobs, procs: u32, allocation: &Allocation) -> Result<MalleableOutcome> {
        let model = jobs.malleable.as_ref().ok_or_else(|| {
            Error::Invalid("malleable strategies need a workload of the Downey model (--model downey)".into())
        })?;
        let n = jobs.len();
        self.max_size.clear();
        self.max_size
            .extend((0..n).map(|j| max_size(model, j, procs, allocation)));
        let mut d = std::mem::take(&mut self.spare);
        for column in [&mut d.start, &mut d.end] {
            column.clear();
            column.resize(n, f64::NAN);
        }
        d.size.clear();
        d.size.resize(n, 0);
        d.rebels = 0;
        d.pairs.clear();
        self.running.clear();
        self.completions.clear();
        self.queue.clear();
        self.pending.clear();
        let (waiting, quality) = self.events(jobs, model, procs, allocation, &mut d);
        assert!(self.queue.is_empty() && self.running.is_empty(), "every job ran");
        if self.validate.unwrap_or(cfg!(debug_assertions)) {
            validate(jobs, model, procs, &self.max_size, &d);
        }
        Ok(outcome(
            jobs,
            model,
            procs,
            d,
            waiting,
            &quality,
            (&mut self.response, &mut self.runs),
        ))
    }

    /// The event loop: fills `d`, and returns the integral of the running jobs' speedups
    /// over the time jobs wait with that time, and the rebels' prediction quality.
    fn events(
        &mut self,
        jobs: &Jobs,
        model: &MalleableColumns,
        procs: u32,
        allocation: &Allocation,
        d: &mut Decided,
    ) -> ((f64, f64), BiasFit) {
        let n = jobs.len();
        let mut free = procs;
        let mut cursor = 0;
        let mut head = Head::default();
        let mut fit = LifetimeFit::new(UniformLog::downey_model());
        let (mut correction, mut quality) = (BiasFit::default(), BiasFit::default());
        // Sum of S(n) over running jobs, and its integral over the time jobs wait.
        let (mut speedup_sum, mut waiting_work, mut waiting_time, mut last) = (0.0f64, 0.0, 0.0, 0.0);
        loop {
            let arrival = jobs.submit.get(cursor).map(|&s| s as f64);
            let Some(now) = next_instant(arrival, &self.completions, head.prompt) else {
                break;
            };
            if !self.queue.is_empty() {
                waiting_work += speedup_sum * (now - last);
                waiting_time += now - last;
            }
            last = now;
            end_jobs(
                now,
                &mut self.completions,
                &mut self.running,
                model,
                &mut fit,
                &mut free,
                &mut speedup_sum,
            );
            resolve_pending(
                &mut self.pending,
                free,
                now,
                &mut correction,
                &mut quality,
                &mut d.pairs,
            );
            let mut arrived = false;
            while cursor < n && jobs.submit[cursor] as f64 == now {
                self.queue.push_back(cursor as u32);
                cursor += 1;
                arrived = true;
            }
            // A fired prompt belongs to the head that set it, which decides first.
            let mut fired = head.prompt.is_some_and(|p| p <= now);
            if fired {
                head.prompt = None;
            }
            // The head decides; each start gives the next job its turn at once.
            while let Some(&j) = self.queue.front() {
                let j = j as usize;
                let prompted = std::mem::take(&mut fired);
                let situation = Situation {
                    now,
                    free,
                    arrived,
                    prompted,
                    running: &self.running,
                    fit: &fit,
                    correction: &correction,
                };
                let decision = allocation.strategy.behaviour().decide(&mut Deciding {
                    model,
                    j,
                    max: self.max_size[j],
                    situation: &situation,
                    head: &mut head,
                    chooser: &mut self.chooser,
                    pending: &mut self.pending,
                });
                let Some(n_j) = decision else {
                    break;
                };
                debug_assert!(n_j >= 1 && n_j <= free && n_j <= self.max_size[j]);
                self.queue.pop_front();
                let runtime = run_time(model, j, n_j);
                d.start[j] = now;
                d.end[j] = now + runtime;
                d.size[j] = n_j;
                free -= n_j;
                speedup_sum += model.lifetime[j] / runtime;
                self.running.push(RunningCluster {
                    job: j as u32,
                    start: now,
                    end: now + runtime,
                    size: n_j,
                });
                self.completions.push(Reverse((key(now + runtime), j as u32)));
                d.rebels += u64::from(head.rebelled);
                head = Head::default();
                self.pending.clear();
            }
        }
        ((waiting_work, waiting_time), quality)
    }
}

/// Ends the running jobs due at `now`: their processors back to `free`, their speedups off
/// `speedup_sum` (one at a time, as the sum was built), their lifetimes fed to `fit`.
fn end_jobs(
    now: f64,
    completions: &mut BinaryHeap<Reverse<(u64, u32)>>,
    running: &mut Vec<RunningCluster>,
    model: &MalleableColumns,
    fit: &mut LifetimeFit,
    free: &mut u32,
    speedup_sum: &mut f64,
) {
    while let Some(&Reverse((t, job))) = completions.peek() {
        if t != key(now) {
            break;
        }
        completions.pop();
        let at = running.iter().position(|r| r.job == job).expect("running");
        let r = running.swap_remove(at);
        *free += r.size;
        *speedup_sum -= model.lifetime[r.job as usize] / (r.end - r.start);
        fit.observe(r.end - r.start);
    }
}

/// What a run decided: each job's start, end and cluster size, the heads that rebelled,
/// and the prediction pairs.
#[derive(Clone, Debug, Default)]
struct Decided {
    start: Vec<f64>,
    end: Vec<f64>,
    size: Vec<u32>,
    rebels: u64,
    pairs: Vec<(f64, f64)>,
}

/// The schedule's invariants, checked in debug builds and tests: jobs start in arrival
/// order (the head decides first), none before it arrives; each on 1 to its largest
/// cluster, for L / S(n) seconds; and the processors held never exceed the machine's.
fn validate(jobs: &Jobs, model: &MalleableColumns, procs: u32, max_size: &[u32], d: &Decided) {
    for j in 0..jobs.len() {
        let submit = jobs.submit[j] as f64;
        assert!(
            d.start[j] >= submit,
            "job {j} starts at {} before it arrives at {submit}",
            d.start[j]
        );
        assert!(
            j == 0 || d.start[j] >= d.start[j - 1],
            "job {j} starts at {} before job {} ahead of it ({})",
            d.start[j],
            j - 1,
            d.start[j - 1]
        );
        assert!(
            (1..=max_size[j]).contains(&d.size[j]),
            "job {j} runs on {} processors, outside 1 to its largest cluster {}",
            d.size[j],
            max_size[j]
        );
        let runtime = run_time(model, j, d.size[j]);
        assert!(
            // end = start + runtime, rounded at the magnitude of the clock.
            ((d.end[j] - d.start[j]) - runtime).abs() <= 1e-9 * d.end[j].abs().max(1.0),
            "job {j} runs {} s on {} processors, not its L / S(n) = {runtime} s",
            d.end[j] - d.start[j],
            d.size[j]
        );
    }
    let intervals = (0..jobs.len()).map(|j| (d.start[j], d.end[j], d.size[j] as f64));
    if let Err(o) = crate::occupancy::check(intervals, procs as f64) {
        panic!(
            "t={}: the running jobs hold {} of {} processors",
            o.at, o.held, o.capacity
        );
    }
}

/// A finished run's metrics: `waiting` is the integral of the running jobs' speedup over
/// the time jobs waited, and that time.
fn outcome(
    jobs: &Jobs,
    model: &crate::workload::MalleableColumns,
    procs: u32,
    decided: Decided,
    (waiting_work, waiting_time): (f64, f64),
    quality: &BiasFit,
    (response, runs): (&mut Vec<f64>, &mut Vec<f64>),
) -> MalleableOutcome {
    let Decided {
        start,
        end,
        size,
        rebels,
        pairs,
    } = decided;
    let n = jobs.len();
    response.clear();
    response.extend((0..n).map(|j| end[j] - jobs.submit[j] as f64));
    runs.clear();
    runs.extend((0..n).map(|j| end[j] - start[j]));
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
    let (mean_response, mean_run) = (mean(response), mean(runs));
    let span = end.iter().copied().fold(0.0, f64::max) - jobs.submit.first().map_or(0.0, |&s| s as f64);
    let utilization = model.lifetime.iter().sum::<f64>() / (procs as f64 * span);
    let quality = (quality.quality().pairs >= 2).then(|| quality.quality());
    let allocated: f64 = (0..n).map(|j| size[j] as f64 * (end[j] - start[j])).sum();
    MalleableOutcome {
        utilization_while_waiting: waiting_work / (procs as f64 * waiting_time),
        allocated_efficiency: model.lifetime.iter().sum::<f64>() / allocated,
        start,
        end,
        size,
        rebels,
        mean_response,
        median_response: crate::metrics::median(response),
        mean_run,
        median_run: crate::metrics::median(runs),
        utilization,
        quality,
        pairs,
        vs_avg: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::occupancy::{Plant, assert_faults_named};
    use crate::workload::synth::{DowneyParams, ModelEntry};

    /// The validator passes a simulated schedule and names each fault planted in it: a
    /// start before the arrival, a cluster beyond the largest, a run time that is not
    /// L / S(n), processors held beyond the machine.
    #[test]
    fn the_validator_passes_a_run_and_catches_each_fault() {
        let params = DowneyParams {
            procs: 32,
            jobs: Some(200),
            ..DowneyParams::default()
        };
        let w = params.generate(1);
        let allocation = Allocation::AVG;
        let o = simulate(&w.jobs, w.procs, &allocation).unwrap();
        let model = w.jobs.malleable.as_ref().unwrap();
        let max: Vec<u32> = (0..w.jobs.len())
            .map(|j| max_size(model, j, w.procs, &allocation))
            .collect();
        let decided = Decided {
            start: o.start.clone(),
            end: o.end.clone(),
            size: o.size.clone(),
            rebels: 0,
            pairs: Vec::new(),
        };
        validate(&w.jobs, model, w.procs, &max, &decided);
        let j = (1..w.jobs.len())
            .find(|&j| o.start[j] > w.jobs.submit[j] as f64 + 1.0)
            .expect("a job that waited");
        let early = w.jobs.submit[j] as f64 - 1.0;
        let last = o.start[w.jobs.len() - 1];
        let faults: Vec<(&str, Plant<'_, Decided>)> = vec![
            ("before it arrives", Box::new(move |d| d.start[j] = early)),
            ("outside 1 to its largest", Box::new(|d| d.size[0] = 0)),
            ("not its L / S(n)", Box::new(|d| d.end[0] += 1.0)),
            // Every job at the last one's start, for its own run time: all at once.
            (
                "hold",
                Box::new(move |d| {
                    for k in 0..d.start.len() {
                        d.end[k] += last - d.start[k];
                        d.start[k] = last;
                    }
                }),
            ),
        ];
        assert_faults_named(&decided, faults, |d| validate(&w.jobs, model, w.procs, &max, d));
    }
}
