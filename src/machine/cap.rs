//! Power caps as a share of each partition's peak power: constant (`power_cap`) or
//! changing over time (`power_cap_series = "FILE.csv"`, rows `time,fraction`), and the cores
//! a cap lets be busy at once. docs/semantics.md, "Energy", states the rule the schedulers
//! keep under a cap over time (`crate::sched::capped`).

use std::path::Path;

use serde::Serialize;

use super::{Machine, Partition};
use crate::Time;
use crate::error::Result;
use crate::params::ParamError;
use crate::series::Steps;

/// Reads a cap as a share of the peak over time: `time,fraction` rows (a header first,
/// `.gz` too), each fraction above 0 and at most 1; errors name the file and line.
pub fn read_fractions(path: &Path) -> Result<Steps> {
    Steps::read(path, "fraction", "a share of the peak above 0, at most 1", |f| {
        f > 0.0 && f <= 1.0
    })
}

/// A cap over time on a partition: its steps (watts; in cores for the schedulers,
/// [`Partition::capacity`]) read at the trace's time plus `offset` (`power_cap_offset`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CapOverTime {
    pub steps: Steps,
    pub offset: Time,
}

impl CapOverTime {
    /// The value at `t` (the trace's clock) and when, on that clock, it next changes
    /// (`Time::MAX`: never).
    pub fn at(&self, t: Time) -> (f64, Time) {
        let (value, next) = self.steps.step_at(t + self.offset);
        (
            value,
            if next == Time::MAX {
                next
            } else {
                next - self.offset
            },
        )
    }
}

impl Partition {
    /// Watts with every node busy.
    pub fn peak_w(&self) -> f64 {
        self.nodes
            .iter()
            .map(|g| g.count as f64 * g.power.map_or(0.0, |w| w.busy_w))
            .sum()
    }

    /// Watts with every node idle.
    pub fn idle_w(&self) -> f64 {
        self.nodes
            .iter()
            .map(|g| g.count as f64 * g.power.map_or(0.0, |p| p.idle_w))
            .sum()
    }

    /// Under a cap over time, the cores that may be busy at once over time
    /// ([`Partition::cores_under`] of each step's watts); `None` without one.
    pub fn capacity(&self) -> Option<CapOverTime> {
        let cap = self.cap_over_time.as_ref()?;
        Some(CapOverTime {
            steps: cap.steps.map(|w| self.cores_under(w) as f64),
            offset: cap.offset,
        })
    }

    /// The cap's watts at `t` (the trace's clock): constant, over time, or none.
    pub fn cap_at(&self, t: Time) -> Option<f64> {
        match &self.cap_over_time {
            Some(cap) => Some(cap.at(t).0),
            None => self.cap_w,
        }
    }

    /// Whether a job of `procs` cores that runs `estimate` seconds could ever start under
    /// the partition's cap. A constant cap: the usable cores hold it. A cap over time read
    /// once: the last row's cores do (it holds for ever). A repeating one: every row's do,
    /// or some run of rows that do lasts the estimate, the cycle read round.
    pub fn cap_holds(&self, procs: u64, estimate: Time) -> bool {
        let Some(cap) = &self.cap_over_time else {
            return procs <= self.usable_cores();
        };
        let (times, watts) = (cap.steps.times(), cap.steps.values());
        let holds = |i: usize| procs <= self.cores_under(watts[i]);
        let n = times.len();
        let Some(period) = cap.steps.period() else {
            return holds(n - 1);
        };
        if (0..n).all(holds) {
            return true;
        }
        // Each row's length within the cycle; runs of rows that hold the job, twice round
        // so that a run across the cycle's end counts whole:
        //
        //   rows    | 0 | 1 | 2 ... n-1 | 0 | 1 | ...
        //   holds     x   .   x      x    x   .        the run n-1, 0 spans the cycle's end
        let length = |i: usize| {
            if i + 1 < n {
                times[i + 1] - times[i]
            } else {
                times[0] + period - times[i]
            }
        };
        let (mut run, mut longest) = (0, 0);
        for i in (0..2 * n).map(|i| i % n) {
            run = if holds(i) { run + length(i) } else { 0 };
            longest = longest.max(run);
        }
        longest >= estimate.max(1)
    }
}

impl Machine {
    /// The machine's cap over `[from, to]` (the trace's clock) where every partition has one
    /// (a constant `cap_w` or a cap over time): watts from each step's time on, the sum of
    /// the partitions' caps then, the first step at `from`. `None` where some partition has
    /// no cap.
    pub fn cap_steps(&self, from: Time, to: Time) -> Option<Vec<(Time, f64)>> {
        let mut times = vec![from];
        for cap in self.partitions.iter().filter_map(|p| p.cap_over_time.as_ref()) {
            let mut t = from;
            loop {
                let (_, next) = cap.at(t);
                if next > to {
                    break;
                }
                times.push(next);
                t = next;
            }
        }
        times.sort_unstable();
        times.dedup();
        let mut steps: Vec<(Time, f64)> = times
            .into_iter()
            .map(|t| {
                Some((
                    t,
                    self.partitions.iter().map(|p| p.cap_at(t)).sum::<Option<f64>>()?,
                ))
            })
            .collect::<Option<_>>()?;
        // A row that repeats the one before (a cycle's first after its last) is no step.
        steps.dedup_by(|later, earlier| later.1 == earlier.1);
        Some(steps)
    }

    /// A copy of this machine to cap with `key` (the key and its value, for messages), or
    /// why it cannot be: it describes its power, and no partition has a cap already or
    /// switches idle nodes off (not built under a cap).
    fn to_cap(&self, key: &str) -> std::result::Result<Machine, ParamError> {
        let refuse = |m: String| Err(ParamError::Invalid(format!("{key}: {m}")));
        if !self.has_power() {
            return refuse(
                "needs a machine that describes its power (idle_w and busy_w on its nodes)".into(),
            );
        }
        for p in &self.partitions {
            if let Some(cap) = p.cap_w {
                return refuse(format!(
                    "partition {} already has cap_w = {cap} in its machine file; give one or the other",
                    p.name
                ));
            }
            if p.switch_off.is_some() {
                return refuse(format!(
                    "partition {} switches idle nodes off: switching nodes off under a power cap is not built yet",
                    p.name
                ));
            }
        }
        Ok(self.clone())
    }

    /// This machine with every partition capped at `fraction` of its peak power (every
    /// node busy): the `power_cap` key. With one partition that is the machine's cap; with
    /// several, each keeps the same share of its own peak. Refused where `to_cap`
    /// says, and where the cap leaves a partition no busy core.
    pub fn with_power_cap(&self, fraction: f64) -> std::result::Result<Machine, ParamError> {
        let key = format!("power_cap = {fraction}");
        let refuse = |m: String| Err(ParamError::Invalid(format!("{key}: {m}")));
        let mut capped = self.to_cap(&key)?;
        for p in &mut capped.partitions {
            let cap = fraction * p.peak_w();
            p.cap_w = Some(cap);
            if let Err(e) = super::check_cap(p, cap) {
                return refuse(format!("partition {}: a cap of {cap} W: {}", p.name, e.message));
            }
        }
        Ok(capped)
    }

    /// This machine with every partition capped at each step's share (`fractions`, read at
    /// the trace's time plus `offset`) of its peak power (every node busy) over time: the
    /// `power_cap_series` key. Refused where `to_cap` says, where a partition runs
    /// jobs on nodes (not built under a cap over time), where a step's cap is below the idle
    /// draw (the machine could not keep it with every node idle), and where no job could
    /// ever start: the last row (read once), or every row (repeated), leaves no busy core.
    pub fn with_cap_over_time(
        &self,
        fractions: &Steps,
        offset: Time,
    ) -> std::result::Result<Machine, ParamError> {
        let key = format!("power_cap_series = '{}'", fractions.path.display());
        let refuse = |m: String| Err(ParamError::Invalid(format!("{key}: {m}")));
        let mut capped = self.to_cap(&key)?;
        for p in &mut capped.partitions {
            if p.needs_nodes() {
                return refuse(format!(
                    "partition {} runs jobs on nodes (memory, GPUs or whole nodes): a cap over time is built for \
                     pools of cores",
                    p.name
                ));
            }
            let (peak, idle) = (p.peak_w(), p.idle_w());
            // Fewest rows: a row that does not change the cap would only wake the schedulers.
            let watts = fractions.merged().map(|f| f * peak);
            let rows = watts.times().iter().zip(watts.values());
            if let Some((t, w)) = rows.into_iter().find(|&(_, &w)| w < idle) {
                return refuse(format!(
                    "partition {}: at time {t}, a cap of {w:.1} W is below its idle draw of {idle:.1} W",
                    p.name
                ));
            }
            p.cap_over_time = Some(CapOverTime { steps: watts, offset });
            if !p.cap_holds(1, 1) {
                return refuse(format!(
                    "partition {}: the cap leaves no core busy (read once, in its last row; repeated, in any row), \
                     so a job waiting then would wait for ever",
                    p.name
                ));
            }
        }
        Ok(capped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four one-core nodes, 100 W idle and 200 W busy: all of the peak leaves four cores,
    /// 75% two. A day at 75% from 6 h to 18 h repeats: four cores from 18 h to 6 h the next
    /// day, a run of 12 hours across the cycle's end.
    #[test]
    fn a_repeating_cap_holds_a_job_within_a_run_across_the_cycle() {
        let text = "[[partition]]\nname = \"p\"\ndefault = true\n[[partition.nodes]]\ncount = 4\ncores = 1\n\
                    idle_w = 100\nbusy_w = 200\n";
        let machine = Machine::from_toml(text, Path::new("m.toml")).unwrap();
        let dir = std::env::temp_dir().join(format!("schedlab-cap-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("day.csv");
        std::fs::write(&path, "time,fraction\n0,1\n21600,0.75\n64800,1\n").unwrap();
        let once = read_fractions(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let day = once.clone().repeating("power_cap_period", 86_400).unwrap();
        let capped = machine.with_cap_over_time(&day, 0).unwrap();
        let p = &capped.partitions[0];
        assert!(p.cap_holds(2, 10 * 86_400), "two cores: every row holds them");
        assert!(p.cap_holds(3, 12 * 3600) && !p.cap_holds(3, 12 * 3600 + 1));
        assert!(!p.cap_holds(5, 1), "wider than the partition");
        // Read once, the last row (all of the peak) holds for ever.
        let read_once = machine.with_cap_over_time(&once, 0).unwrap();
        assert!(read_once.partitions[0].cap_holds(4, 10 * 86_400));
        // The machine's cap over a day and a half, in watts: 800, 600 from 6 h, 800 from
        // 18 h, 600 from 30 h.
        assert_eq!(
            capped.cap_steps(0, 36 * 3600),
            Some(vec![(0, 800.0), (21600, 600.0), (64800, 800.0), (108000, 600.0)])
        );
    }
}
