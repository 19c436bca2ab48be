//! Session-Based History prediction (Talby et al., section 5) and its variant without user
//! estimates (section 6): each user's jobs split into sessions by think time, predictions
//! from the median runtime of similar finished jobs in the most recent session that has
//! one.

use std::collections::HashMap;
use std::fmt;

use super::live::{LiveJobs, NONE};
use super::{PredictorEntry, PredictorKind, Users, gradual_increment, propagate, raise_to_estimate};
use crate::Time;
use crate::call::{Call, CallError};
use crate::params::ParamError;
use crate::sim::{PredictorView, RuntimePredictor};
use crate::workload::JobId;
use crate::workload::Jobs;

/// A similarity criterion: which of the job's attributes a past job must share.
const P: u8 = 1;
const E: u8 = 2;
const X: u8 = 4;

/// An ordered list of similarity criteria, written like `PE|P|E|*`: each criterion names
/// the attributes that must match (P processors, E estimate, X executable; `*` none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Criteria {
    masks: [u8; 8],
    len: u8,
}

impl Criteria {
    fn as_slice(&self) -> &[u8] {
        &self.masks[..self.len as usize]
    }

    fn uses_estimate(&self) -> bool {
        self.as_slice().iter().any(|m| m & E != 0)
    }
}

/// What `criteria` takes, for its refusals.
const CRITERIA_SYNTAX: &str = "criteria such as PX|P|*: letters P (processors), E (estimate) and X (executable), or * for any job, \
     joined by |, no letter twice in one and no criterion twice";

impl std::str::FromStr for Criteria {
    type Err = ParamError;

    fn from_str(s: &str) -> Result<Self, ParamError> {
        let bad = || ParamError::BadValue {
            key: "criteria".into(),
            value: s.into(),
            expected: CRITERIA_SYNTAX.into(),
        };
        let mut criteria = Criteria {
            masks: [0; 8],
            len: 0,
        };
        for item in s.split('|').map(str::trim) {
            let mut mask = 0u8;
            if item != "*" {
                if item.is_empty() {
                    return Err(bad());
                }
                for c in item.chars() {
                    let bit = match c.to_ascii_uppercase() {
                        'P' => P,
                        'E' => E,
                        'X' => X,
                        _ => return Err(bad()),
                    };
                    if mask & bit != 0 {
                        return Err(bad());
                    }
                    mask |= bit;
                }
            }
            if criteria.as_slice().contains(&mask) {
                return Err(bad());
            }
            // Eight distinct masks exist, so a list without repeats always fits.
            criteria.masks[criteria.len as usize] = mask;
            criteria.len += 1;
        }
        Ok(criteria)
    }
}

impl fmt::Display for Criteria {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &mask) in self.as_slice().iter().enumerate() {
            if i > 0 {
                f.write_str("|")?;
            }
            if mask == 0 {
                f.write_str("*")?;
            }
            for (bit, letter) in [(P, "P"), (E, "E"), (X, "X")] {
                if mask & bit != 0 {
                    f.write_str(letter)?;
                }
            }
        }
        Ok(())
    }
}

/// The order of SBH's two loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Search {
    /// Depth first (Listing 4): criterion outer, sessions inner, so an exact match far back
    /// beats a loose one in the current session.
    Dfs,
    /// Breadth first: sessions outer, criteria inner.
    Bfs,
}

/// How the no-estimate variant answers a missed deadline: the prediction times 10.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Growth {
    /// Times 10 up to `cap` seconds; past it, by the gradual increments.
    Balanced { cap: Time },
    /// Times 10 without limit.
    Unbalanced,
}

/// The default of `cap`: 10^5 s (27.8 h), the fifth power of ten the growth reaches from
/// the 1 s fallback. The paper calls the threshold "high" without a figure; this one is
/// above the longest runtime CTC-SP2 and SDSC-SP2 allow (18 h) and below KTH's (60 h).
/// Results are sensitive to it (see results/talby/README.md).
pub const DEFAULT_GROWTH_CAP: Time = 100_000;

/// SBH's parameters. `growth` is `None` for SBH proper (uses the user estimates) and
/// `Some` for the no-estimate variant, which never reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SbhParams {
    pub criteria: Criteria,
    pub search: Search,
    /// How many of the user's most recent sessions (the current one included) are searched;
    /// 0 for all.
    pub depth: u32,
    /// On each termination, recompute the predictions of the user's live jobs.
    pub prop: bool,
    /// Think time (seconds, from the user's last termination to the next arrival) at or
    /// above which a new session starts.
    pub think: Time,
    pub growth: Option<Growth>,
}

impl SbhParams {
    /// The best configuration of Table 4: unlimited DFS over `PE|P|E|*` with propagation.
    pub fn with_estimates() -> Self {
        SbhParams {
            criteria: "PE|P|E|*".parse().expect("valid criteria"),
            search: Search::Dfs,
            depth: 0,
            prop: true,
            think: 1200,
            growth: None,
        }
    }

    /// The best no-estimate configuration of Table 5: balanced unlimited DFS over
    /// `PX|P|X|*`, without propagation.
    pub fn without_estimates() -> Self {
        SbhParams {
            criteria: "PX|P|X|*".parse().expect("valid criteria"),
            prop: false,
            growth: Some(Growth::Balanced {
                cap: DEFAULT_GROWTH_CAP,
            }),
            ..Self::with_estimates()
        }
    }

    /// Takes the parameters of `sbh(...)` (`no_estimate` false) or `sbh-noest(...)`.
    pub(crate) fn from_call(no_estimate: bool, call: &mut Call) -> Result<Self, CallError> {
        let d = if no_estimate {
            Self::without_estimates()
        } else {
            Self::with_estimates()
        };
        let mut p = SbhParams {
            criteria: call.take_with("criteria", d.criteria, CRITERIA_SYNTAX, |v| v.parse().ok())?,
            search: call.choice("search", d.search, &[("dfs", Search::Dfs), ("bfs", Search::Bfs)])?,
            depth: call.take_with(
                "depth",
                d.depth,
                "a whole number >= 1 or unlimited",
                |v| match v {
                    "unlimited" => Some(0),
                    _ => v.parse().ok().filter(|&d| d >= 1),
                },
            )?,
            prop: call.flag("prop", d.prop)?,
            think: call.take("think", d.think, "a whole number of seconds >= 0", |&t| t >= 0)?,
            growth: d.growth,
        };
        if no_estimate {
            let unbalanced = call.choice("growth", false, &[("balanced", false), ("unbalanced", true)])?;
            let cap = call.take_with("cap", None, "a whole number of seconds >= 1", |v| {
                v.parse().ok().filter(|&c| c >= 1).map(Some)
            })?;
            p.growth = Some(match (unbalanced, cap) {
                (false, cap) => Growth::Balanced {
                    cap: cap.unwrap_or(DEFAULT_GROWTH_CAP),
                },
                (true, None) => Growth::Unbalanced,
                (true, Some(_)) => return Err(call.invalid("cap applies only to growth=balanced")),
            });
        }
        if no_estimate && p.criteria.uses_estimate() {
            return Err(call.invalid("the no-estimate variant cannot match on E (the estimate)"));
        }
        Ok(p)
    }
}

impl fmt::Display for SbhParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = if self.growth.is_some() { "sbh-noest" } else { "sbh" };
        let search = match self.search {
            Search::Dfs => "dfs",
            Search::Bfs => "bfs",
        };
        write!(f, "{name}(criteria={},search={search},depth=", self.criteria)?;
        match self.depth {
            0 => f.write_str("unlimited")?,
            d => write!(f, "{d}")?,
        }
        write!(f, ",prop={},think={}", self.prop, self.think)?;
        match self.growth {
            None => {}
            Some(Growth::Unbalanced) => f.write_str(",growth=unbalanced")?,
            Some(Growth::Balanced { cap }) => write!(f, ",growth=balanced,cap={cap}")?,
        }
        f.write_str(")")
    }
}

/// The SBH predictor: its parameters and its memory of the run.
#[derive(Clone, Debug)]
pub struct Sbh {
    params: SbhParams,
    users: Users,
    sessions: Sessions,
    /// With propagation: each user's jobs that arrived and have not ended.
    live: LiveJobs,
}

impl PredictorEntry for Sbh {
    type Predictor = Sbh;
    const NAMES: &'static [(&'static str, &'static str)] = &[
        (
            "sbh",
            "sbh(criteria=PE|P|E|*,search=dfs|bfs,depth=unlimited|N,prop=true,think=1200)",
        ),
        (
            "sbh-noest",
            "sbh-noest(criteria=PX|P|X|*,search=dfs|bfs,depth=unlimited|N,prop=false,think=1200,\
             growth=balanced|unbalanced,cap=100000)",
        ),
    ];
    const HELP: &'static str = "Session-Based History: the runtimes of the user's jobs in the same session that \
                                match the criteria, with the estimates (sbh) or without (sbh-noest)";
    fn parse(call: &mut Call) -> Result<PredictorKind, CallError> {
        let no_estimate = call.name() == "sbh-noest";
        Ok(PredictorKind::Sbh(SbhParams::from_call(no_estimate, call)?))
    }
    fn write(kind: &PredictorKind, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match kind {
            PredictorKind::Sbh(params) => fmt::Display::fmt(params, f),
            _ => f.write_str("sbh"),
        }
    }
    fn build(kind: &PredictorKind) -> Sbh {
        match kind {
            PredictorKind::Sbh(params) => Sbh::new(*params),
            _ => Sbh::new(SbhParams::with_estimates()),
        }
    }
}

impl Sbh {
    pub fn new(params: SbhParams) -> Self {
        Sbh {
            params,
            users: Users::default(),
            sessions: Sessions::default(),
            live: LiveJobs::default(),
        }
    }

    /// The prediction for live job `j`: the median of its similar jobs, never above the
    /// estimate the job will be killed at; with none, the estimate (1 s without estimates).
    fn predict(&mut self, j: usize, jobs: &Jobs) -> Time {
        let found = match self.users.of(jobs, j) {
            Some(u) => self.sessions.predict(&self.params, u, j),
            None => None,
        };
        match (self.params.growth, found) {
            (None, Some(median)) => median.min(jobs.estimate[j]),
            (None, None) => jobs.estimate[j],
            (Some(_), Some(median)) => median,
            (Some(_), None) => 1,
        }
    }
}

impl RuntimePredictor for Sbh {
    fn reset(&mut self, jobs: &Jobs) {
        self.users = Users::of_jobs(jobs);
        self.sessions.reset(&self.params, jobs, self.users.count());
        if self.params.prop {
            self.live.reset(self.users.count(), jobs.len());
        }
    }

    fn on_arrival(&mut self, job: JobId, view: &PredictorView) -> Time {
        let j = job.index();
        if let Some(u) = self.users.of(view.jobs, j) {
            self.sessions.arrive(u, view.now, self.params.think);
            if self.params.prop {
                self.live.join(u, j);
            }
        }
        self.predict(j, view.jobs)
    }

    fn on_termination(&mut self, job: JobId, view: &PredictorView, updates: &mut Vec<(JobId, Time)>) {
        let j = job.index();
        let Some(u) = self.users.of(view.jobs, j) else {
            return;
        };
        self.sessions.end(u, j, view.now, view.now - view.start[j]);
        if self.params.prop {
            // Taken out for the walk, which predicts through `self` (no allocation).
            let mut live = std::mem::take(&mut self.live);
            propagate(&mut live, u, j, view, updates, |o| self.predict(o, view.jobs));
            self.live = live;
        }
    }

    /// With estimates, a missed prediction is raised to the estimate; without, it grows
    /// tenfold (up to `cap` when balanced, then by the gradual increments).
    fn on_deadline_missed(&mut self, job: JobId, misses: u32, view: &PredictorView) -> Time {
        let p = view.prediction[job.index()];
        match self.params.growth {
            None => raise_to_estimate(job, misses, view),
            Some(Growth::Unbalanced) => p.saturating_mul(10),
            Some(Growth::Balanced { cap }) if p < cap => p.saturating_mul(10).min(cap),
            Some(Growth::Balanced { .. }) => p + gradual_increment(misses + 1),
        }
    }
}

/// SBH's memory of the run so far. Jobs that share a user and the attributes a criterion
/// names form a group, interned once per run (attributes are known at submit); each group
/// remembers only the most recent session in which one of its jobs ended, which is all
/// either search order needs: DFS takes the first criterion whose group has such a
/// session, BFS the criterion whose session is the most recent (ties to the earlier
/// criterion).
#[derive(Clone, Debug, Default)]
pub(crate) struct Sessions {
    /// Criteria per job.
    width: usize,
    /// Group of job `j` under criterion `i` at `j * width + i` (`NONE`: no user id).
    group: Vec<u32>,
    /// Next finished job of the same group and session, at the same index as `group`.
    link: Vec<u32>,
    /// Per group: the index of its criterion in the list (a group's key holds its mask).
    criterion: Vec<u8>,
    /// Per group: 1-based index of the user's session whose finished jobs `head` lists
    /// (0: none yet), their count, and their median (`-1`: not computed since the last
    /// change).
    session: Vec<u32>,
    head: Vec<u32>,
    count: Vec<u32>,
    median: Vec<Time>,
    /// Per user: sessions so far, jobs arrived and not ended, time of the last end.
    sessions: Vec<u32>,
    live: Vec<u32>,
    last_end: Vec<Time>,
    /// Runtime of each finished job as observed (killed jobs: until the kill).
    runtime: Vec<Time>,
    scratch: Vec<Time>,
    interned: HashMap<(i32, u8, u32, Time, i32), u32>,
}

impl Sessions {
    /// Prepares for `jobs` and `users` user ids: interns every job's groups.
    pub(crate) fn reset(&mut self, params: &SbhParams, jobs: &Jobs, users: usize) {
        let criteria = params.criteria.as_slice();
        self.width = criteria.len();
        self.interned.clear();
        self.group.clear();
        self.criterion.clear();
        for j in 0..jobs.len() {
            for (i, &mask) in criteria.iter().enumerate() {
                let user = jobs.user[j];
                if user < 0 || user as usize >= users {
                    self.group.push(NONE);
                    continue;
                }
                let key = (
                    user,
                    mask,
                    if mask & P != 0 { jobs.procs[j] } else { 0 },
                    if mask & E != 0 { jobs.estimate[j] } else { 0 },
                    if mask & X != 0 { jobs.executable[j] } else { 0 },
                );
                let next = self.interned.len() as u32;
                let g = *self.interned.entry(key).or_insert(next);
                if g == next {
                    self.criterion.push(i as u8);
                }
                self.group.push(g);
            }
        }
        let groups = self.interned.len();
        self.link.clear();
        self.link.resize(self.group.len(), NONE);
        for (v, fill) in [
            (&mut self.session, 0),
            (&mut self.head, NONE),
            (&mut self.count, 0),
        ] {
            v.clear();
            v.resize(groups, fill);
        }
        self.median.clear();
        self.median.resize(groups, -1);
        self.sessions.clear();
        self.sessions.resize(users, 0);
        self.live.clear();
        self.live.resize(users, 0);
        self.last_end.clear();
        self.last_end.resize(users, Time::MIN);
        self.runtime.clear();
        self.runtime.resize(jobs.len(), 0);
        // The largest group bounds the median's scratch (sized with `count`, then zeroed).
        for &g in self.group.iter().filter(|&&g| g != NONE) {
            self.count[g as usize] += 1;
        }
        self.scratch.clear();
        self.scratch
            .reserve(self.count.iter().copied().max().unwrap_or(0) as usize);
        self.count.fill(0);
    }

    /// Job `j` of user `u` arrives at `now`: it opens a new session if none of the user's
    /// jobs is live and the think time since the user's last end is at least `think`.
    pub(crate) fn arrive(&mut self, u: usize, now: Time, think: Time) {
        if self.live[u] == 0 && (self.sessions[u] == 0 || now - self.last_end[u] >= think) {
            self.sessions[u] += 1;
        }
        self.live[u] += 1;
    }

    /// Job `j` of user `u` ended at `now` after running `runtime`. It belongs to the user's
    /// current session: a new session opens only while none of the user's jobs is live.
    pub(crate) fn end(&mut self, u: usize, j: usize, now: Time, runtime: Time) {
        self.live[u] -= 1;
        self.last_end[u] = self.last_end[u].max(now);
        self.runtime[j] = runtime;
        let current = self.sessions[u];
        for i in 0..self.width {
            let g = self.group[j * self.width + i];
            if g == NONE {
                continue;
            }
            let g = g as usize;
            if self.session[g] != current {
                // The group's older session is no longer the most recent one with a match.
                self.session[g] = current;
                self.head[g] = NONE;
                self.count[g] = 0;
            }
            self.link[j * self.width + i] = self.head[g];
            self.head[g] = j as u32;
            self.count[g] += 1;
            self.median[g] = -1;
        }
    }

    /// The prediction for live job `j` of user `u` (`None`: no similar finished job in the
    /// sessions searched).
    pub(crate) fn predict(&mut self, params: &SbhParams, u: usize, j: usize) -> Option<Time> {
        let current = self.sessions[u];
        let mut best: Option<(usize, u32)> = None;
        for i in 0..self.width {
            let g = self.group[j * self.width + i];
            if g == NONE {
                return None;
            }
            let s = self.session[g as usize];
            if s == 0 || (params.depth != 0 && current - s >= params.depth) {
                continue;
            }
            match params.search {
                Search::Dfs => {
                    best = Some((g as usize, s));
                    break;
                }
                Search::Bfs => {
                    if best.is_none_or(|(_, t)| s > t) {
                        best = Some((g as usize, s));
                    }
                }
            }
        }
        best.map(|(g, _)| self.median_of(g))
    }

    /// Median observed runtime of group `g`'s jobs in its session; of an even count, the
    /// mean of the two middle values rounded down (as RUH's).
    fn median_of(&mut self, g: usize) -> Time {
        if self.median[g] >= 0 {
            return self.median[g];
        }
        self.scratch.clear();
        let mut j = self.head[g];
        let i = self.criterion[g] as usize;
        while j != NONE {
            self.scratch.push(self.runtime[j as usize]);
            j = self.link[j as usize * self.width + i];
        }
        let n = self.scratch.len();
        debug_assert_eq!(n, self.count[g] as usize);
        let (_, &mut upper, _) = self.scratch.select_nth_unstable(n / 2);
        let median = if n % 2 == 1 {
            upper
        } else {
            let lower = *self.scratch[..n / 2].iter().max().expect("n >= 2");
            (lower + upper) / 2
        };
        self.median[g] = median;
        median
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criteria_parse_in_any_letter_order_and_print_canonically() {
        let c: Criteria = "EP|p|E|*".parse().unwrap();
        assert_eq!(c.to_string(), "PE|P|E|*");
        assert_eq!(c.as_slice(), &[P | E, P, E, 0]);
        for bad in ["", "PE||P", "PQ", "PP", "P|P", "*|*"] {
            assert!(bad.parse::<Criteria>().is_err(), "{bad}");
        }
    }

    #[test]
    fn params_parse_with_paper_defaults_and_reject_mistakes() {
        use crate::predict::PredictorKind;
        let sbh = |text: &str| match text.parse::<PredictorKind>() {
            Ok(PredictorKind::Sbh(p)) => Ok(p),
            Ok(other) => panic!("{text} parsed as {other}"),
            Err(e) => Err(e),
        };
        let p = sbh("sbh").unwrap();
        assert_eq!(p, SbhParams::with_estimates());
        assert_eq!(
            p.to_string(),
            "sbh(criteria=PE|P|E|*,search=dfs,depth=unlimited,prop=true,think=1200)"
        );
        assert_eq!(sbh("sbh-noest").unwrap(), SbhParams::without_estimates());
        let q = sbh("sbh-noest(growth=balanced,cap=500)").unwrap();
        assert_eq!(q.growth, Some(Growth::Balanced { cap: 500 }));
        assert_eq!(sbh("sbh-noest(cap=500)").unwrap().growth, q.growth);
        assert_eq!(
            sbh("sbh-noest(growth=unbalanced)").unwrap().growth,
            Some(Growth::Unbalanced)
        );
        for bad in [
            "sbh-noest(criteria=PE|P)",
            "sbh-noest(growth=unbalanced,cap=5)",
            "sbh(growth=balanced)",
            "sbh(cap=5)",
            "sbh(depth=0)",
            "sbh(search=random)",
            "sbh(think=-1)",
        ] {
            assert!(sbh(bad).is_err(), "{bad}");
        }
    }
}
