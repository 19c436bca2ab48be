//! Where a workload comes from: a trace file or a seeded synthetic model.

use std::path::PathBuf;

use super::Workload;
use super::swf::{SwfOptions, read_swf};
use super::synth::Model;
use crate::error::Result;

/// A workload description that can be loaded (traces) or generated (models) on demand.
#[derive(Clone, Debug)]
pub enum WorkloadSpec {
    Trace { path: PathBuf, options: SwfOptions },
    Model(Model),
}

impl WorkloadSpec {
    /// Loads the trace or generates the model's jobs; `seed` only matters for models.
    pub fn load(&self, seed: u64) -> Result<Workload> {
        match self {
            WorkloadSpec::Trace { path, options } => read_swf(path, options),
            WorkloadSpec::Model(model) => Ok(model.generate(seed)),
        }
    }
}
