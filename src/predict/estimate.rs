//! Estimate: the user estimate as the prediction (what EASY uses), as a predictor that can
//! be compared with the others; a missed prediction is raised to the estimate.

use std::fmt;

use super::{PredictorEntry, PredictorKind, raise_to_estimate};
use crate::Time;
use crate::sim::{PredictorView, RuntimePredictor};
use crate::workload::{JobId, Jobs};

#[derive(Clone, Copy, Debug, Default)]
pub struct Estimate;

impl PredictorEntry for Estimate {
    type Predictor = Estimate;
    const NAMES: &'static [(&'static str, &'static str)] = &[("estimate", "estimate")];
    const HELP: &'static str = "the user's estimate, what EASY uses (the default)";
    fn parse(_: &mut crate::call::Call) -> Result<PredictorKind, crate::call::CallError> {
        Ok(PredictorKind::Estimate)
    }
    fn write(_: &PredictorKind, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("estimate")
    }
    fn build(_: &PredictorKind) -> Estimate {
        Estimate
    }
}

impl RuntimePredictor for Estimate {
    fn reset(&mut self, _jobs: &Jobs) {}

    fn on_arrival(&mut self, job: JobId, view: &PredictorView) -> Time {
        view.jobs.estimate[job.index()]
    }

    fn on_deadline_missed(&mut self, job: JobId, misses: u32, view: &PredictorView) -> Time {
        raise_to_estimate(job, misses, view)
    }
}
