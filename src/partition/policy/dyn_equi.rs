//! DYN-EQUI: preemptive dynamic equipartition with zero reallocation overhead.

use super::{Partitioning, Step, equipartition};
use crate::call::{Call, CallError};
use crate::plugin::Entry;

/// All processors divided as equally as possible among the jobs in the system at every
/// arrival and departure, in arrival order (earlier jobs get the odd ones; beyond P jobs
/// the later ones get none), none above its p_max.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DynEqui;

impl Entry for DynEqui {
    const NAME: &'static str = "dyn-equi";
    const SYNTAX: &'static str = "dyn-equi";
    const HELP: &'static str =
        "preemptive dynamic equipartition: every processor shared among the jobs in the system";
    fn parse(_call: &mut Call) -> Result<Self, CallError> {
        Ok(DynEqui)
    }
}

impl Partitioning for DynEqui {
    fn preemptive(&self) -> bool {
        true
    }
    fn divide(&self, step: &Step, caps: &mut Vec<u32>, sizes: &mut Vec<u32>) {
        caps.clear();
        caps.extend(step.queue.iter().map(|&j| step.jobs[j].p_max));
        equipartition(step.free, caps, sizes);
    }
}
