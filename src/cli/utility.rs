//! `schedlab utility augment`, and the utility-function flags that `run` shares.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use super::ReadArgs;
use schedlab::atomic::write_atomically;
use schedlab::experiment::Value;
use schedlab::experiment::rigid::augmentation;
use schedlab::workload::read_trace;
use schedlab::workload::swf::{recorded_starts, write_swf};

#[derive(Subcommand)]
pub enum UtilityCommand {
    /// Write the trace with a utility function appended to every job line (the paper's SWF
    /// extension) and its recorded wait times kept.
    Augment {
        /// SWF trace (.swf or .swf.gz).
        path: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        #[command(flatten)]
        utility: UtilityArgs,
        /// Seed of the generator.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where to write the augmented trace.
        #[arg(long, value_name = "FILE.swf")]
        out: PathBuf,
    },
}

/// Priorities and synthetic utility functions (see `schedlab::utility::generate`); the
/// generator's flags need `--priorities`.
#[derive(Args, Clone)]
pub struct UtilityArgs {
    /// Queue-to-priority map, 0 the highest: sdsc-blue, or queue:priority pairs such as
    /// 1:0,2:1,*:2. Gives jobs priorities (for prio and ga) and, unless the trace carries
    /// utility functions, generates them.
    #[arg(long, value_name = "MAP")]
    priorities: Option<String>,
    /// Decay types: mixed (default), linear, exponential, step, or weights such as 2:1:1.
    #[arg(long)]
    decay: Option<String>,
    /// Deadline = max(factor x basis, 10 s) (default 2).
    #[arg(long)]
    deadline_factor: Option<f64>,
    /// What the deadline multiplies: the recorded wait, or the recorded turnaround (default).
    #[arg(long, value_parser = ["wait", "turnaround"])]
    deadline_from: Option<String>,
    /// Intermediate points of linear and exponential functions (default 4).
    #[arg(long)]
    utility_points: Option<u32>,
    /// Top of the start values, per processor-minute requested (default 60: one per
    /// processor-second, which gives aggregate utilities of the paper's magnitude).
    #[arg(long)]
    globmax: Option<f64>,
    /// Standard deviation of the start values, in priority bins (default 0.5).
    #[arg(long)]
    utility_sd: Option<f64>,
    /// Which bin centres a start value: the top one for the top priority (intent, default)
    /// or the paper's formula as printed (literal: the top priority gets the bottom bin).
    #[arg(long, value_parser = ["intent", "literal"])]
    start_bin: Option<String>,
}

impl UtilityArgs {
    /// The flags given, as run parameters.
    pub fn flags(&self) -> Vec<(&'static str, Option<Value>)> {
        vec![
            ("priorities", self.priorities.clone().map(Value::Str)),
            ("decay", self.decay.clone().map(Value::Str)),
            ("deadline_factor", self.deadline_factor.map(Value::Float)),
            ("deadline_from", self.deadline_from.clone().map(Value::Str)),
            (
                "utility_points",
                self.utility_points.map(|n| Value::Int(n.into())),
            ),
            ("globmax", self.globmax.map(Value::Float)),
            ("utility_sd", self.utility_sd.map(Value::Float)),
            ("start_bin", self.start_bin.clone().map(Value::Str)),
        ]
    }
}

pub fn run(command: UtilityCommand) -> Result<()> {
    let UtilityCommand::Augment {
        path,
        read,
        utility,
        seed,
        out,
    } = command;
    augment(&path, &read, &utility, seed, &out)
}

fn augment(path: &Path, read: &ReadArgs, utility: &UtilityArgs, seed: u64, out: &Path) -> Result<()> {
    schedlab::atomic::check_outputs(&[("trace", path)], &[("--out", out)])?;
    let params = super::params(&[], utility.flags())?;
    let augmentation = augmentation(&params)
        .map_err(schedlab::Error::from)?
        .context("--priorities is required: the generator needs each job's priority")?;
    let mut workload = read_trace(path, &read.swf_options())?;
    let bad = |message: String| schedlab::Error::Workload {
        path: path.to_path_buf(),
        message,
    };
    if workload.jobs.utility.is_some() {
        return Err(bad("already carries utility functions".into()).into());
    }
    augmentation
        .apply(&mut workload.jobs, seed)
        .map_err(|e| bad(e.to_string()))?;
    let m = &augmentation.model;
    let note = format!(
        "utility functions by schedlab: priorities {}, decay {}, deadline max({} x recorded {}, 10 s), \
         {} intermediate points, globmax {}, sd {} bins, start bin {}, seed {seed}",
        augmentation.priorities,
        m.decay,
        m.deadline_factor,
        m.deadline_from,
        m.points,
        m.globmax,
        m.sd,
        m.start_bin
    );
    let starts = recorded_starts(&workload.jobs);
    write_atomically(out, |w| write_swf(w, &workload, &starts, &note))?;
    eprintln!(
        "wrote {} jobs with utility functions to {} ({} skipped{})",
        workload.jobs.len(),
        out.display(),
        workload.skipped.total(),
        workload.skipped.detail()
    );
    Ok(())
}
