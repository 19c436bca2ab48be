//! A power cap that changes over time (`power_cap_series`, `schedlab::sched::capped`): a
//! scenario computed by hand; a constant series schedules job for job as the constant cap
//! (`power_cap`) on real logs, under every scheduler built for it; on random jobs and
//! series, the busy cores never exceed the cap's (computed here from the schedule) and the
//! time over the cap is zero; and the refusals.

use crate::common;
use crate::machine::{Job, experiment, refusal, run_with_power, swf_line};

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use schedlab::experiment::{Shared, Value, Worker};
use schedlab::sim::Engine;

/// `count` one-core nodes at 100 W idle and 200 W busy: 100 W more per busy core.
fn machine(dir: &Path, count: u32) -> PathBuf {
    let path = dir.join(format!("cap-{count}.toml"));
    std::fs::write(
        &path,
        format!(
            "[[partition]]\nname = \"p\"\ndefault = true\n[[partition.nodes]]\ncount = {count}\ncores = 1\n\
             idle_w = 100\nbusy_w = 200\n"
        ),
    )
    .unwrap();
    path
}

/// A trace of `jobs` (partition 1) on `procs` processors.
fn trace(dir: &Path, name: &str, jobs: &[Job], procs: u32) -> PathBuf {
    let mut text = format!("; MaxProcs: {procs}\n");
    for (i, &job) in jobs.iter().enumerate() {
        swf_line(&mut text, i + 1, job);
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A cap series of `(time, fraction)` rows.
fn series(dir: &Path, name: &str, rows: &[(i64, f64)]) -> PathBuf {
    let mut text = String::from("time,fraction\n");
    for (t, f) in rows {
        text.push_str(&format!("{t},{f}\n"));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn key(path: &Path) -> Value {
    Value::Str(path.display().to_string())
}

/// Four one-core nodes (400 W idle, 800 W busy), capped at all of the peak, then at 75%
/// (600 W: two busy cores) from 100 to 200 s. A (4 cores, 0-50 s); B (3 cores, 150 s,
/// submitted at 10) fits for its whole estimate only from 200, when the cap rises again;
/// C (2 cores, 30 s, at 20) and D (2 cores, 100 s, at 60).
/// - EASY and conservative: B is reserved at 200; C starts at 50 when A ends (it ends by
///   80, well before the cap falls); D at 60 fits beside C until 80, and alone within the
///   two cores the cap leaves from 100 to 160.
/// - FCFS: nothing passes B; at 200 B takes 3 of the 4 cores, so C and D wait for its end
///   at 350.
///
/// Energy (EASY): 400 W x 350 s, and 100 W per busy core-second (A 200, B 450, C 60, D
/// 200): 140,000 + 91,000 = 231,000 J. Never above the cap.
#[test]
fn a_cap_over_time_by_hand() {
    let dir = common::scratch("cap-by-hand");
    let jobs: [Job; 4] = [
        (0, 50, 4, 50, 1, 1),
        (10, 150, 3, 150, 1, 1),
        (20, 30, 2, 30, 1, 1),
        (60, 100, 2, 100, 1, 1),
    ];
    let swf = trace(&dir, "t.swf", &jobs, 4);
    let m = machine(&dir, 4);
    let cap = series(&dir, "cap.csv", &[(0, 1.0), (100, 0.75), (200, 1.0)]);
    let backfilled = vec![(0, 50), (200, 350), (50, 80), (60, 160)];
    let fcfs = vec![(0, 50), (200, 350), (350, 380), (350, 450)];
    for (scheduler, expected) in [
        ("easy", &backfilled),
        ("sjbf", &backfilled),
        ("conservative", &backfilled),
        ("fcfs", &fcfs),
    ] {
        let (schedule, energy, power) =
            run_with_power(&swf, &m, scheduler, &[("power_cap_series", key(&cap))]);
        assert_eq!(&schedule, expected, "{scheduler}");
        assert_eq!(energy.over_cap_s, Some(0), "{scheduler}");
        // The power steps stay within the cap's watts at each step's time.
        for &(t, w) in &power {
            let cap_w = if (100..200).contains(&t) { 600.0 } else { 800.0 };
            assert!(w <= cap_w + 1e-9, "{scheduler}: {w} W at {t}");
        }
        if scheduler == "easy" {
            assert!(
                (energy.energy_kwh - 231_000.0 / 3.6e6).abs() < 1e-12,
                "{energy:?}"
            );
        }
    }
    // A last row that leaves two cores: A and B, asking four and three, could never start
    // once it holds; they are skipped and counted, as under a constant cap.
    let low = series(&dir, "low.csv", &[(0, 1.0), (100, 0.75)]);
    let rigid = experiment(
        &swf,
        "easy",
        &[("machine", key(&m)), ("power_cap_series", key(&low))],
    );
    let prepared = rigid.prepare(&mut Shared::default(), None).unwrap();
    let workload = prepared.workload.draw(1).unwrap();
    assert_eq!(workload.jobs.len(), 2);
    assert_eq!(workload.skipped.exceeds_power_cap, 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A series of one row is a constant cap: on KTH's and CTC's logs, each on its own
/// machine's nodes (100 and 430) capped at 80% of the peak (60 and 258 busy cores), every
/// scheduler built under a cap over time gives the schedule and the energy of `power_cap`
/// at the same share (the one-pool schedulers of `easy.rs`, `fcfs.rs` and
/// `conservative.rs` on the capped pool). Debug builds replay the first 2,000 jobs, release
/// builds 20,000.
#[test]
fn a_constant_series_is_the_constant_cap() {
    let first = if cfg!(debug_assertions) { 2_000 } else { 20_000 };
    for (name, nodes) in [
        ("KTH-SP2-1996-2.1-cln.swf.gz", 100),
        ("CTC-SP2-1996-3.1-cln.swf.gz", 430),
    ] {
        let Some(trace) = common::trace(name) else {
            continue;
        };
        let dir = common::scratch(&format!("cap-constant-{nodes}"));
        let m = machine(&dir, nodes);
        let constant = series(&dir, "constant.csv", &[(0, 0.8)]);
        for scheduler in ["fcfs", "easy", "sjbf", "conservative"] {
            let with = |cap: (&str, Value)| {
                run_with_power(&trace, &m, scheduler, &[cap, ("first", Value::Int(first))])
            };
            let (a, energy_a, power_a) = with(("power_cap", Value::Float(0.8)));
            let (b, energy_b, power_b) = with(("power_cap_series", key(&constant)));
            assert!(a == b, "{name}: {scheduler}: the schedules differ");
            assert_eq!(energy_a, energy_b, "{scheduler}");
            assert_eq!(power_a, power_b, "{scheduler}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// The cores a cap of `fraction` of the peak leaves on 8 nodes of 100 W idle and 200 W busy
/// (100 W more per busy core above an 800 W idle draw): `floor(8 x (2f - 1))`.
fn cores_of(fraction: f64) -> u32 {
    ((8.0 * (2.0 * fraction - 1.0)) * (1.0 + 1e-9)).floor() as u32
}

/// The cap's fraction at `t` of `rows` read at `t + offset`, repeated every `period` from
/// the first row's time if given: computed here, apart from the library's reading.
fn fraction_at(rows: &[(i64, f64)], period: Option<i64>, offset: i64, t: i64) -> f64 {
    let at = t + offset;
    let at = match period {
        Some(p) => rows[0].0 + (at - rows[0].0).rem_euclid(p),
        None => at,
    };
    rows[rows.partition_point(|r| r.0 <= at).saturating_sub(1)].1
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(debug_assertions) { 24 } else { 96 },
        ..ProptestConfig::default()
    })]

    /// Random jobs on 8 nodes under a random cap: each row between 9/16 and all of the
    /// peak (1 to 8 cores), read once or repeated every 100 to 800 s, with an offset. Under
    /// FCFS, EASY, SJBF and conservative (the engine's validator on), every job kept ends,
    /// no instant has more busy cores than the cap leaves (computed here from the schedule
    /// and the rows), and the time over the cap is zero. Jobs the cap never holds are
    /// skipped; estimates may be 0.
    #[test]
    fn busy_cores_stay_within_the_cap(
        jobs in prop::collection::vec((0i64..400, 0i64..120, 1u32..=8, 0i64..60), 1..40),
        steps in prop::collection::vec((1i64..600, 9u32..=16), 0..6),
        repeat in prop::option::of(100i64..800),
        offset in -500i64..500,
    ) {
        let dir = common::scratch("cap-property");
        let jobs: Vec<Job> = {
            // One job that every cap holds (a core for 10 s), so that some job is left to
            // simulate when the cap never holds the others.
            let mut sorted = jobs.clone();
            sorted.push((0, 10, 1, 0));
            sorted.sort_by_key(|j| j.0);
            sorted.iter().map(|&(s, r, p, extra)| (s, r, p, r + extra, 1, 1)).collect()
        };
        let swf = trace(&dir, "t.swf", &jobs, 8);
        let m = machine(&dir, 8);
        let mut rows: Vec<(i64, f64)> = vec![(0, 1.0)];
        let mut times: Vec<(i64, u32)> = steps;
        times.sort_by_key(|s| s.0);
        times.dedup_by_key(|s| s.0);
        rows.extend(times.iter().map(|&(t, sixteenths)| (t, sixteenths as f64 / 16.0)));
        // Read once, the last row frees every core; repeated, the rows span less than the
        // period.
        let period = repeat.map(|p| p.max(rows[rows.len() - 1].0 + 1));
        if period.is_none() {
            rows.push((700, 1.0));
        }
        let cap = series(&dir, "cap.csv", &rows);
        let mut keys = vec![
            ("machine", key(&m)),
            ("power_cap_series", key(&cap)),
            ("power_cap_offset", Value::Int(offset)),
        ];
        keys.extend(period.map(|p| ("power_cap_period", Value::Int(p))));
        for scheduler in ["fcfs", "easy", "sjbf", "conservative"] {
            let rigid = experiment(&swf, scheduler, &keys);
            let prepared = rigid.prepare(&mut Shared::default(), None).unwrap();
            let workload = prepared.workload.draw(1).unwrap();
            let mut worker = Worker::with_engine(Engine::new().with_validation(true));
            let outcome = prepared.simulate(&mut worker, &workload, 1);
            prop_assert!(!outcome.saturated);
            // Busy cores at every second of the run, against the cap's cores then.
            let n = workload.jobs.len();
            let first = outcome.start[..n].iter().copied().min().unwrap_or(0);
            let last = outcome.end[..n].iter().copied().max().unwrap_or(0);
            let mut change = vec![0i64; (last - first + 1).max(1) as usize];
            for j in 0..n {
                change[(outcome.start[j] - first) as usize] += workload.jobs.procs[j] as i64;
                change[(outcome.end[j] - first) as usize] -= workload.jobs.procs[j] as i64;
            }
            let mut busy = 0;
            for (i, delta) in change.iter().enumerate() {
                busy += delta;
                let t = first + i as i64;
                let cores = cores_of(fraction_at(&rows, period, offset, t)) as i64;
                prop_assert!(busy <= cores, "{}: {} cores busy at {}, the cap leaves {}", scheduler, busy, t, cores);
            }
            let all = 0..n;
            let energy = prepared
                .summarise(&workload.jobs, workload.procs, &outcome, all, &workload.skipped)
                .energy;
            if let Some(energy) = energy {
                prop_assert_eq!(energy.over_cap_s, Some(0), "{}", scheduler);
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// What a cap over time is not built for, or cannot be, is refused with the key named.
#[test]
fn a_cap_over_time_is_refused_where_not_built() {
    let dir = common::scratch("cap-refused");
    let swf = trace(&dir, "t.swf", &[(0, 10, 1, 10, 1, 1)], 4);
    let m = machine(&dir, 4);
    let cap = series(&dir, "cap.csv", &[(0, 1.0), (100, 0.75)]);
    let with = |scheduler: &str, extra: &[(&str, Value)]| {
        let mut all = vec![("machine", key(&m)), ("power_cap_series", key(&cap))];
        all.extend(extra.iter().cloned());
        refusal(&swf, scheduler, &all)
    };
    assert!(with("ga", &[]).contains("not built under a power cap over time"));
    assert!(with("easy", &[("feedback", Value::Bool(true))]).contains("feedback"));
    assert!(with("easy", &[("power_cap", Value::Float(0.9))]).contains("give one or the other"));
    // Below the idle draw (half the peak here), and a last row that leaves no core.
    let low = series(&dir, "low.csv", &[(0, 1.0), (50, 0.4)]);
    let e = refusal(
        &swf,
        "easy",
        &[("machine", key(&m)), ("power_cap_series", key(&low))],
    );
    assert!(
        e.contains("at time 50") && e.contains("below its idle draw"),
        "{e}"
    );
    let none = series(&dir, "none.csv", &[(0, 0.55)]);
    let e = refusal(
        &swf,
        "easy",
        &[("machine", key(&m)), ("power_cap_series", key(&none))],
    );
    assert!(e.contains("leaves no core busy"), "{e}");
    // A bad row is named by file and line.
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "time,fraction\n0,1\n10,1.5\n").unwrap();
    let e = refusal(
        &swf,
        "easy",
        &[("machine", key(&m)), ("power_cap_series", key(&bad))],
    );
    assert!(e.contains("bad.csv:3") && e.contains("fraction = '1.5'"), "{e}");
    // Without a machine that describes its power.
    let e = refusal(&swf, "easy", &[("power_cap_series", key(&cap))]);
    assert!(e.contains("needs a machine that describes its power"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Predictions that fall short: SJBF with a predictor from users' recent runtimes on KTH's
/// log (its first 3,000 jobs, 100 nodes) under a cap that falls to 75% of the peak
/// (50 cores) from 17:00 to 21:00 each day. A job that outlives its prediction keeps its
/// cores as the cap falls, so the machine may draw more than the cap; the time over the
/// cap the run reports is the time, computed here from the schedule, during which more
/// cores were busy than the cap leaves.
#[test]
fn the_time_over_the_cap_counts_jobs_that_outlive_their_predictions() {
    let Some(kth) = common::trace("KTH-SP2-1996-2.1-cln.swf.gz") else {
        return;
    };
    let dir = common::scratch("cap-over");
    let m = machine(&dir, 100);
    let mut rows = vec![(0, 1.0)];
    for day in 0..60 {
        rows.extend([(day * 86_400 + 17 * 3600, 0.75), (day * 86_400 + 21 * 3600, 1.0)]);
    }
    let cap = series(&dir, "evening.csv", &rows);
    let rigid = experiment(
        &kth,
        "sjbf",
        &[
            ("machine", key(&m)),
            ("power_cap_series", key(&cap)),
            ("predictor", Value::Str("ruh(k=2)".into())),
            ("first", Value::Int(3_000)),
        ],
    );
    let prepared = rigid.prepare(&mut Shared::default(), None).unwrap();
    let workload = prepared.workload.draw(1).unwrap();
    let mut worker = Worker::with_engine(Engine::new().with_validation(true));
    let outcome = prepared.simulate(&mut worker, &workload, 1);
    let jobs = &workload.jobs;
    let all = 0..jobs.len();
    let energy = prepared
        .summarise(jobs, workload.procs, &outcome, all, &workload.skipped)
        .energy
        .unwrap();
    // Busy cores over time, and the cores the cap leaves (50 from 17:00 to 21:00).
    let mut changes: Vec<(i64, i64)> = Vec::new();
    for j in 0..jobs.len() {
        changes.push((outcome.start[j], jobs.procs[j] as i64));
        changes.push((outcome.end[j], -(jobs.procs[j] as i64)));
    }
    changes.extend(rows.iter().map(|r| (r.0, 0)));
    changes.sort();
    let last = outcome.end.iter().copied().max().unwrap();
    let (mut busy, mut over) = (0i64, 0i64);
    for (i, &(t, delta)) in changes.iter().enumerate() {
        busy += delta;
        let next = changes.get(i + 1).map_or(last, |c| c.0).min(last);
        let k = rows.partition_point(|r| r.0 <= t) - 1;
        let cores = if rows[k].1 < 1.0 { 50 } else { 100 };
        if busy > cores && next > t {
            over += next - t;
        }
    }
    assert!(over > 0, "no job outlived its prediction as the cap fell");
    assert_eq!(energy.over_cap_s, Some(over));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A repeating series read with an offset (`power_cap_period`, `power_cap_offset`) is the
/// same cap as its rows written out day by day on the trace's clock: on KTH's log (its
/// first 3,000 jobs; the log starts at 14:00:31 local time), a cut to 90% (80 of the 100
/// cores) from 17:00 to 21:00 local time every day schedules job for job, with the same
/// energy and time over the cap, under FCFS, EASY, SJBF with a predictor, and conservative.
/// (At 75% one job, wider than 50 cores for longer than the 20 hours between cuts, would
/// never start under the repeating cap, and is skipped; the rows written out let it start
/// after their last, so the two workloads would differ.)
#[test]
fn a_repeating_series_is_its_rows_written_out() {
    let Some(kth) = common::trace("KTH-SP2-1996-2.1-cln.swf.gz") else {
        return;
    };
    let dir = common::scratch("cap-repeating");
    let m = machine(&dir, 100);
    let day = series(&dir, "day.csv", &[(0, 1.0), (17 * 3600, 0.9), (21 * 3600, 1.0)]);
    let start = 14 * 3600 + 31;
    let mut rows = vec![(0, 1.0)];
    for d in 0..200 {
        rows.extend([
            (d * 86_400 + 17 * 3600 - start, 0.9),
            (d * 86_400 + 21 * 3600 - start, 1.0),
        ]);
    }
    let written = series(&dir, "written.csv", &rows);
    for (scheduler, predictor) in [
        ("fcfs", "estimate"),
        ("easy", "estimate"),
        ("sjbf", "ruh(k=2)"),
        ("conservative", "estimate"),
    ] {
        let with = |cap: &[(&str, Value)]| {
            let mut extra = vec![
                ("first", Value::Int(3_000)),
                ("predictor", Value::Str(predictor.into())),
            ];
            extra.extend(cap.iter().cloned());
            run_with_power(&kth, &m, scheduler, &extra)
        };
        let repeating = with(&[
            ("power_cap_series", key(&day)),
            ("power_cap_period", Value::Int(86_400)),
            ("power_cap_offset", Value::Int(start)),
        ]);
        let (schedule, energy, power) = with(&[("power_cap_series", key(&written))]);
        assert!(repeating.0 == schedule, "{scheduler}: the schedules differ");
        if predictor == "estimate" {
            assert_eq!(energy.over_cap_s, Some(0), "{scheduler}");
        }
        assert_eq!(repeating.1, energy, "{scheduler}");
        assert_eq!(repeating.2, power, "{scheduler}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Under a repeating cap a job starts only within a run of the cycle whose cap holds it for
/// its whole estimate. Four nodes; all of the peak (four cores) for the first 12 hours of
/// each day, 75% (two cores) for the other 12. A two-core job of 30 hours fits any time; a
/// three-core job of 12 hours fits each morning; one of 13 hours never does and is skipped,
/// counted as `exceeds_power_cap` (a five-core job, wider than the machine, as
/// `procs_exceed_machine`).
#[test]
fn a_repeating_cap_skips_the_jobs_it_never_holds() {
    let dir = common::scratch("cap-never");
    let jobs: [Job; 4] = [
        (0, 30 * 3600, 2, 30 * 3600, 1, 1),
        (10, 12 * 3600, 3, 12 * 3600, 1, 1),
        (20, 13 * 3600, 3, 13 * 3600, 1, 1),
        (30, 100, 5, 100, 1, 1),
    ];
    let swf = trace(&dir, "t.swf", &jobs, 5);
    let m = machine(&dir, 4);
    let day = series(&dir, "day.csv", &[(0, 1.0), (12 * 3600, 0.75)]);
    let rigid = experiment(
        &swf,
        "easy",
        &[
            ("machine", key(&m)),
            ("power_cap_series", key(&day)),
            ("power_cap_period", Value::Int(86_400)),
        ],
    );
    let prepared = rigid.prepare(&mut Shared::default(), None).unwrap();
    let workload = prepared.workload.draw(1).unwrap();
    assert_eq!(workload.jobs.swf_id, vec![1, 2]);
    assert_eq!(workload.skipped.exceeds_power_cap, 1);
    assert_eq!(workload.skipped.procs_exceed_machine, 1);
    let (schedule, energy, _) = run_with_power(
        &swf,
        &m,
        "easy",
        &[
            ("power_cap_series", key(&day)),
            ("power_cap_period", Value::Int(86_400)),
        ],
    );
    // The two-core job at once; the three-core one the next morning, when two cores are
    // free beside it... only once the first ends at 30 h: the morning after, at 48 h.
    assert_eq!(schedule, vec![(0, 30 * 3600), (48 * 3600, 60 * 3600)]);
    assert_eq!(energy.over_cap_s, Some(0));
    // A predictor that predicts more than the estimates (a constant 10^6 s): each job is
    // counted until its estimate's end, which it never outlives, and so fits the same
    // windows (counted until 10^6 s, the three-core job would fit none).
    let (predicted, _, _) = run_with_power(
        &swf,
        &m,
        "sjbf",
        &[
            ("power_cap_series", key(&day)),
            ("power_cap_period", Value::Int(86_400)),
            ("predictor", Value::Str("constant(c=1000000)".into())),
        ],
    );
    assert_eq!(predicted, schedule);
    std::fs::remove_dir_all(&dir).unwrap();
}
