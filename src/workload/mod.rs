//! Workloads: the job table, SWF traces, synthetic models, job selection, and the utility
//! functions of completion time that jobs may carry (Lee & Snavely).

pub mod batsim;
pub mod estimates;
pub mod info;
mod jobs;
pub mod resample;
pub mod sacct;
pub mod selection;
pub mod sessions;
pub mod swf;
pub mod synth;
pub mod utility_function;

pub use jobs::{Columns, JobId, JobRecord, Jobs, MalleableColumns, narrow};
pub use selection::Selection;
pub use utility_function::{UtilityError, UtilityFunction};

use std::io::Read;
use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};

/// A trace file's text, plain or inflated (gzip is recognised by its magic bytes).
pub(crate) fn open_text(path: &Path) -> Result<Box<dyn std::io::BufRead>> {
    let open = || std::fs::File::open(path).map_err(|e| Error::io(path, e));
    let mut magic = [0u8; 2];
    let gzip = open()?.read_exact(&mut magic).is_ok() && magic == [0x1f, 0x8b];
    let file = open()?;
    Ok(match gzip {
        true => Box::new(std::io::BufReader::new(flate2::read::MultiGzDecoder::new(file))),
        false => Box::new(std::io::BufReader::new(file)),
    })
}

/// A workload's name in reports: its file's name.
pub(crate) fn trace_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Reads a trace: SWF, Batsim's workload JSON ([`batsim`]) or Slurm's accounting
/// ([`sacct`]), plain or gzip, told apart by the start of its text (`{` opens JSON; a
/// header line of `|`-separated names with `JobID` opens sacct's output; an SWF file opens
/// with a comment or a job line), whatever the file's name.
pub fn read_trace(path: &Path, options: &swf::SwfOptions) -> Result<Workload> {
    // The first bytes of the text; a read error (a broken gzip stream) is left to the
    // reader that would read it, which reports it with the line it reached.
    let mut start = Vec::with_capacity(512);
    let _ = open_text(path)?.take(512).read_to_end(&mut start);
    if batsim::looks_like_json(&start) {
        batsim::read_batsim(path, options)
    } else if sacct::looks_like_sacct(&start) {
        sacct::read_sacct(path, options)
    } else {
        swf::read_swf(path, options)
    }
}

/// The longest time (seconds) a trace or model may hold in a submit, wait, run or requested
/// time: 2^40 s, about 34,800 years. Within it, sums of times cannot overflow.
pub const MAX_TIME: crate::Time = 1 << 40;

/// The offered loads a run may ask for (`load`, and the load a trace's `load_scale` implies):
/// from a thousandth of the machine to ten times it. Past these ends nothing new is learnt,
/// and a model's generation time grows as 1/load while a trace's times leave `MAX_TIME`.
pub const LOAD_RANGE: std::ops::RangeInclusive<f64> = 0.001..=10.0;

/// The most processors a simulated machine (and so a job) may have: 2^26 = 67,108,864,
/// several times today's largest machines.
pub const MAX_PROCS: u32 = 1 << 26;

/// The most GPUs a job may request in all, as many as processors.
pub const MAX_GPUS: u32 = MAX_PROCS;

/// A trace's GPU column as every reader keeps it: `None` unless some job requests a GPU, so
/// that a trace that requests none reads, runs and writes as one without the column.
pub fn gpu_column(gpus: Vec<u32>) -> Option<Vec<u32>> {
    gpus.iter().any(|&g| g > 0).then_some(gpus)
}

/// Jobs left out of a simulation, counted by reason. Nothing is dropped silently: every
/// count is shown by `run` and `trace info`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SkipCounts {
    /// Processors (field 8, else field 5) `<= 0`: unknown or cancelled before allocation.
    pub procs_not_positive: u64,
    /// Runtime (field 4) `< 0`: unknown.
    pub runtime_negative: u64,
    /// More processors than the machine has (on a machine of partitions, than its
    /// partition has).
    pub procs_exceed_machine: u64,
    /// Submit time (field 2) `< 0`: unknown.
    pub submit_negative: u64,
    /// Malformed lines skipped under `--lenient` (an error otherwise).
    pub malformed: u64,
    /// Job number (field 1) `< 0`: unknown, so no selection can name it.
    pub job_number_negative: u64,
    /// On a machine of partitions: a partition number (field 16) no partition runs. Not
    /// written when 0, so that outputs without a machine stay as they were.
    #[serde(skip_serializing_if = "is_zero")]
    pub partition_unplaced: u64,
    /// On a machine of nodes with memory or GPUs: a request no set of its partition's
    /// nodes can hold (say, more memory per processor than a node has). Not written when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub request_exceeds_nodes: u64,
    /// On a partition with a power cap: more processors than the cap lets run at once
    /// (`crate::machine::Partition::usable_cores`). Not written when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub exceeds_power_cap: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl SkipCounts {
    pub fn total(&self) -> u64 {
        self.reasons().iter().map(|(_, n)| n).sum()
    }

    /// The non-zero counts as ` (reason n, ...)`, or nothing: for lines such as
    /// `3 skipped (procs_not_positive 2, malformed 1)`.
    pub fn detail(&self) -> String {
        let parts: Vec<String> = self
            .reasons()
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(r, n)| format!("{r} {n}"))
            .collect();
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        }
    }

    /// (reason, count) pairs with the names used in outputs.
    pub fn reasons(&self) -> [(&'static str, u64); 9] {
        [
            ("procs_not_positive", self.procs_not_positive),
            ("runtime_negative", self.runtime_negative),
            ("procs_exceed_machine", self.procs_exceed_machine),
            ("submit_negative", self.submit_negative),
            ("malformed", self.malformed),
            ("job_number_negative", self.job_number_negative),
            ("partition_unplaced", self.partition_unplaced),
            ("request_exceeds_nodes", self.request_exceeds_nodes),
            ("exceeds_power_cap", self.exceeds_power_cap),
        ]
    }
}

/// A workload ready to simulate: the jobs, the machine size and where they came from.
#[derive(Clone, Debug)]
pub struct Workload {
    /// File name or model description, for reports.
    pub name: String,
    pub jobs: Jobs,
    /// Processors of the simulated machine.
    pub procs: u32,
    pub header: swf::SwfHeader,
    pub skipped: SkipCounts,
    /// Job lines read but outside the selection (`--jobs`, `--first`); not an error.
    pub not_selected: u64,
}

impl Workload {
    /// A generated workload: `name` for reports, `comments` for its SWF header.
    pub fn synthetic(name: String, jobs: Jobs, procs: u32, comments: Vec<String>) -> Workload {
        Workload {
            name,
            jobs,
            procs,
            header: swf::SwfHeader {
                max_procs: Some(procs),
                comments,
                ..swf::SwfHeader::default()
            },
            skipped: SkipCounts::default(),
            not_selected: 0,
        }
    }

    /// This workload with `jobs` in place of its own (name, machine and header kept),
    /// without copying its own jobs.
    pub fn with_jobs(&self, jobs: Jobs) -> Workload {
        Workload {
            name: self.name.clone(),
            jobs,
            procs: self.procs,
            header: self.header.clone(),
            skipped: self.skipped.clone(),
            not_selected: self.not_selected,
        }
    }

    /// Refuses a trace read from `path` that leaves no job to simulate (every job line
    /// skipped or outside the selection): a summary of no jobs would report means and
    /// percentiles of nothing.
    pub fn require_jobs(&self, path: &std::path::Path) -> crate::error::Result<()> {
        if !self.jobs.is_empty() {
            return Ok(());
        }
        Err(crate::error::Error::Workload {
            path: path.to_path_buf(),
            message: format!(
                "no job to simulate: {} skipped{}, {} outside the selection",
                self.skipped.total(),
                self.skipped.detail(),
                self.not_selected
            ),
        })
    }
}
