//! The coverage of the sweeps' confidence intervals, by simulation: on samples drawn from
//! known skewed distributions, how often the 95% interval of [`estimate`] holds the true
//! mean, against the Student-t interval it replaced (and how often that one reached below
//! 0). docs/sweeps.md quotes the table this test prints (`cargo test --release --test
//! intervals -- --nocapture`).

use rand_distr::{Distribution, Gamma, LogNormal, Normal, Pareto};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::SeedableRng;
use rayon::prelude::*;
use schedlab::metrics::registry::Range;
use schedlab::random::unit;
use schedlab::sweep::stats::estimate;

/// Trials per distribution and sample size: the coverage's standard error is about
/// sqrt(0.95 x 0.05 / 40,000) = 0.0011.
const TRIALS: usize = 40_000;
const SIZES: [usize; 3] = [5, 10, 30];

/// A distribution of one replication's value, with its true mean.
struct Case {
    name: &'static str,
    mean: f64,
    draw: Box<dyn Fn(&mut Xoshiro256PlusPlus) -> f64 + Sync>,
    /// Whether the 93% floor is required (else the coverage is reported only).
    required: bool,
}

fn log_normal(sigma: f64, required: bool, name: &'static str) -> Case {
    let d = LogNormal::new(0.0, sigma).unwrap();
    Case {
        name,
        mean: (sigma * sigma / 2.0).exp(),
        draw: Box::new(move |r| d.sample(r)),
        required,
    }
}

fn gamma(shape: f64, required: bool, name: &'static str) -> Case {
    let d = Gamma::new(shape, 1.0).unwrap();
    Case {
        name,
        mean: shape,
        draw: Box::new(move |r| d.sample(r)),
        required,
    }
}

/// A replication's mean wait over `jobs` jobs whose waits are 0 with probability `idle`,
/// else Pareto with tail index `alpha` (minimum 1): heavy-tailed waits, averaged.
fn mean_of_waits(alpha: f64, jobs: usize, idle: f64, required: bool, name: &'static str) -> Case {
    let d = Pareto::new(1.0, alpha).unwrap();
    Case {
        name,
        mean: (1.0 - idle) * alpha / (alpha - 1.0),
        draw: Box::new(move |r| {
            (0..jobs)
                .map(|_| if unit(r) < idle { 0.0 } else { d.sample(r) })
                .sum::<f64>()
                / jobs as f64
        }),
        required,
    }
}

fn cases() -> Vec<Case> {
    let normal = Normal::new(1.0, 0.2).unwrap();
    vec![
        Case {
            name: "normal, cv 0.2",
            mean: 1.0,
            draw: Box::new(move |r| f64::max(normal.sample(r), 1e-9)),
            required: true,
        },
        log_normal(0.25, true, "log-normal, sigma 0.25"),
        log_normal(0.5, true, "log-normal, sigma 0.5"),
        log_normal(1.0, true, "log-normal, sigma 1"),
        gamma(1.0, true, "exponential"),
        gamma(2.0, true, "gamma, shape 2"),
        mean_of_waits(2.2, 50, 0.7, true, "mean of 50 waits: 70% zero, Pareto 2.2"),
        // Beyond what the method promises; reported, with the Student-t interval beside.
        mean_of_waits(3.0, 20, 0.0, false, "mean of 20 waits, Pareto 3"),
        log_normal(1.5, false, "log-normal, sigma 1.5"),
        gamma(0.5, false, "gamma, shape 0.5"),
        mean_of_waits(2.2, 50, 0.0, false, "mean of 50 waits, Pareto 2.2"),
        mean_of_waits(1.8, 100, 0.0, false, "mean of 100 waits, Pareto 1.8"),
    ]
}

/// (coverage of `estimate`, coverage of the plain Student-t interval, share of Student-t
/// intervals that reach below 0) over `TRIALS` samples of size `n`. `estimate`'s never do:
/// it cuts at the range by construction (`src/sweep/stats.rs`' own tests).
fn coverage(case: &Case, n: usize, seed: u64) -> (f64, f64, f64) {
    let (hits, t_hits, outside) = (0..TRIALS)
        .into_par_iter()
        .map(|trial| {
            let mut rng =
                Xoshiro256PlusPlus::seed_from_u64(seed ^ (trial as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let samples: Vec<f64> = (0..n).map(|_| (case.draw)(&mut rng)).collect();
            let e = estimate(&samples, 0.95, Range::NonNegative);
            let t = estimate(&samples, 0.95, Range::Signed);
            let holds = |low: f64, high: f64| usize::from(low <= case.mean && case.mean <= high);
            (
                holds(e.ci_low, e.ci_high),
                holds(t.ci_low, t.ci_high),
                usize::from(t.ci_low < 0.0),
            )
        })
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    (
        hits as f64 / TRIALS as f64,
        t_hits as f64 / TRIALS as f64,
        outside as f64 / TRIALS as f64,
    )
}

/// 95% intervals cover the true mean at least 93% of the time on the distributions marked
/// required, and never fall more than 2 points below the Student-t interval's coverage.
#[test]
fn intervals_on_positive_metrics_hold_their_level_on_skewed_samples() {
    let mut short = Vec::new();
    println!("| distribution | n | coverage | Student-t's | Student-t below 0 |");
    println!("|---|---|---|---|---|");
    for (i, case) in cases().iter().enumerate() {
        for (j, &n) in SIZES.iter().enumerate() {
            let (covered, t_covered, below) = coverage(case, n, 1 + (i * 10 + j) as u64);
            println!(
                "| {} | {n} | {covered:.3} | {t_covered:.3} | {below:.3} |",
                case.name
            );
            if case.required && covered < 0.93 {
                short.push(format!("{} at n = {n}: {covered:.3}", case.name));
            }
            // Where no method at this n holds its level (tails too heavy), never much below
            // the Student-t interval it replaced.
            if covered < t_covered - 0.02 {
                short.push(format!(
                    "{} at n = {n}: {covered:.3}, Student-t {t_covered:.3}",
                    case.name
                ));
            }
        }
    }
    assert!(short.is_empty(), "coverage short: {short:?}");
}
