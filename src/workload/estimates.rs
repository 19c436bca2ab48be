//! User runtime estimates for workloads that have none: exact (the runtime itself) or the
//! model of Tsafrir, Etsion & Feitelson ("Modeling user runtime estimates", JSSPP 2005).
//!
//! Tsafrir's model first draws a histogram of estimate values for `n` jobs, then deals the
//! values out to the jobs so that no estimate is below its job's runtime:
//! - the number of distinct values K grows with `n` (piecewise linear through the points
//!   the paper fits: 20 jobs 10 values, 200 → 20, 1,000 → 35, 10,000 → 90, 70,000 → 340,
//!   250,000 and more → 565);
//! - the 20 "head" values are the maximal estimate, the round values that appear among
//!   the top 20 of all four logs the paper studies (5, 10, 15, 20, 30 minutes; 1, 2, 3,
//!   4, 5, 6, 8, 10, 12, 18 hours) below it, and round multiples (of 200, 100, 50, 10, 5,
//!   2, 1 hours, 20, 10, 5 minutes) counting down from the maximum to make up 20;
//! - the head holds 89% of the jobs: the value of popularity rank x = 2..20 holds
//!   `14.0491 e^(-0.177531 x) + 0.462513` percent, rank 1 the rest of the 89%; the
//!   maximal estimate is rank 1, and the other head values get their ranks at random,
//!   constrained by the table of time rank against popularity rank of those four logs;
//! - the K - 20 "tail" values are `max * (a - 1) x / (a - x)` at time ranks x = i / (K -
//!   20), `a = 1 + 12.1039 K^-0.6026`, rounded to minutes (moved by up to 30 s to stay
//!   distinct), and share the remaining 11% as `795.6 r^-2.267` at popularity ranks
//!   r = 21.., matched to the values at random;
//! - job counts are the percentages of `n` rounded, at least 1 a value; the difference
//!   to `n` is taken from (or given to) the largest bins, one job each in turn;
//! - the jobs, longest runtime first, each draw their estimate uniformly among the
//!   undealt values that are at least their runtime.
//!
//! Choices where the paper leaves one: the maximal estimate defaults to the longest
//! runtime rounded up to a whole hour (at least 1 hour). A job longer than a given
//! `max_estimate` is cut to it, as the authors' generator does (it was killed at its
//! limit); when the histogram has too few long values for the jobs, the values that cannot
//! fit are raised to the maximal estimate. Both counts are written into the workload's
//! header comments.

use std::fmt;

use rand_xoshiro::rand_core::SeedableRng;

use crate::Time;
use crate::error::{Error, Result};
use crate::params::ParamError;
use crate::random::ModelRng;
use crate::workload::{Jobs, narrow};

const MINUTE: i64 = 60;
const HOUR: i64 = 3600;
/// Values in the head of the histogram.
const HEAD: usize = 20;
/// Percent of jobs using a head value.
const HEAD_PERCENT: f64 = 89.0;

/// How a generated workload gets its user estimates.
#[derive(Clone, Debug, PartialEq)]
pub enum EstimateModel {
    /// Estimate = runtime.
    Exact,
    Tsafrir(Tsafrir),
}

impl EstimateModel {
    /// `exact` or `tsafrir`.
    pub fn parse(name: &str) -> std::result::Result<EstimateModel, ParamError> {
        match name {
            "exact" => Ok(EstimateModel::Exact),
            "tsafrir" => Ok(EstimateModel::Tsafrir(Tsafrir::default())),
            _ => Err(ParamError::BadValue {
                key: "estimates".into(),
                value: name.into(),
                expected: "exact or tsafrir".into(),
            }),
        }
    }

    pub fn max_estimate(&self) -> Option<Time> {
        match self {
            EstimateModel::Exact => None,
            EstimateModel::Tsafrir(t) => t.max_estimate,
        }
    }

    /// Sets Tsafrir's maximal estimate; false for a model without one.
    pub fn set_max_estimate(&mut self, max: Option<Time>) -> bool {
        match self {
            EstimateModel::Exact => max.is_none(),
            EstimateModel::Tsafrir(t) => {
                t.max_estimate = max;
                true
            }
        }
    }

    pub fn validate(&self, key: &str) -> Result<()> {
        match self {
            EstimateModel::Exact => Ok(()),
            EstimateModel::Tsafrir(t) => t.validate(key),
        }
    }
}

impl fmt::Display for EstimateModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EstimateModel::Exact => write!(f, "exact"),
            EstimateModel::Tsafrir(Tsafrir { max_estimate: None }) => write!(f, "tsafrir"),
            EstimateModel::Tsafrir(Tsafrir {
                max_estimate: Some(m),
            }) => write!(f, "tsafrir(max {m} s)"),
        }
    }
}

/// Tsafrir's model of user estimates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tsafrir {
    /// The system's largest allowed estimate (seconds); `None`: the longest runtime
    /// rounded up to a whole hour.
    pub max_estimate: Option<Time>,
}

/// What [`Tsafrir::assign`] had to change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjustments {
    /// Jobs whose runtime was cut to the maximal estimate.
    pub runtimes_cut: usize,
    /// Histogram values raised to the maximal estimate so every job fits.
    pub values_raised: usize,
}

impl Tsafrir {
    /// A given maximal estimate must be at least an hour (the model's head needs one).
    pub fn validate(&self, key: &str) -> Result<()> {
        match self.max_estimate {
            Some(m) if !(HOUR..=crate::workload::MAX_TIME).contains(&m) => Err(Error::Param {
                key: key.into(),
                value: m.to_string(),
                message: "must be from 3600 s (the model needs an hour) to 2^40 s".into(),
            }),
            _ => Ok(()),
        }
    }

    /// The estimates of replication `seed`, from a stream of their own (so they never
    /// change the jobs' other draws), with what had to change noted in `comments` (a
    /// workload's SWF header).
    pub fn apply(&self, jobs: &mut Jobs, comments: &mut Vec<String>, seed: u64) {
        let adjusted = self.assign(jobs, crate::seed::mix64(seed ^ 0x7473_6166_7269_7235));
        if adjusted != Adjustments::default() {
            comments.push(format!(
                "Note: Tsafrir estimates cut {} runtimes to the maximal estimate and raised {} estimate values to it",
                adjusted.runtimes_cut, adjusted.values_raised
            ));
        }
    }

    /// Gives every job an estimate (and requested time) from the model, drawn with `seed`.
    pub fn assign(&self, jobs: &mut Jobs, seed: u64) -> Adjustments {
        let n = jobs.len();
        let mut adjustments = Adjustments::default();
        if n == 0 {
            return adjustments;
        }
        let longest = jobs.runtime.iter().copied().max().unwrap_or(1);
        let max = self
            .max_estimate
            .unwrap_or((longest.max(1) + HOUR - 1) / HOUR * HOUR)
            .max(HOUR);
        for r in &mut jobs.runtime {
            if *r > max {
                *r = max;
                adjustments.runtimes_cut += 1;
            }
        }
        let mut rng = ModelRng::seed_from_u64(seed);
        let mut values = histogram(n, max, &mut rng)
            .into_iter()
            .flat_map(|(v, c)| std::iter::repeat_n(v, c))
            .collect::<Vec<_>>();
        values.sort_unstable_by(|a, b| b.cmp(a));
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| jobs.runtime[b].cmp(&jobs.runtime[a]).then(a.cmp(&b)));
        // The k-th longest job needs the k-th largest value to be at least its runtime.
        loop {
            let short: Vec<usize> = (0..n).filter(|&k| values[k] < jobs.runtime[order[k]]).collect();
            if short.is_empty() {
                break;
            }
            adjustments.values_raised += short.len();
            for k in short {
                values[k] = max;
            }
            values.sort_unstable_by(|a, b| b.cmp(a));
        }
        // Deal: job k takes a random undealt value among those at least its runtime, which
        // are positions k..=hi once the dealt ones are swapped to the front.
        let mut hi = 0;
        for k in 0..n {
            let runtime = jobs.runtime[order[k]];
            hi = hi.max(k);
            while hi + 1 < n && values[hi + 1] >= runtime {
                hi += 1;
            }
            let pick = k + below(&mut rng, hi - k + 1);
            values.swap(k, pick);
            jobs.estimate[order[k]] = values[k];
            jobs.requested_time[order[k]] = narrow(values[k]);
        }
        adjustments
    }
}

/// A uniform index below `n` (n >= 1).
fn below(rng: &mut ModelRng, n: usize) -> usize {
    crate::random::below(rng, n as u64) as usize
}

/// Distinct values K for `n` jobs: piecewise linear through the paper's fitted points.
pub fn value_count(n: usize) -> usize {
    const POINTS: [(usize, usize); 7] = [
        (0, 0),
        (20, 10),
        (200, 20),
        (1000, 35),
        (10_000, 90),
        (70_000, 340),
        (250_000, 565),
    ];
    let (last_n, last_k) = POINTS[POINTS.len() - 1];
    if n >= last_n {
        return last_k;
    }
    let i = POINTS.iter().position(|&(x, _)| n <= x).unwrap_or(1).max(1);
    let ((x0, y0), (x1, y1)) = (POINTS[i - 1], POINTS[i]);
    y0 + (((n - x0) * (y1 - y0)) as f64 / (x1 - x0) as f64).round() as usize
}

/// The head values: the maximum first, then the others ascending.
fn head_values(max: Time) -> Vec<Time> {
    const JOINT: [Time; 15] = [
        5 * MINUTE,
        15 * MINUTE,
        10 * MINUTE,
        20 * MINUTE,
        30 * MINUTE,
        HOUR,
        2 * HOUR,
        3 * HOUR,
        4 * HOUR,
        5 * HOUR,
        6 * HOUR,
        8 * HOUR,
        10 * HOUR,
        12 * HOUR,
        18 * HOUR,
    ];
    const ROUND: [Time; 10] = [
        200 * HOUR,
        100 * HOUR,
        50 * HOUR,
        10 * HOUR,
        5 * HOUR,
        2 * HOUR,
        HOUR,
        20 * MINUTE,
        10 * MINUTE,
        5 * MINUTE,
    ];
    let mut v = vec![max];
    v.extend(JOINT.iter().copied().filter(|&t| t < max));
    'fill: for step in ROUND {
        let mut t = max / step * step;
        while t > 0 {
            if v.len() >= HEAD {
                break 'fill;
            }
            if !v.contains(&t) {
                v.push(t);
            }
            t -= step;
        }
    }
    v[1..].sort_unstable();
    v
}

/// Percent of jobs at popularity ranks 1..=count of the head (descending).
fn head_percents(count: usize) -> Vec<f64> {
    let rest: Vec<f64> = (2..=count)
        .map(|x| 14.0491 * (-0.177531 * x as f64).exp() + 0.462513)
        .collect();
    let mut p = vec![HEAD_PERCENT - rest.iter().sum::<f64>()];
    p.extend(rest);
    p
}

/// For each head value in time order (the maximum first), the popularity rank it gets.
/// The table gives, for the 20 time ranks, the popularity rank that value had in each of
/// the four logs the paper studies (SDSC SP2, CTC SP2, KTH SP2, SDSC Blue).
fn head_ranks(count: usize, rng: &mut ModelRng) -> Vec<usize> {
    const TABLE: [[usize; 4]; HEAD] = [
        [3, 1, 1, 1],
        [1, 3, 4, 6],
        [4, 4, 10, 5],
        [17, 2, 14, 3],
        [13, 12, 20, 7],
        [7, 9, 2, 2],
        [8, 8, 3, 18],
        [18, 18, 7, 19],
        [2, 6, 12, 4],
        [6, 7, 6, 11],
        [16, 11, 19, 20],
        [10, 20, 5, 9],
        [5, 16, 18, 10],
        [15, 5, 16, 14],
        [14, 14, 9, 13],
        [19, 13, 17, 16],
        [11, 10, 15, 15],
        [12, 15, 13, 17],
        [9, 17, 8, 8],
        [20, 19, 11, 12],
    ];
    // A rank is due once the time rank reaches the last row where some log had it.
    let mut due = [0usize; HEAD + 1];
    for (row, ranks) in TABLE.iter().enumerate() {
        for &r in ranks {
            due[r] = due[r].max(row);
        }
    }
    let mut chosen = [false; HEAD + 1];
    let mut pool: Vec<usize> = Vec::new();
    let mut ranks = Vec::with_capacity(count);
    for (row, candidates) in TABLE.iter().enumerate().take(count) {
        pool.extend(candidates.iter().copied().filter(|&r| r <= count && !chosen[r]));
        let rank = if row == 0 {
            1
        } else if let Some(r) = (1..=count).find(|&r| due[r] <= row && !chosen[r]) {
            r
        } else if pool.is_empty() {
            (1..=count).find(|&r| !chosen[r]).expect("fewer rows than ranks")
        } else {
            // The better of two random picks: popular ranks come early.
            let a = pool[below(rng, pool.len())];
            let b = pool[below(rng, pool.len())];
            a.min(b)
        };
        chosen[rank] = true;
        pool.retain(|&r| r != rank);
        ranks.push(rank);
    }
    ranks
}

/// The tail values (ascending), distinct from the head and each other, below the maximum.
fn tail_values(count: usize, total: usize, max: Time, head: &[Time]) -> Vec<Time> {
    let a = 1.0 + 12.1039 * (total as f64).powf(-0.6026);
    let mut v: Vec<Time> = Vec::with_capacity(count);
    for i in 1..=count {
        let x = i as f64 / count as f64;
        let t = (a - 1.0) * x / (a - x) * max as f64;
        let minute = (t / 60.0).round() as Time * 60;
        let free = [0, 30, -30, 20, -20, 10, -10]
            .iter()
            .map(|off| minute + off)
            .find(|&s| s > 0 && s < max && !head.contains(&s) && !v.contains(&s));
        v.extend(free);
    }
    v.sort_unstable();
    v
}

/// The histogram of estimate values for `n` jobs: (value, jobs), summing to `n`.
pub fn histogram(n: usize, max: Time, rng: &mut ModelRng) -> Vec<(Time, usize)> {
    let total = value_count(n).max(1);
    let head = head_values(max);
    let percents = head_percents(head.len());
    let ranks = head_ranks(head.len(), rng);
    let mut bins: Vec<(Time, f64)> = head
        .iter()
        .zip(&ranks)
        .map(|(&t, &r)| (t, percents[r - 1]))
        .collect();
    let tail = tail_values(total.saturating_sub(head.len()), total, max, &head);
    if !tail.is_empty() {
        let weights: Vec<f64> = (0..tail.len())
            .map(|i| 795.6 * ((HEAD + 1 + i) as f64).powf(-2.267))
            .collect();
        let scale = (100.0 - HEAD_PERCENT) / weights.iter().sum::<f64>();
        // Random matching of tail values to tail sizes: shuffle the sizes.
        let mut sizes: Vec<f64> = weights.iter().map(|w| w * scale).collect();
        for i in (1..sizes.len()).rev() {
            sizes.swap(i, below(rng, i + 1));
        }
        bins.extend(tail.into_iter().zip(sizes));
    }
    let mut counts: Vec<(Time, usize)> = bins
        .iter()
        .map(|&(t, p)| (t, ((p * n as f64 / 100.0).round() as usize).max(1)))
        .collect();
    // Equalise to n: the largest bins give or take one job each in turn.
    let mut by_size: Vec<usize> = (0..counts.len()).collect();
    by_size.sort_by(|&a, &b| counts[b].1.cmp(&counts[a].1).then(a.cmp(&b)));
    let mut sum: usize = counts.iter().map(|c| c.1).sum();
    let mut i = 0;
    while sum != n {
        let bin = by_size[i % by_size.len()];
        if sum < n {
            counts[bin].1 += 1;
            sum += 1;
        } else if counts[bin].1 > 1 || by_size.iter().all(|&b| counts[b].1 <= 1) {
            counts[bin].1 -= 1;
            sum -= 1;
        }
        i += 1;
    }
    counts.retain(|c| c.1 > 0);
    counts.sort_unstable();
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::JobRecord;
    use rand_xoshiro::rand_core::Rng;

    #[test]
    fn value_count_follows_the_fitted_points() {
        assert_eq!(value_count(20), 10);
        assert_eq!(value_count(110), 15);
        assert_eq!(value_count(10_000), 90);
        assert_eq!(value_count(40_000), 215);
        assert_eq!(value_count(1_000_000), 565);
    }

    #[test]
    fn head_of_an_18_hour_machine() {
        let v = head_values(18 * HOUR);
        assert_eq!(v.len(), 20);
        assert_eq!(v[0], 18 * HOUR);
        // The 14 joint values below 18 h, then 16 h, 14 h, 17 h, 15 h... by 10 h steps
        // (none new), 5 h (15 h), 2 h (16 h, 14 h), 1 h (17 h).
        for t in [5, 10, 15, 20, 30]
            .map(|m| m * MINUTE)
            .into_iter()
            .chain([1, 2, 3, 4, 5, 6, 8, 10, 12].map(|h| h * HOUR))
        {
            assert!(v.contains(&t), "{t}");
        }
        assert!(v.windows(2).skip(1).all(|w| w[0] < w[1]));
        assert!(v[1..].iter().all(|&t| t < 18 * HOUR));
        let p = head_percents(20);
        assert!((p.iter().sum::<f64>() - 89.0).abs() < 1e-9);
        assert!(p.windows(2).all(|w| w[0] > w[1]), "{p:?}");
    }

    #[test]
    fn histogram_sums_to_n_with_the_maximum_most_popular() {
        let mut rng = ModelRng::seed_from_u64(1);
        for n in [1, 7, 150, 10_000, 100_000] {
            let h = histogram(n, 36 * HOUR, &mut rng);
            assert_eq!(h.iter().map(|b| b.1).sum::<usize>(), n, "n = {n}");
            if n >= 1000 {
                let top = h.iter().max_by_key(|b| b.1).unwrap();
                assert_eq!(top.0, 36 * HOUR);
                let head: usize = {
                    let mut c: Vec<usize> = h.iter().map(|b| b.1).collect();
                    c.sort_unstable_by(|a, b| b.cmp(a));
                    c[..20].iter().sum()
                };
                let share = head as f64 / n as f64;
                assert!((share - 0.89).abs() < 0.02, "n = {n}: head share {share}");
                assert!(
                    h.len() >= value_count(n) - 5 && h.len() <= value_count(n),
                    "{}",
                    h.len()
                );
            }
        }
    }

    #[test]
    fn every_estimate_covers_its_runtime_and_uses_the_histogram() {
        let mut jobs = Jobs::with_capacity(5000);
        let mut rng = ModelRng::seed_from_u64(9);
        for i in 0..5000 {
            let runtime = 1 + (rng.next_u64() % 40_000) as i64;
            jobs.push(&JobRecord::new(i, i as i64, runtime, 1, runtime));
        }
        let before = jobs.runtime.clone();
        let adj = Tsafrir::default().assign(&mut jobs, 4);
        assert!(jobs.runtime == before);
        assert_eq!(adj.runtimes_cut, 0);
        assert!((0..5000).all(|j| jobs.estimate[j] >= jobs.runtime[j]));
        let max = jobs.estimate.iter().max().copied().unwrap();
        assert_eq!(
            max,
            12 * HOUR,
            "the longest runtime (<= 40,000 s) rounded up to hours"
        );
        let mut again = jobs.clone();
        Tsafrir::default().assign(&mut again, 4);
        assert!(again.estimate == jobs.estimate);
        Tsafrir::default().assign(&mut again, 5);
        assert!(again.estimate != jobs.estimate);
    }

    #[test]
    fn long_runtimes_are_cut_to_a_given_maximum_and_counted() {
        let mut jobs = Jobs::with_capacity(100);
        for i in 0..100 {
            jobs.push(&JobRecord::new(
                i,
                0,
                if i < 50 { 10 } else { 100_000 },
                1,
                100_000,
            ));
        }
        let adj = Tsafrir {
            max_estimate: Some(10 * HOUR),
        }
        .assign(&mut jobs, 1);
        assert_eq!(adj.runtimes_cut, 50);
        // Half the jobs need the maximum, more than its share: values were raised.
        assert!(adj.values_raised > 0);
        assert!((0..100).all(|j| jobs.estimate[j] >= jobs.runtime[j] && jobs.estimate[j] <= 10 * HOUR));
    }
}
