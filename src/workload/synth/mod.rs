//! Synthetic workload models, generated from a seed so every run is reproducible.

pub mod downey;
pub mod lublin;

use crate::error::{Error, Result};
use crate::workload::Workload;

pub use downey::DowneyParams;
pub use lublin::LublinParams;

/// A synthetic workload model with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Model {
    Downey(DowneyParams),
    Lublin(Box<LublinParams>),
}

/// Names accepted by `--model`.
pub const MODEL_NAMES: [&str; 2] = ["downey", "lublin"];

impl Model {
    /// The offered load the model is asked for (`load`), if any.
    pub fn load_target(&self) -> Option<f64> {
        match self {
            Model::Downey(p) => p.load,
            Model::Lublin(p) => p.load,
        }
    }

    /// Builds a model from its name and `key=value` parameters, validating each.
    pub fn from_name(name: &str, params: &[(String, String)]) -> Result<Self> {
        match name {
            "downey" => {
                let mut p = DowneyParams::default();
                for (k, v) in params {
                    p.set(k, v)?;
                }
                p.validate()?;
                Ok(Model::Downey(p))
            }
            "lublin" => {
                let mut p = LublinParams::default();
                for (k, v) in params {
                    p.set(k, v)?;
                }
                p.validate()?;
                Ok(Model::Lublin(Box::new(p)))
            }
            _ => Err(Error::Invalid(format!(
                "unknown model '{name}'; known models: {}",
                MODEL_NAMES.join(", ")
            ))),
        }
    }

    /// The name `model =` gives.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Downey(_) => "downey",
            Model::Lublin(_) => "lublin",
        }
    }

    /// Jobs a replication generates (expected, for a model that draws arrivals).
    pub fn expected_jobs(&self) -> u64 {
        match self {
            Model::Downey(p) => p.expected_jobs(),
            Model::Lublin(p) => p.jobs as u64,
        }
    }

    /// Generates the workload for `seed`.
    pub fn generate(&self, seed: u64) -> Workload {
        match self {
            Model::Downey(p) => p.generate(seed),
            Model::Lublin(p) => p.generate(seed),
        }
    }
}

/// The error for a key model `model` does not take.
pub(crate) fn unknown_key(model: &str, key: &str, value: &str, known: &[&str]) -> Error {
    Error::Param {
        key: key.into(),
        value: value.into(),
        message: format!(
            "unknown key for model {model}{}; known: {}",
            crate::suggest::hint(key, known.iter().copied()),
            known.join(", ")
        ),
    }
}

/// Checks a model's machine size.
pub(crate) fn check_procs(procs: u32) -> Result<()> {
    if (1..=crate::workload::MAX_PROCS).contains(&procs) {
        return Ok(());
    }
    Err(Error::Param {
        key: "procs".into(),
        value: procs.to_string(),
        message: format!("must be from 1 to {}", crate::workload::MAX_PROCS),
    })
}

/// Parses one model parameter value, naming the key in the error.
/// A model's `load` (or Downey's `rho`) within [`LOAD_RANGE`](crate::workload::LOAD_RANGE).
pub(crate) fn check_load(key: &str, load: f64) -> Result<()> {
    let range = crate::workload::LOAD_RANGE;
    if range.contains(&load) {
        return Ok(());
    }
    Err(Error::Param {
        key: key.into(),
        value: load.to_string(),
        message: format!("must be from {} to {}", range.start(), range.end()),
    })
}

pub(crate) fn parse_param<T: ParamType>(key: &str, value: &str) -> Result<T> {
    value.parse().map_err(|_| Error::Param {
        key: key.into(),
        value: value.into(),
        message: format!("expected {}", T::EXPECTED),
    })
}

/// A model parameter's type, and what it takes in the user's words.
pub(crate) trait ParamType: std::str::FromStr {
    const EXPECTED: &'static str;
}

impl ParamType for u32 {
    const EXPECTED: &'static str = "a whole number from 0 to 4294967295";
}
impl ParamType for u64 {
    const EXPECTED: &'static str = "a whole number from 0";
}
impl ParamType for usize {
    const EXPECTED: &'static str = "a whole number from 0";
}
impl ParamType for i64 {
    const EXPECTED: &'static str = "a whole number";
}
impl ParamType for f64 {
    const EXPECTED: &'static str = "a number";
}
impl ParamType for bool {
    const EXPECTED: &'static str = "true or false";
}
