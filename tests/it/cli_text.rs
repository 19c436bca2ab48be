//! Snapshots of what the command line prints (insta): `run`, `trace info`, `compare` and a
//! sweep's closing summary, on the golden traces. A change to any of these texts shows up
//! as a diff to review (`cargo insta review`, or `INSTA_UPDATE=always` and read the diff);
//! times that vary from run to run are cut first.

use std::path::Path;
use std::process::Command;

use crate::common;

/// `schedlab ARGS` run in `dir`: its standard output, which must be a success's.
fn stdout_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `text` without its timing line, whose milliseconds vary from run to run.
fn without_timing(text: &str) -> String {
    let kept: Vec<&str> = text.lines().filter(|l| !l.starts_with("timing ")).collect();
    kept.join("\n")
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn run_prints_its_summary() {
    let text = stdout_in(
        repo(),
        &[
            "run",
            "--trace",
            "tests/golden/easy_extra.swf",
            "--scheduler",
            "easy",
        ],
    );
    // The timing line's milliseconds vary; its presence does not.
    let (kept, timing): (Vec<&str>, Vec<&str>) = text.lines().partition(|l| !l.starts_with("timing "));
    assert_eq!(timing.len(), 1, "{text}");
    insta::assert_snapshot!(kept.join("\n"));
}

/// On a machine of nodes (memory described, so jobs are placed on nodes): the utilisation
/// line gives the memory's and the cores idle on partly used nodes. By hand: best fit puts
/// job 1's six tasks 5 + 1; the stranded cores are 4, 2, 0, 2, 0, 1, 3 between the events
/// at 0, 2, 4, 54, 100, 200, 502 and 700, 1,000 core-seconds over 10 cores x 700 s: 0.1429.
#[test]
fn run_prints_its_summary_on_a_machine_of_nodes() {
    let text = stdout_in(
        repo(),
        &[
            "run",
            "--trace",
            "tests/golden/easy_extra.swf",
            "--machine",
            "tests/data/two_nodes.toml",
            "--scheduler",
            "easy",
        ],
    );
    insta::assert_snapshot!(without_timing(&text));
}

#[test]
fn run_prints_its_predictor_line() {
    let text = stdout_in(
        repo(),
        &[
            "run",
            "--trace",
            "tests/golden/easy_vs_conservative.swf",
            "--scheduler",
            "easy-pred",
            "--predictor",
            "ruh",
        ],
    );
    insta::assert_snapshot!(without_timing(&text));
}

#[test]
fn trace_info_prints_the_trace() {
    insta::assert_snapshot!(stdout_in(
        repo(),
        &["trace", "info", "tests/golden/sjbf_order.swf"]
    ));
}

#[test]
fn compare_prints_job_by_job_differences() {
    let dir = common::scratch("cli-text-compare");
    let trace = repo().join("tests/golden/easy_vs_conservative.swf");
    let trace = trace.to_str().unwrap();
    for (scheduler, out) in [("easy", "a.csv"), ("conservative", "b.csv")] {
        stdout_in(
            &dir,
            &[
                "run",
                "--trace",
                trace,
                "--scheduler",
                scheduler,
                "--jobs-out",
                out,
            ],
        );
    }
    insta::assert_snapshot!(stdout_in(&dir, &["compare", "a.csv", "b.csv"]));
}

#[test]
fn a_sweep_closes_with_its_table() {
    // The trace beside the spec, so that the spec's text, and its hash in the table's
    // caption, is the same in every checkout.
    let dir = common::scratch("cli-text-sweep");
    std::fs::copy(
        repo().join("tests/golden/easy_vs_conservative.swf"),
        dir.join("t.swf"),
    )
    .unwrap();
    std::fs::write(
        dir.join("s.toml"),
        "name = \"snap\"\nmetrics = [\"mean_wait\", \"mean_bsld\"]\n[run]\ntrace = \"t.swf\"\n\
         [axes]\nscheduler = [\"easy\", \"conservative\"]\n[replications]\ncount = 1\n",
    )
    .unwrap();
    let text = stdout_in(&dir, &["sweep", "s.toml", "--out", "out", "--quiet"]);
    // The first line's seconds and rates vary: keep what it counts.
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let counted = first.split(" in ").next().unwrap_or_default();
    insta::assert_snapshot!(
        std::iter::once(counted)
            .chain(lines)
            .collect::<Vec<_>>()
            .join("\n")
    );
}
