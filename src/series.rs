//! Step series read from CSV: `time,VALUE` rows under a header line (`.gz` too), each value
//! holding from its time until the next row's, read once or repeated every period. The
//! carbon intensity (`crate::carbon`) and a power cap over time (`crate::machine::cap`) are
//! such series.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::Time;
use crate::error::{Error, Result};
use crate::params::{ParamError, Params, Value};

/// A value over time: from each row's time until the next row's, its value. Read once, the
/// first row's value holds before its time too and the last row's for ever; repeated
/// ([`Steps::repeating`]), the rows recur every period from the first row's time, on both
/// sides of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Steps {
    pub path: PathBuf,
    times: Vec<Time>,
    values: Vec<f64>,
    /// Seconds after which the rows repeat, from the first row's time; `None`: read once.
    period: Option<Time>,
}

impl Steps {
    /// Reads the rows of `path`: a header line, then `time,VALUE` rows (`read_rows`).
    pub fn read(path: &Path, column: &str, expected: &str, valid: impl Fn(f64) -> bool) -> Result<Steps> {
        let (times, values) = read_rows(path, column, expected, valid)?;
        Ok(Steps {
            path: path.to_path_buf(),
            times,
            values,
            period: None,
        })
    }

    /// The first row's time.
    pub fn start(&self) -> Time {
        self.times[0]
    }

    /// The period the rows repeat with, if they do.
    pub fn period(&self) -> Option<Time> {
        self.period
    }

    /// The rows' times, in order.
    pub fn times(&self) -> &[Time] {
        &self.times
    }

    /// The rows' values, in time order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The same rows with each value mapped by `f`.
    pub fn map(&self, f: impl Fn(f64) -> f64) -> Steps {
        Steps {
            values: self.values.iter().map(|&v| f(v)).collect(),
            ..self.clone()
        }
    }

    /// The same value over time in fewest rows: a row that repeats the row before is
    /// dropped, and rows that all hold one value become that value read once (which
    /// repeated every period would still read as a change at each period's start).
    pub fn merged(&self) -> Steps {
        let mut merged = Steps {
            times: vec![self.times[0]],
            values: vec![self.values[0]],
            ..self.clone()
        };
        for (&t, &v) in self.times.iter().zip(&self.values).skip(1) {
            if v != merged.values[merged.values.len() - 1] {
                merged.times.push(t);
                merged.values.push(v);
            }
        }
        if merged.values.len() == 1 {
            merged.period = None;
        }
        merged
    }

    /// The rows repeated every `period` seconds from the first row's time (a daily cycle
    /// of 24 hourly rows, say): the key `key`; refused where the rows span a period or more.
    pub fn repeating(mut self, key: &str, period: Time) -> std::result::Result<Steps, ParamError> {
        let span = self.times[self.times.len() - 1] - self.times[0];
        if !(1..=crate::workload::MAX_TIME).contains(&period) || span >= period {
            return Err(ParamError::BadValue {
                key: key.into(),
                value: period.to_string(),
                expected: format!(
                    "whole seconds from 1 to 2^40, longer than the {span} s the rows of {} span",
                    self.path.display()
                ),
            });
        }
        self.period = Some(period);
        Ok(self)
    }

    /// The value at `time` and when it next changes (`Time::MAX`: never).
    pub fn step_at(&self, time: Time) -> (f64, Time) {
        let (start, at) = match self.period {
            None => (0, time),
            Some(p) => {
                let t0 = self.times[0];
                let within = (time - t0).rem_euclid(p);
                (time - within - t0, t0 + within)
            }
        };
        let k = self.times.partition_point(|&t| t <= at).saturating_sub(1);
        let next = match (self.times.get(k + 1), self.period) {
            (Some(&t), _) => start + t,
            (None, Some(p)) => start + self.times[0] + p,
            (None, None) => Time::MAX,
        };
        (self.values[k], next)
    }
}

/// A series' `<prefix>_period` and `<prefix>_offset` keys (the period its rows repeat with,
/// and the seconds added to the trace's clock to read it): `None` and 0 when absent.
pub fn period_and_offset(
    params: &Params,
    prefix: &str,
) -> std::result::Result<(Option<Time>, Time), ParamError> {
    let (period_key, offset_key) = (format!("{prefix}_period"), format!("{prefix}_offset"));
    let period = match params.get(&period_key) {
        None => None,
        Some(Value::Int(p)) => Some(*p),
        Some(v) => {
            return Err(ParamError::BadValue {
                key: period_key,
                value: v.to_string(),
                expected: "whole seconds (86400: a daily cycle)".into(),
            });
        }
    };
    let offset = match params.get(&offset_key) {
        None => 0,
        Some(Value::Int(i)) if i.unsigned_abs() <= crate::workload::MAX_TIME as u64 => *i,
        Some(v) => {
            return Err(ParamError::BadValue {
                key: offset_key,
                value: v.to_string(),
                expected: "whole seconds within 2^40 either way".into(),
            });
        }
    };
    Ok((period, offset))
}

/// Reads the rows of `path`: times whole seconds, strictly rising; each value named
/// `column`, accepted by `valid` (`expected` says what it takes). At least one row. Errors
/// name the file and the line.
fn read_rows(
    path: &Path,
    column: &str,
    expected: &str,
    valid: impl Fn(f64) -> bool,
) -> Result<(Vec<Time>, Vec<f64>)> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let bad = |line: usize, message: String| Error::Swf {
        path: path.to_path_buf(),
        line,
        message,
    };
    let (mut times, mut values): (Vec<Time>, Vec<f64>) = (Vec::new(), Vec::new());
    for (i, line) in BufReader::new(reader).lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        let n = i + 1;
        if n == 1 || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [time, value] = fields[..] else {
            return Err(bad(
                n,
                format!("expected 2 fields (time,{column}), found {}", fields.len()),
            ));
        };
        let time: Time = time
            .parse()
            .ok()
            .filter(|t: &Time| t.unsigned_abs() <= crate::workload::MAX_TIME as u64)
            .ok_or_else(|| {
                bad(
                    n,
                    format!("time = '{time}': expected whole seconds within 2^40 either way"),
                )
            })?;
        let parsed: f64 = value
            .parse()
            .ok()
            .filter(|&v: &f64| valid(v))
            .ok_or_else(|| bad(n, format!("{column} = '{value}': expected {expected}")))?;
        if times.last().is_some_and(|&last| time <= last) {
            return Err(bad(
                n,
                format!("time = {time}: not after the row before; times must rise"),
            ));
        }
        times.push(time);
        values.push(parsed);
    }
    if times.is_empty() {
        return Err(Error::Workload {
            path: path.to_path_buf(),
            message: format!("no row under the header: a series of {column} needs at least one"),
        });
    }
    Ok((times, values))
}

/// The value of steps `(time, value from then on)`, in time order, at `t`: the first
/// step's before its time.
pub fn value_at(steps: &[(Time, f64)], t: Time) -> f64 {
    let i = steps.partition_point(|s| s.0 <= t).saturating_sub(1);
    steps[i].1
}
