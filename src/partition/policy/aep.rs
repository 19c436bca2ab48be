//! AEP: each waiting job in turn gets up to P / (waiting + running) processors.

use std::fmt;

use super::{Knowledge, Partitioning, Step, in_turn};
use crate::call::{Call, CallError};
use crate::plugin::Entry;

/// Each waiting job in turn gets min(p_max, target, free) while a processor is free,
/// target = max(1, floor(P / (waiting + running))); then DIF at knowledge level 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Aep(pub Knowledge);

impl Entry for Aep {
    const NAME: &'static str = "aep";
    const SYNTAX: &'static str = "aep(1|2,dif=rule|free)";
    const HELP: &'static str =
        "each waiting job in turn up to P / (waiting + running) processors (levels as for asp)";
    fn parse(call: &mut Call) -> Result<Self, CallError> {
        Knowledge::parse(call).map(Aep)
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write(Self::NAME, f)
    }
}

impl Partitioning for Aep {
    fn sdf_queue(&self) -> bool {
        self.0.level >= 1
    }
    fn divide(&self, step: &Step, _caps: &mut Vec<u32>, sizes: &mut Vec<u32>) {
        let target = (step.procs / (step.queue.len() + step.running) as u32).max(1);
        in_turn(step, target, sizes);
        self.0.redistribute(step, sizes);
    }
}
