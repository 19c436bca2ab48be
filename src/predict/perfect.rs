//! Perfect: the actual runtime, an upper bound on what any predictor can achieve.

use std::fmt;

use super::{PredictorEntry, PredictorKind, gradual_increment};
use crate::Time;
use crate::sim::{PredictorView, RuntimePredictor};
use crate::workload::{JobId, Jobs};

#[derive(Clone, Copy, Debug, Default)]
pub struct Perfect;

impl PredictorEntry for Perfect {
    type Predictor = Perfect;
    const NAMES: &'static [(&'static str, &'static str)] = &[("perfect", "perfect")];
    const HELP: &'static str = "the actual runtime: the bound no predictor can beat";
    fn parse(_: &mut crate::call::Call) -> Result<PredictorKind, crate::call::CallError> {
        Ok(PredictorKind::Perfect)
    }
    fn write(_: &PredictorKind, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("perfect")
    }
    fn build(_: &PredictorKind) -> Perfect {
        Perfect
    }
}

impl RuntimePredictor for Perfect {
    fn reset(&mut self, _jobs: &Jobs) {}

    fn on_arrival(&mut self, job: JobId, view: &PredictorView) -> Time {
        view.jobs.runtime[job.index()]
    }

    /// Never misses but for the 1 s floor of a zero runtime, which ends at once.
    fn on_deadline_missed(&mut self, job: JobId, misses: u32, view: &PredictorView) -> Time {
        view.prediction[job.index()] + gradual_increment(misses + 1)
    }
}
