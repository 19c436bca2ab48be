//! Malleable jobs that choose their cluster size when they reach the head of an FCFS queue
//! (Downey 1997, sections 5-6): the allocation strategies AVG, OPT, PRED, BIAS and HEUR,
//! and a simulator in which each one schedules a workload of the Downey model.

mod application;
mod bias;
mod sim;
mod text;

pub use application::{ApplicationReport, application_centric};
pub use bias::{BiasFit, PredictionQuality};
pub use sim::{
    JobByJob, MALLEABLE_METRICS, MIN_PROMPT_INTERVAL, MalleableOutcome, MalleableReport, VERSUS_AVG_METRICS,
    simulate,
};

use crate::params::ParamError;
use std::fmt;
use std::str::FromStr;

use crate::call::{Call, CallError};
use crate::queue_time::QueueMethod;

/// How the job at the head of the queue chooses its cluster size (n <= its maximum: A rounded
/// by [`MaxCluster`], floor by default, and capped at the machine size).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Strategy {
    /// Work-conserving: start as soon as one processor is free, on min(max, free).
    Avg,
    /// Minimise Q(n) + R(n) with Q(n) known exactly from the running jobs' end times.
    Opt,
    /// Minimise Q(n) + R(n) with predicted Q(n).
    Pred { method: QueueMethod },
    /// PRED with bias-corrected predictions (least squares of log outcome on log
    /// prediction, fitted online).
    Bias { method: QueueMethod },
    /// Jobs with L > l_thresh and A > a_thresh hold out for ceil(f A) processors, for at
    /// most k t_save (t_save = R(n_free) - R(f A)), then take what is free.
    Heur {
        l_thresh: f64,
        a_thresh: f64,
        f: f64,
        k: f64,
    },
}

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

/// A strategy with the options of the rebelling ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Allocation {
    pub strategy: Strategy,
    /// A rebel declares the n it holds out for and never takes more.
    pub lock_in: bool,
    /// Rebel only if the predicted saving exceeds this fraction of the run time on the
    /// processors free now (Downey: 0.2); 0 rebels for any saving.
    pub risk_aversion: f64,
    /// PRED and BIAS: predict from the model's lifetime distribution (e^2 to e^12 s)
    /// instead of the one fitted online to finished jobs' run times.
    pub model_lifetimes: bool,
    /// PRED and BIAS: a rebel reconsiders at every event (each arrival and completion)
    /// rather than only at Downey's prompts (`prompts=events` against `prompts=paper`).
    pub every_event: bool,
    /// The largest cluster of each job; not part of the strategy's text (see [`MaxCluster`]).
    pub max_cluster: MaxCluster,
}

impl Allocation {
    /// AVG with the default largest clusters.
    pub const AVG: Allocation = Allocation {
        strategy: Strategy::Avg,
        lock_in: false,
        risk_aversion: 0.0,
        model_lifetimes: false,
        every_event: false,
        max_cluster: MaxCluster::Floor,
    };

    /// AVG on the same largest clusters as this allocation: the schedule it is compared with.
    pub fn avg_beside(&self) -> Allocation {
        Allocation {
            max_cluster: self.max_cluster,
            ..Allocation::AVG
        }
    }

    pub const NAMES: [&'static str; 5] = [
        "avg",
        "opt(lock_in=false,risk=0)",
        "pred(predictor=combined|a|b|exact|simulation,lifetimes=fitted|model,prompts=paper|events,lock_in=false,risk=0)",
        "bias(predictor=combined|a|b|exact|simulation,lifetimes=fitted|model,prompts=paper|events,lock_in=false,risk=0)",
        "heur(l_thresh=0,a_thresh=1,f=1,k=0.2,lock_in=false)",
    ];
}

impl FromStr for Allocation {
    type Err = CallError;

    fn from_str(s: &str) -> Result<Self, CallError> {
        let mut call = Call::parse("strategy", s)?;
        let name = call.name();
        if !["avg", "opt", "pred", "bias", "heur"].contains(&name) {
            return Err(call.unknown_name(&Self::NAMES));
        }
        const NUMBER: &str = "a number >= 0";
        let number = |v: &str| v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0);
        let mut a = Allocation::AVG;
        if name != "avg" {
            a.lock_in = call.flag("lock_in", false)?;
        }
        if matches!(name, "opt" | "pred" | "bias") {
            a.risk_aversion = call.take_with("risk", 0.0, NUMBER, number)?;
        }
        let mut method = QueueMethod::Combined;
        if matches!(name, "pred" | "bias") {
            let methods = format!("one of {}", QueueMethod::NAMES.join(", "));
            method = call.take_with("predictor", method, &methods, |v| v.parse().ok())?;
            a.model_lifetimes = call.choice("lifetimes", false, &[("fitted", false), ("model", true)])?;
            a.every_event = call.choice("prompts", false, &[("paper", false), ("events", true)])?;
        }
        a.strategy = match name {
            "avg" => Strategy::Avg,
            "opt" => Strategy::Opt,
            "pred" => Strategy::Pred { method },
            "bias" => Strategy::Bias { method },
            _ => Strategy::Heur {
                l_thresh: call.take_with("l_thresh", 0.0, NUMBER, number)?,
                a_thresh: call.take_with("a_thresh", 1.0, NUMBER, number)?,
                f: call.take_with("f", 1.0, NUMBER, number)?,
                k: call.take_with("k", 0.2, NUMBER, number)?,
            },
        };
        call.finish(a)
    }
}

impl fmt::Display for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lock, risk) = (self.lock_in, self.risk_aversion);
        let lifetimes = if self.model_lifetimes { "model" } else { "fitted" };
        let prompts = if self.every_event { "events" } else { "paper" };
        match self.strategy {
            Strategy::Avg => f.write_str("avg"),
            Strategy::Opt => write!(f, "opt(lock_in={lock},risk={risk})"),
            Strategy::Pred { method } => write!(
                f,
                "pred(predictor={method},lifetimes={lifetimes},prompts={prompts},lock_in={lock},risk={risk})"
            ),
            Strategy::Bias { method } => write!(
                f,
                "bias(predictor={method},lifetimes={lifetimes},prompts={prompts},lock_in={lock},risk={risk})"
            ),
            Strategy::Heur {
                l_thresh,
                a_thresh,
                f: frac,
                k,
            } => write!(
                f,
                "heur(l_thresh={l_thresh},a_thresh={a_thresh},f={frac},k={k},lock_in={lock})"
            ),
        }
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
