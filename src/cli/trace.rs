//! `schedlab trace info` (what a trace holds) and `schedlab trace resample` (a new
//! workload drawn from a trace, written as SWF), and the resampling flags `run` shares.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use super::ReadArgs;
use schedlab::atomic::write_atomically;
use schedlab::experiment::Value;
use schedlab::experiment::rigid::WorkloadSpec;
use schedlab::experiment::{Shared, Sources};
use schedlab::machine::{Fit, Machine};
use schedlab::workload::info::TraceInfo;
use schedlab::workload::swf::{SwfOptions, recorded_starts, write_swf};
use schedlab::workload::{Columns, read_trace};

/// How a replication draws a new workload from a trace (`run`, `trace resample`).
#[derive(Args, Default)]
pub struct ResampleArgs {
    /// Traces: draw a new workload from the trace for the seed. shake: every submit time
    /// moved by up to --shake-jitter seconds (input shaking); users: the users' sub-traces
    /// recombined week by week (Zakay & Feitelson; docs/semantics.md).
    #[arg(long = "resample", value_name = "METHOD", value_parser = ["none", "shake", "users"])]
    pub method: Option<String>,
    /// With --resample shake: the largest move of a submit time, seconds [default: 60].
    #[arg(long, requires = "method")]
    pub shake_jitter: Option<u64>,
    /// With --resample users: weeks of the new workload [default: the trace's].
    #[arg(long, requires = "method")]
    pub resample_weeks: Option<u64>,
    /// With --resample users: a user active over at least this many weeks is long-term
    /// [default: 12].
    #[arg(long, requires = "method")]
    pub long_term_weeks: Option<u64>,
    /// With --resample users: new temporary users per week relative to the trace's (the
    /// load by users) [default: 1].
    #[arg(long, requires = "method")]
    pub users_scale: Option<f64>,
    /// Traces: users wait for their jobs. Sessions are read from the log (a job follows
    /// its user's job that ended, by the log's times, less than 20 minutes before it was
    /// submitted; SWF fields 17 and 18), and in the simulation each such job arrives its
    /// think time after its predecessor ends.
    #[arg(long)]
    pub feedback: bool,
}

impl ResampleArgs {
    /// The flags as run parameters.
    pub fn flags(&self) -> Vec<(&'static str, Option<Value>)> {
        let whole = |v: Option<u64>| v.map(|v| Value::Int(v.min(i64::MAX as u64) as i64));
        vec![
            ("resample", self.method.clone().map(Value::Str)),
            ("shake_jitter", whole(self.shake_jitter)),
            ("resample_weeks", whole(self.resample_weeks)),
            ("long_term_weeks", whole(self.long_term_weeks)),
            ("users_scale", self.users_scale.map(Value::Float)),
            ("feedback", self.feedback.then_some(Value::Bool(true))),
        ]
    }
}

#[derive(Subcommand)]
pub enum TraceCommand {
    /// Jobs, skipped jobs by reason, machine size, span, offered load, estimates, users.
    Info {
        /// The trace: SWF (.swf, .swf.gz), a Batsim workload (JSON) or sacct --parsable2 output.
        path: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        /// Print the facts as one JSON object.
        #[arg(long)]
        json: bool,
        /// A machine description (TOML, docs/semantics.md): how the jobs fall on its
        /// partitions by their partition numbers (SWF field 16), and which do not fit.
        #[arg(long, value_name = "FILE.toml")]
        machine: Option<PathBuf>,
    },
    /// Write a new workload drawn from a trace for a seed as SWF, with a header saying how
    /// it was made (--resample users or shake; also --estimates tsafrir).
    Resample {
        /// The trace: SWF (.swf, .swf.gz), a Batsim workload (JSON) or sacct --parsable2 output.
        path: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        #[command(flatten)]
        resample: ResampleArgs,
        /// User estimates as logged, or from Tsafrir's model drawn with the seed.
        #[arg(long, value_parser = ["logged", "tsafrir"])]
        estimates: Option<String>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The SWF file to write.
        #[arg(long, value_name = "FILE.swf")]
        out: PathBuf,
    },
    /// Write a trace (SWF, a Batsim workload or Slurm accounting) as a Batsim workload for
    /// --out FILE.json, as SWF otherwise. Batsim keeps only what it simulates (submit,
    /// runtime, walltime, processors): users, queues and partitions are not written there.
    /// From Slurm accounting, prints the number each partition gets.
    Convert {
        /// The trace: SWF (.swf, .swf.gz), a Batsim workload (JSON) or sacct's output
        /// (`sacct --parsable2`, docs/semantics.md).
        path: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        /// The file to write: FILE.json for Batsim, FILE.swf for SWF.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
}

pub fn run(command: TraceCommand) -> Result<()> {
    let (path, read, json, machine) = match command {
        TraceCommand::Info {
            path,
            read,
            json,
            machine,
        } => (path, read, json, machine),
        TraceCommand::Resample {
            path,
            read,
            resample,
            estimates,
            seed,
            out,
        } => return resample_trace(&path, &read, &resample, estimates, seed, &out),
        TraceCommand::Convert { path, read, out } => return convert_trace(&path, &read, &out),
    };
    let machine = match &machine {
        Some(m) => Some((Machine::read(m)?, m)),
        None => None,
    };
    // What `trace info` reports comes from the simulated columns alone; a machine's fit
    // also reads the partitions (field 16) and the memory.
    let options = SwfOptions {
        columns: match machine {
            Some(_) => Columns::Machine,
            None => Columns::Simulated,
        },
        ..read.swf_options()
    };
    let workload = read_trace(&path, &options).with_context(|| format!("reading {}", path.display()))?;
    let info = TraceInfo::of(&workload);
    let fit = machine.map(|(m, p)| Fit::of(&workload, &m, p));
    let mut out = io::stdout().lock();
    if json {
        match &fit {
            None => serde_json::to_writer(&mut out, &info)?,
            Some(fit) => {
                let mut object = serde_json::to_value(&info)?;
                object["fit"] = serde_json::to_value(fit)?;
                serde_json::to_writer(&mut out, &object)?
            }
        }
        writeln!(out)?;
    } else {
        info.write_text(&mut out)?;
        if let Some(fit) = &fit {
            fit.write_text(&mut out)?;
        }
        for warning in info.warnings(false) {
            writeln!(out, "warning        {warning}")?;
        }
    }
    out.flush()?;
    Ok(())
}

/// `trace convert`: the trace's jobs as read (skips counted and reported) in the format
/// `out`'s name asks for.
fn convert_trace(path: &Path, read: &ReadArgs, out: &Path) -> Result<()> {
    schedlab::atomic::check_outputs(&[("trace", path)], &[("--out", out)])?;
    let workload =
        read_trace(path, &read.swf_options()).with_context(|| format!("reading {}", path.display()))?;
    let batsim = out.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
    match batsim {
        true => write_atomically(out, |w| schedlab::report::batsim::write_workload(w, &workload))?,
        false => {
            // The waits the input recorded (field 3), -1 where it recorded none.
            let starts = recorded_starts(&workload.jobs);
            write_atomically(out, |w| {
                write_swf(w, &workload, &starts, "converted by schedlab trace convert")
            })?
        }
    }
    // The numbers a machine file's `swf` lists give the partitions Slurm named.
    for note in workload
        .header
        .comments
        .iter()
        .filter(|c| c.starts_with("Partition: "))
    {
        eprintln!("{note}");
    }
    eprintln!(
        "{} jobs, {} skipped{} -> {} ({})",
        workload.jobs.len(),
        workload.skipped.total(),
        workload.skipped.detail(),
        out.display(),
        if batsim { "Batsim workload" } else { "SWF" }
    );
    Ok(())
}

/// `trace resample`: the workload a sweep's replication `seed` would replay, as SWF.
fn resample_trace(
    path: &Path,
    read: &ReadArgs,
    resample: &ResampleArgs,
    estimates: Option<String>,
    seed: u64,
    out: &Path,
) -> Result<()> {
    usage!(
        resample.method.is_some() || estimates.is_some(),
        "say how to draw the workload: --resample users|shake and/or --estimates tsafrir"
    );
    schedlab::atomic::check_outputs(&[("trace", path)], &[("--out", out)])?;
    let mut flags = vec![
        ("trace", Some(Value::Str(path.display().to_string()))),
        ("estimates", estimates.map(Value::Str)),
    ];
    flags.extend(read.flags());
    flags.extend(resample.flags());
    let params = super::params(&[], flags)?;
    let spec = WorkloadSpec::from_params(&params, Sources::default(), None).map_err(schedlab::Error::from)?;
    let prepared = spec.prepare(&mut Shared::new([&spec], true), None)?;
    let workload = prepared.draw(seed)?;
    let trace_jobs = prepared.trace().map_or(0, |t| t.workload.jobs.len());
    let how: Vec<String> = params
        .0
        .iter()
        .filter(|(k, _)| k.as_str() != "trace")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let note = format!(
        "drawn from {} with seed {seed}: {}",
        path.display(),
        how.join(", ")
    );
    // No schedule: every wait (field 3) is written as unknown, -1.
    let starts: Vec<i64> = workload.jobs.submit.iter().map(|s| s - 1).collect();
    write_atomically(out, |w| write_swf(w, &workload, &starts, &note))?;
    eprintln!(
        "{} jobs ({} in the trace) -> {}",
        workload.jobs.len(),
        trace_jobs,
        out.display()
    );
    Ok(())
}
