//! Application: Hanzich et al.'s Hybrid estimator (Algorithm 4) on a dedicated machine,
//! where no task ever shares a node: the mean runtime of the finished jobs of the same
//! application (executable and processors, any user), never above the estimate; the
//! estimate for a job of an unknown executable or an application not seen yet.

use super::live::NONE;
use std::fmt;

use super::{PredictorEntry, PredictorKind, raise_to_estimate};
use crate::Time;
use crate::sim::{PredictorView, RuntimePredictor};
use crate::workload::{JobId, Jobs};

#[derive(Clone, Debug, Default)]
pub struct Application {
    /// Each job's application index (`NONE` for an unknown executable).
    app_of: Vec<u32>,
    /// Per application: the finished jobs' runtime sum and count.
    app_runtime: Vec<(Time, u32)>,
    /// (executable, processors, job) of every job, sorted at reset.
    app_keys: Vec<(i32, u32, u32)>,
}

impl PredictorEntry for Application {
    type Predictor = Application;
    const NAMES: &'static [(&'static str, &'static str)] = &[("application", "application")];
    const HELP: &'static str = "the mean runtime of the application's finished jobs (executable and size), \
                                never above the estimate (Hanzich et al.'s Hybrid on a dedicated machine)";
    fn parse(_: &mut crate::call::Call) -> Result<PredictorKind, crate::call::CallError> {
        Ok(PredictorKind::Application)
    }
    fn write(_: &PredictorKind, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("application")
    }
    fn build(_: &PredictorKind) -> Application {
        Application::default()
    }
}

impl RuntimePredictor for Application {
    fn reset(&mut self, jobs: &Jobs) {
        // Dense application ids by (executable, processors), interned once per run.
        let keys = &mut self.app_keys;
        keys.clear();
        keys.extend(
            (0..jobs.len())
                .filter(|&j| jobs.executable[j] >= 0)
                .map(|j| (jobs.executable[j], jobs.procs[j], j as u32)),
        );
        keys.sort_unstable();
        self.app_of.clear();
        self.app_of.resize(jobs.len(), NONE);
        self.app_runtime.clear();
        let mut last = None;
        for &(exec, procs, j) in keys.iter() {
            if last != Some((exec, procs)) {
                self.app_runtime.push((0, 0));
                last = Some((exec, procs));
            }
            self.app_of[j as usize] = self.app_runtime.len() as u32 - 1;
        }
    }

    fn on_arrival(&mut self, job: JobId, view: &PredictorView) -> Time {
        let (j, estimate) = (job.index(), view.jobs.estimate[job.index()]);
        match self.app_of[j] {
            NONE => estimate,
            a => match self.app_runtime[a as usize] {
                (_, 0) => estimate,
                (sum, n) => (sum / n as Time).min(estimate),
            },
        }
    }

    fn on_termination(&mut self, job: JobId, view: &PredictorView, _updates: &mut Vec<(JobId, Time)>) {
        let j = job.index();
        if let Some(a) = self.app_runtime.get_mut(self.app_of[j] as usize) {
            *a = (a.0 + view.now - view.start[j], a.1 + 1);
        }
    }

    fn on_deadline_missed(&mut self, job: JobId, misses: u32, view: &PredictorView) -> Time {
        raise_to_estimate(job, misses, view)
    }
}
