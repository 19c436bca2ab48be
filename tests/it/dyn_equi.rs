//! A second DYN-EQUI, simulated a different way, against the simulator's: fixed time steps
//! instead of events, each step's shares from the water level in closed form instead of
//! the round-robin of `equipartition`. Where both read the rule the same way (all P
//! processors divided as equally as possible among the jobs present, in arrival order,
//! earlier jobs taking the odd ones, none above p_max; a job progresses at 1 / T(p)), their
//! mean response and wait agree to within the steps' error, at every load of the paper
//! (issue 39 asked whether the 90% difference with an independent implementation is the
//! simulator's).

use schedlab::partition::{Measure, MoldableJob, MoldableWorkload, Policy, generate, simulate};

/// Shares of `procs` among jobs with caps `caps` (arrival order): the largest level L with
/// sum min(cap, L) <= procs gives each min(cap, L); what is left goes one each to the
/// earliest jobs whose cap is above L.
fn level_shares(procs: u32, caps: &[u32]) -> Vec<u32> {
    let given = |level: u32| caps.iter().map(|&c| c.min(level)).sum::<u32>();
    let top = caps.iter().copied().max().unwrap_or(0);
    let level = (0..=top).rev().find(|&l| given(l) <= procs).unwrap_or(0);
    let mut left = procs - given(level);
    caps.iter()
        .map(|&c| {
            let extra = u32::from(c > level && left > 0);
            left -= extra;
            c.min(level) + extra
        })
        .collect()
}

/// [`level_shares`] as real shares: the simulator's rule.
fn simulator_shares(procs: u32, caps: &[u32]) -> Vec<f64> {
    level_shares(procs, caps).into_iter().map(f64::from).collect()
}

/// [`simulator_shares`] with the odd processors to the latest jobs instead: a rule the
/// comparison below must tell apart.
fn latest_first_shares(procs: u32, caps: &[u32]) -> Vec<f64> {
    let reversed: Vec<u32> = caps.iter().rev().copied().collect();
    let mut shares = simulator_shares(procs, &reversed);
    shares.reverse();
    shares
}

/// Real-valued shares (time-sharing): each job min(p_max, L), the real level L with
/// sum min(cap, L) = P (or every cap), found by bisection.
fn fractional_shares(procs: u32, caps: &[u32]) -> Vec<f64> {
    let given = |l: f64| caps.iter().map(|&c| (c as f64).min(l)).sum::<f64>();
    let (mut lo, mut hi) = (0.0, procs as f64);
    if given(hi) <= procs as f64 {
        lo = hi;
    }
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if given(mid) <= procs as f64 {
            lo = mid
        } else {
            hi = mid
        }
    }
    caps.iter().map(|&c| (c as f64).min(lo)).collect()
}

/// Whole processors, min(p_max, floor(P / n)) each (beyond P jobs, one each to the first
/// P, else nothing would run); what caps and rounding leave stays idle.
fn floor_shares(procs: u32, caps: &[u32]) -> Vec<f64> {
    let each = (procs / caps.len().max(1) as u32).max(1);
    caps.iter()
        .enumerate()
        .map(|(i, &c)| {
            if i < procs as usize {
                c.min(each) as f64
            } else {
                0.0
            }
        })
        .collect()
}

/// Mean response and wait, seconds, over the jobs `measured`, stepping time by `dt` with
/// each step's shares from `shares_of` (T(p) at real p, W / p + alpha + beta p): a job
/// arriving within a step joins at its end; a job whose remaining fraction runs out within
/// a step ends at the instant it did, at the step's shares.
fn stepped(
    jobs: &[MoldableJob],
    procs: u32,
    dt: f64,
    shares_of: fn(u32, &[u32]) -> Vec<f64>,
    measured: std::ops::Range<usize>,
) -> (f64, f64) {
    let n = jobs.len();
    let mut remaining = vec![1.0f64; n];
    let mut start = vec![f64::NAN; n];
    let mut end = vec![f64::NAN; n];
    let (mut present, mut next, mut t) = (Vec::<usize>::new(), 0usize, 0.0f64);
    while next < n || !present.is_empty() {
        while next < n && jobs[next].arrival <= t {
            present.push(next);
            next += 1;
        }
        let caps: Vec<u32> = present.iter().map(|&j| jobs[j].p_max).collect();
        let shares = shares_of(procs, &caps);
        for (&j, &p) in present.iter().zip(&shares) {
            if p <= 0.0 {
                continue;
            }
            if start[j].is_nan() {
                start[j] = t;
            }
            let job = &jobs[j];
            let rate = 1.0 / (job.work / p + job.alpha + job.beta * p);
            if remaining[j] <= rate * dt {
                end[j] = t + remaining[j] / rate;
                remaining[j] = 0.0;
            } else {
                remaining[j] -= rate * dt;
            }
        }
        present.retain(|&j| remaining[j] > 0.0);
        t += dt;
    }
    let count = measured.len() as f64;
    let mean = |f: &dyn Fn(usize) -> f64| measured.clone().map(f).sum::<f64>() / count;
    (
        mean(&|j| end[j] - jobs[j].arrival),
        mean(&|j| start[j] - jobs[j].arrival),
    )
}

#[test]
fn level_shares_by_hand() {
    // 10 among caps 2, 8, 8: level 4 gives 2, 4, 4; 0 left.
    assert_eq!(level_shares(10, &[2, 8, 8]), [2, 4, 4]);
    // 11: the odd one to the earliest job above the level.
    assert_eq!(level_shares(11, &[2, 8, 8]), [2, 5, 4]);
    // More jobs than processors: the later ones get none.
    assert_eq!(level_shares(2, &[4, 4, 4]), [1, 1, 0]);
    // Every cap reached: the rest stays idle.
    assert_eq!(level_shares(32, &[1, 2]), [1, 2]);
}

#[test]
fn a_time_stepped_dyn_equi_agrees_with_the_simulator_at_every_load() {
    let jobs_per_run = if cfg!(debug_assertions) { 40 } else { 120 };
    let mut worst: f64 = 0.0;
    for workload in [MoldableWorkload::Wk1, MoldableWorkload::Wk3] {
        for load in [0.5, 0.9] {
            for seed in 1..=2 {
                let jobs = generate(workload, 32, load, jobs_per_run, seed);
                let measure = Measure {
                    warmup: 0,
                    window: jobs.len(),
                    saturation: None,
                };
                let events = simulate(&jobs, 32, Policy::DYN_EQUI, &measure);
                // A step of 1/20,000 of a job's mean sequential time.
                let dt = workload.mean_sequential_time() / 20_000.0;
                let (response, wait) = stepped(&jobs, 32, dt, simulator_shares, 0..jobs.len());
                let gap = (response - events.response).abs() / events.response;
                worst = worst.max(gap);
                assert!(
                    gap < 2e-3,
                    "{workload:?} at {load}, seed {seed}: mean response {} by events, {response} by steps",
                    events.response
                );
                assert!(
                    (wait - events.wait).abs() <= 2e-3 * events.response,
                    "{workload:?} at {load}, seed {seed}: mean wait {} by events, {wait} by steps",
                    events.wait
                );
            }
        }
    }
    println!("largest relative gap in mean response: {worst:.2e}");
}

#[test]
fn the_comparison_tells_a_different_rule_apart() {
    // The same runs' tolerance, 2e-3, against the odd processors given to the latest jobs:
    // 0.45% off on this run.
    let jobs = generate(MoldableWorkload::Wk1, 32, 0.9, 120, 1);
    let measure = Measure {
        warmup: 0,
        window: jobs.len(),
        saturation: None,
    };
    let events = simulate(&jobs, 32, Policy::DYN_EQUI, &measure);
    let dt = MoldableWorkload::Wk1.mean_sequential_time() / 20_000.0;
    let (response, _) = stepped(&jobs, 32, dt, latest_first_shares, 0..jobs.len());
    let gap = (response - events.response).abs() / events.response;
    assert!(
        gap > 2e-3,
        "a different rule came within {gap:.1e} of the simulator"
    );
}

/// The experiment behind results/anastasiadis-sevcik's paragraph on DYN-EQUI at 90%: its
/// mean response under each reading (the share functions above), on the paper's 20,000-job runs, 10 seeds per
/// workload. `cargo test --release --test it dyn_equi:: -- --ignored --nocapture`.
#[test]
#[ignore]
fn readings_of_dyn_equi_at_90_percent() {
    println!(
        "| workload | simulator (events) | simulator's rule, stepped | fractional shares | floor(P/n), no redistribution |"
    );
    println!("|---|---|---|---|---|");
    for workload in [
        MoldableWorkload::Wk1,
        MoldableWorkload::Wk2,
        MoldableWorkload::Wk3,
        MoldableWorkload::Wk4,
    ] {
        let dt = workload.mean_sequential_time() / 500.0;
        let mut sums = [0.0f64; 4];
        let seeds = 1..=10u64;
        for seed in seeds.clone() {
            let jobs = generate(workload, 32, 0.9, 20_000, seed);
            let measure = Measure {
                warmup: 500,
                window: 19_500,
                saturation: None,
            };
            sums[0] += simulate(&jobs, 32, Policy::DYN_EQUI, &measure).response;
            for (k, shares_of) in [simulator_shares, fractional_shares, floor_shares]
                .into_iter()
                .enumerate()
            {
                sums[k + 1] += stepped(&jobs, 32, dt, shares_of, 500..20_000).0;
            }
        }
        let n = seeds.count() as f64;
        println!(
            "| {workload:?} | {:.1} | {:.1} | {:.1} | {:.1} |",
            sums[0] / n,
            sums[1] / n,
            sums[2] / n,
            sums[3] / n
        );
    }
}
