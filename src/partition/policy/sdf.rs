//! SDF and SDF-Max: shortest demand first, each job taking what it can use (up to a cap).

use std::fmt;

use super::{Partitioning, Step, in_turn};
use crate::call::{Call, CallError};
use crate::plugin::Entry;

/// Shortest demand first: each job in turn gets min(p_max, free).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sdf;

impl Entry for Sdf {
    const NAME: &'static str = "sdf";
    const SYNTAX: &'static str = "sdf";
    const HELP: &'static str = "shortest demand first, each job on as many processors as it can use";
    fn parse(_call: &mut Call) -> Result<Self, CallError> {
        Ok(Sdf)
    }
}

impl Partitioning for Sdf {
    fn sdf_queue(&self) -> bool {
        true
    }
    fn divide(&self, step: &Step, _caps: &mut Vec<u32>, sizes: &mut Vec<u32>) {
        in_turn(step, step.procs, sizes);
    }
}

/// Shortest demand first: each job in turn gets min(p_max, `max`, free).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SdfMax {
    pub max: u32,
}

impl Entry for SdfMax {
    const NAME: &'static str = "sdf-max";
    const SYNTAX: &'static str = "sdf-max(max=N)";
    const HELP: &'static str = "shortest demand first, each job on at most N processors";
    fn parse(call: &mut Call) -> Result<Self, CallError> {
        let max = call.require_with("max", 1, "a whole number >= 1", |v| {
            v.parse().ok().filter(|&m| m >= 1)
        })?;
        Ok(SdfMax { max })
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sdf-max(max={})", self.max)
    }
}

impl Partitioning for SdfMax {
    fn sdf_queue(&self) -> bool {
        true
    }
    fn divide(&self, step: &Step, _caps: &mut Vec<u32>, sizes: &mut Vec<u32>) {
        in_turn(step, self.max, sizes);
    }
}
