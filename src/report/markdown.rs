//! `summary.md`: one row per cell, each metric as mean ± half-width.

use std::io::Write;
use std::path::Path;

use crate::atomic::write_atomically;
use crate::error::Result;
use crate::sweep::output::{CellEstimates, Results};
use crate::sweep::spec::Plan;

/// Significant digits that keep a table readable without hiding differences.
fn short(x: f64) -> String {
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

pub fn write_summary_md(
    dir: &Path,
    plan: &Plan,
    results: &Results,
    estimates: &[CellEstimates],
) -> Result<()> {
    write_atomically(&dir.join("summary.md"), |w| {
        writeln!(w, "# {}", plan.name)?;
        if !plan.description.is_empty() {
            writeln!(w, "\n{}", plan.description.trim())?;
        }
        let rule = plan.replications.describe();
        writeln!(
            w,
            "\nMean ± half-width of the {}% Student-t confidence interval; {rule}. Spec hash {}.\n",
            plan.confidence * 100.0,
            plan.spec_hash
        )?;
        let mut header: Vec<String> = plan.axes.iter().map(|a| a.name.clone()).collect();
        header.extend(plan.metrics.iter().cloned());
        header.push("n".into());
        writeln!(w, "| {} |", header.join(" | "))?;
        writeln!(w, "|{}", "---|".repeat(header.len()))?;
        for (c, per_metric, met) in estimates {
            // Values such as `sbh(criteria=PE|P|E|*)` hold pipes, which would split the cell.
            let mut row: Vec<String> = plan.cells[*c]
                .values
                .iter()
                .map(|v| v.to_string().replace('|', "\\|"))
                .collect();
            for e in per_metric {
                row.push(if e.half_width.is_finite() {
                    format!("{} ± {}", short(e.mean), short(e.half_width))
                } else {
                    short(e.mean)
                });
            }
            let saturated = results[*c].iter().any(|r| r.saturated);
            let flag = if saturated {
                " (saturated)"
            } else if *met == Some(false) {
                " (target not met)"
            } else {
                ""
            };
            row.push(format!("{}{flag}", results[*c].len()));
            writeln!(w, "| {} |", row.join(" | "))?;
        }
        Ok(())
    })
}
