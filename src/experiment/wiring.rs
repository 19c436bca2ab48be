//! The one place where schedulers meet runtime predictors: which predictor a scheduler
//! runs with, and the engine monomorphised for each (scheduler, predictor) pair, so the
//! event loop has no dynamic dispatch.

use crate::params::ParamError;
use crate::predict::{AnyPredictor, PredictorKind};
use crate::sched::{AnyScheduler, SchedulerKind};
use crate::sim::{Engine, Outcome, Scheduler, UserEstimates, Window};
use crate::workload::Jobs;

/// The predictor to run `scheduler` with, given the one asked for: schedulers that do not
/// read predictions (see [`SchedulerKind::uses_predictor`]) accept only `estimate`, which
/// is what they use anyway, and run with the user estimates (`None`).
pub fn predictor_for(
    scheduler: SchedulerKind,
    asked: PredictorKind,
) -> Result<Option<PredictorKind>, ParamError> {
    if scheduler.uses_predictor() {
        Ok(Some(asked))
    } else if asked == PredictorKind::Estimate {
        Ok(None)
    } else {
        Err(ParamError::Invalid(format!(
            "predictor = {asked}: scheduler {scheduler} does not use runtime predictions ({} do), so predictor \
             {asked} does not apply; only estimate does; drop such cells with [[exclude]]",
            SchedulerKind::predicting().join(", ")
        )))
    }
}

/// Simulation of a job table by a scheduler with a runtime predictor.
pub trait Simulate {
    /// Runs `jobs` on `procs` processors with predictions from `predictor` (`None`: the
    /// user estimates), measuring only `window` (see [`Engine::run_window`]). Pass only a
    /// predictor that [`predictor_for`] accepted.
    fn simulate<'e>(
        &mut self,
        engine: &'e mut Engine,
        jobs: &Jobs,
        procs: u32,
        predictor: Option<PredictorKind>,
        window: Option<&Window>,
    ) -> Outcome<'e>;
}

impl Simulate for AnyScheduler {
    fn simulate<'e>(
        &mut self,
        engine: &'e mut Engine,
        jobs: &Jobs,
        procs: u32,
        predictor: Option<PredictorKind>,
        window: Option<&Window>,
    ) -> Outcome<'e> {
        match predictor {
            None => self.run_with(engine, jobs, procs, &mut UserEstimates, window),
            Some(p) => self.run_with(engine, jobs, procs, &mut AnyPredictor::new(p), window),
        }
    }
}

/// A scheduler run by the engine as it is: those of a partition of nodes
/// ([`crate::sched::NodeScheduler`]) and under a cap over time
/// ([`crate::sched::CappedScheduler`]).
impl<S: Scheduler> Simulate for S {
    fn simulate<'e>(
        &mut self,
        engine: &'e mut Engine,
        jobs: &Jobs,
        procs: u32,
        predictor: Option<PredictorKind>,
        window: Option<&Window>,
    ) -> Outcome<'e> {
        match predictor {
            None => engine.run_window(jobs, procs, self, &mut UserEstimates, window),
            Some(p) => engine.run_window(jobs, procs, self, &mut AnyPredictor::new(p), window),
        }
    }
}
