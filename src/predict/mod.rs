//! Runtime predictors for backfilling (Talby, Tsafrir, Goldberg & Feitelson), one file
//! each behind the engine's [`RuntimePredictor`](crate::sim::RuntimePredictor) hooks: [`Perfect`], [`Estimate`],
//! [`Constant`], [`Ruh`], [`Sbh`] (with and without estimates) and [`Application`]. A
//! [`PredictorKind`] names one with its parameters; [`AnyPredictor`] holds the chosen one
//! for a run, so the engine is monomorphised once for all of them.
//!
//! Adding a predictor: a file with its struct, its `RuntimePredictor` and its registry
//! [`PredictorEntry`], and a line in the registry (`kind.rs`).

mod application;
mod constant;
mod estimate;
mod kind;
mod live;
mod perfect;
mod ruh;
pub mod sbh;

pub use application::Application;
pub use constant::Constant;
pub use estimate::Estimate;
pub use kind::{AnyPredictor, PredictorEntry, PredictorKind};
pub use perfect::Perfect;
pub use ruh::{Ruh, Statistic};
pub use sbh::{Criteria, Growth, Sbh, SbhParams, Search};

use live::{LiveJobs, NONE};

use crate::Time;
use crate::sim::PredictorView;
use crate::workload::{JobId, Jobs};

/// The gradual increments, in seconds, by which a missed prediction is extended: on the
/// k-th miss (k from 1), by the k-th of 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 5 h, 10 h,
/// 20 h, 50 h, 100 h; after the last, each miss doubles the previous increment. The table
/// of Tsafrir's simulator, used by Talby et al. for every predictor that misses.
pub const GRADUAL_INCREMENTS: [Time; 11] = [
    60, 300, 900, 1_800, 3_600, 7_200, 18_000, 36_000, 72_000, 180_000, 360_000,
];

/// The increment for the `k`-th miss (k >= 1).
pub fn gradual_increment(k: u32) -> Time {
    let k = k.max(1) as usize;
    match GRADUAL_INCREMENTS.get(k - 1) {
        Some(&t) => t,
        None => {
            let doublings = (k - GRADUAL_INCREMENTS.len()).min(40) as u32;
            GRADUAL_INCREMENTS[GRADUAL_INCREMENTS.len() - 1].saturating_mul(1 << doublings)
        }
    }
}

/// The deadline-miss rule of the predictors that see the user estimate: raise a prediction
/// below the estimate to it (the job is killed there), else extend it by the gradual
/// increments.
fn raise_to_estimate(job: JobId, misses: u32, view: &PredictorView) -> Time {
    let (p, estimate) = (view.prediction[job.index()], view.jobs.estimate[job.index()]);
    if p < estimate {
        estimate
    } else {
        p + gradual_increment(misses + 1)
    }
}

/// The users of a run: ids run from 0 (dense small integers in archive logs); a job with a
/// negative id, or one beyond the bound, has no history.
#[derive(Clone, Copy, Debug, Default)]
struct Users(usize);

impl Users {
    /// One more than the largest user id (at most 10^7), 0 when no job has one.
    fn of_jobs(jobs: &Jobs) -> Users {
        let max_user = jobs.user.iter().copied().max().unwrap_or(-1).max(-1);
        Users(((i64::from(max_user) + 1) as usize).min(10_000_000))
    }

    fn count(self) -> usize {
        self.0
    }

    /// Job `j`'s user, if it has one.
    fn of(self, jobs: &Jobs, j: usize) -> Option<usize> {
        usize::try_from(jobs.user[j]).ok().filter(|&u| u < self.0)
    }
}

/// Propagation at job `j`'s termination: `j` leaves user `u`'s live jobs, and each other
/// live job whose prediction (`predict`) changed gets an update.
fn propagate(
    live: &mut LiveJobs,
    u: usize,
    j: usize,
    view: &PredictorView,
    updates: &mut Vec<(JobId, Time)>,
    mut predict: impl FnMut(usize) -> Time,
) {
    live.leave(u, j);
    let mut other = live.first(u);
    while other != NONE {
        let o = other as usize;
        let prediction = predict(o);
        if prediction != view.prediction[o] {
            updates.push((JobId(other), prediction));
        }
        other = live.next(other);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increments_follow_the_table_then_double() {
        let got: Vec<Time> = (1..=14).map(gradual_increment).collect();
        assert_eq!(
            got,
            [
                60, 300, 900, 1800, 3600, 7200, 18000, 36000, 72000, 180000, 360000, 720000, 1440000, 2880000
            ]
        );
    }
}
