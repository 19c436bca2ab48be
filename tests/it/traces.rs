//! Checks on the real traces in `../shared/traces` (skipped with a message when absent):
//! parse counts equal the archive's job counts, skips are reported, every scheduler runs to
//! completion with the validator on.

use crate::common;

use schedlab::metrics::Summary;
use schedlab::sched::SchedulerKind;
use schedlab::workload::selection::JobRange;
use schedlab::workload::swf::{SwfOptions, read_swf};
use schedlab::workload::{Selection, Workload};

/// (file, job lines in the file per the traces README, expected skips by reason).
const TRACES: [(&str, u64, u64); 6] = [
    ("CTC-SP2-1996-3.1-cln.swf.gz", 77_222, 0),
    ("SDSC-SP2-1998-4.2-cln.swf.gz", 59_715, 5_671),
    ("KTH-SP2-1996-2.1-cln.swf.gz", 28_476, 1),
    ("SDSC-BLUE-2000-4.2-cln.swf.gz", 243_306, 10_744),
    ("SDSC-Par-1996-3.1-cln.swf.gz", 32_135, 0),
    ("lublin_256.swf.gz", 10_000, 0),
];

fn load(name: &str) -> Option<Workload> {
    let path = common::trace(name)?;
    Some(read_swf(&path, &SwfOptions::default()).unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn parse_counts_match_the_archive() {
    for (name, lines, skipped) in TRACES {
        let Some(w) = load(name) else { continue };
        assert_eq!(
            w.jobs.len() as u64 + w.skipped.total(),
            lines,
            "{name}: jobs + skipped"
        );
        assert_eq!(w.skipped.total(), skipped, "{name}: {:?}", w.skipped);
        assert_eq!(w.skipped.malformed, 0, "{name}");
        assert!(w.jobs.submit.windows(2).all(|p| p[0] <= p[1]));
        assert!(w.jobs.procs.iter().all(|&p| p >= 1 && p <= w.procs));
        assert!((0..w.jobs.len()).all(|j| w.jobs.runtime[j] <= w.jobs.estimate[j]));
    }
}

#[test]
fn sdsc_sp2_skips_are_the_unknown_runtimes() {
    let Some(w) = load("SDSC-SP2-1998-4.2-cln.swf.gz") else {
        return;
    };
    // About 9.5% of the log has runtime -1 (cancelled jobs); field 8 is set for them, so they
    // are counted as unknown runtimes rather than unknown processors.
    assert_eq!(w.skipped.runtime_negative, 5_671);
    assert_eq!(w.procs, 128);
}

#[test]
fn blue_job_range_selects_job_numbers() {
    let Some(path) = common::trace("SDSC-BLUE-2000-4.2-cln.swf.gz") else {
        return;
    };
    let options = SwfOptions {
        selection: Selection {
            range: Some("5000..=10000".parse::<JobRange>().unwrap()),
            first: None,
        },
        ..SwfOptions::default()
    };
    let w = read_swf(&path, &options).unwrap();
    // All 5,001 job numbers are present (README); the rest are outside the selection.
    assert_eq!(w.jobs.len() as u64 + w.skipped.total(), 5_001);
    assert_eq!(w.jobs.len() as u64 + w.skipped.total() + w.not_selected, 243_306);
    assert!(w.jobs.swf_id.iter().all(|&id| (5000..=10000).contains(&id)));
}

#[test]
fn every_scheduler_completes_on_the_real_traces() {
    for name in [
        "KTH-SP2-1996-2.1-cln.swf.gz",
        "CTC-SP2-1996-3.1-cln.swf.gz",
        "SDSC-SP2-1998-4.2-cln.swf.gz",
    ] {
        let Some(w) = load(name) else { continue };
        let mut waits = Vec::new();
        for kind in SchedulerKind::on_any_jobs() {
            let (start, end) = common::simulate(&w, kind);
            let s = Summary::from_schedule(&w.jobs, w.procs, &start, &end, &w.skipped);
            assert_eq!(s.jobs, w.jobs.len() as u64);
            assert!(
                s.utilization > 0.0 && s.utilization <= 1.0,
                "{name} {kind}: {}",
                s.utilization
            );
            waits.push((kind, s.mean_wait));
        }
        // Backfilling must beat plain FCFS on these production logs.
        let fcfs = waits[0].1;
        for &(kind, wait) in &waits[1..] {
            assert!(
                wait < fcfs,
                "{name}: {kind} mean wait {wait} not below FCFS {fcfs}"
            );
        }
    }
}

#[test]
fn easy_on_kth_lies_within_the_published_range() {
    let Some(w) = load("KTH-SP2-1996-2.1-cln.swf.gz") else {
        return;
    };
    let (start, end) = common::simulate(&w, SchedulerKind::Easy);
    let s = Summary::from_schedule(&w.jobs, w.procs, &start, &end, &w.skipped);
    // Existing simulators report 90 to 118 minutes for EASY on this trace, depending on how
    // they break ties and treat estimates (see docs/semantics.md).
    let minutes = s.mean_wait / 60.0;
    assert!(
        (90.0..=118.0).contains(&minutes),
        "EASY mean wait on KTH: {minutes:.1} min"
    );
}

#[test]
fn blue_runs_under_every_backfilling_scheduler() {
    let Some(w) = load("SDSC-BLUE-2000-4.2-cln.swf.gz") else {
        return;
    };
    for kind in [
        SchedulerKind::Easy,
        SchedulerKind::Sjbf,
        SchedulerKind::Conservative,
    ] {
        let (start, _) = common::simulate(&w, kind);
        assert!(start.iter().zip(&w.jobs.submit).all(|(s, t)| s >= t));
    }
}

#[test]
fn a_run_reading_only_the_simulated_columns_reports_the_same() {
    // A plain `run` without --swf-out reads half the columns (with a machine, those and
    // the partition and memory); --swf-out, which writes every field back, reads them all. Both must simulate and report the same, byte for byte,
    // under schedulers and predictors that read the user, the executable and the estimate.
    let Some(path) = common::trace("SDSC-SP2-1998-4.2-cln.swf.gz") else {
        return;
    };
    let lean = read_swf(
        &path,
        &SwfOptions {
            columns: schedlab::workload::Columns::Simulated,
            ..SwfOptions::default()
        },
    )
    .unwrap();
    let full = load("SDSC-SP2-1998-4.2-cln.swf.gz").unwrap();
    assert_eq!(lean.jobs.len(), full.jobs.len());
    assert_eq!(lean.jobs.user, full.jobs.user);
    assert_eq!(lean.jobs.executable, full.jobs.executable);
    assert_eq!(lean.jobs.requested_time, full.jobs.requested_time);
    assert!(lean.jobs.queue.is_empty() && lean.jobs.think_time.is_empty());
    assert!(!full.jobs.queue.is_empty());

    let dir = common::scratch("lean");
    let trace = path.to_str().unwrap();
    // On a machine of nodes the run also reads the partition and memory columns.
    let machine = dir.join("machine.toml");
    std::fs::write(
        &machine,
        "[[partition]]\nname = \"all\"\ndefault = true\n[[partition.nodes]]\ncount = 16\ncores = 8\nmemory_gb = 1\n",
    )
    .unwrap();
    for run in [
        vec!["--scheduler", "easy", "--machine", machine.to_str().unwrap()],
        vec!["--scheduler", "easy"],
        vec!["--scheduler", "conservative", "--jobs", "1..=20000"],
        vec!["--scheduler", "sjbf", "--predictor", "application"],
        vec![
            "--scheduler",
            "sjbf",
            "--predictor",
            "sbh(criteria=E|P|X,search=dfs,depth=unlimited,prop=true,think=1200)",
        ],
        vec!["--scheduler", "easy", "--estimates", "tsafrir", "--load", "0.8"],
    ] {
        let outputs: Vec<(Vec<u8>, Vec<u8>)> = [false, true]
            .into_iter()
            .map(|swf_out| {
                let csv = dir.join(format!("jobs-{swf_out}.csv"));
                let mut args = vec![
                    "run",
                    "--trace",
                    trace,
                    "--json",
                    "--jobs-out",
                    csv.to_str().unwrap(),
                ];
                args.extend(&run);
                let swf = dir.join("schedule.swf");
                if swf_out {
                    args.extend(["--swf-out", swf.to_str().unwrap()]);
                }
                let out = std::process::Command::new(env!("CARGO_BIN_EXE_schedlab"))
                    .args(&args)
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{args:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                (out.stdout, std::fs::read(&csv).unwrap())
            })
            .collect();
        assert!(
            outputs[0] == outputs[1],
            "{run:?}: a run reading every column differs"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every trace written as a Batsim workload (`trace convert --out FILE.json`) reads back
/// job for job with the same simulated columns (tests/it/cli.rs runs one both ways).
#[test]
fn batsim_workloads_read_back_as_their_swf_traces() {
    let dir = common::scratch("batsim-traces");
    for (name, _, _) in TRACES {
        let Some(swf) = load(name) else { continue };
        let path = dir.join(format!("{name}.json"));
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        schedlab::report::batsim::write_workload(&mut file, &swf).unwrap();
        drop(file);
        let json = schedlab::workload::read_trace(&path, &SwfOptions::default()).unwrap();
        assert_eq!(json.procs, swf.procs, "{name}");
        let (a, b) = (&swf.jobs, &json.jobs);
        let columns = |j: &schedlab::workload::Jobs, i: usize| {
            (j.swf_id[i], j.submit[i], j.runtime[i], j.estimate[i], j.procs[i])
        };
        assert_eq!(a.len(), b.len(), "{name}");
        for i in 0..a.len() {
            assert_eq!(columns(a, i), columns(b, i), "{name}: job {i}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
