//! Golden scenarios: tiny SWF files in `tests/golden/` written by hand, each with the expected
//! start of every job for each scheduler in `; expect SCHEDULER: JOB@START ...` comments.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use schedlab::sched::SchedulerKind;
use schedlab::workload::swf::{SwfOptions, read_swf};

fn expectations(text: &str) -> Vec<(SchedulerKind, BTreeMap<u64, i64>)> {
    text.lines()
        .filter_map(|l| l.strip_prefix("; expect "))
        .map(|l| {
            let (name, starts) = l.split_once(':').expect("'; expect NAME: ...'");
            let kind: SchedulerKind = name.trim().parse().unwrap();
            let starts = starts
                .split_whitespace()
                .map(|pair| {
                    let (job, start) = pair.split_once('@').expect("JOB@START");
                    (job.parse().unwrap(), start.parse().unwrap())
                })
                .collect();
            (kind, starts)
        })
        .collect()
}

#[test]
fn every_golden_scenario_gives_the_expected_schedule() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 9,
        "golden scenarios missing from {}",
        dir.display()
    );
    let mut checked = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let workload = read_swf(&path, &SwfOptions::default()).unwrap();
        let expected = expectations(&text);
        let kinds: Vec<_> = expected.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            kinds,
            &SchedulerKind::on_any_jobs()[..4],
            "{}: one expect line per scheduler",
            path.display()
        );
        // With the user estimates as predictions, easy-pred is EASY.
        let easy = expected
            .iter()
            .find(|(k, _)| *k == SchedulerKind::Easy)
            .unwrap()
            .1
            .clone();
        let expected = expected.into_iter().chain([(SchedulerKind::EasyPred, easy)]);
        for (kind, starts) in expected {
            let (start, _) = common::simulate(&workload, kind);
            let got: BTreeMap<u64, i64> = workload
                .jobs
                .swf_id
                .iter()
                .copied()
                .zip(start.iter().copied())
                .collect();
            assert_eq!(got, starts, "{} under {kind}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 45);
}
