//! Seeded mutation test of the whole input path: job lines of real traces (KTH-SP2 and
//! CTC-SP2 when `../shared/traces` is present, hand-written lines otherwise) are mutated as
//! a hostile or careless user would (truncation, huge and negative values, NaN, odd bytes,
//! annotated and broken headers, reordering, extra tokens), then read, described and run
//! under every scheduler with the validator on. Each case must end either with plausible
//! figures (every job started, waits >= 0, utilisation in [0, 1]) or with an error naming
//! the file and, for a job line, the line; a panic fails the test. A sample also goes
//! through the binary, which must exit 0 or 2.

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

use schedlab::Error;
use schedlab::metrics::Summary;
use schedlab::sched::SchedulerKind;
use schedlab::sim::Engine;
use schedlab::workload::info::TraceInfo;
use schedlab::workload::swf::{SwfOptions, parse_swf};

const CASES: usize = 10_000;
/// Job lines per case.
const LINES: usize = 12;

/// Job lines to mutate: from the real traces when present.
fn source_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for name in ["KTH-SP2-1996-2.1-cln.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz"] {
        let Some(path) = common::trace(name) else {
            continue;
        };
        let file = std::fs::File::open(path).unwrap();
        let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(file));
        lines.extend(
            reader
                .lines()
                .map(|l| l.unwrap())
                .filter(|l| !l.starts_with(';') && !l.trim().is_empty())
                .take(3_000),
        );
    }
    if lines.is_empty() {
        eprintln!("mutation: real traces absent, mutating hand-written job lines instead");
        for i in 1..=200i64 {
            lines.push(format!(
                "{i} {} -1 {} {} -1 -1 {} {} -1 1 {} 1 {} {} -1 -1 -1",
                i * 37,
                (i * 131) % 5000,
                1 + i % 64,
                1 + i % 64,
                (i * 197) % 9000,
                i % 7,
                i % 11,
                i % 3
            ));
        }
    }
    lines
}

fn below(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

const VALUES: [&str; 22] = [
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999",
    "1099511627776",
    "1099511627777",
    "4294967295",
    "4294967296",
    "2147483648",
    "67108864",
    "67108865",
    "-1",
    "-2",
    "0",
    "NaN",
    "inf",
    "1e14",
    "1.5",
    "0x10",
    "",
    "+7",
    "--1",
    "١٢",
];

const HEADERS: [&str; 9] = [
    "; MaxProcs: 128\n",
    "; MaxProcs: 128 (72, 40, 16)\n",
    "; MaxNodes: 16\n; MaxProcs: 128 (8 cores x 16 nodes)\n",
    "; MaxProcs: 0\n",
    "; MaxProcs: 4294967295\n",
    "; MaxNodes: 64\n",
    "",
    "; MaxProcs: 128\n; MaxRecords: 50000000\n",
    "; Note: caf\u{e9}\n; MaxProcs: 128\n",
];

/// One mutation of one job line.
fn mutate(rng: &mut Xoshiro256PlusPlus, line: &str) -> Vec<u8> {
    let mut fields: Vec<String> = line.split_ascii_whitespace().map(str::to_string).collect();
    match below(rng, 8) {
        0 => {
            let mut bytes = line.as_bytes().to_vec();
            bytes.truncate(below(rng, bytes.len() + 1));
            return bytes;
        }
        1..=3 => {
            let f = below(rng, fields.len().max(1));
            if let Some(field) = fields.get_mut(f) {
                *field = VALUES[below(rng, VALUES.len())].to_string();
            }
        }
        4 => {
            let mut bytes = line.as_bytes().to_vec();
            let odd = [0xE9u8, 0x00, 0xFF, b'\r', b'\t', b';', 0x7F][below(rng, 7)];
            bytes.insert(below(rng, bytes.len() + 1), odd);
            return bytes;
        }
        5 => fields.extend([
            "1".to_string(),
            "2".to_string(),
            ["x", "3", "-4"][below(rng, 3)].to_string(),
        ]),
        6 => {
            fields.truncate(below(rng, 18));
        }
        _ => {
            // Times and sizes moved far: large but within the bounds, or far beyond.
            for f in [1usize, 3, 4, 7, 8] {
                if below(rng, 3) == 0 && f < fields.len() {
                    fields[f] = ["1099511627776", "0", "67108864", "1", "999999"][below(rng, 5)].to_string();
                }
            }
        }
    }
    fields.join(" ").into_bytes()
}

/// A mutated trace: a header and `LINES` consecutive job lines, some of them mutated,
/// perhaps reordered or repeated.
fn case(rng: &mut Xoshiro256PlusPlus, source: &[String]) -> Vec<u8> {
    let mut text = HEADERS[below(rng, HEADERS.len())].as_bytes().to_vec();
    let start = below(rng, source.len().saturating_sub(LINES).max(1));
    let mut lines: Vec<Vec<u8>> = source[start..(start + LINES).min(source.len())]
        .iter()
        .map(|l| l.as_bytes().to_vec())
        .collect();
    for _ in 0..1 + below(rng, 3) {
        let i = below(rng, lines.len());
        lines[i] = mutate(rng, &String::from_utf8_lossy(&lines[i]));
    }
    let last = lines.len() - 1;
    match below(rng, 6) {
        0 => lines.swap(0, last),
        1 => lines.push(lines[0].clone()),
        _ => {}
    }
    for l in lines {
        text.extend_from_slice(&l);
        text.push(b'\n');
    }
    text
}

/// Checks a schedule's figures; returns what is implausible.
fn implausible(summary: &Summary, start: &[i64], submit: &[i64]) -> Option<String> {
    if let Some(j) = (0..start.len()).find(|&j| start[j] < submit[j]) {
        return Some(format!(
            "job {j} started at {} before its submit {}",
            start[j], submit[j]
        ));
    }
    let u = summary.utilization;
    if summary.jobs > 0 && !(0.0..=1.0 + 1e-9).contains(&u) {
        return Some(format!("utilization {u}"));
    }
    if summary.jobs > 0 && (summary.mean_wait < 0.0 || !summary.mean_wait.is_finite() || summary.makespan < 0)
    {
        return Some(format!(
            "mean wait {} makespan {}",
            summary.mean_wait, summary.makespan
        ));
    }
    None
}

/// Outcome counts by kind, for the report at the end.
#[derive(Default, Debug)]
struct Tally {
    simulated: usize,
    refused: BTreeMap<&'static str, usize>,
}

#[test]
fn mutated_traces_give_plausible_figures_or_located_errors() {
    let source = source_lines();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(20261124);
    let mut tally = Tally::default();
    let mut engine = Engine::new().with_validation(true);
    let mut schedulers: Vec<_> = SchedulerKind::on_any_jobs()
        .iter()
        .map(|k| (*k, k.build()))
        .collect();
    let path = Path::new("mutated.swf");
    let mut samples = Vec::new();
    for n in 0..CASES {
        let text = case(&mut rng, &source);
        let lenient = n % 4 == 3;
        let options = SwfOptions {
            lenient,
            ..SwfOptions::default()
        };
        let workload = match parse_swf(&text[..], path, &options) {
            Ok(w) => w,
            Err(e) => {
                let message = e.to_string();
                let kind = match &e {
                    Error::Swf { line, .. } => {
                        assert!(message.starts_with(&format!("mutated.swf:{line}: ")), "{message}");
                        "job line"
                    }
                    Error::Workload { .. } => {
                        assert!(message.starts_with("mutated.swf: "), "{message}");
                        "machine size"
                    }
                    other => panic!("case {n}: unexpected error {other}"),
                };
                *tally.refused.entry(kind).or_default() += 1;
                if n % 50 == 0 {
                    samples.push(text);
                }
                continue;
            }
        };
        let info = TraceInfo::of(&workload);
        assert!(
            info.offered_load.is_finite() && info.offered_load >= 0.0,
            "case {n}: {info:?}"
        );
        for (kind, scheduler) in &mut schedulers {
            let outcome = scheduler.run(&mut engine, &workload.jobs, workload.procs);
            let (start, end) = (outcome.start.to_vec(), outcome.end.to_vec());
            let all = 0..workload.jobs.len();
            let summary =
                Summary::of_outcome(&workload.jobs, workload.procs, &outcome, all, &workload.skipped);
            assert!(
                !outcome.saturated,
                "case {n} under {kind}: saturated without a window"
            );
            assert!(end.iter().zip(&start).all(|(e, s)| e >= s));
            if let Some(why) = implausible(&summary, &start, &workload.jobs.submit) {
                panic!("case {n} under {kind}: {why}\n{}", String::from_utf8_lossy(&text));
            }
        }
        tally.simulated += 1;
        if n % 50 == 0 {
            samples.push(text);
        }
    }
    eprintln!(
        "mutation: {CASES} cases: {} simulated under 5 schedulers, refused {:?}",
        tally.simulated, tally.refused
    );
    // Both outcomes occur often: the mutations reach the reader's checks and the engine.
    assert!(
        tally.simulated > CASES / 10 && tally.refused.values().sum::<usize>() > CASES / 10,
        "{tally:?}"
    );
    through_the_binary(&samples);
}

/// The binary on a sample of the cases: `trace info` and `run` exit 0 or 2, never 101.
fn through_the_binary(samples: &[Vec<u8>]) {
    let dir = common::scratch("mutation");
    let file = dir.join("case.swf");
    let mut exits: BTreeMap<i32, usize> = BTreeMap::new();
    for (i, text) in samples.iter().enumerate() {
        std::fs::File::create(&file).unwrap().write_all(text).unwrap();
        let scheduler = ["fcfs", "easy", "sjbf", "conservative", "easy-pred"][i % 5];
        for args in [
            vec!["trace", "info", file.to_str().unwrap()],
            vec![
                "run",
                "--trace",
                file.to_str().unwrap(),
                "--scheduler",
                scheduler,
                "--json",
            ],
        ] {
            let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
                .args(&args)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let code = out.status.code().unwrap_or(-1);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(code == 0 || code == 2, "{args:?} exited {code}: {stderr}");
            if code == 2 {
                assert!(stderr.contains("case.swf"), "{stderr}");
            }
            *exits.entry(code).or_default() += 1;
        }
    }
    eprintln!("mutation: binary exits on {} samples: {exits:?}", samples.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every numeric knob of the commands, given values a hostile or careless user would: each
/// run ends with exit 0 (the value is within its documented range) or 2 (refused, naming
/// the key), within a minute, never a panic (101) or an abort (134) (issue 40).
#[test]
fn numeric_knobs_are_accepted_or_refused_never_a_crash() {
    let dir = common::scratch("knobs");
    // Offered load 4 x 500 x 4 / (8 x 3000) = 1/3.
    let trace = dir.join("small.swf");
    let jobs: String = (0..6)
        .map(|i| {
            format!(
                "{} {} -1 500 4 -1 -1 4 600 -1 1 {} 1 1 1 -1 -1 -1\n",
                i + 1,
                i * 1000,
                i % 3
            )
        })
        .collect();
    std::fs::write(&trace, format!("; MaxProcs: 8\n{jobs}")).unwrap();
    let trace = trace.to_str().unwrap().to_string();
    let spec = dir.join("spec.toml");
    let values = [
        "0",
        "-1",
        "1e-12",
        "0.001",
        "0.5",
        "1",
        "3",
        "10",
        "11",
        "1e12",
        "1e300",
        "nan",
        "inf",
        "-inf",
        "9223372036854775807",
        "18446744073709551616",
        "1.5",
        "1,5",
        "",
        "abc",
        "0x10",
    ];
    // Each knob: the arguments around the value (`{}`), or a spec line for a sweep's --dry-run.
    let t = trace.as_str();
    let knobs: Vec<Vec<&str>> = vec![
        vec!["run", "--trace", t, "--scheduler", "conservative", "--load", "{}"],
        vec!["run", "--trace", t, "--scheduler", "easy", "--load-scale", "{}"],
        vec![
            "run",
            "--trace",
            t,
            "--scheduler",
            "easy",
            "--resample",
            "shake",
            "--shake-jitter",
            "{}",
        ],
        vec![
            "run",
            "--trace",
            t,
            "--scheduler",
            "fcfs",
            "--resample",
            "users",
            "--users-scale",
            "{}",
        ],
        vec![
            "run",
            "--trace",
            t,
            "--scheduler",
            "fcfs",
            "--resample",
            "users",
            "--resample-weeks",
            "{}",
        ],
        vec![
            "run",
            "--trace",
            t,
            "--scheduler",
            "sjbf",
            "--estimates",
            "tsafrir",
            "--max-estimate",
            "{}",
        ],
        vec!["run", "--trace", t, "--scheduler", "easy", "--procs", "{}"],
        vec!["run", "--trace", t, "--scheduler", "easy", "--seed", "{}"],
        vec![
            "run",
            "--model",
            "lublin",
            "--param",
            "jobs=500",
            "--param",
            "load={}",
            "--scheduler",
            "easy",
        ],
        vec![
            "run",
            "--model",
            "lublin",
            "--param",
            "jobs={}",
            "--scheduler",
            "fcfs",
        ],
        vec![
            "run",
            "--model",
            "lublin",
            "--param",
            "jobs=500",
            "--param",
            "procs={}",
            "--scheduler",
            "fcfs",
        ],
        vec![
            "run",
            "--model",
            "downey",
            "--param",
            "days=1",
            "--param",
            "rho={}",
            "--scheduler",
            "easy",
        ],
        vec![
            "run",
            "--model",
            "downey",
            "--param",
            "days={}",
            "--scheduler",
            "fcfs",
        ],
        vec![
            "moldable",
            "--policy",
            "asp",
            "--warmup",
            "10",
            "--window",
            "200",
            "--saturation",
            "100",
            "--load",
            "{}",
        ],
        vec!["moldable", "--policy", "asp", "--load", "0.5", "--window", "{}"],
        vec!["cluster", "--jobs", "40", "--arrival-scale", "{}"],
        vec!["cluster", "--jobs", "40", "--mpl", "{}"],
        vec!["cluster", "--jobs", "{}"],
        vec!["cluster", "--jobs", "40", "--local-share", "{}"],
        vec!["sweep", "count = {}"],
        vec!["sweep", "min = 2\nmax = {}\ntarget = 0.1\nmetric = \"mean_wait\""],
        vec!["sweep", "count = 2\nconfidence = {}"],
    ];
    let mut exits: BTreeMap<i32, usize> = BTreeMap::new();
    for knob in &knobs {
        for value in values {
            let args: Vec<String> = if knob[0] == "sweep" {
                let replications = knob[1].replace("{}", value);
                std::fs::write(
                    &spec,
                    format!(
                        "metrics = [\"mean_wait\"]\n[run]\nmodel = \"lublin\"\njobs = 500\n\
                         [axes]\nscheduler = [\"fcfs\", \"easy\"]\n[replications]\n{replications}\n"
                    ),
                )
                .unwrap();
                ["sweep", spec.to_str().unwrap(), "--dry-run"]
                    .map(String::from)
                    .to_vec()
            } else {
                knob.iter().map(|a| a.replace("{}", value)).collect()
            };
            let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let started = std::time::Instant::now();
            let status = loop {
                if let Some(status) = child.try_wait().unwrap() {
                    break status;
                }
                if started.elapsed().as_secs() >= 60 {
                    child.kill().unwrap();
                    panic!("{args:?}: still running after a minute");
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            };
            let mut stderr = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
            let code = status.code().unwrap_or(-1);
            assert!(code == 0 || code == 2, "{args:?} exited {code}: {stderr}");
            *exits.entry(code).or_default() += 1;
        }
    }
    eprintln!(
        "mutation: {} knob values ({} knobs x {} values): exits {exits:?}",
        knobs.len() * values.len(),
        knobs.len(),
        values.len()
    );
    // Both outcomes occur: the values reach the checks and the runs.
    assert!(
        exits.get(&0).is_some_and(|&n| n > 50) && exits.get(&2).is_some_and(|&n| n > 200),
        "{exits:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
