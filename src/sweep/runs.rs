//! `runs.csv`, the journal and record of a sweep: one row per replication (the cell's axis
//! values, rep, seed, saturation, the metrics, and a check of the row), written and read
//! back exactly; the names of the files beside it.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use super::spec::Plan;
use super::task::RunRecord;
use crate::error::{Error, FieldError, Result};
use crate::seed::fnv1a;

pub const RUNS_FILE: &str = "runs.csv";
pub const SPEC_FILE: &str = "spec.toml";
pub const HASH_FILE: &str = "spec.hash";
/// The spec's folder, absolute, so that `merge` resolves relative trace paths as the run
/// did. Kept out of the summaries so that they do not depend on where the repository lies.
pub const SPEC_DIR_FILE: &str = "spec.dir";

/// Formats a float so that parsing it back gives the same value: shortest round trip,
/// `inf` and `NaN` as Rust and pandas read them.
pub fn number(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{x}")
    }
}

/// The header of `runs.csv`: one column per axis, then rep, seed, saturated, the metrics,
/// and `check`.
pub fn runs_header(plan: &Plan) -> Vec<String> {
    let mut h: Vec<String> = plan.axes.iter().map(|a| a.name.clone()).collect();
    h.extend(["rep", "seed", "saturated"].map(String::from));
    h.extend(plan.metrics.iter().cloned());
    h.push("check".into());
    h
}

/// A row's check: 32 bits of the FNV-1a hash of its other fields (separated by the unit
/// separator, so CSV quoting does not matter), in hex. An edited or corrupted row no longer
/// matches it (accidents, not forgery, are what it guards against).
fn check(fields: &[impl AsRef<str>]) -> String {
    let mut bytes = Vec::new();
    for f in fields {
        bytes.extend_from_slice(f.as_ref().as_bytes());
        bytes.push(0x1f);
    }
    format!("{:08x}", fnv1a(&bytes) as u32)
}

pub fn runs_row(plan: &Plan, r: &RunRecord) -> Vec<String> {
    let mut row: Vec<String> = plan.cells[r.cell].values.iter().map(|v| v.to_string()).collect();
    row.push(r.rep.to_string());
    row.push(r.seed.to_string());
    row.push(r.saturated.to_string());
    row.extend(r.metrics.iter().map(|&m| number(m)));
    row.push(check(&row));
    row
}

/// One CSV line (with its newline) for the journal.
pub fn runs_line(fields: &[String]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(fields).expect("writing to memory");
    w.into_inner().expect("writing to memory")
}

/// Reads the complete rows of a `runs.csv` written for `plan`. A last line without its
/// newline (the process was killed mid-write) is ignored; any other bad row is an error
/// naming the file and line: one whose check does not match its fields, whose seed is not
/// the one the spec gives its cell and replication, or that records a replication again.
pub fn read_runs(path: &Path, plan: &Plan) -> Result<Vec<RunRecord>> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(path, e)),
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(&bytes[..complete]);
    let bad = |line: u64, message: String| Error::Swf {
        path: path.to_path_buf(),
        line: line as usize,
        message,
    };
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| bad(1, e.to_string()))?
        .iter()
        .map(String::from)
        .collect();
    if complete > 0 && header != runs_header(plan) {
        return Err(bad(
            1,
            format!(
                "header {header:?} does not match the spec's {:?}",
                runs_header(plan)
            ),
        ));
    }
    let by_values: HashMap<Vec<String>, usize> = plan
        .cells
        .iter()
        .map(|c| (c.values.iter().map(|v| v.to_string()).collect(), c.index))
        .collect();
    let mut out = Vec::new();
    let mut first_line: HashMap<(usize, usize), u64> = HashMap::new();
    for (i, row) in reader.records().enumerate() {
        let line = i as u64 + 2;
        let row = row.map_err(|e| bad(line, e.to_string()))?;
        let fields: Vec<&str> = row.iter().collect();
        let record = parse_row(plan, &by_values, &fields).map_err(|e| bad(line, e.to_string()))?;
        if let Some(earlier) = first_line.insert((record.cell, record.rep), line) {
            return Err(bad(
                line,
                format!(
                    "cell {} replication {} recorded again (first on line {earlier})",
                    record.cell, record.rep
                ),
            ));
        }
        out.push(record);
    }
    Ok(out)
}

/// One row of `runs.csv` (the header's worth of fields) as a record, checked: its cell is
/// the spec's, its check matches its fields, its seed is the spec's for its cell and rep.
fn parse_row(
    plan: &Plan,
    by_values: &HashMap<Vec<String>, usize>,
    fields: &[&str],
) -> std::result::Result<RunRecord, FieldError> {
    let (axes, width) = (plan.axes.len(), runs_header(plan).len());
    if fields.len() != width {
        return Err(FieldError::new(
            "the row",
            format!("{} fields, expected {width}", fields.len()),
        ));
    }
    let (last, rest) = fields.split_last().expect("a header's worth of fields");
    if *last != check(rest) {
        return Err(FieldError::new(
            "check",
            format!(
                "the row does not match its check ({last}, its fields give {}): edited or corrupt",
                check(rest)
            ),
        ));
    }
    let values: Vec<String> = fields[..axes].iter().map(|s| s.to_string()).collect();
    let cell = *by_values.get(&values).ok_or_else(|| {
        FieldError::new(
            "the axes",
            format!("no cell of the spec has the values {values:?}"),
        )
    })?;
    let whole = |k: usize, what: &str| -> std::result::Result<u64, FieldError> {
        fields[axes + k]
            .parse()
            .map_err(|_| FieldError::new(what, format!("'{}' is not a whole number", fields[axes + k])))
    };
    let saturated = match fields[axes + 2] {
        "true" => true,
        "false" => false,
        other => {
            return Err(FieldError::new(
                "saturated",
                format!("'{other}' is not true or false"),
            ));
        }
    };
    let metrics = fields[axes + 3..]
        .iter()
        .zip(&plan.metrics)
        .map(|(f, m)| {
            f.parse::<f64>()
                .map_err(|_| FieldError::new(m.as_str(), format!("'{f}' is not a number")))
        })
        .collect::<std::result::Result<Vec<f64>, FieldError>>()?;
    let record = RunRecord {
        cell,
        rep: whole(0, "rep")? as usize,
        seed: whole(1, "seed")?,
        saturated,
        metrics,
    };
    let expected = plan.seed_for(&plan.cells[cell], record.rep);
    if record.seed != expected {
        return Err(FieldError::new(
            "seed",
            format!(
                "{} is not the spec's seed of cell {cell} replication {} ({expected})",
                record.seed, record.rep
            ),
        ));
    }
    Ok(record)
}

/// Replications per cell, sorted by rep; cells of other shards stay empty.
pub type Results = Vec<Vec<RunRecord>>;
