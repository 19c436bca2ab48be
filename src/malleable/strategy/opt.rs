//! OPT: minimise Q(n) + R(n) with Q(n) known exactly from the running jobs' ends.

use std::fmt;

use super::rebel::{self, Queue, Rebel};
use super::{Allocating, Deciding};
use crate::call::{Call, CallError};
use crate::plugin::Entry;

/// The oracle: the cluster size minimising Q(n) + R(n), with Q(n) from the running jobs'
/// actual ends, decided at every event.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Opt(pub Rebel);

impl Entry for Opt {
    const NAME: &'static str = "opt";
    const SYNTAX: &'static str = "opt(lock_in=false,risk=0)";
    const HELP: &'static str =
        "the n minimising queue time + run time, the queue time known exactly (an oracle)";
    fn parse(call: &mut Call) -> Result<Self, CallError> {
        Rebel::parse(call).map(Opt)
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "opt(lock_in={},risk={})", self.0.lock_in, self.0.risk_aversion)
    }
}

impl Allocating for Opt {
    fn decide(&self, d: &mut Deciding) -> Option<u32> {
        rebel::decide(d, self.0, Queue::Known)
    }
}
