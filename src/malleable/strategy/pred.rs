//! PRED: minimise Q(n) + R(n) with Q(n) predicted from the running jobs' ages.

use std::fmt;

use super::rebel::{self, Predicting, Queue};
use super::{Allocating, Deciding};
use crate::call::{Call, CallError};
use crate::plugin::Entry;

/// The cluster size minimising Q(n) + R(n), with Q(n) predicted (Downey's section 5) from
/// the running jobs' ages and the lifetimes fitted so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pred(pub Predicting);

impl Entry for Pred {
    const NAME: &'static str = "pred";
    const SYNTAX: &'static str = "pred(predictor=combined|a|b|exact|simulation,lifetimes=fitted|model,prompts=paper|events,lock_in=false,risk=0)";
    const HELP: &'static str =
        "the n minimising queue time + run time, the queue time predicted from the running jobs' ages";
    fn parse(call: &mut Call) -> Result<Self, CallError> {
        Predicting::parse(call).map(Pred)
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write(Self::NAME, f)
    }
}

impl Allocating for Pred {
    fn decide(&self, d: &mut Deciding) -> Option<u32> {
        rebel::decide(d, self.0.rebel, Queue::Predicted(self.0))
    }
}
