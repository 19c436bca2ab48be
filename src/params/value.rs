//! Values of run parameters in sweep specs, with one canonical text form used in every
//! output column, rule match and seed derivation.

use std::fmt;

/// A run-parameter value as written in TOML.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
}

impl Value {
    pub fn from_toml(v: &toml::Value) -> Option<Value> {
        Some(match v {
            toml::Value::Integer(i) => Value::Int(*i),
            toml::Value::Float(f) => Value::Float(*f),
            toml::Value::String(s) => Value::Str(s.clone()),
            toml::Value::Boolean(b) => Value::Bool(*b),
            _ => return None,
        })
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Equality as a user means it: `1` matches `1.0`.
    pub fn matches(&self, other: &Value) -> bool {
        match (self.as_f64(), other.as_f64()) {
            (Some(a), Some(b)) => a == b,
            _ => self == other,
        }
    }
}

impl fmt::Display for Value {
    /// Integers and strings as written; floats in Rust's shortest round-trip form (`0.5`,
    /// `1`), so the text form is stable across platforms.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Str(s) => f.write_str(s),
            Value::Bool(b) => write!(f, "{b}"),
        }
    }
}
