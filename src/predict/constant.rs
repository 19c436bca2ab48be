//! Constant: the information-less predictor; every job is predicted to run `c` seconds and
//! misses are extended by the gradual increments (it never sees the estimate).

use std::fmt;

use super::{PredictorEntry, PredictorKind, gradual_increment};
use crate::Time;
use crate::call::{Call, CallError};
use crate::sim::{PredictorView, RuntimePredictor};
use crate::workload::{JobId, Jobs};

#[derive(Clone, Copy, Debug)]
pub struct Constant {
    pub c: Time,
}

impl PredictorEntry for Constant {
    type Predictor = Constant;
    const NAMES: &'static [(&'static str, &'static str)] = &[("constant", "constant(c=SECONDS)")];
    const HELP: &'static str = "every job predicted to run c seconds (default 1), misses extended gradually: \
                                the information-less baseline";
    fn parse(call: &mut Call) -> Result<PredictorKind, CallError> {
        Ok(PredictorKind::Constant {
            c: call.take("c", 1, "a whole number of seconds >= 1", |&c| c >= 1)?,
        })
    }
    fn write(kind: &PredictorKind, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match kind {
            PredictorKind::Constant { c } => write!(f, "constant(c={c})"),
            _ => f.write_str("constant"),
        }
    }
    fn build(kind: &PredictorKind) -> Constant {
        match kind {
            PredictorKind::Constant { c } => Constant { c: *c },
            _ => Constant { c: 1 },
        }
    }
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
