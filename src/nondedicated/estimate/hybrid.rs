//! Hybrid (Algorithm 4): Algorithm 3's projection, with each job's remaining time from
//! the history.

use super::{CpuMethod, Estimating, HistDb, Kernel};
use crate::call::{Call, CallError};
use crate::nondedicated::model::ParallelJob;
use crate::plugin::Entry;

/// The system projected (Algorithm 3), each job's RemTime from the history's records of
/// its application at its SharedTasksCount (Algorithm 4), CPUtime_cur by CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hybrid;

impl Entry for Hybrid {
    const NAME: &'static str = "hybrid";
    const SYNTAX: &'static str = "hybrid";
    const HELP: &'static str = "the system projected, each job's remaining time from the history";
    fn parse(_call: &mut Call) -> Result<Self, CallError> {
        Ok(Hybrid)
    }
}

impl Estimating for Hybrid {
    fn reads_history(&self) -> bool {
        true
    }
    fn kernel<'a>(&self, jobs: &'a [ParallelJob], db: &'a HistDb) -> Option<Kernel<'a>> {
        Some(Kernel {
            jobs,
            rem: None,
            cpu: CpuMethod::Cpu,
            db: Some(db),
        })
    }
}
