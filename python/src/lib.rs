//! The `schedlab._native` extension module: the library's typed experiments, sweeps and
//! trace reader for the Python package in `python/schedlab`, which wraps these functions in
//! its documented API. Every simulation runs with the GIL released; errors become Python
//! exceptions carrying the library's messages.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PySlice, PyString};

use schedlab::agent::{self, EpisodeOptions};
use schedlab::experiment::rigid::{self, Source};
use schedlab::experiment::{Params, Shared, Sources, Value, Worker, check_size};
use schedlab::metrics::JOB_COLUMNS;
use schedlab::sched::{Backfill, Ranked, Ranking};
use schedlab::sim::{Engine, SchedCtx, UserEstimates};
use schedlab::sweep::{Plan, RunOptions, run_sweep};
use schedlab::workload;
use schedlab::workload::JobId;
use schedlab::workload::info::TraceInfo;
use schedlab::workload::selection::JobRange;
use schedlab::workload::swf::SwfOptions;
use schedlab::workload::{Jobs, Selection};

/// The library's error as the Python exception a caller expects: a missing file is
/// `FileNotFoundError`, other I/O `OSError`, bad input `ValueError`.
fn py_error(e: schedlab::Error) -> PyErr {
    match &e {
        schedlab::Error::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(e.to_string())
        }
        schedlab::Error::Io { .. } | schedlab::Error::Output { .. } => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

fn value_error(message: impl ToString) -> PyErr {
    PyValueError::new_err(message.to_string())
}

/// Keyword arguments as run parameters, with the types a sweep spec's TOML gives them.
fn params_of(dict: &Bound<'_, PyDict>) -> PyResult<Params> {
    let mut params = Params::default();
    for (key, value) in dict.iter() {
        let key: String = key.extract()?;
        if value.is_none() {
            continue;
        }
        // bool before int: Python's True is an int too.
        let v = if value.is_instance_of::<PyBool>() {
            Value::Bool(value.extract()?)
        } else if value.is_instance_of::<PyInt>() {
            Value::Int(
                value
                    .extract()
                    .map_err(|_| value_error(format!("{key} = {value}: too large for a 64-bit integer")))?,
            )
        } else if value.is_instance_of::<PyFloat>() {
            Value::Float(value.extract()?)
        } else if value.is_instance_of::<PyString>() {
            Value::Str(value.extract()?)
        } else {
            let type_name = value.get_type().name()?;
            return Err(value_error(format!(
                "{key}: a {type_name} is not a parameter value; give a number, a string or a bool"
            )));
        };
        params.insert(key, v);
    }
    Ok(params)
}

/// One column per job, moved into numpy without a copy.
struct Columns(Vec<(&'static str, Column)>);

enum Column {
    I64(Vec<i64>),
    U64(Vec<u64>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    I8(Vec<i8>),
    F64(Vec<f64>),
    F32(Vec<f32>),
}

impl Columns {
    fn into_dict<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, column) in self.0 {
            match column {
                Column::I64(v) => dict.set_item(name, v.into_pyarray(py))?,
                Column::U64(v) => dict.set_item(name, v.into_pyarray(py))?,
                Column::U32(v) => dict.set_item(name, v.into_pyarray(py))?,
                Column::I32(v) => dict.set_item(name, v.into_pyarray(py))?,
                Column::I8(v) => dict.set_item(name, v.into_pyarray(py))?,
                Column::F64(v) => dict.set_item(name, v.into_pyarray(py))?,
                Column::F32(v) => dict.set_item(name, v.into_pyarray(py))?,
            }
        }
        Ok(dict)
    }
}

/// A trace's fields, in SWF order, under the names of `Jobs`.
fn trace_columns(jobs: Jobs) -> Columns {
    use Column::*;
    let mut columns = vec![
        ("job_id", U64(jobs.swf_id)),
        ("submit", I64(jobs.submit)),
        ("recorded_wait", I32(jobs.recorded_wait)),
        ("runtime", I64(jobs.runtime)),
        ("procs", U32(jobs.procs)),
        ("avg_cpu", F32(jobs.avg_cpu)),
        ("used_memory", I32(jobs.used_memory)),
        ("requested_procs", I32(jobs.requested_procs)),
        ("requested_time", I32(jobs.requested_time)),
        ("requested_memory", I32(jobs.requested_memory)),
        ("status", I8(jobs.status)),
        ("user", I32(jobs.user)),
        ("group", I32(jobs.group)),
        ("executable", I32(jobs.executable)),
        ("queue", I32(jobs.queue)),
        ("partition", I32(jobs.partition)),
        ("preceding_job", I32(jobs.preceding_job)),
        ("think_time", I32(jobs.think_time)),
        ("estimate", I64(jobs.estimate)),
    ];
    // The GPUs each job requests, where the trace records them.
    columns.extend(jobs.gpus.map(|g| ("gpus", U32(g))));
    Columns(columns)
}

/// The columns of the waiting jobs a priority function receives.
const PRIORITY_COLUMNS: [&str; 7] = ["job", "submit", "wait", "estimate", "procs", "user", "free"];

/// A Python function as the queue's ranking: called at each pass where a job could start,
/// with a (waiting jobs x 7) float64 view of a buffer the scheduler keeps (valid during the
/// call only), it returns one score per job, lower first. After an exception the run goes
/// on in arrival order, and the exception is raised when it ends.
struct PyRanking {
    function: Py<PyAny>,
    buffer: Option<Py<PyArray2<f64>>>,
    capacity: usize,
    error: Option<PyErr>,
}

impl PyRanking {
    fn call(
        &mut self,
        py: Python<'_>,
        ctx: &SchedCtx,
        waiting: &[JobId],
        scores: &mut Vec<f64>,
    ) -> PyResult<()> {
        let n = waiting.len();
        if self.capacity < n {
            self.capacity = n.next_power_of_two().max(64);
            self.buffer =
                Some(PyArray2::<f64>::zeros(py, [self.capacity, PRIORITY_COLUMNS.len()], false).unbind());
        }
        let buffer = self.buffer.as_ref().expect("sized above").bind(py);
        {
            // SAFETY: the scheduler owns the buffer; Python sees it only through the view
            // below, during the call, on this thread, under the GIL.
            let values =
                unsafe { buffer.as_slice_mut() }.map_err(|e| PyValueError::new_err(e.to_string()))?;
            let jobs = ctx.jobs();
            let (now, free) = (ctx.now(), ctx.free() as f64);
            for (row, &job) in values.chunks_exact_mut(PRIORITY_COLUMNS.len()).zip(waiting) {
                let j = job.index();
                row.copy_from_slice(&[
                    j as f64,
                    jobs.submit[j] as f64,
                    (now - jobs.submit[j]) as f64,
                    ctx.prediction(job) as f64,
                    jobs.procs[j] as f64,
                    jobs.user[j] as f64,
                    free,
                ]);
            }
        }
        let view = buffer.get_item(PySlice::new(py, 0, n as isize, 1))?;
        let result = self.function.bind(py).call1((view,))?;
        match result.cast::<PyArray1<f64>>() {
            Ok(array) => scores.extend(array.readonly().as_array().iter().copied()),
            Err(_) => scores.extend(result.extract::<Vec<f64>>().map_err(|_| {
                PyValueError::new_err(
                    "the priority function must return one number per waiting job (a float64 array or a sequence)",
                )
            })?),
        }
        if scores.len() != n {
            return Err(PyValueError::new_err(format!(
                "the priority function returned {} scores for {n} waiting jobs",
                scores.len()
            )));
        }
        Ok(())
    }
}

impl Ranking for PyRanking {
    fn rank(&mut self, ctx: &SchedCtx, waiting: &[JobId], scores: &mut Vec<f64>) {
        if self.error.is_none() {
            let result = Python::attach(|py| self.call(py, ctx, waiting, scores));
            if let Err(e) = result {
                self.error = Some(e);
                scores.clear();
            }
        }
        if self.error.is_some() {
            scores.extend(waiting.iter().map(|j| j.0 as f64));
        }
    }
}

/// What `run` hands back to Python.
struct RunResult {
    summary: String,
    jobs: Option<Columns>,
    warnings: Vec<String>,
}

/// One rigid run of the experiment `params` describe, as `schedlab run` does it; with a
/// `priority` (a Python function and a backfilling mode) in place of the scheduler.
fn run_rigid(
    params: &Params,
    seed: u64,
    with_jobs: bool,
    yes: bool,
    priority: Option<(Py<PyAny>, Backfill)>,
) -> PyResult<RunResult> {
    run_rigid_inner(params, seed, with_jobs, yes, priority).map_err(|e| match e {
        Failure::Library(e) => py_error(e),
        Failure::Python(e) => e,
    })
}

/// A run's failure: the library's, or the priority function's exception.
enum Failure {
    Library(schedlab::Error),
    Python(PyErr),
}

impl From<schedlab::Error> for Failure {
    fn from(e: schedlab::Error) -> Self {
        Failure::Library(e)
    }
}

impl From<schedlab::experiment::ParamError> for Failure {
    fn from(e: schedlab::experiment::ParamError) -> Self {
        Failure::Library(e.into())
    }
}

fn run_rigid_inner(
    params: &Params,
    seed: u64,
    with_jobs: bool,
    yes: bool,
    priority: Option<(Py<PyAny>, Backfill)>,
) -> Result<RunResult, Failure> {
    let rigid = rigid::from_params(params, Sources::default(), None)?;
    if let Source::Model(m) = &rigid.workload.source {
        check_size(Some(m.expected_jobs()), yes).map_err(schedlab::Error::from)?;
    }
    if priority.is_some() && rigid.workload.machine().is_some_and(|m| !m.is_plain_pool()) {
        return Err(Failure::Library(schedlab::Error::Invalid(
            "priority: a Python priority function schedules one pool; a machine of several \
             partitions, of nodes with memory or GPUs, under a power cap, switching nodes off or naming a \
             partition's scheduler, is not supported with it yet"
                .into(),
        )));
    }
    if let Source::Trace(t) = &rigid.workload.source
        && priority.is_some()
        && t.carbon.as_ref().is_some_and(|c| c.hold.is_some())
    {
        return Err(Failure::Library(schedlab::Error::Invalid(
            "priority: a Python priority function does not hold jobs for a cleaner grid yet (carbon_hold)"
                .into(),
        )));
    }
    let prepared = rigid.prepare(&mut Shared::new([&rigid.workload], true), None)?;
    let mut warnings = prepared.workload.warnings();
    let workload = prepared.workload.draw_some(seed)?;
    let mut worker = Worker::new();
    let mut engine = Engine::new().with_validation(false);
    let mut ranked = priority.map(|(function, backfill)| {
        let ranking = PyRanking {
            function,
            buffer: None,
            capacity: 0,
            error: None,
        };
        (Ranked::new(ranking, backfill), backfill)
    });
    let outcome = match &mut ranked {
        Some((ranked, _)) => {
            engine.run_window(&workload.jobs, workload.procs, ranked, &mut UserEstimates, None)
        }
        // On a rayon worker, so that the GA's parallel fitness evaluations fork there.
        None => rayon::join(|| prepared.simulate(&mut worker, &workload, seed), || ()).0,
    };
    // Under feedback, the submit times are when the jobs arrived.
    let jobs = &*outcome.jobs_as_run(&workload.jobs);
    warnings.extend(schedlab::metrics::saturation_warning(jobs, outcome.end));
    let summary = prepared.summarise(jobs, workload.procs, &outcome, 0..jobs.len(), &workload.skipped);
    let partitions = prepared.by_partition(&workload, outcome.start, outcome.end);
    let mut summary = prepared.summary_json(&workload, seed, &summary, &partitions);
    if let Some((ranked, backfill)) = &mut ranked {
        if let Some(e) = ranked.ranking.error.take() {
            return Err(Failure::Python(e));
        }
        let mode = format!("{backfill:?}").to_lowercase();
        summary["scheduler"] = serde_json::json!(format!("priority(backfill={mode})"));
        summary["priority_calls"] = serde_json::json!(ranked.rankings);
    }
    let summary = summary.to_string();
    let jobs_columns = with_jobs.then(|| {
        let costs = prepared.job_costs(jobs, outcome.start, outcome.end);
        job_columns(jobs, &outcome, costs)
    });
    Ok(RunResult {
        summary,
        jobs: jobs_columns,
        warnings,
    })
}

/// The per-job columns of a run, from the library's registry (`JOB_COLUMNS`), each in its
/// type, then the optional ones the run has (`OPTIONAL_COLUMNS`: GPUs, and with `costs`
/// each job's energy and carbon).
fn job_columns(
    jobs: &Jobs,
    outcome: &schedlab::sim::Outcome,
    costs: Option<schedlab::energy::PerJob>,
) -> Columns {
    use schedlab::metrics::jobs_csv::{ColumnType, JobValue};
    let columns = JOB_COLUMNS.iter().map(|c| {
        let values = (0..jobs.len()).map(|j| (c.value)(jobs, outcome, j));
        let int = |v: JobValue| match v {
            JobValue::Int(i) => i,
            JobValue::Real(r) => r as i64,
        };
        let column = match c.kind {
            ColumnType::I64 => Column::I64(values.map(int).collect()),
            ColumnType::U64 => Column::U64(values.map(|v| int(v) as u64).collect()),
            ColumnType::U32 => Column::U32(values.map(|v| int(v) as u32).collect()),
            ColumnType::I32 => Column::I32(values.map(|v| int(v) as i32).collect()),
            ColumnType::F64 { .. } => Column::F64(
                values
                    .map(|v| match v {
                        JobValue::Int(i) => i as f64,
                        JobValue::Real(r) => r,
                    })
                    .collect(),
            ),
        };
        (c.name, column)
    });
    let gpus = jobs.gpus.clone().map(|g| ("gpus", Column::U32(g)));
    let (joules, grams) = costs.map_or((None, None), |c| (Some(c.joules), c.grams));
    let energy = joules.map(|e| ("energy_j", Column::F64(e)));
    let carbon = grams.map(|g| ("carbon_g", Column::F64(g)));
    Columns(columns.chain(gpus).chain(energy).chain(carbon).collect())
}

/// One rigid run: `(summary as JSON, per-job columns or None, warnings)`; with `priority`
/// (a Python function) ordering the queue in place of the scheduler, backfilling by
/// `backfill` (easy, conservative or none).
#[pyfunction]
#[pyo3(signature = (params, seed, jobs = true, yes = false, priority = None, backfill = "easy"))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    params: &Bound<'py, PyDict>,
    seed: u64,
    jobs: bool,
    yes: bool,
    priority: Option<Py<PyAny>>,
    backfill: &str,
) -> PyResult<(String, Option<Bound<'py, PyDict>>, Vec<String>)> {
    let params = params_of(params)?;
    let backfill: Backfill = backfill.parse().map_err(value_error)?;
    let priority = priority.map(|f| (f, backfill));
    let result = py.detach(|| run_rigid(&params, seed, jobs, yes, priority))?;
    let columns = result.jobs.map(|c| c.into_dict(py)).transpose()?;
    Ok((result.summary, columns, result.warnings))
}

/// A trace's columns, its `TraceInfo` as JSON, and what to know about it.
#[pyfunction]
#[pyo3(signature = (path, procs = None, jobs = None, first = None, lenient = false))]
fn read_trace<'py>(
    py: Python<'py>,
    path: PathBuf,
    procs: Option<u32>,
    jobs: Option<String>,
    first: Option<usize>,
    lenient: bool,
) -> PyResult<(Bound<'py, PyDict>, String, Vec<String>)> {
    let range = jobs
        .map(|r| {
            r.parse::<JobRange>()
                .map_err(|e| value_error(format!("jobs: {e}")))
        })
        .transpose()?;
    let options = SwfOptions {
        procs,
        selection: Selection { range, first },
        lenient,
        columns: schedlab::workload::Columns::Every,
    };
    let (columns, info, warnings) = py
        .detach(|| -> Result<_, schedlab::Error> {
            let workload = workload::read_trace(&path, &options)?;
            let info = TraceInfo::of(&workload);
            let info_json =
                serde_json::to_string(&info).map_err(|e| schedlab::Error::Invalid(e.to_string()))?;
            Ok((trace_columns(workload.jobs), info_json, info.warnings(false)))
        })
        .map_err(py_error)?;
    Ok((columns.into_dict(py)?, info, warnings))
}

/// A sweep spec given as JSON (from a Python dict) in TOML, the spec language.
#[pyfunction]
fn spec_toml(json: &str) -> PyResult<String> {
    let table: toml::Table =
        serde_json::from_str(json).map_err(|e| value_error(format!("sweep spec: {e}")))?;
    toml::to_string(&table).map_err(|e| value_error(format!("sweep spec: {e}")))
}

/// Runs a sweep spec (TOML `text`, named `path` in errors, traces relative to `base_dir`)
/// into `out`: `(cells, replications run, replications resumed, jobs simulated, seconds,
/// warnings)`.
#[pyfunction]
#[pyo3(signature = (text, path, base_dir, out, threads = None, resume = false, force = false, progress = false, yes = false))]
#[allow(clippy::too_many_arguments)]
fn sweep(
    py: Python<'_>,
    text: &str,
    path: PathBuf,
    base_dir: PathBuf,
    out: PathBuf,
    threads: Option<usize>,
    resume: bool,
    force: bool,
    progress: bool,
    yes: bool,
) -> PyResult<(usize, usize, usize, u64, f64, Vec<String>)> {
    if threads == Some(0) {
        return Err(value_error(
            "threads = 0: give at least 1, or None for every core",
        ));
    }
    let plan = py
        .detach(|| -> Result<_, schedlab::Error> {
            let plan = Plan::from_str(text, &path, &base_dir, "sweep")?;
            plan.check_size(yes)?;
            Ok(plan)
        })
        .map_err(py_error)?;
    let cancel = Arc::new(AtomicBool::new(false));
    let options = RunOptions {
        threads,
        out,
        shard: None,
        resume,
        force,
        quiet: !progress,
        cancel: Some(cancel.clone()),
    };
    // The sweep runs on its own thread while this one, between waits without the GIL,
    // looks for Ctrl-C: on KeyboardInterrupt the sweep stops starting tasks, finishes
    // those under way into its journal (so `resume=True` goes on from there), and the
    // interrupt is raised.
    let (done, finished) = crossbeam_channel::bounded(1);
    let warnings = plan.warnings.clone();
    std::thread::spawn(move || {
        let _ = done.send(run_sweep(&plan, &options));
    });
    let outcome = loop {
        match py.detach(|| finished.recv_timeout(std::time::Duration::from_millis(50))) {
            Ok(outcome) => break outcome,
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    cancel.store(true, Ordering::Relaxed);
                    let _ = py.detach(|| finished.recv());
                    return Err(interrupt);
                }
            }
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                return Err(PyOSError::new_err("the sweep's thread ended without a result"));
            }
        }
    };
    let mut report = outcome.map_err(py_error)?;
    report.warnings.splice(0..0, warnings);
    Ok((
        report.cells,
        report.tasks_run,
        report.tasks_resumed,
        report.jobs_simulated,
        report.elapsed.as_secs_f64(),
        report.warnings,
    ))
}

/// A Gymnasium environment's engine: episodes in which the agent chooses which waiting job
/// starts next (`schedlab::agent`). `schedlab.gym.JobSchedulingEnv` wraps it.
#[pyclass(module = "schedlab._native")]
struct Environment {
    inner: agent::Environment,
    window: usize,
}

impl Environment {
    fn observation<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        let array = PyArray2::<f32>::zeros(py, [self.window, self.inner.features().len()], false);
        // SAFETY: the array was just created here, is contiguous, and nothing else holds it.
        let values = unsafe { array.as_slice_mut() }.expect("a new array is contiguous");
        self.inner.observe(values);
        array
    }
}

/// `(observation, reward, terminated, invalid action, valid actions)`.
type StepResult<'py> = (Bound<'py, PyArray2<f32>>, f64, bool, bool, usize);

#[pymethods]
impl Environment {
    #[new]
    #[pyo3(signature = (params, window, jobs, backfill, reward))]
    fn new(
        params: &Bound<'_, PyDict>,
        window: usize,
        jobs: usize,
        backfill: bool,
        reward: &str,
    ) -> PyResult<Self> {
        let params = params_of(params)?;
        let reward = reward.parse().map_err(value_error)?;
        let options = EpisodeOptions {
            window,
            jobs,
            backfill,
            reward,
        };
        let inner = agent::Environment::new(&params, Path::new(""), options).map_err(py_error)?;
        Ok(Environment { inner, window })
    }

    /// Starts the episode of `seed`: `(observation, valid actions)`.
    fn reset<'py>(&mut self, py: Python<'py>, seed: u64) -> PyResult<(Bound<'py, PyArray2<f32>>, usize)> {
        self.inner.reset(seed).map_err(py_error)?;
        Ok((self.observation(py), self.inner.valid_actions()))
    }

    /// Chooses slot `action`: `(observation, reward, terminated, invalid action, valid
    /// actions)`.
    fn step<'py>(&mut self, py: Python<'py>, action: usize) -> PyResult<StepResult<'py>> {
        if self.inner.done() || self.inner.episode().0.is_empty() {
            return Err(PyValueError::new_err(
                "step outside an episode: call reset() first",
            ));
        }
        let step = self.inner.step(action);
        Ok((
            self.observation(py),
            step.reward,
            step.terminated,
            step.invalid,
            self.inner.valid_actions(),
        ))
    }

    /// Choices made in this episode.
    #[getter]
    fn steps(&self) -> u64 {
        self.inner.steps
    }

    /// The observation's columns: `FEATURE_NAMES`, and on a partition of nodes four more
    /// (`NODE_FEATURE_NAMES`).
    #[getter]
    fn feature_names(&self) -> Vec<&'static str> {
        self.inner.features().to_vec()
    }

    /// The machine's processors in this episode.
    #[getter]
    fn procs(&self) -> u32 {
        self.inner.episode().1
    }

    /// The episode's jobs and their schedule so far, as columns (start and end are the
    /// smallest int64 until known).
    fn schedule<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (start, end) = self.inner.schedule();
        let (jobs, _) = self.inner.episode();
        let dict = PyDict::new(py);
        dict.set_item("job_id", PyArray1::from_slice(py, &jobs.swf_id))?;
        dict.set_item("submit", PyArray1::from_slice(py, &jobs.submit))?;
        dict.set_item("runtime", PyArray1::from_slice(py, &jobs.runtime))?;
        dict.set_item("estimate", PyArray1::from_slice(py, &jobs.estimate))?;
        dict.set_item("procs", PyArray1::from_slice(py, &jobs.procs))?;
        dict.set_item("user", PyArray1::from_slice(py, &jobs.user))?;
        dict.set_item("start", start.into_pyarray(py))?;
        dict.set_item("end", end.into_pyarray(py))?;
        Ok(dict)
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(read_trace, m)?)?;
    m.add_function(wrap_pyfunction!(spec_toml, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_class::<Environment>()?;
    m.add("FEATURE_NAMES", agent::FEATURE_NAMES.to_vec())?;
    m.add("NODE_FEATURE_NAMES", agent::NODE_FEATURE_NAMES.to_vec())?;
    m.add("PRIORITY_COLUMNS", PRIORITY_COLUMNS.to_vec())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
