//! Rigid jobs on a space-shared machine under a scheduler (and a runtime predictor): a
//! real trace replayed, or the Downey model, with utility functions on traces (Lee &
//! Snavely). The parameters, the workload of each replication, and the run.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::Simulate;
use crate::metrics::Summary;
use crate::params::{Key, ParamError, Params, Value, policy, workload};
use crate::predict::PredictorKind;
use crate::sched::{AnyScheduler, SchedulerKind};
use crate::seed::mix64;
use crate::sim::{Engine, Window};
use crate::utility::{Augmentation, PriorityMap, UtilityModel};
use crate::workload::estimates::Tsafrir;
use crate::workload::resample::{Resample, UserResampling};
use crate::workload::selection::JobRange;
use crate::workload::swf::SwfOptions;
use crate::workload::synth::lublin::LUBLIN_KEYS;
use crate::workload::synth::{MODEL_NAMES, Model};
use crate::workload::{MAX_PROCS, Selection, Workload};

/// The scheduler and predictor leave the workload alone.
pub const POLICY_KEYS: [Key; 2] = [policy("scheduler"), policy("predictor")];

/// `model` and the Downey model's parameters (docs/semantics.md).
pub const DOWNEY_MODEL_KEYS: [Key; 13] = [
    workload("model"),
    workload("procs"),
    workload("rho"),
    workload("load"),
    workload("days"),
    workload("jobs"),
    workload("day_hours"),
    workload("lifetime_min"),
    workload("lifetime_max"),
    workload("parallelism_min"),
    workload("parallelism_max"),
    workload("sigma_min"),
    workload("sigma_max"),
];

/// A trace and how to read, scale and augment it; all shape the workload but `feedback`,
/// which changes when jobs arrive, not which jobs are drawn (so cells with and without it
/// replay the same workloads and can be compared in pairs).
pub const TRACE_KEYS: [Key; 24] = [
    workload("trace"),
    workload("procs"),
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
}

/// Where a rigid experiment's jobs come from.
#[derive(Clone, Debug)]
pub enum Source {
    Model(Model),
    Trace(TraceSource),
}

/// A rigid experiment.
#[derive(Clone, Debug)]
pub struct Rigid {
    pub source: Source,
    pub scheduler: SchedulerKind,
    /// Runtime predictor, for schedulers that use one.
    pub predictor: Option<PredictorKind>,
    /// Priorities and utility functions, generated per replication (traces).
    pub augmentation: Option<Augmentation>,
    /// Requested times set to the runtimes, after the utility functions (traces).
    pub exact_estimates: bool,
    /// Users' sessions inferred from the log, and each session's next job released by its
    /// predecessor's end in the simulation (traces; `crate::sim::feedback`).
    pub feedback: bool,
}

/// `model` and the keys of the model named `name` (docs/semantics.md).
pub fn model_keys(name: &str) -> Vec<Key> {
    match name {
        "lublin" => std::iter::once(workload("model"))
            .chain(LUBLIN_KEYS.iter().map(|&k| workload(k)))
            .collect(),
        _ => DOWNEY_MODEL_KEYS.to_vec(),
    }
}

/// The model `model` names, from its keys; any other key but `extra` is refused. With a
/// measurement window, enough jobs for it are generated unless `jobs` says otherwise.
pub(crate) fn model(params: &Params, extra: &[Key], window: Option<&Window>) -> Result<Model, ParamError> {
    let name = params.text("model").unwrap_or_default();
    if !MODEL_NAMES.contains(&name.as_str()) {
        return Err(format!("model = '{name}': unknown; allowed: {}", MODEL_NAMES.join(", ")).into());
    }
    let keys = model_keys(&name);
    let allowed: Vec<Key> = extra.iter().chain(&keys).copied().collect();
    params.only(&allowed, &format!("model {name}"))?;
    // The model's own keys, in its order (lublin's max_estimate after estimates).
    let mut model_params: Vec<(String, String)> = keys[1..]
        .iter()
        .filter_map(|k| params.get(k.name).map(|v| (k.name.to_string(), v.to_string())))
        .collect();
    if let Some(w) = window {
        let needed = w.measured.end + w.saturation.unwrap_or(0);
        match params.get("jobs") {
            Some(Value::Int(n)) if (*n as usize) < needed => {
                return Err(format!(
                    "jobs = {n}: the measure window and saturation bound need {needed} jobs"
                )
                .into());
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
            return Err(format!("{k}: utility parameters need priorities (e.g. \"sdsc-blue\")").into());
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
            return Err(format!(
                "scheduler = {other}: expected one of {}",
                SchedulerKind::NAMES.join(", ")
            )
            .into());
        }
        None => {
            return Err(format!(
                "scheduler: not set; set it in [run] or [axes] to one of {}",
                SchedulerKind::NAMES.join(", ")
            )
            .into());
        }
    };
    let predictor = match params.get("predictor") {
        None => None,
        Some(v) => {
            let kind: PredictorKind = v.to_string().parse()?;
            super::predictor_for(scheduler, kind)
                .map_err(|e| format!("predictor = {v}: {e}; drop such cells with [[exclude]]"))?
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
                Err(format!("{k}: applies with resample = \"{needs}\"").into())
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

/// A trace replay's source, its paths relative to `base_dir`.
fn trace(params: &Params, base_dir: &Path) -> Result<TraceSource, ParamError> {
    let keys: Vec<Key> = POLICY_KEYS.iter().chain(&TRACE_KEYS).copied().collect();
    params.only(&keys, "a trace")?;
    let trace = params.text("trace").unwrap_or_default();
    let path = base_dir.join(&trace);
    if !path.is_file() {
        let what = if path.exists() {
            "is not a file"
        } else {
            "does not exist"
        };
        return Err(format!("trace = '{trace}': {} {what}", path.display()).into());
    }
    let jobs = match params.text("jobs") {
        None => None,
        Some(r) => Some(r.parse::<JobRange>().map_err(|e| format!("jobs: {e}"))?),
    };
    let load = params.within("load", &crate::workload::LOAD_RANGE)?;
    let load_scale = params.positive("load_scale")?;
    if load.is_some() && load_scale.is_some() {
        return Err("load and load_scale both scale a trace; choose one"
            .to_string()
            .into());
    }
    let resample = resample(params)?;
    let estimates = match params.text("estimates").as_deref() {
        None | Some("logged") => {
            if params.has("max_estimate") {
                return Err("max_estimate: applies with estimates = \"tsafrir\""
                    .to_string()
                    .into());
            }
            None
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
            Some(model)
        }
        Some(other) => {
            return Err(ParamError::BadValue {
                key: "estimates".into(),
                value: other.into(),
                expected: "logged or tsafrir".into(),
            });
        }
    };
    let procs = match params.whole("procs")? {
        Some(p) if p > MAX_PROCS as u64 => {
            return Err(format!("procs = {p}: at most {MAX_PROCS} processors").into());
        }
        p => p.map(|p| p as u32),
    };
    Ok(TraceSource {
        path,
        options: SwfOptions {
            procs,
            selection: Selection {
                range: jobs,
                first: params.whole("first")?.map(|n| n as usize),
            },
            lenient: params.flag("lenient", false)?,
            simulation_only: false,
        },
        load,
        load_scale,
        resample,
        estimates,
    })
}

/// Builds a rigid experiment: `scheduler`, `predictor`, and a workload, `model = "downey"`
/// with its keys or `trace` (relative to `base_dir`) with its own.
pub fn from_params(params: &Params, base_dir: &Path, window: Option<&Window>) -> Result<Rigid, ParamError> {
    let source = match (params.has("model"), params.has("trace")) {
        (true, true) => return Err("run has both model and trace; choose one".to_string().into()),
        (false, false) => {
            return Err(
                "run needs a workload: model = \"downey\" or trace = \"path.swf.gz\""
                    .to_string()
                    .into(),
            );
        }
        (true, false) => Source::Model(model(params, &POLICY_KEYS, window)?),
        (false, true) => Source::Trace(trace(params, base_dir)?),
    };
    let (scheduler, predictor) = policies(params)?;
    let augmentation = augmentation(params)?;
    let needs = match scheduler {
        SchedulerKind::Prio => Some("priorities"),
        SchedulerKind::Ga(_) => Some("utility functions"),
        _ => None,
    };
    if let Some(what) = needs
        && augmentation.is_none()
    {
        return Err(
            format!("scheduler = {scheduler}: needs {what}; set priorities (e.g. \"sdsc-blue\")").into(),
        );
    }
    Ok(Rigid {
        source,
        scheduler,
        predictor,
        augmentation,
        exact_estimates: params.flag("exact_estimates", false)?,
        feedback: params.flag("feedback", false)?,
    })
}

/// Multiplies inter-arrival times by `factor`, keeping the first submit where it is.
fn scale_arrivals(w: &Workload, factor: f64) -> Workload {
    let mut scaled = w.clone();
    let first = w.jobs.submit.first().copied().unwrap_or(0);
    for s in &mut scaled.jobs.submit {
        *s = first + ((*s - first) as f64 * factor).round() as i64;
    }
    scaled
}

/// Refuses a factor on `w`'s inter-arrival times that asks (`asked`, in the user's words)
/// for a load outside [`LOAD_RANGE`](crate::workload::LOAD_RANGE) or takes a submit time
/// past [`MAX_TIME`](crate::workload::MAX_TIME), before anything is simulated.
fn check_scale(w: &Workload, path: &Path, offered: f64, factor: f64, asked: &str) -> crate::Result<()> {
    let range = crate::workload::LOAD_RANGE;
    let refuse = |message: String| {
        Err(crate::Error::Workload {
            path: path.to_path_buf(),
            message: format!("{asked}: {message}"),
        })
    };
    // Four decimals where that reads well, else scientific notation.
    let number = |x: f64| {
        if (1e-3..1e6).contains(&x.abs()) {
            format!("{}", (x * 1e4).round() / 1e4)
        } else {
            format!("{x:.3e}")
        }
    };
    let implied = offered / factor;
    if offered > 0.0 && !range.contains(&implied) {
        return refuse(format!(
            "the trace's offered load {} would become {}, outside {} to {}",
            number(offered),
            number(implied),
            range.start(),
            range.end()
        ));
    }
    // Offsets are scaled from the first job's submit; the latest submit goes farthest.
    let (first, last) = match (w.jobs.submit.first(), w.jobs.submit.iter().max()) {
        (Some(&f), Some(&l)) => (f, l),
        _ => return Ok(()),
    };
    let reach = first as f64 + (last - first) as f64 * factor;
    if reach > crate::workload::MAX_TIME as f64 {
        return refuse(format!(
            "inter-arrival times scaled by {} take the last submit to {} s, past the longest \
             time schedlab accepts (2^40 s)",
            number(factor),
            number(reach)
        ));
    }
    Ok(())
}

/// A rigid run's result: a summary of the measured jobs, or a saturated run.
#[derive(Clone, Debug)]
pub struct RigidOutcome {
    /// `None` when the run saturated.
    pub summary: Option<Summary>,
    /// Jobs in the measured window.
    pub measured: usize,
    /// Jobs simulated (for throughput reports).
    pub simulated: u64,
}

/// What a thread reuses across rigid runs: one engine, one scheduler per kind.
#[derive(Default)]
pub struct Worker {
    engine: Engine,
    schedulers: HashMap<SchedulerKind, AnyScheduler>,
}

impl Worker {
    pub fn new() -> Self {
        Worker {
            engine: Engine::new().with_validation(false),
            schedulers: HashMap::new(),
        }
    }
}

impl Rigid {
    /// The jobs of replication `seed`: the model's, or the trace (as read, `trace`, with
    /// its offered load) scaled to the target load; then the utility functions drawn with
    /// the seed, and exact requests.
    pub fn workload<'t>(
        &self,
        seed: u64,
        trace: Option<(&'t Workload, f64)>,
    ) -> crate::Result<Cow<'t, Workload>> {
        let base: Cow<Workload> = match &self.source {
            Source::Model(model) => Cow::Owned(model.generate(seed)),
            Source::Trace(t) => {
                let (w, offered) = trace.expect("a trace experiment is given its trace");
                let scaled = match (t.load, t.load_scale) {
                    // An offered load of 0 (no work, or one submit instant) scales to no
                    // target: the factor would be 0 and every job would arrive at once.
                    (Some(target), _) if offered <= 0.0 => {
                        return Err(crate::Error::Workload {
                            path: t.path.clone(),
                            message: format!(
                                "load {target}: the trace offers no load to scale (its jobs \
                                 do no work, or all arrive at one instant)"
                            ),
                        });
                    }
                    (Some(target), _) => {
                        let factor = offered / target;
                        check_scale(w, &t.path, offered, factor, &format!("load {target}"))?;
                        Cow::Owned(scale_arrivals(w, factor))
                    }
                    (None, Some(f)) => {
                        check_scale(w, &t.path, offered, f, &format!("load_scale {f}"))?;
                        Cow::Owned(scale_arrivals(w, f))
                    }
                    (None, None) => Cow::Borrowed(w),
                };
                let shaken = match &t.resample {
                    Some(method) => {
                        let mut drawn = scaled.into_owned();
                        method.apply(&mut drawn.jobs, seed);
                        Cow::Owned(drawn)
                    }
                    None => scaled,
                };
                match &t.estimates {
                    Some(model) => {
                        let mut estimated = shaken.into_owned();
                        model.apply(&mut estimated.jobs, &mut estimated.header.comments, seed);
                        Cow::Owned(estimated)
                    }
                    None => shaken,
                }
            }
        };
        if self.augmentation.is_none() && !self.exact_estimates && !self.feedback {
            return Ok(base);
        }
        let mut owned = base.into_owned();
        if let Some(a) = &self.augmentation {
            a.apply(&mut owned.jobs, seed)
                .map_err(|message| crate::Error::Workload {
                    path: owned.name.clone().into(),
                    message,
                })?;
        }
        if self.exact_estimates {
            crate::utility::exact_estimates(&mut owned.jobs);
        }
        if self.feedback {
            crate::workload::sessions::infer_sessions(
                &mut owned.jobs,
                crate::workload::sessions::SESSION_GAP,
            );
        }
        Ok(Cow::Owned(owned))
    }

    /// Whether a run of this experiment on a trace reads only the columns a simulation
    /// reads (`Jobs::push_simulated`): not when it resamples the trace, generates
    /// priorities and utility functions, or infers sessions, which read the others.
    pub fn reads_only_simulated_columns(&self) -> bool {
        match &self.source {
            Source::Trace(t) => t.resample.is_none() && self.augmentation.is_none() && !self.feedback,
            Source::Model(_) => false,
        }
    }

    /// Simulates `workload` (replication `seed`) on `engine` with `scheduler` (of this
    /// experiment's kind), measuring `window`. The GA's choices get their own stream, apart
    /// from the workload's.
    pub fn simulate<'e>(
        &self,
        engine: &'e mut Engine,
        scheduler: &mut AnyScheduler,
        workload: &Workload,
        seed: u64,
        window: Option<&Window>,
    ) -> crate::sim::Outcome<'e> {
        scheduler.set_seed(mix64(seed ^ 0x6761_5f73_6565_6473));
        engine.set_feedback(
            self.feedback
                .then(|| crate::sim::Dependencies::from_jobs(&workload.jobs).0),
        );
        scheduler.simulate(engine, &workload.jobs, workload.procs, self.predictor, window)
    }

    /// The run as one JSON object, as `schedlab run --json` prints it and the Python
    /// package returns it: workload, scheduler, predictor, seed and the jobs outside the
    /// selection, then the summary's keys (jobs, mean_wait, ...) at the top level.
    pub fn summary_json(&self, workload: &Workload, seed: u64, summary: &Summary) -> serde_json::Value {
        let predictor = self.predictor.map_or("estimate".to_string(), |p| p.to_string());
        let mut object = serde_json::json!({
            "workload": workload.name,
            "scheduler": self.scheduler.name(),
            "predictor": predictor,
            "seed": seed,
            "not_selected": workload.not_selected,
        });
        if let (Some(o), Ok(serde_json::Value::Object(s))) =
            (object.as_object_mut(), serde_json::to_value(summary))
        {
            o.extend(s);
        }
        object
    }

    /// Simulates `workload` (replication `seed`) with a worker's engine and scheduler, and
    /// summarises the measured jobs.
    pub fn run(
        &self,
        worker: &mut Worker,
        workload: &Workload,
        seed: u64,
        window: Option<&Window>,
    ) -> RigidOutcome {
        let scheduler = worker
            .schedulers
            .entry(self.scheduler)
            .or_insert_with(|| self.scheduler.build());
        let outcome = self.simulate(&mut worker.engine, scheduler, workload, seed, window);
        let n = workload.jobs.len();
        let measured = window.map_or(0..n, |w| w.measured.start.min(n)..w.measured.end.min(n));
        let simulated = outcome.events / 2;
        let jobs = outcome.jobs_as_run(&workload.jobs);
        let summary = (!outcome.saturated).then(|| {
            Summary::of_outcome(
                &jobs,
                workload.procs,
                &outcome,
                measured.clone(),
                &workload.skipped,
            )
        });
        RigidOutcome {
            summary,
            measured: measured.len(),
            simulated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Downey model's keys here are the ones its parameters take, in the same order.
    #[test]
    fn model_keys_are_the_models_keys() {
        let names: Vec<&str> = DOWNEY_MODEL_KEYS[1..].iter().map(|k| k.name).collect();
        assert_eq!(names, crate::workload::synth::downey::DOWNEY_KEYS);
        assert!(DOWNEY_MODEL_KEYS.iter().all(|k| k.shapes_workload));
        let names: Vec<&str> = model_keys("lublin")[1..].iter().map(|k| k.name).collect();
        assert_eq!(names, LUBLIN_KEYS);
    }
}
