//! Metrics of a simulated schedule: per-job records and aggregate summaries.
//!
//! Definitions (names as in every output):
//! - `wait = start - submit`, `response = end - submit`;
//! - `bsld = max(1, response / max(runtime, 10))`: bounded slowdown, threshold 10 s;
//! - `expansion = response / max(runtime, 1)`;
//! - `utilization` = busy processor-seconds / (procs x (last end - first submit));
//! - `makespan = last end - first submit`.
//! - `gpu_utilization` (on a machine with GPUs) = busy GPU-seconds / (GPUs x (last end -
//!   first submit)), the same span as `utilization`; `memory_utilization` (on a machine
//!   whose every node group describes its memory) the same of the memory jobs request.
//! - `fragmentation` (on a machine) = core-seconds idle on nodes that running jobs partly
//!   held / (cores x (last end - first submit)) over the whole run, as the energy is: the
//!   capacity stranded beside jobs, so that `utilization`, `fragmentation` and the share
//!   idle on empty nodes add up to 1 for a run measured whole. Only a partition whose jobs
//!   are placed on nodes (memory, GPUs, node-exclusive) strands cores; a partition of
//!   processors alone is one pool whose free cores any job can take (0, and the summary
//!   does not write it where no partition places jobs on nodes).
//! - Per user (fairness): each user's mean wait and mean bounded slowdown over their
//!   measured jobs; `mean_user_wait` and `mean_user_bsld` average those over users (every
//!   user counts once, however many jobs), and `jain_wait`, `jain_bsld` are Jain's fairness
//!   index over them, (sum x)^2 / (n sum x^2), from 1/n (one user bears it all) to 1 (all
//!   alike; also when every wait is 0). A job of an unknown user (SWF field 12 = -1) is a
//!   user of its own. Where no measured job has a user number (the models, Batsim
//!   workloads), a run's text says so and its JSON has no `users`; a sweep's user metrics
//!   are then the per-job values this rule gives, so that grids over traces with and
//!   without users keep one column.
//! - By job size, classes relative to the machine: `serial` (1 processor), `narrow` (up to
//!   10% of the machine), `medium` (up to half) and `wide` (more): `jobs_<class>`,
//!   `mean_wait_<class>`, `mean_bsld_<class>` (NaN for a class without jobs).
//!
//! - `absolute_inaccuracy`, `relative_accuracy`: Talby et al.'s equations 1 and 2, each
//!   job's predictions weighted by how long they held from submit to end, averaged over jobs.
//! - With utility functions (Lee & Snavely): `aggregate_utility` = sum over jobs of
//!   u(response); `earned` = 100 u(response) / u(0), the percent of its start value a job
//!   earned (100 for a start value of 0). Its percentiles rank jobs *best first*, as the
//!   paper's Table 1 does: `earned_p25` is the share that the best 25% of jobs reached or
//!   beat, `earned_p100` the worst job's. They are exact (nearest rank), not from a histogram.
//!
//! Every simulated job counts: skipped jobs (see `SkipCounts`) never ran and are reported
//! apart. Percentiles 25/50/75/98 come from an HDR histogram with 3 significant digits
//! (relative error at most 0.1%); the 100th percentile is the exact maximum.

pub mod compare;
pub mod jobs_csv;
pub mod registry;
mod text;
pub mod timeline;

pub use jobs_csv::{JOB_COLUMNS, write_jobs_csv};

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::Time;
use crate::energy::EnergySummary;
use crate::sim::Outcome;
use crate::workload::{Jobs, SkipCounts};
pub use registry::MetricError;
use registry::{Registry, row};

/// Bounded-slowdown threshold in seconds.
pub const BSLD_THRESHOLD: Time = 10;

/// Significant digits of the HDR histograms behind the percentiles.
pub const HDR_SIGNIFICANT_DIGITS: u8 = 3;

/// Bounded slowdown of one job.
#[inline]
pub fn bsld(response: Time, runtime: Time) -> f64 {
    (response as f64 / runtime.max(BSLD_THRESHOLD) as f64).max(1.0)
}

/// Percentiles of one metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Percentiles {
    pub p25: f64,
    pub p50: f64,
    pub p75: f64,
    pub p98: f64,
    pub p100: f64,
}

/// Aggregates of one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub jobs: u64,
    pub jobs_skipped: u64,
    pub skipped: SkipCounts,
    pub procs: u32,
    pub mean_wait: f64,
    pub mean_response: f64,
    pub mean_bsld: f64,
    pub mean_expansion: f64,
    pub wait: Percentiles,
    pub response: Percentiles,
    pub bsld: Percentiles,
    pub expansion: Percentiles,
    pub utilization: f64,
    pub makespan: Time,
    pub percentile_method: &'static str,
    pub bsld_threshold: Time,
    /// Mean over jobs of the time-weighted |runtime - prediction| (Talby et al., eq. 1-2).
    pub absolute_inaccuracy: f64,
    /// Mean over jobs of the time-weighted min(runtime, prediction) / max(...), in [0, 1].
    pub relative_accuracy: f64,
    /// Times a job outlived its prediction.
    pub deadline_misses: u64,
    /// Jobs started ahead of the queue head (EASY, SJBF; 0 for other schedulers).
    pub backfilled: u64,
    /// Present when the jobs have utility functions.
    pub utility: Option<UtilitySummary>,
    /// Fairness over users (module docs). Not written where no measured job has a user
    /// number (a model's jobs, a Batsim workload): there are no users to be fair between.
    #[serde(skip_serializing_if = "UserSummary::unknown")]
    pub users: UserSummary,
    /// Serial, narrow, medium and wide jobs (module docs), in that order.
    pub size_classes: [ClassSummary; 4],
    /// On a machine that describes its power: what the whole run cost (`crate::energy`).
    /// Not written otherwise, so that outputs without a power model stay as they were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy: Option<EnergySummary>,
    /// On a machine with GPUs: busy GPU-seconds over its GPUs and the run's span. Not
    /// written otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_utilization: Option<f64>,
    /// On a machine whose nodes all describe their memory: the memory jobs request, held
    /// over the run's span, over the machine's. Not written otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_utilization: Option<f64>,
    /// On a machine where some partition places jobs on nodes: the share of its cores idle
    /// on nodes that jobs partly held, over the whole run (module docs). Not written
    /// otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragmentation: Option<f64>,
}

/// Waits and slowdowns per user, summarised over users (module docs).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UserSummary {
    pub users: u64,
    /// Whether any measured job has a known user; without, each job counts as its own
    /// user and the means are the jobs' (the text says so instead of printing them).
    #[serde(skip)]
    pub known: bool,
    pub mean_user_wait: f64,
    pub mean_user_bsld: f64,
    pub jain_wait: f64,
    pub jain_bsld: f64,
}

/// The measured jobs of one size class.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClassSummary {
    pub class: &'static str,
    pub jobs: u64,
    pub mean_wait: f64,
    pub mean_bsld: f64,
}

/// Names of the size classes, narrowest first.
pub const SIZE_CLASSES: [&str; 4] = ["serial", "narrow", "medium", "wide"];

/// The size class of a job of `size` processors on a machine of `procs`.
pub fn size_class(size: u32, procs: u32) -> usize {
    let size = size as u64;
    let procs = procs as u64;
    if size <= 1 {
        0
    } else if size * 10 <= procs {
        1
    } else if size * 2 <= procs {
        2
    } else {
        3
    }
}

/// Jain's fairness index of `values`: (sum x)^2 / (n sum x^2); 1 when all are 0, NaN for
/// none.
pub fn jain(values: impl Iterator<Item = f64> + Clone) -> f64 {
    Moments::of(values).jain()
}

/// Count, sum and sum of squares of some values: what a mean and Jain's index need.
#[derive(Clone, Copy, Default)]
struct Moments {
    n: usize,
    sum: f64,
    squares: f64,
}

impl Moments {
    fn of(values: impl Iterator<Item = f64>) -> Self {
        let mut m = Moments::default();
        values.for_each(|x| m.add(x));
        m
    }
    fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.squares += x * x;
    }
    fn and(self, other: Moments) -> Moments {
        Moments {
            n: self.n + other.n,
            sum: self.sum + other.sum,
            squares: self.squares + other.squares,
        }
    }
    fn mean(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.sum / self.n as f64
        }
    }
    fn jain(&self) -> f64 {
        match self.n {
            0 => f64::NAN,
            _ if self.squares == 0.0 => 1.0,
            _ => self.sum * self.sum / (self.n as f64 * self.squares),
        }
    }
}

impl UserSummary {
    /// Whether no measured job has a user number, so that the summary says nothing of users.
    pub fn unknown(&self) -> bool {
        !self.known
    }

    /// Per-user means over the measured jobs, given each job's wait and bounded slowdown.
    /// A job of unknown user (negative) counts as a user of its own; those are summed as
    /// they come rather than kept, so memory grows with the users, not the jobs.
    fn of(
        users: &[i32],
        measured: std::ops::Range<usize>,
        wait_bsld: impl Iterator<Item = (f64, f64)>,
    ) -> Self {
        // Users are numbered densely in order of first measured job; SWF user numbers are
        // small, so a table indexed by number serves most logs, a map the others.
        let mut dense: std::collections::HashMap<i32, usize> = std::collections::HashMap::new();
        let mut table: Vec<u32> = Vec::new();
        let mut sums: Vec<(f64, f64, u32)> = Vec::new();
        let (mut alone_wait, mut alone_bsld) = (Moments::default(), Moments::default());
        for (j, (wait, b)) in measured.zip(wait_bsld) {
            let u = users[j];
            if u < 0 {
                alone_wait.add(wait);
                alone_bsld.add(b);
                continue;
            }
            let slot = if (u as usize) < 1 << 20 {
                let u = u as usize;
                if table.len() <= u {
                    table.resize(u + 1, u32::MAX);
                }
                if table[u] == u32::MAX {
                    table[u] = sums.len() as u32;
                    sums.push((0.0, 0.0, 0));
                }
                table[u] as usize
            } else {
                *dense.entry(u).or_insert_with(|| {
                    sums.push((0.0, 0.0, 0));
                    sums.len() - 1
                })
            };
            let e = &mut sums[slot];
            e.0 += wait;
            e.1 += b;
            e.2 += 1;
        }
        let waits = Moments::of(sums.iter().map(|e| e.0 / e.2 as f64)).and(alone_wait);
        let bslds = Moments::of(sums.iter().map(|e| e.1 / e.2 as f64)).and(alone_bsld);
        UserSummary {
            users: waits.n as u64,
            known: !sums.is_empty(),
            mean_user_wait: waits.mean(),
            mean_user_bsld: bslds.mean(),
            jain_wait: waits.jain(),
            jain_bsld: bslds.jain(),
        }
    }
}

/// What the jobs' utility functions say of a schedule (module docs).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UtilitySummary {
    pub aggregate_utility: f64,
    /// Sum of the start values: the aggregate utility of finishing every job at once.
    pub total_start_value: f64,
    /// Percent of its start value each job earned, ranked best first.
    pub earned: Percentiles,
}

impl UtilitySummary {
    fn of(
        functions: &[crate::workload::UtilityFunction],
        submit: &[Time],
        end: &[Time],
        measured: std::ops::Range<usize>,
    ) -> Self {
        let mut earned = Vec::with_capacity(measured.len());
        let (mut aggregate, mut total) = (0.0, 0.0);
        for j in measured {
            let f = &functions[j];
            let value = f.value((end[j] - submit[j]) as f64);
            aggregate += value;
            total += f.start_value();
            earned.push(if f.start_value() > 0.0 {
                100.0 * value / f.start_value()
            } else {
                100.0
            });
        }
        earned.sort_by(|a, b| b.total_cmp(a));
        let rank = |p: f64| match earned.len() {
            0 => 0.0,
            n => earned[((p * n as f64).ceil() as usize).clamp(1, n) - 1],
        };
        UtilitySummary {
            aggregate_utility: aggregate,
            total_start_value: total,
            earned: Percentiles {
                p25: rank(0.25),
                p50: rank(0.50),
                p75: rank(0.75),
                p98: rank(0.98),
                p100: rank(1.0),
            },
        }
    }
}

/// Highest value the histograms track exactly: 2^45 (a million years in seconds, or a
/// bounded slowdown of 3.5e10 in thousandths); larger values are recorded as this.
const HDR_HIGHEST: u64 = 1 << 45;

/// Wait and response in seconds; bsld recorded in thousandths.
const BSLD_SCALE: f64 = 1000.0;

/// A ratio in thousandths, rounded half away from zero as `f64::round` does (which is a
/// call into libm on the baseline x86-64 target, twice per job): the fraction `x - t` of
/// a non-negative double is exact, so the comparison decides as `round` would. Negative
/// and NaN ratios, which do not occur, come out 0 as `round(x) as u64` gives.
fn thousandths(ratio: f64) -> u64 {
    let x = ratio * BSLD_SCALE;
    let t = x as u64;
    if x - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

struct Tracker {
    /// 32-bit counts: a bucket would need 4 billion jobs to saturate, and the four
    /// histograms of a summary take 0.6 MB of fresh pages instead of 1.2 MB (about 0.4 ms
    /// of a whole run's 4 ms summary on CTC-SP2).
    hist: Histogram<u32>,
    max: u64,
}

impl Tracker {
    fn new() -> Self {
        Tracker {
            hist: Histogram::new_with_bounds(1, HDR_HIGHEST, HDR_SIGNIFICANT_DIGITS)
                .expect("valid HDR bounds"),
            max: 0,
        }
    }
    fn record(&mut self, v: u64) {
        self.hist.saturating_record(v);
        self.max = self.max.max(v);
    }
    fn percentiles(&self, scale: f64) -> Percentiles {
        if self.hist.is_empty() {
            // Percentiles of no value are undefined, as the means of an empty window are.
            return Percentiles {
                p25: f64::NAN,
                p50: f64::NAN,
                p75: f64::NAN,
                p98: f64::NAN,
                p100: f64::NAN,
            };
        }
        let q = |p: f64| self.hist.value_at_quantile(p) as f64 / scale;
        Percentiles {
            p25: q(0.25),
            p50: q(0.50),
            p75: q(0.75),
            p98: q(0.98),
            p100: self.max as f64 / scale,
        }
    }
}

impl Summary {
    /// Summarises a whole schedule given by per-job `start` and `end` times.
    pub fn from_schedule(
        jobs: &Jobs,
        procs: u32,
        start: &[Time],
        end: &[Time],
        skipped: &SkipCounts,
    ) -> Self {
        Self::of_window(jobs, procs, start, end, 0..jobs.len(), skipped)
    }

    /// Summarises the `measured` jobs (indices in arrival order), all of which must have
    /// ended. Utilization and makespan cover the span from the first measured submit to the
    /// last measured end, counting every job's processors busy within it (jobs outside the
    /// window share the machine too); jobs unfinished at the stop count as busy to its end.
    pub fn of_window(
        jobs: &Jobs,
        procs: u32,
        start: &[Time],
        end: &[Time],
        measured: std::ops::Range<usize>,
        skipped: &SkipCounts,
    ) -> Self {
        Self::of_window_beside(jobs, procs, start, end, measured, skipped, || ()).0
    }

    /// [`Summary::of_window`], computing `beside` too, after the lighter of its two halves
    /// (see below), so that a caller's own pass over the jobs shares the two threads.
    fn of_window_beside<R: Send>(
        jobs: &Jobs,
        procs: u32,
        start: &[Time],
        end: &[Time],
        measured: std::ops::Range<usize>,
        skipped: &SkipCounts,
        beside: impl FnOnce() -> R + Send,
    ) -> (Self, R) {
        let n = measured.len();
        let first_submit = if n == 0 { 0 } else { jobs.submit[measured.start] };
        let last_end = measured.clone().map(|j| end[j]).max().unwrap_or(Time::MIN);
        let makespan = if n == 0 { 0 } else { last_end - first_submit };
        // Two halves of the metrics on two threads where one is free (a whole run's summary
        // is on its critical path; in a sweep both halves run on the worker's own thread):
        // slowdowns with the size classes and the processors busy, the heavier, here; times,
        // the users' means and `beside` on the thread that takes them. Each half adds its
        // sums in job order, as one loop did.
        let (slowdowns, (times, beside)) = rayon::join(
            || {
                let (mut bsld_h, mut expansion_h) = (Tracker::new(), Tracker::new());
                let (mut sum_bsld, mut sum_expansion) = (0f64, 0f64);
                let mut classes: [(u64, f64, f64); 4] = [(0, 0.0, 0.0); 4];
                for j in measured.clone() {
                    let response = end[j] - jobs.submit[j];
                    let runtime = jobs.runtime[j];
                    let b = bsld(response, runtime);
                    let class = &mut classes[size_class(jobs.procs[j], procs)];
                    class.0 += 1;
                    class.1 += (start[j] - jobs.submit[j]) as f64;
                    class.2 += b;
                    sum_bsld += b;
                    let expansion = response as f64 / runtime.max(1) as f64;
                    sum_expansion += expansion;
                    expansion_h.record(thousandths(expansion));
                    bsld_h.record(thousandths(b));
                }
                let busy = if n > 0 {
                    busy_seconds(jobs, start, end, first_submit..last_end, |j| jobs.procs[j] as f64)
                } else {
                    0.0
                };
                (bsld_h, expansion_h, sum_bsld, sum_expansion, classes, busy)
            },
            || {
                let (mut wait_h, mut response_h) = (Tracker::new(), Tracker::new());
                let (mut sum_wait, mut sum_response) = (0f64, 0f64);
                for j in measured.clone() {
                    let wait = start[j] - jobs.submit[j];
                    let response = end[j] - jobs.submit[j];
                    sum_wait += wait as f64;
                    sum_response += response as f64;
                    wait_h.record(wait as u64);
                    response_h.record(response as u64);
                }
                let users = UserSummary::of(
                    &jobs.user,
                    measured.clone(),
                    measured.clone().map(|j| {
                        let response = end[j] - jobs.submit[j];
                        (
                            (start[j] - jobs.submit[j]) as f64,
                            bsld(response, jobs.runtime[j]),
                        )
                    }),
                );
                ((wait_h, response_h, sum_wait, sum_response, users), beside())
            },
        );
        let (wait_h, response_h, sum_wait, sum_response, users) = times;
        let (bsld_h, expansion_h, sum_bsld, sum_expansion, classes, busy) = slowdowns;
        // Undefined for an empty window (NaN, `null` in JSON), as for an empty size class.
        let mean = |s: f64| if n == 0 { f64::NAN } else { s / n as f64 };
        let summary = Summary {
            jobs: n as u64,
            jobs_skipped: skipped.total(),
            skipped: skipped.clone(),
            procs,
            mean_wait: mean(sum_wait),
            mean_response: mean(sum_response),
            mean_bsld: mean(sum_bsld),
            mean_expansion: mean(sum_expansion),
            wait: wait_h.percentiles(1.0),
            response: response_h.percentiles(1.0),
            bsld: bsld_h.percentiles(BSLD_SCALE),
            expansion: expansion_h.percentiles(BSLD_SCALE),
            utilization: if makespan > 0 {
                busy / (procs as f64 * makespan as f64)
            } else {
                0.0
            },
            makespan,
            percentile_method: "HDR histogram, 3 significant digits; p100 exact",
            bsld_threshold: BSLD_THRESHOLD,
            absolute_inaccuracy: 0.0,
            relative_accuracy: 0.0,
            deadline_misses: 0,
            backfilled: 0,
            utility: jobs
                .utility
                .as_ref()
                .map(|u| UtilitySummary::of(u, &jobs.submit, end, measured.clone())),
            users,
            energy: None,
            gpu_utilization: None,
            memory_utilization: None,
            fragmentation: None,
            size_classes: std::array::from_fn(|c| {
                let (n, wait, b) = classes[c];
                let mean = |sum: f64| if n == 0 { f64::NAN } else { sum / n as f64 };
                ClassSummary {
                    class: SIZE_CLASSES[c],
                    jobs: n,
                    mean_wait: mean(wait),
                    mean_bsld: mean(b),
                }
            }),
        };
        (summary, beside)
    }

    /// Summarises a run: [`Summary::of_window`] plus the accuracy of the predictions the
    /// scheduler saw and the count of backfilled jobs.
    pub fn of_outcome(
        jobs: &Jobs,
        procs: u32,
        outcome: &Outcome,
        measured: std::ops::Range<usize>,
        skipped: &SkipCounts,
    ) -> Self {
        let (mut s, (inaccuracy, accuracy)) = Self::of_window_beside(
            jobs,
            procs,
            outcome.start,
            outcome.end,
            measured.clone(),
            skipped,
            || {
                let (mut inaccuracy, mut accuracy) = (0.0, 0.0);
                for j in measured.clone() {
                    let (ai, ra) = outcome.accuracy(jobs, j);
                    inaccuracy += ai;
                    accuracy += ra;
                }
                (inaccuracy, accuracy)
            },
        );
        let n = measured.len().max(1) as f64;
        s.absolute_inaccuracy = inaccuracy / n;
        s.relative_accuracy = accuracy / n;
        s.deadline_misses = outcome.deadline_misses(measured);
        s.backfilled = outcome.backfilled;
        s
    }
}

/// The metrics of a rigid run (trace or model replay), by output name.
pub static RIGID_METRICS: Registry<Summary> = Registry {
    kind: "a rigid run",
    metrics: &[
        row!("jobs", "Jobs measured", Jobs, Measured, |s| s.jobs as f64),
        row!("mean_wait", "Mean wait", Seconds, Infinite, |s| s.mean_wait),
        row!("mean_response", "Mean response time", Seconds, Infinite, |s| s
            .mean_response),
        row!("mean_bsld", "Mean bounded slowdown", Ratio, Infinite, |s| s
            .mean_bsld),
        row!("mean_expansion", "Mean expansion factor", Ratio, Infinite, |s| s
            .mean_expansion),
        row!("utilization", "Utilisation", Fraction, Undefined, |s| s
            .utilization),
        row!("makespan", "Makespan", Seconds, Infinite, |s| s.makespan as f64),
        row!("p25_wait", "Wait, 25th percentile", Seconds, Infinite, |s| s
            .wait
            .p25),
        row!("p50_wait", "Median wait", Seconds, Infinite, |s| s.wait.p50),
        row!("p75_wait", "Wait, 75th percentile", Seconds, Infinite, |s| s
            .wait
            .p75),
        row!("p98_wait", "Wait, 98th percentile", Seconds, Infinite, |s| s
            .wait
            .p98),
        row!("max_wait", "Longest wait", Seconds, Infinite, |s| s.wait.p100),
        row!("p50_response", "Median response time", Seconds, Infinite, |s| s
            .response
            .p50),
        row!(
            "p98_response",
            "Response time, 98th percentile",
            Seconds,
            Infinite,
            |s| s.response.p98
        ),
        row!("p50_bsld", "Median bounded slowdown", Ratio, Infinite, |s| s
            .bsld
            .p50),
        row!(
            "p98_bsld",
            "Bounded slowdown, 98th percentile",
            Ratio,
            Infinite,
            |s| s.bsld.p98
        ),
        row!(
            "p25_expansion",
            "Expansion, 25th percentile",
            Ratio,
            Infinite,
            |s| s.expansion.p25
        ),
        row!("p50_expansion", "Median expansion factor", Ratio, Infinite, |s| s
            .expansion
            .p50),
        row!(
            "p75_expansion",
            "Expansion, 75th percentile",
            Ratio,
            Infinite,
            |s| s.expansion.p75
        ),
        row!(
            "p98_expansion",
            "Expansion, 98th percentile",
            Ratio,
            Infinite,
            |s| s.expansion.p98
        ),
        row!(
            "max_expansion",
            "Largest expansion factor",
            Ratio,
            Infinite,
            |s| s.expansion.p100
        ),
        row!(
            "absolute_inaccuracy",
            "Absolute inaccuracy",
            Seconds,
            Undefined,
            |s| s.absolute_inaccuracy
        ),
        row!(
            "relative_accuracy",
            "Relative accuracy",
            Fraction,
            Undefined,
            |s| s.relative_accuracy
        ),
        row!(
            "deadline_misses",
            "Missed predictions",
            Number,
            Undefined,
            |s| s.deadline_misses as f64,
            NonNegative
        ),
        row!("backfilled", "Jobs backfilled", Jobs, Undefined, |s| s.backfilled
            as f64),
        row!(
            "users",
            "Users",
            Number,
            Undefined,
            |s| s.users.users as f64,
            NonNegative
        ),
        row!(
            "mean_user_wait",
            "Mean over users of their mean wait",
            Seconds,
            Infinite,
            |s| s.users.mean_user_wait
        ),
        row!(
            "mean_user_bsld",
            "Mean over users of their mean bounded slowdown",
            Ratio,
            Infinite,
            |s| s.users.mean_user_bsld
        ),
        row!(
            "jain_wait",
            "Jain's fairness index of users' mean waits",
            Fraction,
            Undefined,
            |s| s.users.jain_wait
        ),
        row!(
            "jain_bsld",
            "Jain's fairness index of users' mean bounded slowdowns",
            Fraction,
            Undefined,
            |s| s.users.jain_bsld
        ),
        row!(
            "jobs_serial",
            "Serial jobs measured",
            Jobs,
            Undefined,
            |s| s.size_classes[0].jobs as f64
        ),
        row!(
            "mean_wait_serial",
            "Mean wait of serial jobs",
            Seconds,
            Infinite,
            |s| s.size_classes[0].mean_wait
        ),
        row!(
            "mean_bsld_serial",
            "Mean bounded slowdown of serial jobs",
            Ratio,
            Infinite,
            |s| s.size_classes[0].mean_bsld
        ),
        row!(
            "jobs_narrow",
            "Narrow jobs measured (up to 10% of the machine)",
            Jobs,
            Undefined,
            |s| s.size_classes[1].jobs as f64
        ),
        row!(
            "mean_wait_narrow",
            "Mean wait of narrow jobs",
            Seconds,
            Infinite,
            |s| s.size_classes[1].mean_wait
        ),
        row!(
            "mean_bsld_narrow",
            "Mean bounded slowdown of narrow jobs",
            Ratio,
            Infinite,
            |s| s.size_classes[1].mean_bsld
        ),
        row!(
            "jobs_medium",
            "Medium jobs measured (up to half the machine)",
            Jobs,
            Undefined,
            |s| s.size_classes[2].jobs as f64
        ),
        row!(
            "mean_wait_medium",
            "Mean wait of medium jobs",
            Seconds,
            Infinite,
            |s| s.size_classes[2].mean_wait
        ),
        row!(
            "mean_bsld_medium",
            "Mean bounded slowdown of medium jobs",
            Ratio,
            Infinite,
            |s| s.size_classes[2].mean_bsld
        ),
        row!(
            "jobs_wide",
            "Wide jobs measured (over half the machine)",
            Jobs,
            Undefined,
            |s| s.size_classes[3].jobs as f64
        ),
        row!(
            "mean_wait_wide",
            "Mean wait of wide jobs",
            Seconds,
            Infinite,
            |s| s.size_classes[3].mean_wait
        ),
        row!(
            "mean_bsld_wide",
            "Mean bounded slowdown of wide jobs",
            Ratio,
            Infinite,
            |s| s.size_classes[3].mean_bsld
        ),
    ],
};

/// The metrics of a rigid run whose jobs carry utility functions (Lee & Snavely); a run
/// without them reports NaN.
pub static UTILITY_METRICS: Registry<UtilitySummary> = Registry {
    kind: "a run with utility functions",
    metrics: &[
        row!(
            "aggregate_utility",
            "Aggregate utility",
            Utility,
            Undefined,
            |u| u.aggregate_utility
        ),
        row!(
            "earned_p25",
            "Start value earned by the best 25%",
            Percent,
            Undefined,
            |u| u.earned.p25
        ),
        row!(
            "earned_p50",
            "Start value earned by the best 50%",
            Percent,
            Undefined,
            |u| u.earned.p50
        ),
        row!(
            "earned_p75",
            "Start value earned by the best 75%",
            Percent,
            Undefined,
            |u| u.earned.p75
        ),
        row!(
            "earned_p98",
            "Start value earned by the best 98%",
            Percent,
            Undefined,
            |u| u.earned.p98
        ),
        row!(
            "earned_p100",
            "Start value earned by the worst job",
            Percent,
            Undefined,
            |u| u.earned.p100
        ),
    ],
};

/// The metrics of a rigid run on a machine that describes its power (`crate::energy`):
/// over the whole run, warm-up included; a run without a power model, or one that
/// saturated, reports NaN.
pub static ENERGY_METRICS: Registry<EnergySummary> = Registry {
    kind: "a run on a machine with a power model",
    metrics: &[
        row!("energy_kwh", "Energy", KilowattHours, Undefined, |e| e.energy_kwh),
        row!(
            "idle_energy_kwh",
            "Energy of idle cores",
            KilowattHours,
            Undefined,
            |e| e.idle_kwh
        ),
        row!("mean_power_kw", "Mean power", Kilowatts, Undefined, |e| e
            .mean_power_kw),
        row!("peak_power_kw", "Peak power", Kilowatts, Undefined, |e| e
            .peak_power_kw),
        row!("carbon_kg", "Carbon", KilogramsCo2, Undefined, |e| e
            .carbon_kg
            .unwrap_or(f64::NAN)),
        row!(
            "wh_per_core_hour",
            "Energy per core-hour of work",
            WattHours,
            Undefined,
            |e| e.wh_per_core_hour
        ),
        row!(
            "over_cap_s",
            "Time over the power cap",
            Seconds,
            Undefined,
            |e| e.over_cap_s.map_or(f64::NAN, |s| s as f64),
            NonNegative
        ),
        row!(
            "node_switch_offs",
            "Nodes switched off",
            Number,
            Undefined,
            |e| e.switching.as_ref().map_or(0.0, |w| w.switch_offs as f64),
            NonNegative
        ),
        row!(
            "jobs_waiting_boot",
            "Jobs that waited for a boot",
            Jobs,
            Undefined,
            |e| e.switching.as_ref().map_or(0.0, |w| w.jobs_waiting_boot as f64)
        ),
    ],
};

/// The metrics of a rigid run of the resources a machine may describe besides cores; NaN
/// where it does not.
pub static RESOURCE_METRICS: Registry<Summary> = Registry {
    kind: "a run on a machine that describes the resource",
    metrics: &[
        row!("gpu_utilization", "GPU utilisation", Fraction, Undefined, |s| s
            .gpu_utilization
            .unwrap_or(f64::NAN)),
        row!(
            "memory_utilization",
            "Memory utilisation",
            Fraction,
            Undefined,
            |s| s.memory_utilization.unwrap_or(f64::NAN)
        ),
        row!(
            "fragmentation",
            "Cores idle on partly used nodes",
            Fraction,
            Undefined,
            // 0 on a machine of pools, whose free cores any job can take.
            |s| s.fragmentation.unwrap_or(0.0)
        ),
    ],
};

impl Summary {
    /// The value of a metric of [`RIGID_METRICS`], [`UTILITY_METRICS`],
    /// [`ENERGY_METRICS`] or [`RESOURCE_METRICS`] by its name.
    pub fn metric(&self, name: &str) -> Option<f64> {
        if let Ok(m) = RIGID_METRICS.get(name).or_else(|_| RESOURCE_METRICS.get(name)) {
            return Some((m.value)(self));
        }
        if let Ok(m) = ENERGY_METRICS.get(name) {
            return Some(self.energy.as_ref().map_or(f64::NAN, m.value));
        }
        let m = UTILITY_METRICS.get(name).ok()?;
        Some(self.utility.as_ref().map_or(f64::NAN, m.value))
    }
}

/// The warning of a run that saturated: its last job ended more than a tenth of the
/// arrivals' span after the last arrival (and more than twice the longest runtime after
/// it), so the queue grew faster than it drained and the waits depend on how long the run
/// is. Sweeps stop such runs (`[measure] saturation`); a single run says so instead.
pub fn saturation_warning(jobs: &Jobs, end: &[Time]) -> Option<String> {
    let first = *jobs.submit.iter().min()?;
    let last = *jobs.submit.iter().max()?;
    let finish = *end.iter().max()?;
    let longest = *jobs.runtime.iter().max()?;
    let (span, drain) = (last - first, finish - last);
    (span > 0 && drain > 2 * longest && drain * 10 > span).then(|| {
        format!(
            "the last job ended {drain} s after the last arrival, {:.0}% of the arrivals' span: the \
             queue grew faster than it drained (a saturated run), so its waits and slowdowns depend \
             on its length; lower the load, or measure a window in a sweep ([measure] saturation)",
            100.0 * drain as f64 / span as f64
        )
    })
}

/// Processor-seconds the jobs held within `span` (a job still running counts to its end),
/// summed in job order.
fn busy_seconds(
    jobs: &Jobs,
    start: &[Time],
    end: &[Time],
    span: std::ops::Range<Time>,
    units: impl Fn(usize) -> f64,
) -> f64 {
    let mut busy = 0f64;
    for j in 0..jobs.len() {
        if start[j] == crate::sim::state::UNSET {
            continue;
        }
        let finish = if end[j] == crate::sim::state::UNSET {
            span.end
        } else {
            end[j]
        };
        let overlap = finish.min(span.end) - start[j].max(span.start);
        if overlap > 0 {
            busy += overlap as f64 * units(j);
        }
    }
    busy
}

/// What the measured jobs hold of a resource (`units` of job `j`), over `capacity` and the
/// measured jobs' span (first submit to last end), as `utilization` is for processors; NaN
/// for an empty window or no capacity.
pub fn resource_utilization(
    jobs: &Jobs,
    start: &[Time],
    end: &[Time],
    measured: std::ops::Range<usize>,
    capacity: f64,
    units: impl Fn(usize) -> f64,
) -> f64 {
    if measured.is_empty() || capacity <= 0.0 {
        return f64::NAN;
    }
    let first_submit = jobs.submit[measured.start];
    let last_end = measured.clone().map(|j| end[j]).max().unwrap_or(Time::MIN);
    let span = last_end - first_submit;
    if span <= 0 {
        return 0.0;
    }
    busy_seconds(jobs, start, end, first_submit..last_end, units) / (capacity * span as f64)
}

/// Whether `name` is a metric of a rigid run, with or without utility functions; the error
/// names the allowed ones (or the new name of a renamed one).
pub fn check_rigid_metric(name: &str) -> Result<(), MetricError> {
    if UTILITY_METRICS.get(name).is_ok()
        || ENERGY_METRICS.get(name).is_ok()
        || RESOURCE_METRICS.get(name).is_ok()
    {
        return Ok(());
    }
    match RIGID_METRICS.get(name) {
        Ok(_) => Ok(()),
        Err(MetricError::Unknown {
            name,
            kind,
            mut allowed,
        }) => {
            allowed.extend(UTILITY_METRICS.names());
            allowed.extend(ENERGY_METRICS.names());
            allowed.extend(RESOURCE_METRICS.names());
            Err(MetricError::Unknown { name, kind, allowed })
        }
        Err(e) => Err(e),
    }
}

/// A rigid metric's value in a saturated run that measured `jobs` jobs.
pub fn saturated_metric(name: &str, jobs: usize) -> Option<f64> {
    match RIGID_METRICS.get(name) {
        Ok(m) => Some(m.saturated_value(jobs)),
        Err(_) => UTILITY_METRICS
            .get(name)
            .ok()
            .map(|m| m.saturated_value(jobs))
            .or_else(|| ENERGY_METRICS.get(name).ok().map(|m| m.saturated_value(jobs)))
            .or_else(|| RESOURCE_METRICS.get(name).ok().map(|m| m.saturated_value(jobs))),
    }
}

/// Sorts `values` and returns their median (the mean of the two middle ones for an even
/// count; NaN for none), with -0 turned into 0 so that printed results never read "-0".
pub fn median(values: &mut [f64]) -> f64 {
    // Unstable: equal under total_cmp is the same bits, so the order is the stable sort's,
    // and it sorts in place (a stable sort allocates).
    values.sort_unstable_by(f64::total_cmp);
    let k = values.len();
    let m = match k {
        0 => f64::NAN,
        k if k % 2 == 1 => values[k / 2],
        k => 0.5 * (values[k / 2 - 1] + values[k / 2]),
    };
    m + 0.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::JobRecord;
    use proptest::prelude::*;

    proptest! {
        /// Thousandths round as `f64::round` does: ties, near-ties, whole numbers, values
        /// past 2^53 and 2^64, negatives and NaN.
        #[test]
        fn thousandths_round_as_round_does(ratio in prop_oneof![
            0.0f64..1e4,
            (0u64..10_000_000).prop_map(|k| k as f64 / 2000.0),
            (0u64..10_000_000).prop_map(|k| f64::from_bits((k as f64 / 2000.0).to_bits() + 1)),
            (0u64..10_000_000).prop_map(|k| f64::from_bits((k as f64 / 2000.0).to_bits().saturating_sub(1))),
            1e12f64..1e20,
            -1e3f64..0.0,
            Just(f64::NAN),
            Just(f64::INFINITY),
        ]) {
            prop_assert_eq!(thousandths(ratio), (ratio * BSLD_SCALE).round() as u64, "{}", ratio);
        }
    }

    #[test]
    fn an_empty_window_is_undefined_not_zero() {
        let jobs = Jobs::from_records(&[JobRecord::new(1, 0, 100, 2, 100)]);
        let s = Summary::of_window(&jobs, 4, &[0], &[100], 1..1, &SkipCounts::default());
        assert_eq!(s.jobs, 0);
        for value in [
            s.mean_wait,
            s.mean_response,
            s.mean_bsld,
            s.mean_expansion,
            s.wait.p50,
            s.bsld.p100,
        ] {
            assert!(value.is_nan(), "{s:?}");
        }
        let one = Summary::of_window(&jobs, 4, &[0], &[100], 0..1, &SkipCounts::default());
        assert_eq!((one.mean_wait, one.wait.p50, one.bsld.p100), (0.0, 0.0, 1.0));
    }

    #[test]
    fn hand_computed_summary() {
        // Two jobs on 4 procs: job A submit 0 start 0 end 100 (2 procs); job B submit 10
        // start 100 end 105 (4 procs, runtime 5).
        let jobs = Jobs::from_records(&[JobRecord::new(1, 0, 100, 2, 100), JobRecord::new(2, 10, 5, 4, 5)]);
        let s = Summary::from_schedule(&jobs, 4, &[0, 100], &[100, 105], &SkipCounts::default());
        assert_eq!(s.jobs, 2);
        assert_eq!(s.mean_wait, 45.0);
        assert_eq!(s.mean_response, (100.0 + 95.0) / 2.0);
        // bsld: A = max(1, 100/100) = 1; B = 95 / max(5, 10) = 9.5.
        assert!((s.mean_bsld - 5.25).abs() < 1e-12);
        assert!((s.mean_expansion - (1.0 + 19.0) / 2.0).abs() < 1e-12);
        assert_eq!(s.makespan, 105);
        assert!((s.utilization - (200.0 + 20.0) / (4.0 * 105.0)).abs() < 1e-12);
        assert_eq!(s.wait.p100, 90.0);
        assert_eq!(s.bsld.p100, 9.5);
        assert_eq!(s.expansion.p100, 19.0);
        assert!(s.utility.is_none());
    }

    #[test]
    fn utility_summary_by_hand() {
        use crate::workload::UtilityFunction;
        // Four jobs, each worth 100 at once, falling linearly to 0 at 100 s; responses 0,
        // 10, 50 and 200 s earn 100, 90, 50 and 0.
        let f = UtilityFunction::new(vec![(0.0, 100.0), (100.0, 0.0)]).unwrap();
        let mut jobs = Jobs::from_records(&[
            JobRecord::new(1, 0, 0, 1, 1),
            JobRecord::new(2, 0, 10, 1, 10),
            JobRecord::new(3, 0, 50, 1, 50),
            JobRecord::new(4, 0, 200, 1, 200),
        ]);
        jobs.utility = Some(vec![f; 4]);
        let start = [0, 0, 0, 0];
        let end = [0, 10, 50, 200];
        let s = Summary::from_schedule(&jobs, 4, &start, &end, &SkipCounts::default());
        let u = s.utility.unwrap();
        assert_eq!(u.aggregate_utility, 240.0);
        assert_eq!(u.total_start_value, 400.0);
        // Best first: the best quarter reached 100, half reached 90, the worst got 0.
        assert_eq!(
            (u.earned.p25, u.earned.p50, u.earned.p75, u.earned.p100),
            (100.0, 90.0, 50.0, 0.0)
        );
    }
}
