//! Errors of the library, one enum at the module boundary; the binary wraps them with anyhow.

use std::path::PathBuf;

/// Everything the library can fail with. Errors from user input name the file, line and field.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading an input file failed.
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
    /// Writing an output file failed: a runtime failure, not bad input.
    #[error("writing {path}: {error}")]
    Output { path: PathBuf, error: std::io::Error },
    #[error("{path}:{line}: {message}")]
    Swf {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Workload { path: PathBuf, message: String },
    /// An output that would overwrite an input or another output (`what`: the option).
    #[error("{what} {path}: {conflict}; nothing was run")]
    OutputClash {
        what: String,
        path: PathBuf,
        conflict: String,
    },
    #[error("invalid parameter {key}={value}: {message}")]
    Param {
        key: String,
        value: String,
        message: String,
    },
    /// A sweep spec is invalid; the message names the key, the value and what is allowed.
    #[error("{path}: {message}")]
    Spec { path: PathBuf, message: String },
    /// Shard outputs that cannot be merged.
    #[error("merge refused: {0}")]
    Merge(String),
    /// A parameter string (`name(key=value,...)`) that does not parse.
    #[error(transparent)]
    Call(#[from] crate::call::CallError),
    /// A run's parameters that do not make an experiment.
    #[error(transparent)]
    Params(#[from] crate::params::ParamError),
    #[error("{0}")]
    Invalid(String),
    /// A trace job in a queue the priority map does not list.
    #[error(transparent)]
    UnmappedQueue(#[from] UnmappedQueue),
    /// A replication too large to run (`--yes` lifts one limit, not the memory).
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
    /// A sweep stopped on request before its end; its journal keeps what finished.
    #[error("interrupted: {0}")]
    Interrupted(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One field of an input record refused (a column of a trace line, a key of a JSON or
/// TOML table): which field and why, in the user's words. A reader turns it into an
/// [`Error`] by adding the file and line it read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    /// The field as the user knows it: `field 19 (GPUs)`, `running[2].age`, `axes.load`.
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, error: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            error,
        }
    }

    /// True when the user's input (a file, a parameter, a spec) is at fault: exit code 2.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, Error::Output { .. } | Error::Interrupted(_))
    }
}

/// A replication too large to run: above [`crate::experiment::JOB_LIMIT`] without
/// `--yes`, or beyond the memory this process may use, which `--yes` cannot lift. Each
/// says what it would take.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TooLarge {
    #[error(
        "a replication would generate about {jobs} jobs (roughly {gigabytes:.1} GB of job tables), more \
         than this machine's {memory_gigabytes:.1} GB of memory; --yes cannot lift this"
    )]
    Memory {
        jobs: u64,
        gigabytes: f64,
        memory_gigabytes: f64,
    },
    #[error(
        "a replication would generate about {jobs} jobs (roughly {gigabytes:.1} GB of job tables), above the limit of \
         {limit} without --yes; pass --yes to run it anyway"
    )]
    Limit { jobs: u64, gigabytes: f64, limit: u64 },
}

/// A job whose queue a priority map does not list.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "priority map {map}: job {job} is in queue {queue}, which the map does not list (add '{queue}:P' or a default '*:P')"
)]
pub struct UnmappedQueue {
    pub map: String,
    pub job: u64,
    pub queue: i32,
}
