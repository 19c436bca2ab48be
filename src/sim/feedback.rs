//! Feedback: jobs that arrive only once an earlier job has ended (SWF fields 17 and 18, the
//! preceding job and the think time after it), so that a schedule that ends jobs sooner
//! also receives the next ones sooner, as users wait for results before they submit more
//! (Zakay & Feitelson's user-aware replay). Without dependencies the engine reads arrivals
//! from the table in order; with them, the arrival lane here releases each dependent job at
//! its predecessor's end plus the think time, and records when every job really arrived.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::state::UNSET;
use crate::Time;
use crate::workload::Jobs;

/// No preceding job.
pub const NONE: u32 = u32::MAX;

/// Which earlier job (by table index) each job waits for, and its think time after that
/// job's end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dependencies {
    pub after: Vec<u32>,
    pub think: Vec<Time>,
}

impl Dependencies {
    /// From a table's SWF fields 17 and 18: a preceding job number that names an earlier
    /// job of the table, and its think time (a negative one counts as 0). Also returns how
    /// many preceding job numbers were ignored because they name no earlier job.
    pub fn from_jobs(jobs: &Jobs) -> (Dependencies, usize) {
        let index: HashMap<u64, u32> = jobs
            .swf_id
            .iter()
            .enumerate()
            .map(|(i, &id)| (id, i as u32))
            .collect();
        let mut ignored = 0;
        let mut deps = Dependencies {
            after: vec![NONE; jobs.len()],
            think: vec![0; jobs.len()],
        };
        for j in 0..jobs.len() {
            let p = jobs.preceding_job[j];
            if p < 0 {
                continue;
            }
            match index.get(&(p as u64)) {
                Some(&i) if (i as usize) < j => {
                    deps.after[j] = i;
                    deps.think[j] = (jobs.think_time[j] as Time).max(0);
                }
                _ => ignored += 1,
            }
        }
        (deps, ignored)
    }

    /// Jobs that wait for another.
    pub fn dependents(&self) -> usize {
        self.after.iter().filter(|&&a| a != NONE).count()
    }
}

/// The arrival lane of a run with dependencies: independent jobs in table order (by their
/// submit times), dependent ones when their predecessors end; at one instant, in table order.
#[derive(Debug, Default)]
pub(crate) struct Lane {
    /// The dependencies of the runs to come; `None`: arrivals by the table.
    deps: Option<Dependencies>,
    /// The run under way takes its arrivals from this lane.
    pub(crate) active: bool,
    /// The jobs waiting for job `i` are `dependents[first[i]..first[i + 1]]`.
    first: Vec<u32>,
    dependents: Vec<u32>,
    /// The next table index that may be an independent job not yet arrived.
    cursor: usize,
    released: BinaryHeap<Reverse<(Time, u32)>>,
    /// When each job arrived (`UNSET` until it has).
    pub(crate) arrived: Vec<Time>,
}

impl Lane {
    pub(crate) fn set(&mut self, deps: Option<Dependencies>) {
        self.deps = deps;
    }

    /// Prepares a run over `jobs`; whether it takes its arrivals from the lane.
    pub(crate) fn start(&mut self, jobs: &Jobs) -> bool {
        self.active = self.deps.is_some();
        let Some(deps) = &self.deps else { return false };
        let n = jobs.len();
        assert_eq!(deps.after.len(), n, "dependencies for every job of the table");
        self.first.clear();
        self.first.resize(n + 1, 0);
        for &a in &deps.after {
            if a != NONE {
                self.first[a as usize + 1] += 1;
            }
        }
        for i in 0..n {
            self.first[i + 1] += self.first[i];
        }
        self.dependents.clear();
        self.dependents.resize(self.first[n] as usize, 0);
        let mut fill = self.first.clone();
        for (j, &a) in deps.after.iter().enumerate() {
            if a != NONE {
                self.dependents[fill[a as usize] as usize] = j as u32;
                fill[a as usize] += 1;
            }
        }
        self.cursor = 0;
        self.released.clear();
        self.arrived.clear();
        self.arrived.resize(n, UNSET);
        self.skip_dependents();
        true
    }

    fn deps(&self) -> &Dependencies {
        self.deps.as_ref().expect("a run with dependencies")
    }

    fn skip_dependents(&mut self) {
        let after = &self.deps().after;
        let mut cursor = self.cursor;
        while cursor < after.len() && after[cursor] != NONE {
            cursor += 1;
        }
        self.cursor = cursor;
    }

    /// When the next job arrives, if any is known yet.
    pub(crate) fn next(&self, jobs: &Jobs) -> Option<Time> {
        let root = jobs.submit.get(self.cursor).copied();
        let released = self.released.peek().map(|Reverse((t, _))| *t);
        match (root, released) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The next job arriving at `now` (the lower table index first), marked arrived.
    pub(crate) fn pop_at(&mut self, now: Time, jobs: &Jobs) -> Option<usize> {
        let root = (self.cursor < jobs.len() && jobs.submit[self.cursor] == now).then_some(self.cursor);
        let released = match self.released.peek() {
            Some(&Reverse((t, j))) if t == now => Some(j as usize),
            _ => None,
        };
        let j = match (root, released) {
            (Some(r), Some(d)) if d < r => {
                self.released.pop();
                d
            }
            (Some(r), _) => {
                self.cursor += 1;
                self.skip_dependents();
                r
            }
            (None, Some(d)) => {
                self.released.pop();
                d
            }
            (None, None) => return None,
        };
        self.arrived[j] = now;
        Some(j)
    }

    /// Job `job` ended at `now`: the jobs waiting for it arrive after their think times.
    pub(crate) fn release(&mut self, job: usize, now: Time) {
        for k in self.first[job]..self.first[job + 1] {
            let d = self.dependents[k as usize];
            let think = self.deps().think[d as usize];
            self.released.push(Reverse((now + think, d)));
        }
    }
}
