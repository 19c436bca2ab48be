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
//! model = "lublin"               # or "downey", or trace = "path/to/log.swf.gz" (relative to this file)
//! estimates = "tsafrir"          # model parameters by name
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
//! on = "mean"                    # or "difference": the paired differences of [compare]
//!
//! [measure]                      # optional: warm-up, measured window, saturation bound
//! warmup = 500
//! window = 19500
//! saturation = 10000
//!
//! [machines.two-queues]         # optional: a machine described inline, named by its key
//! [[machines.two-queues.partition]]  # (machine = "two-queues" in [run] or [axes]); the
//! name = "debug"                 # keys of a machine file
//! [[machines.two-queues.partition.nodes]]
//! count = 16
//! cores = 1
//!
//! [[plot]]
//! metric = "mean_wait"
//! x = "load"
//! series = "scheduler"
//! log_y = true                   # optional; log_x too, for an axis of positive numbers
//! facet = "workload"             # optional: one plot per value of this axis
//! series_values = ["easy", "sjbf"] # optional: only these values of the series axis
//! difference = true              # optional, with [compare]: the paired difference (%)
//! title = "Mean wait"            # optional: "" for none; default from metric and axes
//! x_label = "Offered load"       # optional, and y_label: default from the metric registry
//! legend = "bottom"              # optional: right (default), bottom or none
//! size = [800, 500]              # optional: pixels
//! formats = ["svg", "png"]       # optional: default ["svg"]
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
use std::sync::Arc;

use serde::Deserialize;

use crate::error::{Error, FieldError, Result};
use crate::experiment::{Experiment, Params, Sources, Value};
use crate::machine::Machine;
use crate::metrics::registry::Range;
use crate::report::plot::{Format, Legend};
use crate::seed::{fnv1a, mix64};
use crate::sim::Window;

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
    compare: Option<toml::Table>,
    #[serde(default)]
    machines: toml::Table,
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
    on: Option<String>,
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
    series_values: Option<Vec<toml::Value>>,
    #[serde(default)]
    log_y: bool,
    #[serde(default)]
    log_x: bool,
    #[serde(default)]
    difference: bool,
    title: Option<String>,
    x_label: Option<String>,
    y_label: Option<String>,
    legend: Option<String>,
    size: Option<[u32; 2]>,
    formats: Option<Vec<String>>,
}

/// How many replications each cell gets.
#[derive(Clone, Debug, PartialEq)]
pub enum Replications {
    Fixed(usize),
    /// Add `batch` replications until the Student-t interval of `metric` has a relative
    /// half-width of at most `target`, between `min` and `max` replications; with
    /// [`StopOn::Difference`], until the paired differences against `[compare]`'s baseline
    /// are that precise.
    Sequential {
        min: usize,
        max: usize,
        batch: usize,
        target: f64,
        metric: String,
        on: StopOn,
    },
}

/// What sequential stopping measures the precision of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopOn {
    /// Each cell's mean: it stops when its interval is within ±target of the mean.
    Mean,
    /// The paired relative difference of each cell against its `[compare]` baseline: the
    /// baseline and the cells compared with it run the same replications and stop together
    /// once every difference's interval is within ±target of the baseline's value, or of
    /// the difference itself where that is larger. A cell in no comparison stops on its
    /// mean.
    Difference,
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
                on: StopOn::Mean,
                ..
            } => format!(
                "replications until the Student-t half-width of {metric} is within {}% of the mean ({min} to {max})",
                target * 100.0
            ),
            Replications::Sequential {
                min,
                max,
                target,
                metric,
                on: StopOn::Difference,
                ..
            } => format!(
                "replications until the Student-t half-width of each paired difference in {metric} against the \
                 baseline is within {}% of the baseline's value, or of the difference where that is larger ({min} to {max}; a \
                 baseline and the cells compared with it stop together)",
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

/// Everything one cell's replications need.
#[derive(Clone, Debug)]
pub struct Cell {
    /// Position in the validated grid (after exclude/only), the cell's identity in outputs.
    pub index: usize,
    /// One value per axis, in axis order.
    pub values: Vec<Value>,
    pub experiment: Experiment,
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
    /// Only these values of the series axis, e.g. without one that dwarfs the others.
    pub series_values: Option<Vec<String>>,
    /// Logarithmic y axis (for metrics spanning orders of magnitude).
    pub log_y: bool,
    /// Logarithmic x axis (a numeric axis of positive values, e.g. machine sizes).
    pub log_x: bool,
    /// Plot the paired relative difference against `[compare]`'s baseline (%), not the
    /// metric itself.
    pub difference: bool,
    /// The title; `None`: one made from the metric, the axes and the facet; `Some("")`: none.
    pub title: Option<String>,
    /// Axis labels in place of the registry's (metric label and unit) and the axis's name.
    pub x_label: Option<String>,
    pub y_label: Option<String>,
    pub legend: Legend,
    /// Width and height, pixels.
    pub size: (u32, u32),
    /// Each plot is written in every one of these formats.
    pub formats: Vec<Format>,
}

/// Paired differences against a baseline value of one axis (`[compare]`): each cell is
/// compared with the cell that differs from it only on that axis, replication by
/// replication; the two share their workloads because the axis does not shape them.
#[derive(Clone, Debug)]
pub struct Compare {
    pub axis: usize,
    pub baseline: Value,
    /// For each cell, its baseline partner (None for baseline cells and for cells whose
    /// partner the exclude/only rules removed).
    pub partner: Vec<Option<usize>>,
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
    /// What to know before trusting the results (a trace driven to an offered load of at
    /// least 1), also written into `summary.md`.
    pub warnings: Vec<String>,
    pub compare: Option<Compare>,
}

/// The machines a spec describes inline, each `[machines.NAME]` a machine file's text as a
/// table (docs/semantics.md, "The machine"), by name: a `machine` value names one before
/// any file.
fn inline_machines(tables: toml::Table, path: &Path) -> Result<BTreeMap<String, Arc<Machine>>> {
    let mut machines = BTreeMap::new();
    for (name, table) in tables {
        let at = format!("machines.{name}");
        if !crate::machine::is_plain_name(&name) || name.ends_with(".toml") {
            return Err(Error::Spec {
                path: path.to_path_buf(),
                message: format!(
                    "{at}: a machine's name is {}, not ending in .toml (a machine file is named by its path)",
                    crate::machine::PLAIN_NAME
                ),
            });
        }
        let toml::Value::Table(table) = table else {
            return Err(Error::Spec {
                path: path.to_path_buf(),
                message: format!("{at}: expected a table of [[machines.{name}.partition]]"),
            });
        };
        machines.insert(name, Arc::new(Machine::from_table(table, path, &at)?));
    }
    Ok(machines)
}

/// An exclude/only rule: for each named axis (by position), the values that match.
type Rule = Vec<(usize, Vec<Value>)>;

/// Grids above this many cells ask for `--yes` unless the spec sets `max_cells`.
pub const DEFAULT_MAX_CELLS: usize = 1000;

/// Combinations of axis values a spec may enumerate, whatever `--yes` says: each cell is
/// built and checked when the spec is read (about 1 KB and a few microseconds a cell), so
/// this bounds a spec's reading to about a gigabyte and seconds.
pub const MAX_GRID: usize = 1_000_000;

/// Replications one cell may run, and runs a sweep may record (about 100 bytes each in
/// memory): past these a spec is refused when it is read.
pub const MAX_REPLICATIONS: usize = 100_000;
pub const MAX_RUNS: usize = 10_000_000;

/// Values one axis may have (a duplicate check compares each with those before it).
pub const MAX_AXIS_VALUES: usize = 10_000;

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
        let field = |e: FieldError| err(e.to_string());
        let raw: RawSpec = toml::from_str(text).map_err(|e| {
            // A required top-level key that is absent has no position of its own: the TOML
            // reader points at the whole document (line 1, column 1), which misleads.
            let whole = e.span().is_none_or(|s| s.start == 0);
            match e.message().strip_prefix("missing field ") {
                Some(field @ ("`metrics`" | "`run`" | "`replications`")) if whole => err(format!(
                    "no {field}: the spec must give it at the top level (docs/sweeps.md lists the keys)"
                )),
                _ => err(e.to_string().trim_end().to_string()),
            }
        })?;
        let name = raw.name.clone().unwrap_or_else(|| default_name.to_string());
        check_folder_name(&name).map_err(field)?;
        check_metric_list(&raw.metrics).map_err(field)?;
        let fixed = fixed_params(&raw.run).map_err(field)?;
        let axes = parse_axes(&raw.axes, &fixed).map_err(field)?;
        let exclude = parse_rules(&raw.exclude, "exclude", &axes).map_err(field)?;
        let only = parse_rules(&raw.only, "only", &axes).map_err(field)?;
        let (replications, confidence) =
            parse_replications(&raw.replications, &raw.metrics).map_err(field)?;
        let window = parse_window(raw.measure.as_ref()).map_err(field)?;
        let machines = inline_machines(raw.machines, path)?;
        let sources = Sources {
            dir: base_dir,
            machines: &machines,
        };

        let mut cells = Vec::new();
        for values in grid(&axes, &exclude, &only) {
            let mut params = Params(fixed.clone());
            for (a, v) in axes.iter().zip(&values) {
                params.insert(a.name.clone(), v.clone());
            }
            let in_cell = |m: String| match cell_label(&axes, &values) {
                at if at.is_empty() => err(m),
                at => err(format!("{m} (in the cell {at})")),
            };
            let experiment = Experiment::from_params(&params, sources, window.as_ref())
                .map_err(|e| in_cell(e.to_string()))?;
            for m in &raw.metrics {
                experiment
                    .check_metric(m)
                    .map_err(|e| in_cell(format!("metrics: {e}")))?;
            }
            cells.push(Cell {
                index: cells.len(),
                values,
                workload_key: params.workload_key(&experiment.keys()),
                experiment,
            });
        }
        if cells.is_empty() {
            return Err(err("exclude/only rules leave no cell to run".into()));
        }
        // After the cells, whose kinds check the metrics' names: a misspelt metric is named
        // as such, not as a plot's metric missing from the list.
        let plots = check_plots(raw.plot, &raw.metrics, &axes, raw.compare.is_some()).map_err(field)?;
        check_runs(cells.len(), &replications).map_err(field)?;
        let warnings = load_warnings(&cells);
        let compare = match &raw.compare {
            Some(t) => Some(parse_compare(t, &axes, &cells).map_err(field)?),
            None => None,
        };
        if compare.is_none()
            && matches!(
                replications,
                Replications::Sequential {
                    on: StopOn::Difference,
                    ..
                }
            )
        {
            return Err(err(
                "replications.on = \"difference\": needs a [compare] section naming the baseline".into(),
            ));
        }
        Ok(Plan {
            warnings,
            compare,
            name,
            description: raw.description.unwrap_or_default(),
            spec_text: text.to_string(),
            spec_hash: format!("{:016x}", fnv1a(text.as_bytes())),
            spec_dir: base_dir.to_path_buf(),
            seed: raw.seed,
            grid_size: axes.iter().map(|a| a.values.len()).product::<usize>(),
            axes,
            cells,
            replications,
            confidence,
            metrics: raw.metrics,
            window,
            plots,
            max_cells: raw.max_cells.unwrap_or(DEFAULT_MAX_CELLS),
        })
    }

    /// Metric `k`'s range, which its intervals keep to: the same in every cell, since a
    /// name means one thing whatever the kind of run.
    pub fn metric_range(&self, k: usize) -> Range {
        self.cells
            .first()
            .and_then(|c| c.experiment.metric_about(&self.metrics[k]))
            .map_or(Range::Signed, |a| a.range)
    }

    /// Refuses, unless `yes`, a grid of more than `max_cells` cells or a cell whose
    /// replications would each generate more than [`crate::experiment::JOB_LIMIT`] jobs.
    pub fn check_size(&self, yes: bool) -> Result<()> {
        if self.cells.len() > self.max_cells && !yes {
            return Err(Error::Invalid(format!(
                "{} cells exceed max_cells = {}; pass --yes to run them anyway",
                self.cells.len(),
                self.max_cells
            )));
        }
        let largest = self
            .cells
            .iter()
            .filter_map(|c| c.experiment.expected_jobs().map(|n| (n, c.index)))
            .max();
        if let Some((jobs, cell)) = largest {
            crate::experiment::check_size(Some(jobs), yes)
                .map_err(|m| Error::Invalid(format!("cell {cell}: {m}")))?;
        }
        Ok(())
    }

    /// The cell's axis values as `name=value` joined by commas, for messages.
    pub fn cell_label(&self, cell: usize) -> String {
        cell_label(&self.axes, &self.cells[cell].values)
    }

    /// Seed of replication `rep` of `cell`: a function of (base seed, the cell's workload
    /// parameters, rep) only, so thread count, sharding and scheduler do not change it.
    pub fn seed_for(&self, cell: &Cell, rep: usize) -> u64 {
        mix64(self.seed ^ mix64(fnv1a(cell.workload_key.as_bytes()) ^ mix64(rep as u64)))
    }
}

/// Cells that drive a trace or a rigid model to an offered load of at least 1, where the
/// queue grows without bound (one warning per distinct target).
fn load_warnings(cells: &[Cell]) -> Vec<String> {
    let mut targets: Vec<f64> = cells
        .iter()
        .filter_map(|c| match &c.experiment {
            Experiment::Rigid(r) => match &r.workload.source {
                crate::experiment::rigid::Source::Trace(t) => t.load,
                crate::experiment::rigid::Source::Model(m) => m.load_target(),
            },
            _ => None,
        })
        .filter(|&l| l >= 1.0)
        .collect();
    targets.sort_by(f64::total_cmp);
    targets.dedup();
    targets
        .iter()
        .map(|l| {
            format!(
                "load = {l}: an offered load of at least 1 queues without bound; such cells saturate{}",
                if *l > 1.5 {
                    " (and, without a [measure] saturation bound, run until the last job ends)"
                } else {
                    ""
                }
            )
        })
        .collect()
}

/// `name=value` of each axis, joined by commas: a cell in messages.
fn cell_label(axes: &[Axis], values: &[Value]) -> String {
    let parts: Vec<String> = axes
        .iter()
        .zip(values)
        .map(|(a, v)| format!("{}={v}", a.name))
        .collect();
    parts.join(", ")
}

/// A spec's name, which names its results folder: plain (no /, \\, leading dot or control
/// character).
fn check_folder_name(name: &str) -> std::result::Result<(), FieldError> {
    if name.is_empty()
        || name.contains(['/', '\\'])
        || name.starts_with('.')
        || name.chars().any(char::is_control)
    {
        return Err(FieldError::new(
            format!("name = {name:?}"),
            "must be a plain folder name (no /, \\, leading dot or control character)",
        ));
    }
    Ok(())
}

/// `cells` cells under `replications` record at most [`MAX_RUNS`] runs.
fn check_runs(cells: usize, replications: &Replications) -> std::result::Result<(), FieldError> {
    let (most, key) = match replications {
        Replications::Fixed(n) => (*n, "count"),
        Replications::Sequential { max, .. } => (*max, "max"),
    };
    if cells.saturating_mul(most) > MAX_RUNS {
        return Err(FieldError::new(
            format!("replications.{key}"),
            format!(
                "{cells} cells x {most} replications = {} runs, above the {MAX_RUNS} a sweep may record; \
                 lower replications.{key}, or split the grid",
                cells * most
            ),
        ));
    }
    Ok(())
}

/// At least one metric, none twice (which metrics a run reports is checked per cell).
fn check_metric_list(metrics: &[String]) -> std::result::Result<(), FieldError> {
    if metrics.is_empty() {
        return Err(FieldError::new("metrics", "list at least one metric"));
    }
    for (i, m) in metrics.iter().enumerate() {
        if metrics[..i].contains(m) {
            return Err(FieldError::new("metrics", format!("'{m}' listed twice")));
        }
    }
    Ok(())
}

/// The `[run]` table's parameters.
fn fixed_params(run: &toml::Table) -> std::result::Result<BTreeMap<String, Value>, FieldError> {
    run.iter()
        .map(|(key, v)| {
            Value::from_toml(v)
                .map(|value| (key.clone(), value))
                .ok_or_else(|| {
                    FieldError::new(
                        format!("run.{key}"),
                        format!("expected a number, string or boolean, got {v}"),
                    )
                })
        })
        .collect()
}

/// The `[axes]` table: each axis has values, none twice, and is not also fixed in `[run]`.
fn parse_axes(
    table: &toml::Table,
    fixed: &BTreeMap<String, Value>,
) -> std::result::Result<Vec<Axis>, FieldError> {
    let mut axes = Vec::new();
    for (key, v) in table {
        if fixed.contains_key(key) {
            return Err(FieldError::new(
                format!("axes.{key}"),
                "also set in [run]; set it in one place",
            ));
        }
        let values = axis_values(key, v)?;
        if values.is_empty() {
            return Err(FieldError::new(format!("axes.{key}"), "no values"));
        }
        if values.len() > MAX_AXIS_VALUES {
            return Err(FieldError::new(
                format!("axes.{key}"),
                format!(
                    "{} values, above the {MAX_AXIS_VALUES} an axis may have",
                    values.len()
                ),
            ));
        }
        for (i, v) in values.iter().enumerate() {
            if values[..i].iter().any(|w| w.matches(v)) {
                return Err(FieldError::new(
                    format!("axes.{key}"),
                    format!("the value {v} is listed twice"),
                ));
            }
        }
        axes.push(Axis {
            name: key.clone(),
            values,
        });
    }
    // Counted before a cell is built, so that a huge grid is refused at once.
    let sizes: Vec<usize> = axes.iter().map(|a| a.values.len()).collect();
    let combinations = sizes
        .iter()
        .try_fold(1usize, |n, &k| n.checked_mul(k).filter(|&n| n <= MAX_GRID));
    if combinations.is_none() {
        let product: f64 = sizes.iter().map(|&k| k as f64).product();
        return Err(FieldError::new(
            "axes",
            format!(
                "{} = {product:.3e} combinations, above the {MAX_GRID} a spec may enumerate; \
             narrow an axis, or split the grid into several specs",
                sizes.iter().map(usize::to_string).collect::<Vec<_>>().join(" x ")
            ),
        ));
    }
    Ok(axes)
}

/// `[[exclude]]` or `[[only]]` rules: each names axes and values on them.
fn parse_rules(
    tables: &[toml::Table],
    kind: &str,
    axes: &[Axis],
) -> std::result::Result<Vec<Rule>, FieldError> {
    let names: Vec<&str> = axes.iter().map(|a| a.name.as_str()).collect();
    let mut rules = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        let mut rule = Vec::new();
        for (k, v) in t {
            let axis = names.iter().position(|a| a == k).ok_or_else(|| {
                let known = if names.is_empty() {
                    "(none)".to_string()
                } else {
                    names.join(", ")
                };
                FieldError::new(format!("{kind}[{i}].{k}"), format!("not an axis; axes: {known}"))
            })?;
            let values: Vec<Value> = match v {
                toml::Value::Array(a) => a.iter().filter_map(Value::from_toml).collect(),
                other => Value::from_toml(other).into_iter().collect(),
            };
            if let Some(v) = values
                .iter()
                .find(|v| !axes[axis].values.iter().any(|a| a.matches(v)))
            {
                return Err(FieldError::new(
                    format!("{kind}[{i}].{k} = {v}"),
                    format!("not a value of axis {k}, so it matches nothing"),
                ));
            }
            rule.push((axis, values));
        }
        rules.push(rule);
    }
    Ok(rules)
}

/// `[compare]`: one `axis = value`; every cell's baseline partner, which must replay the same
/// workloads (the axis may not shape them, or the differences would not be paired).
fn parse_compare(t: &toml::Table, axes: &[Axis], cells: &[Cell]) -> std::result::Result<Compare, FieldError> {
    let mut entries = t.iter();
    let (Some((name, value)), None) = (entries.next(), entries.next()) else {
        return Err(FieldError::new(
            "compare",
            "give exactly one axis and its baseline value, e.g. scheduler = \"easy\"",
        ));
    };
    let axis = axes
        .iter()
        .position(|a| &a.name == name)
        .ok_or_else(|| FieldError::new(format!("compare.{name}"), "not an axis"))?;
    let baseline = Value::from_toml(value)
        .filter(|v| axes[axis].values.iter().any(|a| a.matches(v)))
        .ok_or_else(|| {
            FieldError::new(
                format!("compare.{name} = {value}"),
                format!("not a value of axis {name}"),
            )
        })?;
    let mut partner = vec![None; cells.len()];
    for cell in cells {
        if cell.values[axis].matches(&baseline) {
            continue;
        }
        let found = cells.iter().find(|b| {
            b.values[axis].matches(&baseline)
                && b.values
                    .iter()
                    .zip(&cell.values)
                    .enumerate()
                    .all(|(i, (x, y))| i == axis || x == y)
        });
        if let Some(b) = found {
            if b.workload_key != cell.workload_key {
                return Err(FieldError::new(
                    format!("compare.{name}"),
                    format!(
                        "{name} shapes the workload ({} against {}), so replications of the two \
                     cells are not paired; compare on an axis such as scheduler or predictor",
                        cell_label(axes, &cell.values),
                        cell_label(axes, &b.values)
                    ),
                ));
            }
            partner[cell.index] = Some(b.index);
        }
    }
    Ok(Compare {
        axis,
        baseline,
        partner,
    })
}

/// The replication rule and the confidence level.
fn parse_replications(
    r: &RawReplications,
    metrics: &[String],
) -> std::result::Result<(Replications, f64), FieldError> {
    let confidence = r.confidence.unwrap_or(0.95);
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(FieldError::new(
            format!("replications.confidence = {confidence}"),
            "must be in (0, 1)",
        ));
    }
    for (key, n) in [("count", r.count), ("max", r.max)] {
        if let Some(n) = n.filter(|&n| n > MAX_REPLICATIONS) {
            return Err(FieldError::new(
                format!("replications.{key} = {n}"),
                format!("at most {MAX_REPLICATIONS} replications a cell"),
            ));
        }
    }
    let rule = match (r.count, r.min, r.max) {
        (Some(0), None, None) => return Err(FieldError::new("replications.count = 0", "must be at least 1")),
        (Some(n), None, None)
            if r.batch.is_none() && r.target.is_none() && r.metric.is_none() && r.on.is_none() =>
        {
            Replications::Fixed(n)
        }
        (None, Some(min), Some(max)) => {
            let batch = r.batch.unwrap_or(1);
            let target = r
                .target
                .ok_or_else(|| FieldError::new("replications.target", "required with min and max"))?;
            let metric = r
                .metric
                .clone()
                .ok_or_else(|| FieldError::new("replications.metric", "required with min and max"))?;
            if min < 2 || max < min || batch == 0 {
                return Err(FieldError::new(
                    "replications",
                    format!(
                        "need 2 <= min <= max and batch >= 1 (min = {min}, max = {max}, batch = {batch})"
                    ),
                ));
            }
            if !(target > 0.0 && target.is_finite()) {
                return Err(FieldError::new(
                    format!("replications.target = {target}"),
                    "must be positive",
                ));
            }
            if !metrics.contains(&metric) {
                return Err(FieldError::new(
                    format!("replications.metric = '{metric}'"),
                    format!("must be one of metrics ({})", metrics.join(", ")),
                ));
            }
            let on = match r.on.as_deref() {
                None | Some("mean") => StopOn::Mean,
                Some("difference") => StopOn::Difference,
                Some(other) => {
                    return Err(FieldError::new(
                        format!("replications.on = '{other}'"),
                        "expected mean or difference",
                    ));
                }
            };
            Replications::Sequential {
                min,
                max,
                batch,
                target,
                metric,
                on,
            }
        }
        _ => {
            return Err(FieldError::new(
                "replications",
                "give either count, or min, max, target and metric (batch, confidence optional)",
            ));
        }
    };
    Ok((rule, confidence))
}

/// The `[measure]` window, if any.
fn parse_window(measure: Option<&RawMeasure>) -> std::result::Result<Option<Window>, FieldError> {
    match measure {
        None => Ok(None),
        Some(m) if m.window == 0 => Err(FieldError::new("measure.window = 0", "must be at least 1")),
        Some(m) => Ok(Some(Window {
            measured: m.warmup..m.warmup + m.window,
            saturation: m.saturation,
        })),
    }
}

/// Each plot draws a listed metric against axes of the grid, in a size and formats that
/// make sense.
fn check_plots(
    plots: Vec<RawPlot>,
    metrics: &[String],
    axes: &[Axis],
    compare: bool,
) -> std::result::Result<Vec<PlotSpec>, FieldError> {
    let names: Vec<&str> = axes.iter().map(|a| a.name.as_str()).collect();
    let mut checked = Vec::new();
    for (i, p) in plots.into_iter().enumerate() {
        if !metrics.contains(&p.metric) {
            return Err(FieldError::new(
                format!("plot[{i}].metric = '{}'", p.metric),
                "not in metrics",
            ));
        }
        if p.difference && !compare {
            return Err(FieldError::new(
                format!("plot[{i}].difference = true"),
                "needs a [compare] section naming the baseline",
            ));
        }
        if p.difference && p.log_y {
            return Err(FieldError::new(
                format!("plot[{i}].log_y = true"),
                "a difference can be negative; drop log_y",
            ));
        }
        let named = [
            ("x", Some(&p.x)),
            ("series", p.series.as_ref()),
            ("facet", p.facet.as_ref()),
        ];
        for (key, axis) in named.into_iter().filter_map(|(k, a)| Some((k, a?))) {
            if !names.contains(&axis.as_str()) {
                return Err(FieldError::new(
                    format!("plot[{i}].{key} = '{axis}'"),
                    format!("not an axis; axes: {}", names.join(", ")),
                ));
            }
        }
        if p.log_x {
            let x = axes.iter().find(|a| a.name == p.x).expect("checked above");
            if !x.values.iter().all(|v| v.as_f64().is_some_and(|f| f > 0.0)) {
                return Err(FieldError::new(
                    format!("plot[{i}].log_x = true"),
                    format!("axis '{}' has values that are not positive numbers", p.x),
                ));
            }
        }
        let series_values = series_values(i, p.series_values.as_deref(), p.series.as_deref(), axes)?;
        let legend = match p.legend.as_deref() {
            None | Some("right") => Legend::Right,
            Some("bottom") => Legend::Bottom,
            Some("none") => Legend::None,
            Some(other) => {
                return Err(FieldError::new(
                    format!("plot[{i}].legend = '{other}'"),
                    "expected right, bottom or none",
                ));
            }
        };
        let size = match p.size {
            None => (800, 500),
            Some([w, h]) if (200..=4000).contains(&w) && (150..=4000).contains(&h) => (w, h),
            Some([w, h]) => {
                return Err(FieldError::new(
                    format!("plot[{i}].size = [{w}, {h}]"),
                    "width 200 to 4000 and height 150 to 4000 pixels",
                ));
            }
        };
        let formats = formats(i, p.formats)?;
        checked.push(PlotSpec {
            metric: p.metric,
            x: p.x,
            series: p.series,
            facet: p.facet,
            series_values,
            log_y: p.log_y,
            log_x: p.log_x,
            difference: p.difference,
            title: p.title,
            x_label: p.x_label,
            y_label: p.y_label,
            legend,
            size,
            formats,
        });
    }
    Ok(checked)
}

/// A plot's `series_values`: values of its series axis, as the axis writes them.
fn series_values(
    i: usize,
    values: Option<&[toml::Value]>,
    series: Option<&str>,
    axes: &[Axis],
) -> std::result::Result<Option<Vec<String>>, FieldError> {
    let (values, axis) = match (values, series) {
        (None, _) => return Ok(None),
        (Some(_), None) => {
            return Err(FieldError::new(
                format!("plot[{i}].series_values"),
                "needs a series axis",
            ));
        }
        (Some(values), Some(axis)) => (
            values,
            axes.iter().find(|a| a.name == axis).expect("checked before"),
        ),
    };
    let mut shown = Vec::new();
    for v in values {
        let value = Value::from_toml(v);
        match axis
            .values
            .iter()
            .find(|a| value.as_ref().is_some_and(|v| v.matches(a)))
        {
            Some(a) => shown.push(a.to_string()),
            None => {
                return Err(FieldError::new(
                    format!("plot[{i}].series_values"),
                    format!("{v} is not a value of axis '{}'", axis.name),
                ));
            }
        }
    }
    Ok(Some(shown))
}

/// A plot's `formats`: svg (the default), png or both, each once.
fn formats(i: usize, listed: Option<Vec<String>>) -> std::result::Result<Vec<Format>, FieldError> {
    let mut formats = Vec::new();
    for f in listed.unwrap_or_else(|| vec!["svg".into()]) {
        let format = match f.as_str() {
            "svg" => Format::Svg,
            "png" => Format::Png,
            other => {
                return Err(FieldError::new(
                    format!("plot[{i}].formats"),
                    format!("'{other}': expected svg or png"),
                ));
            }
        };
        if formats.contains(&format) {
            return Err(FieldError::new(
                format!("plot[{i}].formats"),
                format!("'{f}' listed twice"),
            ));
        }
        formats.push(format);
    }
    if formats.is_empty() {
        return Err(FieldError::new(
            format!("plot[{i}].formats"),
            "list svg, png or both",
        ));
    }
    Ok(formats)
}

/// The cells' axis values: the cartesian product in axis order, last axis fastest, without
/// those an `exclude` rule matches and, if there are `only` rules, those none matches.
fn grid(axes: &[Axis], exclude: &[Rule], only: &[Rule]) -> Vec<Vec<Value>> {
    let matches = |rule: &Rule, values: &[Value]| {
        rule.iter()
            .all(|(axis, allowed)| allowed.iter().any(|a| a.matches(&values[*axis])))
    };
    let size = axes.iter().map(|a| a.values.len()).product::<usize>();
    let mut counters = vec![0usize; axes.len()];
    let mut cells = Vec::new();
    for _ in 0..size {
        let values: Vec<Value> = axes
            .iter()
            .zip(&counters)
            .map(|(a, &i)| a.values[i].clone())
            .collect();
        let excluded = exclude.iter().any(|rule| matches(rule, &values));
        let kept = only.is_empty() || only.iter().any(|rule| matches(rule, &values));
        if !excluded && kept {
            cells.push(values);
        }
        for k in (0..axes.len()).rev() {
            counters[k] += 1;
            if counters[k] < axes[k].values.len() {
                break;
            }
            counters[k] = 0;
        }
    }
    cells
}

/// Values of axis `key`: a list, or `{ from, to, step }` (inclusive, floats rounded to 1e-9).
fn axis_values(key: &str, v: &toml::Value) -> std::result::Result<Vec<Value>, FieldError> {
    let bad = |message: String| FieldError::new(format!("axes.{key}"), message);
    match v {
        toml::Value::Array(items) => items
            .iter()
            .map(|item| {
                Value::from_toml(item)
                    .ok_or_else(|| bad(format!("value {item} is not a number, string or boolean")))
            })
            .collect(),
        toml::Value::Table(t) => {
            let get = |k: &str| {
                t.get(k)
                    .and_then(|x| Value::from_toml(x).and_then(|v| v.as_f64()))
                    .ok_or_else(|| bad(format!("range needs numeric '{k}' (from, to, step)")))
            };
            if let Some(extra) = t.keys().find(|k| !["from", "to", "step"].contains(&k.as_str())) {
                return Err(bad(format!(
                    "unknown range key '{extra}'; allowed: from, to, step"
                )));
            }
            let (from, to, step) = (get("from")?, get("to")?, get("step")?);
            if !(from.is_finite() && to.is_finite() && step.is_finite()) || step <= 0.0 || to < from {
                return Err(bad(format!(
                    "range from {from} to {to} step {step}: need finite numbers, step > 0 and to >= from"
                )));
            }
            let all_ints = [&t["from"], &t["to"], &t["step"]].iter().all(|x| x.is_integer());
            let count = ((to - from) / step + 1e-9).floor() + 1.0;
            if count > MAX_AXIS_VALUES as f64 {
                return Err(bad(format!(
                    "range from {from} to {to} step {step}: {count} values, above the {MAX_AXIS_VALUES} an \
                     axis may have"
                )));
            }
            let count = count as usize;
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
            .ok_or_else(|| bad("expected a list of values or { from, to, step }".into())),
    }
}
