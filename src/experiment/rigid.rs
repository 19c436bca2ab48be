//! Rigid jobs on a space-shared machine under a scheduler (and a runtime predictor): a
//! real trace replayed, or the Downey model, with utility functions on traces (Lee &
//! Snavely): its parameters, split into the workload half and the policy half. Running
//! it is [`super::prepare`]'s.

use std::path::PathBuf;
use std::sync::Arc;

use crate::Time;
use crate::carbon::{Carbon, CarbonHold, Intensity, MAX_CARBON_SLACK};
use crate::experiment::Sources;
use crate::machine::Machine;
use crate::machine::gpu_share::{GpuShare, MAX_CORES_PER_GPU};
use crate::machine::memory_pressure::{
    DEFAULT_MEMORY_SIGMA, MAX_MEMORY_PRESSURE, MAX_MEMORY_SIGMA, MemoryPressure,
};
use crate::params::{Key, ParamError, Params, Value, policy, workload};
use crate::predict::PredictorKind;
use crate::sched::{NodePolicy, SchedulerKind};
use crate::sim::Window;
use crate::utility::{Augmentation, PriorityMap, UtilityModel};
use crate::workload::Columns;
use crate::workload::estimates::Tsafrir;
use crate::workload::resample::{Resample, UserResampling};
use crate::workload::selection::JobRange;
use crate::workload::swf::SwfOptions;
use crate::workload::synth::{MODEL_NAMES, Model};
use crate::workload::{MAX_PROCS, Selection};

/// The scheduler and predictor leave the workload alone.
pub const POLICY_KEYS: [Key; 2] = [policy("scheduler"), policy("predictor")];

/// The machine the jobs run on and the policies that change it, for a trace and a model
/// alike: `machine` shapes the workload (which jobs fit, and a model's size); the rest are
/// policies, whose cells replay the same workloads: `power_cap`, `power_cap_series` and
/// `switch_off_after`, which cap the machine and switch its idle nodes off; `gpu_share`,
/// `cores_per_gpu`, `memory_pressure` and `memory_sigma`, which read what jobs ask of a
/// node off the replication's own draws (a GPU job at one share is one at every higher
/// share; a job's memory grows in proportion to the pressure), so that such cells can be
/// compared in pairs.
pub const MACHINE_KEYS: [Key; 11] = [
    workload("machine"),
    policy("power_cap"),
    policy("power_cap_series"),
    policy("power_cap_period"),
    policy("power_cap_offset"),
    policy("switch_off_after"),
    policy("keep_on"),
    policy("gpu_share"),
    policy("cores_per_gpu"),
    policy("memory_pressure"),
    policy("memory_sigma"),
];

/// A trace and how to read, scale and augment it; all shape the workload but `feedback`,
/// which changes when jobs arrive, not which jobs are drawn. With [`MACHINE_KEYS`], the
/// carbon-intensity series, read at the trace's clock: `carbon_hold` and `carbon_slack`
/// hold jobs back while the grid is dirty.
pub const TRACE_KEYS: [Key; 29] = [
    workload("trace"),
    workload("procs"),
    policy("carbon_hold"),
    policy("carbon_slack"),
    workload("carbon"),
    workload("carbon_offset"),
    workload("carbon_period"),
    workload("load"),
    workload("load_scale"),
    workload("resample"),
    workload("shake_jitter"),
    workload("resample_weeks"),
    workload("long_term_weeks"),
    workload("users_scale"),
    workload("jobs"),
    workload("first"),
    workload("priorities"),
    workload("decay"),
    workload("deadline_factor"),
    workload("deadline_from"),
    workload("utility_points"),
    workload("globmax"),
    workload("utility_sd"),
    workload("start_bin"),
    workload("exact_estimates"),
    workload("estimates"),
    workload("max_estimate"),
    workload("lenient"),
    policy("feedback"),
];

/// The utility generator's parameters (with `priorities` on a trace).
const UTILITY_MODEL_KEYS: [&str; 7] = [
    "decay",
    "start_bin",
    "deadline_factor",
    "deadline_from",
    "utility_points",
    "globmax",
    "utility_sd",
];

/// A trace to replay.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSource {
    pub path: PathBuf,
    /// Machine size, the job selection and whether malformed lines are skipped.
    pub options: SwfOptions,
    /// Target offered load: inter-arrival times are scaled to reach it.
    pub load: Option<f64>,
    /// Inter-arrival times are multiplied by this.
    pub load_scale: Option<f64>,
    /// Each replication's new workload (input shaking or user-based resampling,
    /// `workload::resample`); `None` replays the trace as recorded.
    pub resample: Option<Resample>,
    /// Estimates from Tsafrir's model, drawn per replication, instead of the logged ones.
    pub estimates: Option<Tsafrir>,
    /// A carbon-intensity series (`carbon = "file.csv"`) and the offset from the trace's
    /// clock to its own (`carbon_offset`, seconds), for the carbon of a run on a machine
    /// with a power model.
    /// With it, jobs may be held back while the grid is dirty (`carbon_hold`, `carbon_slack`).
    pub carbon: Option<Arc<Carbon>>,
}

/// Where a rigid experiment's jobs come from.
#[derive(Clone, Debug)]
pub enum Source {
    Model(Model),
    Trace(TraceSource),
}

/// What a rigid experiment's replications replay: where the jobs come from and what each
/// replication does to them (its half of the experiment that the scheduler does not touch).
#[derive(Clone, Debug)]
pub struct WorkloadSpec {
    pub source: Source,
    /// The machine of partitions the jobs run on (`machine = "file.toml"`); `None`: one
    /// pool of `procs` (or the trace's MaxProcs) processors.
    pub machine: Option<Arc<Machine>>,
    /// GPU jobs drawn per replication on a machine with GPUs (`gpu_share`,
    /// `cores_per_gpu`), for jobs that record none.
    pub gpu_share: Option<GpuShare>,
    /// Memory per processor drawn per replication on a machine that describes memory
    /// (`memory_pressure`, `memory_sigma`), for jobs that record none.
    pub memory_pressure: Option<MemoryPressure>,
    /// Priorities and utility functions, generated per replication (traces).
    pub augmentation: Option<Augmentation>,
    /// Requested times set to the runtimes, after the utility functions (traces).
    pub exact_estimates: bool,
    /// Users' sessions inferred from the log, and each session's next job released by its
    /// predecessor's end in the simulation (traces; `crate::sim::feedback`).
    pub feedback: bool,
}

/// A rigid experiment: a workload and the policy that schedules it.
#[derive(Clone, Debug)]
pub struct Rigid {
    pub workload: WorkloadSpec,
    pub scheduler: SchedulerKind,
    /// On a machine, each partition's scheduler: its own (`scheduler` in its
    /// `[[partition]]`), else `scheduler`. Empty without a machine.
    pub partition_schedulers: Vec<SchedulerKind>,
    /// Runtime predictor, for schedulers that use one.
    pub predictor: Option<PredictorKind>,
}

/// `model` and a model's own `keys`, each shaping the workload (docs/semantics.md).
pub fn model_keys(keys: &[&'static str]) -> Vec<Key> {
    std::iter::once(workload("model"))
        .chain(keys.iter().map(|&k| workload(k)))
        .collect()
}

/// The model `model` names, from its keys; any other key but `extra` is refused. With a
/// measurement window, enough jobs for it are generated unless `jobs` says otherwise. On a
/// machine, its size is the cores of the partition its jobs run in (`size`, [`model_size`]).
pub(crate) fn model(
    params: &Params,
    extra: &[Key],
    window: Option<&Window>,
    size: Option<u32>,
) -> Result<Model, ParamError> {
    let name = params.text("model").unwrap_or_default();
    let Some(own) = Model::keys_of(&name) else {
        return Err(ParamError::Invalid(format!(
            "model = '{name}': unknown; allowed: {}",
            MODEL_NAMES.join(", ")
        )));
    };
    let keys = model_keys(own);
    let allowed: Vec<Key> = extra.iter().chain(&keys).copied().collect();
    params.only(&allowed, &format!("model {name}"))?;
    // The model's own keys, in its order (lublin's max_estimate after estimates).
    let mut model_params: Vec<(String, String)> = keys[1..]
        .iter()
        .filter_map(|k| params.get(k.name).map(|v| (k.name.to_string(), v.to_string())))
        .collect();
    if let Some(procs) = size {
        model_params.push(("procs".into(), procs.to_string()));
    }
    if let Some(w) = window {
        let needed = w.measured.end + w.saturation.unwrap_or(0);
        match params.get("jobs") {
            Some(Value::Int(n)) if (*n as usize) < needed => {
                return Err(ParamError::Invalid(format!(
                    "jobs = {n}: the measure window and saturation bound need {needed} jobs"
                )));
            }
            Some(_) => {}
            None => model_params.push(("jobs".into(), needed.to_string())),
        }
    }
    Model::from_name(&name, &model_params).map_err(|e| ParamError::Invalid(e.to_string()))
}

/// The utility parameters of a trace: `None` without `priorities`.
pub fn augmentation(params: &Params) -> Result<Option<Augmentation>, ParamError> {
    let Some(map) = params.get("priorities") else {
        if let Some(k) = UTILITY_MODEL_KEYS.iter().find(|k| params.has(k)) {
            return Err(ParamError::Invalid(format!(
                "{k}: utility parameters need priorities (e.g. \"sdsc-blue\")"
            )));
        }
        return Ok(None);
    };
    let mut model = UtilityModel::default();
    if let Some(v) = params.text("decay") {
        model.decay = v.parse()?;
    }
    if let Some(v) = params.text("deadline_from") {
        model.deadline_from = v.parse()?;
    }
    if let Some(v) = params.text("start_bin") {
        model.start_bin = v.parse()?;
    }
    model.deadline_factor = params.number("deadline_factor", model.deadline_factor)?;
    model.globmax = params.number("globmax", model.globmax)?;
    model.sd = params.number("utility_sd", model.sd)?;
    model.points = match params.get("utility_points") {
        None => model.points,
        Some(Value::Int(i)) if *i >= 0 => *i as usize,
        Some(v) => {
            return Err(ParamError::BadValue {
                key: "utility_points".into(),
                value: v.to_string(),
                expected: "a whole number".into(),
            });
        }
    };
    model.validate()?;
    let priorities: PriorityMap = map.to_string().parse()?;
    Ok(Some(Augmentation { priorities, model }))
}

/// The scheduler and predictor of a rigid run.
fn policies(params: &Params) -> Result<(SchedulerKind, Option<PredictorKind>), ParamError> {
    let scheduler: SchedulerKind = match params.get("scheduler") {
        Some(Value::Str(s)) => s.parse()?,
        Some(other) => {
            return Err(ParamError::Invalid(format!(
                "scheduler = {other}: expected one of {}",
                SchedulerKind::NAMES.join(", ")
            )));
        }
        None => {
            return Err(ParamError::Invalid(format!(
                "scheduler: not set; set it in [run] or [axes] to one of {}",
                SchedulerKind::NAMES.join(", ")
            )));
        }
    };
    let predictor = match params.get("predictor") {
        None => None,
        Some(v) => {
            let kind: PredictorKind = v.to_string().parse()?;
            super::predictor_for(scheduler, kind)?
        }
    };
    Ok((scheduler, predictor))
}

/// `resample` and the keys of the method it names.
fn resample(params: &Params) -> Result<Option<Resample>, ParamError> {
    let method = params.text("resample");
    let only = |keys: &[&str]| -> Result<(), ParamError> {
        let all = ["shake_jitter", "resample_weeks", "long_term_weeks", "users_scale"];
        match all.iter().find(|k| !keys.contains(k) && params.has(k)) {
            Some(k) => {
                let needs = if *k == "shake_jitter" { "shake" } else { "users" };
                Err(ParamError::Invalid(format!(
                    "{k}: applies with resample = \"{needs}\""
                )))
            }
            None => Ok(()),
        }
    };
    let bad = |key: &str, value: String, expected: &str| ParamError::BadValue {
        key: key.into(),
        value,
        expected: expected.into(),
    };
    match method.as_deref() {
        None | Some("none") => {
            only(&[])?;
            Ok(None)
        }
        Some("shake") => {
            only(&["shake_jitter"])?;
            let jitter = params
                .whole("shake_jitter")?
                .unwrap_or(crate::workload::resample::DEFAULT_SHAKE_JITTER as u64);
            if !(1..=86_400).contains(&jitter) {
                return Err(bad(
                    "shake_jitter",
                    jitter.to_string(),
                    "a whole number of seconds from 1 to 86400",
                ));
            }
            Ok(Some(Resample::Shake(jitter as crate::Time)))
        }
        Some("users") => {
            only(&["resample_weeks", "long_term_weeks", "users_scale"])?;
            let mut users = UserResampling::default();
            if let Some(w) = params.whole("resample_weeks")? {
                if !(1..=1_000).contains(&w) {
                    return Err(bad(
                        "resample_weeks",
                        w.to_string(),
                        "a whole number of weeks from 1 to 1000 (about 19 years)",
                    ));
                }
                users.weeks = Some(w as u32);
            }
            if let Some(w) = params.whole("long_term_weeks")? {
                users.long_term_weeks = w.min(u32::MAX as u64) as u32;
            }
            if let Some(s) = params.positive("users_scale")? {
                if s > 100.0 {
                    return Err(bad(
                        "users_scale",
                        s.to_string(),
                        "a number above 0 and at most 100",
                    ));
                }
                users.users_scale = s;
            }
            Ok(Some(Resample::Users(users)))
        }
        Some(other) => Err(bad("resample", other.into(), "none, shake or users")),
    }
}

/// A trace replay's source, its path relative to `sources.dir`; any other key but `extra` is
/// refused.
fn trace(
    params: &Params,
    sources: Sources<'_>,
    extra: &[Key],
    machine: Option<&Machine>,
) -> Result<TraceSource, ParamError> {
    let keys: Vec<Key> = extra.iter().chain(&TRACE_KEYS).copied().collect();
    params.only(&keys, "a trace")?;
    let trace = params.text("trace").unwrap_or_default();
    let path = sources.dir.join(&trace);
    if !path.is_file() {
        let what = if path.exists() {
            "is not a file"
        } else {
            "does not exist"
        };
        return Err(ParamError::Invalid(format!(
            "trace = '{trace}': {} {what}",
            path.display()
        )));
    }
    let jobs = match params.text("jobs") {
        None => None,
        Some(r) => Some(
            r.parse::<JobRange>()
                .map_err(|e| ParamError::Invalid(format!("jobs: {e}")))?,
        ),
    };
    let load = params.within("load", &crate::workload::LOAD_RANGE)?;
    let load_scale = params.positive("load_scale")?;
    if load.is_some() && load_scale.is_some() {
        return Err(ParamError::Invalid(
            "load and load_scale both scale a trace; choose one".to_string(),
        ));
    }
    let resample = resample(params)?;
    let estimates = trace_estimates(params)?;
    let procs = match params.whole("procs")? {
        Some(p) if p > MAX_PROCS as u64 => {
            return Err(ParamError::Invalid(format!(
                "procs = {p}: at most {MAX_PROCS} processors"
            )));
        }
        p => p.map(|p| p as u32),
    };
    let carbon = carbon(params, sources, machine)?;
    // On a machine the reader keeps every job, whatever the trace's MaxProcs: placing them
    // on the partitions (`Machine::place`) skips those no partition runs, then those wider
    // than their partition.
    let procs = procs.or(machine.as_ref().map(|_| MAX_PROCS));
    Ok(TraceSource {
        path,
        options: SwfOptions {
            procs,
            selection: Selection {
                range: jobs,
                first: params.whole("first")?.map(|n| n as usize),
            },
            lenient: params.flag("lenient", false)?,
            columns: Columns::Every,
        },
        load,
        load_scale,
        resample,
        estimates,
        carbon,
    })
}

/// A trace's estimates: as logged, or Tsafrir's model with its `max_estimate`.
fn trace_estimates(params: &Params) -> Result<Option<Tsafrir>, ParamError> {
    match params.text("estimates").as_deref() {
        None | Some("logged") => {
            if params.has("max_estimate") {
                return Err(ParamError::Invalid(
                    "max_estimate: applies with estimates = \"tsafrir\"".to_string(),
                ));
            }
            Ok(None)
        }
        Some("tsafrir") => {
            let model = Tsafrir {
                max_estimate: params
                    .whole("max_estimate")?
                    .map(|m| m.min(i64::MAX as u64) as i64),
            };
            model
                .validate("max_estimate")
                .map_err(|e| ParamError::Invalid(e.to_string()))?;
            Ok(Some(model))
        }
        Some(other) => Err(ParamError::BadValue {
            key: "estimates".into(),
            value: other.into(),
            expected: "logged or tsafrir".into(),
        }),
    }
}

/// The machine the jobs run on: the sweep spec's inline machine of that name, or its file,
/// with the policies that change it (a power cap, switching idle nodes off); `None` for one
/// pool of processors (the trace's, or `procs`).
fn machine(params: &Params, sources: Sources<'_>) -> Result<Option<Arc<Machine>>, ParamError> {
    let machine = match params.text("machine") {
        None => None,
        Some(_) if params.has("procs") => {
            return Err(ParamError::Invalid(
                "machine and procs both size the machine; choose one".to_string(),
            ));
        }
        // A machine the sweep spec describes inline, by its name, before any file.
        Some(name) if sources.machines.contains_key(&name) => Some(Arc::clone(&sources.machines[&name])),
        Some(file) => {
            let machine = Machine::read(&sources.dir.join(&file))
                .map_err(|e| ParamError::Invalid(format!("machine = '{file}': {e}")))?;
            Some(Arc::new(machine))
        }
    };
    // A cap is a policy (like the scheduler): cells that differ in it replay the same
    // workloads.
    let machine = match (params.within("power_cap", &(0.0..=1.0))?, machine) {
        (None, machine) => machine,
        (Some(_), None) => {
            return Err(ParamError::Invalid(
                "power_cap: needs a machine that describes its power (machine = \"FILE.toml\" whose node \
                 groups give idle_w and busy_w)"
                    .into(),
            ));
        }
        (Some(fraction), Some(m)) => Some(Arc::new(m.with_power_cap(fraction)?)),
    };
    switch_off(params, cap_over_time(params, sources, machine)?)
}

/// `machine` capped at each step's share of its peak over time (`power_cap_series =
/// "FILE.csv"`, repeated every `power_cap_period` seconds and read at the trace's time plus
/// `power_cap_offset`, [`crate::machine::cap::CapOverTime`]); as it is without the key.
fn cap_over_time(
    params: &Params,
    sources: Sources<'_>,
    machine: Option<Arc<Machine>>,
) -> Result<Option<Arc<Machine>>, ParamError> {
    let Some(file) = params.text("power_cap_series") else {
        if params.has("power_cap_period") || params.has("power_cap_offset") {
            return Err(ParamError::Invalid(
                "power_cap_period and power_cap_offset: apply with power_cap_series = \"FILE.csv\"".into(),
            ));
        }
        return Ok(machine);
    };
    if params.has("power_cap") {
        return Err(ParamError::Invalid(
            "power_cap and power_cap_series both cap the machine; give one or the other".into(),
        ));
    }
    let Some(m) = machine else {
        return Err(ParamError::Invalid(
            "power_cap_series: needs a machine that describes its power (machine = \"FILE.toml\" whose node \
             groups give idle_w and busy_w)"
                .into(),
        ));
    };
    let mut fractions = crate::machine::cap::read_fractions(&sources.dir.join(&file))
        .map_err(|e| ParamError::Invalid(format!("power_cap_series = '{file}': {e}")))?;
    let (period, offset) = crate::series::period_and_offset(params, "power_cap")?;
    if let Some(p) = period {
        fractions = fractions.repeating("power_cap_period", p)?;
    }
    Ok(Some(Arc::new(m.with_cap_over_time(&fractions, offset)?)))
}

/// `machine` switching its idle nodes off after `switch_off_after` seconds, keeping
/// `keep_on` of them on; as it is without the key or with "never".
fn switch_off(params: &Params, machine: Option<Arc<Machine>>) -> Result<Option<Arc<Machine>>, ParamError> {
    // Switching idle nodes off is a policy too; "never" (nodes stay on, as without the
    // key) lets a sweep's axis hold the machine without it.
    let switch_off_after = match params.get("switch_off_after") {
        None => None,
        Some(Value::Str(s)) if s == "never" => {
            if let Some(p) = machine
                .iter()
                .flat_map(|m| &m.partitions)
                .find(|p| p.switch_off.is_some())
            {
                return Err(ParamError::Invalid(format!(
                    "switch_off_after = \"never\": partition {} already has switch_off_after in its machine \
                     file; give one or the other",
                    p.name
                )));
            }
            None
        }
        Some(Value::Int(t)) if (1..=crate::machine::MAX_SWITCH_SECONDS).contains(t) => Some(*t as u64),
        Some(v) => {
            return Err(ParamError::BadValue {
                key: "switch_off_after".into(),
                value: v.to_string(),
                expected: format!(
                    "whole seconds from 1 to {}, or \"never\"",
                    crate::machine::MAX_SWITCH_SECONDS
                ),
            });
        }
    };
    let machine = match (switch_off_after, machine) {
        (None, machine) => machine,
        (Some(_), None) => {
            return Err(ParamError::Invalid(
                "switch_off_after: needs a machine whose nodes describe their power and switching \
                 (machine = \"FILE.toml\" whose node groups give idle_w, busy_w, off_w, shutdown_s, shutdown_w, \
                 boot_s and boot_w)"
                    .into(),
            ));
        }
        (Some(after), Some(m)) => {
            let after = Time::try_from(after).unwrap_or(Time::MAX);
            let keep_on = match params.get("keep_on") {
                None => 0,
                Some(Value::Int(n)) if (0..=crate::machine::MAX_NODES as i64).contains(n) => *n as u32,
                Some(v) => {
                    return Err(ParamError::BadValue {
                        key: "keep_on".into(),
                        value: v.to_string(),
                        expected: format!("a whole number of nodes from 0 to {}", crate::machine::MAX_NODES),
                    });
                }
            };
            Some(Arc::new(m.with_switch_off(after, keep_on)?))
        }
    };
    if params.has("keep_on") && switch_off_after.is_none() {
        return Err(ParamError::Invalid(
            "keep_on: applies with switch_off_after = SECONDS (a machine file gives its own keep_on)".into(),
        ));
    }
    Ok(machine)
}

/// Sharing a node's GPUs between jobs (`gpu_share`, `cores_per_gpu`), on a machine with GPUs.
fn gpu_share(params: &Params, machine: Option<&Machine>) -> Result<Option<GpuShare>, ParamError> {
    let share = match params.within("gpu_share", &(0.0..=1.0))? {
        None if params.has("cores_per_gpu") => {
            return Err(ParamError::Invalid(
                "cores_per_gpu: applies with gpu_share".into(),
            ));
        }
        None => None,
        Some(_) if machine.as_ref().is_none_or(|m| m.gpus() == 0) => {
            return Err(ParamError::Invalid(
                "gpu_share: needs a machine with GPUs (machine = \"FILE.toml\" whose node groups give gpus)"
                    .into(),
            ));
        }
        Some(share) => {
            let cores_per_gpu = match params.whole("cores_per_gpu")? {
                Some(c) if c > MAX_CORES_PER_GPU as u64 => {
                    return Err(ParamError::Invalid(format!(
                        "cores_per_gpu = {c}: at most {MAX_CORES_PER_GPU}"
                    )));
                }
                c => c.map(|c| c as u32),
            };
            Some(GpuShare { share, cores_per_gpu })
        }
    };
    Ok(share)
}

/// Memory per processor drawn for jobs (`memory_pressure`, `memory_sigma`), on a machine
/// whose nodes describe memory.
fn memory_pressure(params: &Params, machine: Option<&Machine>) -> Result<Option<MemoryPressure>, ParamError> {
    let Some(pressure) = params.within("memory_pressure", &(0.0..=MAX_MEMORY_PRESSURE))? else {
        if params.has("memory_sigma") {
            return Err(ParamError::Invalid(
                "memory_sigma: applies with memory_pressure".into(),
            ));
        }
        return Ok(None);
    };
    let describes_memory = |m: &Machine| {
        m.partitions
            .iter()
            .any(|p| p.nodes.iter().any(|g| g.memory_gb > 0.0))
    };
    if !machine.is_some_and(describes_memory) {
        return Err(ParamError::Invalid(
            "memory_pressure: needs a machine whose nodes describe their memory (machine = \"FILE.toml\" \
             whose node groups give memory_gb)"
                .into(),
        ));
    }
    let sigma = params
        .within("memory_sigma", &(0.0..=MAX_MEMORY_SIGMA))?
        .unwrap_or(DEFAULT_MEMORY_SIGMA);
    Ok(Some(MemoryPressure { pressure, sigma }))
}

/// A model's size on `machine`: the cores of the partition its jobs, which name none, run
/// in (the one with `default = true`).
fn model_size(machine: &Machine) -> Result<u32, ParamError> {
    let Some(p) = machine.partition_of(-1) else {
        return Err(ParamError::Invalid(
            "machine: a model's jobs name no partition, so they run in the partition with default = true; \
             this machine has none"
                .into(),
        ));
    };
    let cores = machine.partitions[p].cores();
    u32::try_from(cores)
        .ok()
        .filter(|&c| c <= MAX_PROCS)
        .ok_or_else(|| {
            ParamError::Invalid(format!(
                "machine: partition {} has {cores} cores; a model runs on at most {MAX_PROCS}",
                machine.partitions[p].name
            ))
        })
}

/// The carbon-intensity series of a run on a machine with a power model, its offset from
/// the trace's clock, and the holding policy (`carbon_hold`, `carbon_slack`).
fn carbon(
    params: &Params,
    sources: Sources<'_>,
    machine: Option<&Machine>,
) -> Result<Option<Arc<Carbon>>, ParamError> {
    let carbon = match params.text("carbon") {
        None if params.has("carbon_offset") || params.has("carbon_period") => {
            return Err(ParamError::Invalid(
                "carbon_offset and carbon_period: apply with carbon = \"FILE.csv\"".into(),
            ));
        }
        None => None,
        Some(_) if !machine.as_ref().is_some_and(|m| m.has_power()) => {
            return Err(ParamError::Invalid(
                "carbon: needs a machine that describes its power (machine = \"FILE.toml\" whose node groups \
                 give idle_w and busy_w)"
                    .into(),
            ));
        }
        Some(file) => {
            let mut series = Intensity::read(&sources.dir.join(&file))
                .map_err(|e| ParamError::Invalid(format!("carbon = '{file}': {e}")))?;
            let (period, offset) = crate::series::period_and_offset(params, "carbon")?;
            if let Some(p) = period {
                series = series.repeating(p)?;
            }
            Some((series, offset))
        }
    };
    let hold = match (params.get("carbon_hold"), params.get("carbon_slack")) {
        (None, None) => None,
        (Some(_), None) | (None, Some(_)) => {
            return Err(ParamError::Invalid(
                "carbon_hold and carbon_slack go together: jobs are held while the intensity is above \
                 carbon_hold g/kWh, each for at most carbon_slack seconds"
                    .into(),
            ));
        }
        (Some(_), Some(slack)) => {
            if carbon.is_none() {
                return Err(ParamError::Invalid(
                    "carbon_hold: needs a carbon-intensity series (carbon = \"FILE.csv\")".into(),
                ));
            }
            let threshold = params
                .within("carbon_hold", &(0.0..=crate::carbon::MAX_GRAMS_PER_KWH))?
                .expect("given");
            let slack = match slack {
                Value::Int(t) if (0..=MAX_CARBON_SLACK).contains(t) => *t,
                v => {
                    return Err(ParamError::BadValue {
                        key: "carbon_slack".into(),
                        value: v.to_string(),
                        expected: format!("whole seconds from 0 to {MAX_CARBON_SLACK}"),
                    });
                }
            };
            Some(CarbonHold { threshold, slack })
        }
    };
    let carbon = carbon.map(|(series, offset)| Arc::new(Carbon { series, offset, hold }));
    Ok(carbon)
}

impl WorkloadSpec {
    /// The workload `params` describe, `model = "downey"` (or another model) with its keys
    /// or `trace` (relative to `sources.dir`) with its own; any other key is refused.
    pub fn from_params(
        params: &Params,
        sources: Sources<'_>,
        window: Option<&Window>,
    ) -> Result<Self, ParamError> {
        workload_spec(params, sources, window, &[])
    }

    /// The machine of partitions the jobs run on, if one is given.
    pub fn machine(&self) -> Option<&Machine> {
        self.machine.as_deref()
    }

    /// The columns a run of this workload on a trace reads: every one when it generates
    /// priorities and utility functions or infers sessions; else those a simulation reads
    /// (resampled or not), with those a machine reads when it places jobs on a machine's
    /// partitions.
    pub fn columns_read(&self) -> Columns {
        match &self.source {
            // Resampling reads and writes only simulated columns (the submit times and users,
            // and the sessions it clears where they are kept).
            Source::Trace(_) if self.augmentation.is_none() && !self.feedback => match self.machine {
                Some(_) => Columns::Machine,
                None => Columns::Simulated,
            },
            _ => Columns::Every,
        }
    }
}

/// The workload `params` describe, refusing keys that are neither the workload's nor
/// `extra`.
fn workload_spec(
    params: &Params,
    sources: Sources<'_>,
    window: Option<&Window>,
    extra: &[Key],
) -> Result<WorkloadSpec, ParamError> {
    match (params.has("model"), params.has("trace")) {
        (true, true) => {
            return Err(ParamError::Invalid(
                "run has both model and trace; choose one".to_string(),
            ));
        }
        (false, false) => {
            return Err(ParamError::Invalid(
                "run needs a workload: model = \"downey\" or trace = \"path.swf.gz\"".to_string(),
            ));
        }
        (true, false) | (false, true) => {}
    };
    let machine = machine(params, sources)?;
    let gpu_share = gpu_share(params, machine.as_deref())?;
    let memory_pressure = memory_pressure(params, machine.as_deref())?;
    let extra: Vec<Key> = extra.iter().chain(&MACHINE_KEYS).copied().collect();
    let source = if params.has("model") {
        let size = machine.as_deref().map(model_size).transpose()?;
        Source::Model(model(params, &extra, window, size)?)
    } else {
        Source::Trace(trace(params, sources, &extra, machine.as_deref())?)
    };
    let feedback = params.flag("feedback", false)?;
    if let Source::Trace(TraceSource { carbon: Some(c), .. }) = &source
        && c.hold.is_some()
        && (window.is_some() || feedback)
    {
        // Held jobs reach the scheduler out of trace order, while a window counts jobs in
        // it and feedback times them from their predecessors.
        return Err(ParamError::Invalid(
            "carbon_hold: not built with a measured window or feedback yet".into(),
        ));
    }
    if let Some(m) = &machine
        && feedback
        && m.partitions.len() > 1
    {
        // A user's sessions cross partitions: the partitions would no longer be
        // independent pools.
        return Err(ParamError::Invalid(
            "feedback: not supported on a machine of several partitions yet (a session's jobs \
             may run in different partitions)"
                .to_string(),
        ));
    }
    Ok(WorkloadSpec {
        source,
        machine,
        gpu_share,
        memory_pressure,
        augmentation: augmentation(params)?,
        exact_estimates: params.flag("exact_estimates", false)?,
        feedback,
    })
}

/// Builds a rigid experiment: `scheduler`, `predictor`, and a workload
/// ([`WorkloadSpec::from_params`]).
pub fn from_params(
    params: &Params,
    sources: Sources<'_>,
    window: Option<&Window>,
) -> Result<Rigid, ParamError> {
    let workload = workload_spec(params, sources, window, &POLICY_KEYS)?;
    let (scheduler, predictor) = policies(params)?;
    let partition_schedulers = match workload.machine() {
        Some(m) => {
            let file = params.text("machine").unwrap_or_default();
            partition_schedulers(m, &file, scheduler, workload.augmentation.is_some())?
        }
        None => Vec::new(),
    };
    if workload.feedback
        && let Some(p) = workload
            .machine()
            .and_then(|m| m.partitions.iter().find(|p| p.cap_over_time.is_some()))
    {
        return Err(ParamError::Invalid(format!(
            "feedback: not built under a power cap over time yet (partition {})",
            p.name
        )));
    }
    if let Some(what) = scheduler.needs()
        && workload.augmentation.is_none()
    {
        return Err(ParamError::Invalid(format!(
            "scheduler = {scheduler}: needs {what}; set priorities (e.g. \"sdsc-blue\")"
        )));
    }
    Ok(Rigid {
        workload,
        scheduler,
        partition_schedulers,
        predictor,
    })
}

/// Each partition's scheduler on `machine` (read from `file`): its own, else the run's
/// `scheduler`; refused where a partition's scheduler does not run on what it describes, or
/// needs priorities the jobs lack (`priorities`: whether they have them), naming both.
fn partition_schedulers(
    machine: &Machine,
    file: &str,
    scheduler: SchedulerKind,
    priorities: bool,
) -> Result<Vec<SchedulerKind>, ParamError> {
    machine
        .partitions
        .iter()
        .map(|p| {
            // Where the partition names its own, the message says so.
            let (kind, whose) = match &p.scheduler {
                None => (scheduler, String::new()),
                Some(text) => {
                    let whose = format!("machine {file}: partition {}: ", p.name);
                    let kind = text
                        .parse::<SchedulerKind>()
                        .map_err(|e| ParamError::Invalid(format!("{whose}{e}")))?;
                    (kind, whose)
                }
            };
            if let (Some(what), false, false) = (kind.needs(), priorities, whose.is_empty()) {
                return Err(ParamError::Invalid(format!(
                    "{whose}scheduler = {kind}: needs {what}; set priorities (e.g. \"sdsc-blue\")"
                )));
            }
            if p.needs_nodes() && kind.node_policy().is_none() {
                return Err(ParamError::Invalid(format!(
                    "{whose}scheduler = {kind}: does not run on nodes yet (partition {} describes memory, \
                     GPUs or whole nodes); {} do",
                    p.name,
                    SchedulerKind::names_on_nodes(|_| true).join(", ")
                )));
            }
            if p.cap_over_time.is_some() && !kind.node_policy().is_some_and(NodePolicy::runs_capped) {
                return Err(ParamError::Invalid(format!(
                    "{whose}scheduler = {kind}: not built under a power cap over time yet (partition {}); {} are",
                    p.name,
                    SchedulerKind::names_on_nodes(NodePolicy::runs_capped).join(", ")
                )));
            }
            if p.switch_off.is_some() && !kind.counts_boots() {
                return Err(ParamError::Invalid(format!(
                    "{whose}scheduler = {kind}: its reservations do not leave room for boots yet (partition {} \
                     switches idle nodes off); {} do",
                    p.name,
                    SchedulerKind::names_counting_boots().join(", ")
                )));
            }
            Ok(kind)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model's keys are `model` and the ones its parameters take, in the same order,
    /// all shaping the workload; a name no model is registered under has none.
    #[test]
    fn model_keys_are_the_models_keys() {
        for name in MODEL_NAMES {
            let own = Model::keys_of(name).unwrap();
            let keys = model_keys(own);
            let names: Vec<&str> = keys[1..].iter().map(|k| k.name).collect();
            assert_eq!(names, own, "{name}");
            assert!(keys[0].name == "model" && keys.iter().all(|k| k.shapes_workload));
        }
        assert_eq!(
            Model::keys_of("lublin"),
            Some(&crate::workload::synth::lublin::LUBLIN_KEYS[..])
        );
        assert_eq!(Model::keys_of("nope"), None);
    }
}
