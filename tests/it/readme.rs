//! Every `schedlab` example in README.md runs as written from the repository root and
//! exits 0 (release builds, with `../shared/traces` present; otherwise SKIPPED). Optional
//! `[...]` parts are dropped; `merge` (it needs all four shards, which `tests/it/sweep.rs`
//! covers) is the one example not run. The files the examples write are removed, and the
//! committed `results/quick/` must come out byte for byte as it was.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The indented command lines of the README, continuation lines joined.
fn examples(readme: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut continued = false;
    for line in readme.lines() {
        let Some(code) = line.strip_prefix("    ") else {
            continued = false;
            continue;
        };
        let code = code.trim();
        if continued {
            let last = out.last_mut().expect("a command continues");
            last.push(' ');
            last.push_str(code.trim_end_matches('\\').trim());
        } else if code.starts_with("schedlab ") {
            out.push(code.trim_end_matches('\\').trim().to_string());
        } else {
            continue;
        }
        continued = code.ends_with('\\');
    }
    out
}

/// The command without its optional `[...]` parts.
fn required(command: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in command.chars() {
        match c {
            '[' if !out.ends_with('=') && !out.ends_with('\'') => depth += 1,
            ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        // `spec.dir` records where the spec lay on this machine; it is not committed.
        .filter(|p| p.is_file() && !p.ends_with("spec.dir"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_readme_example_runs_as_written() {
    if cfg!(debug_assertions) {
        eprintln!("SKIPPED: the README's examples run in the release build (cargo test --release)");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if !root.join("../shared/traces").is_dir() {
        eprintln!("SKIPPED: the README's examples read ../shared/traces, which is absent");
        return;
    }
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let commands = examples(&readme);
    assert!(commands.len() >= 25, "{commands:#?}");
    // The README gives the state file's JSON beside `schedlab predict state.json`.
    let start = readme.find("{\"total\"").expect("the state example");
    let mut depth = 0;
    let end = start
        + readme[start..]
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .expect("the state example's end")
            .0
        + 1;
    let written = [
        "jobs.csv",
        "schedule.swf",
        "resampled.swf",
        "blue-utility.swf",
        "fig5.svg",
        "pairs.csv",
        "state.json",
        "easy.csv",
        "sjbf.csv",
        "timeline.csv",
        "timeline_utilization.svg",
        "timeline_jobs.svg",
        "gantt.svg",
        "kth.json",
        "kth_jobs.csv",
    ];
    for name in written {
        assert!(!root.join(name).exists(), "{name} exists before the examples run");
    }
    std::fs::write(root.join("state.json"), &readme[start..end]).unwrap();
    let quick = root.join("results/quick");
    let before = files(&quick);
    let bin = Path::new(env!("CARGO_BIN_EXE_schedlab")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut failures = Vec::new();
    for command in &commands {
        if command.starts_with("schedlab merge") {
            continue;
        }
        let command = required(command);
        let out = Command::new("sh")
            .arg("-c")
            .arg(&command)
            .current_dir(root)
            .env("PATH", &path)
            .output()
            .unwrap();
        if !out.status.success() {
            failures.push(format!(
                "{command}\n  {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    for name in written {
        let _ = std::fs::remove_file(root.join(name));
    }
    let _ = std::fs::remove_dir_all(quick.join("shard-0-of-4"));
    assert!(
        failures.is_empty(),
        "README examples that fail:\n{}",
        failures.join("\n")
    );
    assert!(
        files(&quick) == before,
        "results/quick changed when the README's examples ran"
    );
}

#[test]
fn optional_parts_are_dropped_and_continuations_joined() {
    let text = "x\n\n    schedlab run --a \\\n        --b [--json]\n    not a command\n    schedlab predict s.json [--json]\n";
    assert_eq!(
        examples(text),
        [
            "schedlab run --a --b [--json]",
            "schedlab predict s.json [--json]"
        ]
    );
    assert_eq!(required("schedlab run --a --b [--json]"), "schedlab run --a --b");
    assert_eq!(
        required("schedlab sweep q.toml [--threads N] [--out DIR]"),
        "schedlab sweep q.toml"
    );
}
