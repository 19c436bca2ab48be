//! The machine a workload runs on: partitions, each a list of node groups (a count of
//! nodes with the same cores, memory and GPUs), read from a TOML description; and how a
//! trace's jobs fall on it (its partition numbers, SWF field 16). Today's machine, when no
//! description is given, is one partition of one-core nodes. docs/semantics.md, "The
//! machine", states the choices.
//!
//! ```toml
//! [[partition]]
//! name = "batch"
//! swf = [1, 2]          # the SWF partition numbers (field 16) whose jobs it runs
//! default = true        # and every job no partition lists (unknown, -1, included)
//! exclusive = false     # true: a job holds whole nodes and shares none
//! scheduler = "fcfs"    # its own scheduler (else the run's)
//! [[partition.nodes]]
//! name = "thin"
//! count = 64
//! cores = 32
//! memory_gb = 256
//! gpus = 0
//! ```

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::Time;
use crate::error::{Error, FieldError, Result};
use crate::params::ParamError;
use crate::workload::{Jobs, MAX_PROCS, Workload};

pub mod cap;
pub mod gpu_share;
pub mod memory_pressure;
pub mod pool;

use pool::{NodePool, NodeRequest};

/// Nodes a group may have, cores and GPUs a node may have, and memory a node may have
/// (GB): bounds that keep every sum within 64 bits and a description's size sane.
pub const MAX_NODES: u32 = 1 << 20;
pub const MAX_CORES_PER_NODE: u32 = 4096;
pub const MAX_GPUS_PER_NODE: u32 = 64;
pub const MAX_MEMORY_GB: f64 = 1_048_576.0;

/// A node's power draw, watts: idle, and with every core busy (linear in the busy cores in
/// between; `crate::energy`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NodePower {
    pub idle_w: f64,
    pub busy_w: f64,
}

/// Most watts a node may draw: a bound that keeps a description sane.
pub const MAX_NODE_WATTS: f64 = 1e6;

/// What a node draws off, and what switching it off and on costs (Batsim's sleep, switching
/// off and switching on power states): watts, and whole seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NodeSwitching {
    pub off_w: f64,
    pub shutdown_s: Time,
    pub shutdown_w: f64,
    pub boot_s: Time,
    pub boot_w: f64,
}

/// Longest switch-off, boot or idle timeout a description may give, seconds: a day.
pub const MAX_SWITCH_SECONDS: i64 = 86_400;

/// When a partition switches its idle nodes off: after `after` seconds idle, while more
/// than `keep_on` nodes stay on (`crate::sim::power_states`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SwitchOff {
    pub after: Time,
    pub keep_on: u32,
}

/// A group of identical nodes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeGroup {
    pub name: String,
    pub count: u32,
    pub cores: u32,
    /// Memory per node, GB (0: not described).
    pub memory_gb: f64,
    pub gpus: u32,
    /// Its power draw (`None`: not described).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power: Option<NodePower>,
    /// Its draw off and the cost of switching (`None`: not described; the node stays on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switching: Option<NodeSwitching>,
}

/// A partition: its nodes, and which of a trace's jobs it runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Partition {
    pub name: String,
    /// The SWF partition numbers (field 16) of the jobs it runs.
    pub swf: Vec<i32>,
    /// Whether it runs the jobs no partition lists (field 16 unknown, -1, included).
    pub default: bool,
    /// Whether a job holds whole nodes, sharing none (Slurm's `OverSubscribe=EXCLUSIVE`).
    pub exclusive: bool,
    pub nodes: Vec<NodeGroup>,
    /// A power cap, watts: a job starts only if the partition's power with it stays at
    /// most this ([`Partition::usable_cores`]). Not written when absent, so that a machine's
    /// JSON (and what it keys) stays as it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cap_w: Option<f64>,
    /// Whether idle nodes are switched off (`None`: they stay on, today's machine).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switch_off: Option<SwitchOff>,
    /// A power cap that changes over time (`power_cap_series`), watts. `None`: the cap, if
    /// any, is `cap_w`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cap_over_time: Option<cap::CapOverTime>,
    /// The scheduler of this partition's queue, as written (`scheduler = "fcfs"`; read by
    /// the experiment, which knows the schedulers). `None`: the run's scheduler.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<String>,
}

impl Partition {
    /// Cores over all its nodes.
    pub fn cores(&self) -> u64 {
        self.nodes.iter().map(|g| g.count as u64 * g.cores as u64).sum()
    }

    pub fn gpus(&self) -> u64 {
        self.nodes.iter().map(|g| g.count as u64 * g.gpus as u64).sum()
    }

    /// The cores that may be busy at once: all of them, or under a power cap the most whose
    /// draw keeps the partition at most the cap. A partition's power is its idle draw plus
    /// one core's rise (busy less idle, per core, the same on all its nodes) for each busy
    /// core, so "a job starts only if the power with it stays under the cap" is exactly
    /// "a job starts only if the busy cores with it stay within these".
    pub fn usable_cores(&self) -> u64 {
        self.cap_w.map_or(self.cores(), |cap| self.cores_under(cap))
    }

    /// The cores that may be busy at once under a cap of `cap` watts (see
    /// [`Partition::usable_cores`]).
    pub fn cores_under(&self, cap: f64) -> u64 {
        let Some(g) = self.nodes.first() else {
            return self.cores();
        };
        let power = g.power.expect("a cap needs a power model, checked on reading");
        let idle = self.idle_w();
        if cap < idle {
            return 0;
        }
        let rise = (power.busy_w - power.idle_w) / g.cores as f64;
        if rise <= 0.0 {
            return self.cores();
        }
        // A cap at an exact multiple of the rise must not lose a core to rounding (1000 W
        // over 16.67 W a core is 59.999...): a part in 10^9 of slack, then the cap checked.
        let most = ((cap - idle) / rise * (1.0 + 1e-9))
            .floor()
            .min(self.cores() as f64) as u64;
        match idle + most as f64 * rise <= cap * (1.0 + 1e-12) {
            true => most,
            false => most.saturating_sub(1),
        }
    }

    /// The engine's rule for switching its idle nodes off, if it does (checked on reading
    /// and by [`Machine::with_switch_off`]: one group of one-core nodes that describes its
    /// switching).
    pub fn switch_off_policy(&self) -> Option<crate::sim::SwitchOffPolicy> {
        let rule = self.switch_off?;
        let switching = self.nodes.first()?.switching?;
        Some(crate::sim::SwitchOffPolicy {
            after: rule.after,
            keep_on: rule.keep_on,
            shutdown_s: switching.shutdown_s,
            boot_s: switching.boot_s,
        })
    }

    /// Memory over all its nodes, GB.
    pub fn memory_gb(&self) -> f64 {
        self.nodes.iter().map(|g| g.count as f64 * g.memory_gb).sum()
    }

    /// Memory over all its nodes, KB, where every node group describes its memory.
    pub fn memory_kb(&self) -> Option<f64> {
        self.nodes.iter().all(|g| g.memory_gb > 0.0).then(|| {
            self.nodes
                .iter()
                .map(|g| g.count as f64 * g.memory_gb * pool::KB_PER_GB)
                .sum()
        })
    }

    /// Whether some set of this partition's nodes, all empty, holds `r`: each node group
    /// takes as many units as one empty node of it allows, times its count.
    pub fn holds_when_empty(&self, r: &NodeRequest) -> bool {
        let mut units = 0u64;
        for g in &self.nodes {
            let mut k = r.per_node as u64;
            k = k.min((g.cores / r.cores.max(1)) as u64);
            if r.memory_kb > 0 && g.memory_gb > 0.0 {
                k = k.min(((g.memory_gb * pool::KB_PER_GB) as u64) / r.memory_kb);
            }
            if let Some(by_gpus) = g.gpus.checked_div(r.gpus) {
                k = k.min(by_gpus as u64);
            }
            units += k * g.count as u64;
            if units >= r.units as u64 {
                return true;
            }
        }
        r.units == 0
    }

    /// Whether its jobs must be placed on nodes: it describes memory or GPUs, or runs
    /// whole nodes. Otherwise it is exactly a pool of its cores (any free cores on any
    /// nodes take a job of processors), and is simulated as one.
    pub fn needs_nodes(&self) -> bool {
        self.exclusive || self.nodes.iter().any(|g| g.memory_gb > 0.0 || g.gpus > 0)
    }

    /// Its nodes, all free.
    pub fn pool(&self) -> NodePool {
        NodePool::new(&self.nodes, self.exclusive)
    }
}

/// KB of memory per processor job `j` asks: field 10, else field 7, else 0 ([`Machine::request`]).
fn memory_per_processor(jobs: &Jobs, j: usize) -> u64 {
    let per_task = |column: &[i32]| column.get(j).copied().filter(|&m| m > 0);
    per_task(&jobs.requested_memory)
        .or_else(|| per_task(&jobs.used_memory))
        .unwrap_or(0) as u64
}

/// The request of `procs` processors and `gpus` GPUs with `memory_kb` per processor
/// ([`Machine::request`]).
fn request_of(procs: u32, gpus: u32, memory_kb: u64) -> NodeRequest {
    if gpus == 0 {
        return NodeRequest::tasks(procs, memory_kb);
    }
    let chunks = gcd(procs, gpus);
    let cores = procs / chunks;
    NodeRequest {
        units: chunks,
        cores,
        memory_kb: memory_kb * cores as u64,
        gpus: gpus / chunks,
        per_node: u32::MAX,
    }
}

/// The greatest common divisor (Euclid); gcd(a, 0) = a.
fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A machine: one or more partitions of disjoint nodes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Machine {
    pub partitions: Vec<Partition>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMachine {
    #[serde(default)]
    partition: Vec<RawPartition>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPartition {
    name: String,
    swf: Option<Vec<i64>>,
    #[serde(default)]
    default: bool,
    #[serde(default)]
    exclusive: bool,
    cap_w: Option<f64>,
    switch_off_after: Option<i64>,
    keep_on: Option<i64>,
    scheduler: Option<String>,
    #[serde(default)]
    nodes: Vec<RawNodes>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNodes {
    name: Option<String>,
    count: i64,
    cores: i64,
    #[serde(default)]
    memory_gb: f64,
    #[serde(default)]
    gpus: i64,
    idle_w: Option<f64>,
    busy_w: Option<f64>,
    off_w: Option<f64>,
    shutdown_s: Option<i64>,
    shutdown_w: Option<f64>,
    boot_s: Option<i64>,
    boot_w: Option<f64>,
}

/// A partition's `switch_off_after` and `keep_on` as read, checked against it; refused
/// naming the key and its value.
fn switch_off_of(
    partition: &Partition,
    after: Option<i64>,
    keep_on: Option<i64>,
) -> std::result::Result<Option<SwitchOff>, FieldError> {
    let after = match (after, keep_on) {
        (None, None) => return Ok(None),
        (None, Some(_)) => return Err(FieldError::new("keep_on", "applies with switch_off_after")),
        (Some(after), _) => after,
    };
    let field = format!("switch_off_after = {after}");
    if !(1..=MAX_SWITCH_SECONDS).contains(&after) {
        return Err(FieldError::new(
            field,
            format!("expected whole seconds from 1 to {MAX_SWITCH_SECONDS}"),
        ));
    }
    let nodes = partition.nodes.iter().map(|g| g.count as i64).sum::<i64>();
    let keep_on = keep_on.unwrap_or(0);
    if !(0..=nodes).contains(&keep_on) {
        return Err(FieldError::new(
            format!("keep_on = {keep_on}"),
            format!("expected a whole number of nodes from 0 to {nodes}"),
        ));
    }
    check_switch_off(partition).map_err(|e| FieldError::new(field, e.message))?;
    Ok(Some(SwitchOff {
        after: after as Time,
        keep_on: keep_on as u32,
    }))
}

impl Machine {
    /// Today's machine: one partition of `procs` one-core nodes, running every job.
    pub fn single(procs: u32) -> Machine {
        Machine {
            partitions: vec![Partition {
                name: "all".into(),
                swf: Vec::new(),
                default: true,
                exclusive: false,
                nodes: vec![NodeGroup {
                    name: "node".into(),
                    count: procs,
                    cores: 1,
                    memory_gb: 0.0,
                    gpus: 0,
                    power: None,
                    switching: None,
                }],
                cap_w: None,
                switch_off: None,
                cap_over_time: None,
                scheduler: None,
            }],
        }
    }

    /// Reads a description; errors name the file and the key.
    pub fn read(path: &Path) -> Result<Machine> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Machine::from_toml(&text, path)
    }

    /// A description's text; `path` names it in errors.
    pub fn from_toml(text: &str, path: &Path) -> Result<Machine> {
        let raw: RawMachine = toml::from_str(text).map_err(|e| Error::Spec {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })?;
        Machine::from_raw(raw, |message| Error::Spec {
            path: path.to_path_buf(),
            message,
        })
    }

    /// A description given as a table of another file (a sweep spec's `[machines.NAME]`):
    /// `path` names that file in errors, `at` the table.
    pub fn from_table(table: toml::Table, path: &Path, at: &str) -> Result<Machine> {
        let err = |message: String| Error::Spec {
            path: path.to_path_buf(),
            message: format!("{at}: {message}"),
        };
        let raw: RawMachine = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| err(e.message().to_string()))?;
        Machine::from_raw(raw, err)
    }

    /// A description's partitions checked; `err` makes an error of a message.
    fn from_raw(raw: RawMachine, err: impl Fn(String) -> Error) -> Result<Machine> {
        if raw.partition.is_empty() {
            return Err(err("no [[partition]]: a machine needs at least one".into()));
        }
        let mut partitions = Vec::new();
        let mut names = HashSet::new();
        let mut numbers: BTreeMap<i32, String> = BTreeMap::new();
        // Partitions are numbered by position (1, 2, ...) when none lists its numbers; once
        // one does, each says which it runs (or is the default).
        let by_position = raw.partition.iter().all(|p| p.swf.is_none());
        for (i, p) in raw.partition.into_iter().enumerate() {
            let at = format!("partition[{i}]");
            if !is_plain_name(&p.name) {
                return Err(err(format!("{at}.name = {:?}: expected {PLAIN_NAME}", p.name)));
            }
            if !names.insert(p.name.clone()) {
                return Err(err(format!("{at}.name = {:?}: given to two partitions", p.name)));
            }
            let swf = match p.swf {
                None if by_position => vec![i as i64 + 1],
                Some(list) if !list.is_empty() => list,
                _ if p.default => Vec::new(),
                _ => {
                    return Err(err(format!(
                        "{at}: runs no job; list its SWF partition numbers (swf = [...]) or set \
                         default = true (other partitions list theirs)"
                    )));
                }
            };
            let mut own = Vec::new();
            for n in swf {
                let n = i32::try_from(n)
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| err(format!("{at}.swf: {n} is not a partition number (1 or more)")))?;
                if let Some(other) = numbers.insert(n, p.name.clone()) {
                    return Err(err(format!(
                        "{at}.swf: partition number {n} is also {other:?}'s; a job runs in one partition"
                    )));
                }
                own.push(n);
            }
            if p.nodes.is_empty() {
                return Err(err(format!(
                    "{at}: no [[partition.nodes]]; a partition needs nodes"
                )));
            }
            let groups = p
                .nodes
                .into_iter()
                .enumerate()
                .map(|(j, g)| node_group(g, &format!("{at}.nodes[{j}]"), j, &err))
                .collect::<Result<Vec<_>>>()?;
            let mut partition = Partition {
                name: p.name,
                swf: own,
                default: p.default,
                exclusive: p.exclusive,
                nodes: groups,
                cap_w: p.cap_w,
                switch_off: None,
                cap_over_time: None,
                scheduler: p.scheduler,
            };
            if let Some(cap) = p.cap_w {
                check_cap(&partition, cap).map_err(|e| err(format!("{at}.cap_w = {cap}: {}", e.message)))?;
            }
            partition.switch_off = switch_off_of(&partition, p.switch_off_after, p.keep_on)
                .map_err(|e| err(format!("{at}.{}: {}", e.field, e.message)))?;
            partitions.push(partition);
        }
        let defaults: Vec<&str> = partitions
            .iter()
            .filter(|p| p.default)
            .map(|p| p.name.as_str())
            .collect();
        if defaults.len() > 1 {
            return Err(err(format!(
                "default = true in {}: jobs of unknown partition run in one",
                defaults.join(" and ")
            )));
        }
        check_power(&partitions).map_err(|e| err(e.to_string()))?;
        let machine = Machine { partitions };
        if machine.cores() > MAX_PROCS as u64 {
            return Err(err(format!(
                "{} cores in all, above the {MAX_PROCS} schedlab simulates",
                machine.cores()
            )));
        }
        Ok(machine)
    }

    /// Cores over every partition.
    pub fn cores(&self) -> u64 {
        self.partitions.iter().map(Partition::cores).sum()
    }

    /// The partition that runs a job of SWF partition `swf`: the one that lists it, else
    /// the default one (which runs every job no partition lists, -1 unknown included).
    pub fn partition_of(&self, swf: i32) -> Option<usize> {
        self.partitions
            .iter()
            .position(|p| p.swf.contains(&swf))
            .or_else(|| self.partitions.iter().position(|p| p.default))
    }
}

impl Machine {
    /// `w` on this machine: the jobs no partition runs, those asking more processors than
    /// their partition has, and those whose request ([`Machine::request`]: memory per processor,
    /// GPUs) no set of its nodes can hold, skipped and counted (`partition_unplaced`,
    /// `procs_exceed_machine`, `request_exceeds_nodes`); the machine's size its cores. On a
    /// machine without GPUs the jobs' GPU requests are not simulated ([`Machine::request`])
    /// but kept, for the outputs. `w` must hold field 16 and the memory (read with
    /// `Columns::Machine` or every column).
    pub fn place(&self, w: Workload) -> Workload {
        let jobs = &w.jobs;
        let mut skipped = w.skipped.clone();
        let mut kept = Vec::with_capacity(jobs.len());
        for j in 0..jobs.len() {
            match self.partition_of(jobs.partition[j]) {
                None => skipped.partition_unplaced += 1,
                Some(p) if jobs.procs[j] as u64 > self.partitions[p].cores() => {
                    skipped.procs_exceed_machine += 1
                }
                Some(p) if !self.partitions[p].cap_holds(jobs.procs[j] as u64, jobs.estimate[j]) => {
                    skipped.exceeds_power_cap += 1
                }
                Some(p) if !self.partitions[p].holds_when_empty(&self.request(jobs, j)) => {
                    skipped.request_exceeds_nodes += 1
                }
                Some(_) => kept.push(j as u32),
            }
        }
        // Moved, not copied, when every job fits: a copy beside the table doubled a machine
        // run's peak memory (docs/performance.md, "Memory per job").
        let jobs = if kept.len() == w.jobs.len() {
            w.jobs
        } else {
            w.jobs.gather(&kept)
        };
        Workload {
            jobs,
            procs: self.cores() as u32,
            skipped,
            ..w
        }
    }

    /// What job `j` asks of a partition's nodes: its P processors and G GPUs as gcd(P, G)
    /// equal chunks, each of P/gcd cores and G/gcd GPUs that must sit on one node, packed onto
    /// as few nodes as fit (without GPUs, gcd(P, 0) = P: P one-core tasks, Slurm's
    /// `--ntasks`). Each chunk holds its cores' memory: the requested memory per processor
    /// (SWF field 10, KB), else the used memory per processor (field 7) when the log records
    /// no request, else none. docs/semantics.md, "The machine", states why. On a machine
    /// without GPUs, no GPU: a CPU-only model of the jobs.
    pub fn request(&self, jobs: &Jobs, j: usize) -> NodeRequest {
        let gpus = if self.gpus() == 0 { 0 } else { jobs.gpus_of(j) };
        request_of(jobs.procs[j], gpus, memory_per_processor(jobs, j))
    }

    /// Memory over every node, KB, where every node group describes its memory.
    pub fn memory_kb(&self) -> Option<f64> {
        let groups = || self.partitions.iter().flat_map(|p| &p.nodes);
        groups().all(|g| g.memory_gb > 0.0).then(|| {
            groups()
                .map(|g| g.count as f64 * g.memory_gb * pool::KB_PER_GB)
                .sum()
        })
    }

    /// KB of memory job `j` requests in all: its memory per processor ([`Machine::request`])
    /// times its processors.
    pub fn memory_of(jobs: &Jobs, j: usize) -> f64 {
        memory_per_processor(jobs, j) as f64 * jobs.procs[j] as f64
    }

    /// GPUs over every partition.
    pub fn gpus(&self) -> u64 {
        self.partitions.iter().map(Partition::gpus).sum()
    }

    /// The rows of `jobs` each partition runs, in arrival order, into `rows` (one list
    /// per partition, reused). Every job must have a partition ([`Machine::place`]).
    pub fn split(&self, jobs: &crate::workload::Jobs, rows: &mut Vec<Vec<u32>>) {
        rows.resize_with(self.partitions.len(), Vec::new);
        rows.truncate(self.partitions.len());
        rows.iter_mut().for_each(Vec::clear);
        for (j, &swf) in jobs.partition.iter().enumerate() {
            let p = self.partition_of(swf).expect("placed jobs have a partition");
            rows[p].push(j as u32);
        }
    }
}

/// Node group `j` of a machine file, at `at` (`partition[i].nodes[j]`) in its errors.
fn node_group(g: RawNodes, at: &str, j: usize, err: &impl Fn(String) -> Error) -> Result<NodeGroup> {
    let whole = |key: &str, v: i64, low: i64, high: u32| {
        (low..=high as i64)
            .contains(&v)
            .then_some(v as u32)
            .ok_or_else(|| {
                err(format!(
                    "{at}.{key} = {v}: expected a whole number from {low} to {high}"
                ))
            })
    };
    let count = whole("count", g.count, 1, MAX_NODES)?;
    let cores = whole("cores", g.cores, 1, MAX_CORES_PER_NODE)?;
    let gpus = whole("gpus", g.gpus, 0, MAX_GPUS_PER_NODE)?;
    if !(0.0..=MAX_MEMORY_GB).contains(&g.memory_gb) {
        return Err(err(format!(
            "{at}.memory_gb = {}: expected a number from 0 to {MAX_MEMORY_GB}",
            g.memory_gb
        )));
    }
    let power = match (g.idle_w, g.busy_w) {
        (None, None) => None,
        (Some(idle_w), Some(busy_w)) => {
            if !(0.0..=MAX_NODE_WATTS).contains(&idle_w) || !(idle_w..=MAX_NODE_WATTS).contains(&busy_w) {
                return Err(err(format!(
                    "{at}: idle_w = {idle_w}, busy_w = {busy_w}: expected 0 <= idle_w <= busy_w <= \
                     {MAX_NODE_WATTS} watts a node"
                )));
            }
            Some(NodePower { idle_w, busy_w })
        }
        _ => {
            return Err(err(format!(
                "{at}: idle_w and busy_w go together (a node's watts idle and with every core busy)"
            )));
        }
    };
    let switching = node_switching(&g, power.is_some(), at, err)?;
    let name = g.name.unwrap_or_else(|| format!("group{j}"));
    if !is_plain_name(&name) {
        return Err(err(format!("{at}.name = {name:?}: expected {PLAIN_NAME}")));
    }
    Ok(NodeGroup {
        name,
        count,
        cores,
        memory_gb: g.memory_gb,
        gpus,
        power,
        switching,
    })
}

/// A node group's switching figures: all five or none, and only with its watts on
/// (`powered`).
fn node_switching(
    g: &RawNodes,
    powered: bool,
    at: &str,
    err: &impl Fn(String) -> Error,
) -> Result<Option<NodeSwitching>> {
    match (g.off_w, g.shutdown_s, g.shutdown_w, g.boot_s, g.boot_w) {
        (None, None, None, None, None) => Ok(None),
        (Some(off_w), Some(shutdown_s), Some(shutdown_w), Some(boot_s), Some(boot_w)) => {
            if !powered {
                return Err(err(format!(
                    "{at}: off_w and the switching figures need idle_w and busy_w (the node's watts on)"
                )));
            }
            let watts = |key: &str, w: f64| {
                if (0.0..=MAX_NODE_WATTS).contains(&w) {
                    Ok(w)
                } else {
                    Err(err(format!(
                        "{at}.{key} = {w}: expected 0 to {MAX_NODE_WATTS} watts"
                    )))
                }
            };
            let seconds = |key: &str, t: i64| {
                if (0..=MAX_SWITCH_SECONDS).contains(&t) {
                    Ok(t as Time)
                } else {
                    Err(err(format!(
                        "{at}.{key} = {t}: expected whole seconds from 0 to {MAX_SWITCH_SECONDS}"
                    )))
                }
            };
            Ok(Some(NodeSwitching {
                off_w: watts("off_w", off_w)?,
                shutdown_s: seconds("shutdown_s", shutdown_s)?,
                shutdown_w: watts("shutdown_w", shutdown_w)?,
                boot_s: seconds("boot_s", boot_s)?,
                boot_w: watts("boot_w", boot_w)?,
            }))
        }
        _ => Err(err(format!(
            "{at}: off_w, shutdown_s, shutdown_w, boot_s and boot_w go together (a node's watts \
             off, and the seconds and watts of switching it off and on)"
        ))),
    }
}

/// A partition's power cap: with a power model, on a pool of cores (a partition of nodes
/// would need the cap inside the node placement, not built yet), and high enough for one
/// busy core above the idle draw of every node (else no job could ever start).
pub(super) fn check_cap(partition: &Partition, cap: f64) -> std::result::Result<(), FieldError> {
    let refuse = |message: String| Err(FieldError::new("cap_w", message));
    let most = MAX_NODE_WATTS * MAX_NODES as f64;
    if !(cap > 0.0 && cap <= most) {
        return refuse(format!("expected watts above 0, at most {most}"));
    }
    if partition.nodes.iter().any(|g| g.power.is_none()) {
        return refuse("a cap needs the partition's power (idle_w and busy_w on its nodes)".into());
    }
    if partition.needs_nodes() {
        return refuse(
            "a cap on a partition of nodes (memory, GPUs or exclusive) is not built yet; caps apply to pools of cores"
                .into(),
        );
    }
    if partition.usable_cores() == 0 {
        return refuse("below the partition's idle draw plus one busy core: no job could ever start".into());
    }
    Ok(())
}

/// Switching idle nodes off: simulated on a pool of one-core nodes of one group that
/// describes its switching (nodes of several cores would need node placement, and a cap
/// the boots' draw, neither built yet).
fn check_switch_off(partition: &Partition) -> std::result::Result<(), FieldError> {
    let refuse = |message: String| Err(FieldError::new("switch_off_after", message));
    if partition.cap_w.is_some() || partition.cap_over_time.is_some() {
        return refuse("switching nodes off under a power cap is not built yet".into());
    }
    let [group] = &partition.nodes[..] else {
        return refuse("switching nodes off is built for a partition of one node group".into());
    };
    if group.switching.is_none() {
        return refuse(format!(
            "nodes {:?} do not describe their switching (off_w, shutdown_s, shutdown_w, boot_s, boot_w)",
            group.name
        ));
    }
    if group.cores != 1 || partition.needs_nodes() {
        return refuse(format!(
            "nodes {:?} have {} cores{}: switching nodes off is built for pools of one-core nodes (a node per \
             processor, as SWF logs count them)",
            group.name,
            group.cores,
            if partition.needs_nodes() {
                ", memory, GPUs or whole-node jobs"
            } else {
                ""
            }
        ));
    }
    Ok(())
}

/// Power is described for every node group or for none (a run's energy covers the whole
/// machine), and, as nodes are not told apart within a pool of cores, with the same watts
/// per core, idle and busy, over a partition's groups.
fn check_power(partitions: &[Partition]) -> std::result::Result<(), FieldError> {
    let groups = || {
        partitions
            .iter()
            .flat_map(|p| p.nodes.iter().map(move |g| (p, g)))
    };
    let described = groups().filter(|(_, g)| g.power.is_some()).count();
    if described > 0 && described < groups().count() {
        let (p, g) = groups()
            .find(|(_, g)| g.power.is_none())
            .expect("one is not described");
        return Err(FieldError::new(
            format!("partition {:?}, nodes {:?}", p.name, g.name),
            "no idle_w and busy_w, while other node groups have them; describe every group's power or none",
        ));
    }
    for p in partitions {
        let per_core = |g: &NodeGroup| {
            g.power
                .map(|w| (w.idle_w / g.cores as f64, w.busy_w / g.cores as f64))
        };
        let first = p.nodes.first().and_then(per_core);
        if let Some(g) = p.nodes.iter().find(|g| {
            per_core(g).zip(first).is_some_and(|((i, b), (i0, b0))| {
                (i - i0).abs() > 1e-9 * i0.max(1.0) || (b - b0).abs() > 1e-9 * b0.max(1.0)
            })
        }) {
            return Err(FieldError::new(
                format!("partition {:?}, nodes {:?}", p.name, g.name),
                "watts per core differ from the partition's first group; \
                 a partition's groups must draw the same per core, idle and busy, for now",
            ));
        }
    }
    Ok(())
}

impl Machine {
    /// Whether the machine is one plain pool of cores: one partition, no node placement,
    /// no power cap, nodes that stay on, no scheduler of its own. What runs outside the
    /// engine's own assembly of a run (the environment, Python priority functions) takes
    /// only such machines.
    pub fn is_plain_pool(&self) -> bool {
        let [p] = &self.partitions[..] else { return false };
        !p.needs_nodes()
            && p.cap_w.is_none()
            && p.cap_over_time.is_none()
            && p.switch_off.is_none()
            && p.scheduler.is_none()
    }

    /// Whether the machine describes its nodes' power.
    pub fn has_power(&self) -> bool {
        self.partitions
            .iter()
            .all(|p| p.nodes.iter().all(|g| g.power.is_some()))
    }

    /// This machine with every partition switching its idle nodes off after `after`
    /// seconds while more than `keep_on` of its nodes are on: the `switch_off_after` and
    /// `keep_on` keys. Refused for a machine whose file already sets
    /// it (one or the other), and where a partition cannot switch its nodes off
    /// (`check_switch_off`).
    pub fn with_switch_off(&self, after: Time, keep_on: u32) -> std::result::Result<Machine, ParamError> {
        let refuse = |m: String| Err(ParamError::Invalid(format!("switch_off_after = {after}: {m}")));
        if !(1..=MAX_SWITCH_SECONDS).contains(&after) {
            return refuse(format!("expected whole seconds from 1 to {MAX_SWITCH_SECONDS}"));
        }
        let mut switched = self.clone();
        for p in &mut switched.partitions {
            if p.switch_off.is_some() {
                return refuse(format!(
                    "partition {} already has switch_off_after in its machine file; give one or the other",
                    p.name
                ));
            }
            let nodes: u64 = p.nodes.iter().map(|g| g.count as u64).sum();
            if keep_on as u64 > nodes {
                return refuse(format!(
                    "keep_on = {keep_on}: partition {} has {nodes} nodes",
                    p.name
                ));
            }
            p.switch_off = Some(SwitchOff { after, keep_on });
            if let Err(e) = check_switch_off(p) {
                return refuse(format!("partition {}: {}", p.name, e.message));
            }
        }
        Ok(switched)
    }
}

/// What a partition's or node group's name may be ([`is_plain_name`]).
pub(crate) const PLAIN_NAME: &str = "1 to 64 letters, digits, '-', '_' or '.'";

/// A plain name: letters, digits, `-`, `_` and `.`, 1 to 64 of them.
pub(crate) fn is_plain_name(name: &str) -> bool {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
    !name.is_empty() && name.len() <= 64 && name.chars().all(plain)
}

/// How a trace's jobs fall on one partition of a machine.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PartitionFit {
    pub partition: String,
    pub cores: u64,
    /// Jobs it runs, and of them those asking more processors than it has.
    pub jobs: u64,
    pub too_large: u64,
    /// The largest job's processors.
    pub largest: u32,
    /// Its offered load: the work of its jobs over its cores and the trace's span.
    pub offered_load: f64,
}

/// How a trace's jobs fall on a machine: per partition, and the jobs no partition runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    pub machine: PathBuf,
    pub partitions: Vec<PartitionFit>,
    /// Jobs by SWF partition number that no partition runs.
    pub unplaced: BTreeMap<i32, u64>,
}

impl Fit {
    /// Where `w`'s jobs fall on `machine` (read with `Columns::Machine` or every column:
    /// field 16 is needed).
    pub fn of(w: &Workload, machine: &Machine, path: &Path) -> Fit {
        let jobs = &w.jobs;
        let span = match (jobs.submit.first(), jobs.submit.last()) {
            (Some(&a), Some(&b)) if b > a => (b - a) as f64,
            _ => 0.0,
        };
        let mut partitions: Vec<PartitionFit> = machine
            .partitions
            .iter()
            .map(|p| PartitionFit {
                partition: p.name.clone(),
                cores: p.cores(),
                jobs: 0,
                too_large: 0,
                largest: 0,
                offered_load: 0.0,
            })
            .collect();
        let mut unplaced = BTreeMap::new();
        for j in 0..jobs.len() {
            let swf = jobs.partition.get(j).copied().unwrap_or(-1);
            match machine.partition_of(swf) {
                None => *unplaced.entry(swf).or_default() += 1,
                Some(p) => {
                    let f = &mut partitions[p];
                    f.jobs += 1;
                    f.too_large += u64::from(jobs.procs[j] as u64 > f.cores);
                    f.largest = f.largest.max(jobs.procs[j]);
                    f.offered_load += jobs.runtime[j] as f64 * jobs.procs[j] as f64;
                }
            }
        }
        for f in &mut partitions {
            f.offered_load = if span > 0.0 {
                f.offered_load / (f.cores as f64 * span)
            } else {
                0.0
            };
        }
        Fit {
            machine: path.to_path_buf(),
            partitions,
            unplaced,
        }
    }

    /// The fit as `trace info --machine` prints it.
    pub fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(out, "machine file   {}", self.machine.display())?;
        for p in &self.partitions {
            writeln!(
                out,
                "partition      {}: {} cores, {} jobs (largest {} processors{}), offered load {:.4}",
                p.partition,
                p.cores,
                p.jobs,
                p.largest,
                match p.too_large {
                    0 => String::new(),
                    n => format!(", {n} larger than the partition"),
                },
                p.offered_load
            )?;
        }
        if !self.unplaced.is_empty() {
            let by: Vec<String> = self
                .unplaced
                .iter()
                .map(|(n, c)| format!("{c} of partition {n}"))
                .collect();
            writeln!(
                out,
                "unplaced       {} (no partition of the machine runs them)",
                by.join(", ")
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whether a request could ever be placed, read off the node groups, is whether it
        /// fits the partition's nodes all free, node by node.
        #[test]
        fn holding_when_empty_is_fitting_the_free_nodes(
            groups in prop::collection::vec((1u32..=4, 1u32..=8, 0usize..3, 0u32..=4), 1..=3),
            exclusive in any::<bool>(),
            (units, cores, memory, gpus, whole) in (1u32..=24, 1u32..=4, 0usize..3, 0u32..=3, any::<bool>()),
        ) {
            let gb = [0.0, 1.0, 2.0];
            let partition = Partition {
                name: "p".into(),
                swf: vec![1],
                default: true,
                exclusive,
                nodes: groups
                    .iter()
                    .map(|&(count, cores, m, gpus)| NodeGroup {
                        name: String::new(),
                        count,
                        cores,
                        memory_gb: gb[m],
                        gpus,
                        power: None,
                        switching: None,
                    })
                    .collect(),
                cap_w: None,
                switch_off: None,
                cap_over_time: None,
                scheduler: None,
            };
            let r = NodeRequest {
                units,
                cores,
                memory_kb: (gb[memory] * pool::KB_PER_GB / 2.0) as u64,
                gpus,
                per_node: if whole { 1 } else { u32::MAX },
            };
            prop_assert_eq!(partition.holds_when_empty(&r), partition.pool().fits(&r));
        }
    }

    fn parse(text: &str) -> Result<Machine> {
        Machine::from_toml(text, Path::new("m.toml"))
    }

    const TWO: &str = "[[partition]]\nname = \"cpu\"\ndefault = true\n\
                       [[partition.nodes]]\nname = \"thin\"\ncount = 4\ncores = 8\nmemory_gb = 64\n\
                       [[partition.nodes]]\ncount = 2\ncores = 16\n\
                       [[partition]]\nname = \"gpu\"\nswf = [2, 5]\n\
                       [[partition.nodes]]\ncount = 2\ncores = 4\ngpus = 4\n";

    #[test]
    fn a_description_reads_into_partitions_of_node_groups() {
        let m = parse(TWO).unwrap();
        assert_eq!(m.partitions.len(), 2);
        let (cpu, gpu) = (&m.partitions[0], &m.partitions[1]);
        assert_eq!((cpu.cores(), cpu.memory_gb(), cpu.gpus()), (64, 256.0, 0));
        assert_eq!((gpu.cores(), gpu.gpus()), (8, 8));
        assert_eq!(cpu.nodes[1].name, "group1");
        // Once a partition lists its numbers, a default without a list takes what no
        // partition lists.
        assert!(cpu.swf.is_empty());
        assert_eq!(
            [1, 2, 5, 3, -1].map(|n| m.partition_of(n)),
            [Some(0), Some(1), Some(1), Some(0), Some(0)]
        );
        assert_eq!(m.cores(), 72);
        // Today's machine runs every job in its one partition.
        let single = Machine::single(128);
        assert_eq!(single.cores(), 128);
        assert_eq!([1, 7, -1].map(|n| single.partition_of(n)), [Some(0); 3]);
    }

    #[test]
    fn partitions_without_lists_are_numbered_by_position() {
        let m = parse(&TWO.replace("swf = [2, 5]\n", "").replace("default = true\n", "")).unwrap();
        assert_eq!(
            (m.partitions[0].swf.clone(), m.partitions[1].swf.clone()),
            (vec![1], vec![2])
        );
        let e = parse(&TWO.replace("default = true\n", ""))
            .unwrap_err()
            .to_string();
        assert!(e.contains("partition[0]: runs no job"), "{e}");
    }

    #[test]
    fn without_a_default_a_number_no_partition_lists_has_no_partition() {
        let m = parse(&TWO.replace("default = true\n", "swf = [1]\n")).unwrap();
        assert_eq!(
            [1, 2, 3, -1].map(|n| m.partition_of(n)),
            [Some(0), Some(1), None, None]
        );
    }

    /// Each refusal names the file and the key, in the user's words.
    #[test]
    fn bad_descriptions_are_refused_naming_the_key() {
        let cases: [(&str, &str); 13] = [
            ("", "m.toml: no [[partition]]"),
            (
                "[[partition]]\nname = \"a\"\n",
                "partition[0]: no [[partition.nodes]]",
            ),
            (
                "[[partition]]\nname = \"a b\"\n[[partition.nodes]]\ncount = 1\ncores = 1\n",
                "partition[0].name = \"a b\"",
            ),
            (
                &TWO.replace("count = 4", "count = 0"),
                "partition[0].nodes[0].count = 0: expected a whole number from 1 to 1048576",
            ),
            (
                &TWO.replace("cores = 8", "cores = -8"),
                "partition[0].nodes[0].cores = -8",
            ),
            (
                &TWO.replace("gpus = 4", "gpus = 1000"),
                "partition[1].nodes[0].gpus = 1000: expected a whole number from 0 to 64",
            ),
            (
                &TWO.replace("memory_gb = 64", "memory_gb = -1.0"),
                "partition[0].nodes[0].memory_gb = -1",
            ),
            (
                &TWO.replace("default = true", "swf = [1, 2]"),
                "partition[1].swf: partition number 2 is also \"cpu\"'s",
            ),
            (
                &TWO.replace("swf = [2, 5]", "swf = [0]"),
                "partition[1].swf: 0 is not a partition number",
            ),
            (
                &TWO.replace("swf = [2, 5]", "swf = []"),
                "partition[1]: runs no job",
            ),
            (
                &TWO.replace("name = \"gpu\"", "name = \"cpu\""),
                "partition[1].name = \"cpu\": given to two partitions",
            ),
            (
                &TWO.replace("swf = [2, 5]", "swf = [2]\ndefault = true"),
                "default = true in cpu and gpu",
            ),
            (
                &TWO.replace("memory_gb = 64", "memory = 64"),
                "unknown field `memory`",
            ),
        ];
        for (text, expected) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.starts_with("m.toml: ") && e.contains(expected), "{text}\n{e}");
        }
        let huge = TWO.replace("count = 4\ncores = 8", "count = 1048576\ncores = 4096");
        let e = parse(&huge).unwrap_err().to_string();
        assert!(e.contains("cores in all, above the 67108864"), "{e}");
    }

    /// The cap's bound on busy cores, by hand: 10 nodes of 6 cores at 100 W idle and 200 W
    /// busy (16.67 W more a busy core), 1,000 W idle in all.
    #[test]
    fn a_cap_bounds_the_busy_cores() {
        let with = |cap: &str, busy: &str| {
            parse(&format!(
                "[[partition]]\nname = \"p\"\ndefault = true\ncap_w = {cap}\n[[partition.nodes]]\ncount = 10\ncores = 6\n\
                 idle_w = 100\nbusy_w = {busy}\n"
            ))
        };
        let cores = |cap: &str| with(cap, "200").unwrap().partitions[0].usable_cores();
        // The full busy power holds every core (1,000 / 16.67 is 59.999... in floats).
        assert_eq!(cores("2000"), 60);
        assert_eq!(cores("1999.9"), 59);
        assert_eq!(cores("1500"), 30);
        assert_eq!(cores("1016.67"), 1);
        assert_eq!(cores("1e9"), 60);
        let refused = |cap: &str, busy: &str| with(cap, busy).unwrap_err().to_string();
        assert!(refused("1016", "200").contains("below the partition's idle draw plus one busy core"));
        // Nodes that draw the same busy or idle: a cap below that draw holds no job.
        assert!(refused("500", "100").contains("below the partition's idle draw"));
        assert_eq!(with("1000", "100").unwrap().partitions[0].usable_cores(), 60);
        assert!(refused("-5", "200").contains("expected watts above 0"));
    }

    /// `power_cap`, by hand: the same 10 nodes (2,000 W at the peak). 75% is 1,500 W, 30
    /// busy cores, as the file's `cap_w = 1500` gives; 100% holds every core.
    #[test]
    fn a_power_cap_is_a_share_of_each_partitions_peak() {
        let text = "[[partition]]\nname = \"p\"\ndefault = true\n[[partition.nodes]]\ncount = 10\ncores = 6\n\
                    idle_w = 100\nbusy_w = 200\n";
        let machine = parse(text).unwrap();
        let capped = machine.with_power_cap(0.75).unwrap();
        assert_eq!(capped.partitions[0].cap_w, Some(1500.0));
        assert_eq!(capped.partitions[0].usable_cores(), 30);
        let file = parse(&text.replace("default = true\n", "default = true\ncap_w = 1500\n")).unwrap();
        assert_eq!(capped, file);
        assert_eq!(
            machine.with_power_cap(1.0).unwrap().partitions[0].usable_cores(),
            60
        );
        // Half the peak is the idle draw: no core may be busy.
        assert!(
            machine
                .with_power_cap(0.5)
                .unwrap_err()
                .to_string()
                .contains("below the partition's idle draw")
        );
        assert!(
            file.with_power_cap(0.9)
                .unwrap_err()
                .to_string()
                .contains("already has cap_w = 1500")
        );
        let unpowered =
            parse("[[partition]]\nname = \"p\"\ndefault = true\n[[partition.nodes]]\ncount = 2\ncores = 4\n")
                .unwrap();
        assert!(
            unpowered
                .with_power_cap(0.9)
                .unwrap_err()
                .to_string()
                .contains("needs a machine that describes its power")
        );
    }

    /// Read into the machine's columns, a job's memory per processor is field 10, else
    /// field 7, in one column: the request is the one read from every column.
    #[test]
    fn the_machines_columns_hold_the_memory_a_request_reads() {
        use crate::workload::{Columns, JobRecord};
        let records: Vec<JobRecord> = [(2048, 1024), (-1, 512), (0, 256), (-1, -1)]
            .iter()
            .map(|&(requested, used)| JobRecord {
                requested_memory: requested,
                used_memory: used,
                ..JobRecord::new(1, 0, 10, 4, 10)
            })
            .collect();
        let (mut lean, mut every) = (Jobs::default(), Jobs::default());
        for r in &records {
            lean.push_columns(r, Columns::Machine);
            every.push_columns(r, Columns::Every);
        }
        assert_eq!(lean.requested_memory, [2048, 512, 256, -1]);
        assert!(lean.used_memory.is_empty());
        for j in 0..records.len() {
            assert_eq!(memory_per_processor(&lean, j), memory_per_processor(&every, j));
            assert_eq!(Machine::memory_of(&lean, j), Machine::memory_of(&every, j));
        }
        assert_eq!(memory_per_processor(&lean, 2), 256);
    }
}
