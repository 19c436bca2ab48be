//! Errors of the library, one enum at the module boundary; the binary wraps them with anyhow.

use std::path::PathBuf;

/// Everything the library can fail with. Errors from user input name the file, line and field.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Swf {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Workload { path: PathBuf, message: String },
    #[error("invalid parameter {key}={value}: {message}")]
    Param {
        key: String,
        value: String,
        message: String,
    },
    #[error("{0}")]
    Invalid(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
