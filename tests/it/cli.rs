//! The `schedlab` binary as a user runs it: outputs, exit codes, broken pipes.

use crate::common;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use schedlab::workload::swf::{SwfOptions, read_swf};

fn schedlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .output()
        .expect("runs")
}

/// Runs `args`, which must be refused as bad input (exit 2) with `expected` in the message
/// and nothing on stdout.
fn assert_refused(args: &[&str], expected: &str) {
    let out = schedlab(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(expected), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

fn golden(name: &str) -> String {
    format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn run_json_has_the_documented_keys() {
    let out = schedlab(&[
        "run",
        "--trace",
        &golden("sjbf_order.swf"),
        "--scheduler",
        "sjbf",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "jobs",
        "mean_wait",
        "mean_response",
        "mean_bsld",
        "utilization",
        "makespan",
        "jobs_skipped",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {v}");
    }
    assert_eq!(v["jobs"], 5);
    // Waits under SJBF: 0, 0, 99, 108, 17 (see the scenario file).
    assert_eq!(v["mean_wait"], (99.0 + 108.0 + 17.0) / 5.0);
    assert_eq!(v["scheduler"], "sjbf");
    // Users where jobs have user numbers; none where they have not (a model's jobs).
    assert!(v["users"]["users"].as_u64().is_some_and(|n| n >= 1), "{v}");
    let out = schedlab(&[
        "run",
        "--model",
        "lublin",
        "--param",
        "jobs=500",
        "--scheduler",
        "easy",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.get("users").is_none() && v.get("mean_wait").is_some(), "{v}");
    // A scheduler with parameters is named with them, as the text prints it.
    let out = schedlab(&[
        "run",
        "--trace",
        &golden("sjbf_order.swf"),
        "--priorities",
        "*:0",
        "--scheduler",
        "ga(population=4,islands=2)",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["scheduler"],
        "ga(population=4,generations=100,mutation=10,islands=2,migration=10)"
    );
}

#[test]
fn model_runs_are_reproducible_and_seeded() {
    let args = [
        "run",
        "--model",
        "downey",
        "--param",
        "days=3",
        "--scheduler",
        "easy",
        "--json",
    ];
    let a = schedlab(&[&args[..], &["--seed", "5"]].concat());
    let b = schedlab(&[&args[..], &["--seed", "5"]].concat());
    let c = schedlab(&[&args[..], &["--seed", "6"]].concat());
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(a.stdout, c.stdout);
}

#[test]
fn jobs_csv_and_swf_outputs_round_trip() {
    let dir = common::scratch("cli-outputs");
    let csv = dir.join("jobs.csv");
    let swf = dir.join("schedule.swf");
    let out = schedlab(&[
        "run",
        "--trace",
        &golden("easy_vs_conservative.swf"),
        "--scheduler",
        "easy",
        "--jobs-out",
        csv.to_str().unwrap(),
        "--swf-out",
        swf.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "job_id,submit,start,end,wait,response,bsld,procs,runtime,estimate,\
         prediction,deadline_misses,absolute_inaccuracy,relative_accuracy,user,predictions"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let starts: Vec<&str> = rows.iter().map(|r| r[2]).collect();
    assert_eq!(starts, ["0", "100", "303", "3"]);
    // EASY's one prediction per job: the estimate, from the submit time.
    for r in &rows {
        assert_eq!(r[15], format!("{}:{}", r[1], r[9]));
    }
    // The written SWF parses back with the same jobs, and field 3 holds the simulated wait.
    let back = read_swf(&swf, &SwfOptions::default()).unwrap();
    assert_eq!(back.jobs.len(), 4);
    assert_eq!(back.procs, 10);
    let waits: Vec<i64> = std::fs::read_to_string(&swf)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(';'))
        .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
        .collect();
    assert_eq!(waits, [0, 99, 301, 0]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `trace convert` writes a Batsim workload that runs as its SWF trace does (the same
/// schedule, job for job), and converts back to SWF; a Batsim error names the line.
#[test]
fn a_batsim_workload_converts_and_runs_as_its_swf_trace() {
    let dir = common::scratch("cli-batsim");
    let (json, back) = (dir.join("w.json"), dir.join("back.swf"));
    let trace = golden("easy_extra.swf");
    let convert = |from: &str, to: &PathBuf| {
        let out = schedlab(&["trace", "convert", from, "--out", to.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    convert(&trace, &json);
    convert(json.to_str().unwrap(), &back);
    let schedule = |input: &str| {
        let csv = dir.join("jobs.csv");
        let out = schedlab(&[
            "run",
            "--trace",
            input,
            "--scheduler",
            "conservative",
            "--jobs-out",
            csv.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let rows: Vec<String> = std::fs::read_to_string(&csv)
            .unwrap()
            .lines()
            .map(|l| l.split(',').take(5).collect::<Vec<_>>().join(","))
            .collect();
        rows
    };
    let swf = schedule(&trace);
    assert!(swf.len() > 2);
    assert_eq!(swf, schedule(json.to_str().unwrap()));
    assert_eq!(swf, schedule(back.to_str().unwrap()));
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        "{\"nb_res\": 4,\n\"jobs\": [\n{\"id\": 1, \"subtime\": -5, \"res\": 1}]}",
    )
    .unwrap();
    assert_refused(
        &["run", "--trace", bad.to_str().unwrap(), "--scheduler", "easy"],
        "bad.json:3: jobs[0]: missing field `profile`",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Slurm's accounting (`sacct --parsable2`) runs as a trace, converts to SWF with its
/// partitions numbered (and said), and a bad row is refused with its line.
#[test]
fn slurm_accounting_runs_and_converts() {
    let dir = common::scratch("cli-sacct");
    let sacct = dir.join("jobs.txt");
    std::fs::write(
        &sacct,
        "JobID|User|Partition|Submit|Start|End|Timelimit|NCPUS|NNodes|ReqMem|State\n\
         1|ann|batch|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T11:00:00|02:00:00|8|1|4G|COMPLETED\n\
         1.batch||||2024-03-01T10:00:00|2024-03-01T11:00:00||8|1||COMPLETED\n\
         2|bob|gpu|2024-03-01T10:10:00|2024-03-01T10:10:00|2024-03-01T10:20:00|01:00:00|4|1|1Gc|COMPLETED\n\
         3|ann|batch|2024-03-01T10:20:00|2024-03-01T11:00:00|2024-03-01T11:30:00|01:00:00|8|1|4G|TIMEOUT\n",
    )
    .unwrap();
    let csv = dir.join("jobs.csv");
    let out = schedlab(&[
        "run",
        "--trace",
        sacct.to_str().unwrap(),
        "--procs",
        "8",
        "--scheduler",
        "fcfs",
        "--jobs-out",
        csv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // FCFS on 8 processors: job 1 holds all 8 until 3600 s; job 2 runs after it for its
    // 600 s, and job 3 (8 wide) after job 2.
    let starts: Vec<String> = std::fs::read_to_string(&csv)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').take(3).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(starts, ["1 0 0", "2 600 3600", "3 1200 4200"]);
    let swf = dir.join("jobs.swf");
    let out = schedlab(&[
        "trace",
        "convert",
        sacct.to_str().unwrap(),
        "--out",
        swf.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.contains("Partition: 2 gpu") && err.contains("3 jobs"),
        "{err}"
    );
    let back = read_swf(&swf, &SwfOptions::default()).unwrap();
    assert_eq!(back.jobs.partition, [1, 2, 1]);
    let bad = dir.join("bad.txt");
    std::fs::write(
        &bad,
        "JobID|Submit|Start|End|NCPUS\n1|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01|1\n",
    )
    .unwrap();
    assert_refused(
        &["run", "--trace", bad.to_str().unwrap(), "--scheduler", "easy"],
        "bad.txt:2: End '2024-03-01'",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// On a machine with a power model, `--timeline-out` adds the power at every step, which
/// on one partition is its idle draw plus the busy cores' rise, never above its cap, and
/// draws it with the cap beside the other figures.
#[test]
fn the_timeline_carries_the_power_under_its_cap() {
    let dir = common::scratch("cli-power-timeline");
    let machine = dir.join("m.toml");
    // 10 one-core nodes, 10 W idle and 110 W busy; a cap of 600 W holds 5 busy cores.
    std::fs::write(
        &machine,
        "[[partition]]\nname = \"all\"\ndefault = true\ncap_w = 600\n[[partition.nodes]]\ncount = 10\ncores = 1\n\
         idle_w = 10\nbusy_w = 110\n",
    )
    .unwrap();
    let csv = dir.join("t.csv");
    let trace = golden("easy_extra.swf");
    let out = schedlab(&[
        "run",
        "--trace",
        &trace,
        "--scheduler",
        "easy",
        "--machine",
        machine.to_str().unwrap(),
        "--timeline-out",
        csv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "time,utilization,busy_procs,running,queued,power_kw"
    );
    let mut most = 0.0f64;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let (busy, kw): (f64, f64) = (f[2].parse().unwrap(), f[5].parse().unwrap());
        assert!((kw - (100.0 + busy * 100.0) / 1e3).abs() < 1e-9, "{line}");
        most = most.max(busy);
    }
    assert!(most > 0.0 && most <= 5.0, "{most} busy: the cap holds 5 cores");
    let svg = std::fs::read_to_string(dir.join("t_power.svg")).unwrap();
    assert!(svg.contains("Power (kW)") && svg.contains("cap"));
    // Without a power model the file is as before.
    let out = schedlab(&[
        "run",
        "--trace",
        &trace,
        "--scheduler",
        "easy",
        "--timeline-out",
        csv.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let header = std::fs::read_to_string(&csv).unwrap();
    assert!(header.starts_with("time,utilization,busy_procs,running,queued\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_exits_2_with_file_and_line() {
    let dir = common::scratch("cli-bad");
    let bad = dir.join("bad.swf");
    std::fs::write(&bad, "; MaxProcs: 4\n1 0 -1 10 2\n").unwrap();
    let out = schedlab(&["run", "--trace", bad.to_str().unwrap(), "--scheduler", "fcfs"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.swf:2") && err.contains("18 fields"), "{err}");
    let out = schedlab(&["trace", "info", "/nonexistent.swf"]);
    assert_eq!(out.status.code(), Some(2));
    let out = schedlab(&[
        "run",
        "--model",
        "downey",
        "--param",
        "lod=1",
        "--scheduler",
        "easy",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("lod"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_trace_that_leaves_nothing_to_simulate_is_refused() {
    // A summary of no jobs would report means and percentiles of nothing, and a load target
    // on a trace that offers none would collapse every arrival to one instant.
    let dir = common::scratch("cli-nothing");
    let write = |name: &str, body: &str| {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        path.to_str().unwrap().to_string()
    };
    let header = "; MaxProcs: 8\n";
    let skipped = write(
        "skipped.swf",
        &format!("{header}1 0 -1 -1 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n"),
    );
    let jobs = "1 0 -1 0 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n2 0 -1 0 2 -1 -1 2 10 -1 1 2 1 1 1 -1 -1 -1\n";
    let no_work = write("no-work.swf", &format!("{header}{jobs}"));
    let one_instant = write(
        "one-instant.swf",
        &format!(
            "{header}1 5 -1 60 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n2 5 -1 30 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n"
        ),
    );
    let cases: [(&[&str], &str); 5] = [
        (
            &["--trace", &skipped],
            "skipped.swf: no job to simulate: 1 skipped (runtime_negative 1), 0 outside the selection",
        ),
        (
            &["--trace", &no_work, "--jobs", "3.."],
            "no-work.swf: no job to simulate: 0 skipped, 2 outside the selection",
        ),
        (
            &["--trace", &no_work, "--load", "0.5"],
            "no-work.swf: load 0.5: the trace offers no load to scale",
        ),
        (
            &["--trace", &one_instant, "--load", "0.5"],
            "one-instant.swf: load 0.5: the trace offers no load to scale",
        ),
        (&["--trace", &one_instant, "--load-scale", "0"], "load_scale"),
    ];
    for (args, expected) in cases {
        assert_refused(&[&["run", "--scheduler", "easy"], args].concat(), expected);
    }
    // The same trace still runs unscaled, and a sweep refuses what run refuses.
    assert!(
        schedlab(&["run", "--scheduler", "easy", "--trace", &one_instant])
            .status
            .success()
    );
    for (trace, extra, expected) in [
        (&skipped, "", "no job to simulate"),
        (&no_work, "load = 0.5\n", "the trace offers no load to scale"),
    ] {
        let spec = write(
            "spec.toml",
            &format!(
                "name = \"nothing\"\nmetrics = [\"mean_wait\"]\n[run]\ntrace = {trace:?}\nscheduler = \"easy\"\n{extra}\
                 [replications]\ncount = 2\n"
            ),
        );
        let out_dir = dir.join("out");
        let out = schedlab(&[
            "sweep",
            &spec,
            "--out",
            out_dir.to_str().unwrap(),
            "--force",
            "--quiet",
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{trace}: {err}");
        assert!(err.contains(expected), "{trace}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_usage_exits_2() {
    assert_eq!(
        schedlab(&["run", "--scheduler", "nope", "--model", "downey"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(schedlab(&["run", "--scheduler", "easy"]).status.code(), Some(2));
    assert_eq!(schedlab(&["frobnicate"]).status.code(), Some(2));
    assert!(schedlab(&["run", "--help"]).status.success());
}

#[test]
fn unwritable_output_is_a_runtime_failure() {
    let out = schedlab(&[
        "run",
        "--trace",
        &golden("ties.swf"),
        "--scheduler",
        "fcfs",
        "--jobs-out",
        "/nonexistent-dir/jobs.csv",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args([
            "run",
            "--model",
            "downey",
            "--param",
            "days=20",
            "--scheduler",
            "conservative",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn trace_info_reports_counts() {
    let out = schedlab(&["trace", "info", &golden("killed_at_estimate.swf"), "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["jobs"], 3);
    assert_eq!(v["procs"], 4);
    // Jobs 1 and 2 gave an estimate, job 3 did not.
    assert!((v["with_estimate"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
}

const SWEEP: &str = r#"
name = "cli"
metrics = ["mean_wait", "utilization"]
[run]
model = "downey"
procs = 128
days = 60
[axes]
load = [0.6, 0.9]
scheduler = ["easy", "conservative"]
[replications]
count = 24
"#;

#[test]
fn sweep_list_dry_run_and_size_gate() {
    let dir = common::scratch("cli-sweep-list");
    let spec = dir.join("s.toml");
    std::fs::write(&spec, SWEEP).unwrap();
    let out = schedlab(&["sweep", spec.to_str().unwrap(), "--list"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 5, "{text}");
    assert!(text.contains("0\t0.6\teasy"), "{text}");
    let out = schedlab(&["sweep", spec.to_str().unwrap(), "--dry-run"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("4 cells"));
    std::fs::write(&spec, SWEEP.replace("[run]", "max_cells = 2\n[run]")).unwrap();
    let out = schedlab(&[
        "sweep",
        spec.to_str().unwrap(),
        "--out",
        dir.join("o").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));
    let out = schedlab(&[
        "sweep",
        spec.to_str().unwrap(),
        "--yes",
        "--quiet",
        "--out",
        dir.join("o").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&spec, SWEEP.replace("count = 24", "count = 0")).unwrap();
    let out = schedlab(&["sweep", spec.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_sweep_resumes_to_the_uninterrupted_bytes() {
    let dir = common::scratch("cli-sweep-kill");
    let spec = dir.join("s.toml");
    std::fs::write(&spec, SWEEP).unwrap();
    let spec_arg = spec.to_str().unwrap().to_string();
    let args = |out: &std::path::Path, threads: &str, resume: bool| -> Vec<String> {
        let mut a = vec![
            "sweep".into(),
            spec_arg.clone(),
            "--quiet".into(),
            "--threads".into(),
            threads.into(),
        ];
        if resume {
            a.push("--resume".into());
        }
        a.extend(["--out".into(), out.to_str().unwrap().to_string()]);
        a
    };
    let run = |a: Vec<String>| schedlab(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let full = dir.join("full");
    let out = run(args(&full, "2", false));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let part = dir.join("part");
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args(&part, "2", false))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it part-way (a whole run takes about 0.4 s here): what it leaves must resume.
    std::thread::sleep(std::time::Duration::from_millis(120));
    let _ = child.kill();
    let _ = child.wait();
    let journal = std::fs::read_to_string(part.join("runs.csv")).unwrap_or_default();
    eprintln!("killed with {} journal lines", journal.lines().count());
    let out = run(args(&part, "1", true));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for f in [
        "runs.csv",
        "summary.csv",
        "summary.json",
        "summary.md",
        "spec.hash",
    ] {
        assert_eq!(
            std::fs::read(full.join(f)).unwrap(),
            std::fs::read(part.join(f)).unwrap(),
            "{f}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn predictor_flag_reports_accuracy_and_is_refused_where_unused() {
    let trace = golden("sjbf_order.swf");
    let out = schedlab(&[
        "run",
        "--trace",
        &trace,
        "--scheduler",
        "sjbf",
        "--predictor",
        "constant(c=1)",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["predictor"], "constant(c=1)");
    assert!(v["deadline_misses"].as_u64().unwrap() > 0);
    assert!(v["relative_accuracy"].as_f64().unwrap() < 1.0);
    let out = schedlab(&[
        "run",
        "--trace",
        &trace,
        "--scheduler",
        "sjbf",
        "--predictor",
        "perfect",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["deadline_misses"], 0);
    assert_eq!(v["relative_accuracy"], 1.0);
    let out = schedlab(&[
        "run",
        "--trace",
        &trace,
        "--scheduler",
        "easy",
        "--predictor",
        "perfect",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not use runtime predictions"));
    let out = schedlab(&[
        "run",
        "--trace",
        &trace,
        "--scheduler",
        "easy",
        "--predictor",
        "estimate",
    ]);
    assert!(out.status.success());
    let out = schedlab(&[
        "run",
        "--trace",
        &trace,
        "--scheduler",
        "sjbf",
        "--predictor",
        "oracle",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn predict_prints_every_predictor_and_names_bad_fields() {
    let dir = common::scratch("cli-predict");
    let state = dir.join("state.json");
    // One job of 64 processors aged e^4 s under Downey's lifetimes; 32 asked, none free:
    // every predictor waits e^8 - e^4 s (tests/it/queue_time.rs works it out). 100 never fits.
    std::fs::write(
        &state,
        format!(
            r#"{{"total": 128, "free": 0, "running": [{{"age": {}, "size": 64}}], "request": "all"}}"#,
            4f64.exp()
        ),
    )
    .unwrap();
    let out = schedlab(&["predict", state.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 128);
    let q = 8f64.exp() - 4f64.exp();
    for key in ["a", "b", "combined", "exact"] {
        let got = rows[31][key].as_f64().unwrap();
        assert!((got - q).abs() < 0.01, "{key}: {got} vs {q}");
        assert!(rows[99][key].is_null(), "{key} for 100 processors");
    }
    assert_eq!(rows[31]["benefactors"], 1);
    let table = schedlab(&["predict", state.to_str().unwrap()]);
    assert!(table.status.success());
    assert!(String::from_utf8_lossy(&table.stdout).starts_with("     n needed"));

    std::fs::write(
        &state,
        r#"{"total": 8, "free": 1, "running": [{"age": 5, "size": 0}], "request": 3}"#,
    )
    .unwrap();
    let out = schedlab(&["predict", state.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("state.json") && message.contains("running[0].size"),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn predict_refuses_in_the_users_words_and_names_the_field() {
    // Unknown keys are refused everywhere, the distribution's too, and no refusal speaks of
    // the parser's types ("untagged enum", "u32") (issue 40).
    let dir = common::scratch("cli-predict-words");
    let state = dir.join("state.json");
    let cases = [
        (
            r#""distribution": {"t_min": 1, "t_max": 9, "beta0": 3}"#,
            "distribution: give t_min and t_max, or beta0 and beta1",
        ),
        (
            r#""distribution": {"t_min": 1, "tmax": 9}"#,
            "distribution.tmax: unknown; allowed: t_min, t_max, beta0, beta1",
        ),
        (
            r#""request": "some""#,
            "request: \"some\" is not a processor count or \"all\"",
        ),
        (
            r#""request": -3"#,
            "request: -3 is not a processor count or \"all\"",
        ),
        (
            r#""total": 8.5"#,
            "total: 8.5 is not a whole number from 0 to 4294967295",
        ),
        (
            r#""running": [{"age": 5, "size": 1, "user": 2}]"#,
            "running[0].user: unknown; allowed: age, size",
        ),
    ];
    for (field, expected) in cases {
        let key = &field[1..field[1..].find('"').unwrap() + 1];
        let mut parts = vec![
            r#""total": 8"#.to_string(),
            r#""free": 1"#.to_string(),
            r#""running": []"#.to_string(),
            r#""request": 3"#.to_string(),
        ];
        parts.retain(|p| !p.starts_with(&format!("\"{key}\"")));
        parts.push(field.to_string());
        std::fs::write(&state, format!("{{{}}}", parts.join(", "))).unwrap();
        assert_refused(&["predict", state.to_str().unwrap()], expected);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn malleable_reports_both_evaluations_and_exports_prediction_pairs() {
    let dir = common::scratch("cli-malleable");
    let (csv, svg) = (dir.join("pairs.csv"), dir.join("fig5.svg"));
    let out = schedlab(&[
        "malleable",
        "--strategy",
        "pred",
        "--param",
        "days=10",
        "--json",
        "--pairs-out",
        csv.to_str().unwrap(),
        "--scatter",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "mean_response",
        "utilization",
        "utilization_while_waiting",
        "rebels",
        "prediction_quality",
    ] {
        assert!(v.get(key).is_some(), "{key} missing: {v}");
    }
    let pairs = std::fs::read_to_string(&csv).unwrap();
    assert!(pairs.starts_with("prediction,outcome\n"));
    assert_eq!(
        pairs.lines().count() as u64 - 1,
        v["prediction_quality"]["pairs"].as_u64().unwrap()
    );
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    let out = schedlab(&[
        "malleable",
        "--strategy",
        "opt",
        "--param",
        "days=10",
        "--application",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["losing_rebel_fraction"], 0.0);
    let out = schedlab(&["malleable", "--strategy", "pred(predictor=x)"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("predictor"));
    std::fs::remove_dir_all(&dir).ok();
}

/// The reproducers of the hardening issue: each is refused with exit 2 and a message that
/// says what to change, or capped with a warning; nothing panics.
#[test]
fn hostile_inputs_are_refused_with_exit_2() {
    let dir = common::scratch("cli-hostile");
    let spec = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let state = spec(
        "state.json",
        r#"{"total": 4294967295, "free": 12, "running": [{"age": 1, "size": 32}], "request": "all"}"#,
    );
    let huge = spec(
        "huge.toml",
        "metrics = [\"mean_wait\"]\n[run]\nmodel = \"downey\"\nprocs = 4096\ndays = 100000\nscheduler = \"easy\"\n[replications]\ncount = 1\n",
    );
    let wide = spec(
        "wide.toml",
        "metrics = [\"mean_wait\"]\nmax_cells = 2\n[run]\nmodel = \"downey\"\ndays = 1\n[axes]\nscheduler = [\"fcfs\", \"easy\", \"sjbf\"]\n[replications]\ncount = 1\n",
    );
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "run",
                "--model",
                "downey",
                "--param",
                "days=1000000",
                "--scheduler",
                "easy",
            ],
            "--yes",
        ),
        (
            &[
                "run",
                "--model",
                "downey",
                "--param",
                "days=2",
                "--scheduler",
                "prio",
            ],
            "needs priorities",
        ),
        (
            &[
                "run",
                "--model",
                "downey",
                "--param",
                "days=0",
                "--scheduler",
                "easy",
            ],
            "days=0",
        ),
        (
            &[
                "run",
                "--model",
                "downey",
                "--param",
                "days=2",
                "--scheduler",
                "ga",
            ],
            "ga",
        ),
        (
            &[
                "run",
                "--trace",
                &golden("ties.swf"),
                "--procs",
                "0",
                "--scheduler",
                "easy",
            ],
            "--procs",
        ),
        (
            &[
                "run",
                "--trace",
                &golden("ties.swf"),
                "--scheduler",
                "ga(population=100000000)",
            ],
            "population",
        ),
        (
            &["malleable", "--strategy", "avg", "--param", "days=1000000"],
            "--yes",
        ),
        (&["cluster", "--jobs", "100000000"], "--yes"),
        (&["predict", &state], "total"),
        (&["sweep", &huge, "--dry-run"], "--yes"),
        (&["sweep", &wide, "--dry-run"], "max_cells"),
    ];
    for (args, needle) in cases {
        let out = schedlab(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr} lacks {needle}");
    }
    // With --yes the grid runs; a folder of another spec's results is kept unless --force.
    let out_dir = dir.join("out");
    let out = schedlab(&[
        "sweep",
        &wide,
        "--yes",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let other = spec(
        "other.toml",
        &std::fs::read_to_string(&wide)
            .unwrap()
            .replace("days = 1", "days = 2"),
    );
    let out = schedlab(&[
        "sweep",
        &other,
        "--yes",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    let out = schedlab(&[
        "sweep",
        &other,
        "--yes",
        "--force",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Absurd thread counts are capped with a warning.
    let out = schedlab(&[
        "sweep",
        &other,
        "--yes",
        "--quiet",
        "--threads",
        "100000",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("capped"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C during a sweep says what is recorded and the exact command that finishes it,
/// and exits 130; that command then completes the sweep.
#[cfg(unix)]
#[test]
fn an_interrupted_sweep_says_how_to_resume() {
    let dir = common::scratch("cli-interrupt");
    let spec = dir.join("slow.toml");
    std::fs::write(
        &spec,
        "metrics = [\"mean_wait\"]\n[run]\nmodel = \"downey\"\ndays = 3000\nscheduler = \"conservative\"\n\
         [axes]\nload = [0.5, 0.6]\n[replications]\ncount = 400\n",
    )
    .unwrap();
    let out = dir.join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args([
            "sweep",
            spec.to_str().unwrap(),
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let output = child.wait_with_output().unwrap();
    if !killed.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED: kill -INT is not available");
        return;
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    let expected = format!(
        "schedlab sweep {} --resume --out {}",
        spec.display(),
        out.display()
    );
    assert!(
        stderr.contains("replications are recorded in") && stderr.contains(&expected),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Input shaking: a shaken replay depends on the seed (the same seed, the same bytes); a
/// replay as recorded does not.
#[test]
fn shaken_trace_replays_follow_the_seed() {
    let dir = common::scratch("cli-shake");
    let trace = dir.join("busy.swf");
    let mut text = String::from("; MaxProcs: 16\n");
    for i in 0..400u64 {
        let (runtime, procs) = (100 + (i * 37) % 400, 1 + (i * 5) % 8);
        text += &format!(
            "{} {} -1 {runtime} {procs} -1 -1 {procs} {} -1 1 {} 1 1 1 1 -1 -1\n",
            i + 1,
            20 * i,
            2 * runtime,
            i % 9
        );
    }
    std::fs::write(&trace, text).unwrap();
    let trace = trace.to_str().unwrap();
    // The summary without the seed it echoes.
    let run = |extra: &[&str]| {
        let out = schedlab(&[&["run", "--trace", trace, "--scheduler", "easy", "--json"], extra].concat());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_object_mut().unwrap().remove("seed");
        v
    };
    let shaken = |seed: &str| run(&["--resample", "shake", "--shake-jitter", "30", "--seed", seed]);
    assert_eq!(shaken("3"), shaken("3"));
    assert_ne!(shaken("3"), shaken("4"));
    assert_eq!(run(&["--seed", "3"]), run(&["--seed", "4"]));
    // Shaking keeps every job: the same count as the replay as recorded.
    assert_eq!(shaken("3")["jobs"], run(&[])["jobs"]);
    std::fs::remove_dir_all(&dir).ok();
}

/// Flags that do not go together are bad input: exit status 2, with the reason.
#[test]
fn conflicting_flags_exit_2_with_the_reason() {
    let trace = golden("sjbf_order.swf");
    for (args, needle) in [
        (
            vec![
                "run",
                "--trace",
                &trace,
                "--param",
                "load=1",
                "--scheduler",
                "easy",
            ],
            "--param applies to --model",
        ),
        (
            vec![
                "run",
                "--model",
                "lublin",
                "--estimates",
                "tsafrir",
                "--scheduler",
                "easy",
            ],
            "--estimates applies to --trace",
        ),
        (
            vec!["trace", "resample", &trace, "--out", "unused.swf"],
            "say how to draw the workload",
        ),
        (
            vec![
                "run",
                "--model",
                "lublin",
                "--machine",
                "examples/machines/sdsc-par.toml",
                "--scheduler",
                "easy",
            ],
            "a model's jobs name no partition, so they run in the partition with default = true",
        ),
        (
            vec![
                "run",
                "--model",
                "lublin",
                "--machine",
                "examples/machines/kth-sp2-energy.toml",
                "--carbon",
                "unused.csv",
                "--scheduler",
                "easy",
            ],
            "--carbon applies to --trace",
        ),
        (
            vec![
                "run",
                "--trace",
                &trace,
                "--machine",
                "examples/machines/sdsc-par.toml",
                "--procs",
                "8",
                "--scheduler",
                "easy",
            ],
            "cannot be used with",
        ),
        (
            vec![
                "run",
                "--trace",
                &trace,
                "--machine",
                "Cargo.toml",
                "--scheduler",
                "easy",
            ],
            "unknown field `package`, expected `partition`",
        ),
    ] {
        let out = schedlab(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

/// `trace resample` writes the workload a replication replays, as SWF, with a header
/// naming how it was drawn; the same seed gives the same file.
#[test]
fn trace_resample_writes_a_reproducible_swf() {
    let dir = common::scratch("cli-resample");
    let trace = golden("sjbf_order.swf");
    let write = |seed: &str, name: &str| {
        let path = dir.join(name);
        let out = schedlab(&[
            "trace",
            "resample",
            &trace,
            "--resample",
            "shake",
            "--seed",
            seed,
            "--out",
            path.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::read_to_string(path).unwrap()
    };
    let (a, b, c) = (write("3", "a.swf"), write("3", "b.swf"), write("4", "c.swf"));
    assert_eq!(a, b);
    assert!(
        a.contains("; Note: drawn from") && a.contains("seed 3") && a.contains("resample=shake"),
        "{a}"
    );
    let jobs = |text: &str| text.lines().filter(|l| !l.starts_with(';')).count();
    let original = read_swf(std::path::Path::new(&trace), &SwfOptions::default()).unwrap();
    assert_eq!(jobs(&a), original.jobs.len());
    assert_eq!(jobs(&c), original.jobs.len());
    std::fs::remove_dir_all(&dir).ok();
}

/// `--timeline-out` against a plain recount from `--jobs-out`: at every step, the busy
/// processors, running and queued jobs of the jobs whose intervals cover that instant; the
/// two figures beside it; `--gantt-out` draws the jobs of its window and refuses a bad one.
#[test]
fn timeline_and_gantt_agree_with_the_jobs() {
    let dir = common::scratch("cli-timeline");
    let (jobs, timeline, gantt) = (dir.join("jobs.csv"), dir.join("tl.csv"), dir.join("g.svg"));
    let out = schedlab(&[
        "run",
        "--model",
        "downey",
        "--param",
        "days=2",
        "--param",
        "procs=32",
        "--scheduler",
        "conservative",
        "--jobs-out",
        jobs.to_str().unwrap(),
        "--timeline-out",
        timeline.to_str().unwrap(),
        "--gantt-out",
        gantt.to_str().unwrap(),
        "--window",
        "20000..60000",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // (submit, start, end, procs) of every job.
    let rows: Vec<(i64, i64, i64, i64)> = std::fs::read_to_string(&jobs)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<i64> = l
                .split(',')
                .take(8)
                .map(|x| x.parse::<f64>().unwrap() as i64)
                .collect();
            (f[1], f[2], f[3], f[7])
        })
        .collect();
    let text = std::fs::read_to_string(&timeline).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "time,utilization,busy_procs,running,queued"
    );
    let mut steps = 0;
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        let t: i64 = f[0].parse().unwrap();
        let running = rows.iter().filter(|r| r.1 <= t && t < r.2);
        let busy: i64 = running.clone().map(|r| r.3).sum();
        let queued = rows.iter().filter(|r| r.0 <= t && t < r.1).count();
        assert_eq!(f[2].parse::<i64>().unwrap(), busy, "busy at {t}");
        assert_eq!(f[3].parse::<usize>().unwrap(), running.count(), "running at {t}");
        assert_eq!(f[4].parse::<usize>().unwrap(), queued, "queued at {t}");
        assert!((f[1].parse::<f64>().unwrap() - busy as f64 / 32.0).abs() < 1e-6);
        steps += 1;
    }
    assert!(steps > rows.len(), "{steps} steps for {} jobs", rows.len());
    for figure in ["tl_utilization.svg", "tl_jobs.svg"] {
        let svg = std::fs::read_to_string(dir.join(figure)).unwrap();
        assert!(svg.contains("Time (days since the workload"), "{figure}");
    }
    // The Gantt chart names as many jobs as ran within its window.
    let in_window = rows
        .iter()
        .filter(|r| r.1 < 60000 && r.2 > 20000 && r.2 > r.1)
        .count();
    let svg = std::fs::read_to_string(&gantt).unwrap();
    assert!(
        svg.contains(&format!("schedule from 20000 s to 60000 s, {in_window} jobs")),
        "{in_window}"
    );
    for window in ["5..3", "x..9"] {
        let out = schedlab(&[
            "run",
            "--model",
            "downey",
            "--param",
            "days=2",
            "--scheduler",
            "easy",
            "--gantt-out",
            gantt.to_str().unwrap(),
            "--window",
            window,
        ]);
        assert_eq!(out.status.code(), Some(2), "{window}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("expected A..B in seconds"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `compare`: two schedules job by job (their means recomputed from the rows), two
/// summaries metric by metric; mixed kinds and a bad row exit 2 naming the file and line.
#[test]
fn compare_two_runs() {
    let dir = common::scratch("cli-compare");
    let path = |n: &str| dir.join(n).to_str().unwrap().to_string();
    for (scheduler, tag) in [("fcfs", "a"), ("easy", "b")] {
        let out = schedlab(&[
            "run",
            "--model",
            "downey",
            "--param",
            "days=2",
            "--scheduler",
            scheduler,
            "--jobs-out",
            &path(&format!("{tag}.csv")),
            "--json",
        ]);
        assert!(out.status.success());
        std::fs::write(dir.join(format!("{tag}.json")), &out.stdout).unwrap();
    }
    let out = schedlab(&[
        "compare",
        &path("a.csv"),
        &path("b.csv"),
        "--top",
        "2",
        "--out",
        &path("ab.csv"),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let json = |tag: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(dir.join(format!("{tag}.json"))).unwrap()).unwrap()
    };
    let (a, b) = (json("a"), json("b"));
    let jobs = a["jobs"].as_u64().unwrap();
    assert!(
        text.contains(&format!("matched      {jobs} jobs; 0 only in A, 0 only in B")),
        "{text}"
    );
    let wait = |v: &serde_json::Value| v["mean_wait"].as_f64().unwrap();
    assert!(
        text.contains(&format!("mean wait    A {:.2} s  B {:.2} s", wait(&a), wait(&b))),
        "{text}"
    );
    // The per-job file: one row per job, the changes B - A.
    let rows = std::fs::read_to_string(dir.join("ab.csv")).unwrap();
    let changes: Vec<i64> = rows
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(5).unwrap().parse().unwrap())
        .collect();
    assert_eq!(changes.len() as u64, jobs);
    let mean_change = changes.iter().sum::<i64>() as f64 / jobs as f64;
    assert!((mean_change - (wait(&b) - wait(&a))).abs() < 1e-6 * wait(&a).max(1.0));
    // The two most gained are the two largest falls of the per-job file.
    let mut falls = changes.clone();
    falls.sort();
    let gained = text
        .split("gained most")
        .nth(1)
        .unwrap()
        .split("lost most")
        .next()
        .unwrap();
    for fall in &falls[..2] {
        assert!(
            fall >= &0 || gained.contains(&format!("{fall:+}")),
            "{fall} missing from {gained}"
        );
    }

    let out = schedlab(&["compare", &path("a.json"), &path("b.json")]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("scheduler") && text.contains("A fcfs  B easy"),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("mean_wait ")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("bsld.p98 ")), "{text}");

    let out = schedlab(&["compare", &path("a.json"), &path("b.csv")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a summary and"));
    // A start that is not a number, on the third job's row (line 4).
    let mut lines: Vec<String> = std::fs::read_to_string(dir.join("b.csv"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let mut fields: Vec<&str> = lines[3].split(',').collect();
    fields[2] = "soon";
    lines[3] = fields.join(",");
    std::fs::write(dir.join("c.csv"), lines.join("\n") + "\n").unwrap();
    let out = schedlab(&["compare", &path("a.csv"), &path("c.csv")]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.contains("c.csv:4: field 3 (start) = 'soon': not a whole number"),
        "{err}"
    );
    // Schedules with no job in common have no means to compare.
    std::fs::write(dir.join("d.csv"), lines[0].clone() + "\n").unwrap();
    let out = schedlab(&["compare", &path("a.csv"), &path("d.csv")]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.contains("d.csv: no job number is in both schedules (A has"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_other_models_knobs_are_bounded_before_any_work() {
    // Moldable loads share the trace's range; a cluster's arrival scale and multiprogramming
    // level have bounds of their own (issue 40).
    let refused: [(&[&str], &str); 5] = [
        (
            &["moldable", "--policy", "asp", "--load", "1e-9"],
            "load = 0.000000001: expected a number from 0.001 to 10",
        ),
        (
            &["moldable", "--policy", "asp", "--load", "1e9"],
            "load = 1000000000: expected a number from 0.001 to 10",
        ),
        (
            &["cluster", "--arrival-scale", "1e-12"],
            "arrival_scale = 0.000000000001: expected a number from 0.001 to 1000",
        ),
        (
            &["cluster", "--arrival-scale", "1e12"],
            "arrival_scale = 1000000000000: expected a number from 0.001 to 1000",
        ),
        (
            &["cluster", "--mpl", "100000"],
            "mpl = 100000: expected a whole number from 1 to 1024",
        ),
    ];
    for (args, expected) in refused {
        assert_refused(args, expected);
    }
}

#[test]
fn scaling_knobs_are_bounded_before_any_work() {
    // Loads from 0.001 to 10, and load scales that imply such a load and keep every submit
    // within 2^40 s: past them a run panicked, reported negative waits, or ran for minutes
    // (issue 40).
    let dir = common::scratch("cli-scaling-knobs");
    let write = |name: &str, body: &str| {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        path.to_str().unwrap().to_string()
    };
    let job = |id: u64, submit: u64, runtime: u64, procs: u32| {
        format!("{id} {submit} -1 {runtime} {procs} -1 -1 {procs} {runtime} -1 1 1 1 1 1 -1 -1 -1\n")
    };
    // Offered load 4 x 500 x 4 / (8 x 3000) = 1/3.
    let small = write(
        "small.swf",
        &format!(
            "; MaxProcs: 8\n{}",
            (0..4).map(|i| job(i + 1, i * 1000, 500, 4)).collect::<String>()
        ),
    );
    // Offered load 2, over a span of 2^38 s: a scale of 5 implies load 0.4 but takes the
    // last submit past 2^40 s.
    let long = write(
        "long.swf",
        &format!(
            "; MaxProcs: 8\n{}{}",
            job(1, 0, 1 << 39, 8),
            job(2, 1 << 38, 1, 8)
        ),
    );
    let refused: [(&[&str], &str); 7] = [
        (
            &["--trace", &small, "--load", "1e-12"],
            "load = 0.000000000001: expected a number from 0.001 to 10",
        ),
        (
            &["--trace", &small, "--load", "11"],
            "load = 11: expected a number from 0.001 to 10",
        ),
        (
            &["--trace", &small, "--load-scale", "2e18"],
            "small.swf: load_scale 2000000000000000000: the trace's offered load 0.3333 would become 1.667e-19, outside 0.001 to 10",
        ),
        (
            &["--trace", &small, "--load-scale", "0.01"],
            "load_scale 0.01: the trace's offered load 0.3333 would become 33.3333, outside",
        ),
        (
            &["--trace", &long, "--load-scale", "5"],
            "long.swf: load_scale 5: inter-arrival times scaled by 5 take the last submit to 1.374e12 s, past",
        ),
        (
            &["--model", "lublin", "--param", "load=1e-9"],
            "load=0.000000001: must be from 0.001 to 10",
        ),
        (
            &["--model", "downey", "--param", "rho=20"],
            "rho=20: must be from 0.001 to 10",
        ),
    ];
    for (args, expected) in refused {
        assert_refused(
            &[&["run", "--scheduler", "conservative"], args].concat(),
            expected,
        );
    }
    // At the ends of the range every scheduler runs, with waits that make sense.
    for scheduler in ["fcfs", "easy", "sjbf", "conservative"] {
        for (flag, value) in [
            ("--load", "0.001"),
            ("--load", "10"),
            ("--load-scale", "333"),
            ("--load-scale", "0.0334"),
        ] {
            let out = schedlab(&[
                "run",
                "--trace",
                &small,
                "--scheduler",
                scheduler,
                flag,
                value,
                "--json",
            ]);
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{scheduler} {flag} {value}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let json: serde_json::Value = serde_json::from_str(&text).unwrap();
            let wait = json["mean_wait"].as_f64().unwrap();
            let utilization = json["utilization"].as_f64().unwrap();
            assert!(
                wait >= 0.0 && (0.0..=1.0).contains(&utilization),
                "{scheduler} {flag} {value}: {text}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn outputs_never_overwrite_inputs_or_each_other() {
    // The same file under another name (a symbolic or a hard link, a path through `.`), or
    // one path given to two outputs: refused before anything runs, the input intact.
    let dir = common::scratch("cli-clobber");
    let trace = dir.join("f.swf");
    let body = "; MaxProcs: 8\n1 0 -1 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n2 50 -1 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n";
    std::fs::write(&trace, body).unwrap();
    let hard = dir.join("hard.swf");
    std::fs::hard_link(&trace, &hard).unwrap();
    let link = dir.join("link.swf");
    std::os::unix::fs::symlink(&trace, &link).unwrap();
    let (t, h, l) = (
        trace.to_str().unwrap(),
        hard.to_str().unwrap(),
        link.to_str().unwrap(),
    );
    let dotted = format!("{}/./f.swf", dir.display());
    let csv = dir.join("a.csv");
    let a = csv.to_str().unwrap();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["run", "--trace", t, "--scheduler", "easy", "--jobs-out", t],
            format!("--jobs-out {t}: is the trace {t}"),
        ),
        (
            vec!["run", "--trace", t, "--scheduler", "easy", "--swf-out", l],
            format!("--swf-out {l}: is the trace {t}"),
        ),
        (
            vec!["run", "--trace", t, "--scheduler", "easy", "--timeline-out", h],
            format!("--timeline-out {h}: is the trace"),
        ),
        (
            vec!["run", "--trace", t, "--scheduler", "easy", "--jobs-out", &dotted],
            "is the trace".into(),
        ),
        (
            vec![
                "run",
                "--trace",
                t,
                "--scheduler",
                "easy",
                "--jobs-out",
                a,
                "--swf-out",
                a,
            ],
            format!("--swf-out {a}: is also given to --jobs-out"),
        ),
        (
            vec!["utility", "augment", t, "--priorities", "sdsc-blue", "--out", l],
            format!("--out {l}: is the trace {t}"),
        ),
        (
            vec!["trace", "resample", t, "--resample", "shake", "--out", h],
            format!("--out {h}: is the trace {t}"),
        ),
    ];
    for (args, expected) in cases {
        assert_refused(&args, &expected);
        assert_eq!(std::fs::read_to_string(&trace).unwrap(), body, "{args:?}");
        assert!(!csv.exists(), "{args:?}");
    }
    // Special files take any number of outputs.
    let ok = schedlab(&[
        "run",
        "--trace",
        t,
        "--scheduler",
        "easy",
        "--jobs-out",
        "/dev/null",
        "--swf-out",
        "/dev/null",
    ]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    // compare refuses to write over either run.
    assert!(
        schedlab(&["run", "--trace", t, "--scheduler", "easy", "--jobs-out", a])
            .status
            .success()
    );
    assert_refused(
        &["compare", a, a, "--out", a],
        &format!("--out {a}: is the first run {a}"),
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_sweeps_on_one_folder_never_both_write() {
    // Started together on one --out, two sweeps of different specs: one writes, the other is
    // refused (by the folder's lock while the first runs, by the spec hash after), and the
    // folder holds the winner's results whole. Before the lock both exited 0 in 8 of 10
    // trials and one result set was lost (issue 40).
    let dir = common::scratch("cli-two-writers");
    let spec = |seed: u32| {
        let path = dir.join(format!("s{seed}.toml"));
        std::fs::write(
            &path,
            format!(
                "name = \"two\"\nseed = {seed}\nmetrics = [\"mean_wait\"]\n[run]\nmodel = \"lublin\"\n\
                 procs = 64\njobs = 3000\n[axes]\nscheduler = [\"fcfs\", \"easy\", \"conservative\"]\n\
                 [replications]\ncount = 4\n"
            ),
        )
        .unwrap();
        path
    };
    let specs = [spec(1), spec(2)];
    for trial in 0..4 {
        let out = dir.join(format!("out{trial}"));
        let children: Vec<_> = specs
            .iter()
            .map(|s| {
                Command::new(env!("CARGO_BIN_EXE_schedlab"))
                    .args(["sweep", s.to_str().unwrap(), "--quiet", "--threads", "1", "--out"])
                    .arg(&out)
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let results: Vec<_> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        let won: Vec<usize> = (0..2).filter(|&i| results[i].status.success()).collect();
        assert_eq!(won.len(), 1, "trial {trial}: exactly one writes");
        let lost = &results[1 - won[0]];
        let err = String::from_utf8_lossy(&lost.stderr);
        assert_eq!(lost.status.code(), Some(2), "{err}");
        assert!(
            err.contains("another writer holds this folder")
                || err.contains("holds the results of another spec"),
            "{err}"
        );
        let written = std::fs::read_to_string(out.join("spec.toml")).unwrap();
        assert_eq!(written, std::fs::read_to_string(&specs[won[0]]).unwrap());
        let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
        assert_eq!(runs.lines().count(), 1 + 3 * 4, "{runs}");
        assert!(!out.join(".lock").exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn trace_info_shows_how_the_jobs_fall_on_a_machines_partitions() {
    let dir = common::scratch("cli-machine-fit");
    // Partition (field 16) 1: two jobs of 4 and 16 processors; 2: one of 2; 3: one of 1.
    let trace = dir.join("parts.swf");
    std::fs::write(
        &trace,
        "; MaxProcs: 32\n\
         1 0 0 100 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n\
         2 100 0 100 16 -1 -1 16 100 -1 1 1 1 1 1 1 -1 -1\n\
         3 200 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 2 -1 -1\n\
         4 300 0 100 1 -1 -1 1 100 -1 1 1 1 1 1 3 -1 -1\n",
    )
    .unwrap();
    let machine = dir.join("m.toml");
    std::fs::write(
        &machine,
        "[[partition]]\nname = \"batch\"\n[[partition.nodes]]\ncount = 2\ncores = 4\n\
         [[partition]]\nname = \"debug\"\n[[partition.nodes]]\ncount = 1\ncores = 2\n",
    )
    .unwrap();
    let (t, m) = (trace.to_str().unwrap(), machine.to_str().unwrap());
    let out = schedlab(&["trace", "info", t, "--machine", m]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Offered load of batch: (400 + 1600) / (8 x 300).
    assert!(
        text.contains("partition      batch: 8 cores, 2 jobs (largest 16 processors, 1 larger than the partition), offered load 0.8333"),
        "{text}"
    );
    assert!(
        text.contains("partition      debug: 2 cores, 1 jobs (largest 2 processors), offered load 0.3333"),
        "{text}"
    );
    assert!(text.contains("unplaced       1 of partition 3"), "{text}");
    let out = schedlab(&["trace", "info", t, "--machine", m, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["fit"]["partitions"][0]["too_large"], 1);
    assert_eq!(json["fit"]["unplaced"]["3"], 1);
    assert_eq!(json["jobs"], 4);
    // A bad description is refused naming the file and the key.
    std::fs::write(
        &machine,
        "[[partition]]\nname = \"batch\"\n[[partition.nodes]]\ncount = 0\ncores = 4\n",
    )
    .unwrap();
    assert_refused(
        &["trace", "info", t, "--machine", m],
        "m.toml: partition[0].nodes[0].count = 0: expected a whole number from 1 to 1048576",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_single_run_says_when_it_saturated() {
    // Sweeps stop saturated runs; a single run warns (issue 42): at an offered load of 1.5
    // the last job ends long after the last arrival, at 0.6 it does not.
    let run = |load: &str| {
        schedlab(&[
            "run",
            "--model",
            "lublin",
            "--param",
            "jobs=3000",
            "--param",
            &format!("load={load}"),
            "--scheduler",
            "easy",
        ])
    };
    let out = run("1.5");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("after the last arrival") && err.contains("a saturated run"),
        "{err}"
    );
    // The load asked for is itself said to be too high, as for a trace.
    assert!(
        err.contains("model lublin: offered load 1.5 is at least 1"),
        "{err}"
    );
    let out = run("0.6");
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn misspelt_names_get_a_suggestion() {
    assert_refused(
        &[
            "run",
            "--model",
            "lublin",
            "--param",
            "laod=0.5",
            "--scheduler",
            "easy",
        ],
        "laod: not a parameter of model lublin (did you mean 'load'?)",
    );
    assert_refused(
        &["run", "--model", "lublin", "--scheduler", "esay"],
        "(did you mean 'easy'?)",
    );
    assert_refused(
        &["run", "--model", "lublin", "--scheduler", "ga(populaton=3)"],
        "unknown parameter 'populaton' (did you mean 'population'?)",
    );
    // Without a workload, both ways of giving one are named.
    assert_refused(
        &["run", "--scheduler", "easy"],
        "<--trace <TRACE>|--model <MODEL>>",
    );
}

/// Each job's energy and carbon in `--jobs-out`, by hand: one node of 2 cores at 100 W idle
/// and 300 W busy (a job's core counts at 150 W, its busy share), a series at 100 g/kWh
/// for the first hour and 300 after. Job 1 (2 cores, 0-7,200 s) draws 300 W: 2,160,000 J;
/// 0.3 kWh at 100 g and 0.3 at 300: 120 g. Job 2 (1 core, submitted at 7,200, 1,800 s)
/// draws 150 W: 270,000 J; 0.075 kWh at 300 g: 22.5 g. An hour's offset: job 1 180 g.
/// The energies sum to the run's `jobs_kwh`; without the series there is no `carbon_g`,
/// without a power model neither column; `compare` reads all three files.
#[test]
fn jobs_out_carries_each_jobs_energy_and_carbon_by_hand() {
    let dir = common::scratch("cli-job-costs");
    let path = |name: &str| dir.join(name).display().to_string();
    std::fs::write(
        path("m.toml"),
        "[[partition]]\nname = \"p\"\ndefault = true\n[[partition.nodes]]\ncount = 1\ncores = 2\n\
         idle_w = 100\nbusy_w = 300\n",
    )
    .unwrap();
    std::fs::write(path("i.csv"), "time,gco2_per_kwh\n0,100\n3600,300\n").unwrap();
    std::fs::write(
        path("t.swf"),
        "; MaxProcs: 2\n1 0 -1 7200 2 -1 -1 2 7200 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 7200 -1 1800 1 -1 -1 1 1800 -1 1 1 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    // The run's `--jobs-out` rows and its JSON summary.
    let run = |out: &str, extra: &[&str]| -> (Vec<String>, serde_json::Value) {
        let (trace, out) = (path("t.swf"), path(out));
        let mut args = vec![
            "run",
            "--trace",
            &trace,
            "--scheduler",
            "fcfs",
            "--json",
            "--jobs-out",
            &out,
        ];
        args.extend(extra);
        let done = schedlab(&args);
        assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
        let rows = std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        (rows, serde_json::from_slice(&done.stdout).unwrap())
    };
    let (machine, series) = (path("m.toml"), path("i.csv"));
    let (rows, json) = run("carbon.csv", &["--machine", &machine, "--carbon", &series]);
    let header: Vec<&str> = rows[0].split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (energy, carbon) = (column("energy_j"), column("carbon_g"));
    assert_eq!(header[energy + 1..], ["carbon_g", "predictions"]);
    let value = |row: usize, k: usize| -> f64 { rows[row].split(',').nth(k).unwrap().parse().unwrap() };
    assert_eq!((value(1, energy), value(2, energy)), (2_160_000.0, 270_000.0));
    assert!((value(1, carbon) - 120.0).abs() < 1e-6, "{}", rows[1]);
    assert!((value(2, carbon) - 22.5).abs() < 1e-6, "{}", rows[2]);
    let jobs_kwh = json["energy"]["jobs_kwh"].as_f64().unwrap();
    assert!((jobs_kwh * 3.6e6 - 2_430_000.0).abs() < 1e-6, "{json}");
    // An hour's offset reads 300 g/kWh throughout.
    let (rows, _) = run(
        "late.csv",
        &[
            "--machine",
            &machine,
            "--carbon",
            &series,
            "--carbon-offset",
            "3600",
        ],
    );
    assert_eq!(rows[1].split(',').nth(carbon), Some("180.000000"), "{}", rows[1]);
    let (rows, _) = run("energy.csv", &["--machine", &machine]);
    assert!(rows[0].ends_with(",user,energy_j,predictions"), "{}", rows[0]);
    let (rows, _) = run("plain.csv", &[]);
    assert!(rows[0].ends_with(",user,predictions"), "{}", rows[0]);
    for with_costs in ["carbon.csv", "energy.csv"] {
        let done = schedlab(&["compare", &path(with_costs), &path("plain.csv")]);
        assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A run assembled from a machine's partitions weighs each job's predictions as the
/// partition's run alone does: on two partitions of 16 one-core nodes, partition 1 under
/// SJBF with a predictor whose every prediction is outlived (so predictions change) and
/// partition 2 under FCFS on the estimates (none changes), each job's prediction, misses,
/// inaccuracy and accuracy in `--jobs-out` are those of its partition's jobs replayed alone.
#[test]
fn partitions_weigh_their_predictions_as_alone() {
    let dir = common::scratch("cli-partition-accuracy");
    // (submit, runtime, procs, estimate, partition), spread by a small generator.
    let mut x: u64 = 7;
    let mut next = |n: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    let jobs: Vec<(u64, u64, u64, u64, u64)> = (0..300)
        .scan(0, |t, _| {
            *t += next(120);
            let runtime = 1 + next(900);
            Some((*t, runtime, 1 + next(12), runtime + next(600), 1 + next(2)))
        })
        .collect();
    let trace = |name: &str, keep: &dyn Fn(u64) -> bool, field16: bool| {
        let mut text = String::from("; MaxProcs: 32\n");
        for (i, &(submit, runtime, procs, estimate, partition)) in jobs.iter().enumerate() {
            if keep(partition) {
                let p = if field16 { partition as i64 } else { -1 };
                text.push_str(&format!(
                    "{} {submit} -1 {runtime} {procs} -1 -1 {procs} {estimate} -1 1 {} -1 -1 -1 {p} -1 -1\n",
                    i + 1,
                    1 + i % 5
                ));
            }
        }
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let machine = dir.join("m.toml");
    std::fs::write(
        &machine,
        "[[partition]]\nname = \"a\"\nswf = [1]\n[[partition.nodes]]\ncount = 16\ncores = 1\n\
         [[partition]]\nname = \"b\"\nswf = [2]\nscheduler = \"fcfs\"\n[[partition.nodes]]\ncount = 16\ncores = 1\n",
    )
    .unwrap();
    let rows = |trace: &PathBuf, extra: &[&str], name: &str| {
        let csv = dir.join(name);
        let mut args = vec![
            "run",
            "--trace",
            trace.to_str().unwrap(),
            "--jobs-out",
            csv.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = schedlab(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&csv).unwrap();
        text.lines()
            .skip(1)
            .map(|l| {
                let f: Vec<String> = l.split(',').map(String::from).collect();
                // job_id, then start, end, prediction, deadline_misses, inaccuracy, accuracy.
                (f[0].clone(), [2, 3, 10, 11, 12, 13].map(|c| f[c].clone()))
            })
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let sjbf = ["--scheduler", "sjbf", "--predictor", "constant(c=1)"];
    let both = trace("both.swf", &|_| true, true);
    let mut with_machine = sjbf.to_vec();
    with_machine.extend(["--machine", machine.to_str().unwrap()]);
    let merged = rows(&both, &with_machine, "merged.csv");
    let a = trace("a.swf", &|p| p == 1, false);
    let mut alone = rows(&a, &[&sjbf[..], &["--procs", "16"]].concat(), "a.csv");
    let b = trace("b.swf", &|p| p == 2, false);
    alone.extend(rows(&b, &["--scheduler", "fcfs", "--procs", "16"], "b.csv"));
    assert_eq!(merged.len(), 300);
    assert_eq!(merged, alone);
    // Partition 1's predictions changed, partition 2's did not.
    assert!(merged.values().any(|r| r[3] != "0"));
    std::fs::remove_dir_all(&dir).unwrap();
}
