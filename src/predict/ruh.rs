//! Recent User History (Talby et al.): the median (or mean) runtime of the user's last `k`
//! finished jobs, never above the job's estimate; the estimate while the user has fewer.
//! With `prop`, each termination recomputes the predictions of the user's live jobs.

use std::fmt;

use super::live::LiveJobs;
use super::{PredictorEntry, PredictorKind};
use super::{Users, propagate, raise_to_estimate};
use crate::Time;
use crate::call::{Call, CallError};
use crate::sim::{PredictorView, RuntimePredictor};
use crate::workload::{JobId, Jobs};

/// How RUH summarises a user's recent runtimes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Statistic {
    /// The median; of an even count, the mean of the two middle values rounded down.
    Median,
    /// The mean, rounded down.
    Mean,
}

#[derive(Clone, Debug)]
pub struct Ruh {
    k: usize,
    stat: Statistic,
    prop: bool,
    users: Users,
    /// Each user's last `k` finished runtimes, a ring of `k` slots per user.
    history: Vec<Time>,
    /// Finished jobs per user so far.
    finished: Vec<u32>,
    /// Scratch for the median.
    scratch: Vec<Time>,
    /// With propagation: each user's jobs that arrived and have not ended.
    live: LiveJobs,
}

impl Ruh {
    pub fn new(k: usize, stat: Statistic, prop: bool) -> Self {
        Ruh {
            k,
            stat,
            prop,
            users: Users::default(),
            history: Vec::new(),
            finished: Vec::new(),
            scratch: Vec::new(),
            live: LiveJobs::default(),
        }
    }

    /// The prediction for job `j` from its user's recent history.
    fn predict(&mut self, j: usize, jobs: &Jobs) -> Time {
        let (k, estimate) = (self.k, jobs.estimate[j]);
        let Some(u) = self.users.of(jobs, j) else {
            return estimate;
        };
        if (self.finished[u] as usize) < k {
            return estimate;
        }
        let recent = &self.history[u * k..(u + 1) * k];
        let value = match self.stat {
            Statistic::Mean => recent.iter().sum::<Time>() / k as Time,
            Statistic::Median => {
                self.scratch.clear();
                self.scratch.extend_from_slice(recent);
                self.scratch.sort_unstable();
                if k % 2 == 1 {
                    self.scratch[k / 2]
                } else {
                    (self.scratch[k / 2 - 1] + self.scratch[k / 2]) / 2
                }
            }
        };
        value.min(estimate)
    }
}

impl PredictorEntry for Ruh {
    type Predictor = Ruh;
    const NAMES: &'static [(&'static str, &'static str)] = &[("ruh", "ruh(k=3,stat=median|mean,prop=false)")];
    const HELP: &'static str = "Recent User History: the median (or mean) runtime of the user's last k jobs, \
                                never above the estimate";
    fn parse(call: &mut Call) -> Result<PredictorKind, CallError> {
        Ok(PredictorKind::Ruh {
            k: call.take("k", 3, "a whole number from 1 to 1000", |k| {
                (1..=1000).contains(k)
            })?,
            stat: call.choice(
                "stat",
                Statistic::Median,
                &[("median", Statistic::Median), ("mean", Statistic::Mean)],
            )?,
            prop: call.flag("prop", false)?,
        })
    }
    fn write(kind: &PredictorKind, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match kind {
            PredictorKind::Ruh { k, stat, prop } => {
                let stat = match stat {
                    Statistic::Median => "median",
                    Statistic::Mean => "mean",
                };
                write!(f, "ruh(k={k},stat={stat},prop={prop})")
            }
            _ => f.write_str("ruh"),
        }
    }
    fn build(kind: &PredictorKind) -> Ruh {
        match kind {
            PredictorKind::Ruh { k, stat, prop } => Ruh::new(*k, *stat, *prop),
            _ => Ruh::new(3, Statistic::Median, false),
        }
    }
}

impl RuntimePredictor for Ruh {
    fn reset(&mut self, jobs: &Jobs) {
        self.users = Users::of_jobs(jobs);
        let (users, k) = (self.users.count(), self.k);
        self.history.clear();
        self.history.resize(users * k, 0);
        self.finished.clear();
        self.finished.resize(users, 0);
        self.scratch.clear();
        self.scratch.reserve(k);
        if self.prop {
            self.live.reset(users, jobs.len());
        }
    }

    fn on_arrival(&mut self, job: JobId, view: &PredictorView) -> Time {
        let j = job.index();
        if self.prop
            && let Some(u) = self.users.of(view.jobs, j)
        {
            self.live.join(u, j);
        }
        self.predict(j, view.jobs)
    }

    fn on_termination(&mut self, job: JobId, view: &PredictorView, updates: &mut Vec<(JobId, Time)>) {
        let j = job.index();
        let Some(u) = self.users.of(view.jobs, j) else {
            return;
        };
        let k = self.k;
        let slot = self.finished[u] as usize % k;
        self.history[u * k + slot] = view.now - view.start[j];
        self.finished[u] += 1;
        if self.prop {
            // Taken out for the walk, which predicts through `self` (no allocation).
            let mut live = std::mem::take(&mut self.live);
            propagate(&mut live, u, j, view, updates, |o| self.predict(o, view.jobs));
            self.live = live;
        }
    }

    fn on_deadline_missed(&mut self, job: JobId, misses: u32, view: &PredictorView) -> Time {
        raise_to_estimate(job, misses, view)
    }
}
