//! Malleable jobs that choose their cluster size when they reach the head of an FCFS queue
//! (Downey 1997, sections 5-6): the allocation strategies AVG, OPT, PRED, BIAS and HEUR,
//! and a simulator in which each one schedules a workload of the Downey model.

mod application;
mod bias;
mod sim;

pub use application::{ApplicationReport, application_centric};
pub use bias::{BiasFit, PredictionQuality};
pub use sim::{JobByJob, MALLEABLE_METRICS, MIN_PROMPT_INTERVAL, MalleableOutcome, simulate};

use std::fmt;
use std::str::FromStr;

use crate::queue_time::QueueMethod;

/// How the job at the head of the queue chooses its cluster size (n <= its maximum, round(A)
/// capped at the machine size).
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
}

impl Allocation {
    pub const NAMES: [&'static str; 5] = [
        "avg",
        "opt(lock_in=false,risk=0)",
        "pred(predictor=combined|a|b|exact|simulation,lifetimes=fitted|model,lock_in=false,risk=0)",
        "bias(predictor=combined|a|b|exact|simulation,lifetimes=fitted|model,lock_in=false,risk=0)",
        "heur(l_thresh=0,a_thresh=1,f=1,k=0.2,lock_in=false)",
    ];
}

impl FromStr for Allocation {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let (name, args) = match s.split_once('(') {
            Some((name, rest)) => (
                name.trim(),
                rest.strip_suffix(')')
                    .ok_or_else(|| format!("strategy '{s}': missing ')'"))?,
            ),
            None => (s, ""),
        };
        let mut a = Allocation {
            strategy: Strategy::Avg,
            lock_in: false,
            risk_aversion: 0.0,
            model_lifetimes: false,
        };
        let (mut method, mut heur) = (QueueMethod::Combined, (0.0, 1.0, 1.0, 0.2));
        let number = |key: &str, v: &str| -> Result<f64, String> {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| format!("strategy '{s}': {key} must be a number >= 0"))
        };
        for arg in args.split(',').map(str::trim).filter(|a| !a.is_empty()) {
            let (key, v) = arg
                .split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| format!("strategy '{s}': expected key=value, got '{arg}'"))?;
            let allowed = match (name, key) {
                ("opt" | "pred" | "bias" | "heur", "lock_in") => {
                    a.lock_in = v
                        .parse()
                        .map_err(|_| format!("strategy '{s}': lock_in must be true or false"))?;
                    true
                }
                ("opt" | "pred" | "bias", "risk") => {
                    a.risk_aversion = number(key, v)?;
                    true
                }
                ("pred" | "bias", "lifetimes") => {
                    a.model_lifetimes = match v {
                        "fitted" => false,
                        "model" => true,
                        _ => return Err(format!("strategy '{s}': lifetimes must be fitted or model")),
                    };
                    true
                }
                ("pred" | "bias", "predictor") => {
                    method = v.parse().map_err(|e| format!("strategy '{s}': {e}"))?;
                    true
                }
                ("heur", "l_thresh") => {
                    heur.0 = number(key, v)?;
                    true
                }
                ("heur", "a_thresh") => {
                    heur.1 = number(key, v)?;
                    true
                }
                ("heur", "f") => {
                    heur.2 = number(key, v)?;
                    true
                }
                ("heur", "k") => {
                    heur.3 = number(key, v)?;
                    true
                }
                _ => false,
            };
            if !allowed {
                return Err(format!(
                    "strategy '{s}': unknown parameter '{key}'; known strategies: {}",
                    Self::NAMES.join(", ")
                ));
            }
        }
        a.strategy = match name {
            "avg" => Strategy::Avg,
            "opt" => Strategy::Opt,
            "pred" => Strategy::Pred { method },
            "bias" => Strategy::Bias { method },
            "heur" => Strategy::Heur {
                l_thresh: heur.0,
                a_thresh: heur.1,
                f: heur.2,
                k: heur.3,
            },
            _ => {
                return Err(format!(
                    "unknown strategy '{name}'; known: {}",
                    Self::NAMES.join(", ")
                ));
            }
        };
        if name == "avg" && !args.trim().is_empty() {
            return Err(format!("strategy '{s}': avg takes no parameters"));
        }
        Ok(a)
    }
}

impl fmt::Display for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lock, risk) = (self.lock_in, self.risk_aversion);
        let lifetimes = if self.model_lifetimes { "model" } else { "fitted" };
        match self.strategy {
            Strategy::Avg => f.write_str("avg"),
            Strategy::Opt => write!(f, "opt(lock_in={lock},risk={risk})"),
            Strategy::Pred { method } => write!(
                f,
                "pred(predictor={method},lifetimes={lifetimes},lock_in={lock},risk={risk})"
            ),
            Strategy::Bias { method } => write!(
                f,
                "bias(predictor={method},lifetimes={lifetimes},lock_in={lock},risk={risk})"
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
            "pred(predictor=combined,lifetimes=fitted,lock_in=false,risk=0)",
            "bias(predictor=exact,lifetimes=model,lock_in=true,risk=0.2)",
            "heur(l_thresh=0,a_thresh=1,f=1,k=0.2,lock_in=false)",
        ] {
            let a: Allocation = s.parse().unwrap();
            assert_eq!(a.to_string(), s);
        }
        assert_eq!(
            "bias".parse::<Allocation>().unwrap().to_string(),
            "bias(predictor=combined,lifetimes=fitted,lock_in=false,risk=0)"
        );
        for bad in [
            "avgg",
            "avg(x=1)",
            "pred(risk=-1)",
            "heur(risk=0.2)",
            "opt(predictor=a)",
            "pred(predictor=c)",
        ] {
            assert!(bad.parse::<Allocation>().is_err(), "{bad}");
        }
    }
}
