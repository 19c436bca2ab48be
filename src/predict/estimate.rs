//! Estimate: the user estimate as the prediction (what EASY uses), as a predictor that can
//! be compared with the others; a missed prediction is raised to the estimate.

use super::raise_to_estimate;
use crate::Time;
use crate::sim::{PredictorView, RuntimePredictor};
use crate::workload::{JobId, Jobs};

#[derive(Clone, Copy, Debug, Default)]
pub struct Estimate;

impl RuntimePredictor for Estimate {
    fn reset(&mut self, _jobs: &Jobs) {}

    fn on_arrival(&mut self, job: JobId, view: &PredictorView) -> Time {
        view.jobs.estimate[job.index()]
    }

    fn on_deadline_missed(&mut self, job: JobId, misses: u32, view: &PredictorView) -> Time {
        raise_to_estimate(job, misses, view)
    }
}
