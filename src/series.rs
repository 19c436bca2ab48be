//! Step series read from CSV: `time,VALUE` rows under a header line (`.gz` too), each value
//! holding from its time until the next row's. The carbon intensity (`crate::carbon`) and a
//! power cap over time (`crate::machine::CapOverTime`) are read this way.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::Time;
use crate::error::{Error, Result};

/// Reads the rows of `path`: times whole seconds, strictly rising; each value named
/// `column`, accepted by `valid` (`expected` says what it takes). At least one row. Errors
/// name the file and the line.
pub fn read_rows(
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
            .map_err(|_| bad(n, format!("time = '{time}': expected whole seconds")))?;
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
