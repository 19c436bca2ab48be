//! Queue-time predictors (Downey 1997, section 3) against hand-computed cases and against
//! the exact median by enumeration.

use proptest::prelude::*;

use schedlab::queue_time::solve::{ABS_TOL, REL_TOL};
use schedlab::queue_time::{RunningAges, UniformLog};

fn state(free: u32, jobs: &[(f64, u32)]) -> RunningAges {
    let ages: Vec<f64> = jobs.iter().map(|j| j.0).collect();
    let sizes: Vec<u32> = jobs.iter().map(|j| j.1).collect();
    let mut set = RunningAges::default();
    set.load(UniformLog::downey_model(), free, &ages, &sizes);
    set
}

/// Within the solvers' tolerance (twice it, for two roots compared with each other).
fn close(x: f64, y: f64) -> bool {
    (x - y).abs() <= 2.0 * (ABS_TOL + REL_TOL * y.abs())
}

#[test]
fn one_job_half_way_through_its_log_range() {
    // Lifetimes uniform-log on [e^2, e^12]. One job of 64 processors aged e^4; 32 asked,
    // none free. Its survival to t is (12 - ln t) / 8, 0.5 at t = e^8: A, B and the exact
    // median all wait e^8 - e^4 seconds (B: 64 (ln t - 4) / 8 = 32 at the same t).
    let mut s = state(0, &[(4f64.exp(), 64)]);
    let q = 8f64.exp() - 4f64.exp();
    assert!(close(s.a(32).unwrap(), q), "{:?}", s.a(32));
    assert!(close(s.b(32), q), "{}", s.b(32));
    assert!(close(s.exact(32), q), "{}", s.exact(32));
    assert_eq!(s.combined(32), s.b(32), "one benefactor: B");
}

#[test]
fn two_alike_benefactors_and_the_fluid_mean() {
    // Two jobs of 64 aged e^4; 64 asked. A (and the exact median, as either job alone
    // suffices): S(t)^2 = 0.5, ln t = 12 - 8 sqrt(0.5). B: 128 (ln t - 4) / 8 = 64, ln t = 8.
    let mut s = state(0, &[(4f64.exp(), 64), (4f64.exp(), 64)]);
    let a = (12.0 - 8.0 * 0.5f64.sqrt()).exp() - 4f64.exp();
    assert!(close(s.a(64).unwrap(), a), "{:?} vs {a}", s.a(64));
    assert!(close(s.exact(64), a), "{}", s.exact(64));
    assert!(close(s.b(64), 8f64.exp() - 4f64.exp()));
    assert_eq!(s.combined(64), s.a(64).unwrap(), "two benefactors: A");
    assert_eq!(s.benefactors(64), 2);
}

#[test]
fn free_processors_impossible_requests_and_ages_out_of_range() {
    let mut s = state(10, &[(100.0, 8)]);
    // Fits now.
    assert_eq!((s.a(10), s.b(10), s.combined(10)), (Some(0.0), 0.0, 0.0));
    // 10 free + 8 held < 30: never; no benefactor for A.
    assert_eq!(s.a(30), None);
    assert_eq!(s.b(30), f64::INFINITY);
    assert_eq!(s.combined(30), f64::INFINITY);
    let mut s2 = state(10, &[(100.0, 8)]);
    assert_eq!(s2.exact(30), f64::INFINITY);
    // A job past t_max ends at once; a job of age 0 counts as aged t_min.
    let mut s = state(0, &[(13f64.exp(), 4), (0.0, 4)]);
    assert_eq!(s.a(4), Some(0.0));
    let mut young = state(0, &[(0.0, 4)]);
    assert!(close(young.a(4).unwrap(), 7f64.exp()), "{:?}", young.a(4));
}

#[test]
fn predictor_a_is_exact_with_one_benefactor_and_too_little_besides() {
    // 40 asked, none free: only the 64-processor job can satisfy it; the two small jobs
    // together hold 16 < 40.
    let mut s = state(0, &[(5f64.exp(), 64), (30.0, 8), (3000.0, 8)]);
    let exact = s.exact(40);
    assert!(close(s.a(40).unwrap(), exact), "{:?} vs {exact}", s.a(40));
    assert!(close(s.exact_by_enumeration(40), exact));
}

fn machine() -> impl Strategy<Value = (u32, Vec<(f64, u32)>, u32)> {
    let job = (0.0f64..14.0, 1u32..40).prop_map(|(ln_age, size)| (ln_age.exp() - 1.0, size));
    (0u32..16, prop::collection::vec(job, 1..9), 1u32..200)
}

fn large_machine() -> impl Strategy<Value = (u32, Vec<(f64, u32)>, u32)> {
    let job = (0.0f64..14.0, 1u32..40).prop_map(|(ln_age, size)| (ln_age.exp() - 1.0, size));
    (0u32..16, prop::collection::vec(job, 1..41), 1u32..400)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The dynamic programme computes equations 6-8 exactly: it agrees with enumerating
    /// every outcome, at any horizon, and so do the medians.
    #[test]
    fn dynamic_programme_equals_enumeration((free, jobs, n) in machine(), ln_q in 0.0f64..13.0) {
        let mut s = state(free, &jobs);
        let needed = s.needed(n);
        let q = ln_q.exp();
        let dp = s.chance_met_by(needed.max(1), q);
        let all = s.chance_met_by_enumeration(needed.max(1), q);
        prop_assert!((dp - all).abs() < 1e-12, "{dp} vs {all}");
        let (exact, by_enumeration) = (s.exact(n), s.exact_by_enumeration(n));
        prop_assert!(exact == by_enumeration || close(exact, by_enumeration), "{exact} vs {by_enumeration}");
    }

    /// B's released processors never decrease, and B is where they reach n'.
    #[test]
    fn predictor_b_solves_a_monotone_equation((free, jobs, n) in machine()) {
        let mut s = state(free, &jobs);
        let mut last = 0.0;
        for i in 0..200 {
            let (released, slope, _) = s.released((i as f64 * 0.08).exp() - 1.0);
            prop_assert!(released >= last - 1e-9 && slope >= 0.0);
            last = released;
        }
        let b = s.b(n);
        if b.is_finite() && b > 0.0 {
            let needed = s.needed(n) as f64;
            prop_assert!(s.released(b * (1.0 - 1e-5) - 1e-3).0 <= needed + 1e-6);
            prop_assert!(s.released(b * (1.0 + 1e-5) + 1e-3).0 >= needed - 1e-6);
        }
    }

    /// The vectorised kernels against equation 5 job by job: B's released processors are
    /// the sum of n_i (1 - survival), and A is where the benefactors' joint survival,
    /// multiplied out job by job, crosses one half. Machines up to 40 jobs, so every lane
    /// and tail length of the kernels is exercised, with ages from 0 to past t_max.
    #[test]
    fn kernels_agree_with_equation_5_job_by_job((free, jobs, n) in large_machine(), ln_q in 0.0f64..13.0) {
        let mut s = state(free, &jobs);
        let dist = UniformLog::downey_model();
        let released_by = |q: f64| -> f64 {
            jobs.iter().map(|&(age, size)| size as f64 * (1.0 - dist.survival(age, q))).sum()
        };
        let held: f64 = jobs.iter().map(|j| j.1 as f64).sum();
        for q in [0.0, ln_q.exp() - 1.0, ln_q.exp()] {
            let (kernel, reference) = (s.released(q).0, released_by(q));
            prop_assert!((kernel - reference).abs() <= 1e-9 * held, "q = {}: {} vs {}", q, kernel, reference);
        }
        let needed = s.needed(n);
        let survival = |q: f64| -> f64 {
            jobs.iter().filter(|j| j.1 >= needed).map(|&(age, _)| dist.survival(age, q)).product()
        };
        if let Some(a) = s.a(n) && a > 0.0 {
            prop_assert!(survival(a * (1.0 - 1e-5) - 1e-3) >= 0.5 - 1e-9, "A = {}", a);
            prop_assert!(survival(a * (1.0 + 1e-5) + 1e-3) <= 0.5 + 1e-9, "A = {}", a);
        }
    }

    /// A with a single benefactor, when the other jobs cannot satisfy the request together,
    /// is the exact median.
    #[test]
    fn a_matches_the_exact_median_when_one_job_decides(
        free in 0u32..16,
        ln_age in 0.0f64..13.0,
        size in 20u32..64,
        small in prop::collection::vec((0.0f64..14.0, 1u32..5), 0..5),
        extra in 0u32..64,
    ) {
        // The small jobs hold at most 16 < needed <= size.
        let mut jobs: Vec<(f64, u32)> = small.iter().map(|&(l, s)| (l.exp() - 1.0, s)).collect();
        jobs.push((ln_age.exp() - 1.0, size));
        let others: u32 = small.iter().map(|j| j.1).sum();
        let needed = (others + 1 + extra % size).min(size);
        let n = free + needed;
        let mut s = state(free, &jobs);
        prop_assert_eq!(s.benefactors(n), 1);
        let (a, exact) = (s.a(n).unwrap(), s.exact(n));
        prop_assert!(close(a, exact), "{} vs {}", a, exact);
    }
}
