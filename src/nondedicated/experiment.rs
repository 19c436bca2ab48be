//! One experiment on a non-dedicated cluster, as the CLI and sweeps run it: the workload
//! and local users drawn from a seed, the run, and, with an estimator, its estimates scored.
//!
//! Seeds: the parallel workload takes the seed itself and the local users a stream mixed
//! from it, so policies and estimators compared under one seed see the same jobs and the
//! same local users (common random numbers). The history of the Historical and Hybrid
//! estimators is warmed by a run of `history_jobs` jobs in the same environment under the
//! next seed. The node speeds of the ground truth (`Truth`) come from a third stream.

use super::estimate::{Accuracy, Estimator, HistDb, Offline, Online, TurnaroundPrediction};
use super::model::{LocalLoad, ParallelJob, ParallelWorkload};
use super::sim::{ClusterRun, Setup, SimError, simulate, simulate_observed};
use crate::metrics::registry::{Registry, row};
use crate::params::ParamError;

/// Everything one run needs besides its seed.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterExperiment {
    pub setup: Setup,
    pub workload: ParallelWorkload,
    /// Share of nodes carrying a local user at any time.
    pub local_share: f64,
    /// Jobs of the run whose outcomes fill the Historical and Hybrid history.
    pub history_jobs: usize,
    pub estimator: Option<Estimator>,
    /// Estimate the whole workload once from the initial state instead of at each arrival.
    pub offline: bool,
}

/// What a run gave.
#[derive(Clone, Debug)]
pub struct Report {
    pub jobs: Vec<ParallelJob>,
    pub run: ClusterRun,
    pub predictions: Option<Vec<Option<TurnaroundPrediction>>>,
    pub accuracy: Option<Accuracy>,
    /// Records in the history when the run began.
    pub history: usize,
    /// Wall-clock seconds per estimate (on-line) or for the whole projection (off-line).
    pub estimate_seconds: f64,
}

/// A value of the estimates' accuracy; NaN without an estimator.
fn accuracy(r: &Report, f: fn(&Accuracy) -> f64) -> f64 {
    r.accuracy.as_ref().map_or(f64::NAN, f)
}

/// The metrics of a cluster run (`dv_*`, `bias_*`, `ra_*` and `fit_*` score the estimates,
/// NaN without an estimator). A run whose queue stops moving is saturated.
pub static CLUSTER_METRICS: Registry<Report> = Registry {
    kind: "a cluster run (model cisne)",
    metrics: &[
        row!("jobs", "Jobs", Jobs, Undefined, |r| r.run.jobs.len() as f64),
        row!("mean_wait", "Mean wait", Seconds, Infinite, |r| r
            .run
            .mean(|o| o.wait())),
        row!("mean_run", "Mean run (execution) time", Seconds, Undefined, |r| r
            .run
            .mean(|o| o.exec())),
        row!(
            "mean_response",
            "Mean response (turnaround) time",
            Seconds,
            Infinite,
            |r| { r.run.mean(|o| o.turnaround()) }
        ),
        row!("makespan", "Makespan", Seconds, Infinite, |r| r.run.makespan()),
        row!("mean_queue", "Mean queue length", Jobs, Infinite, |r| r
            .run
            .mean_queue),
        row!("dv_response", "D_v of response time", Percent, Undefined, |r| {
            accuracy(r, |a| a.dv_response)
        }),
        row!("dv_run", "D_v of run time", Percent, Undefined, |r| accuracy(
            r,
            |a| a.dv_run
        )),
        row!("dv_wait", "D_v of wait", Percent, Undefined, |r| accuracy(
            r,
            |a| a.dv_wait
        )),
        row!(
            "bias_response",
            "Bias of response time",
            Percent,
            Undefined,
            |r| accuracy(r, |a| a.bias_response),
            Signed
        ),
        row!(
            "ra_response",
            "Adjusted R² of response time",
            Number,
            Undefined,
            |r| accuracy(r, |a| a.ra_response)
        ),
        row!("ra_run", "Adjusted R² of run time", Number, Undefined, |r| {
            accuracy(r, |a| a.ra_run)
        }),
        row!("ra_wait", "Adjusted R² of wait", Number, Undefined, |r| accuracy(
            r,
            |a| a.ra_wait
        )),
        row!(
            "fit_run_slope",
            "Slope of predicted on observed run time",
            Number,
            Undefined,
            |r| { accuracy(r, |a| a.fit_run.0) }
        ),
        row!(
            "fit_run_intercept",
            "Intercept of predicted on observed run time",
            Seconds,
            Undefined,
            |r| { accuracy(r, |a| a.fit_run.1) },
            Signed
        ),
        row!(
            "fit_wait_slope",
            "Slope of predicted on observed wait",
            Number,
            Undefined,
            |r| { accuracy(r, |a| a.fit_wait.0) }
        ),
        row!(
            "fit_wait_intercept",
            "Intercept of predicted on observed wait",
            Seconds,
            Undefined,
            |r| { accuracy(r, |a| a.fit_wait.1) },
            Signed
        ),
    ],
};

impl ClusterExperiment {
    /// The local users for `seed`.
    pub fn local(&self, seed: u64) -> LocalLoad {
        LocalLoad::Generated {
            share: self.local_share,
            seed: crate::seed::mix64(seed ^ 0x6c6f_6361_6c00),
        }
    }

    /// Checks the parameters, naming the first bad one.
    pub fn validate(&self) -> Result<(), ParamError> {
        let hw = &self.setup.hardware;
        if hw.mpl == 0 {
            return Err(ParamError::Invalid("mpl must be at least 1".into()));
        }
        if hw.nodes < 16 {
            return Err(ParamError::Invalid(format!(
                "nodes = {}: the NAS jobs run on up to 16 tasks",
                hw.nodes
            )));
        }
        if hw.nodes > 65_536 {
            return Err(ParamError::Invalid(format!(
                "nodes = {}: at most 65536 nodes are simulated",
                hw.nodes
            )));
        }
        if !(0.0..=1.0).contains(&self.local_share) {
            return Err(ParamError::Invalid(format!(
                "local_share = {}: must be in [0, 1]",
                self.local_share
            )));
        }
        if !(self.workload.arrival_scale > 0.0 && self.workload.arrival_scale.is_finite()) {
            return Err(ParamError::Invalid(format!(
                "arrival_scale = {}: must be positive",
                self.workload.arrival_scale
            )));
        }
        let truth = &self.setup.truth;
        for (name, x) in [
            ("speed_noise", truth.speed_noise),
            ("interference", truth.interference),
        ] {
            if !(0.0..=10.0).contains(&x) {
                return Err(ParamError::Invalid(format!("{name} = {x}: must be in [0, 10]")));
            }
        }
        if !(hw.contract.cpu > 0.0 && hw.contract.cpu.is_finite()) {
            return Err(ParamError::Invalid(format!(
                "contract_cpu = {}: must be positive",
                hw.contract.cpu
            )));
        }
        if self.offline && !self.estimator.is_some_and(|e| e.projects()) {
            return Err(ParamError::Invalid(
                "the off-line mode needs a simulation kernel (REM-CPU) or hybrid".into(),
            ));
        }
        Ok(())
    }

    /// Jobs a replication simulates at most: the run's, or the history run's if longer.
    pub fn simulated_jobs(&self) -> u64 {
        self.workload.jobs.max(self.history_jobs) as u64
    }

    /// The setup for `seed`: the ground truth's node speeds drawn from their own stream.
    pub fn setup(&self, seed: u64) -> Setup {
        let mut setup = self.setup;
        setup.truth.seed = crate::seed::mix64(seed ^ 0x7472_7574_6800);
        setup
    }

    pub fn run(&self, seed: u64) -> Result<Report, SimError> {
        let jobs = self.workload.generate(seed);
        let local = self.local(seed);
        let setup = self.setup(seed);
        let mut db = HistDb::default();
        if self.estimator.is_some_and(|e| e.behaviour().reads_history()) {
            let history = ParallelWorkload {
                jobs: self.history_jobs,
                ..self.workload
            };
            let warm_jobs = history.generate(seed + 1);
            let mut warm = Online::new(Estimator::HISTORICAL, HistDb::default(), &warm_jobs);
            warm.estimate = false;
            simulate_observed(
                &self.setup(seed + 1),
                &warm_jobs,
                &self.local(seed + 1),
                &mut warm,
            )?;
            db = warm.db;
        }
        let history = db.records.len();
        let (run, predictions, estimate_seconds) = match self.estimator {
            None => (simulate(&setup, &jobs, &local)?, None, 0.0),
            Some(e) if self.offline => {
                let mut off = Offline::new(e, &db, jobs.len()).expect("validated");
                let run = simulate_observed(&setup, &jobs, &local, &mut off)?;
                (run, Some(off.predictions), off.cost)
            }
            Some(e) => {
                let mut on = Online::new(e, db, &jobs);
                let run = simulate_observed(&setup, &jobs, &local, &mut on)?;
                let per = on.cost / on.estimates.max(1) as f64;
                (run, Some(on.predictions), per)
            }
        };
        let accuracy = predictions.as_ref().map(|p| Accuracy::of(p, &run.jobs));
        Ok(Report {
            jobs,
            run,
            predictions,
            accuracy,
            history,
            estimate_seconds,
        })
    }
}
