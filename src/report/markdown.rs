//! Markdown tables (`summary.md`): a title, a description, a line saying how to read the
//! table, and rows of cells already formatted (see [`short`] and [`estimate`]).

use std::io::Write;
use std::path::Path;

use crate::atomic::write_atomically;
use crate::error::Result;

/// Significant digits that keep a table readable without hiding differences.
pub fn short(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() { "–".into() } else { "∞".into() };
    }
    let digits = if x.abs() >= 100.0 {
        0
    } else if x.abs() >= 1.0 {
        2
    } else {
        4
    };
    format!("{x:.digits$}")
}

/// A mean with its interval, both written by `short`: `mean ± half` where the interval is
/// symmetric as written, `mean [low, high]` where it is not (a log-scale interval, or one
/// cut at the metric's range), the mean alone where there is no interval.
pub fn estimate(mean: f64, low: f64, high: f64) -> String {
    interval(mean, low, high, short)
}

/// [`estimate`] with the numbers written by `write`.
pub fn interval(mean: f64, low: f64, high: f64, write: impl Fn(f64) -> String) -> String {
    if !(low.is_finite() && high.is_finite()) {
        return write(mean);
    }
    let (below, above) = (write(mean - low), write(high - mean));
    if below == above {
        format!("{} ± {above}", write(mean))
    } else {
        format!("{} [{}, {}]", write(mean), write(low), write(high))
    }
}

/// A table to write.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub title: String,
    pub description: String,
    /// How to read the numbers (the interval, the replication rule).
    pub legend: String,
    /// What to know before trusting the numbers, one line each.
    pub warnings: Vec<String>,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Writes `table` to `path` (atomically). Pipes inside cells are escaped, since values such
/// as `sbh(criteria=PE|P|E|*)` would otherwise split them.
pub fn write_markdown(path: &Path, table: &Table) -> Result<()> {
    write_atomically(path, |w| {
        writeln!(w, "# {}", table.title)?;
        if !table.description.is_empty() {
            writeln!(w, "\n{}", table.description.trim())?;
        }
        writeln!(w, "\n{}\n", table.legend)?;
        for warning in &table.warnings {
            writeln!(w, "Warning: {warning}\n")?;
        }
        writeln!(w, "| {} |", table.header.join(" | "))?;
        writeln!(w, "|{}", "---|".repeat(table.header.len()))?;
        for row in &table.rows {
            let cells: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
            writeln!(w, "| {} |", cells.join(" | "))?;
        }
        Ok(())
    })
}
