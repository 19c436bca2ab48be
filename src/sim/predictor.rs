//! The seam between the engine and runtime predictors (`crate::predict`): the hooks of
//! Talby, Tsafrir, Goldberg & Feitelson's predictor interface.

use crate::Time;
use crate::workload::{JobId, Jobs};

/// What a predictor may read when a hook is called.
pub struct PredictorView<'a> {
    pub now: Time,
    pub jobs: &'a Jobs,
    /// Start time of each job (`Time::MIN` while it waits).
    pub start: &'a [Time],
    /// Each job's current prediction.
    pub prediction: &'a [Time],
}

/// A runtime predictor. The engine calls `on_arrival` for every job before the scheduler
/// sees it, and `on_deadline_missed` when a running job reaches start + prediction without
/// ending. Predictions are whole seconds; the engine raises any below 1 s to 1 s, and any
/// missed-deadline answer to more than the job's current runtime, so a running job's
/// predicted end is always in the future.
///
/// A hook added here must be forwarded by the predictor registry's dispatch
/// (`crate::predict`'s `predictors!`), which names each one.
pub trait RuntimePredictor {
    /// Whether `on_start` does anything: the engine records started jobs only then.
    const USES_START_HOOK: bool = false;

    /// Prepares for a run over `jobs`; buffers are kept between runs.
    fn reset(&mut self, jobs: &Jobs);
    /// The prediction for `job`, which arrives at `view.now`.
    fn on_arrival(&mut self, job: JobId, view: &PredictorView) -> Time;
    /// `job` started at `view.now` (called only if `USES_START_HOOK`).
    fn on_start(&mut self, _job: JobId, _view: &PredictorView) {}
    /// `job` ended at `view.now`. The predictor may push new predictions for other jobs
    /// that have arrived and not ended (propagation); the engine applies them, but for a
    /// running job only one above its current runtime (else its prediction stands).
    fn on_termination(&mut self, _job: JobId, _view: &PredictorView, _updates: &mut Vec<(JobId, Time)>) {}
    /// `job` is still running at its predicted end, `view.now`, after `misses` earlier
    /// misses: a new, larger prediction.
    fn on_deadline_missed(&mut self, job: JobId, misses: u32, view: &PredictorView) -> Time;
}

/// The user estimate as the prediction: the predictor behind plain EASY, and the default.
/// No job outlives its estimate (it is killed there), so it never misses a deadline but
/// for a job of estimate 0, predicted at the 1 s floor, which ends at once.
#[derive(Clone, Copy, Debug, Default)]
pub struct UserEstimates;

impl RuntimePredictor for UserEstimates {
    fn reset(&mut self, _jobs: &Jobs) {}

    fn on_arrival(&mut self, job: JobId, view: &PredictorView) -> Time {
        view.jobs.estimate[job.index()]
    }

    fn on_deadline_missed(&mut self, job: JobId, _misses: u32, view: &PredictorView) -> Time {
        view.jobs.estimate[job.index()].max(view.prediction[job.index()] + 1)
    }
}
