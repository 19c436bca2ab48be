//! Constant: the information-less predictor; every job is predicted to run `c` seconds and
//! misses are extended by the gradual increments (it never sees the estimate).

use super::gradual_increment;
use crate::Time;
use crate::sim::{PredictorView, RuntimePredictor};
use crate::workload::{JobId, Jobs};

#[derive(Clone, Copy, Debug)]
pub struct Constant {
    pub c: Time,
}

impl RuntimePredictor for Constant {
    fn reset(&mut self, _jobs: &Jobs) {}

    fn on_arrival(&mut self, _job: JobId, _view: &PredictorView) -> Time {
        self.c
    }

    fn on_deadline_missed(&mut self, job: JobId, misses: u32, view: &PredictorView) -> Time {
        view.prediction[job.index()] + gradual_increment(misses + 1)
    }
}
