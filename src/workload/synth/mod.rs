//! Synthetic workload models, generated from a seed so every run is reproducible.

pub mod downey;
pub mod lublin;

use crate::error::{Error, Result};
use crate::workload::Workload;

pub use downey::DowneyParams;
pub use lublin::LublinParams;

/// What a model's file registers (`models!` below): its name, its keys, how its
/// parameters are set and checked, and how it draws a workload. The type that implements
/// it is the model's parameters.
pub trait ModelEntry: Default {
    /// The name `model =` (and `--model`) takes.
    const NAME: &'static str;
    /// The keys [`ModelEntry::set`] takes, in the order they are applied.
    const KEYS: &'static [&'static str];
    /// Sets `key` from its text, naming the key and what it takes if the text is wrong.
    fn set(&mut self, key: &str, value: &str) -> Result<()>;
    /// Checks the parameters together, naming the first bad one.
    fn validate(&self) -> Result<()>;
    /// The offered load the model is asked for (`load`), if any.
    fn load_target(&self) -> Option<f64>;
    /// Jobs a replication generates (expected, for a model that draws arrivals).
    fn expected_jobs(&self) -> u64;
    /// The workload of `seed`.
    fn generate(&self, seed: u64) -> Workload;
}

/// The registry: one line per model, `Variant => Parameters`, from which [`Model`], its
/// names, keys and dispatch are generated. Adding a model: a file with its parameters and
/// [`ModelEntry`], its `mod` line, and a line here.
macro_rules! models {
    ($($variant:ident => $params:ty,)*) => {
        /// A synthetic workload model with its parameters.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Model {
            $($variant(Box<$params>),)*
        }

        /// Names accepted by `--model`, in registry order.
        pub const MODEL_NAMES: &[&str] = &[$(<$params as ModelEntry>::NAME,)*];

        impl Model {
            /// The keys of the model named `name`, if one is registered under it.
            pub fn keys_of(name: &str) -> Option<&'static [&'static str]> {
                match name {
                    $(<$params as ModelEntry>::NAME => Some(<$params as ModelEntry>::KEYS),)*
                    _ => None,
                }
            }

            /// Builds a model from its name and `key=value` parameters, validating each.
            pub fn from_name(name: &str, params: &[(String, String)]) -> Result<Self> {
                $(if name == <$params as ModelEntry>::NAME {
                    let mut p = <$params>::default();
                    for (k, v) in params {
                        p.set(k, v)?;
                    }
                    p.validate()?;
                    return Ok(Model::$variant(Box::new(p)));
                })*
                Err(Error::Invalid(format!(
                    "unknown model '{name}'; known models: {}",
                    MODEL_NAMES.join(", ")
                )))
            }

            /// Its own keys ([`ModelEntry::KEYS`]).
            pub fn keys(&self) -> &'static [&'static str] {
                match self {
                    $(Model::$variant(_) => <$params as ModelEntry>::KEYS,)*
                }
            }

            /// The name `model =` gives.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Model::$variant(_) => <$params as ModelEntry>::NAME,)*
                }
            }

            /// The offered load the model is asked for (`load`), if any.
            pub fn load_target(&self) -> Option<f64> {
                match self {
                    $(Model::$variant(p) => p.load_target(),)*
                }
            }

            /// Jobs a replication generates (expected, for a model that draws arrivals).
            pub fn expected_jobs(&self) -> u64 {
                match self {
                    $(Model::$variant(p) => p.expected_jobs(),)*
                }
            }

            /// Generates the workload for `seed`.
            pub fn generate(&self, seed: u64) -> Workload {
                match self {
                    $(Model::$variant(p) => p.generate(seed),)*
                }
            }
        }
    };
}

models! {
    Downey => DowneyParams,
    Lublin => LublinParams,
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
