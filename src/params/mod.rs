//! The parameters of one run, by key, as a sweep cell or a command line gives them, with
//! typed readers whose errors name the key, the value and what is allowed. Below every
//! model: [`crate::experiment`] reads them, [`crate::sweep`] and the commands write them.

mod value;

pub use value::Value;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// A parameter a kind of experiment takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub name: &'static str,
    /// Whether the value changes the jobs generated or replayed. Only such keys enter a
    /// replication's seed, so cells that differ in the others (the scheduler, say) replay
    /// the same workloads: common random numbers.
    pub shapes_workload: bool,
}

/// A key that shapes the workload.
pub const fn workload(name: &'static str) -> Key {
    Key {
        name,
        shapes_workload: true,
    }
}

/// A key that chooses a policy (scheduler, predictor, strategy, ...) and leaves the
/// workload alone.
pub const fn policy(name: &'static str) -> Key {
    Key {
        name,
        shapes_workload: false,
    }
}

/// What is wrong with a run's parameters.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParamError {
    /// A key the kind of run does not take; `closest` is the allowed key nearest to it, if
    /// one is near enough to be a slip.
    #[error(
        "{key}: not a parameter of {kind}{}; allowed: {allowed}",
        crate::suggest::phrase(*closest)
    )]
    Unknown {
        key: String,
        kind: String,
        allowed: String,
        closest: Option<&'static str>,
    },
    /// A value that is not what the key needs.
    #[error("{key} = {value}: expected {expected}")]
    BadValue {
        key: String,
        value: String,
        expected: String,
    },
    /// A missing key, or keys that do not go together.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Call(#[from] crate::call::CallError),
}

/// A run's parameters: key to value, in key order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params(pub BTreeMap<String, Value>);

fn bad(key: &str, value: &Value, expected: &str) -> ParamError {
    ParamError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        expected: expected.to_string(),
    }
}

impl Params {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    pub fn has(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    pub fn insert(&mut self, key: impl Into<String>, value: Value) {
        self.0.insert(key.into(), value);
    }

    /// The value as text, as written.
    pub fn text(&self, key: &str) -> Option<String> {
        self.get(key).map(Value::to_string)
    }

    /// Whether `key` holds the text `value`.
    pub fn is(&self, key: &str, value: &str) -> bool {
        self.get(key).is_some_and(|v| v.to_string() == value)
    }

    /// The value parsed by its type's `FromStr` (whose error says what is wrong).
    pub fn parsed<T: FromStr>(&self, key: &str) -> Result<Option<T>, ParamError>
    where
        T::Err: Into<ParamError>,
    {
        self.get(key)
            .map(|v| v.to_string().parse().map_err(Into::into))
            .transpose()
    }

    /// A number, or `default`.
    pub fn number(&self, key: &str, default: f64) -> Result<f64, ParamError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.as_f64().ok_or_else(|| bad(key, v, "a number")),
        }
    }

    /// A positive finite number, if given.
    pub fn positive(&self, key: &str) -> Result<Option<f64>, ParamError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(x) if x > 0.0 && x.is_finite() => Ok(Some(x)),
                _ => Err(bad(key, v, "a positive number")),
            },
        }
    }

    /// A number within `range`, if given.
    pub fn within(
        &self,
        key: &str,
        range: &std::ops::RangeInclusive<f64>,
    ) -> Result<Option<f64>, ParamError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(x) if range.contains(&x) => Ok(Some(x)),
                _ => Err(bad(
                    key,
                    v,
                    &format!("a number from {} to {}", range.start(), range.end()),
                )),
            },
        }
    }

    /// A positive integer, if given.
    pub fn whole(&self, key: &str) -> Result<Option<u64>, ParamError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Int(i)) if *i > 0 => Ok(Some(*i as u64)),
            Some(v) => Err(bad(key, v, "a positive integer")),
        }
    }

    /// `true` or `false`, or `default`.
    pub fn flag(&self, key: &str, default: bool) -> Result<bool, ParamError> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(bad(key, v, "true or false")),
        }
    }

    /// Refuses any key not in `keys`, naming those of `kind` that are allowed.
    pub fn only(&self, keys: &[Key], kind: &str) -> Result<(), ParamError> {
        match self
            .0
            .keys()
            .find(|k| !keys.iter().any(|key| key.name == k.as_str()))
        {
            None => Ok(()),
            Some(k) => Err(ParamError::Unknown {
                key: k.clone(),
                kind: kind.to_string(),
                allowed: keys.iter().map(|k| k.name).collect::<Vec<_>>().join(", "),
                closest: crate::suggest::closest(k, keys.iter().map(|k| k.name)),
            }),
        }
    }

    /// The parameters that shape the workload, as `key=value` joined by `;`: equal for
    /// cells that must replay the same workloads.
    pub fn workload_key(&self, keys: &[Key]) -> String {
        self.0
            .iter()
            .filter(|(k, _)| {
                keys.iter()
                    .any(|key| key.name == k.as_str() && key.shapes_workload)
            })
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";")
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        f.write_str(&parts.join(", "))
    }
}
