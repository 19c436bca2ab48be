//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use proptest::prelude::*;
use schedlab::Time;
use schedlab::sched::{AnyScheduler, SchedulerKind};
use schedlab::sim::Engine;
use schedlab::workload::{JobRecord, Jobs, Workload};

/// A fresh folder for one test's files, `schedlab-TAG-PID` in the system's temporary
/// folder (emptied first): each test names its own tag, so tests running at once in
/// this process never share one.
pub fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `../shared/traces/NAME` if the folder is present; otherwise prints why the test is skipped.
pub fn trace(name: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
    let path = dir.join(name);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "SKIPPED: {} is absent (real traces live in ../shared/traces)",
            path.display()
        );
        None
    }
}

/// Kolmogorov-Smirnov distance between two samples (ties handled: the CDFs are compared
/// after every distinct value).
pub fn ks(a: &[f64], b: &[f64]) -> f64 {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (mut i, mut j, mut d) = (0, 0, 0f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / a.len() as f64 - j as f64 / b.len() as f64).abs());
    }
    d
}

/// Runs `kind` on `workload` with the validator on; returns start and end times.
pub fn simulate(workload: &Workload, kind: SchedulerKind) -> (Vec<Time>, Vec<Time>) {
    let mut engine = Engine::new().with_validation(true);
    let mut scheduler: AnyScheduler = kind.build();
    let outcome = scheduler.run(&mut engine, &workload.jobs, workload.procs);
    (outcome.start.to_vec(), outcome.end.to_vec())
}

/// A random workload of up to `max_jobs` jobs on 1 to `max_procs` processors: ties at one
/// instant, zero runtimes, estimates below the runtime (killed jobs), exact and generous
/// estimates, and estimates of 0; three users.
pub fn random_workload(max_procs: u32, max_jobs: usize) -> impl Strategy<Value = (u32, Jobs)> {
    (1u32..=max_procs).prop_flat_map(move |procs| {
        let job = (0i64..15, 0i64..60, 1u32..=procs, 0u8..4, 0i64..60);
        prop::collection::vec(job, 1..max_jobs).prop_map(move |specs| {
            let mut t = 0;
            let records: Vec<JobRecord> = specs
                .into_iter()
                .enumerate()
                .map(|(i, (gap, runtime, p, kind, slack))| {
                    t += if gap < 5 { 0 } else { gap };
                    let estimate = match kind {
                        0 => runtime,
                        1 => runtime + slack,
                        2 => (runtime - slack).max(0),
                        _ => slack,
                    };
                    let mut r = JobRecord::new(i as u64 + 1, t, runtime, p, estimate);
                    // A few users, so history-based predictors have histories to use.
                    r.user = (slack % 3) as i32;
                    r
                })
                .collect();
            (procs, Jobs::from_records(&records))
        })
    })
}
