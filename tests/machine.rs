//! A machine of partitions (`machine = "file.toml"`): today's machine described as one
//! partition reproduces the machine-less run byte for byte on every shared trace; each
//! partition of a machine is a pool of its own, its jobs scheduled as they would be alone
//! (checked against each partition's jobs replayed on their own, on random cases and real
//! logs); and a hand-made scenario of two partitions that do not interfere.

mod common;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use schedlab::experiment::rigid::{self, Rigid};
use schedlab::experiment::{Params, Shared, Value, Worker};
use schedlab::sched::SchedulerKind;
use schedlab::sim::Engine;
use schedlab::workload::SkipCounts;

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-machine-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The rigid experiment replaying `trace` under `scheduler` with `extra` parameters.
fn experiment(trace: &Path, scheduler: &str, extra: &[(&str, Value)]) -> Rigid {
    let mut params = Params::default();
    params.insert("trace", Value::Str(trace.display().to_string()));
    params.insert("scheduler", Value::Str(scheduler.into()));
    for (k, v) in extra {
        params.insert(*k, v.clone());
    }
    rigid::from_params(&params, Path::new(""), None).unwrap_or_else(|e| panic!("{e}"))
}

/// What a run gives a user, in bytes: its summary as `run --json` prints it (with the
/// partitions' figures where there are several), and each job's SWF number, start and end.
struct Run {
    json: String,
    schedule: Vec<(u64, i64, i64)>,
    skipped: SkipCounts,
}

fn run(rigid: &Rigid, seed: u64) -> Run {
    let prepared = rigid
        .prepare(&mut Shared::new([&rigid.workload], false), None)
        .unwrap();
    let workload = prepared.workload.draw(seed).unwrap();
    let mut worker = Worker::with_engine(Engine::new().with_validation(true));
    let outcome = prepared.simulate(&mut worker, &workload, seed);
    let jobs = &workload.jobs;
    let summary = schedlab::metrics::Summary::of_outcome(
        jobs,
        workload.procs,
        &outcome,
        0..jobs.len(),
        &workload.skipped,
    );
    let partitions = prepared.by_partition(&workload, outcome.start, outcome.end);
    let json = prepared
        .summary_json(&workload, seed, &summary, &partitions)
        .to_string();
    let schedule = (0..jobs.len())
        .map(|j| (jobs.swf_id[j], outcome.start[j], outcome.end[j]))
        .collect();
    Run {
        json,
        schedule,
        skipped: workload.skipped.clone(),
    }
}

/// A machine file of one default partition of `procs` one-core nodes: today's machine.
fn single(dir: &Path, procs: u32) -> PathBuf {
    let path = dir.join(format!("single-{procs}.toml"));
    std::fs::write(
        &path,
        format!(
            "[[partition]]\nname = \"all\"\ndefault = true\n[[partition.nodes]]\ncount = {procs}\ncores = 1\n"
        ),
    )
    .unwrap();
    path
}

/// Every shared trace, under every scheduler that runs on any trace but the GA (too slow on
/// whole logs; it runs on the first 300 jobs of one), gives the same bytes on today's
/// machine described as one partition as without a machine. Debug builds replay the first
/// 3,000 jobs of each.
#[test]
fn todays_machine_described_as_one_partition_changes_nothing() {
    let dir = folder("single");
    let names = [
        "CTC-SP2-1996-3.1-cln.swf.gz",
        "KTH-SP2-1996-2.1-cln.swf.gz",
        "LANL-CM5-1994-4.1-cln.swf.gz",
        "LLNL-Atlas-2006-2.1-cln.swf.gz",
        "NASA-iPSC-1993-3.1-cln.swf.gz",
        "OSC-Clust-2000-3.1-cln.swf.gz",
        "SDSC-BLUE-2000-4.2-cln.swf.gz",
        "SDSC-Par-1996-3.1-cln.swf.gz",
        "SDSC-SP2-1998-4.2-cln.swf.gz",
        "lublin_256.swf.gz",
        "lublin_256_new2.swf.gz",
    ];
    let first: Vec<(&str, Value)> = if cfg!(debug_assertions) {
        vec![("first", Value::Int(3000))]
    } else {
        vec![]
    };
    let utility = |first: i64| {
        vec![
            ("first", Value::Int(first)),
            ("priorities", Value::Str("sdsc-blue".into())),
        ]
    };
    let mut compared = 0;
    for name in names {
        let Some(trace) = common::trace(name) else {
            continue;
        };
        let plain = experiment(&trace, "fcfs", &first);
        let procs = plain.prepare(&mut Shared::default(), None).unwrap();
        let procs = procs.workload.trace().unwrap().workload.procs;
        let machine = single(&dir, procs);
        let mut cases: Vec<(String, Vec<(&str, Value)>)> = SchedulerKind::on_any_jobs()
            .into_iter()
            .filter(|k| !matches!(k, SchedulerKind::Ga(_)))
            .map(|k| (k.to_string(), first.clone()))
            .collect();
        if name == "KTH-SP2-1996-2.1-cln.swf.gz" {
            cases.push(("sjbf".into(), vec![("predictor", Value::Str("sbh".into()))]));
        }
        if name == "SDSC-BLUE-2000-4.2-cln.swf.gz" {
            cases.push(("ga".into(), utility(300)));
            cases.push(("prio".into(), utility(3000)));
        }
        for (scheduler, extra) in cases {
            let without = run(&experiment(&trace, &scheduler, &extra), 3);
            let mut with = extra.clone();
            with.push(("machine", Value::Str(machine.display().to_string())));
            let with = run(&experiment(&trace, &scheduler, &with), 3);
            assert_eq!(without.json, with.json, "{name} {scheduler}");
            assert!(
                without.schedule == with.schedule,
                "{name} {scheduler}: schedules differ"
            );
            compared += 1;
        }
    }
    eprintln!("compared {compared} runs");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An SWF line: job `id` of `procs` processors in partition `partition`.
fn swf_line(out: &mut String, id: usize, (submit, runtime, procs, estimate, user, partition): Job) {
    writeln!(
        out,
        "{id} {submit} -1 {runtime} {procs} -1 -1 {procs} {estimate} -1 1 {user} -1 -1 1 {partition} -1 -1"
    )
    .unwrap();
}

/// (submit, runtime, processors, estimate, user, partition number).
type Job = (i64, i64, u32, i64, i32, i32);

/// Runs `jobs` on a machine of partitions with `cores` (partition i numbered i + 1, no
/// default), and each partition's jobs alone on a machine of its cores; the machine's
/// schedule must be the union of the partitions' own, and the skipped jobs those no
/// partition runs or that ask for more than their partition has.
fn check_independent_pools(dir: &Path, jobs: &[Job], cores: &[u32], scheduler: &str, max_procs: u32) {
    let mut whole = format!("; MaxProcs: {max_procs}\n");
    for (i, &job) in jobs.iter().enumerate() {
        swf_line(&mut whole, i + 1, job);
    }
    let trace = dir.join("whole.swf");
    std::fs::write(&trace, &whole).unwrap();
    let mut machine = String::new();
    for (i, c) in cores.iter().enumerate() {
        writeln!(
            machine,
            "[[partition]]\nname = \"p{i}\"\n[[partition.nodes]]\ncount = {c}\ncores = 1"
        )
        .unwrap();
    }
    let machine_path = dir.join("machine.toml");
    std::fs::write(&machine_path, machine).unwrap();
    let placed = |j: &&Job| j.5 >= 1 && j.5 as usize <= cores.len() && j.2 <= cores[j.5 as usize - 1];
    if !jobs.iter().any(|j| placed(&j)) {
        let rigid = experiment(
            &trace,
            scheduler,
            &[("machine", Value::Str(machine_path.display().to_string()))],
        );
        let e = rigid
            .prepare(&mut Shared::default(), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no job to simulate"), "{e}");
        return;
    }
    let merged = run(
        &experiment(
            &trace,
            scheduler,
            &[("machine", Value::Str(machine_path.display().to_string()))],
        ),
        5,
    );

    let mut expected: HashMap<u64, (i64, i64)> = HashMap::new();
    let (mut unplaced, mut too_large) = (0, 0);
    for (i, &c) in cores.iter().enumerate() {
        let number = i as i32 + 1;
        let mut own = format!("; MaxProcs: {c}\n");
        let mut any = false;
        for (j, &job) in jobs.iter().enumerate() {
            if job.5 == number {
                if job.2 > c {
                    too_large += 1;
                } else {
                    swf_line(&mut own, j + 1, job);
                    any = true;
                }
            }
        }
        if !any {
            continue;
        }
        let path = dir.join(format!("p{i}.swf"));
        std::fs::write(&path, own).unwrap();
        for (id, start, end) in run(&experiment(&path, scheduler, &[]), 5).schedule {
            expected.insert(id, (start, end));
        }
    }
    unplaced += jobs
        .iter()
        .filter(|j| j.5 < 1 || j.5 as usize > cores.len())
        .count() as u64;
    assert_eq!(
        (
            merged.skipped.partition_unplaced,
            merged.skipped.procs_exceed_machine
        ),
        (unplaced, too_large),
        "{cores:?} {jobs:?}"
    );
    assert_eq!(merged.schedule.len(), expected.len());
    for (id, start, end) in merged.schedule {
        assert_eq!(
            Some(&(start, end)),
            expected.get(&id),
            "job {id} under {scheduler}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 24 } else { 160 }))]

    /// On random machines of one to three partitions and random jobs (ties, zero runtimes,
    /// estimates below and above the runtime, unplaced and oversized jobs), every scheduler
    /// schedules each partition's jobs exactly as it would alone.
    #[test]
    fn each_partition_schedules_its_jobs_as_alone(
        cores in prop::collection::vec(1u32..=8, 1..=3),
        specs in prop::collection::vec((0i64..15, 0i64..40, 1u32..=8, 0i64..60, 0i32..3, 1i32..=4), 1..60),
        which in 0usize..5,
    ) {
        let mut t = 0;
        let jobs: Vec<Job> = specs
            .into_iter()
            .map(|(gap, runtime, procs, estimate, user, partition)| {
                t += if gap < 5 { 0 } else { gap };
                (t, runtime, procs, estimate, user, partition)
            })
            .collect();
        let scheduler = ["fcfs", "easy", "sjbf", "conservative", "easy-pred"][which];
        let dir = folder(&format!("prop-{which}"));
        check_independent_pools(&dir, &jobs, &cores, scheduler, 8);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// The Paragon's log, on its two partitions as its header describes them
/// (`examples/machines/sdsc-par.toml`): each partition's jobs are scheduled as alone, and
/// the 4 interactive jobs wider than the 48 interactive nodes are skipped and counted.
#[test]
fn the_paragons_partitions_are_pools_of_their_own() {
    let Some(trace) = common::trace("SDSC-Par-1996-3.1-cln.swf.gz") else {
        return;
    };
    let machine = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/machines/sdsc-par.toml");
    let first: Vec<(&str, Value)> = if cfg!(debug_assertions) {
        vec![("first", Value::Int(4000))]
    } else {
        vec![]
    };
    let mut with = first.clone();
    with.push(("machine", Value::Str(machine.display().to_string())));
    let merged = run(&experiment(&trace, "easy", &with), 1);
    if first.is_empty() {
        assert_eq!(merged.skipped.procs_exceed_machine, 4);
        assert_eq!(merged.schedule.len(), 32_131);
    }
    // The reference: each partition's jobs replayed alone, through a selection by hand.
    let all = experiment(&trace, "easy", &first);
    let prepared = all
        .prepare(&mut Shared::new([&all.workload], true), None)
        .unwrap();
    let w = &prepared.workload.trace().unwrap().workload;
    let dir = folder("paragon");
    let mut expected = HashMap::new();
    for (number, cores) in [(1, 48u32), (2, 352)] {
        let rows: Vec<u32> = (0..w.jobs.len() as u32)
            .filter(|&j| w.jobs.partition[j as usize] == number && w.jobs.procs[j as usize] <= cores)
            .collect();
        let own = schedlab::workload::Workload {
            jobs: w.jobs.gather(&rows),
            procs: cores,
            ..w.clone()
        };
        let (start, end) = common::simulate(&own, SchedulerKind::Easy);
        for (i, &r) in rows.iter().enumerate() {
            expected.insert(w.jobs.swf_id[r as usize], (start[i], end[i]));
        }
    }
    assert_eq!(merged.schedule.len(), expected.len());
    for (id, start, end) in &merged.schedule {
        assert_eq!(Some(&(*start, *end)), expected.get(id), "job {id}");
    }
    // The summary says how each partition fared.
    assert!(
        merged.json.contains("\"partition\":\"interactive\""),
        "{}",
        merged.json
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two partitions of 4 processors, by hand: a job waits for its own partition although the
/// other is idle, a job of the other starts at once, a job of a partition number the
/// machine lacks and a job wider than its partition (not than the machine) are skipped.
#[test]
fn two_partitions_do_not_interfere() {
    let dir = folder("golden");
    let jobs: [Job; 5] = [
        (0, 100, 4, 100, 1, 1), // fills partition 1 until 100
        (1, 10, 2, 10, 1, 1),   // waits for it, though partition 2 is idle
        (2, 50, 4, 50, 1, 2),   // starts at once in partition 2
        (3, 10, 1, 10, 1, 7),   // no partition 7: skipped
        (4, 10, 6, 10, 1, 2),   // 6 > 4 processors of partition 2: skipped
    ];
    let mut text = String::from("; MaxProcs: 8\n");
    for (i, &job) in jobs.iter().enumerate() {
        swf_line(&mut text, i + 1, job);
    }
    let trace = dir.join("two.swf");
    std::fs::write(&trace, text).unwrap();
    let machine = dir.join("two.toml");
    std::fs::write(
        &machine,
        "[[partition]]\nname = \"a\"\n[[partition.nodes]]\ncount = 2\ncores = 2\n\
         [[partition]]\nname = \"b\"\n[[partition.nodes]]\ncount = 1\ncores = 4\n",
    )
    .unwrap();
    for scheduler in ["fcfs", "easy", "conservative"] {
        let r = run(
            &experiment(
                &trace,
                scheduler,
                &[("machine", Value::Str(machine.display().to_string()))],
            ),
            1,
        );
        assert_eq!(
            r.schedule,
            vec![(1, 0, 100), (2, 100, 110), (3, 2, 52)],
            "{scheduler}"
        );
        assert_eq!(
            (r.skipped.partition_unplaced, r.skipped.procs_exceed_machine),
            (1, 1)
        );
        // On one pool of 8 the second job would start at once.
        let pool = run(&experiment(&trace, scheduler, &[]), 1);
        assert_eq!(pool.schedule[1], (2, 1, 11));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A machine is refused with `procs`, with a model, and with sessions across partitions.
#[test]
fn a_machine_is_refused_where_it_cannot_hold() {
    let dir = folder("refused");
    let trace = dir.join("t.swf");
    std::fs::write(
        &trace,
        "; MaxProcs: 4\n1 0 -1 10 1 -1 -1 1 10 -1 1 1 -1 -1 1 1 -1 -1\n",
    )
    .unwrap();
    let machine = dir.join("m.toml");
    std::fs::write(
        &machine,
        "[[partition]]\nname = \"a\"\n[[partition.nodes]]\ncount = 2\ncores = 2\n\
         [[partition]]\nname = \"b\"\n[[partition.nodes]]\ncount = 1\ncores = 4\n",
    )
    .unwrap();
    let m = Value::Str(machine.display().to_string());
    let refuse = |params: &[(&str, Value)], expected: &str| {
        let mut p = Params::default();
        for (k, v) in params {
            p.insert(*k, v.clone());
        }
        p.insert("scheduler", Value::Str("fcfs".into()));
        let e = rigid::from_params(&p, Path::new(""), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains(expected), "{e}");
    };
    let t = Value::Str(trace.display().to_string());
    refuse(
        &[
            ("trace", t.clone()),
            ("machine", m.clone()),
            ("procs", Value::Int(8)),
        ],
        "machine and procs",
    );
    refuse(
        &[("model", Value::Str("downey".into())), ("machine", m.clone())],
        "machine",
    );
    refuse(
        &[
            ("trace", t.clone()),
            ("machine", m.clone()),
            ("feedback", Value::Bool(true)),
        ],
        "feedback: not supported on a machine of several partitions",
    );
    refuse(
        &[
            ("trace", t),
            ("machine", Value::Str(dir.join("none.toml").display().to_string())),
        ],
        "none.toml",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
