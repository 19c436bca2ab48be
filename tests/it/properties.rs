//! Property tests of the scheduling invariants on random small workloads.

use crate::common;

use proptest::prelude::*;

use schedlab::Time;
use schedlab::sched::{BackfillOrder, Conservative, Easy, Fcfs, SchedulerKind};
use schedlab::sim::{Engine, Scheduler};
use schedlab::workload::Jobs;

fn workload() -> impl Strategy<Value = (u32, Jobs)> {
    common::random_workload(16, 40)
}

/// Checks what holds for every scheduler: every job ran its whole runtime, none started
/// before it arrived, and no instant had more processors busy than the machine.
fn check_common(jobs: &Jobs, procs: u32, start: &[Time], end: &[Time]) -> Result<(), TestCaseError> {
    let mut times: Vec<Time> = start.to_vec();
    times.sort_unstable();
    times.dedup();
    for j in 0..jobs.len() {
        prop_assert!(start[j] >= jobs.submit[j], "job {} started before it arrived", j);
        prop_assert_eq!(end[j] - start[j], jobs.runtime[j]);
    }
    // Processors in use from each start instant on; a zero-runtime job holds its processors
    // only within its instant (one round), so it must fit beside the jobs running across it.
    let busy_across = |t: Time| -> u64 {
        (0..jobs.len())
            .filter(|&j| start[j] < t && t < end[j])
            .map(|j| jobs.procs[j] as u64)
            .sum()
    };
    for &t in &times {
        let busy: u64 = (0..jobs.len())
            .filter(|&j| start[j] <= t && t < end[j])
            .map(|j| jobs.procs[j] as u64)
            .sum();
        prop_assert!(busy <= procs as u64, "t={}: {} busy of {}", t, busy, procs);
        for z in (0..jobs.len()).filter(|&j| start[j] == t && end[j] == t) {
            prop_assert!(
                busy_across(t) + jobs.procs[z] as u64 <= procs as u64,
                "t={}: zero-runtime job {} over-allocates",
                t,
                z
            );
        }
    }
    Ok(())
}

fn run<S: Scheduler>(jobs: &Jobs, procs: u32, scheduler: &mut S) -> (Vec<Time>, Vec<Time>) {
    let mut engine = Engine::new().with_validation(true);
    let o = engine.run(jobs, procs, scheduler);
    (o.start.to_vec(), o.end.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn fcfs_starts_in_arrival_order((procs, jobs) in workload()) {
        let (start, end) = run(&jobs, procs, &mut Fcfs::default());
        check_common(&jobs, procs, &start, &end)?;
        prop_assert!(start.windows(2).all(|w| w[0] <= w[1]), "{:?}", start);
    }

    #[test]
    fn easy_and_sjbf_never_delay_the_head((procs, jobs) in workload()) {
        for order in [BackfillOrder::Arrival, BackfillOrder::ShortestPrediction] {
            let mut easy = Easy::new(order);
            let (start, end) = run(&jobs, procs, &mut easy);
            check_common(&jobs, procs, &start, &end)?;
            for (j, shadow) in easy.head_shadows().enumerate() {
                if let Some(shadow) = shadow {
                    prop_assert!(start[j] <= shadow, "{:?}: job {} started {} after its shadow {}", order, j, start[j], shadow);
                }
            }
        }
    }

    #[test]
    fn conservative_keeps_every_promise((procs, jobs) in workload()) {
        let mut cons = Conservative::default();
        let (start, end) = run(&jobs, procs, &mut cons);
        check_common(&jobs, procs, &start, &end)?;
        // Zero-estimate jobs reserve nothing, so they carry no promise.
        for (j, &promised) in cons.first_reservations().iter().enumerate().filter(|&(j, _)| jobs.estimate[j] > 0) {
            prop_assert!(start[j] <= promised, "job {} started {} after its reservation {}", j, start[j], promised);
        }
    }

    #[test]
    fn a_reused_engine_gives_the_same_schedule((procs, jobs) in workload(), (procs2, jobs2) in workload()) {
        for kind in SchedulerKind::on_any_jobs() {
            let mut engine = Engine::new();
            let mut scheduler = kind.build();
            let first: Vec<Time> = scheduler.run(&mut engine, &jobs, procs).start.to_vec();
            scheduler.run(&mut engine, &jobs2, procs2);
            let again: Vec<Time> = scheduler.run(&mut engine, &jobs, procs).start.to_vec();
            prop_assert_eq!(first, again, "{}", kind);
        }
    }
}
