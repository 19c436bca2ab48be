//! Malformed SWF input gives a clear error naming the file, line and field, never a panic;
//! `--lenient` skips such lines and counts them.

use std::io::Write;

use proptest::prelude::*;

use schedlab::workload::swf::{SwfOptions, parse_swf_str, read_swf};

const HEADER: &str = "; MaxProcs: 8\n";
const GOOD: &str = "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n";

fn error_of(body: &str) -> String {
    let text = format!("{HEADER}{GOOD}{body}");
    parse_swf_str(&text, "bad.swf", &SwfOptions::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn every_kind_of_malformed_line_names_file_line_and_field() {
    let cases = [
        ("1 2 3\n", "expected 18 fields, found 3"),
        (
            "2 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1 7\n",
            "fields after field 18, but the first job line has none",
        ),
        (
            "2 0 -1 ten 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 4 (run time): expected an integer, got 'ten'",
        ),
        (
            "2 0 -1 10 2 -1 -1 2 20.5 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 9 (requested time): expected an integer",
        ),
        (
            "2 0 -1 10 2 x -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 6 (average CPU time): expected a number",
        ),
        (
            "2 0 -1 10 2 NaN -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 6 (average CPU time)",
        ),
        (
            "2 99999999999999999999 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 2 (submit time)",
        ),
    ];
    for (body, message) in cases {
        let e = error_of(body);
        assert!(e.starts_with("bad.swf:3: "), "{e}");
        assert!(e.contains(message), "{e} lacks {message}");
    }
}

#[test]
fn only_cpu_time_may_be_fractional() {
    let text = format!("{HEADER}1 0 -1 10 2 3.75 1024 2 20 512 1 1 1 1 1 -1 -1 -1\n");
    let w = parse_swf_str(&text, "ok.swf", &SwfOptions::default()).unwrap();
    assert_eq!(w.jobs.len(), 1);
    assert_eq!(w.jobs.avg_cpu[0], 3.75);
    assert_eq!(w.jobs.used_memory[0], 1024);
    let e = error_of("2 0 -1 10 2 3.75 1024.5 2 20 512 1 1 1 1 1 -1 -1 -1\n");
    assert!(e.contains("field 7 (used memory): expected an integer"), "{e}");
}

#[test]
fn lenient_mode_skips_and_counts() {
    let text = format!("{HEADER}{GOOD}1 2 3\n{GOOD}garbage here\n");
    let options = SwfOptions {
        lenient: true,
        ..SwfOptions::default()
    };
    let w = parse_swf_str(&text, "bad.swf", &options).unwrap();
    assert_eq!(w.jobs.len(), 2);
    assert_eq!(w.skipped.malformed, 2);
}

#[test]
fn missing_machine_size_is_an_error_unless_given() {
    let e = parse_swf_str(GOOD, "nohdr.swf", &SwfOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("nohdr.swf:1") && e.contains("--procs"), "{e}");
    let options = SwfOptions {
        procs: Some(4),
        ..SwfOptions::default()
    };
    assert_eq!(parse_swf_str(GOOD, "nohdr.swf", &options).unwrap().procs, 4);
}

#[test]
fn empty_file_gives_an_empty_workload_when_sized() {
    let w = parse_swf_str(HEADER, "empty.swf", &SwfOptions::default()).unwrap();
    assert!(w.jobs.is_empty());
}

#[test]
fn missing_file_names_the_path() {
    let e = read_swf("/nonexistent/trace.swf".as_ref(), &SwfOptions::default()).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/trace.swf"), "{e}");
}

#[test]
fn truncated_and_corrupt_gzip_are_errors() {
    let dir = std::env::temp_dir().join(format!("schedlab-malformed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    for _ in 0..2000 {
        gz.write_all(GOOD.as_bytes()).unwrap();
    }
    let bytes = gz.finish().unwrap();
    let truncated = dir.join("truncated.swf.gz");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let e = read_swf(
        &truncated,
        &SwfOptions {
            procs: Some(8),
            ..SwfOptions::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("truncated.swf.gz"), "{e}");
    let corrupt = dir.join("corrupt.swf.gz");
    let mut bad = bytes.clone();
    for b in bad.iter_mut().skip(20).take(40) {
        *b ^= 0x5a;
    }
    std::fs::write(&corrupt, &bad).unwrap();
    let e = read_swf(
        &corrupt,
        &SwfOptions {
            procs: Some(8),
            ..SwfOptions::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("corrupt.swf.gz"), "{e}");
    let binary = dir.join("binary.swf");
    std::fs::write(&binary, [0u8, 159, 146, 150, 255, 10]).unwrap();
    let e = read_swf(
        &binary,
        &SwfOptions {
            procs: Some(8),
            ..SwfOptions::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("binary.swf"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "(([-0-9. ;a-z]{0,60})\n){0,12}") {
        let _ = parse_swf_str(&text, "fuzz.swf", &SwfOptions { procs: Some(8), ..SwfOptions::default() });
        let _ = parse_swf_str(&text, "fuzz.swf", &SwfOptions { procs: Some(8), lenient: true, ..SwfOptions::default() });
    }

    #[test]
    fn arbitrary_numeric_lines_never_panic(fields in prop::collection::vec(-5i64..1_000_000, 18)) {
        let line: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
        let text = format!("{HEADER}{}\n", line.join(" "));
        if let Ok(w) = parse_swf_str(&text, "fuzz.swf", &SwfOptions::default()) {
            prop_assert_eq!(w.jobs.len() as u64 + w.skipped.total(), 1);
        }
    }
}
