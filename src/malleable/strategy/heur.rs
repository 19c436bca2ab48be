//! HEUR: long, parallel jobs hold out for a share of their parallelism, for a while.

use std::fmt;

use super::rebel::{NUMBER, number};
use super::{Allocating, Deciding};
use crate::call::{Call, CallError};
use crate::plugin::Entry;

/// Jobs with L > `l_thresh` and A > `a_thresh` hold out for ceil(`f` A) processors, for at
/// most `k` t_save (t_save = R(n_free) - R(f A)), then take what is free.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Heur {
    pub l_thresh: f64,
    pub a_thresh: f64,
    pub f: f64,
    pub k: f64,
    /// A rebel takes at most the ceil(f A) it held out for.
    pub lock_in: bool,
}

impl Default for Heur {
    fn default() -> Self {
        Heur {
            l_thresh: 0.0,
            a_thresh: 1.0,
            f: 1.0,
            k: 0.2,
            lock_in: false,
        }
    }
}

impl Entry for Heur {
    const NAME: &'static str = "heur";
    const SYNTAX: &'static str = "heur(l_thresh=0,a_thresh=1,f=1,k=0.2,lock_in=false)";
    const HELP: &'static str =
        "jobs longer than l_thresh and wider than a_thresh hold out for f A processors, for at most k t_save";
    fn parse(call: &mut Call) -> Result<Self, CallError> {
        let d = Heur::default();
        let lock_in = call.flag("lock_in", d.lock_in)?;
        Ok(Heur {
            l_thresh: call.take_with("l_thresh", d.l_thresh, NUMBER, number)?,
            a_thresh: call.take_with("a_thresh", d.a_thresh, NUMBER, number)?,
            f: call.take_with("f", d.f, NUMBER, number)?,
            k: call.take_with("k", d.k, NUMBER, number)?,
            lock_in,
        })
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Heur {
            l_thresh,
            a_thresh,
            f: frac,
            k,
            lock_in,
        } = self;
        write!(
            f,
            "heur(l_thresh={l_thresh},a_thresh={a_thresh},f={frac},k={k},lock_in={lock_in})"
        )
    }
}

impl Allocating for Heur {
    fn decide(&self, d: &mut Deciding) -> Option<u32> {
        let (now, free, prompted) = (d.situation.now, d.situation.free, d.situation.prompted);
        let (model, j, max) = (d.model, d.j, d.max);
        let head = &mut *d.head;
        let hold = ((self.f * model.avg_parallelism[j]).ceil() as u32).clamp(1, max);
        let holds_out = model.lifetime[j] > self.l_thresh && model.avg_parallelism[j] > self.a_thresh;
        let take = |free: u32| {
            if self.lock_in && holds_out {
                hold.min(free)
            } else {
                free.min(max)
            }
        };
        if free == 0 {
            None
        } else if !holds_out || free >= hold || prompted {
            Some(take(free))
        } else if head.target.is_some() {
            None
        } else {
            // Rebel now, unless waiting saves nothing; give in after k t_save.
            let t_save = super::run_time(model, j, free) - super::run_time(model, j, hold);
            if t_save <= 0.0 {
                Some(take(free))
            } else {
                head.target = Some(hold);
                head.prompt = Some(now + self.k * t_save).filter(|&p| p > now);
                head.rebelled = true;
                if head.prompt.is_none() {
                    Some(take(free))
                } else {
                    None
                }
            }
        }
    }
}
