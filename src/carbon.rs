//! A carbon-intensity series (grams of CO2 per kWh over time, read from CSV) and the carbon
//! of a power draw over it. docs/semantics.md, "Energy", states the format and the rules.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::Time;
use crate::error::{Error, Result};

/// Most grams per kWh a series may hold: above any grid's (coal is about 1,000).
pub const MAX_GRAMS_PER_KWH: f64 = 1e5;

/// Intensity over time: from each row's time until the next row's, its value; after the
/// last row, the last value.
#[derive(Clone, Debug, PartialEq)]
pub struct Intensity {
    pub path: PathBuf,
    times: Vec<Time>,
    grams_per_kwh: Vec<f64>,
}

impl Intensity {
    /// Reads `time,gco2_per_kwh` rows (a header line first, `.gz` too): times whole
    /// seconds on the trace's clock, strictly rising; intensities from 0 to
    /// [`MAX_GRAMS_PER_KWH`]. Errors name the file and the line.
    pub fn read(path: &Path) -> Result<Intensity> {
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
        let mut series = Intensity {
            path: path.to_path_buf(),
            times: Vec::new(),
            grams_per_kwh: Vec::new(),
        };
        for (i, line) in BufReader::new(reader).lines().enumerate() {
            let line = line.map_err(|e| Error::io(path, e))?;
            let n = i + 1;
            if n == 1 || line.trim().is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            let [time, grams] = fields[..] else {
                return Err(bad(
                    n,
                    format!("expected 2 fields (time,gco2_per_kwh), found {}", fields.len()),
                ));
            };
            let time: Time = time
                .parse()
                .map_err(|_| bad(n, format!("time = '{time}': expected whole seconds")))?;
            let value: f64 = grams
                .parse()
                .ok()
                .filter(|g: &f64| (0.0..=MAX_GRAMS_PER_KWH).contains(g))
                .ok_or_else(|| {
                    bad(
                        n,
                        format!("gco2_per_kwh = '{grams}': expected 0 to {MAX_GRAMS_PER_KWH}"),
                    )
                })?;
            if series.times.last().is_some_and(|&last| time <= last) {
                return Err(bad(
                    n,
                    format!("time = {time}: not after the row before; times must rise"),
                ));
            }
            series.times.push(time);
            series.grams_per_kwh.push(value);
        }
        if series.times.is_empty() {
            return Err(Error::Workload {
                path: path.to_path_buf(),
                message: "no row under the header: an intensity series needs at least one".into(),
            });
        }
        Ok(series)
    }

    /// The first time the series covers.
    pub fn start(&self) -> Time {
        self.times[0]
    }

    /// Grams of CO2 of drawing `power` (watts, a step function: `(time, watts from then
    /// on)` in time order, the last step closing at `until`) with the series read at
    /// `time + offset`. Times before the series' start read its first value (callers
    /// refuse series that start after the run).
    pub fn grams(&self, power: &[(Time, f64)], until: Time, offset: Time) -> f64 {
        let mut grams = 0.0;
        let mut k = 0;
        for (i, &(from, watts)) in power.iter().enumerate() {
            let to = power.get(i + 1).map_or(until, |p| p.0);
            let (mut a, b) = (from + offset, to + offset);
            while a < b {
                while k + 1 < self.times.len() && self.times[k + 1] <= a {
                    k += 1;
                }
                let next = self.times.get(k + 1).copied().unwrap_or(Time::MAX).min(b);
                // watts x seconds = joules; / 3.6e6 = kWh.
                grams += watts * (next - a) as f64 / 3.6e6 * self.grams_per_kwh[k];
                a = next;
            }
        }
        grams
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(text: &str) -> Result<Intensity> {
        // A folder per call: the tests run in parallel in one process.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("schedlab-carbon-{}-{call}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("i.csv");
        std::fs::write(&path, text).unwrap();
        let read = Intensity::read(&path);
        std::fs::remove_dir_all(&dir).unwrap();
        read
    }

    /// 1 kW for two hours over a series at 100 g/kWh for the first hour and 300 after:
    /// 100 + 300 = 400 g; an offset of an hour reads 300 throughout: 600 g.
    #[test]
    fn carbon_by_hand() {
        let s = series("time,gco2_per_kwh\n0,100\n3600,300\n").unwrap();
        let power = [(0, 1000.0)];
        assert!((s.grams(&power, 7200, 0) - 400.0).abs() < 1e-9);
        assert!((s.grams(&power, 7200, 3600) - 600.0).abs() < 1e-9);
        // Two steps of power: 2 kW for the first half hour, none after.
        assert!((s.grams(&[(0, 2000.0), (1800, 0.0)], 7200, 0) - 100.0).abs() < 1e-9);
    }

    #[test]
    fn bad_series_are_refused_naming_the_line() {
        for (text, expected) in [
            ("t,g\n0,100\n0,200\n", "i.csv:3: time = 0: not after"),
            ("t,g\n0,-1\n", "i.csv:2: gco2_per_kwh = '-1'"),
            ("t,g\n0\n", "i.csv:2: expected 2 fields"),
            ("t,g\nx,1\n", "i.csv:2: time = 'x'"),
            ("t,g\n", "no row under the header"),
        ] {
            let e = series(text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text:?}: {e}");
        }
    }
}
