//! Turnaround estimators of Hanzich et al. (section 4): Historical (Algorithms 1 and 2),
//! Simulation (Algorithm 3 with RemTime by PROP, MPL or CPU, equations 1-8, and CPUtime_cur
//! by MPL or CPU, equations 9-12) and Hybrid (Algorithm 3 with RemTime from the history,
//! Algorithm 4), on-line (every arriving job estimated from the state then) or off-line
//! (the whole workload projected once from the initial state).
//!
//! Choices where the paper is brief:
//! - An application is a benchmark on a number of tasks; its CPU time is the one it needs
//!   alone (tasks x CPU share x dedicated time), as the paper assumes it constant.
//! - The history (HistDB) holds one record per finished job of the same environment and
//!   policies: CPUtime_ahead at its arrival (the CPU time of the jobs then waiting before
//!   it), CPUtime_backwards at its start (of the jobs then still waiting), SharedTasksCount
//!   at its start (parallel tasks of other jobs plus local users on its nodes), its wait
//!   and its execution time. It is warmed by a run of the same environment with another
//!   seed, then grows as the measured run's jobs end.
//! - Algorithm 1 with no record of the application takes the nearest record of any
//!   application; Algorithm 2's 5% threshold is relative to CPUtime_ahead (at least
//!   1 CPU-second), and an empty list falls back to Algorithm 1's nearest record.
//! - Algorithm 4 with no record at the job's SharedTasksCount takes the application's
//!   records at the nearest count; with none of the application, the CPU model (eq. 6).
//! - PROP for a job that has received no CPU time yet: its time in isolation.
//! - The Simulation and Hybrid kernels replay the system's own job and node selection
//!   (`policy::pass`) on their copy of the state; local users are taken to stay as they are.
//!
//! Costs (Table 4): Historical O(N_HistDB); Simulation O(N_DRQ^2 x S_cl) per estimate
//! (each step finds the next end among the running jobs and replays a pass over the
//! cluster); Hybrid that times the history search, O(N_DRQ^2 x N_HistDB x S_cl).

mod historical;
mod hybrid;
mod simulation;

pub use historical::Historical;
pub use hybrid::Hybrid;
pub use simulation::Simulation;

use crate::params::ParamError;
use crate::plugin::plugins;

use super::cluster::{Node, rate};
use super::model::{Benchmark, ParallelApp, ParallelJob};
use super::policy::{PassScratch, Projected, Started, pass};
use super::sim::{JobOutcome, Observer, Snapshot};

/// RemTime method of the Simulation kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RemMethod {
    Prop,
    Mpl,
    Cpu,
}

/// CPUtime_cur method of the Simulation kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpuMethod {
    Mpl,
    Cpu,
}

/// What a turnaround estimator does.
pub trait Estimating {
    /// Whether it reads the history of finished jobs (HistDB), warmed by a run of its own
    /// before the measured one.
    fn reads_history(&self) -> bool;
    /// Algorithm 3's kernel with this estimator's RemTime, if it has one: the off-line
    /// mode projects the whole workload with it.
    fn kernel<'a>(&self, jobs: &'a [ParallelJob], db: &'a HistDb) -> Option<Kernel<'a>>;
    /// One on-line estimate for `job`, waiting at the end of `state.queue`.
    fn predict(&self, job: usize, state: &Snapshot, db: &HistDb) -> Option<TurnaroundPrediction> {
        online(&self.kernel(state.jobs, db)?, job, state)
    }
}

plugins! {
    /// A turnaround estimator by name, as `--estimator` and sweeps write it.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Estimator: dyn Estimating, "estimator" {
        Historical(Historical),
        Hybrid(Hybrid),
        Simulation(Simulation),
    }
}

impl Estimator {
    /// Whether it has a kernel to project the system with: the off-line mode needs one.
    /// (Asked of a kernel over no jobs, which costs nothing.)
    pub fn projects(&self) -> bool {
        self.behaviour().kernel(&[], &HistDb::default()).is_some()
    }

    /// Algorithms 1 and 2, from the history alone.
    pub const HISTORICAL: Estimator = Estimator::Historical(Historical);
    /// Algorithm 4: the projection, each job's remaining time from the history.
    pub const HYBRID: Estimator = Estimator::Hybrid(Hybrid);
    /// The paper's best analytical kernel: RemTime by MPL, CPUtime_cur by CPU.
    pub const MPL_CPU: Estimator = Estimator::Simulation(Simulation {
        rem: RemMethod::Mpl,
        cpu: CpuMethod::Cpu,
    });
}

/// A predicted wait and execution time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TurnaroundPrediction {
    pub wait: f64,
    pub exec: f64,
}

impl TurnaroundPrediction {
    pub fn turnaround(&self) -> f64 {
        self.wait + self.exec
    }
}

/// One finished job in the history.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Record {
    pub app: (Option<Benchmark>, u32),
    pub ahead: f64,
    pub backwards: f64,
    pub shared: u32,
    pub wait: f64,
    pub exec: f64,
}

/// The historical repository (module docs).
#[derive(Clone, Debug, Default)]
pub struct HistDb {
    pub records: Vec<Record>,
}

/// Algorithm 2's similarity threshold, relative to CPUtime_ahead.
pub const THRESHOLD: f64 = 0.05;

impl HistDb {
    fn of_app(&self, app: (Option<Benchmark>, u32)) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(move |r| r.app == app)
    }

    /// The record nearest in CPUtime_ahead, of the application if it has any.
    fn nearest(&self, app: (Option<Benchmark>, u32), ahead: f64) -> Option<&Record> {
        let by = |r: &&Record, s: &&Record| (r.ahead - ahead).abs().total_cmp(&(s.ahead - ahead).abs());
        self.of_app(app)
            .min_by(by)
            .or_else(|| self.records.iter().min_by(by))
    }

    /// Algorithms 1 and 2.
    pub fn historical(&self, app: &ParallelApp, ahead: f64) -> Option<TurnaroundPrediction> {
        let key = app.key();
        let wait = self.nearest(key, ahead)?.wait;
        let limit = THRESHOLD * ahead.max(1.0);
        let similar: Vec<&Record> = self
            .of_app(key)
            .filter(|r| (r.ahead - ahead).abs() < limit)
            .collect();
        let exec = if similar.is_empty() {
            self.nearest(key, ahead)?.exec
        } else {
            let average = similar.iter().map(|r| r.backwards).sum::<f64>() / similar.len() as f64;
            similar
                .iter()
                .min_by(|a, b| {
                    (a.backwards - average)
                        .abs()
                        .total_cmp(&(b.backwards - average).abs())
                })
                .expect("not empty")
                .exec
        };
        Some(TurnaroundPrediction { wait, exec })
    }

    /// Algorithm 4's average execution time of `app` at SharedTasksCount `shared` (or the
    /// nearest count recorded).
    pub fn execution(&self, app: (Option<Benchmark>, u32), shared: u32) -> Option<f64> {
        let nearest = self.of_app(app).map(|r| r.shared.abs_diff(shared)).min()?;
        let (mut sum, mut n) = (0.0, 0usize);
        for r in self.of_app(app).filter(|r| r.shared.abs_diff(shared) == nearest) {
            sum += r.exec;
            n += 1;
        }
        Some(sum / n as f64)
    }
}

/// CPU time of the jobs in `queue`.
fn cpu_of(jobs: &[ParallelJob], queue: &[usize]) -> f64 {
    queue.iter().map(|&j| jobs[j].app.cpu_time()).sum()
}

/// Parallel tasks of other jobs plus local users on `on`, with `app`'s own tasks there.
fn shared_tasks(nodes: &[Node], on: &[u32], own_tasks_here: bool) -> u32 {
    on.iter()
        .map(|&n| {
            let node = &nodes[n as usize];
            node.tasks - own_tasks_here as u32 + node.has_local as u32
        })
        .sum()
}

/// A job inside the estimator's copy of the cluster.
#[derive(Clone, Debug)]
struct Dummy {
    job: usize,
    app: ParallelApp,
    nodes: Vec<u32>,
    start: f64,
    exec_cur: f64,
    cpu_cur: f64,
}

/// max over its nodes of MPL_paral + MPL_local (eq. 4), at least 1.
fn mpl_max(nodes: &[Node], on: &[u32]) -> f64 {
    on.iter()
        .map(|&n| nodes[n as usize].mpl())
        .max()
        .unwrap_or(1)
        .max(1) as f64
}

/// Algorithm 3's projection of the system, with RemTime by a Simulation method or, without
/// one, from the history (Hybrid).
pub struct Kernel<'a> {
    jobs: &'a [ParallelJob],
    rem: Option<RemMethod>,
    cpu: CpuMethod,
    db: Option<&'a HistDb>,
}

impl Kernel<'_> {
    fn rem_time(&self, d: &Dummy, nodes: &[Node]) -> f64 {
        let total = d.app.cpu_time();
        let rem_cpu = (total - d.cpu_cur).max(0.0);
        let isol = d.app.exec * rem_cpu / total;
        let by_cpu = || isol / rate(nodes, &d.nodes);
        match (self.rem, self.db) {
            (Some(RemMethod::Prop), _) if d.cpu_cur > 1e-9 => d.exec_cur * rem_cpu / d.cpu_cur,
            (Some(RemMethod::Prop), _) => isol,
            (Some(RemMethod::Mpl), _) => isol * mpl_max(nodes, &d.nodes),
            (Some(RemMethod::Cpu), _) => by_cpu(),
            (None, Some(db)) => match db.execution(d.app.key(), shared_tasks(nodes, &d.nodes, true)) {
                Some(avg) => (avg - d.exec_cur).max(0.0),
                None => by_cpu(),
            },
            (None, None) => by_cpu(),
        }
    }

    /// CPU time `d` receives over `dt` (equations 9-12).
    fn cpu_gain(&self, d: &Dummy, nodes: &[Node], dt: f64) -> f64 {
        match self.cpu {
            CpuMethod::Mpl => dt * d.app.cpu_time() / (mpl_max(nodes, &d.nodes) * d.app.exec),
            CpuMethod::Cpu => dt * d.app.tasks as f64 * d.app.cpu * rate(nodes, &d.nodes),
        }
    }

    /// Projects the cluster from `state` with the jobs of `waiting` and the future
    /// `arrivals` (ascending), writing each job's predicted (start, end) into `out`
    /// (indexed by job), until `target` ends (or every job has, without a target).
    fn project(
        &self,
        state: &Snapshot,
        mut waiting: Vec<usize>,
        arrivals: &[usize],
        target: Option<usize>,
        out: &mut [Option<(f64, f64)>],
    ) {
        let mut nodes = state.nodes.to_vec();
        let mut running: Vec<Dummy> = state
            .running
            .iter()
            .map(|r| Dummy {
                job: r.job,
                app: self.jobs[r.job].app,
                nodes: r.nodes.clone(),
                start: r.start,
                exec_cur: r.exec_cur,
                cpu_cur: r.cpu_cur,
            })
            .collect();
        let mut t = state.now;
        let mut next_arrival = 0;
        let mut scratch = PassScratch::default();
        let mut started = Started::default();
        let mut rems: Vec<f64> = Vec::new();
        loop {
            // Arrivals due now join the queue; then the policy's pass.
            while next_arrival < arrivals.len() && self.jobs[arrivals[next_arrival]].arrival <= t {
                waiting.push(arrivals[next_arrival]);
                next_arrival += 1;
            }
            let projected: Vec<Projected> = running
                .iter()
                .map(|d| Projected {
                    end: t + self.rem_time(d, &nodes),
                    app: d.app,
                    nodes: d.nodes.clone(),
                })
                .collect();
            started.clear();
            pass(
                state.setup,
                self.jobs,
                &mut nodes,
                &mut waiting,
                &projected,
                t,
                &mut scratch,
                &mut started,
            );
            for (job, on) in started.iter() {
                if let Some(o) = out.get_mut(job) {
                    *o = Some((t, f64::NAN));
                }
                running.push(Dummy {
                    job,
                    app: self.jobs[job].app,
                    nodes: on.to_vec(),
                    start: t,
                    exec_cur: 0.0,
                    cpu_cur: 0.0,
                });
            }
            // The next end, unless an arrival comes first.
            rems.clear();
            rems.extend(running.iter().map(|d| self.rem_time(d, &nodes)));
            let next_end = rems
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(b.1))
                .map(|(i, &r)| (i, t + r));
            let t_arrival = arrivals.get(next_arrival).map(|&j| self.jobs[j].arrival);
            let (t_next, ending) = match (next_end, t_arrival) {
                (Some((i, e)), Some(a)) if e <= a => (e, Some(i)),
                (_, Some(a)) => (a, None),
                (Some((i, e)), None) => (e, Some(i)),
                (None, None) => return,
            };
            let dt = t_next - t;
            for d in &mut running {
                d.cpu_cur += self.cpu_gain(d, &nodes, dt);
                d.exec_cur += dt;
            }
            let t_prev = t;
            t = t_next;
            if ending.is_some() {
                // Every job ending now leaves before the next pass, as in the cluster.
                let mut k = 0;
                while k < running.len() {
                    if t_prev + rems[k] > t {
                        k += 1;
                        continue;
                    }
                    rems.swap_remove(k);
                    let d = running.swap_remove(k);
                    for &n in &d.nodes {
                        nodes[n as usize].remove_task(&d.app);
                    }
                    if let Some(o) = out.get_mut(d.job) {
                        *o = Some((d.start, t));
                    }
                    if Some(d.job) == target {
                        return;
                    }
                }
            }
        }
    }
}

/// Estimates at every arrival (on-line) and keeps the history up to date.
pub struct Online {
    pub estimator: Estimator,
    pub db: HistDb,
    /// Per job: the prediction made at its arrival.
    pub predictions: Vec<Option<TurnaroundPrediction>>,
    /// Seconds spent estimating, and estimates made.
    pub cost: f64,
    pub estimates: u64,
    /// Whether to estimate (false: only record history, e.g. to warm it).
    pub estimate: bool,
    keys: Vec<(Option<Benchmark>, u32)>,
    ahead: Vec<f64>,
    pending: Vec<Option<(f64, u32)>>,
}

impl Online {
    pub fn new(estimator: Estimator, db: HistDb, jobs: &[ParallelJob]) -> Self {
        let n = jobs.len();
        Online {
            estimator,
            db,
            predictions: vec![None; n],
            cost: 0.0,
            estimates: 0,
            estimate: true,
            keys: jobs.iter().map(|j| j.app.key()).collect(),
            ahead: vec![0.0; n],
            pending: vec![None; n],
        }
    }

    /// One estimate for `job`, waiting at the end of `state.queue`.
    pub fn predict(&self, job: usize, state: &Snapshot) -> Option<TurnaroundPrediction> {
        self.estimator.behaviour().predict(job, state, &self.db)
    }
}

fn online(kernel: &Kernel, job: usize, state: &Snapshot) -> Option<TurnaroundPrediction> {
    let mut out = vec![None; state.jobs.len()];
    kernel.project(state, state.queue.to_vec(), &[], Some(job), &mut out);
    let (start, end) = out[job]?;
    (end.is_finite()).then_some(TurnaroundPrediction {
        wait: start - state.now,
        exec: end - start,
    })
}

impl Observer for Online {
    fn arrived(&mut self, job: usize, state: &Snapshot) {
        let before = &state.queue[..state.queue.len() - 1];
        self.ahead[job] = cpu_of(state.jobs, before);
        if self.estimate {
            let t0 = std::time::Instant::now();
            self.predictions[job] = self.predict(job, state);
            self.cost += t0.elapsed().as_secs_f64();
            self.estimates += 1;
        }
    }

    fn started(&mut self, job: usize, state: &Snapshot) {
        let on = &state
            .running
            .iter()
            .find(|r| r.job == job)
            .expect("running")
            .nodes;
        self.pending[job] = Some((
            cpu_of(state.jobs, state.queue),
            shared_tasks(state.nodes, on, true),
        ));
    }

    fn ended(&mut self, job: usize, outcome: &JobOutcome) {
        let (backwards, shared) = self.pending[job].take().expect("started before ending");
        self.db.records.push(Record {
            app: self.keys[job],
            ahead: self.ahead[job],
            backwards,
            shared,
            wait: outcome.wait(),
            exec: outcome.exec(),
        });
    }
}

/// Off-line mode: at the first arrival, projects the whole workload (every later arrival
/// known in advance) with a Simulation or Hybrid kernel.
pub struct Offline<'a> {
    pub estimator: Estimator,
    pub db: &'a HistDb,
    pub predictions: Vec<Option<TurnaroundPrediction>>,
    pub cost: f64,
}

impl<'a> Offline<'a> {
    pub fn new(estimator: Estimator, db: &'a HistDb, jobs: usize) -> Result<Self, ParamError> {
        if !estimator.projects() {
            return Err(ParamError::Invalid(
                "the off-line mode needs a simulation kernel (REM-CPU or hybrid), not historical".into(),
            ));
        }
        Ok(Offline {
            estimator,
            db,
            predictions: vec![None; jobs],
            cost: 0.0,
        })
    }
}

impl Observer for Offline<'_> {
    fn arrived(&mut self, job: usize, state: &Snapshot) {
        if job != 0 {
            return;
        }
        let t0 = std::time::Instant::now();
        let kernel = self
            .estimator
            .behaviour()
            .kernel(state.jobs, self.db)
            .expect("checked by Offline::new");
        let later: Vec<usize> = (1..state.jobs.len()).collect();
        let mut out = vec![None; state.jobs.len()];
        kernel.project(state, state.queue.to_vec(), &later, None, &mut out);
        for (j, o) in out.iter().enumerate() {
            self.predictions[j] =
                o.filter(|(_, end)| end.is_finite())
                    .map(|(start, end)| TurnaroundPrediction {
                        wait: start - state.jobs[j].arrival,
                        exec: end - start,
                    });
        }
        self.cost = t0.elapsed().as_secs_f64();
    }
}

/// How predictions compare with what happened (Hanzich et al., equation 13 and Figure 10).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Accuracy {
    /// Jobs with a prediction.
    pub jobs: usize,
    /// D_v: sum |Y - X| / sum X, percent, for turnaround, execution and waiting time.
    pub dv_response: f64,
    pub dv_run: f64,
    pub dv_wait: f64,
    /// sum (Y - X) / sum X, percent: negative when the estimates are optimistic.
    pub bias_response: f64,
    /// Adjusted coefficient of determination of the least-squares line of Y on X.
    pub ra_response: f64,
    pub ra_run: f64,
    pub ra_wait: f64,
    /// That line, Y = slope X + intercept (seconds), for execution and waiting time.
    pub fit_run: (f64, f64),
    pub fit_wait: (f64, f64),
}

impl Accuracy {
    pub fn of(predictions: &[Option<TurnaroundPrediction>], outcomes: &[JobOutcome]) -> Accuracy {
        let pairs: Vec<(TurnaroundPrediction, &JobOutcome)> = predictions
            .iter()
            .zip(outcomes)
            .filter_map(|(p, o)| p.map(|p| (p, o)))
            .collect();
        // (observed X, predicted Y) per metric.
        let series = |f: fn(&TurnaroundPrediction, &JobOutcome) -> (f64, f64)| -> Vec<(f64, f64)> {
            pairs.iter().map(|(p, o)| f(p, o)).collect()
        };
        let turnaround = series(|p, o| (o.turnaround(), p.turnaround()));
        let exec = series(|p, o| (o.exec(), p.exec));
        let wait = series(|p, o| (o.wait(), p.wait));
        Accuracy {
            jobs: pairs.len(),
            dv_response: deviation(&turnaround, f64::abs),
            dv_run: deviation(&exec, f64::abs),
            dv_wait: deviation(&wait, f64::abs),
            bias_response: deviation(&turnaround, |d| d),
            ra_response: adjusted_r2(&turnaround),
            ra_run: adjusted_r2(&exec),
            ra_wait: adjusted_r2(&wait),
            fit_run: least_squares(&exec).0,
            fit_wait: least_squares(&wait).0,
        }
    }
}

/// 100 x sum of `error(Y - X)` over sum of X (equation 13 with the absolute value).
fn deviation(xy: &[(f64, f64)], error: fn(f64) -> f64) -> f64 {
    let (err, sum) = xy
        .iter()
        .fold((0.0, 0.0), |(e, s), &(x, y)| (e + error(y - x), s + x));
    100.0 * err / sum
}

/// The least-squares line of Y on X, (slope, intercept), and its R^2 (NaN without spread).
fn least_squares(xy: &[(f64, f64)]) -> ((f64, f64), f64) {
    let n = xy.len() as f64;
    let mx = xy.iter().map(|p| p.0).sum::<f64>() / n;
    let my = xy.iter().map(|p| p.1).sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in xy {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    let slope = sxy / sxx;
    ((slope, my - slope * mx), sxy * sxy / (sxx * syy))
}

/// Adjusted R^2 of the least-squares line of Y on X (NaN for fewer than 3 points).
fn adjusted_r2(xy: &[(f64, f64)]) -> f64 {
    let n = xy.len() as f64;
    if n < 3.0 {
        return f64::NAN;
    }
    let r2 = least_squares(xy).1;
    1.0 - (1.0 - r2) * (n - 1.0) / (n - 2.0)
}
