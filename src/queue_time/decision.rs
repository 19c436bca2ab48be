//! The cluster-size decision of a malleable job at the head of the queue (Downey 1997,
//! sections 5-6): the n <= max minimising predicted queue time plus run time, Q(n) + R(n).

use std::fmt;
use std::str::FromStr;

use super::RunningSet;

/// Which queue-time prediction a decision uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueueMethod {
    /// Predictor A; where it has no benefactor, B.
    A,
    B,
    /// A with 2 or more benefactors, else B (the paper's choice).
    Combined,
    /// The exact median (dynamic programming).
    Exact,
    /// Hanzich et al.'s simulation kernel: running jobs projected to end at their median
    /// remaining lifetime ([`RunningSet::simulation`]).
    Simulation,
}

impl QueueMethod {
    pub const NAMES: [&'static str; 5] = ["a", "b", "combined", "exact", "simulation"];

    /// Q(n) in seconds (infinite: never).
    pub fn queue_time(self, set: &mut RunningSet, n: u32) -> f64 {
        match self {
            QueueMethod::A => set.a(n).unwrap_or_else(|| set.b(n)),
            QueueMethod::B => set.b(n),
            QueueMethod::Combined => set.combined(n),
            QueueMethod::Exact => set.exact(n),
            QueueMethod::Simulation => set.simulation(n),
        }
    }
}

impl fmt::Display for QueueMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = match self {
            QueueMethod::A => 0,
            QueueMethod::B => 1,
            QueueMethod::Combined => 2,
            QueueMethod::Exact => 3,
            QueueMethod::Simulation => 4,
        };
        f.write_str(Self::NAMES[i])
    }
}

impl FromStr for QueueMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "a" => Ok(QueueMethod::A),
            "b" => Ok(QueueMethod::B),
            "combined" => Ok(QueueMethod::Combined),
            "exact" => Ok(QueueMethod::Exact),
            "simulation" => Ok(QueueMethod::Simulation),
            _ => Err(format!(
                "unknown queue-time predictor '{s}'; known: {}",
                Self::NAMES.join(", ")
            )),
        }
    }
}

/// Q(n) for sizes tried in descending order within one decision: A depends only on the
/// benefactor set, which is the same for every size with the same number of benefactors
/// (the sets are nested), so it is computed once per set; B for a smaller size is at most
/// B for a larger one, which bounds its search.
struct Estimates {
    method: QueueMethod,
    a: Option<(usize, Option<f64>)>,
    b_bound: f64,
}

impl Estimates {
    fn new(method: QueueMethod) -> Self {
        Estimates {
            method,
            a: None,
            b_bound: f64::INFINITY,
        }
    }

    fn b(&mut self, set: &RunningSet, n: u32) -> f64 {
        let q = set.b_at_most(n, self.b_bound);
        if q.is_finite() {
            self.b_bound = q;
        }
        q
    }

    fn queue_time(&mut self, set: &mut RunningSet, n: u32) -> f64 {
        let fewest = match self.method {
            QueueMethod::Exact => return set.exact(n),
            QueueMethod::Simulation => return set.simulation(n),
            QueueMethod::B => return self.b(set, n),
            QueueMethod::A => 1,
            QueueMethod::Combined => 2,
        };
        if set.needed(n) == 0 {
            return 0.0;
        }
        let count = set.benefactors(n);
        if count < fewest {
            return self.b(set, n);
        }
        let a = match self.a {
            Some((cached, a)) if cached == count => a,
            _ => {
                let a = set.a(n);
                self.a = Some((count, a));
                a
            }
        };
        a.expect("benefactors exist")
    }
}

/// A decision: the cluster size, and the queue and run times it expects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    pub n: u32,
    pub queue: f64,
    pub run: f64,
}

impl Choice {
    pub fn turnaround(&self) -> f64 {
        self.queue + self.run
    }
}

/// The n in 1..=max minimising Q(n) + R(n), `run(n)` being the run time on n processors
/// (nonincreasing in n, as under Downey's speedup models), with Q from `method`. Ties go to
/// the smaller n. See [`choose_with`] for the search.
pub fn choose_cluster_size(
    set: &mut RunningSet,
    method: QueueMethod,
    max: u32,
    run: impl Fn(u32) -> f64,
) -> Choice {
    let free = max - set.needed(max);
    let mut estimates = Estimates::new(method);
    choose_with(max, free, |n| estimates.queue_time(set, n), run)
}

/// The n in 1..=max minimising `queue(n)` + `run(n)`, with `free` processors free now
/// (`queue(n)` = 0 for n <= free; it is called for larger n in descending order only, and
/// must be nondecreasing in n for the search to be exact). Ties go to the smaller n.
///
/// Sizes up to the free processors start now, so of those only the largest is a candidate.
/// Larger ones are tried from `max` down, and the search stops at the first n whose run
/// time alone reaches the best total so far: every smaller n runs at least as long.
pub fn choose_with(
    max: u32,
    free: u32,
    mut queue: impl FnMut(u32) -> f64,
    run: impl Fn(u32) -> f64,
) -> Choice {
    assert!(max >= 1, "a job needs a processor");
    // With a processor free, the largest size that starts now; else every size waits.
    let (mut best, lowest) = if free >= 1 {
        let now = free.min(max);
        let first = Choice {
            n: now,
            queue: 0.0,
            run: run(now),
        };
        (first, now + 1)
    } else {
        let none = Choice {
            n: 0,
            queue: f64::INFINITY,
            run: f64::INFINITY,
        };
        (none, 1)
    };
    let mut n = max;
    while n >= lowest {
        let r = run(n);
        if r >= best.turnaround() {
            break;
        }
        let q = queue(n);
        // Ties go to the smaller n (the loop descends; the size that starts now is smaller
        // than any that waits).
        if q + r < best.turnaround() || (q + r == best.turnaround() && n < best.n) {
            best = Choice { n, queue: q, run: r };
        }
        n -= 1;
    }
    if best.n == 0 {
        // Nothing can ever be met: the smallest size, never.
        best.n = 1;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue_time::UniformLog;
    use crate::queue_time::solve::{ABS_TOL, REL_TOL};

    fn set(free: u32, jobs: &[(f64, u32)]) -> RunningSet {
        let ages: Vec<f64> = jobs.iter().map(|j| j.0).collect();
        let sizes: Vec<u32> = jobs.iter().map(|j| j.1).collect();
        let mut s = RunningSet::default();
        s.load(UniformLog::downey_model(), free, &ages, &sizes);
        s
    }

    #[test]
    fn the_pruned_search_matches_trying_every_size() {
        let jobs = [(30.0, 8), (900.0, 16), (4000.0, 32), (20.0, 4), (60_000.0, 2)];
        for free in [0, 3, 10, 40] {
            for lifetime in [100.0, 3_000.0, 200_000.0] {
                let mut s = set(free, &jobs);
                let run = |n: u32| lifetime / crate::speedup::downey_speedup(40.0, 1.0, n as f64);
                for method in [
                    QueueMethod::A,
                    QueueMethod::B,
                    QueueMethod::Combined,
                    QueueMethod::Exact,
                    QueueMethod::Simulation,
                ] {
                    let got = choose_cluster_size(&mut s, method, 40, run);
                    let best = (1..=40)
                        .map(|n| method.queue_time(&mut s, n) + run(n))
                        .fold(f64::INFINITY, f64::min);
                    assert!(
                        // Bounded searches land within the solver's tolerance of cold ones.
                        (got.turnaround() - best).abs() <= 2.0 * (ABS_TOL + REL_TOL * best),
                        "free {free}, L {lifetime}, {method}: {got:?} vs {best}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_simulation_kernel_releases_jobs_at_their_median_remaining_lifetime() {
        // One job: its conditional median, as the exact median.
        let mut s = set(8, &[(4f64.exp(), 64)]);
        let q = s.simulation(72);
        assert!((q - (8f64.exp() - 4f64.exp())).abs() < 1e-6);
        assert!((q - s.exact(72)).abs() < 0.01);
        // Two jobs: A (4 processors, age e^2) ends first, at e^7 - e^2; B (8, age e^10) at
        // e^11 - e^10. 4 free: 8 more need A; 12 more need both; 13 more, never.
        let mut s = set(4, &[(10f64.exp(), 8), (2f64.exp(), 4)]);
        assert_eq!(s.simulation(3), 0.0);
        assert!((s.simulation(8) - (7f64.exp() - 2f64.exp())).abs() < 1e-6);
        assert!((s.simulation(9) - (11f64.exp() - 10f64.exp())).abs() < 1e-6);
        assert!((s.simulation(16) - (11f64.exp() - 10f64.exp())).abs() < 1e-6);
        assert_eq!(s.simulation(17), f64::INFINITY);
    }

    #[test]
    fn a_short_job_takes_what_is_free_and_a_long_one_waits() {
        // 8 free, one 64-processor job aged e^4 s; perfect speedup up to 72.
        let mut s = set(8, &[(4f64.exp(), 64)]);
        let short = choose_cluster_size(&mut s, QueueMethod::Exact, 72, |n| 100.0 / n as f64);
        assert_eq!((short.n, short.queue), (8, 0.0));
        // Waiting e^8 - e^4 s (the median) for 72 saves more than that on a long job.
        let long = choose_cluster_size(&mut s, QueueMethod::Exact, 72, |n| 1e7 / n as f64);
        assert_eq!(long.n, 72);
        assert!((long.queue - (8f64.exp() - 4f64.exp())).abs() < 0.01);
    }
}
