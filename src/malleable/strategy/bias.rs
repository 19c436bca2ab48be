//! BIAS: PRED with its predictions corrected for bias, fitted online.

use std::fmt;

use super::rebel::{self, Predicting, Queue};
use super::{Allocating, Deciding};
use crate::call::{Call, CallError};
use crate::plugin::Entry;

/// PRED with bias-corrected predictions: a least-squares fit of log outcome on log
/// prediction, fitted online to the rebels' predictions and outcomes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bias(pub Predicting);

impl Entry for Bias {
    const NAME: &'static str = "bias";
    const SYNTAX: &'static str = "bias(predictor=combined|a|b|exact|simulation,lifetimes=fitted|model,prompts=paper|events,lock_in=false,risk=0)";
    const HELP: &'static str = "pred with its queue-time predictions corrected for their bias, fitted online";
    fn parse(call: &mut Call) -> Result<Self, CallError> {
        Predicting::parse(call).map(Bias)
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write(Self::NAME, f)
    }
}

impl Allocating for Bias {
    fn decide(&self, d: &mut Deciding) -> Option<u32> {
        rebel::decide(d, self.0.rebel, Queue::Corrected(self.0))
    }
}
