//! The cluster-size decision of a malleable job at the head of the queue (Downey 1997,
//! sections 5-6): the n <= max minimising predicted queue time plus run time, Q(n) + R(n).

use std::fmt;
use std::str::FromStr;

use crate::call::{Call, CallError};

use super::RunningAges;
use super::solve::{ABS_TOL, REL_TOL};

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
    /// remaining lifetime ([`RunningAges::simulation`]).
    Simulation,
}

impl QueueMethod {
    pub const NAMES: [&'static str; 5] = ["a", "b", "combined", "exact", "simulation"];

    /// Q(n) in seconds (infinite: never).
    pub fn queue_time(self, set: &mut RunningAges, n: u32) -> f64 {
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
    type Err = CallError;
    fn from_str(s: &str) -> Result<Self, CallError> {
        let call = Call::parse("queue-time predictor", s)?;
        let method = match call.name() {
            "a" => QueueMethod::A,
            "b" => QueueMethod::B,
            "combined" => QueueMethod::Combined,
            "exact" => QueueMethod::Exact,
            "simulation" => QueueMethod::Simulation,
            _ => return Err(call.unknown_name(&Self::NAMES)),
        };
        call.finish(method)
    }
}

/// Predictor A for the sizes of one decision: it depends only on the benefactor set, which
/// is the same for every size with the same number of benefactors (the sets are nested), so
/// it is computed once per set.
#[derive(Default)]
struct ByBenefactors {
    last: Option<(usize, f64)>,
}

impl ByBenefactors {
    /// A for `n`, which must have a benefactor.
    fn a(&mut self, set: &mut RunningAges, n: u32) -> f64 {
        if set.needed(n) == 0 {
            return 0.0;
        }
        let count = set.benefactors(n);
        match self.last {
            Some((cached, a)) if cached == count => a,
            _ => {
                let a = set.a(n).expect("a size with benefactors");
                self.last = Some((count, a));
                a
            }
        }
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
/// the smaller n.
///
/// With the exact and simulation predictors every size is tried ([`choose_with`]). With A,
/// B and combined, the sizes split into two ranges by how many benefactors they have: the
/// small sizes where A answers (one value per benefactor set, tried by [`choose_with`]'s
/// descending search) and the large ones where B does. B is nondecreasing in n, so over a
/// range [a, b] of sizes Q + R is at least B(a) + R(b): `search_monotone` solves B at the
/// range's ends and splits only ranges whose bound could beat the best so far, a handful
/// of B solutions instead of one per size.
pub fn choose_cluster_size(
    set: &mut RunningAges,
    method: QueueMethod,
    max: u32,
    run: impl Fn(u32) -> f64,
) -> Choice {
    let free = max - set.needed(max);
    let fewest = match method {
        QueueMethod::Exact => return choose_with(max, free, |n| set.exact(n), run),
        QueueMethod::Simulation => return choose_with(max, free, |n| set.simulation(n), run),
        QueueMethod::B => None,
        QueueMethod::A => Some(1),
        QueueMethod::Combined => Some(2),
    };
    // The largest size A answers for: `fewest` benefactors need at most the fewest-th
    // largest job's processors beyond the free ones.
    let last_a = fewest.map_or(free, |k| (free + set.kth_largest_size(k)).min(max).max(free));
    let mut by_benefactors = ByBenefactors::default();
    let mut best = if last_a >= 1 {
        choose_with(last_a, free, |n| by_benefactors.a(set, n), &run)
    } else {
        Choice {
            n: 0,
            queue: f64::INFINITY,
            run: f64::INFINITY,
        }
    };
    search_monotone(
        last_a + 1,
        max,
        |n, lower, upper, start| set.b_between(n, lower, upper, start),
        &run,
        &mut best,
    );
    if best.n == 0 {
        // Nothing can ever be met: the smallest size, never.
        best.n = 1;
    }
    best
}

/// Improves `best` with the n in `lo..=hi` minimising `queue(n)` + `run(n)`, for a
/// nondecreasing `queue` (within the solvers' tolerance) and a nonincreasing `run`.
/// `queue(n, lower, upper, start)` may use `lower` and `upper`, values of `queue` at a smaller
/// and a larger size, as a bracket, and `start` as a first guess; it returns Q(n) and, if it
/// knows it, dQ/dn there (else NaN).
///
/// Branch and bound over sizes: every n of an open range (a, b) whose ends are solved has
/// Q(n) >= Q(a) and R(n) >= R(b - 1), so the range is split at its middle only if that bound
/// could beat the best so far; sizes whose run time alone reaches the best are skipped.
/// Ties go to the smaller n, as in [`choose_with`]. The first guess at a range's middle is
/// the cubic through its ends' values and slopes (linear where a slope is unknown): close
/// enough that most solutions take one evaluation to confirm.
fn search_monotone(
    lo: u32,
    hi: u32,
    mut queue: impl FnMut(u32, f64, f64, f64) -> (f64, f64),
    run: impl Fn(u32) -> f64,
    best: &mut Choice,
) {
    if lo > hi {
        return;
    }
    let consider = |n: u32, q: f64, best: &mut Choice| {
        let r = run(n);
        let total = q + r;
        if total < best.turnaround() || (total == best.turnaround() && n < best.n) {
            *best = Choice { n, queue: q, run: r };
        }
    };
    // Two roots within the tolerance of each other may be out of order by this much.
    let slack = |q: f64| 2.0 * (ABS_TOL + REL_TOL * q);
    if run(hi) >= best.turnaround() {
        return;
    }
    let (q_hi, s_hi) = queue(hi, 0.0, f64::INFINITY, 0.0);
    consider(hi, q_hi, best);
    // The smallest size whose run time alone is below the best total (run nonincreasing).
    let (mut a, mut b) = (lo, hi);
    while a < b {
        let m = a + (b - a) / 2;
        if run(m) >= best.turnaround() {
            a = m + 1;
        } else {
            b = m;
        }
    }
    let lo = a;
    if lo >= hi {
        return;
    }
    let (q_lo, s_lo) = queue(lo, 0.0, q_hi, guess((hi, q_hi, s_hi), (hi, q_hi, s_hi), lo));
    consider(lo, q_lo, best);
    // Open ranges (a, b) with Q and dQ/dn at a and b solved; depth is at most
    // log2(hi - lo) + 1.
    let mut stack = [((0u32, 0f64, 0f64), (0u32, 0f64, 0f64)); 64];
    let mut depth = 0;
    stack[depth] = ((lo, q_lo, s_lo), (hi, q_hi, s_hi));
    depth += 1;
    while depth > 0 {
        depth -= 1;
        let (left, right) = stack[depth];
        let ((a, qa, _), (b, qb, _)) = (left, right);
        // Past an infinite Q(a) every size waits forever.
        if b - a <= 1 || qa.is_infinite() || qa - slack(qa) + run(b - 1) > best.turnaround() {
            continue;
        }
        let m = a + (b - a) / 2;
        let (qm, sm) = queue(m, qa, qb, guess(left, right, m));
        consider(m, qm, best);
        stack[depth] = ((m, qm, sm), right);
        stack[depth + 1] = (left, (m, qm, sm));
        depth += 2;
    }
}

/// A first guess of Q(m) from (size, Q, dQ/dn) at two sizes: the cubic Hermite interpolant
/// between them, or the tangent line from the nearer where only one end is known (equal
/// ends), or the straight line where a slope is unknown; never outside the values' range.
fn guess(left: (u32, f64, f64), right: (u32, f64, f64), m: u32) -> f64 {
    let ((a, qa, sa), (b, qb, sb)) = (left, right);
    if !qb.is_finite() {
        return qa;
    }
    if a == b {
        let tangent = qa + sa * (f64::from(m) - f64::from(a));
        return if tangent.is_finite() {
            tangent.clamp(0.0, qa)
        } else {
            qa
        };
    }
    let width = f64::from(b - a);
    let t = f64::from(m - a) / width;
    let linear = qa + (qb - qa) * t;
    if !(sa.is_finite() && sb.is_finite()) {
        return linear;
    }
    let (t2, t3) = (t * t, t * t * t);
    let cubic = (2.0 * t3 - 3.0 * t2 + 1.0) * qa
        + (t3 - 2.0 * t2 + t) * width * sa
        + (-2.0 * t3 + 3.0 * t2) * qb
        + (t3 - t2) * width * sb;
    cubic.clamp(qa, qb)
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

    fn set(free: u32, jobs: &[(f64, u32)]) -> RunningAges {
        let ages: Vec<f64> = jobs.iter().map(|j| j.0).collect();
        let sizes: Vec<u32> = jobs.iter().map(|j| j.1).collect();
        let mut s = RunningAges::default();
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

    /// The branch and bound over sizes picks exactly what trying every size picks, ties to
    /// the smaller size included, on random nondecreasing queue times (with stretches of
    /// equal values and an infinite tail) and nonincreasing run times.
    #[test]
    fn the_bounded_search_equals_trying_every_size() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        use rand_xoshiro::rand_core::{Rng, SeedableRng};
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for case in 0..3000 {
            let max = 1 + (rng.next_u64() % 150) as u32;
            let lo = 1 + (rng.next_u64() % max as u64) as u32;
            let mut q = vec![0.0; max as usize + 1];
            let mut r = vec![0.0; max as usize + 1];
            let mut level = (rng.next_u64() % 50) as f64;
            for n in lo..=max {
                if rng.next_u64() % 3 == 0 {
                    level += (rng.next_u64() % 40) as f64;
                }
                q[n as usize] = if case % 7 == 0 && n > (lo + max) / 2 {
                    f64::INFINITY
                } else {
                    level
                };
            }
            let mut runtime = 1000.0 + (rng.next_u64() % 1000) as f64;
            for n in (1..=max).rev() {
                r[n as usize] = runtime;
                runtime += (rng.next_u64() % 30) as f64;
            }
            let start = Choice {
                n: 0,
                queue: f64::INFINITY,
                run: f64::INFINITY,
            };
            let mut expected = start;
            for n in lo..=max {
                let total = q[n as usize] + r[n as usize];
                if total < expected.turnaround() {
                    expected = Choice {
                        n,
                        queue: q[n as usize],
                        run: r[n as usize],
                    };
                }
            }
            let mut got = start;
            search_monotone(
                lo,
                max,
                |n, _, _, _| (q[n as usize], f64::NAN),
                |n| r[n as usize],
                &mut got,
            );
            assert_eq!(got.n, expected.n, "case {case}: {got:?} vs {expected:?}");
        }
    }

    /// The first guess reproduces a cubic from its ends' values and slopes, a line
    /// without slopes, and the tangent from one end.
    #[test]
    fn guesses_interpolate_values_and_slopes() {
        let q = |n: f64| 2.0 + 0.5 * n + 0.01 * n * n + 0.001 * n * n * n;
        let dq = |n: f64| 0.5 + 0.02 * n + 0.003 * n * n;
        let end = |n: u32| (n, q(f64::from(n)), dq(f64::from(n)));
        for m in 21..40 {
            let g = guess(end(20), end(40), m);
            assert!(
                (g - q(f64::from(m))).abs() < 1e-9,
                "{m}: {g} vs {}",
                q(f64::from(m))
            );
        }
        let unknown = |n: u32| (n, q(f64::from(n)), f64::NAN);
        let line = q(20.0) + (q(40.0) - q(20.0)) * 0.25;
        assert!((guess(unknown(20), unknown(40), 25) - line).abs() < 1e-12);
        let tangent = q(40.0) - 10.0 * dq(40.0);
        assert!((guess(end(40), end(40), 30) - tangent).abs() < 1e-12);
        assert_eq!(guess(end(20), (40, f64::INFINITY, f64::NAN), 30), q(20.0));
    }

    /// On random machine states, the decision with A, B and combined lands within the
    /// solver's tolerance of the best over every size solved cold.
    #[test]
    fn decisions_match_trying_every_size_on_random_machines() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        use rand_xoshiro::rand_core::{Rng, SeedableRng};
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        for _ in 0..40 {
            let p = 1 + (unit() * 60.0) as usize;
            let jobs: Vec<(f64, u32)> = (0..p)
                .map(|_| ((11.0 * unit()).exp(), 1 + (unit() * 24.0) as u32))
                .collect();
            let free = (unit() * 10.0) as u32;
            let mut s = set(free, &jobs);
            let lifetime = (2.0 + 10.0 * unit()).exp();
            let run = |n: u32| lifetime / crate::speedup::downey_speedup(128.0, 1.0, n as f64);
            for method in [QueueMethod::A, QueueMethod::B, QueueMethod::Combined] {
                let got = choose_cluster_size(&mut s, method, 128, run);
                let best = (1..=128)
                    .map(|n| method.queue_time(&mut s, n) + run(n))
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    (got.turnaround() - best).abs() <= 2.0 * (ABS_TOL + REL_TOL * best)
                        || got.turnaround() == best,
                    "{method} on {jobs:?}, free {free}: {got:?} vs {best}"
                );
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
