//! Runtime predictors inside backfilling: deadline misses, gradual increments, accuracy
//! metrics (Talby et al., equations 1 and 2), and invariants on random workloads.

use crate::common;

use proptest::prelude::*;

use schedlab::experiment::Simulate;
use schedlab::predict::PredictorKind;
use schedlab::sched::SchedulerKind;
use schedlab::sim::Engine;
use schedlab::workload::{JobRecord, Jobs};

#[test]
fn constant_predictions_grow_by_the_gradual_increments() {
    // One job of 400 s predicted at 1 s: it misses at 1, 61 and 361 s, getting predictions
    // 61 (1 + 1 min), 361 (+ 5 min) and 1261 (+ 15 min), and ends at 400.
    let jobs = Jobs::from_records(&[JobRecord::new(1, 0, 400, 1, 1000)]);
    let mut engine = Engine::new().with_validation(true);
    let mut sjbf = SchedulerKind::Sjbf.build();
    let o = sjbf.simulate(
        &mut engine,
        &jobs,
        4,
        Some(PredictorKind::Constant { c: 1 }),
        None,
    );
    assert_eq!(o.misses(0), 3);
    assert_eq!(o.prediction[0], 1261);
    assert_eq!(o.end[0], 400);
    // Equation 2: each prediction weighted by how long it held, over the 400 s life.
    let ai = (399.0 * 1.0 + 339.0 * 60.0 + 39.0 * 300.0 + 861.0 * 39.0) / 400.0;
    let ra =
        (1.0 / 400.0 * 1.0 + 61.0 / 400.0 * 60.0 + 361.0 / 400.0 * 300.0 + 400.0 / 1261.0 * 39.0) / 400.0;
    assert!(
        (o.accuracy(&jobs, 0).0 - ai).abs() < 1e-9,
        "{} vs {ai}",
        o.accuracy(&jobs, 0).0
    );
    assert!(
        (o.accuracy(&jobs, 0).1 - ra).abs() < 1e-12,
        "{} vs {ra}",
        o.accuracy(&jobs, 0).1
    );
}

#[test]
fn a_job_ending_exactly_at_its_prediction_does_not_miss() {
    let jobs = Jobs::from_records(&[JobRecord::new(1, 0, 60, 1, 100), JobRecord::new(2, 0, 61, 1, 100)]);
    let mut engine = Engine::new().with_validation(true);
    let o = SchedulerKind::Sjbf.build().simulate(
        &mut engine,
        &jobs,
        4,
        Some(PredictorKind::Constant { c: 60 }),
        None,
    );
    assert_eq!((0..2).map(|j| o.misses(j)).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(o.accuracy(&jobs, 0).1, 1.0);
    assert_eq!(o.accuracy(&jobs, 0).0, 0.0);
}

#[test]
fn a_late_running_job_moves_the_shadow_and_sjbf_follows_predictions() {
    // 4 processors, every job predicted at 10 s by constant(c=10).
    // t=0  job 1 (3 procs, runs 100 s) starts; its prediction ends at 10.
    // t=1  job 2 (4 procs) is a blocked head: shadow 10, extra 0.
    // t=2  job 3 (1 proc, runs 5 s): 2 + 10 > 10 and no extra processor: it waits.
    // t=10 job 1 misses: predicted 10 + 1 min = 70, the shadow moves to 70, and job 3
    //      (10 + 10 <= 70) is backfilled. t=70 job 1 misses again (+5 min).
    // t=100 job 1 ends, job 2 starts; it misses once at 110 (+1 min) and ends at 150.
    let jobs = Jobs::from_records(&[
        JobRecord::new(1, 0, 100, 3, 1000),
        JobRecord::new(2, 1, 50, 4, 1000),
        JobRecord::new(3, 2, 5, 1, 1000),
    ]);
    let mut engine = Engine::new().with_validation(true);
    let o = SchedulerKind::Sjbf.build().simulate(
        &mut engine,
        &jobs,
        4,
        Some(PredictorKind::Constant { c: 10 }),
        None,
    );
    assert_eq!(o.start.to_vec(), vec![0, 100, 10]);
    assert_eq!((0..3).map(|j| o.misses(j)).collect::<Vec<_>>(), [2, 1, 0]);
    assert_eq!(o.prediction.to_vec(), vec![370, 70, 10]);
    assert_eq!(o.backfilled, 1);
}

#[test]
fn perfect_predictions_never_miss_on_a_real_trace() {
    let Some(path) = common::trace("KTH-SP2-1996-2.1-cln.swf.gz") else {
        return;
    };
    let w = schedlab::workload::swf::read_swf(&path, &Default::default()).unwrap();
    let mut engine = Engine::new().with_validation(true);
    for (kind, predictor) in [
        (SchedulerKind::Sjbf, PredictorKind::Perfect),
        (SchedulerKind::EasyPred, PredictorKind::Perfect),
        (SchedulerKind::Sjbf, PredictorKind::Estimate),
    ] {
        let o = kind
            .build()
            .simulate(&mut engine, &w.jobs, w.procs, Some(predictor), None);
        assert_eq!(o.deadline_misses(0..w.jobs.len()), 0, "{kind} + {predictor}");
    }
    let o = SchedulerKind::Sjbf.build().simulate(
        &mut engine,
        &w.jobs,
        w.procs,
        Some(PredictorKind::Perfect),
        None,
    );
    let ra: f64 = (0..w.jobs.len()).map(|j| o.accuracy(&w.jobs, j).1).sum::<f64>() / w.jobs.len() as f64;
    assert!(
        (ra - 1.0).abs() < 1e-9 || w.jobs.runtime.contains(&0),
        "perfect accuracy {ra}"
    );
}

/// Each registered predictor run through the registry's dispatch (`AnyPredictor`) and
/// directly as its own type gives the same schedule, predictions and misses: the dispatch
/// forwards every hook the predictor acts on. A new predictor makes the `match` below
/// non-exhaustive until it is added.
#[test]
fn the_dispatch_forwards_every_hook_of_every_predictor() {
    use schedlab::predict::AnyPredictor;
    use schedlab::sim::{Outcome, RuntimePredictor, Scheduler};
    let records: Vec<JobRecord> = (0..400u64)
        .map(|i| {
            let runtime = 10 + (i * 7919 % 3000) as i64;
            let estimate = runtime * (1 + (i % 4) as i64);
            let mut r = JobRecord::new(i + 1, (i * 37) as i64, runtime, 1 + (i % 16) as u32, estimate);
            r.user = (i % 9) as i32;
            r.executable = (i % 5) as i32;
            r
        })
        .collect();
    let jobs = Jobs::from_records(&records);
    type Seen = (Vec<i64>, Vec<i64>, u64);
    fn seen(o: &Outcome, n: usize) -> Seen {
        (o.start.to_vec(), o.prediction.to_vec(), o.deadline_misses(0..n))
    }
    fn direct<S: Scheduler, P: RuntimePredictor>(jobs: &Jobs, s: &mut S, mut p: P) -> Seen {
        let mut engine = Engine::new().with_validation(true);
        seen(&engine.run_window(jobs, 16, s, &mut p, None), jobs.len())
    }
    let kinds = [
        "perfect",
        "estimate",
        "constant(c=60)",
        "ruh(k=2,stat=mean,prop=true)",
        "sbh(criteria=PE|P|E|*,think=600)",
        "sbh-noest(criteria=P|*,prop=true,cap=100)",
        "application",
    ];
    for text in kinds {
        let kind: PredictorKind = text.parse().unwrap();
        let mut easy = schedlab::sched::Easy::new(schedlab::sched::BackfillOrder::ShortestPrediction);
        let through = direct(&jobs, &mut easy, AnyPredictor::new(kind));
        let alone = match AnyPredictor::new(kind) {
            AnyPredictor::Perfect(p) => direct(&jobs, &mut easy, p),
            AnyPredictor::Estimate(p) => direct(&jobs, &mut easy, p),
            AnyPredictor::Constant(p) => direct(&jobs, &mut easy, p),
            AnyPredictor::Ruh(p) => direct(&jobs, &mut easy, p),
            AnyPredictor::Sbh(p) => direct(&jobs, &mut easy, p),
            AnyPredictor::Application(p) => direct(&jobs, &mut easy, p),
        };
        assert_eq!(through, alone, "{text}");
        assert!(
            through.2 > 0 || text == "perfect" || text == "estimate",
            "{text}: no miss exercised"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// With any predictor, every job runs its runtime, none starts early, no processor is
    /// over-allocated, and (checked by the validator at every pass) no running job is past
    /// its prediction; perfect predictions never miss.
    #[test]
    fn predictions_keep_the_invariants((procs, jobs) in common::random_workload(12, 50), c in 1i64..120) {
        let mut engine = Engine::new().with_validation(true);
        for kind in [SchedulerKind::Sjbf, SchedulerKind::EasyPred] {
            let median = schedlab::predict::Statistic::Median;
            let ruh = PredictorKind::Ruh { k: 2, stat: median, prop: false };
            let ruh_prop = PredictorKind::Ruh { k: 1, stat: median, prop: true };
            let session_based = [
                format!("sbh(criteria=PE|P|E|*,think={c})"),
                format!("sbh(criteria=P|*,search=bfs,depth=2,prop=false,think={c})"),
                format!("sbh-noest(criteria=P|*,prop=true,think={c},cap=100)"),
                "sbh-noest(criteria=X,growth=unbalanced)".to_string(),
            ]
            .map(|s| s.parse::<PredictorKind>().unwrap());
            let basic = [
                PredictorKind::Perfect,
                PredictorKind::Estimate,
                PredictorKind::Constant { c },
                ruh,
                ruh_prop,
                PredictorKind::Application,
            ];
            for p in basic.into_iter().chain(session_based) {
                let o = kind.build().simulate(&mut engine, &jobs, procs, Some(p), None);
                for j in 0..jobs.len() {
                    prop_assert!(o.start[j] >= jobs.submit[j]);
                    prop_assert_eq!(o.end[j] - o.start[j], jobs.runtime[j]);
                    prop_assert!((0.0..=1.0).contains(&o.accuracy(&jobs, j).1));
                }
                if p == PredictorKind::Perfect {
                    prop_assert_eq!(o.deadline_misses(0..jobs.len()), 0);
                }
            }
        }
    }
}

fn job(id: u64, user: i32, submit: i64, runtime: i64, estimate: i64) -> JobRecord {
    let mut r = JobRecord::new(id, submit, runtime, 1, estimate);
    r.user = user;
    r
}

#[test]
fn ruh_predicts_from_the_users_last_jobs_and_raises_misses_to_the_estimate() {
    // 8 processors, so every job starts on arrival. User 7 finishes jobs of 10, 40 and 20 s;
    // its 4th job (runs 50 s, estimate 100) is predicted at their median, 20 s, misses at
    // 120 and is raised to its estimate. Its 5th job (estimate 15) is predicted at
    // min(median, estimate) = 15. User 8 has no history: its job gets its estimate. With
    // k = 2 and the mean, user 7's 4th job would see (40 + 20) / 2 = 30.
    let records = [
        job(1, 7, 0, 10, 100),
        job(2, 7, 0, 40, 100),
        job(3, 7, 0, 20, 100),
        job(4, 7, 100, 50, 100),
        job(5, 7, 100, 12, 15),
        job(6, 8, 100, 5, 60),
    ];
    let jobs = Jobs::from_records(&records);
    let mut engine = Engine::new().with_validation(true);
    let ruh: PredictorKind = "ruh(k=3)".parse().unwrap();
    let o = SchedulerKind::Sjbf
        .build()
        .simulate(&mut engine, &jobs, 8, Some(ruh), None);
    assert_eq!(o.prediction.to_vec(), vec![100, 100, 100, 100, 15, 60]);
    assert_eq!(
        (0..6).map(|j| o.misses(j)).collect::<Vec<_>>(),
        [0, 0, 0, 1, 0, 0]
    );
    // Job 4: predicted 20 for its first 20 s of running (and its 0 s of waiting), then 100.
    let ai = (30.0 * 20.0 + 50.0 * 30.0) / 50.0;
    assert!(
        (o.accuracy(&jobs, 3).0 - ai).abs() < 1e-9,
        "{}",
        o.accuracy(&jobs, 3).0
    );
    let mean2: PredictorKind = "ruh(k=2,stat=mean)".parse().unwrap();
    let o = SchedulerKind::Sjbf
        .build()
        .simulate(&mut engine, &jobs, 8, Some(mean2), None);
    // The two most recent of user 7 by end time are 20 s (ends at 20) and 40 s (at 40).
    assert_eq!(o.misses(3), 1);
    let ai = (20.0 * 30.0 + 50.0 * 20.0) / 50.0;
    assert!(
        (o.accuracy(&jobs, 3).0 - ai).abs() < 1e-9,
        "{}",
        o.accuracy(&jobs, 3).0
    );
}

#[test]
fn ruh_propagation_updates_a_waiting_job_of_the_same_user() {
    // 2 processors. User 5's job 1 (2 procs, 30 s) holds the machine; its job 2 (1 proc,
    // 10 s, estimate 1000) arrives at 1 with no history, predicted at its estimate. When job
    // 1 ends at 30, propagation gives job 2 the new history, 30 s, before it starts at 30.
    let records = [job(1, 5, 0, 30, 1000), job(2, 5, 1, 10, 1000)];
    let mut records = records.to_vec();
    records[0].procs = 2;
    let jobs = Jobs::from_records(&records);
    let mut engine = Engine::new().with_validation(true);
    let with: PredictorKind = "ruh(k=1,prop=true)".parse().unwrap();
    let o = SchedulerKind::Sjbf
        .build()
        .simulate(&mut engine, &jobs, 2, Some(with), None);
    assert_eq!(o.prediction[1], 30);
    let ai = (990.0 * 29.0 + 20.0 * 10.0) / 39.0;
    assert!(
        (o.accuracy(&jobs, 1).0 - ai).abs() < 1e-9,
        "{}",
        o.accuracy(&jobs, 1).0
    );
    let without: PredictorKind = "ruh(k=1,prop=false)".parse().unwrap();
    let o = SchedulerKind::Sjbf
        .build()
        .simulate(&mut engine, &jobs, 2, Some(without), None);
    assert_eq!(o.prediction[1], 1000);
    assert_eq!(o.accuracy(&jobs, 1).0, 990.0);
}

/// Every prediction each job had, as (time, seconds), from a run of SJBF on `procs`
/// processors with `predictor`; indexed by SWF job number - 1 (records number jobs 1..=n).
fn prediction_histories(records: &[JobRecord], procs: u32, predictor: &str) -> Vec<Vec<(i64, i64)>> {
    let jobs = Jobs::from_records(records);
    let mut engine = Engine::new().with_validation(true).with_prediction_history(true);
    let p: PredictorKind = predictor.parse().unwrap();
    let o = SchedulerKind::Sjbf
        .build()
        .simulate(&mut engine, &jobs, procs, Some(p), None);
    let mut by_job = vec![Vec::new(); jobs.len()];
    for change in o.history {
        by_job[jobs.swf_id[change.job.index()] as usize - 1].push((change.at, change.prediction));
    }
    by_job
}

#[test]
fn sbh_sessions_split_at_exactly_the_think_time() {
    // 8 processors: every job starts on arrival. Searching only the current session
    // (depth=1) over any job of the user (*):
    // - user 1's job 2 arrives 1199 s after job 1 ended: same session, predicted 100 s;
    // - user 2's job 4 arrives exactly 1200 s after job 3 ended: a new session with no
    //   finished job, so its estimate (1000);
    // - user 3's job 7 arrives 2990 s after job 6 ended, but job 5 still runs: same
    //   session, predicted from job 6 (10 s).
    let records = [
        job(1, 1, 0, 100, 1000),
        job(2, 1, 1299, 100, 1000),
        job(3, 2, 0, 100, 1000),
        job(4, 2, 1300, 100, 1000),
        job(5, 3, 0, 5000, 9000),
        job(6, 3, 0, 10, 1000),
        job(7, 3, 3000, 10, 1000),
    ];
    let h = prediction_histories(&records, 8, "sbh(criteria=*,depth=1)");
    assert_eq!(h[1], [(1299, 100)]);
    assert_eq!(h[3], [(1300, 1000)]);
    assert_eq!(h[6], [(3000, 10)]);
    // Unlimited depth finds user 2's older session; a 1201 s think time keeps job 4 in it.
    assert_eq!(
        prediction_histories(&records, 8, "sbh(criteria=*)")[3],
        [(1300, 100)]
    );
    assert_eq!(
        prediction_histories(&records, 8, "sbh(criteria=*,depth=1,think=1201)")[3],
        [(1300, 100)]
    );
}

#[test]
fn sbh_depth_first_prefers_an_exact_old_match_and_breadth_first_a_recent_loose_one() {
    // User 1, 8 processors, criteria PE|*. Session 1: job 1 (4 procs, estimate 1000) runs
    // 500 s. Session 2 opens at 1700 (think time 1200): job 2 (8 procs) runs 50 s; then
    // job 3 (4 procs, estimate 1000, runs 300 s) arrives at 1800.
    // DFS: PE first, over all sessions: job 1 matches, 500 s (no miss).
    // BFS: session 2 first, over PE then *: job 2 matches *, 50 s; the job misses at 1850
    //      and is raised to its estimate.
    // Job 2 itself: no PE match anywhere, * finds job 1 (session 1), 500 s, in both orders.
    // A job of an unknown user gets its estimate.
    let mut records = vec![
        job(1, 1, 0, 500, 1000),
        job(2, 1, 1700, 50, 1000),
        job(3, 1, 1800, 300, 1000),
        job(4, -1, 1800, 300, 700),
    ];
    records[0].procs = 4;
    records[1].procs = 8;
    records[2].procs = 4;
    let dfs = prediction_histories(&records, 16, "sbh(criteria=PE|*,search=dfs)");
    let bfs = prediction_histories(&records, 16, "sbh(criteria=PE|*,search=bfs)");
    assert_eq!(dfs[2], [(1800, 500)]);
    assert_eq!(bfs[2], [(1800, 50), (1850, 1000)]);
    assert_eq!(dfs[1], [(1700, 500)]);
    assert_eq!(bfs[1], [(1700, 500)]);
    assert_eq!(dfs[3], [(1800, 700)]);
    // Without estimates, nothing known is 1 s.
    let noest = prediction_histories(&records, 16, "sbh-noest(criteria=P|*)");
    assert_eq!(noest[3][0], (1800, 1));
}

#[test]
fn sbh_propagation_updates_waiting_jobs_and_never_undoes_a_miss() {
    // 2 processors, user 5. Job 1 (2 procs, 30 s) holds the machine; job 2 (1 proc, 10 s,
    // estimate 1000) arrives at 1 with nothing finished: its estimate. When job 1 ends at
    // 30, propagation predicts job 2 from it (30 s) before it starts.
    let mut records = vec![job(1, 5, 0, 30, 1000), job(2, 5, 1, 10, 1000)];
    records[0].procs = 2;
    assert_eq!(
        prediction_histories(&records, 2, "sbh(criteria=*,prop=true)")[1],
        [(1, 1000), (30, 30)]
    );
    assert_eq!(
        prediction_histories(&records, 2, "sbh(criteria=*,prop=false)")[1],
        [(1, 1000)]
    );
    // 8 processors, user 6. Job 1 runs 10 s. Jobs 2 (300 s) and 3 (100 s) arrive at 20,
    // predicted 10 s; both miss at 30 and are raised to their estimate, 1000. Job 3 ends
    // at 120: the median is now (10 + 100) / 2 = 55 s, below job 2's 100 s of running, so
    // job 2 keeps its 1000 instead of trading it for another miss a second later.
    let records = [
        job(1, 6, 0, 10, 1000),
        job(2, 6, 20, 300, 1000),
        job(3, 6, 20, 100, 1000),
        job(4, 6, 130, 100, 1000),
    ];
    let h = prediction_histories(&records, 8, "sbh(criteria=*,prop=true)");
    assert_eq!(h[1], [(20, 10), (30, 1000)]);
    assert_eq!(h[2], [(20, 10), (30, 1000)]);
    // Job 4 arrives at 130 in the same session (job 2 still runs): the median of 10 and
    // 100; it misses at 185. When it ends at 230 the median is 100, again below job 2's
    // runtime.
    assert_eq!(h[3], [(130, 55), (185, 1000)]);
}

#[test]
fn sbh_without_estimates_multiplies_missed_predictions_by_ten() {
    // One job of 5000 s with nothing to learn from: predicted 1 s, then on each miss
    // times 10. Balanced with cap 500: times 10 up to 500, then the gradual increments
    // (the 4th and 5th misses add 30 min and 1 h).
    let records = [job(1, 1, 0, 5000, 100_000)];
    assert_eq!(
        prediction_histories(&records, 1, "sbh-noest(growth=unbalanced)")[0],
        [(0, 1), (1, 10), (10, 100), (100, 1000), (1000, 10000)]
    );
    assert_eq!(
        prediction_histories(&records, 1, "sbh-noest(growth=balanced,cap=500)")[0],
        [(0, 1), (1, 10), (10, 100), (100, 500), (500, 2300), (2300, 5900)]
    );
    // With estimates, a miss raises the prediction to the estimate first.
    assert_eq!(
        prediction_histories(&[job(1, 1, 0, 5000, 9000)], 1, "sbh")[0],
        [(0, 9000)]
    );
}

#[test]
fn application_history_averages_the_same_executable_on_the_same_processors() {
    // 8 processors: every job starts on arrival. Executable 3 on 1 processor runs 10 and
    // 30 s (users 1 and 2): a later such job, of any user, is predicted at their mean, 20 s.
    // The same executable on 2 processors is another application (no history: its
    // estimate), as is an unknown executable (-1); a prediction is never above the
    // estimate (12 s).
    let mut records = vec![
        job(1, 1, 0, 10, 100),
        job(2, 2, 0, 30, 100),
        job(3, 5, 100, 25, 100),
        job(4, 5, 100, 25, 90),
        job(5, 5, 100, 25, 80),
        job(6, 6, 100, 5, 12),
    ];
    for r in &mut records {
        r.executable = 3;
    }
    records[3].procs = 2;
    records[4].executable = -1;
    let jobs = Jobs::from_records(&records);
    let mut engine = Engine::new().with_validation(true);
    let o =
        SchedulerKind::Sjbf
            .build()
            .simulate(&mut engine, &jobs, 8, Some(PredictorKind::Application), None);
    // Job 3 (25 s) was predicted 20 s and missed: raised to its estimate.
    assert_eq!(o.prediction.to_vec(), vec![100, 100, 100, 90, 80, 12]);
    assert_eq!(
        (0..6).map(|j| o.misses(j)).collect::<Vec<_>>(),
        [0, 0, 1, 0, 0, 0]
    );
    // |25 - 20| for the 20 s the first prediction held, |25 - 100| for the last 5 s.
    let ai = (5.0 * 20.0 + 75.0 * 5.0) / 25.0;
    assert!(
        (o.accuracy(&jobs, 2).0 - ai).abs() < 1e-9,
        "{}",
        o.accuracy(&jobs, 2).0
    );
    assert_eq!(
        "application".parse::<PredictorKind>().unwrap().to_string(),
        "application"
    );
}
