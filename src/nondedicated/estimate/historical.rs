//! Historical (Algorithms 1 and 2): the records of finished jobs nearest in the CPU time
//! waiting ahead.

use super::{Estimating, HistDb, Kernel, TurnaroundPrediction, cpu_of};
use crate::call::{Call, CallError};
use crate::nondedicated::model::ParallelJob;
use crate::nondedicated::sim::Snapshot;
use crate::plugin::Entry;

/// A job's wait and execution from the history: the records of its application whose
/// CPU time ahead was within 5% of its own (Algorithm 2), else the nearest (Algorithm 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Historical;

impl Entry for Historical {
    const NAME: &'static str = "historical";
    const SYNTAX: &'static str = "historical";
    const HELP: &'static str =
        "from the finished jobs of the same application with as much CPU time waiting ahead";
    fn parse(_call: &mut Call) -> Result<Self, CallError> {
        Ok(Historical)
    }
}

impl Estimating for Historical {
    fn reads_history(&self) -> bool {
        true
    }
    fn kernel<'a>(&self, _jobs: &'a [ParallelJob], _db: &'a HistDb) -> Option<Kernel<'a>> {
        None
    }
    fn predict(&self, job: usize, state: &Snapshot, db: &HistDb) -> Option<TurnaroundPrediction> {
        // Algorithm 1, lines 1-4: the CPU time of the jobs waiting before it.
        let before = &state.queue[..state.queue.len().saturating_sub(1)];
        db.historical(&state.jobs[job].app, cpu_of(state.jobs, before))
    }
}
