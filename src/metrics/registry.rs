//! One registry of metrics per outcome type: each metric is one row, its output name, a
//! label and unit for readers, what a saturated run reports, and the accessor, so names
//! and lookups cannot drift apart (a test walks every row of every registry).
//!
//! One vocabulary across models: the same quantity has the same name everywhere (wait,
//! run, response = end - submit; see [`RENAMED`] for the names this replaced).

use std::fmt;

/// The unit a metric is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Seconds,
    /// A number of jobs.
    Jobs,
    /// A number of processors.
    Processors,
    /// A share in [0, 1].
    Fraction,
    /// A dimensionless ratio (slowdown, expansion, a ratio to a reference run).
    Ratio,
    /// A plain count (events, misses) or a fitted coefficient.
    Number,
    /// Lee & Snavely's utility, in the functions' own units.
    Utility,
    /// A percentage.
    Percent,
    /// Energy, kWh.
    KilowattHours,
    /// Energy, Wh.
    WattHours,
    /// Power, kW.
    Kilowatts,
    /// Carbon, kg of CO2.
    KilogramsCo2,
}

impl Unit {
    /// The unit as written after a label, e.g. `Mean wait (s)`; empty for plain numbers.
    pub fn suffix(self) -> &'static str {
        match self {
            Unit::Seconds => "s",
            Unit::Processors => "processors",
            Unit::Percent => "%",
            Unit::KilowattHours => "kWh",
            Unit::WattHours => "Wh",
            Unit::Kilowatts => "kW",
            Unit::KilogramsCo2 => "kg CO2",
            Unit::Jobs | Unit::Fraction | Unit::Ratio | Unit::Number | Unit::Utility => "",
        }
    }
}

/// What a saturated run (one whose queue grows without bound) reports for a metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenSaturated {
    /// Grows without bound: infinite.
    Infinite,
    /// Not defined: NaN.
    Undefined,
    /// The number of jobs in the measured window (the metric `jobs`).
    Measured,
}

/// The values a metric can take: no interval on it may leave them
/// ([`crate::sweep::stats::estimate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Range {
    /// Zero or more: times, counts, slowdowns, energy.
    NonNegative,
    /// A share, from 0 to 1.
    UnitInterval,
    /// Any sign: a difference, a saving, a fitted coefficient, a utility.
    Signed,
    /// A paired relative difference of a metric that cannot be negative: -1 (down to zero)
    /// or more. No metric has it; sweeps' `differences.*` do.
    Change,
}

impl Range {
    /// The range a metric in `unit` has unless its row says otherwise: fractions are
    /// shares, plain numbers and utilities may be negative, everything else is a size.
    pub const fn of(unit: Unit) -> Range {
        match unit {
            Unit::Fraction => Range::UnitInterval,
            Unit::Number | Unit::Utility => Range::Signed,
            Unit::Seconds
            | Unit::Jobs
            | Unit::Processors
            | Unit::Ratio
            | Unit::Percent
            | Unit::KilowattHours
            | Unit::WattHours
            | Unit::Kilowatts
            | Unit::KilogramsCo2 => Range::NonNegative,
        }
    }

    /// Its lowest and highest values.
    pub fn bounds(self) -> (f64, f64) {
        match self {
            Range::NonNegative => (0.0, f64::INFINITY),
            Range::UnitInterval => (0.0, 1.0),
            Range::Signed => (f64::NEG_INFINITY, f64::INFINITY),
            Range::Change => (-1.0, f64::INFINITY),
        }
    }

    /// The range of a paired relative difference of a metric in this range.
    pub fn of_change(self) -> Range {
        match self {
            Range::Signed => Range::Signed,
            _ => Range::Change,
        }
    }

    /// Whether `x` lies in the range (NaN, an undefined value, counts as in it).
    pub fn contains(self, x: f64) -> bool {
        let (low, high) = self.bounds();
        x.is_nan() || (low..=high).contains(&x)
    }
}

/// One metric of outcome type `O`.
pub struct Metric<O: 'static> {
    pub name: &'static str,
    /// For readers, without the unit: "Mean wait".
    pub label: &'static str,
    pub unit: Unit,
    /// Its values' range: [`Range::of`] its unit, unless the row says otherwise.
    pub range: Range,
    pub saturated: WhenSaturated,
    pub value: fn(&O) -> f64,
}

impl<O> Metric<O> {
    /// Its value on `outcome` as JSON: a count of jobs or processors as a whole number
    /// (`19500`, not `19500.0`), anything else as a number (`null` when undefined).
    pub fn json(&self, outcome: &O) -> serde_json::Value {
        let v = (self.value)(outcome);
        let whole =
            matches!(self.unit, Unit::Jobs | Unit::Processors) && v.fract() == 0.0 && v.abs() < 2f64.powi(53);
        if whole {
            serde_json::json!(v as i64)
        } else {
            serde_json::json!(v)
        }
    }

    /// The label with its unit: "Mean wait (s)".
    pub fn label_with_unit(&self) -> String {
        match self.unit.suffix() {
            "" => self.label.to_string(),
            unit => format!("{} ({unit})", self.label),
        }
    }

    /// The value for a saturated run that measured `jobs` jobs.
    pub fn saturated_value(&self, jobs: usize) -> f64 {
        match self.saturated {
            WhenSaturated::Infinite => f64::INFINITY,
            WhenSaturated::Undefined => f64::NAN,
            WhenSaturated::Measured => jobs as f64,
        }
    }
}

impl<O> fmt::Debug for Metric<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// Metric names replaced by the one vocabulary: (old, new).
pub const RENAMED: [(&str, &str); 10] = [
    ("mean_turnaround", "mean_response"),
    ("median_turnaround_change", "median_response_change"),
    ("mean_exec", "mean_run"),
    ("dv_turnaround", "dv_response"),
    ("dv_exec", "dv_run"),
    ("bias_turnaround", "bias_response"),
    ("ra_turnaround", "ra_response"),
    ("ra_exec", "ra_run"),
    ("fit_exec_slope", "fit_run_slope"),
    ("fit_exec_intercept", "fit_run_intercept"),
];

/// The metrics of one outcome type.
pub struct Registry<O: 'static> {
    /// What kind of run reports them, for messages: "a rigid run".
    pub kind: &'static str,
    pub metrics: &'static [Metric<O>],
}

/// A metric a run does not report.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MetricError {
    /// No such metric for this kind of run; `allowed` are those it reports.
    #[error(
        "unknown metric '{name}' for {kind}{}; allowed: {}",
        crate::suggest::hint(name, allowed.iter().copied()),
        allowed.join(", ")
    )]
    Unknown {
        name: String,
        kind: &'static str,
        allowed: Vec<&'static str>,
    },
    /// A metric renamed for one vocabulary across models.
    #[error("metric '{name}' is now called '{new}' (one vocabulary across models)")]
    Renamed { name: String, new: &'static str },
    /// A utility metric of a run without utility functions.
    #[error("{name} needs utility functions, but this run has none; set priorities on a trace")]
    NeedsUtility { name: String },
    /// An energy metric of a run on a machine without a power model.
    #[error(
        "{name} needs a machine that describes its power (machine = \"FILE.toml\" whose node groups give idle_w and busy_w)"
    )]
    NeedsPower { name: String },
    /// A GPU metric of a run on a machine without GPUs.
    #[error("{name} needs a machine with GPUs (machine = \"FILE.toml\" whose node groups give gpus)")]
    NeedsGpus { name: String },
    /// A memory metric of a run on a machine that does not describe every node's memory.
    #[error("{name} needs a machine whose every node group gives memory_gb (machine = \"FILE.toml\")")]
    NeedsMemory { name: String },
    /// The carbon of a run without an intensity series.
    #[error(
        "{name} needs a carbon-intensity series (carbon = \"FILE.csv\", with a machine that describes its power)"
    )]
    NeedsCarbon { name: String },
    /// A metric of a machine's nodes on a run without a machine.
    #[error("{name} needs a machine of nodes (machine = \"FILE.toml\" or an inline one)")]
    NeedsMachine { name: String },
    /// A metric of one partition (`METRIC@PARTITION`) the run's machine does not have.
    #[error(
        "{name}: the machine has no partition '{partition}'{}",
        if partitions.is_empty() { " (the run has no machine: machine = \"FILE.toml\" or an inline one)".to_string() } else { format!("; its partitions: {}", partitions.join(", ")) }
    )]
    NoPartition {
        name: String,
        partition: String,
        partitions: Vec<String>,
    },
}

impl<O> Registry<O> {
    /// The metric called `name`, or what is wrong with the name (the allowed ones, or the
    /// new name of a renamed one).
    pub fn get(&self, name: &str) -> Result<&'static Metric<O>, MetricError> {
        if let Some(m) = self.metrics.iter().find(|m| m.name == name) {
            return Ok(m);
        }
        if let Some((_, new)) = RENAMED.iter().find(|(old, _)| *old == name) {
            return Err(MetricError::Renamed {
                name: name.to_string(),
                new,
            });
        }
        Err(MetricError::Unknown {
            name: name.to_string(),
            kind: self.kind,
            allowed: self.names(),
        })
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.metrics.iter().map(|m| m.name).collect()
    }
}

/// One row of a registry: `row!(name, label, Unit, WhenSaturated, accessor)`, its range
/// that of its unit; `row!(name, label, Unit, WhenSaturated, accessor, Range)` where the
/// unit's range is wrong for it (a saving in seconds may be negative).
macro_rules! row {
    ($name:literal, $label:literal, $unit:ident, $saturated:ident, $value:expr) => {
        $crate::metrics::registry::Metric {
            name: $name,
            label: $label,
            unit: $crate::metrics::registry::Unit::$unit,
            range: $crate::metrics::registry::Range::of($crate::metrics::registry::Unit::$unit),
            saturated: $crate::metrics::registry::WhenSaturated::$saturated,
            value: $value,
        }
    };
    ($name:literal, $label:literal, $unit:ident, $saturated:ident, $value:expr, $range:ident) => {
        $crate::metrics::registry::Metric {
            name: $name,
            label: $label,
            unit: $crate::metrics::registry::Unit::$unit,
            range: $crate::metrics::registry::Range::$range,
            saturated: $crate::metrics::registry::WhenSaturated::$saturated,
            value: $value,
        }
    };
}
pub(crate) use row;
