//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use schedlab::Time;
use schedlab::sched::{AnyScheduler, SchedulerKind};
use schedlab::sim::Engine;
use schedlab::workload::Workload;

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

/// Runs `kind` on `workload` with the validator on; returns start and end times.
pub fn simulate(workload: &Workload, kind: SchedulerKind) -> (Vec<Time>, Vec<Time>) {
    let mut engine = Engine::new().with_validation(true);
    let mut scheduler: AnyScheduler = kind.build();
    let outcome = scheduler.run(&mut engine, &workload.jobs, workload.procs);
    (outcome.start.to_vec(), outcome.end.to_vec())
}
