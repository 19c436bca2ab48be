//! Malformed SWF input gives a clear error naming the file, line and field, never a panic;
//! `--lenient` skips such lines and counts them.

use crate::common;

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
            "fields after field 18: the first job line has none",
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
    let dir = common::scratch("malformed");
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

/// The bounds of docs/semantics.md: times within 2^40 s, machines and jobs within 2^26
/// processors, identifiers within 32 bits; each refused naming the line and field.
#[test]
fn values_beyond_the_bounds_are_refused_with_the_field() {
    let cases = [
        (
            "2 0 -1 9223372036854775807 2 -1 -1 2 -1 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 4 (run time): 9223372036854775807 s is beyond the longest time",
        ),
        (
            "2 9223372036854775000 -1 1000 2 -1 -1 2 2000 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 2 (submit time)",
        ),
        (
            "2 0 -1 10 2 -1 -1 2 100000000000000 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 9 (requested time)",
        ),
        (
            "2 0 -9223372036854775808 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 3 (wait time)",
        ),
        (
            "2 0 -1 10 4294967295 -1 -1 -1 20 -1 1 1 1 1 1 -1 -1 -1\n",
            "field 5 (allocated processors): 4294967295 exceeds the largest machine",
        ),
        (
            "2 0 -1 10 2 -1 -1 2 20 -1 1 4294967296 1 1 1 -1 -1 -1\n",
            "field 12 (user ID): 4294967296 is outside the 32-bit range",
        ),
    ];
    for (body, message) in cases {
        let e = error_of(body);
        assert!(e.starts_with("bad.swf:3: "), "{e}");
        assert!(e.contains(message), "{e} lacks {message}");
    }
    // The largest time accepted is simulated without overflow.
    let text = format!("{HEADER}1 0 -1 1099511627776 2 -1 -1 2 1099511627776 -1 1 1 1 1 1 -1 -1 -1\n");
    let w = parse_swf_str(&text, "long.swf", &SwfOptions::default()).unwrap();
    assert_eq!(w.jobs.runtime[0], 1 << 40);
}

/// Header values are read as their leading number, as archive logs annotate them; a value
/// that cannot be used is quoted in the message.
#[test]
fn annotated_and_unusable_header_values() {
    let job = "1 0 -1 10 2048 -1 -1 2048 20 -1 1 1 1 1 1 -1 -1 -1\n";
    let read = |header: &str| parse_swf_str(&format!("{header}{job}"), "h.swf", &SwfOptions::default());
    let w = read("; MaxProcs: 1664 (72, 1368, 224)\n").unwrap();
    assert_eq!(w.procs, 1664);
    // MaxProcs is preferred over MaxNodes, annotated or not: the 2048-processor job fits.
    let w = read("; MaxNodes: 1152\n; MaxProcs: 9216 (8 cores x 1152 nodes)\n").unwrap();
    assert_eq!((w.procs, w.jobs.len()), (9216, 1));
    assert_eq!(w.header.max_nodes, Some(1152));
    assert!(
        w.header
            .comments
            .iter()
            .any(|c| c.contains("8 cores x 1152 nodes"))
    );
    let e = read("; MaxProcs: 0\n").unwrap_err().to_string();
    assert!(e.contains("the header says MaxProcs: 0"), "{e}");
    let e = read("; MaxProcs: 4294967295\n").unwrap_err().to_string();
    assert!(
        e.contains("MaxProcs: 4294967295") && e.contains("67108864"),
        "{e}"
    );
    // MaxProcs 0 falls back to a usable MaxNodes.
    let w = read("; MaxProcs: 0\n; MaxNodes: 4096\n").unwrap();
    assert_eq!(w.procs, 4096);
    let options = SwfOptions {
        procs: Some(0),
        ..SwfOptions::default()
    };
    let e = parse_swf_str(&format!("; MaxProcs: 8\n{GOOD}"), "p.swf", &options)
        .unwrap_err()
        .to_string();
    assert!(e.contains("--procs 0"), "{e}");
}

/// Comment lines may hold any bytes; a job line with a non-ASCII byte is refused naming
/// the line and column; CR line endings are named.
#[test]
fn bytes_comments_and_line_endings() {
    let mut text = b"; MaxProcs: 8\n; Note: Jos\xe9 ran these (Latin-1)\n".to_vec();
    text.extend_from_slice(GOOD.as_bytes());
    let w =
        schedlab::workload::swf::parse_swf(&text[..], std::path::Path::new("l1.swf"), &SwfOptions::default())
            .unwrap();
    assert_eq!(w.jobs.len(), 1);
    assert!(w.header.comments[1].starts_with("Note: Jos"));
    let mut bad = b"; MaxProcs: 8\n".to_vec();
    bad.extend_from_slice(b"1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 \xe9 -1 -1 -1\n");
    let e =
        schedlab::workload::swf::parse_swf(&bad[..], std::path::Path::new("b.swf"), &SwfOptions::default())
            .unwrap_err()
            .to_string();
    assert!(e.starts_with("b.swf:2: byte 0xE9 at column 35"), "{e}");
    let cr = format!("; MaxProcs: 8\r{GOOD}{GOOD}").replace('\n', "\r");
    let e = parse_swf_str(&cr, "cr.swf", &SwfOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("cr.swf:1: a carriage return") && e.contains("CR line endings"),
        "{e}"
    );
    // CRLF is fine.
    let crlf = format!("{HEADER}{GOOD}").replace('\n', "\r\n");
    assert_eq!(
        parse_swf_str(&crlf, "crlf.swf", &SwfOptions::default())
            .unwrap()
            .jobs
            .len(),
        1
    );
    // An endless line (a device of zeros) is refused once it passes the bound.
    let zeros = std::io::Read::take(std::io::repeat(0), 3 << 20);
    let e = schedlab::workload::swf::parse_swf(
        std::io::BufReader::new(zeros),
        std::path::Path::new("/dev/zero"),
        &SwfOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("/dev/zero:1: longer than"), "{e}");
}

/// A job with an unknown number (-1) is skipped and counted, not hidden; a header's
/// record count is only a hint.
#[test]
fn unknown_job_numbers_and_record_hints() {
    let text =
        format!("{HEADER}; MaxRecords: 50000000\n-1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n{GOOD}");
    let w = parse_swf_str(&text, "n.swf", &SwfOptions::default()).unwrap();
    assert_eq!(w.jobs.len(), 1);
    assert_eq!(w.skipped.job_number_negative, 1);
    assert_eq!(w.skipped.total(), 1);
    assert!(
        w.jobs.submit.capacity() < 2_000_000,
        "reserved {}",
        w.jobs.submit.capacity()
    );
}
