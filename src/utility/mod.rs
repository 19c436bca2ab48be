//! Utility functions of job completion time (Lee & Snavely): their representation, the
//! queue-to-priority mapping and the synthetic generator that augments a trace with them.

pub mod generate;
pub mod priority;

pub use generate::{DeadlineBasis, DecayMix, DecayType, StartBin, UtilityModel};
pub use priority::PriorityMap;

use crate::workload::Jobs;

/// How a trace gets its priorities and utility functions: the queue mapping, and the
/// generator for traces that do not carry functions of their own.
#[derive(Clone, Debug, PartialEq)]
pub struct Augmentation {
    pub priorities: PriorityMap,
    pub model: UtilityModel,
}

impl Augmentation {
    /// Sets `jobs.priority` from the map and, unless the trace brought its own functions
    /// (the SWF extension), generates them with `seed`.
    pub fn apply(&self, jobs: &mut Jobs, seed: u64) -> crate::error::Result<()> {
        self.model.validate()?;
        let priority = self.priorities.apply(jobs)?;
        if jobs.utility.is_none() {
            let (functions, _) = self
                .model
                .generate(jobs, &priority, self.priorities.levels(), seed);
            jobs.utility = Some(functions);
        }
        jobs.priority = Some(priority);
        Ok(())
    }
}

/// Makes every requested time exact (Lee & Snavely's Table 2): estimate = runtime, at
/// least 1 s.
pub fn exact_estimates(jobs: &mut Jobs) {
    for (e, &r) in jobs.estimate.iter_mut().zip(&jobs.runtime) {
        *e = r.max(1);
    }
}
