//! Invariant checks, on in tests and debug builds: a scheduler bug fails loudly here rather
//! than producing a plausible but wrong schedule.

use super::state::{SimState, UNSET};
use crate::Time;
use crate::workload::Jobs;

/// After every pass: the free count matches the running set, every running job started no
/// earlier than it arrived (`arrivals`: the submit times, or the arrivals under feedback),
/// and its predicted end is still ahead. O(running).
pub(crate) fn check_pass(jobs: &Jobs, arrivals: &[Time], state: &SimState) {
    assert!(
        state.free <= state.total,
        "t={}: more processors free than exist",
        state.now
    );
    state.power.check(state.free, state.now);
    if !state.track_running {
        return;
    }
    state.running.check();
    let busy: u64 = state.running.iter().map(|r| r.procs as u64).sum();
    assert_eq!(
        busy + state.free as u64,
        state.total as u64,
        "t={}: free processors do not match the running jobs",
        state.now
    );
    for r in state.running.iter() {
        let j = r.job.index();
        assert!(
            r.predicted_end > state.now,
            "t={}: job {} runs past its prediction (ends {} by it)",
            state.now,
            jobs.swf_id[j],
            r.predicted_end
        );
        assert!(
            arrivals[j] != UNSET && state.start[j] >= arrivals[j],
            "job {} started at {} before it arrived at {}",
            jobs.swf_id[j],
            state.start[j],
            arrivals[j]
        );
    }
}

/// At the end of a run: every job started after it arrived and ran exactly its runtime, and
/// at no instant were more processors busy than the machine has. O(n log n).
pub(crate) fn check_schedule(jobs: &Jobs, arrivals: &[Time], state: &SimState) {
    let mut changes: Vec<(Time, i64)> = Vec::with_capacity(2 * jobs.len());
    for j in 0..jobs.len() {
        let (s, e) = (state.start[j], state.end[j]);
        assert!(s != UNSET && e != UNSET, "job {} never ran", jobs.swf_id[j]);
        assert!(
            s >= arrivals[j],
            "job {} started before it arrived",
            jobs.swf_id[j]
        );
        assert_eq!(
            e - s,
            jobs.runtime[j],
            "job {} ran the wrong time",
            jobs.swf_id[j]
        );
        changes.push((s, jobs.procs[j] as i64));
        changes.push((e, -(jobs.procs[j] as i64)));
    }
    // Sorting by (time, delta) applies the releases of an instant before its acquisitions,
    // as the engine does. A zero-runtime job nets out within its instant; while it held its
    // processors, `SimState::start` refused any start that did not fit.
    changes.sort_unstable();
    let mut busy = 0i64;
    for (t, delta) in changes {
        busy += delta;
        assert!(
            busy <= state.total as i64,
            "t={t}: {busy} processors busy on a machine of {}",
            state.total
        );
    }
}
