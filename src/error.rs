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
    /// A sweep stopped on request before its end; its journal keeps what finished.
    #[error("interrupted: {0}")]
    Interrupted(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

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
