//! The partitioning simulator (Anastasiadis & Sevcik, sections 3 and 6), continuous time.
//!
//! Non-preemptive policies: at every arrival and departure (departures first at a tie, then
//! arrivals, then one allocation step) the rule activates waiting jobs in queue order:
//! - ASP: the free processors divided as equally as possible among the first
//!   min(waiting, free) waiting jobs, none above its p_max;
//! - AP1 and AEP: each job in turn gets min(p_max, target, free) while a processor is free,
//!   target = max(1, floor(P / waiting)) for AP1 and max(1, floor(P / (waiting + running)))
//!   for AEP, both fixed for the step (with free in the minimum, the last job takes what is
//!   left: the paper's footnote for AP1);
//! - SDF and SDF-Max: each job in turn gets min(p_max, Max, free);
//! - (2) variants: the rule picks the jobs and the total it hands out; DIF then gives each
//!   one processor and the rest one at a time to the job with the largest T(p) - T(p+1)
//!   below its p_max (ties to the earlier in the queue). With `dif=free` the total is every
//!   free processor (the paper: DIF decides "the actual distribution of free processors
//!   among the jobs for activation"), so a rule that leaves processors idle no longer does.
//!
//! DYN-EQUI: at every arrival and departure all P processors are divided as equally as
//! possible among the jobs in the system in arrival order (earlier jobs get the odd ones;
//! beyond P jobs, the later ones get none), none above p_max; each job's remaining fraction
//! of its execution progresses at 1 / T(p) per unit time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::policy::{Partitioning, Policy, Step};
use super::workload::MoldableJob;
use crate::metrics::registry::{Registry, row};

/// Which jobs count, and when the run is saturated (the paper: 500, 19,500, 10,000).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Measure {
    pub warmup: usize,
    pub window: usize,
    /// Saturated once this many jobs arrive after the window with measured jobs unfinished.
    pub saturation: Option<usize>,
}

/// Means over the measured jobs (thousands of seconds, processors).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartitionRun {
    pub response: f64,
    pub wait: f64,
    pub run: f64,
    /// Processors per measured job (DYN-EQUI: averaged over its running time).
    pub partition: f64,
    pub saturated: bool,
    /// DYN-EQUI: the largest |remaining fraction| left when a job was declared finished.
    pub drift: f64,
    /// Jobs measured.
    pub measured: usize,
}

/// A partitioning run with, when asked for, DYN-EQUI's run on the same jobs, which
/// `normalized_response` divides by.
#[derive(Clone, Debug)]
pub struct PartitionOutcome {
    pub run: PartitionRun,
    pub reference: Option<PartitionRun>,
}

/// The metrics of a partitioning run. A saturated run reports infinite response times and
/// undefined run times and partition sizes (the simulator sets them so).
pub static PARTITION_METRICS: Registry<PartitionOutcome> = Registry {
    kind: "a partitioning run",
    metrics: &[
        row!("jobs", "Jobs measured", Jobs, Measured, |o| o.run.measured as f64),
        row!("mean_response", "Mean response time", Seconds, Infinite, |o| o
            .run
            .response),
        row!("mean_wait", "Mean wait", Seconds, Infinite, |o| o.run.wait),
        row!("mean_run", "Mean run time", Seconds, Undefined, |o| o.run.run),
        row!(
            "mean_partition",
            "Mean partition size",
            Processors,
            Undefined,
            |o| o.run.partition
        ),
        row!(
            "normalized_response",
            "Mean response time / DYN-EQUI's",
            Ratio,
            Infinite,
            |o| {
                o.reference
                    .as_ref()
                    .map_or(f64::NAN, |r| o.run.response / r.response)
            }
        ),
    ],
};

fn key(t: f64) -> u64 {
    debug_assert!(t >= 0.0 && t.is_finite());
    t.to_bits()
}

/// Per-job results.
#[derive(Clone, Default)]
struct Record {
    start: Vec<f64>,
    end: Vec<f64>,
    /// Processor-time and running time, for the mean partition size.
    area: Vec<f64>,
    busy: Vec<f64>,
}

/// Simulates `jobs` (by arrival) on `procs` processors under `policy`.
pub fn simulate(jobs: &[MoldableJob], procs: u32, policy: Policy, measure: &Measure) -> PartitionRun {
    Partitioner::new().run(jobs, procs, policy, measure)
}

/// The simulator with its buffers, kept between runs (one per thread) so that a warm run
/// allocates nothing.
#[derive(Default)]
pub struct Partitioner {
    record: Record,
    /// The waiting jobs in queue order (preemptive: every job in the system).
    queue: Vec<usize>,
    completions: BinaryHeap<Reverse<(u64, usize)>>,
    sizes: Vec<u32>,
    caps: Vec<u32>,
    /// Preemptive: each job's remaining fraction, share and T(share).
    remaining: Vec<f64>,
    share: Vec<u32>,
    span: Vec<f64>,
    /// Whether each run is checked after it; by default, in debug builds.
    validate: Option<bool>,
}

impl Partitioner {
    /// A simulator that checks every schedule in debug builds.
    pub fn new() -> Self {
        Partitioner::default()
    }

    /// Whether each schedule is checked (which allocates) after its run.
    pub fn with_validation(mut self, validate: bool) -> Self {
        self.validate = Some(validate);
        self
    }

    /// Simulates `jobs` (by arrival) on `procs` processors under `policy`.
    pub fn run(
        &mut self,
        jobs: &[MoldableJob],
        procs: u32,
        policy: Policy,
        measure: &Measure,
    ) -> PartitionRun {
        let n = jobs.len();
        let measured = measure.warmup.min(n)..(measure.warmup + measure.window).min(n);
        let saturation_at = measure.saturation.map(|s| measured.end + s);
        let (saturated, drift) = self.schedule(jobs, procs, policy, &measured, saturation_at);
        let record = &self.record;
        if self.validate.unwrap_or(cfg!(debug_assertions)) {
            validate(jobs, procs, policy.behaviour().preemptive(), record);
        }
        let count = measured.len().max(1) as f64;
        let mean = |f: &dyn Fn(usize) -> f64| measured.clone().map(f).sum::<f64>() / count;
        if saturated {
            return PartitionRun {
                response: f64::INFINITY,
                wait: f64::INFINITY,
                run: f64::NAN,
                partition: f64::NAN,
                saturated,
                drift,
                measured: measured.len(),
            };
        }
        PartitionRun {
            response: mean(&|j| record.end[j] - jobs[j].arrival),
            wait: mean(&|j| record.start[j] - jobs[j].arrival),
            run: mean(&|j| record.end[j] - record.start[j]),
            partition: mean(&|j| record.area[j] / record.busy[j]),
            saturated,
            drift,
            measured: measured.len(),
        }
    }

    /// The run's schedule (in `self.record`), whether it saturated, and (processor
    /// sharing) the work's drift.
    fn schedule(
        &mut self,
        jobs: &[MoldableJob],
        procs: u32,
        policy: Policy,
        measured: &std::ops::Range<usize>,
        saturation_at: Option<usize>,
    ) -> (bool, f64) {
        let n = jobs.len();
        let record = &mut self.record;
        for (column, empty) in [
            (&mut record.start, f64::NAN),
            (&mut record.end, f64::NAN),
            (&mut record.area, 0.0),
            (&mut record.busy, 0.0),
        ] {
            column.clear();
            column.resize(n, empty);
        }
        let policy = policy.behaviour();
        if policy.preemptive() {
            self.shared(jobs, procs, policy, measured, saturation_at)
        } else {
            (self.held(jobs, procs, policy, measured, saturation_at), 0.0)
        }
    }
}

/// The schedule's invariants, checked in debug builds and tests, for every job that
/// started: not before it arrived, on 1 to `min(p_max, procs)` processors on average.
/// A non-preemptive job holds its partition (`area`) for T(partition) seconds, and the
/// partitions held never exceed the machine. Under processor sharing (`shared`) the shares
/// change at every event, so the check is on the whole: the processor-time handed out
/// is at most the machine's over the span.
fn validate(jobs: &[MoldableJob], procs: u32, shared: bool, record: &Record) {
    let started = || (0..jobs.len()).filter(|&j| !record.start[j].is_nan());
    for j in started() {
        let (start, end) = (record.start[j], record.end[j]);
        assert!(
            start >= jobs[j].arrival,
            "job {j} starts at {start} before it arrives at {}",
            jobs[j].arrival
        );
        let partition = record.area[j] / record.busy[j];
        let most = jobs[j].p_max.min(procs) as f64;
        assert!(
            (1.0 - 1e-9..=most + 1e-9).contains(&partition) || end.is_nan(),
            "job {j} ran on {partition} processors on average, outside 1 to {most}"
        );
        if !shared && !end.is_nan() {
            let t = jobs[j].time(record.area[j] as u32);
            assert!(
                ((end - start) - t).abs() <= 1e-9 * end.abs().max(1.0),
                "job {j} runs {} s on {} processors, not its T(p) = {t} s",
                end - start,
                record.area[j]
            );
        }
    }
    if shared {
        let finished = || started().filter(|&j| !record.end[j].is_nan());
        let area: f64 = finished().map(|j| record.area[j]).sum();
        let first = finished().map(|j| jobs[j].arrival).fold(f64::INFINITY, f64::min);
        let last = finished()
            .map(|j| record.end[j])
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(
            area <= procs as f64 * (last - first).max(0.0) * (1.0 + 1e-9) + 1e-9,
            "{area} processor-seconds handed out in {} s on {procs} processors",
            last - first
        );
    } else {
        let intervals = started().map(|j| (record.start[j], record.end[j], record.area[j]));
        if let Err(o) = crate::occupancy::check(intervals, procs as f64) {
            panic!(
                "t={}: the running jobs hold {} of {} processors",
                o.at, o.held, o.capacity
            );
        }
    }
}

impl Partitioner {
    /// The non-preemptive policies, whose jobs hold the partition they start on; returns
    /// whether the run saturated.
    fn held(
        &mut self,
        jobs: &[MoldableJob],
        procs: u32,
        policy: &dyn Partitioning,
        measured: &std::ops::Range<usize>,
        saturation_at: Option<usize>,
    ) -> bool {
        let n = jobs.len();
        let demand = |j: usize| jobs[j].time(1);
        let Partitioner {
            record,
            queue: waiting,
            completions,
            sizes,
            caps,
            ..
        } = self;
        waiting.clear();
        completions.clear();
        let (mut free, mut running, mut cursor, mut unfinished) = (procs, 0usize, 0usize, measured.len());
        loop {
            let arrival = jobs.get(cursor).map(|j| j.arrival);
            let completion = completions.peek().map(|Reverse((t, _))| f64::from_bits(*t));
            let now = match (arrival, completion) {
                (Some(a), Some(c)) => a.min(c),
                (Some(a), None) => a,
                (None, Some(c)) => c,
                (None, None) => break,
            };
            while let Some(&Reverse((t, j))) = completions.peek() {
                if t != key(now) {
                    break;
                }
                completions.pop();
                // A non-preemptive job's area is its partition size (busy is 1).
                free += record.area[j] as u32;
                running -= 1;
                unfinished -= usize::from(measured.contains(&j));
            }
            while cursor < n && jobs[cursor].arrival == now {
                if policy.sdf_queue() {
                    let at = waiting.partition_point(|&w| (demand(w), w) < (demand(cursor), cursor));
                    waiting.insert(at, cursor);
                } else {
                    waiting.push(cursor);
                }
                cursor += 1;
            }
            if unfinished == 0 && cursor >= measured.end {
                return false;
            }
            if saturation_at.is_some_and(|s| cursor >= s) {
                return true;
            }
            if waiting.is_empty() || free == 0 {
                continue;
            }
            // The rule: which jobs start, and on how many processors.
            let step = Step {
                jobs,
                queue: waiting,
                free,
                running,
                procs,
            };
            policy.divide(&step, caps, sizes);
            for (i, &size) in sizes.iter().enumerate() {
                let j = waiting[i];
                let t = jobs[j].time(size);
                record.start[j] = now;
                record.end[j] = now + t;
                record.area[j] = size as f64;
                record.busy[j] = 1.0;
                completions.push(Reverse((key(now + t), j)));
                free -= size;
                running += 1;
            }
            waiting.drain(..sizes.len());
        }
        false
    }

    /// A preemptive policy (DYN-EQUI), whose jobs share the processors, divided anew at every
    /// event; returns (saturated, largest drift).
    fn shared(
        &mut self,
        jobs: &[MoldableJob],
        procs: u32,
        policy: &dyn Partitioning,
        measured: &std::ops::Range<usize>,
        saturation_at: Option<usize>,
    ) -> (bool, f64) {
        let n = jobs.len();
        // Jobs in the system in arrival order, their remaining fraction and share; T(share)
        // of each job in the system, computed when its share changes.
        let Partitioner {
            record,
            queue: system,
            sizes: shares,
            caps,
            remaining,
            share,
            span,
            ..
        } = self;
        system.clear();
        for (column, full) in [(&mut *remaining, 1.0), (&mut *span, f64::INFINITY)] {
            column.clear();
            column.resize(n, full);
        }
        share.clear();
        share.resize(n, 0);
        let (mut cursor, mut unfinished, mut last, mut drift) = (0usize, measured.len(), 0.0f64, 0.0f64);
        loop {
            // The next departure under the current shares.
            let departure = system
                .iter()
                .filter(|&&j| share[j] > 0)
                .map(|&j| last + remaining[j] * span[j])
                .fold(f64::INFINITY, f64::min);
            let arrival = jobs.get(cursor).map_or(f64::INFINITY, |j| j.arrival);
            let now = departure.min(arrival);
            if !now.is_finite() {
                break;
            }
            // Progress at the old shares.
            let dt = now - last;
            for &j in system.iter() {
                if share[j] > 0 {
                    remaining[j] -= dt / span[j];
                    record.area[j] += dt * share[j] as f64;
                    record.busy[j] += dt;
                }
            }
            last = now;
            // Departures: the job(s) whose end is now (their remainder is rounding noise).
            system.retain(|&j| {
                // Done when the time it has left is rounding noise.
                let done = share[j] > 0 && remaining[j] * span[j] <= 1e-9 * now.max(1.0);
                if done {
                    drift = drift.max(remaining[j].abs());
                    record.end[j] = now;
                    unfinished -= usize::from(measured.contains(&j));
                }
                !done
            });
            while cursor < n && jobs[cursor].arrival == now {
                system.push(cursor);
                cursor += 1;
            }
            if unfinished == 0 && cursor >= measured.end {
                return (false, drift);
            }
            if saturation_at.is_some_and(|s| cursor >= s) {
                return (true, drift);
            }
            let step = Step {
                jobs,
                queue: system,
                free: procs,
                running: 0,
                procs,
            };
            policy.divide(&step, caps, shares);
            for (&j, &s) in system.iter().zip(shares.iter()) {
                if s > 0 && record.start[j].is_nan() {
                    record.start[j] = now;
                }
                if share[j] != s {
                    share[j] = s;
                    span[j] = if s > 0 { jobs[j].time(s) } else { f64::INFINITY };
                }
            }
        }
        (false, drift)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::occupancy::{Plant, assert_faults_named};
    use crate::partition::policy::equipartition;
    use crate::partition::workload::Shape;

    fn all(n: usize) -> Measure {
        Measure {
            warmup: 0,
            window: n,
            saturation: None,
        }
    }

    fn job(arrival: f64, work: f64, p_max: u32) -> MoldableJob {
        MoldableJob::new(arrival, work, p_max, Shape::Good)
    }

    /// The validator passes every policy's schedule of a generated workload, and names
    /// each fault planted in a non-preemptive one: a start before the arrival, a run time
    /// that is not T(p), partitions held beyond the machine.
    #[test]
    fn the_validator_passes_each_policy_and_catches_each_fault() {
        let jobs = crate::partition::generate(crate::partition::MoldableWorkload::Wk4, 32, 0.7, 400, 5);
        let measured = 0..jobs.len();
        for name in [
            "dyn-equi",
            "asp",
            "ap1",
            "aep",
            "sdf",
            "aep(2)",
            "asp(2,dif=free)",
        ] {
            let policy: Policy = name.parse().unwrap();
            let mut sim = Partitioner::new().with_validation(false);
            let (saturated, _) = sim.schedule(&jobs, 32, policy, &measured, None);
            assert!(!saturated, "{name}");
            validate(&jobs, 32, policy.behaviour().preemptive(), &sim.record);
        }
        let mut sim = Partitioner::new();
        sim.schedule(&jobs, 32, "aep".parse().unwrap(), &measured, None);
        let record = sim.record.clone();
        let j = (1..jobs.len())
            .find(|&j| record.start[j] > jobs[j].arrival + 1.0)
            .expect("a job that waited");
        let last = record.start[jobs.len() - 1];
        let faults: Vec<(&str, Plant<'_, Record>)> = vec![
            (
                "before it arrives",
                Box::new(|r| r.start[j] = jobs[j].arrival - 1.0),
            ),
            ("not its T(p)", Box::new(|r| r.end[0] += 1.0)),
            (
                "hold",
                Box::new(move |r| {
                    for k in 0..r.start.len() {
                        r.end[k] += last - r.start[k];
                        r.start[k] = last;
                    }
                }),
            ),
        ];
        assert_faults_named(&record, faults, |r| validate(&jobs, 32, false, r));
    }

    #[test]
    fn dyn_equi_shares_and_conserves_work() {
        // Two jobs of W = 64, p_max = 64 on 8 processors (beta = 1/64): alone the first runs
        // on 8, T(8) = 8 + 0.125 = 8.125; the second arrives at 2 and both get 4 (T(4) =
        // 16.0625). Job 1 has 1 - 2/8.125 left, done after (1 - 2/8.125) x 16.0625 more.
        let jobs = [job(0.0, 64.0, 64), job(2.0, 64.0, 64)];
        let r = simulate(&jobs, 8, Policy::DYN_EQUI, &all(2));
        let end1 = 2.0 + (1.0 - 2.0 / 8.125) * 16.0625;
        // Job 2 then has done (end1 - 2) / 16.0625 and finishes the rest on 8.
        let end2 = end1 + (1.0 - (end1 - 2.0) / 16.0625) * 8.125;
        assert!((r.response - (end1 + end2 - 2.0) / 2.0).abs() < 1e-9, "{r:?}");
        assert!(r.drift < 1e-9);
        assert_eq!(r.wait, 0.0);
    }

    #[test]
    fn dyn_equi_keeps_work_exact_over_a_long_run() {
        // 3,000 jobs of the mixed workload at 70% load: every job's executed fraction sums to
        // 1 within rounding, and shares never exceed p_max (partition <= mean p_max bound).
        let jobs = crate::partition::generate(crate::partition::MoldableWorkload::Wk4, 32, 0.7, 3_000, 11);
        let r = simulate(&jobs, 32, Policy::DYN_EQUI, &all(3_000));
        assert!(!r.saturated && r.drift < 1e-9, "{r:?}");
        let mut shares = Vec::new();
        let caps: Vec<u32> = jobs.iter().take(40).map(|j| j.p_max).collect();
        equipartition(32, &caps, &mut shares);
        assert!(shares.iter().zip(&caps).all(|(s, c)| s <= c));
        assert_eq!(shares.iter().sum::<u32>(), 32);
    }

    #[test]
    fn each_rule_allocates_by_hand() {
        // 8 processors. Job 0 (W 100, p_max 4) arrives alone at 0; jobs 1 (W 50, p_max 16),
        // 2 (W 10, p_max 16) and 3 (W 30, p_max 4) arrive at 1 with 4 processors free.
        let jobs = [
            job(0.0, 100.0, 4),
            job(1.0, 50.0, 16),
            job(1.0, 10.0, 16),
            job(1.0, 30.0, 4),
        ];
        let partition = |policy: &str| {
            let run = simulate(&jobs, 8, policy.parse().unwrap(), &all(4));
            assert!(!run.saturated);
            run.partition
        };
        // ASP: job 0 takes 4; the 4 free are divided among the three waiting: 2, 1, 1.
        assert_eq!(partition("asp"), (4.0 + 2.0 + 1.0 + 1.0) / 4.0);
        // AP1: target 8/3 = 2: jobs 1 and 2 get 2 each; job 3 starts when job 2 ends (T(2) =
        // 5.08), alone in the queue (target 8) but with only 2 free: the last job takes
        // what is left.
        assert_eq!(partition("ap1"), (4.0 + 2.0 + 2.0 + 2.0) / 4.0);
        // AEP: target 8 / (3 waiting + 1 running) = 2 at time 1, then 8 / (1 + 2) = 2.
        assert_eq!(partition("aep"), (4.0 + 2.0 + 2.0 + 2.0) / 4.0);
        // SDF-Max 1: everyone gets one processor.
        assert_eq!(partition("sdf-max(max=1)"), 1.0);
        // SDF: queue by T(1) = job 2, job 3, job 1; job 2 takes all 4 free.
        let sdf = simulate(&jobs, 8, "sdf".parse().unwrap(), &all(4));
        assert!(sdf.wait > 0.0);
    }

    #[test]
    fn dif_free_hands_out_what_the_rule_leaves_idle() {
        // 8 processors. Job 0 (p_max 2) takes 2 at time 0; job 1 (p_max 8) arrives at 1:
        // AEP's target is 8 / (1 waiting + 1 running) = 4, leaving 2 processors idle;
        // DIF over every free processor gives job 1 all 6.
        let jobs = [job(0.0, 100.0, 2), job(1.0, 50.0, 8)];
        let partition = |policy: &str| simulate(&jobs, 8, policy.parse().unwrap(), &all(2)).partition;
        assert_eq!(partition("aep(2)"), (2.0 + 4.0) / 2.0);
        assert_eq!(partition("aep(2,dif=free)"), (2.0 + 6.0) / 2.0);
        // ASP already hands out every free processor: the two readings agree.
        assert_eq!(partition("asp(2)"), partition("asp(2,dif=free)"));
    }
}
