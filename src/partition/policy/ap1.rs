//! AP1: each waiting job in turn gets up to P / waiting processors.

use std::fmt;

use super::{Knowledge, Partitioning, Step, in_turn};
use crate::call::{Call, CallError};
use crate::plugin::Entry;

/// Each waiting job in turn gets min(p_max, target, free) while a processor is free,
/// target = max(1, floor(P / waiting)) (with free in the minimum, the last job takes what
/// is left: the paper's footnote); then DIF at knowledge level 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ap1(pub Knowledge);

impl Entry for Ap1 {
    const NAME: &'static str = "ap1";
    const SYNTAX: &'static str = "ap1(1|2,dif=rule|free)";
    const HELP: &'static str = "each waiting job in turn up to P / waiting processors (levels as for asp)";
    fn parse(call: &mut Call) -> Result<Self, CallError> {
        Knowledge::parse(call).map(Ap1)
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write(Self::NAME, f)
    }
}

impl Partitioning for Ap1 {
    fn sdf_queue(&self) -> bool {
        self.0.level >= 1
    }
    fn divide(&self, step: &Step, _caps: &mut Vec<u32>, sizes: &mut Vec<u32>) {
        in_turn(step, (step.procs / step.queue.len() as u32).max(1), sizes);
        self.0.redistribute(step, sizes);
    }
}
