//! `schedlab compare A B`: two runs' `--json` summaries metric by metric, or their
//! `--jobs-out` schedules job by job.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use schedlab::atomic::write_atomically;
use schedlab::metrics::compare::{JobComparison, SummaryComparison, compare_summaries, read_jobs_csv};

#[derive(Args)]
pub struct CompareArgs {
    /// The first run: a `run --json` summary or a `run --jobs-out` CSV.
    a: PathBuf,
    /// The second run, of the same kind.
    b: PathBuf,
    /// Schedules: how many jobs that gained and lost most to list.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Schedules: write every matched job's waits as CSV, with the header
    /// `job_id,procs,runtime,wait_a,wait_b,wait_change,start_change`.
    #[arg(long, value_name = "FILE.csv")]
    out: Option<PathBuf>,
}

/// Whether `path` holds a jobs CSV (by its first bytes), else a JSON summary.
fn is_jobs_csv(path: &Path) -> Result<bool> {
    let text = std::fs::read(path).map_err(|e| schedlab::Error::Io {
        path: path.to_path_buf(),
        error: e,
    })?;
    Ok(text.starts_with(b"job_id,"))
}

fn read_json(path: &Path) -> Result<serde_json::Value> {
    let text = std::fs::read_to_string(path).map_err(|e| schedlab::Error::Io {
        path: path.to_path_buf(),
        error: e,
    })?;
    serde_json::from_str(&text).map_err(|e| {
        schedlab::Error::Swf {
            path: path.to_path_buf(),
            line: e.line(),
            message: format!("neither a run --json summary nor a --jobs-out CSV: {e}"),
        }
        .into()
    })
}

pub fn run(args: CompareArgs) -> Result<()> {
    let (csv_a, csv_b) = (is_jobs_csv(&args.a)?, is_jobs_csv(&args.b)?);
    if csv_a != csv_b {
        return Err(schedlab::Error::Invalid(format!(
            "{} is a {} and {} a {}: compare two summaries (run --json) or two schedules (run --jobs-out)",
            args.a.display(),
            if csv_a { "schedule" } else { "summary" },
            args.b.display(),
            if csv_b { "schedule" } else { "summary" },
        ))
        .into());
    }
    if let Some(path) = &args.out {
        schedlab::atomic::check_outputs(
            &[("first run", &args.a), ("second run", &args.b)],
            &[("--out", path)],
        )?;
    }
    let mut out = io::stdout().lock();
    if csv_a {
        compare_schedules(&args, &mut out)?;
    } else {
        if args.out.is_some() {
            return Err(
                schedlab::Error::Invalid("--out applies to schedules (--jobs-out files)".into()).into(),
            );
        }
        let SummaryComparison {
            deltas,
            labels,
            unmatched,
        } = compare_summaries(&read_json(&args.a)?, &read_json(&args.b)?);
        writeln!(out, "A  {}\nB  {}", args.a.display(), args.b.display())?;
        for (key, a, b) in labels {
            writeln!(out, "{key:<28} A {a}  B {b}")?;
        }
        writeln!(
            out,
            "{:<28} {:>16} {:>16} {:>16} {:>9}",
            "metric", "A", "B", "B - A", "change"
        )?;
        for d in deltas {
            let relative = d.relative();
            let change = if relative.is_finite() {
                format!("{:+.1}%", 100.0 * relative)
            } else {
                "–".into()
            };
            writeln!(
                out,
                "{:<28} {:>16.4} {:>16.4} {:>16.4} {change:>9}",
                d.metric,
                d.a,
                d.b,
                d.b - d.a
            )?;
        }
        if !unmatched.is_empty() {
            writeln!(out, "not compared: {}", unmatched.join(", "))?;
        }
    }
    out.flush()?;
    Ok(())
}

fn compare_schedules(args: &CompareArgs, out: &mut dyn Write) -> Result<()> {
    let (a, b) = (read_jobs_csv(&args.a)?, read_jobs_csv(&args.b)?);
    let c = JobComparison::of(&a, &b).map_err(|e| {
        schedlab::Error::Invalid(format!("A = {}, B = {}: {e}", args.a.display(), args.b.display()))
    })?;
    writeln!(
        out,
        "A  {} ({} jobs)\nB  {} ({} jobs)",
        args.a.display(),
        a.len(),
        args.b.display(),
        b.len()
    )?;
    writeln!(
        out,
        "matched      {} jobs; {} only in A, {} only in B{}",
        c.pairs.len(),
        c.only_a.len(),
        c.only_b.len(),
        if c.only_a.is_empty() && c.only_b.is_empty() {
            ""
        } else {
            " (not compared)"
        }
    )?;
    let (wa, wb, ba, bb) = c.means();
    let pct = |a: f64, b: f64| {
        if a == 0.0 {
            "–".to_string()
        } else {
            format!("{:+.1}%", 100.0 * (b - a) / a)
        }
    };
    writeln!(out, "mean wait    A {wa:.2} s  B {wb:.2} s  ({})", pct(wa, wb))?;
    writeln!(out, "mean bsld    A {ba:.3}  B {bb:.3}  ({})", pct(ba, bb))?;
    let (earlier, later, same, moved) = c.start_shifts();
    writeln!(
        out,
        "starts       {earlier} earlier in B, {later} later, {same} the same; mean |start B - start A| {moved:.1} s"
    )?;
    let (gained, lost) = c.extremes(args.top);
    for (title, list) in [
        ("gained most (wait fell)", gained),
        ("lost most (wait rose)", lost),
    ] {
        writeln!(out, "{title}:")?;
        writeln!(
            out,
            "  {:>10} {:>6} {:>10} {:>12} {:>12} {:>12}",
            "job_id", "procs", "runtime", "wait A", "wait B", "B - A"
        )?;
        for (x, y) in list {
            writeln!(
                out,
                "  {:>10} {:>6} {:>10} {:>12} {:>12} {:>+12}",
                x.job_id,
                x.procs,
                x.runtime,
                x.wait,
                y.wait,
                y.wait - x.wait
            )?;
        }
    }
    if let Some(path) = &args.out {
        write_atomically(path, |w| {
            writeln!(w, "job_id,procs,runtime,wait_a,wait_b,wait_change,start_change")?;
            for (x, y) in &c.pairs {
                writeln!(
                    w,
                    "{},{},{},{},{},{},{}",
                    x.job_id,
                    x.procs,
                    x.runtime,
                    x.wait,
                    y.wait,
                    y.wait - x.wait,
                    y.start - x.start
                )?;
            }
            w.flush()
        })?;
    }
    Ok(())
}
