//! Feedback (SWF fields 17 and 18): a job that names a preceding job arrives its think time
//! after that job ends, in the schedule being simulated. A golden scenario worked out by
//! hand, and a property test over random dependencies under every scheduler with the
//! engine's validator on.

// Struct-of-arrays checks walk several columns with one index.
#![allow(clippy::needless_range_loop)]

use crate::common;

use proptest::prelude::*;

use schedlab::Time;
use schedlab::sched::SchedulerKind;
use schedlab::sim::feedback::NONE;
use schedlab::sim::{Dependencies, Engine};
use schedlab::workload::{JobRecord, Jobs};

/// Four processors. Job 1 (4 procs) runs 0-100; job 2 (1 proc) arrives at 10 and waits for
/// it; job 3 (1 proc) is logged at 50 but names job 1 as its predecessor with 20 s of think
/// time. Without feedback FCFS starts jobs 2 and 3 together at 100; with it, job 3 arrives
/// at 120 and starts then.
#[test]
fn a_dependent_job_arrives_after_its_predecessor_ends_by_hand() {
    let mut records = vec![
        JobRecord::new(1, 0, 100, 4, 100),
        JobRecord::new(2, 10, 10, 1, 10),
        JobRecord::new(3, 50, 10, 1, 10),
    ];
    records[2].preceding_job = 1;
    records[2].think_time = 20;
    let jobs = Jobs::from_records(&records);
    let (deps, ignored) = Dependencies::from_jobs(&jobs);
    assert_eq!(
        (deps.after.clone(), deps.think.clone(), ignored),
        (vec![NONE, NONE, 0], vec![0, 0, 20], 0)
    );
    let mut engine = Engine::new().with_validation(true);
    let mut fcfs = SchedulerKind::Fcfs.build();
    assert_eq!(fcfs.run(&mut engine, &jobs, 4).start, &[0, 100, 100]);
    engine.set_feedback(Some(deps));
    let outcome = fcfs.run(&mut engine, &jobs, 4);
    assert_eq!(outcome.start, &[0, 100, 120]);
    assert_eq!(outcome.arrivals, Some(&[0, 10, 120][..]));
    engine.set_feedback(None);
    assert_eq!(fcfs.run(&mut engine, &jobs, 4).arrivals, None);
}

/// A preceding job that is not an earlier job of the table is ignored and counted.
#[test]
fn unknown_or_later_predecessors_are_ignored() {
    let mut records = vec![JobRecord::new(1, 0, 10, 1, 10), JobRecord::new(2, 5, 10, 1, 10)];
    records[0].preceding_job = 2;
    records[1].preceding_job = 99;
    let (deps, ignored) = Dependencies::from_jobs(&Jobs::from_records(&records));
    assert_eq!((deps.dependents(), ignored), (0, 2));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random dependencies under every scheduler: the validator finds no broken invariant,
    /// independent jobs arrive at their submit times, each dependent job its think time after
    /// its predecessor's end, and every job runs its runtime.
    #[test]
    fn dependents_arrive_after_their_predecessors((procs, jobs) in common::random_workload(16, 40),
                                                  links in proptest::collection::vec((0.0f64..1.0, 0u32..40, 0i64..500), 40)) {
        let n = jobs.len();
        let mut deps = Dependencies { after: vec![NONE; n], think: vec![0; n] };
        for j in 1..n {
            let (p, back, think) = links[j];
            if p < 0.4 {
                deps.after[j] = j as u32 - 1 - back % j as u32;
                deps.think[j] = think;
            }
        }
        for kind in SchedulerKind::on_any_jobs() {
            let mut engine = Engine::new().with_validation(true);
            engine.set_feedback(Some(deps.clone()));
            let o = kind.build().run(&mut engine, &jobs, procs);
            let arrivals = o.arrivals.expect("a feedback run reports its arrivals");
            for j in 0..n {
                let expected: Time = match deps.after[j] {
                    NONE => jobs.submit[j],
                    a => o.end[a as usize] + deps.think[j],
                };
                prop_assert_eq!(arrivals[j], expected, "{} job {}", kind, j);
                prop_assert!(o.start[j] >= arrivals[j]);
                prop_assert_eq!(o.end[j] - o.start[j], jobs.runtime[j]);
            }
        }
    }
}

/// `feedback = true` on a trace: sessions read from the log's times, replayed by the engine
/// (job 1 ends 30 s sooner than in the log, so its user's next job arrives 30 s sooner than
/// logged), and the summary's waits measured from the arrivals.
#[test]
fn a_trace_run_with_feedback_reads_sessions_and_measures_from_arrivals() {
    let dir = common::scratch("feedback");
    let path = dir.join("sessions.swf");
    // id submit wait runtime procs cpu mem req_procs req_time req_mem status user ...
    std::fs::write(
        &path,
        "; MaxProcs: 2\n\
         1 0 30 100 1 -1 -1 1 100 -1 1 7 1 1 1 1 -1 -1\n\
         2 0 0 300 1 -1 -1 1 300 -1 1 8 1 1 1 1 -1 -1\n\
         3 50 0 10 2 -1 -1 2 10 -1 1 9 1 1 1 1 -1 -1\n\
         4 150 0 10 1 -1 -1 1 10 -1 1 7 1 1 1 1 -1 -1\n",
    )
    .unwrap();
    let mut params = schedlab::experiment::Params::default();
    params.insert(
        "trace",
        schedlab::experiment::Value::Str(path.display().to_string()),
    );
    params.insert("scheduler", schedlab::experiment::Value::Str("fcfs".into()));
    params.insert("feedback", schedlab::experiment::Value::Bool(true));
    let rigid =
        schedlab::experiment::rigid::from_params(&params, schedlab::experiment::Sources::default(), None)
            .unwrap();
    assert!(rigid.workload.feedback);
    let shared = &mut schedlab::experiment::Shared::new([&rigid.workload], false);
    let prepared = rigid.prepare(shared, None).unwrap();
    let workload = prepared.workload.draw(1).unwrap();
    // Job 4 follows job 1 (user 7): in the log job 1 waited 30 s and ended at 130; job 4
    // was submitted at 150.
    assert_eq!(workload.jobs.preceding_job, vec![-1, -1, -1, 1]);
    assert_eq!(workload.jobs.think_time, vec![-1, -1, -1, 20]);
    // FCFS: jobs 1 and 2 start at 0; job 3 (2 procs) waits for both, until 300; job 4
    // arrives at 100 + 20 = 120 but is behind job 3 in the queue: it starts at 310.
    let mut engine = schedlab::experiment::Worker::with_engine(Engine::new().with_validation(true));
    let outcome = prepared.simulate(&mut engine, &workload, 1);
    assert_eq!(outcome.start, &[0, 0, 300, 310]);
    assert_eq!(outcome.arrivals, Some(&[0, 0, 50, 120][..]));
    let mut worker = schedlab::experiment::Worker::new();
    let summary = prepared.run(1, &mut worker).unwrap().summary.unwrap();
    // Waits 0, 0, 250 and 190.
    assert_eq!(summary.mean_wait, 110.0);
    std::fs::remove_dir_all(&dir).unwrap();
}
