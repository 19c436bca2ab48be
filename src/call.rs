//! The one grammar of every parameterised name: schedulers, runtime predictors, allocation
//! strategies, partitioning policies and estimators are all written `name` or
//! `name(key=value,...)`, parsed here and nowhere else.
//!
//! Rules, the same for every kind:
//! - whitespace around the name, the parentheses, commas and `=` is ignored, so
//!   `ga (population = 20)` is `ga(population=20)`;
//! - a name is lower-case letters, digits, `-` and `_`; so is a key;
//! - each key at most once, and every key must be one the name takes: an unknown key is
//!   refused with the list of those it takes;
//! - a value is any text without `(`, `)`, `,` or `=`; it may not be empty;
//! - one bare value, first in the parentheses, is a positional argument, for names whose
//!   papers write them that way (`aep(2)`, `aep(2, dif=free)`); names that take none refuse it.
//!
//! Each kind parses with [`Call::parse`], takes its keys with typed defaults
//! ([`Call::take`], [`Call::flag`], [`Call::choice`]), and ends with [`Call::finish`], which
//! refuses what was not taken. Its `Display` writes the canonical form (no spaces), which
//! parses back to the same value.

use std::fmt;
use std::str::FromStr;

/// What is wrong with a parameter string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Not of the form `name(key=value,...)`.
    Syntax(String),
    /// The name is not one of `known`; `hint` names the closest, if one is near.
    UnknownName { known: String, hint: String },
    /// A key the name does not take; `allowed` lists those it does, `closest` the one
    /// nearest to it if one is near enough to be a slip.
    UnknownKey {
        key: String,
        allowed: String,
        closest: Option<&'static str>,
    },
    /// A value that is not what the key needs.
    BadValue {
        key: String,
        value: String,
        expected: String,
    },
    /// Values that do not go together, or a value that refers to something unknown.
    Invalid(String),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Syntax(m) | Problem::Invalid(m) => f.write_str(m),
            Problem::UnknownName { known, hint } => write!(f, "unknown name{hint}; known: {known}"),
            Problem::UnknownKey {
                key,
                allowed,
                closest,
            } => {
                let hint = crate::suggest::phrase(*closest);
                write!(f, "unknown parameter '{key}'{hint}; {allowed}")
            }
            Problem::BadValue { key, value, expected } => {
                write!(f, "{key} = {value}: expected {expected}")
            }
        }
    }
}

/// A parameter string that does not parse: which kind of thing it names, the text, and
/// the problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} '{text}': {problem}")]
pub struct CallError {
    /// `scheduler`, `predictor`, `strategy`, `policy`, `estimator`, ...
    pub kind: &'static str,
    pub text: String,
    pub problem: Problem,
}

impl From<CallError> for String {
    fn from(e: CallError) -> String {
        e.to_string()
    }
}

/// A parsed `name(key=value,...)`, from which a kind takes its parameters.
#[derive(Debug)]
pub struct Call<'a> {
    kind: &'static str,
    text: &'a str,
    name: &'a str,
    positional: Option<&'a str>,
    /// Keyed arguments in order, with whether the kind has taken each.
    args: Vec<(&'a str, &'a str, bool)>,
    /// The keys the kind asked for, to name them when one is unknown.
    asked: Vec<&'static str>,
    /// A required key that was not given, said once no key is unknown.
    missing: Option<(&'static str, String)>,
}

fn is_word(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

impl<'a> Call<'a> {
    /// Splits `text` into a name and its arguments; `kind` names what it is in errors.
    pub fn parse(kind: &'static str, text: &'a str) -> Result<Call<'a>, CallError> {
        let text = text.trim();
        let syntax = |m: String| CallError {
            kind,
            text: text.to_string(),
            problem: Problem::Syntax(m),
        };
        let (name, inner) = match text.split_once('(') {
            None => (text, None),
            Some((name, rest)) => {
                let inner = rest
                    .trim_end()
                    .strip_suffix(')')
                    .ok_or_else(|| syntax("missing ')' at the end".into()))?;
                (name.trim(), Some(inner))
            }
        };
        if !is_word(name) {
            return Err(syntax(if name.is_empty() {
                "no name".into()
            } else {
                format!("'{name}' is not a name (lower-case letters, digits, - and _)")
            }));
        }
        let mut call = Call {
            kind,
            text,
            name,
            positional: None,
            args: Vec::new(),
            asked: Vec::new(),
            missing: None,
        };
        let Some(inner) = inner else {
            return Ok(call);
        };
        if let Some(c) = inner.chars().find(|c| matches!(c, '(' | ')')) {
            return Err(syntax(format!("'{c}' inside the parentheses")));
        }
        if inner.trim().is_empty() {
            return Ok(call);
        }
        let items: Vec<&str> = inner.split(',').map(str::trim).collect();
        for (i, item) in items.iter().enumerate() {
            match item.split_once('=') {
                // One bare value, first (`aep(2)`, `aep(2, dif=free)`).
                None if i == 0 && !item.is_empty() => call.positional = Some(item),
                None => {
                    return Err(syntax(if item.is_empty() {
                        "an empty item between commas".into()
                    } else {
                        format!("'{item}' is not key=value")
                    }));
                }
                Some((key, value)) => {
                    let (key, value) = (key.trim(), value.trim());
                    if !is_word(key) {
                        return Err(syntax(format!(
                            "'{key}' is not a key (lower-case letters, digits, - and _)"
                        )));
                    }
                    if value.is_empty() || value.contains('=') {
                        return Err(syntax(format!(
                            "{key}: the value '{value}' is empty or holds '='"
                        )));
                    }
                    if call.args.iter().any(|(k, _, _)| *k == key) {
                        return Err(syntax(format!("{key} given twice")));
                    }
                    call.args.push((key, value, false));
                }
            }
        }
        Ok(call)
    }

    /// The name before the parentheses.
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// An error about this call.
    pub fn error(&self, problem: Problem) -> CallError {
        CallError {
            kind: self.kind,
            text: self.text.to_string(),
            problem,
        }
    }

    /// The error for a name that is none of `known`.
    pub fn unknown_name(&self, known: &[&str]) -> CallError {
        let names = known.iter().map(|k| k.split('(').next().unwrap_or(k).trim());
        self.error(Problem::UnknownName {
            known: known.join(", "),
            hint: crate::suggest::hint(self.name(), names),
        })
    }

    /// The error for values that do not go together.
    pub fn invalid(&self, message: impl Into<String>) -> CallError {
        self.error(Problem::Invalid(message.into()))
    }

    /// The value of `key` as `parse` reads it, or `default` when it is not given; a value
    /// `parse` refuses is answered with what is `expected`.
    pub fn take_with<T>(
        &mut self,
        key: &'static str,
        default: T,
        expected: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<T, CallError> {
        self.asked.push(key);
        let Some(arg) = self.args.iter_mut().find(|(k, _, _)| *k == key) else {
            return Ok(default);
        };
        arg.2 = true;
        let value = arg.1;
        parse(value).ok_or_else(|| {
            self.error(Problem::BadValue {
                key: key.to_string(),
                value: value.to_string(),
                expected: expected.to_string(),
            })
        })
    }

    /// The value of `key` as a `T` for which `valid` holds (`expected` says which in the
    /// error), or `default`.
    pub fn take<T: FromStr>(
        &mut self,
        key: &'static str,
        default: T,
        expected: &str,
        valid: impl Fn(&T) -> bool,
    ) -> Result<T, CallError> {
        self.take_with(key, default, expected, |v| {
            v.parse::<T>().ok().filter(|x| valid(x))
        })
    }

    /// The value of `key` as `parse` reads it, which must be given: when it is not,
    /// `placeholder` stands in until [`Call::finish`] refuses the call, naming the key and
    /// what is `expected` (after any unknown key, which is the likelier slip).
    pub fn require_with<T>(
        &mut self,
        key: &'static str,
        placeholder: T,
        expected: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<T, CallError> {
        if !self.args.iter().any(|(k, _, _)| *k == key) {
            self.missing.get_or_insert((key, expected.to_string()));
        }
        self.take_with(key, placeholder, expected, parse)
    }

    /// `key` as `true` or `false`, or `default`.
    pub fn flag(&mut self, key: &'static str, default: bool) -> Result<bool, CallError> {
        self.take(key, default, "true or false", |_| true)
    }

    /// `key` as one of the named `options`, or `default`.
    pub fn choice<T: Copy>(
        &mut self,
        key: &'static str,
        default: T,
        options: &[(&str, T)],
    ) -> Result<T, CallError> {
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        self.take_with(key, default, &names.join(" or "), |v| {
            options.iter().find(|(name, _)| *name == v).map(|&(_, x)| x)
        })
    }

    /// The bare value in the parentheses, for names that take one (`aep(2)`).
    pub fn positional(&mut self) -> Option<&'a str> {
        self.positional.take()
    }

    /// Ends the parse: refuses any argument the kind did not take, naming the keys it
    /// takes; otherwise returns `value`.
    pub fn finish<T>(self, value: T) -> Result<T, CallError> {
        let takes = if self.asked.is_empty() {
            format!("{} takes no parameters", self.name)
        } else {
            format!("{} takes {}", self.name, self.asked.join(", "))
        };
        if let Some(p) = self.positional {
            return Err(self.error(Problem::Syntax(format!("'{p}' is not key=value; {takes}"))));
        }
        match self.args.iter().find(|(_, _, taken)| !taken) {
            Some((key, _, _)) => Err(self.error(Problem::UnknownKey {
                key: key.to_string(),
                allowed: takes,
                closest: crate::suggest::closest(key, self.asked.iter().copied()),
            })),
            None => match &self.missing {
                Some((key, expected)) => Err(self.invalid(format!("{} needs {key}: {expected}", self.name))),
                None => Ok(value),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constant(text: &str) -> Result<u32, CallError> {
        let mut call = Call::parse("predictor", text)?;
        if call.name() != "constant" {
            return Err(call.unknown_name(&["constant"]));
        }
        let c = call.take("c", 1, "a whole number >= 1", |&c| c >= 1)?;
        call.finish(c)
    }

    #[test]
    fn whitespace_is_ignored_everywhere() {
        for text in ["constant(c=5)", " constant ( c = 5 ) ", "constant\t(c=5 )"] {
            assert_eq!(constant(text), Ok(5), "{text}");
        }
        assert_eq!(constant("constant"), Ok(1));
        assert_eq!(constant("constant()"), Ok(1));
    }

    #[test]
    fn mistakes_are_named() {
        let message = |t: &str| constant(t).unwrap_err().to_string();
        assert_eq!(
            message("constant(k=3)"),
            "predictor 'constant(k=3)': unknown parameter 'k'; constant takes c"
        );
        assert_eq!(
            message("constant(c=0)"),
            "predictor 'constant(c=0)': c = 0: expected a whole number >= 1"
        );
        assert_eq!(message("ruh"), "predictor 'ruh': unknown name; known: constant");
        assert!(message("constant(c=1").contains("missing ')'"));
        assert!(message("constant(c=1,c=2)").contains("c given twice"));
        assert!(message("constant(c=1,)").contains("empty item"));
        assert!(message("constant(c=)").contains("empty"));
        assert!(message("constant(5)").contains("'5' is not key=value; constant takes c"));
        assert!(message("constant(c=(1))").contains("'(' inside"));
        assert!(message("Constant").contains("not a name"));
        assert!(message("(c=1)").contains("no name"));
    }

    #[test]
    fn positional_and_choices() {
        let mut call = Call::parse("policy", "aep( 2 )").unwrap();
        assert_eq!(call.positional(), Some("2"));
        assert!(call.finish(()).is_ok());
        let mut call = Call::parse("x", "s(search=bfs)").unwrap();
        let got = call.choice("search", 0, &[("dfs", 0), ("bfs", 1)]);
        assert_eq!(got, Ok(1));
        let mut call = Call::parse("x", "s(search=zzz)").unwrap();
        let err = call.choice("search", 0, &[("dfs", 0), ("bfs", 1)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "x 's(search=zzz)': search = zzz: expected dfs or bfs"
        );
    }
}
