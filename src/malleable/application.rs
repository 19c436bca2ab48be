//! Application-centric evaluation (Downey 1997, section 5, Table 1): the system runs AVG,
//! and each job AVG starts on fewer than its maximum is replayed, alone, under a strategy.
//! While it holds out nothing else starts (FCFS, no passing), so the running set only
//! drains at the end times of AVG's schedule; jobs arriving meanwhile only prompt it.
//!
//! - *Spoiled* jobs got their maximum from AVG; the others are *docile* (the strategy also
//!   starts them at once) or *rebels* (it holds out for more than is free).
//! - A job's *saving* is its AVG run time minus its turnaround from that instant under the
//!   strategy (wait plus run time); docile and spoiled jobs save 0.
//! - The lifetime fit sees the jobs AVG finished by that instant; BIAS's correction learns
//!   from the replays of earlier jobs, in order.

use serde::Serialize;

use super::bias::{BiasFit, PredictionQuality};
use super::sim::max_size;
use super::strategy::{
    Chooser, Deciding, Head, Pending, RunningCluster, Situation, Strategy, resolve_pending, run_time,
};
use super::{Allocation, simulate};
use crate::error::{Error, Result};
use crate::queue_time::{LifetimeFit, UniformLog};
use crate::workload::Jobs;

/// Table 1 of Downey 1997 for one strategy. Savings in seconds.
#[derive(Clone, Debug, Serialize)]
pub struct ApplicationReport {
    pub jobs: u64,
    pub spoiled: u64,
    pub docile: u64,
    pub rebels: u64,
    /// Total saving over all jobs, divided by the number of jobs.
    pub savings_per_job: f64,
    pub median_savings_per_rebel: f64,
    pub mean_savings_per_rebel: f64,
    /// Rebels whose turnaround is longer than under AVG.
    pub losing_rebel_fraction: f64,
    /// What those rebels lose on average, seconds (NaN where none loses).
    pub mean_loss_per_losing_rebel: f64,
    /// The rebels' mean sequential lifetime L over the docile jobs' (NaN without both).
    pub rebel_lifetime_ratio: f64,
    pub quality: Option<PredictionQuality>,
    /// The replays' predictions and outcomes, seconds.
    #[serde(skip)]
    pub pairs: Vec<(f64, f64)>,
}

/// Replays every job AVG starts on fewer than its maximum under `allocation`.
pub fn application_centric(jobs: &Jobs, procs: u32, allocation: &Allocation) -> Result<ApplicationReport> {
    if matches!(allocation.strategy, Strategy::Avg(_)) {
        return Err(Error::Invalid(
            "the application-centric evaluation compares a strategy with AVG; choose another".into(),
        ));
    }
    let avg = simulate(jobs, procs, &allocation.avg_beside())?;
    let model = jobs
        .malleable
        .as_ref()
        .expect("simulate checked the model columns");
    let n = jobs.len();
    let max_of = |j: usize| max_size(model, j, procs, allocation);
    let run = |j: usize, size: u32| run_time(model, j, size);
    let mut by_end: Vec<usize> = (0..n).collect();
    by_end.sort_by(|&a, &b| avg.end[a].total_cmp(&avg.end[b]));
    let mut finished = 0;
    let mut fit = LifetimeFit::new(UniformLog::downey_model());
    let (mut correction, mut quality) = (BiasFit::default(), BiasFit::default());
    let mut running: Vec<RunningCluster> = Vec::with_capacity(procs as usize);
    let mut replay = Replay::default();
    let (mut spoiled, mut docile) = (0u64, 0u64);
    let mut savings: Vec<f64> = Vec::new();
    // Sums of the sequential lifetimes of rebels and of docile jobs.
    let (mut rebel_lifetimes, mut docile_lifetimes) = (0.0, 0.0);
    let mut pairs: Vec<(f64, f64)> = Vec::new();
    let mut total_savings = 0.0;
    for j in 0..n {
        let t0 = avg.start[j];
        // AVG's state at j's start: jobs ended by then are gone (ends come before starts).
        running.retain(|r| r.end > t0);
        while finished < n && avg.end[by_end[finished]] <= t0 {
            let k = by_end[finished];
            fit.observe(avg.end[k] - avg.start[k]);
            finished += 1;
        }
        let max = max_of(j);
        if avg.size[j] == max {
            spoiled += 1;
        } else {
            let free = avg.size[j];
            debug_assert_eq!(free, procs - running.iter().map(|r| r.size).sum::<u32>());
            let (wait, size, rebelled) = replay.run(
                allocation,
                jobs,
                j,
                max,
                t0,
                free,
                &running,
                &fit,
                &mut correction,
                &mut quality,
                &mut pairs,
            );
            if rebelled {
                let saving = run(j, free) - (wait + run(j, size));
                savings.push(saving);
                total_savings += saving;
                rebel_lifetimes += model.lifetime[j];
            } else {
                docile += 1;
                docile_lifetimes += model.lifetime[j];
            }
        }
        running.push(RunningCluster {
            job: j as u32,
            start: t0,
            end: avg.end[j],
            size: avg.size[j],
        });
    }
    let rebels = savings.len() as u64;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let losses: Vec<f64> = savings.iter().filter(|&&s| s < 0.0).map(|s| -s).collect();
    let losing = losses.len();
    let rebel_lifetime_ratio = if rebels > 0 && docile > 0 {
        (rebel_lifetimes / rebels as f64) / (docile_lifetimes / docile as f64)
    } else {
        f64::NAN
    };
    let median = crate::metrics::median(&mut savings);
    Ok(ApplicationReport {
        jobs: n as u64,
        spoiled,
        docile,
        rebels,
        savings_per_job: total_savings / n.max(1) as f64,
        median_savings_per_rebel: median,
        mean_savings_per_rebel: if savings.is_empty() {
            f64::NAN
        } else {
            mean(&savings)
        },
        losing_rebel_fraction: losing as f64 / savings.len().max(1) as f64,
        mean_loss_per_losing_rebel: if losses.is_empty() {
            f64::NAN
        } else {
            mean(&losses)
        },
        rebel_lifetime_ratio,
        quality: (quality.quality().pairs >= 2).then(|| quality.quality()),
        pairs,
    })
}

/// Buffers of one job's replay.
#[derive(Default)]
struct Replay {
    chooser: Chooser,
    running: Vec<RunningCluster>,
    pending: Vec<Pending>,
}

impl Replay {
    /// Job `j` at the head at `t0` with `free` processors free and `running` jobs ending as
    /// in AVG's schedule: its wait, the size it starts on, and whether it rebelled.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        allocation: &Allocation,
        jobs: &Jobs,
        j: usize,
        max: u32,
        t0: f64,
        mut free: u32,
        running: &[RunningCluster],
        fit: &LifetimeFit,
        correction: &mut BiasFit,
        quality: &mut BiasFit,
        pairs: &mut Vec<(f64, f64)>,
    ) -> (f64, u32, bool) {
        let model = jobs.malleable.as_ref().expect("model columns");
        self.running.clear();
        self.running.extend_from_slice(running);
        // Ends in time order, latest first so the next one pops off the back.
        self.running.sort_by(|a, b| b.end.total_cmp(&a.end));
        self.pending.clear();
        // Later arrivals prompt the rebel; those already queued do not.
        let mut next_arrival = jobs.submit.partition_point(|&s| (s as f64) <= t0);
        let mut head = Head::default();
        let (mut now, mut arrived, mut prompted) = (t0, false, false);
        loop {
            let situation = Situation {
                now,
                free,
                arrived,
                prompted,
                running: &self.running,
                fit,
                correction,
            };
            let deciding = &mut Deciding {
                model,
                j,
                max,
                situation: &situation,
                head: &mut head,
                chooser: &mut self.chooser,
                pending: &mut self.pending,
            };
            if let Some(size) = allocation.strategy.behaviour().decide(deciding) {
                return (now - t0, size, head.rebelled);
            }
            let end = self.running.last().map(|r| r.end);
            let arrival = jobs.submit.get(next_arrival).map(|&s| s as f64);
            now = [end, arrival, head.prompt]
                .into_iter()
                .flatten()
                .min_by(f64::total_cmp)
                .expect("a waiting head has running jobs to wait for");
            while self.running.last().is_some_and(|r| r.end == now) {
                free += self.running.pop().expect("some").size;
            }
            resolve_pending(&mut self.pending, free, now, correction, quality, pairs);
            arrived = false;
            while jobs.submit.get(next_arrival).is_some_and(|&s| s as f64 == now) {
                next_arrival += 1;
                arrived = true;
            }
            prompted = head.prompt.is_some_and(|p| p <= now);
            if prompted {
                head.prompt = None;
            }
        }
    }
}
