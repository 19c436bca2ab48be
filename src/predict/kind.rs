//! A runtime predictor by name and parameters, as written on the command line and in
//! sweeps (the grammar of [`crate::call`]).

use std::fmt;
use std::str::FromStr;

use super::ruh::Statistic;
use super::sbh::SbhParams;
use crate::Time;
use crate::call::{Call, CallError};

/// A predictor by name and parameters, as written on the command line and in sweeps:
/// `perfect`, `estimate`, `constant(c=SECONDS)` (c defaults to 1),
/// `ruh(k=3,stat=median)` (k defaults to 3, stat to median), `sbh(...)` and
/// `sbh-noest(...)` ([`SbhParams`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PredictorKind {
    /// The actual runtime (an upper bound on what any predictor can achieve).
    Perfect,
    /// The user estimate (what EASY uses).
    Estimate,
    /// The information-less predictor: every job is predicted to run `c` seconds; misses
    /// are extended by the gradual increments.
    Constant { c: Time },
    /// Recent User History: the median (or mean) runtime of the user's last `k` finished
    /// jobs, never above the job's estimate; the estimate while the user has fewer. With
    /// `prop`, each termination recomputes the predictions of the user's waiting and
    /// running jobs.
    Ruh { k: usize, stat: Statistic, prop: bool },
    /// Session-Based History, with the user estimates (`growth` none) or without.
    Sbh(SbhParams),
    /// Hanzich et al.'s Hybrid estimator (Algorithm 4) on a dedicated machine, where no
    /// task ever shares a node: the mean runtime of the finished jobs of the same
    /// application (executable and processors, any user), never above the estimate; the
    /// estimate for a job of an unknown executable or an application not seen yet.
    Application,
}

pub const PREDICTOR_NAMES: [&str; 7] = [
    "perfect",
    "estimate",
    "constant(c=SECONDS)",
    "ruh(k=3,stat=median|mean,prop=false)",
    "sbh(criteria=PE|P|E|*,search=dfs|bfs,depth=unlimited|N,prop=true,think=1200)",
    "sbh-noest(criteria=PX|P|X|*,search=dfs|bfs,depth=unlimited|N,prop=false,think=1200,\
     growth=balanced|unbalanced,cap=100000)",
    "application",
];

impl FromStr for PredictorKind {
    type Err = CallError;

    fn from_str(s: &str) -> Result<Self, CallError> {
        let mut call = Call::parse("predictor", s)?;
        let kind = match call.name() {
            "perfect" => PredictorKind::Perfect,
            "estimate" => PredictorKind::Estimate,
            "application" => PredictorKind::Application,
            "constant" => PredictorKind::Constant {
                c: call.take("c", 1, "a whole number of seconds >= 1", |&c| c >= 1)?,
            },
            "ruh" => PredictorKind::Ruh {
                k: call.take("k", 3, "a whole number from 1 to 1000", |k| {
                    (1..=1000).contains(k)
                })?,
                stat: call.choice(
                    "stat",
                    Statistic::Median,
                    &[("median", Statistic::Median), ("mean", Statistic::Mean)],
                )?,
                prop: call.flag("prop", false)?,
            },
            "sbh" => PredictorKind::Sbh(SbhParams::from_call(false, &mut call)?),
            "sbh-noest" => PredictorKind::Sbh(SbhParams::from_call(true, &mut call)?),
            _ => return Err(call.unknown_name(&PREDICTOR_NAMES)),
        };
        call.finish(kind)
    }
}

impl fmt::Display for PredictorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PredictorKind::Perfect => f.write_str("perfect"),
            PredictorKind::Estimate => f.write_str("estimate"),
            PredictorKind::Application => f.write_str("application"),
            PredictorKind::Constant { c } => write!(f, "constant(c={c})"),
            PredictorKind::Ruh { k, stat, prop } => {
                let stat = match stat {
                    Statistic::Median => "median",
                    Statistic::Mean => "mean",
                };
                write!(f, "ruh(k={k},stat={stat},prop={prop})")
            }
            PredictorKind::Sbh(params) => params.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        for s in [
            "perfect",
            "estimate",
            "constant(c=1)",
            "constant(c=600)",
            "ruh(k=3,stat=median,prop=false)",
            "ruh(k=4,stat=mean,prop=true)",
        ] {
            let k: PredictorKind = s.parse().unwrap();
            assert_eq!(k.to_string(), s);
        }
        assert_eq!("constant".parse(), Ok(PredictorKind::Constant { c: 1 }));
        assert_eq!(
            " constant( c = 5 ) ".parse(),
            Ok(PredictorKind::Constant { c: 5 })
        );
        assert_eq!(
            "ruh".parse(),
            Ok(PredictorKind::Ruh {
                k: 3,
                stat: Statistic::Median,
                prop: false
            })
        );
        for bad in [
            "ruhh",
            "constant(c=0)",
            "constant(k=3)",
            "perfect(x=1)",
            "constant(c=1",
            "ruh(k=0)",
            "ruh(stat=mode)",
            "ruh(prop=yes)",
        ] {
            assert!(bad.parse::<PredictorKind>().is_err(), "{bad}");
        }
    }
}
