//! Sweeps: determinism across threads and shards, resume, merge refusals, spec validation,
//! sequential stopping against a metric of known variance, saturation.

use crate::common;
use schedlab::experiment::Experiment;
use std::fs;
use std::path::{Path, PathBuf};

use schedlab::metrics::registry::Range;
use schedlab::sweep::merge::merge;
use schedlab::sweep::runs::read_runs;
use schedlab::sweep::stats::estimate;
use schedlab::sweep::{Plan, RunOptions, Shard, run_sweep};

const SMALL: &str = r#"
name = "small"
seed = 7
metrics = ["mean_wait", "mean_bsld", "utilization", "jobs"]

[run]
model = "downey"
procs = 64
days = 3

[axes]
load = [0.5, 0.9]
scheduler = ["fcfs", "easy", "sjbf", "conservative"]

[[exclude]]
scheduler = "fcfs"
load = 0.9

[replications]
min = 3
max = 9
batch = 2
target = 0.08
metric = "mean_wait"

[[plot]]
metric = "mean_wait"
x = "load"
series = "scheduler"
"#;

fn plan_from(text: &str, dir: &Path) -> Plan {
    let path = dir.join("spec.toml");
    fs::write(&path, text).unwrap();
    Plan::from_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn options(out: &Path, threads: usize) -> RunOptions {
    RunOptions {
        threads: Some(threads),
        out: out.to_path_buf(),
        shard: None,
        resume: false,
        force: false,
        quiet: true,
        cancel: None,
    }
}

/// Every output file's name and bytes, sorted by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn assert_same_outputs(a: &Path, b: &Path) {
    let (fa, fb) = (files(a), files(b));
    let names = |f: &[(String, Vec<u8>)]| f.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&fa), names(&fb), "{} vs {}", a.display(), b.display());
    for ((name, x), (_, y)) in fa.iter().zip(&fb) {
        assert!(
            x == y,
            "{name} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

#[test]
fn outputs_are_byte_identical_for_any_thread_count() {
    let dir = common::scratch("sweep-threads");
    let plan = plan_from(SMALL, &dir);
    assert_eq!(plan.cells.len(), 7);
    for threads in [1, 2, 4, 16] {
        run_sweep(&plan, &options(&dir.join(format!("t{threads}")), threads)).unwrap();
    }
    for threads in [2, 4, 16] {
        assert_same_outputs(&dir.join("t1"), &dir.join(format!("t{threads}")));
    }
    let names: Vec<String> = files(&dir.join("t1")).into_iter().map(|f| f.0).collect();
    for expected in [
        "runs.csv",
        "summary.csv",
        "summary.json",
        "summary.md",
        "spec.toml",
        "spec.hash",
    ] {
        assert!(
            names.contains(&expected.to_string()),
            "{expected} missing: {names:?}"
        );
    }
    assert!(names.contains(&"mean_wait_vs_load_by_scheduler.svg".to_string()));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shards_merge_into_the_single_process_result() {
    let dir = common::scratch("sweep-shards");
    let plan = plan_from(SMALL, &dir);
    run_sweep(&plan, &options(&dir.join("single"), 2)).unwrap();
    for split in [2usize, 3, 7] {
        let shards: Vec<PathBuf> = (0..split).map(|k| dir.join(format!("s{split}-{k}"))).collect();
        for (k, out) in shards.iter().enumerate() {
            let mut o = options(out, 1);
            o.shard = Some(Shard {
                index: k,
                count: split,
            });
            run_sweep(&plan, &o).unwrap();
        }
        let merged = dir.join(format!("merged{split}"));
        merge(&shards, &merged, false).unwrap();
        assert_same_outputs(&dir.join("single"), &merged);
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn merge_refuses_mismatched_duplicate_and_missing_shards() {
    let dir = common::scratch("sweep-refuse");
    let plan = plan_from(SMALL, &dir);
    let shards: Vec<PathBuf> = (0..2).map(|k| dir.join(format!("s{k}"))).collect();
    for (k, out) in shards.iter().enumerate() {
        let mut o = options(out, 1);
        o.shard = Some(Shard { index: k, count: 2 });
        run_sweep(&plan, &o).unwrap();
    }
    let err = merge(&shards[..1], &dir.join("m1"), false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing") && err.contains("scheduler="), "{err}");
    let err = merge(
        &[shards[0].clone(), shards[0].clone(), shards[1].clone()],
        &dir.join("m2"),
        false,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("in both"), "{err}");
    let other = plan_from(
        &SMALL.replace("seed = 7", "seed = 8"),
        &dir.join("other-spec").tap_mkdir(),
    );
    let mut o = options(&dir.join("other"), 1);
    o.shard = Some(Shard { index: 1, count: 2 });
    run_sweep(&other, &o).unwrap();
    let err = merge(&[shards[0].clone(), dir.join("other")], &dir.join("m3"), false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("different spec"), "{err}");
    // The output folder: not a shard, not another spec's results (unless forced), and not
    // while another writer holds it.
    let err = merge(&shards, &shards[1], false).unwrap_err().to_string();
    assert!(
        err.contains("is the shard") && err.contains("would replace its runs"),
        "{err}"
    );
    let err = merge(&shards, &dir.join("other"), false).unwrap_err().to_string();
    assert!(
        err.contains("holds the results of another spec") && err.contains("--force"),
        "{err}"
    );
    let held = schedlab::sweep::lock::FolderLock::take(&dir.join("m4").tap_mkdir(), "a test").unwrap();
    let err = merge(&shards, &dir.join("m4"), false).unwrap_err().to_string();
    assert!(
        err.contains("another writer holds this folder (a test, process"),
        "{err}"
    );
    let err = run_sweep(&plan, &options(&dir.join("m4"), 1))
        .unwrap_err()
        .to_string();
    assert!(err.contains("another writer holds this folder"), "{err}");
    drop(held);
    merge(&shards, &dir.join("m4"), false).unwrap();
    merge(&shards, &dir.join("other"), true).unwrap();
    assert_same_outputs(&dir.join("m4"), &dir.join("other"));
    fs::remove_dir_all(&dir).unwrap();
}

trait TapMkdir {
    fn tap_mkdir(self) -> Self;
}
impl TapMkdir for PathBuf {
    fn tap_mkdir(self) -> Self {
        fs::create_dir_all(&self).unwrap();
        self
    }
}

#[test]
fn an_interrupted_sweep_resumes_to_the_same_bytes() {
    let dir = common::scratch("sweep-resume");
    let plan = plan_from(SMALL, &dir);
    let full = dir.join("full");
    run_sweep(&plan, &options(&full, 2)).unwrap();
    // Interrupt: keep the header, some complete rows in a scrambled order and half a row,
    // and drop the summaries, as a killed run would leave them.
    let part = dir.join("part");
    fs::create_dir_all(&part).unwrap();
    for f in ["spec.toml", "spec.hash"] {
        fs::copy(full.join(f), part.join(f)).unwrap();
    }
    let text = fs::read_to_string(full.join("runs.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = vec![lines[0]];
    kept.extend(lines[1..].iter().rev().step_by(3));
    let mut journal = kept.join("\n");
    journal.push('\n');
    journal.push_str(&lines[1][..lines[1].len() / 2]);
    fs::write(part.join("runs.csv"), journal).unwrap();
    let mut o = options(&part, 3);
    o.resume = true;
    let report = run_sweep(&plan, &o).unwrap();
    assert!(report.tasks_resumed > 0 && report.tasks_run > 0);
    assert_same_outputs(&full, &part);
    fs::remove_dir_all(&dir).unwrap();
}

/// The journal protects itself: an edited metric, a NaN, a flipped `saturated`, an edited
/// seed or a row recorded twice is refused by `--resume` and by `merge`, naming the line.
#[test]
fn tampered_journals_are_refused_naming_the_line() {
    let dir = common::scratch("sweep-tamper");
    let plan = plan_from(SMALL, &dir);
    let full = dir.join("full");
    run_sweep(&plan, &options(&full, 2)).unwrap();
    let text = fs::read_to_string(full.join("runs.csv")).unwrap();
    let lines: Vec<String> = text.lines().map(String::from).collect();
    // Row 2 (line 3) as fields: load, scheduler, rep, seed, saturated, 4 metrics, check.
    let fields: Vec<String> = lines[2].split(',').map(String::from).collect();
    let edit = |k: usize, v: &str| {
        let mut f = fields.clone();
        f[k] = v.to_string();
        f.join(",")
    };
    let cases = [
        (edit(5, "1234.5"), "does not match its check"),
        (edit(5, "NaN"), "does not match its check"),
        (
            edit(4, if fields[4] == "true" { "false" } else { "true" }),
            "does not match its check",
        ),
        (edit(3, "42"), "does not match its check"),
        (lines[1].clone(), "recorded again (first on line 2)"),
    ];
    for (i, (row, needle)) in cases.into_iter().enumerate() {
        let part = dir.join(format!("part{i}"));
        fs::create_dir_all(&part).unwrap();
        for f in ["spec.toml", "spec.hash", "spec.dir", "summary.json"] {
            fs::copy(full.join(f), part.join(f)).unwrap();
        }
        let mut journal = lines.clone();
        journal[2] = row;
        fs::write(part.join("runs.csv"), journal.join("\n") + "\n").unwrap();
        let mut o = options(&part, 1);
        o.resume = true;
        let err = run_sweep(&plan, &o).unwrap_err().to_string();
        assert!(
            err.contains("runs.csv:3: ") && err.contains(needle),
            "{needle}: {err}"
        );
        let err = schedlab::sweep::merge::merge(std::slice::from_ref(&part), &dir.join("merged"), false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("runs.csv:3: ") && err.contains(needle),
            "merge, {needle}: {err}"
        );
    }
    // A seed that matches its check but not the spec (a row written for another seed).
    let mut f = fields.clone();
    f[3] = "42".into();
    f.pop();
    let body = f.join(",");
    let part = dir.join("seed");
    fs::create_dir_all(&part).unwrap();
    for name in ["spec.toml", "spec.hash"] {
        fs::copy(full.join(name), part.join(name)).unwrap();
    }
    let mut bytes = Vec::new();
    for field in &f {
        bytes.extend_from_slice(field.as_bytes());
        bytes.push(0x1f);
    }
    let check = format!("{:08x}", schedlab::seed::fnv1a(&bytes) as u32);
    let mut journal = lines.clone();
    journal[2] = format!("{body},{check}");
    fs::write(part.join("runs.csv"), journal.join("\n") + "\n").unwrap();
    let mut o = options(&part, 1);
    o.resume = true;
    let err = run_sweep(&plan, &o).unwrap_err().to_string();
    assert!(
        err.contains("runs.csv:3: seed: 42 is not the spec's seed"),
        "{err}"
    );
    // An edited spec.toml is named as such by merge.
    let edited = dir.join("edited");
    fs::create_dir_all(&edited).unwrap();
    for name in ["runs.csv", "spec.hash", "spec.dir", "summary.json"] {
        fs::copy(full.join(name), edited.join(name)).unwrap();
    }
    fs::write(edited.join("spec.toml"), SMALL.replace("seed = 7", "seed = 8")).unwrap();
    let err = schedlab::sweep::merge::merge(&[edited], &dir.join("merged"), false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("edited after the run"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

/// One cell whose metric is a Poisson count: the number of jobs in one day of the Downey
/// model has mean lambda * 12 h = rho * 64 / E[L] * 43200 = 84.9, so its coefficient of
/// variation is 1 / sqrt(84.9) = 0.1085 and a 95% interval within +-2% of the mean needs
/// about (1.96 * 0.1085 / 0.02)^2 = 113 replications.
const POISSON_CELL: &str = r#"
metrics = ["jobs"]
[run]
model = "downey"
procs = 64
rho = 0.5
days = 1
scheduler = "fcfs"
[replications]
min = 10
max = 1000
batch = 10
target = 0.02
confidence = 0.95
metric = "jobs"
"#;

#[test]
fn sequential_stopping_reaches_the_target_on_a_poisson_count() {
    let dir = common::scratch("sweep-stopping");
    let plan = plan_from(POISSON_CELL, &dir);
    run_sweep(&plan, &options(&dir.join("out"), 2)).unwrap();
    let runs = read_runs(&dir.join("out/runs.csv"), &plan).unwrap();
    let jobs: Vec<f64> = runs.iter().map(|r| r.metrics[0]).collect();
    let n = jobs.len();
    assert!((60..=200).contains(&n), "stopped after {n} replications");
    let e = estimate(&jobs, 0.95, Range::NonNegative);
    assert!(e.meets(0.02));
    assert!(
        !estimate(&jobs[..n - 10], 0.95, Range::NonNegative).meets(0.02),
        "should have stopped one batch earlier"
    );
    let expected_mean =
        0.5 * 64.0 / schedlab::workload::synth::DowneyParams::default().mean_lifetime() * 43200.0;
    assert!(
        (e.mean - expected_mean).abs() < 3.0 * e.half_width.max(1.0),
        "mean {} vs {expected_mean}",
        e.mean
    );
    let var = e.sd * e.sd;
    assert!(
        (var / expected_mean - 1.0).abs() < 0.5,
        "variance {var} vs Poisson {expected_mean}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn running_ahead_changes_no_result() {
    // POISSON_CELL needs about 113 replications in batches of 10: with threads to spare,
    // the runner starts batches past the current one, up to the count the interval
    // projects. Whatever it runs ahead, the outputs are those of one thread, which never
    // runs ahead, and what it ran but did not need is counted, not written.
    let dir = common::scratch("sweep-ahead");
    let plan = plan_from(POISSON_CELL, &dir);
    let one = run_sweep(&plan, &options(&dir.join("t1"), 1)).unwrap();
    assert_eq!(one.tasks_unused, 0);
    let mut ahead = 0;
    for round in 0..3 {
        let out = dir.join(format!("t16-{round}"));
        let many = run_sweep(&plan, &options(&out, 16)).unwrap();
        assert_same_outputs(&dir.join("t1"), &out);
        assert_eq!(many.tasks_run, one.tasks_run + many.tasks_unused);
        ahead += many.tasks_unused;
    }
    eprintln!("replications run ahead and not needed, over 3 sweeps: {ahead}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_deterministic_cell_stops_at_min() {
    let dir = common::scratch("sweep-deterministic");
    let trace = format!("{}/tests/golden/easy_extra.swf", env!("CARGO_MANIFEST_DIR"));
    let spec = format!(
        r#"
metrics = ["mean_wait"]
[run]
trace = "{trace}"
[axes]
scheduler = ["easy", "conservative"]
[replications]
min = 2
max = 50
target = 0.01
metric = "mean_wait"
"#
    );
    let plan = plan_from(&spec, &dir);
    run_sweep(&plan, &options(&dir.join("out"), 1)).unwrap();
    assert_eq!(read_runs(&dir.join("out/runs.csv"), &plan).unwrap().len(), 4);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_overloaded_system_is_recorded_as_saturated() {
    let dir = common::scratch("sweep-saturation");
    let spec = r#"
metrics = ["mean_response", "jobs", "utilization"]
[run]
model = "downey"
procs = 32
load = 4.0
scheduler = "fcfs"
[measure]
warmup = 100
window = 400
saturation = 600
[replications]
count = 2
"#;
    let plan = plan_from(spec, &dir);
    run_sweep(&plan, &options(&dir.join("out"), 2)).unwrap();
    let runs = read_runs(&dir.join("out/runs.csv"), &plan).unwrap();
    assert_eq!(runs.len(), 2);
    for r in &runs {
        assert!(r.saturated);
        assert!(r.metrics[0].is_infinite());
        assert_eq!(r.metrics[1], 400.0);
    }
    let summary = fs::read_to_string(dir.join("out/summary.md")).unwrap();
    assert!(summary.contains("saturated"), "{summary}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_measure_window_counts_only_its_jobs() {
    let dir = common::scratch("sweep-window");
    let spec = r#"
metrics = ["jobs", "mean_wait"]
[run]
model = "downey"
procs = 128
load = 0.5
scheduler = "easy"
[measure]
warmup = 50
window = 300
saturation = 1000
[replications]
count = 3
"#;
    let plan = plan_from(spec, &dir);
    run_sweep(&plan, &options(&dir.join("out"), 1)).unwrap();
    let runs = read_runs(&dir.join("out/runs.csv"), &plan).unwrap();
    assert!(
        runs.iter().all(|r| !r.saturated && r.metrics[0] == 300.0),
        "{runs:?}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// Each kind of mistake gets a message naming the key, the value and what is allowed.
#[test]
fn spec_mistakes_are_named() {
    let dir = common::scratch("sweep-validation");
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "\"fcfs\", \"easy\",",
            "\"fcfs\", \"easyy\",",
            &["easyy", "conservative", "scheduler=easyy"],
        ),
        (
            "metrics = [\"mean_wait\", \"mean_bsld\", \"utilization\", \"jobs\"]",
            "metrics = [\"mean_wiat\"]",
            &["mean_wiat", "mean_wait"],
        ),
        ("days = 3", "dayz = 3", &["dayz", "days"]),
        (
            "load = [0.5, 0.9]",
            "load = { from = 0.9, to = 0.5, step = 0.1 }",
            &["axes.load", "to >= from"],
        ),
        ("load = 0.9\n", "lod = 0.9\n", &["exclude[0].lod", "not an axis"]),
        ("min = 3", "min = 1", &["replications", "min = 1"]),
        ("target = 0.08", "target = -1.0", &["replications.target", "-1"]),
        ("x = \"load\"", "x = \"procs\"", &["plot[0]", "procs"]),
        (
            "model = \"downey\"",
            "model = \"feitelson\"",
            &["feitelson", "downey, lublin"],
        ),
        (
            "model = \"downey\"",
            "model = \"downey\"\ntrace = \"x.swf\"",
            &["both model and trace"],
        ),
        (
            "model = \"downey\"\nprocs = 64\ndays = 3",
            "trace = \"no/such/trace.swf\"",
            &["no/such/trace.swf", "does not exist"],
        ),
        (
            "model = \"downey\"\nprocs = 64\ndays = 3",
            "trace = \"x.swf\"\ndays = 3",
            &["days", "not a parameter of a trace"],
        ),
        ("seed = 7", "seed = 7\nsurprise = 1", &["surprise"]),
        ("load = [0.5, 0.9]", "load = [-0.5, 0.9]", &["load=-0.5", "load"]),
        (
            "load = [0.5, 0.9]",
            "load = [0.5, 0.9, 0.5]",
            &["axes.load", "0.5 is listed twice"],
        ),
        (
            "load = 0.9\n",
            "load = 0.7\n",
            &["exclude[0].load = 0.7", "matches nothing"],
        ),
        (
            "days = 3",
            "days = 3\nload = 0.5",
            &["axes.load", "also set in [run]"],
        ),
        (
            "load = [0.5, 0.9]",
            "load = { from = 0.5, to = nan, step = 0.1 }",
            &["axes.load", "finite"],
        ),
        (
            "\"jobs\"]",
            "\"jobs\", \"mean_wait\"]",
            &["mean_wait", "listed twice"],
        ),
    ];
    for (from, to, needles) in cases {
        assert!(SMALL.contains(from), "test case does not apply: {from}");
        let text = SMALL.replacen(from, to, 1);
        let path = dir.join("bad.toml");
        fs::write(&path, &text).unwrap();
        let err = Plan::from_file(&path).expect_err(to).to_string();
        assert!(err.contains("bad.toml"), "{err}");
        for needle in *needles {
            assert!(err.contains(needle), "error for `{to}` lacks '{needle}': {err}");
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// Grids, axes and replication counts past their bounds are refused when the spec is read,
/// before any cell is built: a 10^20-combination grid in milliseconds, not by aborting.
#[test]
fn sizes_past_their_bounds_are_refused_before_anything_is_built() {
    let dir = common::scratch("sweep-bounds");
    let huge_axes = (0..10)
        .map(|i| format!("x{i} = {{ from = 1, to = 100, step = 1 }}"))
        .collect::<Vec<_>>()
        .join("\n");
    let cases: Vec<(&str, String, &[&str])> = vec![
        (
            "load = [0.5, 0.9]",
            format!("load = [0.5, 0.9]\n{huge_axes}"),
            &["axes: 2 x 100 x", "8.000e20 combinations", "above the 1000000"],
        ),
        (
            "load = [0.5, 0.9]",
            "load = { from = 0.001, to = 0.9, step = 0.00001 }".to_string(),
            &["axes.load", "values, above the 10000 an axis may have"],
        ),
        (
            "min = 3\nmax = 9\nbatch = 2\ntarget = 0.08\nmetric = \"mean_wait\"",
            "count = 1000000000000".to_string(),
            &["replications.count = 1000000000000", "at most 100000"],
        ),
        (
            "max = 9",
            "max = 1000000000000".to_string(),
            &["replications.max = 1000000000000"],
        ),
        ("max = 9", "max = 100000".to_string(), &[]),
    ];
    // The last case is within the bound (below): the runs a grid may record count its cells.
    for (from, to, needles) in &cases[..4] {
        assert!(SMALL.contains(from), "test case does not apply: {from}");
        let path = dir.join("bad.toml");
        fs::write(&path, SMALL.replacen(from, to, 1)).unwrap();
        let started = std::time::Instant::now();
        let err = Plan::from_file(&path).expect_err(to).to_string();
        assert!(
            started.elapsed().as_secs() < 10,
            "refused only after {:?}",
            started.elapsed()
        );
        for needle in *needles {
            assert!(err.contains(needle), "error for `{to}` lacks '{needle}': {err}");
        }
    }
    // 7 cells x 100,000 replications is within the bound; 2,000 cells would not be.
    let (from, to, _) = &cases[4];
    let path = dir.join("ok.toml");
    fs::write(&path, SMALL.replacen(from, to, 1)).unwrap();
    Plan::from_file(&path).unwrap();
    let wide = SMALL.replacen(from, to, 1).replacen(
        "load = [0.5, 0.9]",
        "load = { from = 0.001, to = 0.9, step = 0.001 }",
        1,
    );
    fs::write(&path, wide).unwrap();
    let err = Plan::from_file(&path).unwrap_err().to_string();
    assert!(err.contains("cells x 100000 replications"), "{err}");
    assert!(err.contains("above the 10000000 a sweep may record"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_quick_demo_spec_is_valid() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sweeps/quick.toml");
    let plan = Plan::from_file(&path).unwrap();
    assert!(plan.cells.len() >= 8);
}

/// `benches/scaling.py --processes` runs the contention sweep as 16 one-thread shards, one
/// cell each, so it must plan 16 cells.
#[test]
fn the_contention_bench_spec_is_valid() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/sweeps/contention.toml");
    let plan = Plan::from_file(&path).unwrap();
    assert_eq!(plan.cells.len(), 16);
}

#[test]
fn a_trace_sweep_scales_the_load_and_selects_jobs() {
    let Some(_) = std::fs::metadata(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz"
    ))
    .ok() else {
        eprintln!("SKIPPED: ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz is absent");
        return;
    };
    let dir = common::scratch("sweep-trace");
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz"
    );
    let spec = format!(
        r#"
metrics = ["jobs", "mean_wait", "utilization"]
[run]
trace = "{trace}"
jobs = "1..=4000"
scheduler = "easy"
[axes]
load = [0.5, 0.9]
[replications]
count = 2
"#
    );
    let plan = plan_from(&spec, &dir);
    run_sweep(&plan, &options(&dir.join("out"), 2)).unwrap();
    let runs = read_runs(&dir.join("out/runs.csv"), &plan).unwrap();
    assert_eq!(runs.len(), 4);
    // A trace is deterministic: both replications agree.
    assert_eq!(runs[0].metrics, runs[1].metrics);
    let (low, high) = (&runs[0].metrics, &runs[2].metrics);
    assert!(low[0] > 3900.0 && low[0] == high[0], "jobs {low:?} {high:?}");
    assert!(
        high[1] > low[1],
        "mean wait should grow with load: {} vs {}",
        low[1],
        high[1]
    );
    assert!(
        high[2] > low[2],
        "utilization should grow with load: {} vs {}",
        low[2],
        high[2]
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn predictor_is_an_axis_and_shares_workloads() {
    let dir = common::scratch("sweep-predictor");
    let spec = r#"
metrics = ["mean_wait", "absolute_inaccuracy", "relative_accuracy", "deadline_misses"]
[run]
model = "downey"
procs = 64
days = 3
[axes]
scheduler = ["easy", "sjbf"]
predictor = ["perfect", "constant(c=1)"]
[[exclude]]
scheduler = "easy"
predictor = "constant(c=1)"
[replications]
count = 2
"#;
    // easy x perfect is refused: EASY does not use predictions.
    let path = dir.join("bad.toml");
    fs::write(&path, spec).unwrap();
    let err = Plan::from_file(&path).unwrap_err().to_string();
    assert!(
        err.contains("does not use runtime predictions") && err.contains("scheduler=easy"),
        "{err}"
    );
    let spec = spec.replace(
        "scheduler = \"easy\"\npredictor = \"constant(c=1)\"",
        "scheduler = \"easy\"",
    );
    let spec = spec.replace(
        "scheduler = [\"easy\", \"sjbf\"]",
        "scheduler = [\"sjbf\", \"easy-pred\"]",
    );
    let spec = spec.replace("[[exclude]]\nscheduler = \"easy\"\n", "");
    let plan = plan_from(&spec, &dir);
    assert_eq!(plan.cells.len(), 4);
    run_sweep(&plan, &options(&dir.join("out"), 2)).unwrap();
    let runs = read_runs(&dir.join("out/runs.csv"), &plan).unwrap();
    // Perfect predictions: no misses, relative accuracy 1; constant(c=1): many misses.
    for r in &runs {
        let perfect = matches!(
            &plan.cells[r.cell].experiment,
            Experiment::Rigid(rigid) if rigid.predictor == Some(schedlab::predict::PredictorKind::Perfect)
        );
        assert_eq!(r.metrics[3] == 0.0, perfect, "{r:?}");
        if perfect {
            assert!((r.metrics[2] - 1.0).abs() < 1e-9);
        }
    }
    // The predictor does not change the workload: same seeds across predictors.
    let seeds: std::collections::BTreeSet<u64> = runs.iter().map(|r| r.seed).collect();
    assert_eq!(seeds.len(), 2);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn strategy_is_an_axis_with_its_own_metrics_and_rules() {
    let dir = common::scratch("sweep-strategy");
    let spec = r#"
metrics = ["mean_response", "rebel_fraction", "prediction_correlation"]
[run]
model = "downey"
procs = 32
days = 4
[axes]
strategy = ["avg", "pred", "heur(k=0)"]
[replications]
count = 2
"#;
    let plan = plan_from(spec, &dir);
    assert_eq!(plan.cells.len(), 3);
    for threads in [1, 2] {
        run_sweep(&plan, &options(&dir.join(format!("t{threads}")), threads)).unwrap();
    }
    assert_same_outputs(&dir.join("t1"), &dir.join("t2"));
    let runs = read_runs(&dir.join("t1/runs.csv"), &plan).unwrap();
    // Common random numbers across strategies; AVG never rebels and predicts nothing;
    // HEUR with k = 0 gives in at once, which is AVG's schedule.
    let seeds: std::collections::BTreeSet<u64> = runs.iter().map(|r| r.seed).collect();
    assert_eq!(seeds.len(), 2);
    let of = |cell: usize, rep: usize| metrics_of(&runs, cell, rep);
    for rep in 0..2 {
        assert_eq!(of(0, rep)[1], 0.0);
        assert!(of(0, rep)[2].is_nan());
        assert_eq!(of(2, rep)[0], of(0, rep)[0]);
        assert!(of(1, rep)[2].is_finite());
    }
    for (from, to, expected) in [
        (
            "strategy = [\"avg\", \"pred\", \"heur(k=0)\"]",
            "strategy = [\"avg\", \"pedr\"]",
            "pedr",
        ),
        ("\"mean_response\",", "\"mean_wait\",", "for a malleable run"),
        ("days = 4", "days = 4\nscheduler = \"easy\"", "drop scheduler"),
    ] {
        let path = dir.join("bad.toml");
        fs::write(&path, spec.replace(from, to)).unwrap();
        let err = Plan::from_file(&path).unwrap_err().to_string();
        assert!(err.contains(expected), "{err}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn partitioning_policies_are_an_axis_normalised_by_dyn_equi() {
    let dir = common::scratch("sweep-partition");
    let spec = r#"
metrics = ["normalized_response", "mean_partition", "mean_wait"]
[run]
model = "sevcik"
workload = "wk4"
[axes]
load = [0.3, 0.5]
policy = ["dyn-equi", "aep", "sdf-max(max=1)"]
[measure]
warmup = 50
window = 500
saturation = 1000
[replications]
count = 2
[[plot]]
metric = "mean_partition"
x = "load"
facet = "policy"
"#;
    let plan = plan_from(spec, &dir);
    for threads in [1, 2] {
        run_sweep(&plan, &options(&dir.join(format!("t{threads}")), threads)).unwrap();
    }
    assert_same_outputs(&dir.join("t1"), &dir.join("t2"));
    // One plot per facet value.
    for policy in ["dyn-equi", "aep", "sdf-max_max_1_"] {
        let file = dir.join(format!("t1/mean_partition_vs_load_policy-{policy}.svg"));
        assert!(file.exists(), "{} missing", file.display());
    }
    let runs = read_runs(&dir.join("t1/runs.csv"), &plan).unwrap();
    let seeds: std::collections::BTreeSet<u64> = runs.iter().map(|r| r.seed).collect();
    assert_eq!(
        seeds.len(),
        4,
        "common random numbers across policies (2 loads x 2 reps)"
    );
    for r in &runs {
        let Experiment::Moldable(m) = &plan.cells[r.cell].experiment else {
            panic!("a partitioning cell");
        };
        match m.policy.to_string().as_str() {
            "dyn-equi" => assert_eq!(r.metrics[0], 1.0),
            "sdf-max(max=1)" => assert_eq!(r.metrics[1], 1.0),
            _ => assert!(r.metrics[0] > 0.0 && r.metrics[0].is_finite()),
        }
    }
    for (from, to, expected) in [
        (
            "[measure]\nwarmup = 50\nwindow = 500\nsaturation = 1000\n",
            "",
            "set [measure]",
        ),
        ("workload = \"wk4\"", "workload = \"wk5\"", "wk5"),
        ("\"aep\",", "\"aep(3)\",", "aep(3)"),
        ("\"mean_wait\"", "\"mean_bsld\"", "for a partitioning run"),
    ] {
        let path = dir.join("bad.toml");
        fs::write(&path, spec.replace(from, to)).unwrap();
        let err = Plan::from_file(&path).unwrap_err().to_string();
        assert!(err.contains(expected), "{expected}: {err}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// The metrics of replication `rep` of `cell`.
fn metrics_of(runs: &[schedlab::sweep::task::RunRecord], cell: usize, rep: usize) -> Vec<f64> {
    runs.iter()
        .find(|r| r.cell == cell && r.rep == rep)
        .unwrap_or_else(|| panic!("no replication {rep} of cell {cell}"))
        .metrics
        .clone()
}

/// A small hand-made trace: 400 jobs on 64 processors in queues 0-2, with recorded waits.
fn utility_trace(dir: &Path) -> PathBuf {
    let mut text = String::from("; MaxProcs: 64\n");
    for i in 0..400u64 {
        let submit = i * 97;
        let runtime = 60 + (i * 7919) % 5000;
        let procs = 1 << ((i * 31) % 6);
        let wait = (i * 13) % 900;
        text.push_str(&format!(
            "{} {submit} {wait} {runtime} {procs} -1 -1 {procs} {} -1 1 {} 1 1 {} -1 -1 -1\n",
            i + 1,
            runtime * 2,
            i % 17,
            i % 3
        ));
    }
    let path = dir.join("valued.swf");
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn utility_sweeps_share_functions_within_a_replication_and_any_thread_count() {
    let dir = common::scratch("sweep-utility");
    utility_trace(&dir);
    let spec = r#"
metrics = ["aggregate_utility", "earned_p50", "mean_wait"]
[run]
trace = "valued.swf"
priorities = "0:0,1:1,2:2"
[axes]
deadline_factor = [1, 3]
scheduler = ["easy", "prio", "ga(population=1,generations=0)", "ga(population=6,generations=4)"]
[replications]
count = 2
"#;
    let plan = plan_from(spec, &dir);
    run_sweep(&plan, &options(&dir.join("t1"), 1)).unwrap();
    run_sweep(&plan, &options(&dir.join("t2"), 2)).unwrap();
    assert_same_outputs(&dir.join("t1"), &dir.join("t2"));
    let runs = read_runs(&dir.join("t1/runs.csv"), &plan).unwrap();
    let of = |cell: usize, rep: usize| metrics_of(&runs, cell, rep);
    for (first, factor) in [(0, 1), (4, 3)] {
        for rep in 0..2 {
            // The GA without evolution is EASY on the same functions.
            assert_eq!(of(first, rep), of(first + 2, rep), "factor {factor}, rep {rep}");
        }
        // Each replication draws new functions.
        assert_ne!(of(first, 0)[0], of(first, 1)[0]);
    }
    // Longer deadlines earn more.
    assert!(of(4, 0)[0] > of(0, 0)[0]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn utility_spec_mistakes_are_named() {
    let dir = common::scratch("sweep-utility-validation");
    utility_trace(&dir);
    let base = "metrics = [\"mean_wait\"]\n[run]\ntrace = \"valued.swf\"\n[replications]\ncount = 1\n";
    let cases: &[(&str, &[&str])] = &[
        ("scheduler = \"prio\"", &["prio", "needs priorities"]),
        ("scheduler = \"ga\"", &["ga", "needs utility functions"]),
        (
            "scheduler = \"easy\"\ndecay = \"step\"",
            &["decay", "need priorities"],
        ),
        (
            "scheduler = \"easy\"\npriorities = \"0:0\"\ndecay = \"steep\"",
            &["decay = steep", "exponential"],
        ),
        (
            "scheduler = \"easy\"\npriorities = \"0:0,x\"",
            &["priority map", "item 2"],
        ),
        ("scheduler = \"ga(population=0)\"", &["population=0"]),
    ];
    for (run, needles) in cases {
        let text = base.replace("[run]\n", &format!("[run]\n{run}\n"));
        let path = dir.join("bad.toml");
        fs::write(&path, &text).unwrap();
        let err = Plan::from_file(&path).expect_err(run).to_string();
        for needle in *needles {
            assert!(err.contains(needle), "error for `{run}` lacks '{needle}': {err}");
        }
    }
    // A utility metric needs functions.
    let text = base
        .replace("[\"mean_wait\"]", "[\"aggregate_utility\"]")
        .replace("[run]\n", "[run]\nscheduler = \"easy\"\n");
    fs::write(dir.join("bad.toml"), &text).unwrap();
    let err = Plan::from_file(&dir.join("bad.toml")).unwrap_err().to_string();
    assert!(err.contains("aggregate_utility needs utility functions"), "{err}");
    // A queue the map does not cover is caught when the trace is read, naming the job.
    let text = base.replace(
        "[run]\n",
        "[run]\nscheduler = \"prio\"\npriorities = \"0:0,1:1\"\n",
    );
    let plan = plan_from(&text, &dir);
    let err = run_sweep(&plan, &options(&dir.join("out"), 1))
        .unwrap_err()
        .to_string();
    assert!(err.contains("job 3 is in queue 2"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cluster_sweeps_score_estimators_and_are_thread_independent() {
    let dir = common::scratch("sweep-cisne");
    let spec = r#"
metrics = ["dv_response", "mean_wait", "mean_queue", "jobs"]
[run]
model = "cisne"
jobs = 120
arrival_scale = 1.5
[axes]
jsp = ["fcfs", "backfilling"]
estimator = ["mpl-cpu", "historical"]
[replications]
count = 2
"#;
    let plan = plan_from(spec, &dir);
    run_sweep(&plan, &options(&dir.join("t1"), 1)).unwrap();
    run_sweep(&plan, &options(&dir.join("t2"), 2)).unwrap();
    assert_same_outputs(&dir.join("t1"), &dir.join("t2"));
    let runs = read_runs(&dir.join("t1/runs.csv"), &plan).unwrap();
    let of = |cell: usize, rep: usize| metrics_of(&runs, cell, rep);
    for rep in 0..2 {
        // The estimator does not change the run it is judged on (same seed, same jobs).
        assert_eq!(of(0, rep)[1..], of(1, rep)[1..]);
        assert_eq!(of(0, rep)[3], 120.0);
        assert!(of(0, rep)[0] > 0.0 && of(0, rep)[0].is_finite());
    }
    // Mistakes are named.
    for (bad, needle) in [
        ("jsp = [\"fcfs\", \"backfilling\"]", "jsp = [\"fcfs\", \"lifo\"]"),
        ("jobs = 120", "jobs = 120\nscheduler = \"easy\""),
        ("jobs = 120", "jobs = 120\nmode = \"offline\""),
    ]
    .map(|(from, to)| (spec.replace(from, to), to))
    {
        fs::write(dir.join("bad.toml"), &bad).unwrap();
        let err = Plan::from_file(&dir.join("bad.toml")).unwrap_err().to_string();
        assert!(
            err.contains("lifo") || err.contains("scheduler") || err.contains("off-line"),
            "{needle}: {err}"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A trace without estimates, driven past an offered load of 1, is warned about: the trace
/// when read, the load target in the plan, `summary.md` and `--dry-run`.
#[test]
fn traces_without_estimates_and_loads_past_one_are_warned_about() {
    let dir = common::scratch("sweep-warnings");
    let mut text = String::from("; MaxProcs: 4\n");
    for j in 0..40 {
        text.push_str(&format!(
            "{} {} -1 100 2 -1 -1 2 -1 -1 1 1 1 1 1 -1 -1 -1\n",
            j + 1,
            j * 60
        ));
    }
    fs::write(dir.join("plain.swf"), &text).unwrap();
    let spec = "metrics = [\"mean_wait\"]\n[run]\ntrace = \"plain.swf\"\nscheduler = \"easy\"\n[axes]\nload = [0.5, 1.2]\n[replications]\ncount = 1\n";
    let plan = plan_from(spec, &dir);
    assert_eq!(plan.warnings.len(), 1, "{:?}", plan.warnings);
    assert!(plan.warnings[0].contains("load = 1.2"));
    let report = run_sweep(&plan, &options(&dir.join("out"), 1)).unwrap();
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("no job has a user estimate")),
        "{:?}",
        report.warnings
    );
    let md = fs::read_to_string(dir.join("out/summary.md")).unwrap();
    assert!(md.contains("Warning: load = 1.2"), "{md}");
    // With estimates from Tsafrir's model there is nothing to warn about estimates.
    let modelled = spec.replace(
        "scheduler = \"easy\"\n",
        "scheduler = \"easy\"\nestimates = \"tsafrir\"\n",
    );
    let plan = plan_from(&modelled, &dir);
    let report = run_sweep(&plan, &options(&dir.join("out2"), 1)).unwrap();
    assert!(
        !report.warnings.iter().any(|w| w.contains("user estimate")),
        "{:?}",
        report.warnings
    );
    fs::remove_dir_all(&dir).unwrap();
}

const COMPARE: &str = r#"
name = "paired"
seed = 11
metrics = ["mean_wait", "utilization"]

[run]
model = "downey"
procs = 64
days = 3

[axes]
load = [0.5, 0.8]
scheduler = ["easy", "fcfs", "sjbf"]

[[exclude]]
scheduler = "fcfs"
load = 0.8

[compare]
scheduler = "easy"

[replications]
count = 6

[[plot]]
metric = "mean_wait"
x = "load"
series = "scheduler"
difference = true
"#;

/// `[compare]`: every cell but the baselines gets, per metric, the mean paired difference
/// and relative difference with Student-t intervals, equal to a recomputation from
/// runs.csv (independent of the code under test but for the t quantile of
/// `stats::estimate`); the outputs stay byte-identical across thread counts; an axis that
/// shapes the workload is refused.
#[test]
fn paired_differences_match_a_recomputation_from_runs_csv() {
    let dir = common::scratch("sweep-compare");
    let plan = plan_from(COMPARE, &dir);
    let (one, two) = (dir.join("one"), dir.join("two"));
    run_sweep(&plan, &options(&one, 1)).unwrap();
    run_sweep(&plan, &options(&two, 2)).unwrap();
    assert_same_outputs(&one, &two);
    // runs.csv by (load, scheduler, rep): [mean_wait, utilization].
    let mut runs = std::collections::HashMap::new();
    let text = fs::read_to_string(one.join("runs.csv")).unwrap();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let values = [f[5].parse::<f64>().unwrap(), f[6].parse::<f64>().unwrap()];
        runs.insert((f[0].to_string(), f[1].to_string(), f[2].to_string()), values);
    }
    let diffs = fs::read_to_string(one.join("differences.csv")).unwrap();
    let mut rows = 0;
    for line in diffs.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (load, scheduler, metric) = (f[0], f[1], f[2]);
        assert_ne!(scheduler, "easy", "baselines have no row");
        assert_eq!(f[3], "scheduler=easy");
        let m = if metric == "mean_wait" { 0 } else { 1 };
        let (mut absolute, mut relative) = (Vec::new(), Vec::new());
        for rep in 0..6 {
            let x = runs[&(load.to_string(), scheduler.to_string(), rep.to_string())][m];
            let b = runs[&(load.to_string(), "easy".to_string(), rep.to_string())][m];
            absolute.push(x - b);
            relative.push((x - b) / b);
        }
        let (a, r) = (
            estimate(&absolute, 0.95, Range::Signed),
            estimate(&relative, 0.95, Range::Change),
        );
        let close = |field: &str, want: f64| {
            let got: f64 = field.parse().unwrap();
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{line}: {got} vs {want}"
            );
        };
        assert_eq!(f[4], "6");
        close(f[5], a.mean);
        close(f[8], a.half_width);
        close(f[9], r.mean);
        close(f[10], r.ci_low);
        close(f[11], r.ci_high);
        rows += 1;
    }
    // Cells: (0.5: fcfs, sjbf) and (0.8: sjbf) against easy, two metrics each.
    assert_eq!(rows, 6);
    let md = fs::read_to_string(one.join("differences.md")).unwrap();
    assert!(md.contains("paired differences against scheduler=easy"), "{md}");
    assert!(
        fs::read_to_string(one.join("summary.md"))
            .unwrap()
            .contains("differences.md")
    );
    // The plot of the differences: one series per compared value, none for the baseline.
    let svg = fs::read_to_string(one.join("mean_wait_difference_vs_load_by_scheduler.svg")).unwrap();
    assert!(
        svg.contains("paired difference against scheduler = easy"),
        "{svg}"
    );
    assert!(svg.contains("Mean wait: difference against easy (%)"), "{svg}");
    let legend = |label: &str| svg.lines().any(|l| l.trim() == label);
    assert!(legend("fcfs") && legend("sjbf"), "{svg}");
    assert!(!legend("easy"), "no legend entry for the baseline");

    // A plot of the differences needs [compare], and no log scale.
    for (plot, needle) in [
        ("difference = true\n", "needs a [compare] section"),
        ("difference = true\nlog_y = true\n", "drop log_y"),
    ] {
        let spec = COMPARE.replace("[compare]\nscheduler = \"easy\"\n", "")
            + "[[plot]]\nmetric = \"mean_wait\"\nx = \"load\"\nseries = \"scheduler\"\n"
            + plot;
        let path = dir.join("plot.toml");
        fs::write(
            &path,
            if plot.contains("log_y") {
                COMPARE.to_string() + &spec[spec.find("[[plot]]").unwrap()..]
            } else {
                spec
            },
        )
        .unwrap();
        let e = Plan::from_file(&path).unwrap_err().to_string();
        assert!(e.contains(needle), "{plot}: {e}");
    }

    // A workload axis cannot be compared on.
    let bad = COMPARE.replace("[compare]\nscheduler = \"easy\"", "[compare]\nload = 0.5");
    let path = dir.join("bad.toml");
    fs::write(&path, bad).unwrap();
    let e = Plan::from_file(&path).unwrap_err().to_string();
    assert!(e.contains("compare.load: load shapes the workload"), "{e}");
    for (replacement, needle) in [
        ("[compare]\nscheduler = \"prio\"", "not a value of axis scheduler"),
        ("[compare]\nqueue = \"easy\"", "compare.queue: not an axis"),
        ("[compare]\nscheduler = \"easy\"\nload = 0.5", "exactly one axis"),
    ] {
        fs::write(
            &path,
            COMPARE.replace("[compare]\nscheduler = \"easy\"", replacement),
        )
        .unwrap();
        let e = Plan::from_file(&path).unwrap_err().to_string();
        assert!(e.contains(needle), "{replacement}: {e}");
    }
    fs::remove_dir_all(&dir).ok();
}

/// `[[plot]]`'s keys for how a figure looks: applied to the file, refused with the key
/// named when they make no sense.
#[test]
fn plot_keys_set_title_labels_legend_size_and_formats() {
    let dir = common::scratch("sweep-plot-keys");
    let plot = SMALL.replace(
        "[[plot]]\nmetric = \"mean_wait\"\nx = \"load\"\nseries = \"scheduler\"\n",
        r#"[[plot]]
metric = "mean_wait"
x = "load"
series = "scheduler"
series_values = ["easy", "sjbf"]
title = "Waits on the Downey model"
y_label = "Wait (seconds)"
legend = "bottom"
size = [640, 400]
formats = ["svg", "png"]
log_x = true
"#,
    );
    let plan = plan_from(&plot, &dir);
    run_sweep(&plan, &options(&dir.join("out"), 2)).unwrap();
    let svg = fs::read_to_string(dir.join("out/mean_wait_vs_load_by_scheduler.svg")).unwrap();
    assert!(svg.contains("width=\"640\" height=\"400\""), "{svg}");
    let texts: Vec<&str> = svg.lines().map(str::trim).collect();
    for shown in [
        "Waits on the Downey model",
        "Wait (seconds)",
        "Offered load",
        "Scheduler",
        "easy",
        "sjbf",
    ] {
        assert!(texts.contains(&shown), "{shown} missing");
    }
    for hidden in ["fcfs", "conservative"] {
        assert!(!texts.contains(&hidden), "{hidden} is not among series_values");
    }
    let png = fs::read(dir.join("out/mean_wait_vs_load_by_scheduler.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    // Without a title key the title says what is drawn; "" draws none.
    let plain = plan_from(
        &SMALL.replace(
            "series = \"scheduler\"\n",
            "series = \"scheduler\"\ntitle = \"\"\n",
        ),
        &dir,
    );
    run_sweep(&plain, &options(&dir.join("plain"), 1)).unwrap();
    let svg = fs::read_to_string(dir.join("plain/mean_wait_vs_load_by_scheduler.svg")).unwrap();
    assert!(!svg.contains("Mean wait vs offered load"), "{svg}");

    for (key, needle) in [
        (
            "legend = \"left\"",
            "plot[0].legend = 'left': expected right, bottom or none",
        ),
        ("size = [50, 400]", "plot[0].size = [50, 400]"),
        (
            "formats = [\"pdf\"]",
            "plot[0].formats: 'pdf': expected svg or png",
        ),
        ("formats = []", "plot[0].formats: list svg, png or both"),
        (
            "series_values = [\"ga\"]",
            "plot[0].series_values: \"ga\" is not a value of axis 'scheduler'",
        ),
        ("colour = \"red\"", "unknown field `colour`"),
    ] {
        let path = dir.join("bad.toml");
        fs::write(
            &path,
            SMALL.replace(
                "series = \"scheduler\"\n",
                &format!("series = \"scheduler\"\n{key}\n"),
            ),
        )
        .unwrap();
        let e = Plan::from_file(&path).unwrap_err().to_string();
        assert!(e.contains(needle), "{key}: {e}");
    }
    let path = dir.join("bad.toml");
    fs::write(
        &path,
        SMALL.replace(
            "x = \"load\"\nseries = \"scheduler\"\n",
            "x = \"scheduler\"\nlog_x = true\n",
        ),
    )
    .unwrap();
    let e = Plan::from_file(&path).unwrap_err().to_string();
    assert!(
        e.contains("log_x = true: axis 'scheduler' has values that are not positive numbers"),
        "{e}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// The progress's projection of a cell's replications: n (h / target)^2 rounded up to a
/// batch, within the round under way and max; the fixed count for fixed replications.
#[test]
fn projected_replications_follow_the_sample_size_rule() {
    use schedlab::sweep::stopping::projected_replications;
    use schedlab::sweep::task::RunRecord;
    let dir = common::scratch("sweep-projection");
    let plan = plan_from(SMALL, &dir);
    let runs = |values: &[f64]| -> Vec<RunRecord> {
        values
            .iter()
            .enumerate()
            .map(|(rep, &v)| RunRecord {
                cell: 0,
                rep,
                seed: 0,
                saturated: false,
                metrics: vec![v; plan.metrics.len()],
            })
            .collect()
    };
    // SMALL: min 3, max 9, batch 2, target 0.08 on mean_wait.
    let three = runs(&[100.0, 104.5, 95.5]);
    let e = estimate(&[100.0, 104.5, 95.5], plan.confidence, Range::NonNegative);
    let needed = (3.0 * (e.half_width / e.mean / 0.08).powi(2)).ceil() as usize;
    assert!(needed > 5 && needed < 9, "{needed}");
    let expected = 5 + (needed - 5).div_ceil(2) * 2;
    assert_eq!(projected_replications(&plan, &three, 5), expected.min(9));
    // A precise cell ends with the round under way; a noisy one at max.
    assert_eq!(projected_replications(&plan, &runs(&[100.0, 100.5, 99.5]), 5), 5);
    assert_eq!(projected_replications(&plan, &runs(&[10.0, 1000.0, 300.0]), 5), 9);
    // Fewer than two replications say nothing yet.
    assert_eq!(projected_replications(&plan, &runs(&[100.0]), 3), 3);
    let fixed = plan_from(
        &SMALL.replace(
            "min = 3\nmax = 9\nbatch = 2\ntarget = 0.08\nmetric = \"mean_wait\"",
            "count = 4",
        ),
        &dir,
    );
    assert_eq!(projected_replications(&fixed, &three, 4), 4);
    fs::remove_dir_all(&dir).unwrap();
}

/// A load axis reaching an offered load of 1 is named in the plan's warnings (stderr,
/// `--dry-run` and `summary.md`), once per load; loads below 1 are not.
#[test]
fn overloaded_model_cells_are_warned_about() {
    let dir = common::scratch("sweep-overload");
    let plan = plan_from(
        &SMALL.replace("load = [0.5, 0.9]", "load = [0.5, 0.9, 1.2, 3.0]"),
        &dir,
    );
    assert_eq!(plan.warnings.len(), 2, "{:?}", plan.warnings);
    assert!(plan.warnings[0].starts_with("load = 1.2: an offered load of at least 1 queues without bound"));
    assert!(
        plan.warnings[1].contains("load = 3: ") && plan.warnings[1].contains("[measure] saturation bound")
    );
    assert!(plan_from(SMALL, &dir).warnings.is_empty());
    fs::remove_dir_all(&dir).unwrap();
}

const DIFFERENCE_STOPPING: &str = r#"
name = "difference-stopping"
seed = 5
metrics = ["mean_wait", "mean_bsld"]

[run]
model = "downey"
procs = 64
days = 3

[axes]
load = [0.4, 0.6, 0.8]
scheduler = ["easy", "fcfs", "sjbf", "conservative"]

[compare]
scheduler = "easy"

[replications]
min = 3
max = 30
batch = 3
target = 0.1
metric = "mean_bsld"
on = "difference"
"#;

/// Sequential stopping on the paired differences: the cells of one load (EASY and the
/// three compared with it) run the same replications and stop together, at the first
/// batch where every relative difference in mean_bsld has an interval within ±10% of the
/// larger of the baseline and the difference (or at max), as a recomputation from runs.csv
/// finds; the bytes do not depend on threads
/// or shards, whose cells are whole groups.
#[test]
fn stopping_on_differences_decides_per_group() {
    let dir = common::scratch("sweep-difference-stopping");
    let plan = plan_from(DIFFERENCE_STOPPING, &dir);
    let one = dir.join("one");
    run_sweep(&plan, &options(&one, 1)).unwrap();
    run_sweep(&plan, &options(&dir.join("two"), 2)).unwrap();
    assert_same_outputs(&one, &dir.join("two"));
    let shards: Vec<PathBuf> = (0..2).map(|k| dir.join(format!("shard{k}"))).collect();
    for (k, out) in shards.iter().enumerate() {
        let mut o = options(out, 1);
        o.shard = Some(Shard { index: k, count: 2 });
        run_sweep(&plan, &o).unwrap();
    }
    merge(&shards, &dir.join("merged"), false).unwrap();
    assert_same_outputs(&one, &dir.join("merged"));

    // mean_bsld by (load, scheduler) in replication order.
    let mut bsld: std::collections::BTreeMap<(String, String), Vec<f64>> = Default::default();
    let text = fs::read_to_string(one.join("runs.csv")).unwrap();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        bsld.entry((f[0].to_string(), f[1].to_string()))
            .or_default()
            .push(f[6].parse().unwrap());
    }
    let precise_at = |load: &str, n: usize| {
        ["fcfs", "sjbf", "conservative"].iter().all(|s| {
            let x = &bsld[&(load.to_string(), s.to_string())];
            let b = &bsld[&(load.to_string(), "easy".to_string())];
            let relative: Vec<f64> = (0..n).map(|r| (x[r] - b[r]) / b[r]).collect();
            let e = estimate(&relative, 0.95, Range::Change);
            e.half_width <= 0.1 * e.mean.abs().max(1.0)
        })
    };
    let mut stopped_at = Vec::new();
    for load in ["0.4", "0.6", "0.8"] {
        let n = bsld[&(load.to_string(), "easy".to_string())].len();
        for s in ["fcfs", "sjbf", "conservative"] {
            assert_eq!(
                bsld[&(load.to_string(), s.to_string())].len(),
                n,
                "load {load}: {s}"
            );
        }
        assert!(n.is_multiple_of(3) && (3..=30).contains(&n), "load {load}: {n}");
        assert!(
            precise_at(load, n) || n == 30,
            "load {load} stopped at {n} without the target"
        );
        for earlier in (3..n).step_by(3) {
            assert!(
                !precise_at(load, earlier),
                "load {load} should have stopped at {earlier}"
            );
        }
        stopped_at.push(n);
    }
    // The loads need different numbers of replications: the groups decided apart.
    assert!(stopped_at.iter().any(|&n| n != stopped_at[0]), "{stopped_at:?}");
    let summary = fs::read_to_string(one.join("summary.json")).unwrap();
    assert!(summary.contains(r#""on": "difference""#), "{summary}");

    for (change, needle) in [
        ("[compare]\nscheduler = \"easy\"\n", "needs a [compare] section"),
        ("on = \"difference\"", "replications.on = 'median'"),
    ] {
        let spec = if needle.contains("median") {
            DIFFERENCE_STOPPING.replace(change, "on = \"median\"")
        } else {
            DIFFERENCE_STOPPING.replace(change, "")
        };
        let path = dir.join("bad.toml");
        fs::write(&path, spec).unwrap();
        let e = Plan::from_file(&path).unwrap_err().to_string();
        assert!(e.contains(needle), "{e}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_demo_is_unsaturated_for_backfilling_at_loads_0_6_and_0_7() {
    // The demo's own spec (model, window, saturation bound), narrowed to EASY and
    // conservative at loads 0.6 and 0.7, 10 workloads each: none may saturate (22 of 40 do
    // with sizes = "log2", the rule before 2026-11-26; issue 35).
    let quick = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("sweeps/quick.toml")).unwrap();
    let narrowed = [
        ("load = { from = 0.2, to = 0.8, step = 0.1 }", "load = [0.6, 0.7]"),
        (
            r#"scheduler = ["fcfs", "easy", "sjbf", "conservative"]"#,
            r#"scheduler = ["easy", "conservative"]"#,
        ),
        ("min = 5\nmax = 40", "min = 10\nmax = 10"),
    ]
    .iter()
    .fold(quick, |text, (from, to)| {
        assert!(text.contains(from), "sweeps/quick.toml no longer has `{from}`");
        text.replace(from, to)
    });
    let dir = common::scratch("sweep-demo-unsaturated");
    let plan = plan_from(&narrowed, &dir);
    run_sweep(&plan, &options(&dir.join("out"), 2)).unwrap();
    let runs = read_runs(&dir.join("out/runs.csv"), &plan).unwrap();
    assert_eq!(runs.len(), 40);
    let saturated = runs.iter().filter(|r| r.saturated).count();
    assert_eq!(saturated, 0, "{saturated} of 40 replications saturated");
    fs::remove_dir_all(&dir).unwrap();
}

/// `--predict-scaling` replays the runner's decisions on simulated workers: with every
/// task timed at one second, a fixed count of N tasks takes N s on one thread and
/// ceil(N / P) s on P (no task waits while a worker is free), plus the serial phases; under
/// sequential stopping it runs the replications the run recorded, whatever P; a timings
/// file round-trips; and a prediction is the same on every call.
#[test]
fn scaling_is_predicted_from_a_runs_task_costs() {
    use schedlab::sweep::scaling::{Timings, predict};
    let dir = common::scratch("sweep-scaling");
    for (spec, fixed) in [
        (
            SMALL.replace(
                "min = 3\nmax = 9\nbatch = 2\ntarget = 0.08\nmetric = \"mean_wait\"",
                "count = 5",
            ),
            true,
        ),
        (SMALL.to_string(), false),
    ] {
        let plan = plan_from(&spec, &dir);
        let out = dir.join("out");
        let report = run_sweep(&plan, &options(&out, 2)).unwrap();
        let records = read_runs(&out.join("runs.csv"), &plan).unwrap();
        assert_eq!(report.timings.tasks.len(), report.tasks_run);
        let path = dir.join("timings.csv");
        report.timings.write(&path).unwrap();
        let mut timings = Timings::read(&path).unwrap();
        assert_eq!(
            timings.tasks.keys().collect::<Vec<_>>(),
            report.timings.tasks.keys().collect::<Vec<_>>()
        );
        timings.tasks.values_mut().for_each(|s| *s = 1.0);
        (timings.prepare_s, timings.outputs_s) = (0.25, 0.5);
        let threads = [1, 2, 3, 4, 16];
        let predicted = predict(&plan, &records, &timings, &threads).unwrap();
        assert_eq!(predicted, predict(&plan, &records, &timings, &threads).unwrap());
        let n = records.len();
        let needed = report.tasks_run - report.tasks_unused;
        for p in &predicted {
            assert!(p.wall_s >= p.bound_s - 1e-9, "{p:?}");
            // Every replication a decision reads runs, on any thread count (and those run
            // ahead while workers would idle, as many as the thread count makes).
            assert!(p.tasks >= needed, "{p:?}");
            let packed = p.tasks.div_ceil(p.threads) as f64 + 0.75;
            if fixed {
                // 7 cells x 5: no cell decides before its five, nothing runs ahead, and no
                // worker idles while a task waits.
                assert_eq!(p.tasks, n);
                assert_eq!(p.wall_s, packed, "{p:?}");
            } else {
                // A cell's next batch waits for its decision: workers may idle.
                assert!(p.wall_s >= packed && p.wall_s <= p.tasks as f64 + 0.75, "{p:?}");
            }
        }
        fs::remove_dir_all(&out).unwrap();
    }
    let bad = dir.join("bad.csv");
    fs::write(&bad, "phase,cell,rep,seconds\ntask,1,x,0.5\n").unwrap();
    let e = Timings::read(&bad).unwrap_err().to_string();
    assert!(e.contains("bad.csv:2: rep 'x': not a whole number"), "{e}");
    fs::remove_dir_all(&dir).unwrap();
}

/// Writes `trace.swf`, 60 jobs of 1 to 3 processors in two partitions (field 16 = 1 or 2)
/// arriving faster than they run, so that the queues and the machine's split matter, and
/// `m.toml`, its machine: partition `a` (SWF 1) of 4 one-core nodes, `b` (SWF 2) of 2
/// two-core nodes.
fn two_partitions(dir: &Path) {
    let mut swf = String::from("; MaxProcs: 8\n");
    for j in 1..=60 {
        let (procs, run, part) = (1 + j % 3, 50 + (j * 37) % 400, 1 + j % 2);
        swf += &format!(
            "{j} {} -1 {run} {procs} -1 -1 {procs} {} -1 1 {} 1 -1 1 {part} -1 -1\n",
            j * 20,
            2 * run,
            j % 5
        );
    }
    fs::write(dir.join("trace.swf"), swf).unwrap();
    let machine = "[[partition]]\nname = \"a\"\nswf = [1]\n[[partition.nodes]]\ncount = 4\ncores = 1\n\
                   [[partition]]\nname = \"b\"\nswf = [2]\n[[partition.nodes]]\ncount = 2\ncores = 2\n";
    fs::write(dir.join("m.toml"), machine).unwrap();
}

/// Why the spec `text`, written to `dir`, is refused.
fn refusal(dir: &Path, text: &str) -> String {
    let path = dir.join("bad.toml");
    fs::write(&path, text).unwrap();
    match Plan::from_file(&path) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.to_string(),
    }
}

/// A partition's resource metrics (`fragmentation@P`, `memory_utilization@P`,
/// `gpu_utilization@P`) are the machine's where the partition is the whole machine, and the
/// partitions' stranded cores add up to the machine's (none on one-core nodes); a resource
/// a partition lacks is refused, naming the metric.
#[test]
fn a_partitions_resource_metrics_are_its_share_of_the_machines() {
    let dir = common::scratch("sweep-partition-resources");
    two_partitions(&dir);
    let spec = |metrics: &str, machine: &str| {
        format!(
            "metrics = [{metrics}]\n[run]\ntrace = \"trace.swf\"\nmachine = \"{machine}\"\nscheduler = \"easy\"\n\
             memory_pressure = 1.0\ngpu_share = 0.5\n[replications]\ncount = 2\n\
             [[machines.split.partition]]\nname = \"a\"\nswf = [1]\n\
             [[machines.split.partition.nodes]]\ncount = 4\ncores = 1\nmemory_gb = 2\n\
             [[machines.split.partition]]\nname = \"b\"\nswf = [2]\n\
             [[machines.split.partition.nodes]]\ncount = 2\ncores = 2\nmemory_gb = 4\ngpus = 2\n\
             [[machines.one.partition]]\nname = \"all\"\ndefault = true\n\
             [[machines.one.partition.nodes]]\ncount = 4\ncores = 2\nmemory_gb = 4\ngpus = 1\n"
        )
    };
    let runs = |metrics: &str, machine: &str, out: &str| {
        let plan = plan_from(&spec(metrics, machine), &dir);
        run_sweep(&plan, &options(&dir.join(out), 1)).unwrap();
        read_runs(&dir.join(out).join("runs.csv"), &plan).unwrap()
    };
    for run in runs(
        "\"fragmentation\", \"fragmentation@a\", \"fragmentation@b\", \"memory_utilization@a\", \
         \"gpu_utilization@b\"",
        "split",
        "split",
    ) {
        let m = &run.metrics;
        // Both partitions have 4 cores of the machine's 8, over the same span; a's nodes have
        // one core each, so none is ever stranded: b's are all the machine's.
        assert_eq!(m[1], 0.0, "{m:?}");
        assert!(m[2] > 0.0 && (4.0 * m[2] - 8.0 * m[0]).abs() < 1e-12, "{m:?}");
        assert!(
            m[0] > 0.0 && m[3] > 0.0 && m[3] <= 1.0 && m[4] > 0.0 && m[4] <= 1.0,
            "{m:?}"
        );
    }
    let whole = "\"fragmentation\", \"fragmentation@all\", \"memory_utilization\", \"memory_utilization@all\", \
                 \"gpu_utilization\", \"gpu_utilization@all\"";
    for run in runs(whole, "one", "one") {
        let m = &run.metrics;
        assert!(m[0] > 0.0 && m[2] > 0.0 && m[4] > 0.0, "{m:?}");
        for i in [0, 2, 4] {
            assert!((m[i] - m[i + 1]).abs() < 1e-12, "{m:?}");
        }
    }
    let refused = |metrics: &str| refusal(&dir, &spec(metrics, "split"));
    let e = refused("\"gpu_utilization@a\"");
    assert!(e.contains("gpu_utilization@a needs a machine with GPUs"), "{e}");
    let e = refused("\"energy_kwh@a\"");
    assert!(
        e.contains("unknown metric 'energy_kwh' for one partition's jobs"),
        "{e}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// A machine the spec describes inline (`[machines.NAME]`) runs as the same machine in a
/// file does: the same metrics in every cell, its name the axis value in `runs.csv`; a bad
/// inline machine is refused naming its table and key, and so is a name that reads as a
/// file.
#[test]
fn an_inline_machine_runs_as_its_file_does() {
    let dir = common::scratch("sweep-inline-machine");
    two_partitions(&dir);
    let machine = fs::read_to_string(dir.join("m.toml")).unwrap();
    let spec = |value: &str, inline: &str| {
        format!(
            "metrics = [\"jobs\", \"mean_wait\", \"mean_bsld\", \"utilization\"]\n[run]\ntrace = \"trace.swf\"\n\
             [axes]\nmachine = [\"{value}\"]\nscheduler = [\"fcfs\", \"easy\", \"conservative\"]\n\
             [replications]\ncount = 1\n{inline}"
        )
    };
    let inline = machine.replace("[[partition", "[[machines.two.partition");
    let by_file = plan_from(&spec("m.toml", ""), &dir);
    run_sweep(&by_file, &options(&dir.join("file"), 1)).unwrap();
    let by_name = plan_from(&spec("two", &inline), &dir);
    run_sweep(&by_name, &options(&dir.join("inline"), 1)).unwrap();
    let (a, b) = (
        read_runs(&dir.join("file/runs.csv"), &by_file).unwrap(),
        read_runs(&dir.join("inline/runs.csv"), &by_name).unwrap(),
    );
    assert_eq!(a.len(), 3);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.metrics, y.metrics, "cell {}", x.cell);
    }
    assert!(
        a[0].metrics[0] == 60.0 && a[0].metrics[1] > 0.0,
        "{:?}",
        a[0].metrics
    );
    let runs = fs::read_to_string(dir.join("inline/runs.csv")).unwrap();
    assert!(runs.lines().nth(1).unwrap().starts_with("two,fcfs,"), "{runs}");
    // On one pool of the same 8 cores the waits differ: the machine was not ignored.
    let one_pool = "[[machines.pool.partition]]\nname = \"all\"\nswf = [1, 2]\n\
                    [[machines.pool.partition.nodes]]\ncount = 8\ncores = 1\n";
    let pool = plan_from(&spec("pool", one_pool), &dir);
    run_sweep(&pool, &options(&dir.join("pool"), 1)).unwrap();
    let c = read_runs(&dir.join("pool/runs.csv"), &pool).unwrap();
    assert_ne!(
        a[1].metrics[1], c[1].metrics[1],
        "EASY on the split machine and on one pool"
    );

    let refused = |inline: &str, value: &str| refusal(&dir, &spec(value, inline));
    let e = refused(&inline.replace("cores = 2", "cores = 0"), "two");
    assert!(e.contains("machines.two: partition[1].nodes[0].cores"), "{e}");
    let e = refused(
        &inline.replace("machines.two", "machines.\"two.toml\""),
        "two.toml",
    );
    assert!(
        e.contains("machines.two.toml: a machine's name") && e.contains("not ending in .toml"),
        "{e}"
    );
    let e = refused(&inline.replace("name = \"a\"", "name = \"a\"\nspeed = 2"), "two");
    assert!(e.contains("machines.two:") && e.contains("speed"), "{e}");
    fs::remove_dir_all(&dir).unwrap();
}

/// `METRIC@PARTITION` is the metric of that partition's jobs over its own cores, as `run`
/// reports each partition: its jobs add up to the run's, in a measured window too, and its
/// mean wait is the one of its jobs in `--jobs-out`; a partition the machine lacks, a run
/// without a machine and a metric a partition does not report are refused, naming them.
/// `fragmentation` is 0 on partitions of processors alone, and refused without a machine.
#[test]
fn a_partitions_metrics_are_those_of_its_jobs() {
    let dir = common::scratch("sweep-partition-metrics");
    two_partitions(&dir);
    let spec = |metrics: &str, extra: &str| {
        format!(
            "metrics = [{metrics}]\n[run]\ntrace = \"trace.swf\"\nmachine = \"m.toml\"\nscheduler = \"easy\"\n\
             {extra}[replications]\ncount = 1\n"
        )
    };
    let all = "\"jobs\", \"jobs@a\", \"jobs@b\", \"mean_wait@a\", \"mean_wait@b\", \"utilization@b\", \
               \"fragmentation\"";
    let plan = plan_from(&spec(all, ""), &dir);
    run_sweep(&plan, &options(&dir.join("out"), 1)).unwrap();
    let m = &read_runs(&dir.join("out/runs.csv"), &plan).unwrap()[0].metrics;
    assert_eq!((m[0], m[1], m[2]), (60.0, 30.0, 30.0), "{m:?}");
    // The same run through the CLI: each partition's mean wait from its jobs' rows.
    let jobs = dir.join("jobs.csv");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args([
            "run",
            "--trace",
            "trace.swf",
            "--machine",
            "m.toml",
            "--scheduler",
            "easy",
            "--jobs-out",
        ])
        .arg(&jobs)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut waits = [Vec::new(), Vec::new()];
    let mut reader = csv::Reader::from_path(&jobs).unwrap();
    for row in reader.deserialize::<std::collections::HashMap<String, String>>() {
        let row = row.unwrap();
        let wait: f64 = row["wait"].parse().unwrap();
        // Job j is in partition 1 + j % 2 (`two_partitions`): odd jobs run in b.
        let job: usize = row["job_id"].parse().unwrap();
        waits[job % 2].push(wait);
    }
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
    assert!(
        (m[3] - mean(&waits[0])).abs() < 1e-9 && (m[4] - mean(&waits[1])).abs() < 1e-9,
        "{m:?}"
    );
    assert!(m[4] > 0.0 && m[5] > 0.0 && m[5] <= 1.0, "{m:?}");
    assert_eq!(m[6], 0.0, "partitions of processors alone strand no core");
    // A measured window: the partitions' jobs are its jobs.
    let window = plan_from(&spec(all, "[measure]\nwarmup = 10\nwindow = 40\n"), &dir);
    run_sweep(&window, &options(&dir.join("window"), 1)).unwrap();
    let w = &read_runs(&dir.join("window/runs.csv"), &window).unwrap()[0].metrics;
    assert_eq!((w[0], w[1] + w[2]), (40.0, 40.0), "{w:?}");

    let refused = |text: String| refusal(&dir, &text);
    let e = refused(spec("\"mean_wait@gpu\"", ""));
    assert!(
        e.contains("mean_wait@gpu: the machine has no partition 'gpu'; its partitions: a, b"),
        "{e}"
    );
    let e = refused(spec("\"mean_wait@a\"", "").replace("machine = \"m.toml\"\n", ""));
    assert!(e.contains("has no partition 'a' (the run has no machine"), "{e}");
    let e = refused(spec("\"fragmentation\"", "").replace("machine = \"m.toml\"\n", ""));
    assert!(e.contains("fragmentation needs a machine of nodes"), "{e}");
    let e = refused(spec("\"aggregate_utility@a\"", ""));
    assert!(
        e.contains("unknown metric 'aggregate_utility' for one partition's jobs"),
        "{e}"
    );
    fs::remove_dir_all(&dir).unwrap();
}
