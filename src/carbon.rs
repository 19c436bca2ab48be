//! A carbon-intensity series (grams of CO2 per kWh over time, read from CSV) and the carbon
//! of a power draw over it. docs/semantics.md, "Energy", states the format and the rules.

use std::path::Path;

use crate::Time;
use crate::error::Result;
use crate::series::Steps;

/// Most grams per kWh a series may hold: above any grid's (coal is about 1,000).
pub const MAX_GRAMS_PER_KWH: f64 = 1e5;

/// Most seconds a job may be held for a cleaner grid ([`CarbonHold::slack`]): 30 days.
pub const MAX_CARBON_SLACK: Time = 30 * 86_400;

/// Holding jobs while the grid is dirty, a baseline carbon-aware policy: a job reaches the
/// scheduler at the first instant from its submit at which the intensity is at most
/// `threshold` (grams per kWh), and at the latest `slack` seconds after its submit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CarbonHold {
    pub threshold: f64,
    pub slack: Time,
}

/// A run's carbon: the intensity series, the offset from the trace's clock to the series'
/// (`carbon_offset`, seconds), and whether jobs are held for a cleaner grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Carbon {
    pub series: Intensity,
    pub offset: Time,
    pub hold: Option<CarbonHold>,
}

/// Intensity over time, grams of CO2 per kWh: a step series ([`Steps`]) of
/// `time,gco2_per_kwh` rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Intensity {
    pub steps: Steps,
}

impl Intensity {
    /// Reads `time,gco2_per_kwh` rows (a header line first, `.gz` too): times whole
    /// seconds on the trace's clock, strictly rising; intensities from 0 to
    /// [`MAX_GRAMS_PER_KWH`]. Errors name the file and the line.
    pub fn read(path: &Path) -> Result<Intensity> {
        let expected = format!("0 to {MAX_GRAMS_PER_KWH}");
        let steps = Steps::read(path, "gco2_per_kwh", &expected, |g| {
            (0.0..=MAX_GRAMS_PER_KWH).contains(&g)
        })?;
        Ok(Intensity { steps })
    }

    /// The first time the series covers.
    pub fn start(&self) -> Time {
        self.steps.start()
    }

    /// The series repeated every `period` seconds (`carbon_period`, [`Steps::repeating`]).
    pub fn repeating(self, period: Time) -> std::result::Result<Intensity, crate::params::ParamError> {
        Ok(Intensity {
            steps: self.steps.repeating("carbon_period", period)?,
        })
    }

    /// The intensity at `time` (the series' clock) and when it next changes.
    fn step_at(&self, time: Time) -> (f64, Time) {
        self.steps.step_at(time)
    }

    /// When a job submitted at `submit` (the trace's clock; the series read at `submit +
    /// offset`) reaches the scheduler under `hold` ([`CarbonHold`]).
    pub fn release(&self, submit: Time, offset: Time, hold: CarbonHold) -> Time {
        let latest = submit + hold.slack;
        let mut at = submit;
        loop {
            let (grams, next) = self.step_at(at + offset);
            if grams <= hold.threshold {
                return at;
            }
            at = next.saturating_sub(offset);
            if at > latest {
                return latest;
            }
        }
    }

    /// Grams of CO2 of drawing `power` (watts, a step function: `(time, watts from then
    /// on)` in time order, the last step closing at `until`) with the series read at
    /// `time + offset` (`step_at`; callers refuse series that start after the
    /// run).
    pub fn grams(&self, power: &[(Time, f64)], until: Time, offset: Time) -> f64 {
        let mut grams = 0.0;
        for (i, &(from, watts)) in power.iter().enumerate() {
            let to = power.get(i + 1).map_or(until, |p| p.0);
            let (mut a, b) = (from + offset, to + offset);
            while a < b {
                let (intensity, next) = self.step_at(a);
                let next = next.min(b);
                // watts x seconds = joules; / 3.6e6 = kWh.
                grams += watts * (next - a) as f64 / 3.6e6 * intensity;
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

    /// A series at 300 g/kWh until 3,600 s, 100 until 7,200 s, 300 after. Held while above
    /// 200: a job at 0 waits for 3,600 (with slack enough); at 5,000 it goes at once; at
    /// 8,000 the grid never gets clean, so it goes at the end of its slack; with an hour's
    /// offset the clean hour comes at 0 on the trace's clock.
    #[test]
    fn holding_waits_for_a_clean_grid_within_the_slack() {
        let s = series("time,gco2_per_kwh\n0,300\n3600,100\n7200,300\n").unwrap();
        let hold = |slack| CarbonHold {
            threshold: 200.0,
            slack,
        };
        assert_eq!(s.release(0, 0, hold(5_000)), 3_600);
        assert_eq!(s.release(0, 0, hold(3_000)), 3_000);
        assert_eq!(s.release(5_000, 0, hold(5_000)), 5_000);
        assert_eq!(s.release(8_000, 0, hold(5_000)), 13_000);
        assert_eq!(s.release(0, 3_600, hold(5_000)), 0);
        // At the threshold itself the grid counts as clean; before the series, its first row.
        assert_eq!(
            s.release(
                -50,
                0,
                CarbonHold {
                    threshold: 300.0,
                    slack: 10
                }
            ),
            -50
        );
    }

    /// A day of two rows repeated: 100 g/kWh from 0 to 12 h, 300 after, every day. 1 kW
    /// from 6 h to 30 h (a whole day) emits 12 kWh at 100 and 12 at 300: 4,800 g; a job
    /// held above 200 g from 13 h goes at 24 h; rows spanning the period are refused.
    #[test]
    fn a_repeating_series_by_hand() {
        let s = series("time,gco2_per_kwh\n0,100\n43200,300\n")
            .unwrap()
            .repeating(86_400)
            .unwrap();
        let grams = s.grams(&[(6 * 3600, 1000.0)], 30 * 3600, 0);
        assert!((grams - 4_800.0).abs() < 1e-9, "{grams}");
        let hold = CarbonHold {
            threshold: 200.0,
            slack: 86_400,
        };
        assert_eq!(s.release(13 * 3600, 0, hold), 86_400);
        assert_eq!(s.release(13 * 3600 + 3 * 86_400, 0, hold), 4 * 86_400);
        // Before its first row a repeating series reads the day before: 300 at 23 h, 100 at 0.
        assert_eq!(s.release(-3600, 0, hold), 0);
        let e = series("t,g\n0,1\n100,2\n")
            .unwrap()
            .repeating(100)
            .unwrap_err()
            .to_string();
        assert!(e.contains("longer than the 100 s"), "{e}");
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
