//! The partitioning policies of Anastasiadis & Sevcik (section 3), one file each, in one
//! registry (`plugins!` below): `dyn-equi`, `asp`, `ap1`, `aep` (FIFO queue), `asp(1)`,
//! `ap1(1)`, `aep(1)` (queue in shortest-demand-first order), `asp(2)`, `ap1(2)`, `aep(2)`
//! (SDF queue, and the processors handed out by DIF; `dif=free` lets DIF hand out every
//! free processor), `sdf` and `sdf-max(max=N)`. Adding a policy: a file with its type, its
//! [`Entry`](crate::plugin::Entry) and its [`Partitioning`], and a line in the registry.

mod aep;
mod ap1;
mod asp;
mod dyn_equi;
mod sdf;

pub use aep::Aep;
pub use ap1::Ap1;
pub use asp::Asp;
pub use dyn_equi::DynEqui;
pub use sdf::{Sdf, SdfMax};

use std::fmt;

use super::workload::MoldableJob;
use crate::call::{Call, CallError};
use crate::plugin::plugins;

/// What a partitioning policy decides at an allocation step of the simulator
/// (`partition::sim`).
pub trait Partitioning {
    /// Whether every job in the system shares the processors, divided anew at every
    /// arrival and departure (preemptive), rather than keeping the partition it starts on.
    fn preemptive(&self) -> bool {
        false
    }
    /// Whether the queue is kept in shortest-demand-first order (by T(1)), not by arrival.
    fn sdf_queue(&self) -> bool {
        false
    }
    /// The partition sizes, in `sizes`, of the first jobs of `step.queue` that start now
    /// (fewer than the queue when the processors run out). Preemptive: the shares of every
    /// job in the system (then `step.queue`), out of every processor (then `step.free`).
    /// `caps` is scratch.
    fn divide(&self, step: &Step, caps: &mut Vec<u32>, sizes: &mut Vec<u32>);
}

/// What the policy sees at an allocation step.
pub struct Step<'a> {
    pub jobs: &'a [MoldableJob],
    /// The waiting jobs in queue order (preemptive: every job in the system, by arrival).
    pub queue: &'a [usize],
    pub free: u32,
    pub running: usize,
    pub procs: u32,
}

plugins! {
    /// A partitioning policy by name and parameters, as `--policy` and sweeps write it.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Policy: dyn Partitioning, "policy" {
        DynEqui(DynEqui),
        Asp(Asp),
        Ap1(Ap1),
        Aep(Aep),
        Sdf(Sdf),
        SdfMax(SdfMax),
    }
}

impl Policy {
    /// Preemptive dynamic equipartition, the reference every policy is normalised by.
    pub const DYN_EQUI: Policy = Policy::DynEqui(DynEqui);
}

/// What the adaptive rules ASP, AP1 and AEP know of the jobs (the paper's AEP, AEP(1),
/// AEP(2)): 0, a FIFO queue; 1, a queue in shortest-demand-first order; 2, that queue and
/// DIF's distribution of the processors the rule hands out, or with `dif_free` of every
/// free processor among the jobs the rule activates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Knowledge {
    pub level: u8,
    pub dif_free: bool,
}

impl Knowledge {
    /// Reads the level written as the bare value (`aep(2)`) and, at level 2, `dif`.
    fn parse(call: &mut Call) -> Result<Knowledge, CallError> {
        let level = match call.positional() {
            None => 0,
            Some("1") => 1,
            Some("2") => 2,
            Some(other) => {
                return Err(call.invalid(format!(
                    "'{other}' is not a knowledge level; asp, ap1 and aep take (1) or (2)"
                )));
            }
        };
        let dif_free = level == 2 && call.choice("dif", false, &[("rule", false), ("free", true)])?;
        Ok(Knowledge { level, dif_free })
    }

    fn write(self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.level, self.dif_free) {
            (0, _) => f.write_str(name),
            (k, false) => write!(f, "{name}({k})"),
            (k, true) => write!(f, "{name}({k},dif=free)"),
        }
    }

    /// At level 2, DIF redistributes what the rule handed out (or every free processor).
    fn redistribute(self, step: &Step, sizes: &mut [u32]) {
        if self.level == 2 {
            let total = if self.dif_free {
                step.free
            } else {
                sizes.iter().sum()
            };
            differential(step.jobs, &step.queue[..sizes.len()], total, sizes);
        }
    }
}

/// Each job of the queue in turn gets min(p_max, `target`, free) while a processor is free.
fn in_turn(step: &Step, target: u32, sizes: &mut Vec<u32>) {
    sizes.clear();
    let mut left = step.free;
    for &j in step.queue {
        if left == 0 {
            break;
        }
        let size = step.jobs[j].p_max.min(target).min(left);
        sizes.push(size);
        left -= size;
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

/// DIF: one processor each for `jobs_in`, then the rest of `total` one at a time to the
/// job whose run time drops most (T(p) - T(p+1), below p_max; ties to the earlier one).
fn differential(jobs: &[MoldableJob], jobs_in: &[usize], total: u32, sizes: &mut [u32]) {
    for s in sizes.iter_mut() {
        *s = 1;
    }
    for _ in jobs_in.len() as u32..total {
        let best = (0..jobs_in.len())
            .filter(|&i| sizes[i] < jobs[jobs_in[i]].p_max)
            .map(|i| {
                let (job, p) = (&jobs[jobs_in[i]], sizes[i]);
                (i, job.time(p) - job.time(p + 1))
            })
            .fold(None::<(usize, f64)>, |best, (i, gain)| match best {
                Some((_, g)) if g >= gain => best,
                _ => Some((i, gain)),
            });
        match best {
            Some((i, _)) => sizes[i] += 1,
            None => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partition::Shape;

    fn job(arrival: f64, work: f64, p_max: u32) -> MoldableJob {
        MoldableJob::new(arrival, work, p_max, Shape::Good)
    }

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

    #[test]
    fn dif_gives_processors_where_time_drops_most() {
        // Two jobs, 6 processors to hand out: W = 100 (p_max 10) and W = 10 (p_max 10).
        // Each starts with 1; the big one's drops (100/2 - ...) dominate.
        let jobs = [job(0.0, 100.0, 10), job(0.0, 10.0, 10)];
        let mut sizes = vec![0, 0];
        differential(&jobs, &[0, 1], 6, &mut sizes);
        // Gains T(p) - T(p+1) = W / (p (p + 1)) - W / 100: big 49, 15.67, 7.33, 4, ...;
        // small 4.9, 1.57, ... The 4 to hand out go to big (2, 3, 4), then small (4.9 > 4).
        assert_eq!(sizes, [4, 2]);
        // Equal gains go to the earlier job in the queue.
        let twins = [job(0.0, 30.0, 8), job(0.0, 30.0, 8)];
        differential(&twins, &[0, 1], 3, &mut sizes);
        assert_eq!(sizes, [2, 1]);
    }
}
