//! The partitioning policies of Anastasiadis & Sevcik (section 3), by name:
//! `dyn-equi`, `asp`, `ap1`, `aep` (FIFO queue), `asp(1)`, `ap1(1)`, `aep(1)` (queue in
//! shortest-demand-first order), `asp(2)`, `ap1(2)`, `aep(2)` (SDF queue, and the
//! processors handed out by DIF; `dif=free` lets DIF hand out every free processor),
//! `sdf` and `sdf-max(max=N)`.

use std::fmt;
use std::str::FromStr;

use crate::call::{Call, CallError};

/// How many processors the adaptive rules aim at per job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Free processors divided as equally as possible among the waiting jobs.
    Asp,
    /// Target P / waiting jobs.
    Ap1,
    /// Target P / (waiting + running jobs).
    Aep,
    /// Shortest demand first: each job min(p_max, max, free).
    Sdf { max: Option<u32> },
}

/// A partitioning policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Preemptive dynamic equipartition with zero reallocation overhead.
    DynEqui,
    /// A non-preemptive rule; `knowledge` 0: FIFO queue; 1: SDF queue; 2: SDF queue and DIF
    /// distribution of the processors the rule hands out, or with `dif_free` (only at
    /// level 2) of every free processor among the jobs the rule activates.
    Adaptive {
        rule: Rule,
        knowledge: u8,
        dif_free: bool,
    },
}

impl Policy {
    pub const NAMES: [&'static str; 7] = [
        "dyn-equi",
        "asp",
        "ap1",
        "aep",
        "asp(1|2), ap1(1|2), aep(1|2), with (2) also dif=rule|free",
        "sdf",
        "sdf-max(max=N)",
    ];

    /// Queue in shortest-demand-first order (by T(1)).
    pub fn sdf_queue(self) -> bool {
        match self {
            Policy::DynEqui => false,
            Policy::Adaptive { rule, knowledge, .. } => knowledge >= 1 || matches!(rule, Rule::Sdf { .. }),
        }
    }
}

impl FromStr for Policy {
    type Err = CallError;

    fn from_str(s: &str) -> Result<Self, CallError> {
        let mut call = Call::parse("policy", s)?;
        let rule = match call.name() {
            "dyn-equi" => return call.finish(Policy::DynEqui),
            "asp" => Rule::Asp,
            "ap1" => Rule::Ap1,
            "aep" => Rule::Aep,
            "sdf" => Rule::Sdf { max: None },
            "sdf-max" => Rule::Sdf {
                max: Some(call.take_with("max", 0, "a whole number >= 1", |v| {
                    v.parse().ok().filter(|&m| m >= 1)
                })?),
            },
            _ => return Err(call.unknown_name(&Policy::NAMES)),
        };
        // The paper's knowledge levels, written as its AEP(1) and AEP(2).
        let knowledge = match (rule, call.positional()) {
            (Rule::Sdf { .. }, None) => 1,
            (_, None) => 0,
            (Rule::Asp | Rule::Ap1 | Rule::Aep, Some("1")) => 1,
            (Rule::Asp | Rule::Ap1 | Rule::Aep, Some("2")) => 2,
            (_, Some(other)) => {
                return Err(call.invalid(format!(
                    "'{other}' is not a knowledge level; asp, ap1 and aep take (1) or (2)"
                )));
            }
        };
        let dif_free = if knowledge == 2 {
            call.choice("dif", false, &[("rule", false), ("free", true)])?
        } else {
            false
        };
        // sdf-max's max has no default: said after any unknown key.
        let missing = call.invalid("write sdf-max(max=N), N >= 1");
        match call.finish(Policy::Adaptive {
            rule,
            knowledge,
            dif_free,
        })? {
            Policy::Adaptive {
                rule: Rule::Sdf { max: Some(0) },
                ..
            } => Err(missing),
            policy => Ok(policy),
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Policy::DynEqui => f.write_str("dyn-equi"),
            Policy::Adaptive {
                rule: Rule::Sdf { max: None },
                ..
            } => f.write_str("sdf"),
            Policy::Adaptive {
                rule: Rule::Sdf { max: Some(m) },
                ..
            } => write!(f, "sdf-max(max={m})"),
            Policy::Adaptive {
                rule,
                knowledge,
                dif_free,
            } => {
                let name = match rule {
                    Rule::Asp => "asp",
                    Rule::Ap1 => "ap1",
                    Rule::Aep => "aep",
                    Rule::Sdf { .. } => unreachable!(),
                };
                match (knowledge, dif_free) {
                    (0, _) => f.write_str(name),
                    (k, false) => write!(f, "{name}({k})"),
                    (k, true) => write!(f, "{name}({k},dif=free)"),
                }
            }
        }
    }
}

/// Divides `total` processors as equally as possible among jobs with caps `caps` (in
/// order; earlier jobs get the odd ones), none above its cap (water-filling). Returns the
/// shares in `out`.
pub fn equipartition(total: u32, caps: &[u32], out: &mut Vec<u32>) {
    out.clear();
    out.resize(caps.len(), 0);
    let mut left = total;
    // Raise every uncapped share by one per round, in order, until nothing is left.
    loop {
        let mut gave = false;
        for (share, &cap) in out.iter_mut().zip(caps) {
            if left == 0 {
                return;
            }
            if *share < cap {
                *share += 1;
                left -= 1;
                gave = true;
            }
        }
        if !gave {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_and_print_back() {
        for s in [
            "dyn-equi",
            "asp",
            "ap1",
            "aep",
            "asp(1)",
            "ap1(1)",
            "aep(1)",
            "asp(2)",
            "ap1(2)",
            "aep(2)",
            "aep(2,dif=free)",
            "asp(2,dif=free)",
            "sdf",
            "sdf-max(max=2)",
        ] {
            assert_eq!(s.parse::<Policy>().unwrap().to_string(), s);
        }
        assert_eq!(
            "aep(2, dif=rule)".parse::<Policy>().unwrap().to_string(),
            "aep(2)"
        );
        for bad in [
            "asp(3)",
            "sdf(1)",
            "sdf-max",
            "sdf-max(max=0)",
            "equi",
            "dyn-equi(1)",
            "aep(1,dif=free)",
            "aep(dif=free)",
            "aep(2,dif=all)",
            "aep(dif=free,2)",
        ] {
            assert!(bad.parse::<Policy>().is_err(), "{bad}");
        }
    }

    #[test]
    fn equipartition_fills_up_to_the_caps() {
        let mut out = Vec::new();
        equipartition(10, &[4, 16, 2], &mut out);
        assert_eq!(out, [4, 4, 2]);
        equipartition(7, &[16, 16, 16], &mut out);
        assert_eq!(out, [3, 2, 2]);
        equipartition(2, &[4, 4, 4], &mut out);
        assert_eq!(out, [1, 1, 0]);
        equipartition(40, &[4, 16], &mut out);
        assert_eq!(out, [4, 16]);
    }
}
