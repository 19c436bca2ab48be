//! ASP: the free processors divided as equally as possible among the first waiting jobs.

use std::fmt;

use super::{Knowledge, Partitioning, Step, equipartition};
use crate::call::{Call, CallError};
use crate::plugin::Entry;

/// The free processors divided as equally as possible among the first min(waiting, free)
/// waiting jobs, none above its p_max; then DIF at knowledge level 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Asp(pub Knowledge);

impl Entry for Asp {
    const NAME: &'static str = "asp";
    const SYNTAX: &'static str = "asp(1|2,dif=rule|free)";
    const HELP: &'static str = "the free processors shared equally among the first waiting jobs; bare: a FIFO \
        queue, (1): shortest demand first, (2): that and DIF's distribution of what the rule hands out \
        (dif=free: of every free processor)";
    fn parse(call: &mut Call) -> Result<Self, CallError> {
        Knowledge::parse(call).map(Asp)
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write(Self::NAME, f)
    }
}

impl Partitioning for Asp {
    fn sdf_queue(&self) -> bool {
        self.0.level >= 1
    }
    fn divide(&self, step: &Step, caps: &mut Vec<u32>, sizes: &mut Vec<u32>) {
        let k = step.queue.len().min(step.free as usize);
        caps.clear();
        caps.extend(step.queue[..k].iter().map(|&j| step.jobs[j].p_max));
        equipartition(step.free, caps, sizes);
        self.0.redistribute(step, sizes);
    }
}
