//! Malleable jobs that choose their cluster size when they reach the head of an FCFS queue
//! (Downey 1997, sections 5-6): the allocation strategies AVG, OPT, PRED, BIAS and HEUR,
//! and a simulator in which each one schedules a workload of the Downey model.

mod application;
mod bias;
mod sim;
pub mod strategy;
mod text;

pub use application::{ApplicationReport, application_centric};
pub use bias::{BiasFit, PredictionQuality};
pub use sim::{
    JobByJob, MALLEABLE_METRICS, MalleableOutcome, MalleableReport, MalleableSimulator, VERSUS_AVG_METRICS,
    simulate,
};
pub use strategy::{MIN_PROMPT_INTERVAL, Strategy};

use crate::params::ParamError;
use std::fmt;
use std::str::FromStr;

use crate::call::CallError;

/// How a job's largest cluster comes from its average parallelism A, which the model draws
/// as a real number: Downey says only "no more than A processors". The `max_cluster` key
/// of a malleable run sets it for every strategy alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MaxCluster {
    /// round(A), at least 1.
    Round,
    /// floor(A), at least 1: never more than A, the paper's words (the default; see
    /// results/downey1997/README.md for what each rule changes).
    #[default]
    Floor,
    /// ceil(A).
    Ceil,
}

impl MaxCluster {
    pub const NAMES: [&'static str; 3] = ["round", "floor", "ceil"];

    /// The largest cluster of a job with average parallelism `a` on `procs` processors.
    pub fn of(self, a: f64, procs: u32) -> u32 {
        let n = match self {
            MaxCluster::Round => a.round(),
            MaxCluster::Floor => a.floor(),
            MaxCluster::Ceil => a.ceil(),
        };
        (n.max(1.0) as u32).min(procs)
    }
}

impl fmt::Display for MaxCluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MaxCluster::Round => "round",
            MaxCluster::Floor => "floor",
            MaxCluster::Ceil => "ceil",
        })
    }
}

impl FromStr for MaxCluster {
    type Err = ParamError;

    fn from_str(s: &str) -> Result<Self, ParamError> {
        match s {
            "round" => Ok(MaxCluster::Round),
            "floor" => Ok(MaxCluster::Floor),
            "ceil" => Ok(MaxCluster::Ceil),
            _ => Err(ParamError::BadValue {
                key: "max_cluster".into(),
                value: s.into(),
                expected: format!("one of {}", Self::NAMES.join(", ")),
            }),
        }
    }
}

/// A strategy, and the rule for each job's largest cluster.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Allocation {
    pub strategy: Strategy,
    /// The largest cluster of each job; not part of the strategy's text (see [`MaxCluster`]).
    pub max_cluster: MaxCluster,
}

impl Allocation {
    /// AVG with the default largest clusters.
    pub const AVG: Allocation = Allocation {
        strategy: Strategy::Avg(strategy::Avg),
        max_cluster: MaxCluster::Floor,
    };

    /// AVG on the same largest clusters as this allocation: the schedule it is compared with.
    pub fn avg_beside(&self) -> Allocation {
        Allocation {
            max_cluster: self.max_cluster,
            ..Allocation::AVG
        }
    }
}

/// The strategy's text; the largest clusters are the default's (set by `max_cluster`).
impl FromStr for Allocation {
    type Err = CallError;

    fn from_str(s: &str) -> Result<Self, CallError> {
        Ok(Allocation {
            strategy: s.parse()?,
            max_cluster: MaxCluster::default(),
        })
    }
}

impl fmt::Display for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.strategy.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_parse_and_print_back() {
        for s in [
            "avg",
            "opt(lock_in=false,risk=0)",
            "pred(predictor=combined,lifetimes=fitted,prompts=paper,lock_in=false,risk=0)",
            "bias(predictor=exact,lifetimes=model,prompts=events,lock_in=true,risk=0.2)",
            "heur(l_thresh=0,a_thresh=1,f=1,k=0.2,lock_in=false)",
        ] {
            let a: Allocation = s.parse().unwrap();
            assert_eq!(a.to_string(), s);
        }
        assert_eq!(
            "bias".parse::<Allocation>().unwrap().to_string(),
            "bias(predictor=combined,lifetimes=fitted,prompts=paper,lock_in=false,risk=0)"
        );
        for bad in [
            "avgg",
            "avg(x=1)",
            "pred(risk=-1)",
            "heur(risk=0.2)",
            "opt(predictor=a)",
            "pred(predictor=c)",
            "opt(prompts=events)",
        ] {
            assert!(bad.parse::<Allocation>().is_err(), "{bad}");
        }
    }
}
