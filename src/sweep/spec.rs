//! Sweep specs (`sweeps/*.toml`): parsing and validation into a [`Plan`], once, before
//! anything runs. Every error names the key, the value and what is allowed.
//!
//! ```toml
//! name = "quick"                 # output folder name (default: the file stem)
//! seed = 1                       # base seed
//! metrics = ["mean_wait", "mean_bsld", "utilization"]
//! max_cells = 1000               # grids larger than this need --yes
//!
//! [run]                          # fixed run parameters
//! model = "downey"               # or trace = "path/to/log.swf.gz" (relative to this file)
//! days = 20                      # model parameters by name
//! scheduler = "easy"
//!
//! [axes]                         # any run parameter, in this order
//! load = { from = 0.5, to = 0.9, step = 0.2 }
//! scheduler = ["fcfs", "easy", "sjbf", "conservative"]
//!
//! [[exclude]]                    # drop matching cells; [[only]] keeps matching cells
//! scheduler = "fcfs"
//! load = [0.9]
//!
//! [replications]                 # count = N, or sequential stopping:
//! min = 3
//! max = 30
//! batch = 3
//! target = 0.05                  # relative half-width of the CI
//! confidence = 0.95
//! metric = "mean_wait"
//!
//! [measure]                      # optional: warm-up, measured window, saturation bound
//! warmup = 500
//! window = 19500
//! saturation = 10000
//!
//! [[plot]]
//! metric = "mean_wait"
//! x = "load"
//! series = "scheduler"
//! log_y = true                   # optional
//! facet = "workload"             # optional: one plot per value of this axis
//! ```
//!
//! Run parameters: `model`, `trace`, `scheduler`, `predictor` (for `sjbf` and `easy-pred`,
//! e.g. `"constant(c=1)"`), `strategy` (malleable jobs of the Downey model choosing their
//! cluster size in an FCFS queue, e.g. `"bias(lock_in=true)"`; replaces `scheduler` and
//! takes the metrics of [`crate::malleable::MALLEABLE_METRICS`]), `procs`, `load`,
//! `load_scale` (traces:
//! multiply inter-arrival times), `jobs` (traces: SWF job-number range), `first` (traces),
//! and every parameter of the chosen model.
//!
//! Utility functions (traces, Lee & Snavely): `priorities` (a queue-to-priority map such as
//! `"sdsc-blue"`; gives jobs priorities and, unless the trace carries functions, generates
//! them with the replication's seed), `decay`, `deadline_factor`, `deadline_from`,
//! `utility_points`, `globmax`, `utility_sd` (see [`crate::utility::generate`]), and
//! `exact_estimates = true` (requested times equal to runtimes, after generation). They
//! enable the schedulers `prio` and `ga` and the metrics of
//! [`crate::metrics::UTILITY_METRICS`]. The GA's own seed is derived from the replication's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::value::Value;
use crate::error::{Error, Result};
use crate::experiment::predictor_for;
use crate::malleable::{Allocation, MALLEABLE_METRICS};
use crate::metrics::{UTILITY_METRICS, check_rigid_metric};
use crate::nondedicated::CLUSTER_METRICS;
use crate::partition::{PARTITION_METRICS, Policy, Workload as MoldableWorkload};
use crate::predict::PredictorKind;
use crate::sched::SchedulerKind;
use crate::seed::{fnv1a, mix64};
use crate::sim::Window;
use crate::workload::selection::JobRange;
use crate::workload::synth::downey::DOWNEY_KEYS;
use crate::workload::synth::{MODEL_NAMES, Model};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    name: Option<String>,
    description: Option<String>,
    #[serde(default = "default_seed")]
    seed: u64,
    metrics: Vec<String>,
    max_cells: Option<usize>,
    run: toml::Table,
    #[serde(default)]
    axes: toml::Table,
    #[serde(default)]
    exclude: Vec<toml::Table>,
    #[serde(default)]
    only: Vec<toml::Table>,
    replications: RawReplications,
    measure: Option<RawMeasure>,
    #[serde(default)]
    plot: Vec<RawPlot>,
}

fn default_seed() -> u64 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReplications {
    count: Option<usize>,
    min: Option<usize>,
    max: Option<usize>,
    batch: Option<usize>,
    target: Option<f64>,
    confidence: Option<f64>,
    metric: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMeasure {
    #[serde(default)]
    warmup: usize,
    window: usize,
    saturation: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlot {
    metric: String,
    x: String,
    series: Option<String>,
    facet: Option<String>,
    #[serde(default)]
    log_y: bool,
}

/// How many replications each cell gets.
#[derive(Clone, Debug, PartialEq)]
pub enum Replications {
    Fixed(usize),
    /// Add `batch` replications until the Student-t interval of `metric` has a relative
    /// half-width of at most `target`, between `min` and `max` replications.
    Sequential {
        min: usize,
        max: usize,
        batch: usize,
        target: f64,
        metric: String,
    },
}

impl Replications {
    /// The rule in words, for summaries and the command line.
    pub fn describe(&self) -> String {
        match self {
            Replications::Fixed(n) => format!("{n} replications per cell"),
            Replications::Sequential {
                min,
                max,
                target,
                metric,
                ..
            } => format!(
                "replications until the interval of {metric} is within ±{}% of the mean ({min} to {max})",
                target * 100.0
            ),
        }
    }
}

/// One axis of the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub name: String,
    pub values: Vec<Value>,
}

/// Where a cell's jobs come from.
#[derive(Clone, Debug)]
pub enum WorkloadConfig {
    Model(Model),
    /// Anastasiadis & Sevcik's moldable jobs.
    /// A non-dedicated cluster of Hanzich et al. (`model = "cisne"`).
    Cisne(Box<crate::nondedicated::Experiment>),
    Moldable {
        workload: MoldableWorkload,
        procs: u32,
        load: f64,
    },
    Trace {
        path: PathBuf,
        procs: Option<u32>,
        jobs: Option<JobRange>,
        first: Option<usize>,
        /// Target offered load: inter-arrival times are scaled to reach it.
        load: Option<f64>,
        /// Inter-arrival times are multiplied by this.
        load_scale: Option<f64>,
        /// Priorities and utility functions, generated per replication.
        augmentation: Option<crate::utility::Augmentation>,
        /// Requested times set to the runtimes (after the utility functions are generated).
        exact_estimates: bool,
    },
}

/// Everything one cell's replications need.
#[derive(Clone, Debug)]
pub struct Cell {
    /// Position in the validated grid (after exclude/only), the cell's identity in outputs.
    pub index: usize,
    /// One value per axis, in axis order.
    pub values: Vec<Value>,
    pub workload: WorkloadConfig,
    pub scheduler: SchedulerKind,
    /// Runtime predictor, for schedulers that use one.
    pub predictor: Option<PredictorKind>,
    /// Malleable allocation strategy: the cell runs [`crate::malleable::simulate`] instead
    /// of the rigid engine.
    pub strategy: Option<Allocation>,
    /// Partitioning policy for moldable jobs (`model = "sevcik"`): the cell runs
    /// [`crate::partition::simulate`].
    pub policy: Option<Policy>,
    /// With a strategy: evaluate it application-centrically
    /// ([`crate::malleable::application_centric`]) rather than system-centrically.
    pub application: bool,
    /// The workload-determining parameters as text: cells that differ only in the scheduler
    /// share it, and so share their replications' seeds (common random numbers).
    pub workload_key: String,
}

/// A plot to draw: `metric` against axis `x`, one series per value of axis `series`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotSpec {
    pub metric: String,
    pub x: String,
    pub series: Option<String>,
    /// One plot per value of this axis.
    pub facet: Option<String>,
    /// Logarithmic y axis (for metrics spanning orders of magnitude).
    pub log_y: bool,
}

/// A validated sweep.
#[derive(Clone, Debug)]
pub struct Plan {
    pub name: String,
    pub description: String,
    /// The spec file's text, copied into the output, and its hash.
    pub spec_text: String,
    pub spec_hash: String,
    /// The spec's folder: relative trace paths are resolved from it.
    pub spec_dir: PathBuf,
    pub seed: u64,
    pub axes: Vec<Axis>,
    pub cells: Vec<Cell>,
    /// Cells of the full cartesian product, before exclude/only.
    pub grid_size: usize,
    pub replications: Replications,
    pub confidence: f64,
    pub metrics: Vec<String>,
    pub window: Option<Window>,
    pub plots: Vec<PlotSpec>,
    pub max_cells: usize,
}

/// A cell's run parameters, resolved.
struct Resolved {
    workload: WorkloadConfig,
    scheduler: SchedulerKind,
    predictor: Option<PredictorKind>,
    strategy: Option<Allocation>,
    policy: Option<Policy>,
}

/// The moldable workload of Anastasiadis & Sevcik: `model = "sevcik"`, `policy`,
/// `workload` (wk1-wk4), `load`, `procs` (32); the `[measure]` window is required.
fn resolve_moldable(
    params: &BTreeMap<String, Value>,
    window: Option<&Window>,
) -> std::result::Result<Resolved, String> {
    const KEYS: [&str; 5] = ["model", "policy", "workload", "load", "procs"];
    if let Some(k) = params.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!(
            "{k}: not a parameter of model sevcik; allowed: {}",
            KEYS.join(", ")
        ));
    }
    if params.get("model").is_none_or(|m| m.to_string() != "sevcik") {
        return Err("policy: partitioning policies need model = \"sevcik\"".into());
    }
    let policy: Policy = match params.get("policy") {
        Some(v) => v.to_string().parse()?,
        None => return Err(format!("policy: not set; one of {}", Policy::NAMES.join(", "))),
    };
    let workload: MoldableWorkload = match params.get("workload") {
        Some(v) => v.to_string().parse()?,
        None => return Err("workload: not set; one of wk1, wk2, wk3, wk4".into()),
    };
    let load = match params.get("load").and_then(|v| v.as_f64()) {
        Some(x) if x > 0.0 && x.is_finite() => x,
        _ => return Err("load: set a positive offered load".into()),
    };
    let procs = match params.get("procs") {
        None => 32,
        Some(Value::Int(i)) if *i > 0 => *i as u32,
        Some(v) => return Err(format!("procs = {v}: expected a positive integer")),
    };
    if window.is_none() {
        return Err(
            "model sevcik: set [measure] (the paper: warmup = 500, window = 19500, saturation = 10000)"
                .into(),
        );
    }
    Ok(Resolved {
        workload: WorkloadConfig::Moldable {
            workload,
            procs,
            load,
        },
        scheduler: SchedulerKind::Fcfs,
        predictor: None,
        strategy: None,
        policy: Some(policy),
    })
}

/// A non-dedicated cluster of Hanzich et al.: `model = "cisne"` with `jsp`, `nsp`, `mpl`,
/// `nodes`, `local_share`, `jobs`, `arrival_scale`, `contract_cpu`, `estimator` and `mode`
/// (`online` or `offline`); see `crate::nondedicated`.
fn resolve_cisne(params: &BTreeMap<String, Value>) -> std::result::Result<Resolved, String> {
    use crate::nondedicated::{Experiment, Hardware, ParallelWorkload, Setup, SocialContract};
    const KEYS: [&str; 11] = [
        "model",
        "jsp",
        "nsp",
        "mpl",
        "nodes",
        "local_share",
        "jobs",
        "arrival_scale",
        "contract_cpu",
        "estimator",
        "mode",
    ];
    if let Some(k) = params.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!(
            "{k}: not a parameter of model cisne; allowed: {}",
            KEYS.join(", ")
        ));
    }
    let text = |k: &str, default: &str| params.get(k).map_or(default.to_string(), |v| v.to_string());
    let number = |k: &str, default: f64| -> std::result::Result<f64, String> {
        match params.get(k) {
            None => Ok(default),
            Some(v) => v.as_f64().ok_or_else(|| format!("{k} = {v}: expected a number")),
        }
    };
    let whole = |k: &str, default: u64| -> std::result::Result<u64, String> {
        match params.get(k) {
            None => Ok(default),
            Some(Value::Int(i)) if *i > 0 => Ok(*i as u64),
            Some(v) => Err(format!("{k} = {v}: expected a positive integer")),
        }
    };
    let offline = match text("mode", "online").as_str() {
        "online" => false,
        "offline" => true,
        other => return Err(format!("mode = {other}: expected online or offline")),
    };
    let estimator = match params.get("estimator") {
        None => None,
        Some(v) => Some(v.to_string().parse()?),
    };
    let experiment = Experiment {
        setup: Setup {
            hardware: Hardware {
                nodes: whole("nodes", 64)? as u32,
                mpl: whole("mpl", 4)? as u32,
                contract: SocialContract {
                    cpu: number("contract_cpu", 1.0)?,
                    ..SocialContract::default()
                },
                ..Hardware::default()
            },
            jsp: text("jsp", "fcfs").parse()?,
            nsp: text("nsp", "normal").parse()?,
        },
        workload: ParallelWorkload {
            jobs: whole("jobs", 1000)? as usize,
            arrival_scale: number("arrival_scale", 1.0)?,
            ..ParallelWorkload::default()
        },
        local_share: number("local_share", 0.75)?,
        estimator,
        offline,
    };
    experiment.validate()?;
    Ok(Resolved {
        workload: WorkloadConfig::Cisne(Box::new(experiment)),
        scheduler: SchedulerKind::Fcfs,
        predictor: None,
        strategy: None,
        policy: None,
    })
}

/// An exclude/only rule: for each named axis (by position), the values that match.
type Rule = Vec<(usize, Vec<Value>)>;

/// Grids above this many cells ask for `--yes` unless the spec sets `max_cells`.
pub const DEFAULT_MAX_CELLS: usize = 1000;

/// The utility generator's parameters (with `priorities` on a trace).
const UTILITY_MODEL_KEYS: [&str; 6] = [
    "decay",
    "deadline_factor",
    "deadline_from",
    "utility_points",
    "globmax",
    "utility_sd",
];

/// Parameters of a trace run, besides [`UTILITY_MODEL_KEYS`].
const GENERAL_KEYS: [&str; 15] = [
    "model",
    "trace",
    "scheduler",
    "predictor",
    "strategy",
    "evaluation",
    "policy",
    "workload",
    "procs",
    "load",
    "load_scale",
    "jobs",
    "first",
    "priorities",
    "exact_estimates",
];

/// Parameters that do not change the workload (excluded from the seed).
const NON_WORKLOAD_KEYS: [&str; 11] = [
    "scheduler",
    "predictor",
    "strategy",
    "evaluation",
    "policy",
    "jsp",
    "nsp",
    "mpl",
    "contract_cpu",
    "estimator",
    "mode",
];

impl Plan {
    /// Reads and validates a spec file.
    pub fn from_file(path: &Path) -> Result<Plan> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        // Absolute, so that merging from another working directory finds the traces.
        let base_dir = std::fs::canonicalize(&base_dir).unwrap_or(base_dir);
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Plan::from_str(&text, path, &base_dir, &stem)
    }

    /// Validates spec text; `path` names it in errors, `base_dir` anchors relative trace
    /// paths, `default_name` is used when the spec has no `name`.
    pub fn from_str(text: &str, path: &Path, base_dir: &Path, default_name: &str) -> Result<Plan> {
        let err = |message: String| Error::Spec {
            path: path.to_path_buf(),
            message,
        };
        let raw: RawSpec = toml::from_str(text).map_err(|e| err(e.to_string().trim_end().to_string()))?;
        let name = raw.name.clone().unwrap_or_else(|| default_name.to_string());
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
            return Err(err(format!("name = '{name}': must be a plain folder name")));
        }
        // Malleable (a `strategy`) and moldable (a `policy`) sweeps report their own metrics.
        let has = |k: &str| raw.run.contains_key(k) || raw.axes.contains_key(k);
        let cisne = raw
            .run
            .get("model")
            .or(raw.axes.get("model"))
            .is_some_and(|m| m.to_string().contains("cisne"));
        let check = |m: &str| -> std::result::Result<(), String> {
            if cisne {
                CLUSTER_METRICS.get(m).map(drop)
            } else if has("strategy") {
                MALLEABLE_METRICS.get(m).map(drop)
            } else if has("policy") {
                PARTITION_METRICS.get(m).map(drop)
            } else {
                check_rigid_metric(m)
            }
        };
        let mut seen = Vec::new();
        for m in &raw.metrics {
            check(m).map_err(|e| err(format!("metrics: {e}")))?;
            if seen.contains(&m) {
                return Err(err(format!("metrics: '{m}' listed twice")));
            }
            seen.push(m);
        }
        if raw.metrics.is_empty() {
            return Err(err("metrics: list at least one metric".into()));
        }

        // Fixed parameters.
        let mut fixed: BTreeMap<String, Value> = BTreeMap::new();
        for (key, v) in &raw.run {
            let value = Value::from_toml(v).ok_or_else(|| {
                err(format!(
                    "run.{key}: expected a number, string or boolean, got {v}"
                ))
            })?;
            fixed.insert(key.clone(), value);
        }

        // Axes.
        let mut axes = Vec::new();
        for (key, v) in &raw.axes {
            let values = axis_values(key, v).map_err(|m| err(format!("axes.{key}: {m}")))?;
            if values.is_empty() {
                return Err(err(format!("axes.{key}: no values")));
            }
            axes.push(Axis {
                name: key.clone(),
                values,
            });
        }
        let axis_names: Vec<&str> = axes.iter().map(|a| a.name.as_str()).collect();

        // Rules.
        let rules = |tables: &[toml::Table], kind: &str| -> Result<Vec<Rule>> {
            tables
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    t.iter()
                        .map(|(k, v)| {
                            let axis = axis_names.iter().position(|a| a == k).ok_or_else(|| {
                                err(format!(
                                    "{kind}[{i}].{k}: not an axis; axes: {}",
                                    if axis_names.is_empty() {
                                        "(none)".to_string()
                                    } else {
                                        axis_names.join(", ")
                                    }
                                ))
                            })?;
                            let values = match v {
                                toml::Value::Array(a) => a.iter().filter_map(Value::from_toml).collect(),
                                other => Value::from_toml(other).into_iter().collect(),
                            };
                            Ok((axis, values))
                        })
                        .collect()
                })
                .collect()
        };
        let exclude = rules(&raw.exclude, "exclude")?;
        let only = rules(&raw.only, "only")?;
        let matches = |rule: &Rule, values: &[Value]| {
            rule.iter()
                .all(|(axis, allowed)| allowed.iter().any(|a| a.matches(&values[*axis])))
        };

        // Replications.
        let r = &raw.replications;
        let confidence = r.confidence.unwrap_or(0.95);
        if !(confidence > 0.0 && confidence < 1.0) {
            return Err(err(format!(
                "replications.confidence = {confidence}: must be in (0, 1)"
            )));
        }
        let replications = match (r.count, r.min, r.max) {
            (Some(n), None, None) if r.batch.is_none() && r.target.is_none() && r.metric.is_none() => {
                if n == 0 {
                    return Err(err("replications.count = 0: must be at least 1".into()));
                }
                Replications::Fixed(n)
            }
            (None, Some(min), Some(max)) => {
                let batch = r.batch.unwrap_or(1);
                let target = r
                    .target
                    .ok_or_else(|| err("replications.target: required with min and max".into()))?;
                let metric = r
                    .metric
                    .clone()
                    .ok_or_else(|| err("replications.metric: required with min and max".into()))?;
                if min < 2 || max < min || batch == 0 {
                    return Err(err(format!(
                        "replications: need 2 <= min <= max and batch >= 1 (min = {min}, max = {max}, batch = {batch})"
                    )));
                }
                if target.is_nan() || target <= 0.0 {
                    return Err(err(format!("replications.target = {target}: must be positive")));
                }
                if !raw.metrics.contains(&metric) {
                    return Err(err(format!(
                        "replications.metric = '{metric}': must be one of metrics ({})",
                        raw.metrics.join(", ")
                    )));
                }
                Replications::Sequential {
                    min,
                    max,
                    batch,
                    target,
                    metric,
                }
            }
            _ => {
                return Err(err(
                    "replications: give either count, or min, max, target and metric (batch, confidence optional)"
                        .into(),
                ));
            }
        };

        let window = match &raw.measure {
            None => None,
            Some(m) if m.window == 0 => return Err(err("measure.window = 0: must be at least 1".into())),
            Some(m) => Some(Window {
                measured: m.warmup..m.warmup + m.window,
                saturation: m.saturation,
            }),
        };

        for (i, p) in raw.plot.iter().enumerate() {
            if !raw.metrics.contains(&p.metric) {
                return Err(err(format!("plot[{i}].metric = '{}': not in metrics", p.metric)));
            }
            for axis in std::iter::once(&p.x).chain(p.series.iter()).chain(p.facet.iter()) {
                if !axis_names.contains(&axis.as_str()) {
                    return Err(err(format!(
                        "plot[{i}]: '{axis}' is not an axis; axes: {}",
                        axis_names.join(", ")
                    )));
                }
            }
        }

        // The grid: cartesian product in axis order, last axis fastest.
        let grid_size = axes.iter().map(|a| a.values.len()).product::<usize>();
        let mut cells = Vec::new();
        let mut counters = vec![0usize; axes.len()];
        for _ in 0..grid_size {
            let values: Vec<Value> = axes
                .iter()
                .zip(&counters)
                .map(|(a, &i)| a.values[i].clone())
                .collect();
            let excluded = exclude.iter().any(|rule| matches(rule, &values));
            let kept = only.is_empty() || only.iter().any(|rule| matches(rule, &values));
            if !excluded && kept {
                let mut params = fixed.clone();
                for (a, v) in axes.iter().zip(&values) {
                    params.insert(a.name.clone(), v.clone());
                }
                let resolved = resolve(&params, base_dir, window.as_ref()).map_err(|m| {
                    let at: Vec<String> = axes
                        .iter()
                        .zip(&values)
                        .map(|(a, v)| format!("{}={v}", a.name))
                        .collect();
                    err(if at.is_empty() {
                        m
                    } else {
                        format!("{m} (in the cell {})", at.join(", "))
                    })
                })?;
                let workload_key = params
                    .iter()
                    .filter(|(k, _)| !NON_WORKLOAD_KEYS.contains(&k.as_str()))
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(";");
                cells.push(Cell {
                    index: cells.len(),
                    values,
                    workload: resolved.workload,
                    scheduler: resolved.scheduler,
                    predictor: resolved.predictor,
                    strategy: resolved.strategy,
                    policy: resolved.policy,
                    application: params
                        .get("evaluation")
                        .is_some_and(|v| v.to_string() == "application"),
                    workload_key,
                });
            }
            for k in (0..axes.len()).rev() {
                counters[k] += 1;
                if counters[k] < axes[k].values.len() {
                    break;
                }
                counters[k] = 0;
            }
        }
        if cells.is_empty() {
            return Err(err("exclude/only rules leave no cell to run".into()));
        }
        if let Some(m) = raw.metrics.iter().find(|m| UTILITY_METRICS.get(m).is_ok())
            && let Some(cell) = cells.iter().find(|c| {
                !matches!(
                    &c.workload,
                    WorkloadConfig::Trace {
                        augmentation: Some(_),
                        ..
                    }
                )
            })
        {
            return Err(err(format!(
                "metrics: {m} needs utility functions, but cell {} has none; set priorities on a trace",
                cell.index
            )));
        }
        Ok(Plan {
            name,
            description: raw.description.unwrap_or_default(),
            spec_text: text.to_string(),
            spec_hash: format!("{:016x}", fnv1a(text.as_bytes())),
            spec_dir: base_dir.to_path_buf(),
            seed: raw.seed,
            axes,
            cells,
            grid_size,
            replications,
            confidence,
            metrics: raw.metrics,
            window,
            plots: raw
                .plot
                .into_iter()
                .map(|p| PlotSpec {
                    metric: p.metric,
                    x: p.x,
                    series: p.series,
                    facet: p.facet,
                    log_y: p.log_y,
                })
                .collect(),
            max_cells: raw.max_cells.unwrap_or(DEFAULT_MAX_CELLS),
        })
    }

    /// Seed of replication `rep` of `cell`: a function of (base seed, the cell's workload
    /// parameters, rep) only, so thread count, sharding and scheduler do not change it.
    pub fn seed_for(&self, cell: &Cell, rep: usize) -> u64 {
        mix64(self.seed ^ mix64(fnv1a(cell.workload_key.as_bytes()) ^ mix64(rep as u64)))
    }
}

/// Values of one axis: a list, or `{ from, to, step }` (inclusive, floats rounded to 1e-9).
fn axis_values(key: &str, v: &toml::Value) -> std::result::Result<Vec<Value>, String> {
    match v {
        toml::Value::Array(items) => items
            .iter()
            .map(|item| {
                Value::from_toml(item)
                    .ok_or_else(|| format!("value {item} is not a number, string or boolean"))
            })
            .collect(),
        toml::Value::Table(t) => {
            let get = |k: &str| -> std::result::Result<f64, String> {
                t.get(k)
                    .and_then(|x| Value::from_toml(x).and_then(|v| v.as_f64()))
                    .ok_or_else(|| format!("range needs numeric '{k}' (from, to, step)"))
            };
            if let Some(extra) = t.keys().find(|k| !["from", "to", "step"].contains(&k.as_str())) {
                return Err(format!("unknown range key '{extra}'; allowed: from, to, step"));
            }
            let (from, to, step) = (get("from")?, get("to")?, get("step")?);
            if step.is_nan() || step <= 0.0 || to < from {
                return Err(format!(
                    "range from {from} to {to} step {step}: need step > 0 and to >= from"
                ));
            }
            let all_ints = [&t["from"], &t["to"], &t["step"]].iter().all(|x| x.is_integer());
            let count = ((to - from) / step + 1e-9).floor() as usize + 1;
            if count > 1_000_000 {
                return Err(format!("range of {count} values is too long"));
            }
            Ok((0..count)
                .map(|i| {
                    let x = from + i as f64 * step;
                    if all_ints {
                        Value::Int(x as i64)
                    } else {
                        Value::Float((x * 1e9).round() / 1e9)
                    }
                })
                .collect())
        }
        other => Value::from_toml(other)
            .map(|v| vec![v])
            .ok_or_else(|| format!("{key}: expected a list of values or {{ from, to, step }}")),
    }
}

/// The utility parameters of a trace cell: `None` without `priorities`.
fn resolve_augmentation(
    params: &BTreeMap<String, Value>,
) -> std::result::Result<Option<crate::utility::Augmentation>, String> {
    let Some(map) = params.get("priorities") else {
        if let Some(k) = UTILITY_MODEL_KEYS.iter().find(|k| params.contains_key(**k)) {
            return Err(format!(
                "{k}: utility parameters need priorities (e.g. \"sdsc-blue\")"
            ));
        }
        return Ok(None);
    };
    let mut model = crate::utility::UtilityModel::default();
    let number = |k: &str, default: f64| -> std::result::Result<f64, String> {
        match params.get(k) {
            None => Ok(default),
            Some(v) => v.as_f64().ok_or_else(|| format!("{k} = {v}: expected a number")),
        }
    };
    if let Some(v) = params.get("decay") {
        model.decay = v.to_string().parse()?;
    }
    if let Some(v) = params.get("deadline_from") {
        model.deadline_from = v.to_string().parse()?;
    }
    model.deadline_factor = number("deadline_factor", model.deadline_factor)?;
    model.globmax = number("globmax", model.globmax)?;
    model.sd = number("utility_sd", model.sd)?;
    model.points = match params.get("utility_points") {
        None => model.points,
        Some(Value::Int(i)) if *i >= 0 => *i as usize,
        Some(v) => return Err(format!("utility_points = {v}: expected a whole number")),
    };
    model.validate()?;
    Ok(Some(crate::utility::Augmentation {
        priorities: map.to_string().parse()?,
        model,
    }))
}

/// Turns one cell's parameters into a workload and a scheduler, or says what is wrong.
fn resolve(
    params: &BTreeMap<String, Value>,
    base_dir: &Path,
    window: Option<&Window>,
) -> std::result::Result<Resolved, String> {
    if params.contains_key("policy") || params.get("model").is_some_and(|m| m.to_string() == "sevcik") {
        return resolve_moldable(params, window);
    }
    if params.get("model").is_some_and(|m| m.to_string() == "cisne") {
        if window.is_some() {
            return Err("model cisne: a cluster run measures every job; drop [measure]".into());
        }
        return resolve_cisne(params);
    }
    let text = |k: &str| params.get(k).map(|v| v.to_string());
    match params.get("evaluation").map(|v| v.to_string()) {
        None => {}
        Some(e) if !params.contains_key("strategy") => {
            return Err(format!(
                "evaluation = {e}: applies to malleable runs; set a strategy"
            ));
        }
        Some(e) if e == "system" || e == "application" => {}
        Some(e) => return Err(format!("evaluation = {e}: expected system or application")),
    }
    let strategy = match params.get("strategy") {
        None => None,
        Some(v) => {
            let a: Allocation = v.to_string().parse()?;
            if params.contains_key("trace") {
                return Err(format!(
                    "strategy = {v}: malleable strategies need model = \"downey\", not a trace"
                ));
            }
            if params.contains_key("scheduler") || params.contains_key("predictor") {
                return Err(format!(
                    "strategy = {v}: a malleable run has its own FCFS queue; drop scheduler and predictor"
                ));
            }
            if window.is_some() {
                return Err(format!(
                    "strategy = {v}: a malleable run simulates the whole workload; drop [measure]"
                ));
            }
            if a.strategy == crate::malleable::Strategy::Avg
                && params
                    .get("evaluation")
                    .is_some_and(|e| e.to_string() == "application")
            {
                return Err(format!(
                    "strategy = {v}: the application-centric evaluation compares a strategy with AVG; \
                     drop avg from such cells with [[exclude]]"
                ));
            }
            Some(a)
        }
    };
    let scheduler: SchedulerKind = match params.get("scheduler") {
        None if strategy.is_some() => SchedulerKind::Fcfs,
        Some(Value::Str(s)) => s.parse()?,
        Some(other) => {
            return Err(format!(
                "scheduler = {other}: expected one of {}",
                SchedulerKind::NAMES.join(", ")
            ));
        }
        None => {
            return Err(format!(
                "scheduler: not set; set it in [run] or [axes] to one of {}",
                SchedulerKind::NAMES.join(", ")
            ));
        }
    };
    let predictor = match params.get("predictor") {
        None => None,
        Some(v) => {
            let kind: PredictorKind = v.to_string().parse()?;
            predictor_for(scheduler, kind)
                .map_err(|e| format!("predictor = {v}: {e}; drop such cells with [[exclude]]"))?
        }
    };
    let positive = |k: &str| -> std::result::Result<Option<f64>, String> {
        match params.get(k) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(x) if x > 0.0 && x.is_finite() => Ok(Some(x)),
                _ => Err(format!("{k} = {v}: expected a positive number")),
            },
        }
    };
    let whole = |k: &str| -> std::result::Result<Option<u64>, String> {
        match params.get(k) {
            None => Ok(None),
            Some(Value::Int(i)) if *i > 0 => Ok(Some(*i as u64)),
            Some(v) => Err(format!("{k} = {v}: expected a positive integer")),
        }
    };
    match (params.get("model"), params.get("trace")) {
        (Some(_), Some(_)) => Err("run has both model and trace; choose one".into()),
        (None, None) => Err("run needs a workload: model = \"downey\" or trace = \"path.swf.gz\"".into()),
        (Some(model), None) => {
            let name = model.to_string();
            if !MODEL_NAMES.contains(&name.as_str()) {
                return Err(format!(
                    "model = '{name}': unknown; allowed: {}",
                    MODEL_NAMES.join(", ")
                ));
            }
            let mut model_params: Vec<(String, String)> = Vec::new();
            for (k, v) in params {
                if k == "model" || NON_WORKLOAD_KEYS.contains(&k.as_str()) {
                    continue;
                }
                if !DOWNEY_KEYS.contains(&k.as_str()) {
                    return Err(format!(
                        "{k}: not a parameter of model {name}; allowed: scheduler, predictor, strategy, {}",
                        DOWNEY_KEYS.join(", ")
                    ));
                }
                model_params.push((k.clone(), v.to_string()));
            }
            if let Some(w) = window {
                let needed = w.measured.end + w.saturation.unwrap_or(0);
                match params.get("jobs") {
                    Some(Value::Int(n)) if (*n as usize) < needed => {
                        return Err(format!(
                            "jobs = {n}: the measure window and saturation bound need {needed} jobs"
                        ));
                    }
                    Some(_) => {}
                    None => model_params.push(("jobs".into(), needed.to_string())),
                }
            }
            let model = Model::from_name(&name, &model_params).map_err(|e| e.to_string())?;
            Ok(Resolved {
                workload: WorkloadConfig::Model(model),
                scheduler,
                predictor,
                strategy,
                policy: None,
            })
        }
        (None, Some(trace)) => {
            for k in params.keys() {
                if !GENERAL_KEYS.contains(&k.as_str()) && !UTILITY_MODEL_KEYS.contains(&k.as_str()) {
                    return Err(format!(
                        "{k}: not a parameter of a trace; allowed: {}, {}",
                        GENERAL_KEYS.join(", "),
                        UTILITY_MODEL_KEYS.join(", ")
                    ));
                }
            }
            let path = base_dir.join(trace.to_string());
            if !path.exists() {
                return Err(format!("trace = '{trace}': {} does not exist", path.display()));
            }
            let jobs = match text("jobs") {
                None => None,
                Some(r) => Some(r.parse::<JobRange>().map_err(|e| format!("jobs: {e}"))?),
            };
            let (load, load_scale) = (positive("load")?, positive("load_scale")?);
            if load.is_some() && load_scale.is_some() {
                return Err("load and load_scale both scale a trace; choose one".into());
            }
            let augmentation = resolve_augmentation(params)?;
            let exact_estimates = match params.get("exact_estimates") {
                None | Some(Value::Bool(false)) => false,
                Some(Value::Bool(true)) => true,
                Some(v) => return Err(format!("exact_estimates = {v}: expected true or false")),
            };
            let needs = match scheduler {
                SchedulerKind::Prio => Some("priorities"),
                SchedulerKind::Ga(_) => Some("utility functions"),
                _ => None,
            };
            if let Some(what) = needs
                && augmentation.is_none()
            {
                return Err(format!(
                    "scheduler = {scheduler}: needs {what}; set priorities (e.g. \"sdsc-blue\")"
                ));
            }
            Ok(Resolved {
                workload: WorkloadConfig::Trace {
                    path,
                    procs: whole("procs")?.map(|p| p as u32),
                    jobs,
                    first: whole("first")?.map(|n| n as usize),
                    load,
                    load_scale,
                    augmentation,
                    exact_estimates,
                },
                scheduler,
                predictor,
                strategy,
                policy: None,
            })
        }
    }
}
