//! Runtime predictors (Talby, Tsafrir, Goldberg & Feitelson), chosen by a spec string
//! such as `constant(c=1)` or `sbh(criteria=PE|P|E|*)`: Perfect, Estimate, Constant, RUH
//! and the session-based ones of [`super::sbh`].

use std::fmt;
use std::str::FromStr;

use super::live::{LiveJobs, NONE};
use super::sbh::{Growth, SbhParams, Sessions};
use crate::Time;
use crate::call::{Call, CallError};
use crate::sim::{PredictorView, RuntimePredictor};
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

/// How RUH summarises a user's recent runtimes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Statistic {
    /// The median; of an even count, the mean of the two middle values rounded down.
    Median,
    /// The mean, rounded down.
    Mean,
}

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

/// A predictor of any kind, resolved once per run, with the state it keeps.
#[derive(Clone, Debug)]
pub struct AnyPredictor {
    kind: PredictorKind,
    /// RUH: each user's last `k` finished runtimes, a ring of `k` slots per user.
    history: Vec<Time>,
    /// RUH: finished jobs per user so far.
    finished: Vec<u32>,
    /// RUH scratch for the median.
    scratch: Vec<Time>,
    /// With propagation: each user's jobs that arrived and have not ended.
    live: LiveJobs,
    /// SBH: the sessions.
    sessions: Sessions,
    /// Number of user ids (users are dense small integers in archive logs); jobs with a
    /// negative user id have no history.
    users: usize,
    /// Application: each job's application index (`NONE` for an unknown executable), and
    /// per application the finished jobs' runtime sum and count.
    app_of: Vec<u32>,
    app_runtime: Vec<(Time, u32)>,
    /// Application: (executable, processors, job) of every job, sorted at reset.
    app_keys: Vec<(i32, u32, u32)>,
}

impl AnyPredictor {
    pub fn new(kind: PredictorKind) -> Self {
        AnyPredictor {
            kind,
            history: Vec::new(),
            finished: Vec::new(),
            scratch: Vec::new(),
            live: LiveJobs::default(),
            sessions: Sessions::default(),
            users: 0,
            app_of: Vec::new(),
            app_runtime: Vec::new(),
            app_keys: Vec::new(),
        }
    }

    /// Application: the mean runtime of the job's application so far, at most its estimate.
    fn application_history(&self, j: usize, jobs: &Jobs) -> Time {
        match self.app_of[j] {
            NONE => jobs.estimate[j],
            a => match self.app_runtime[a as usize] {
                (_, 0) => jobs.estimate[j],
                (sum, n) => (sum / n as Time).min(jobs.estimate[j]),
            },
        }
    }

    fn user(&self, jobs: &Jobs, j: usize) -> Option<usize> {
        usize::try_from(jobs.user[j]).ok().filter(|&u| u < self.users)
    }

    /// Whether the kind recomputes live jobs' predictions at each termination.
    fn propagates(&self) -> bool {
        match self.kind {
            PredictorKind::Ruh { prop, .. } => prop,
            PredictorKind::Sbh(params) => params.prop,
            _ => false,
        }
    }

    /// SBH's prediction for live job `j`: the median of its similar jobs, never above the
    /// estimate the job will be killed at; with none, the estimate (1 s without estimates).
    fn session_based(&mut self, params: &SbhParams, j: usize, jobs: &Jobs) -> Time {
        let found = match self.user(jobs, j) {
            Some(u) => self.sessions.predict(params, u, j),
            None => None,
        };
        match (params.growth, found) {
            (None, Some(median)) => median.min(jobs.estimate[j]),
            (None, None) => jobs.estimate[j],
            (Some(_), Some(median)) => median,
            (Some(_), None) => 1,
        }
    }

    /// The current prediction of live job `j` (RUH and SBH, which depend on history).
    fn history_prediction(&mut self, j: usize, jobs: &Jobs) -> Time {
        match self.kind {
            PredictorKind::Ruh { k, stat, .. } => {
                self.recent_user_history(k, stat, jobs.user[j], jobs.estimate[j])
            }
            PredictorKind::Sbh(params) => self.session_based(&params, j, jobs),
            _ => unreachable!("only history-based predictors call this"),
        }
    }

    /// The deadline-miss rule of the predictors that see the user estimate: raise a
    /// prediction below the estimate to it, else extend it by the gradual increments.
    fn raise_to_estimate(&self, job: JobId, misses: u32, view: &PredictorView) -> Time {
        let (p, estimate) = (view.prediction[job.index()], view.jobs.estimate[job.index()]);
        if p < estimate {
            estimate
        } else {
            p + gradual_increment(misses + 1)
        }
    }

    /// RUH's prediction for a job of `user` with `estimate`.
    fn recent_user_history(&mut self, k: usize, stat: Statistic, user: i32, estimate: Time) -> Time {
        let Ok(u) = usize::try_from(user) else {
            return estimate;
        };
        if u >= self.finished.len() || (self.finished[u] as usize) < k {
            return estimate;
        }
        let recent = &self.history[u * k..(u + 1) * k];
        let value = match stat {
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

impl RuntimePredictor for AnyPredictor {
    fn reset(&mut self, jobs: &Jobs) {
        // User ids run from 0; -1 (unknown) for every job means no user.
        let max_user = jobs.user.iter().copied().max().unwrap_or(-1).max(-1);
        let users = ((i64::from(max_user) + 1) as usize).min(10_000_000);
        self.users = users;
        match self.kind {
            PredictorKind::Ruh { k, .. } => {
                // One ring of k runtimes per user id.
                self.history.clear();
                self.history.resize(users * k, 0);
                self.finished.clear();
                self.finished.resize(users, 0);
                self.scratch.clear();
                self.scratch.reserve(k);
            }
            PredictorKind::Sbh(params) => self.sessions.reset(&params, jobs, users),
            PredictorKind::Application => {
                // Dense application ids by (executable, processors), interned once per run.
                let keys = &mut self.app_keys;
                keys.clear();
                keys.extend(
                    (0..jobs.len())
                        .filter(|&j| jobs.executable[j] >= 0)
                        .map(|j| (jobs.executable[j], jobs.procs[j], j as u32)),
                );
                keys.sort_unstable();
                self.app_of.clear();
                self.app_of.resize(jobs.len(), NONE);
                self.app_runtime.clear();
                let mut last = None;
                for &(exec, procs, j) in keys.iter() {
                    if last != Some((exec, procs)) {
                        self.app_runtime.push((0, 0));
                        last = Some((exec, procs));
                    }
                    self.app_of[j as usize] = self.app_runtime.len() as u32 - 1;
                }
            }
            _ => {}
        }
        if self.propagates() {
            self.live.reset(users, jobs.len());
        }
    }

    fn on_arrival(&mut self, job: JobId, view: &PredictorView) -> Time {
        let j = job.index();
        match self.kind {
            PredictorKind::Perfect => view.jobs.runtime[j],
            PredictorKind::Estimate => view.jobs.estimate[j],
            PredictorKind::Constant { c } => c,
            PredictorKind::Application => self.application_history(j, view.jobs),
            PredictorKind::Ruh { .. } | PredictorKind::Sbh(_) => {
                if let Some(u) = self.user(view.jobs, j) {
                    if let PredictorKind::Sbh(params) = self.kind {
                        self.sessions.arrive(u, view.now, params.think);
                    }
                    if self.propagates() {
                        self.live.join(u, j);
                    }
                }
                self.history_prediction(j, view.jobs)
            }
        }
    }

    fn on_termination(&mut self, job: JobId, view: &PredictorView, updates: &mut Vec<(JobId, Time)>) {
        let j = job.index();
        let runtime = view.now - view.start[j];
        if self.kind == PredictorKind::Application {
            if let Some(a) = self.app_runtime.get_mut(self.app_of[j] as usize) {
                *a = (a.0 + runtime, a.1 + 1);
            }
            return;
        }
        let Some(u) = self.user(view.jobs, j) else {
            return;
        };
        match self.kind {
            PredictorKind::Ruh { k, .. } => {
                let slot = self.finished[u] as usize % k;
                self.history[u * k + slot] = runtime;
                self.finished[u] += 1;
            }
            PredictorKind::Sbh(_) => self.sessions.end(u, j, view.now, runtime),
            _ => return,
        }
        if !self.propagates() {
            return;
        }
        // Leave the user's live jobs, then give the others the updated history.
        self.live.leave(u, j);
        let mut other = self.live.first(u);
        while other != NONE {
            let o = other as usize;
            let prediction = self.history_prediction(o, view.jobs);
            if prediction != view.prediction[o] {
                updates.push((JobId(other), prediction));
            }
            other = self.live.next(other);
        }
    }

    fn on_deadline_missed(&mut self, job: JobId, misses: u32, view: &PredictorView) -> Time {
        match self.kind {
            // Never misses but for the 1 s floor of a zero runtime, which ends at once.
            PredictorKind::Perfect | PredictorKind::Constant { .. } => {
                view.prediction[job.index()] + gradual_increment(misses + 1)
            }
            PredictorKind::Estimate | PredictorKind::Ruh { .. } | PredictorKind::Application => {
                self.raise_to_estimate(job, misses, view)
            }
            PredictorKind::Sbh(params) => {
                let p = view.prediction[job.index()];
                match params.growth {
                    None => self.raise_to_estimate(job, misses, view),
                    Some(Growth::Unbalanced) => p.saturating_mul(10),
                    Some(Growth::Balanced { cap }) if p < cap => p.saturating_mul(10).min(cap),
                    Some(Growth::Balanced { .. }) => p + gradual_increment(misses + 1),
                }
            }
        }
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
