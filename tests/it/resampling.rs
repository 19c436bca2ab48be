//! User-based resampling (Zakay & Feitelson) on the four logs in `../shared/traces` that
//! carry user ids (skipped, with a message, when absent): resampled workloads keep the
//! log's marginals (sizes, runtimes, estimate accuracy, jobs per user, daily cycle), as
//! Kolmogorov-Smirnov distances; seeds differ and a seed repeats.

use crate::common;

use std::collections::HashMap;

use common::ks;
use schedlab::workload::Jobs;
use schedlab::workload::resample::UserResampling;
use schedlab::workload::swf::{SwfOptions, read_swf};

const LOGS: [&str; 4] = [
    "KTH-SP2-1996-2.1-cln.swf.gz",
    "CTC-SP2-1996-3.1-cln.swf.gz",
    "SDSC-SP2-1998-4.2-cln.swf.gz",
    "SDSC-BLUE-2000-4.2-cln.swf.gz",
];

/// The marginals compared, by name.
fn marginals(j: &Jobs) -> Vec<(&'static str, Vec<f64>)> {
    let mut per_user: HashMap<i32, f64> = HashMap::new();
    for &u in &j.user {
        *per_user.entry(u).or_default() += 1.0;
    }
    let n = j.len();
    vec![
        ("size", j.procs.iter().map(|&p| p as f64).collect()),
        ("runtime", j.runtime.iter().map(|&r| r as f64).collect()),
        (
            "accuracy",
            (0..n)
                .map(|i| j.runtime[i] as f64 / j.estimate[i].max(1) as f64)
                .collect(),
        ),
        ("jobs per user", per_user.into_values().collect()),
        (
            "time of day",
            j.submit.iter().map(|s| (s % 86_400) as f64).collect(),
        ),
        (
            "day of week",
            j.submit
                .iter()
                .map(|s| (s % (7 * 86_400) / 86_400) as f64)
                .collect(),
        ),
    ]
}

#[test]
fn resampled_logs_keep_the_marginals() {
    for name in LOGS {
        let Some(path) = common::trace(name) else { return };
        let log = read_swf(&path, &SwfOptions::default()).unwrap().jobs;
        let r = UserResampling::default();
        let before = marginals(&log);
        for seed in 1..=3 {
            let drawn = r.resample(&log, seed);
            let ratio = drawn.len() as f64 / log.len() as f64;
            println!(
                "{name} seed {seed}: {} jobs ({ratio:.3} of the log's)",
                drawn.len()
            );
            assert!((ratio - 1.0).abs() < 0.12, "{name}: {ratio}");
            for ((what, a), (_, b)) in marginals(&drawn).iter().zip(&before) {
                let d = ks(a, b);
                println!("  {what}: KS {d:.4}");
                // Jobs per user: temporary users are drawn with replacement, so their
                // counts resample the log's; the rest are the log's jobs themselves.
                let bound = if *what == "jobs per user" { 0.12 } else { 0.05 };
                assert!(d < bound, "{name} seed {seed}: KS of {what} {d}");
            }
        }
        assert!(r.resample(&log, 1).submit == r.resample(&log, 1).submit);
        assert!(r.resample(&log, 1).user != r.resample(&log, 2).user);
    }
}
