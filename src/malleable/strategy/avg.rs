//! AVG: work-conserving, the head starts as soon as one processor is free.

use super::{Allocating, Deciding};
use crate::call::{Call, CallError};
use crate::plugin::Entry;

/// Start as soon as one processor is free, on min(largest cluster, free).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Avg;

impl Entry for Avg {
    const NAME: &'static str = "avg";
    const SYNTAX: &'static str = "avg";
    const HELP: &'static str =
        "start as soon as a processor is free, on as many as are free up to the largest cluster";
    fn parse(_call: &mut Call) -> Result<Self, CallError> {
        Ok(Avg)
    }
}

impl Allocating for Avg {
    fn decide(&self, d: &mut Deciding) -> Option<u32> {
        let free = d.situation.free;
        (free >= 1).then(|| free.min(d.max))
    }
}
