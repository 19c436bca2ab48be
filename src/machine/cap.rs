//! Power caps as a share of each partition's peak power: constant (`power_cap`) or
//! changing over time (`power_cap_series = "FILE.csv"`, rows `time,fraction`), and the cores
//! a cap lets be busy at once. docs/semantics.md, "Energy", states the rule the schedulers
//! keep under a cap over time (`crate::sched::capped`).

use std::path::{Path, PathBuf};

use super::{Machine, Partition};
use crate::Time;
use crate::error::Result;
use crate::params::ParamError;

/// A cap as a share of the peak over time, read from CSV: `(time, fraction)` rows, the
/// trace's clock, each fraction (above 0, at most 1) holding until the next row's time; the
/// first also before its time, the last for ever.
#[derive(Clone, Debug, PartialEq)]
pub struct CapOverTime {
    pub path: PathBuf,
    pub steps: Vec<(Time, f64)>,
}

impl CapOverTime {
    /// Reads `time,fraction` rows (a header first, `.gz` too); errors name the file and line.
    pub fn read(path: &Path) -> Result<CapOverTime> {
        let (times, fractions) =
            crate::series::read_rows(path, "fraction", "a share of the peak above 0, at most 1", |f| {
                f > 0.0 && f <= 1.0
            })?;
        Ok(CapOverTime {
            path: path.to_path_buf(),
            steps: times.into_iter().zip(fractions).collect(),
        })
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

    /// Under a cap over time, the cores that may be busy at once from each step's time on
    /// ([`Partition::cores_under`] of its watts); `None` without one.
    pub fn capacity_steps(&self) -> Option<Vec<(Time, u32)>> {
        let steps = self.cap_over_time.as_ref()?;
        Some(
            steps
                .iter()
                .map(|&(t, w)| (t, self.cores_under(w) as u32))
                .collect(),
        )
    }

    /// The most cores a job may ask and ever start: the partition's usable cores, or under a
    /// cap over time those its last step leaves (which holds for ever).
    pub fn largest_job(&self) -> u64 {
        match self.cap_over_time.as_ref().and_then(|steps| steps.last()) {
            Some(&(_, watts)) => self.cores_under(watts),
            None => self.usable_cores(),
        }
    }
}

impl Machine {
    /// The machine's cap over time where every partition has one (a constant `cap_w` or
    /// a cap over time): watts from each step's time on, the first also before its time, the
    /// sum of the partitions' caps then. `None` where some partition has no cap.
    pub fn cap_over_time(&self) -> Option<Vec<(Time, f64)>> {
        let mut times: Vec<Time> = self
            .partitions
            .iter()
            .flat_map(|p| p.cap_over_time.iter().flatten().map(|s| s.0))
            .collect();
        times.sort_unstable();
        times.dedup();
        if times.is_empty() {
            times.push(Time::MIN);
        }
        times
            .into_iter()
            .map(|t| {
                let watts = self.partitions.iter().map(|p| match &p.cap_over_time {
                    Some(steps) => Some(crate::series::value_at(steps, t)),
                    None => p.cap_w,
                });
                Some((t, watts.sum::<Option<f64>>()?))
            })
            .collect()
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
    /// several, each keeps the same share of its own peak. Refused where [`Machine::to_cap`]
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

    /// This machine with every partition capped at each step's share of its peak power
    /// (every node busy) over time: the `power_cap_series` key. Refused where
    /// [`Machine::to_cap`] says, where a partition runs jobs on nodes (not built under a
    /// cap over time), where a step's cap is below the idle draw (the machine could not keep
    /// it with every node idle), and where the last step leaves no busy core (a job waiting
    /// then would wait for ever).
    pub fn with_cap_over_time(&self, series: &CapOverTime) -> std::result::Result<Machine, ParamError> {
        let key = format!("power_cap_series = '{}'", series.path.display());
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
            let watts: Vec<(Time, f64)> = series.steps.iter().map(|&(t, f)| (t, f * peak)).collect();
            if let Some(&(t, w)) = watts.iter().find(|s| s.1 < idle) {
                return refuse(format!(
                    "partition {}: at time {t}, a cap of {w:.1} W is below its idle draw of {idle:.1} W",
                    p.name
                ));
            }
            p.cap_over_time = Some(watts);
            if p.largest_job() == 0 {
                return refuse(format!(
                    "partition {}: the last row's cap leaves no core busy, so a job waiting then would wait for ever",
                    p.name
                ));
            }
        }
        Ok(capped)
    }
}
