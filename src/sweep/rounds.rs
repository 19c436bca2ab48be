//! The rounds of a sweep's cells: which replications run next and which cells stop, held
//! by the runner's thread alone (`super::runner` states the rules and why they keep the
//! results independent of threads and timing). Tasks run elsewhere; this decides.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::progress::Progress;
use super::spec::{Plan, Replications};
use super::stopping;
use super::task::RunRecord;

/// Replications the first batch of a cell runs: the fixed count, or the minimum.
pub fn first_target(plan: &Plan) -> usize {
    match &plan.replications {
        Replications::Fixed(n) => *n,
        Replications::Sequential { min, .. } => *min,
    }
}

/// The target after `current`: one batch more, up to the maximum.
pub fn next_target(plan: &Plan, current: usize) -> usize {
    match &plan.replications {
        Replications::Fixed(n) => *n,
        Replications::Sequential { max, batch, .. } => (current + batch).min(*max),
    }
}

/// One cell's progress.
#[derive(Clone, Debug, Default)]
pub struct CellState {
    /// Replications recorded, this run or resumed, by rep.
    pub recorded: BTreeMap<usize, RunRecord>,
    /// The replications its next decision reads: `0..target`.
    pub target: usize,
    /// Running ahead: how far it has reached, and how far its interval projects it may.
    ahead: usize,
    ahead_limit: usize,
    /// Replications handed out and not yet reported, and of those, the ones not yet handed
    /// to the pool.
    running: BTreeSet<usize>,
    waiting: VecDeque<usize>,
    /// Whether it is in the ready queue (so that a group's decision queues it once).
    queued: bool,
    pub closed: bool,
}

impl CellState {
    /// Whether its whole batch `0..target` is recorded.
    fn batch_in(&self) -> bool {
        (0..self.target).all(|r| self.recorded.contains_key(&r))
    }

    /// Hands out `reps` (those not already running) to wait for the pool.
    fn hand_out(&mut self, reps: impl Iterator<Item = usize>) {
        let new: Vec<usize> = reps.filter(|r| !self.running.contains(r)).collect();
        self.running.extend(&new);
        self.waiting.extend(new);
    }
}

/// The cells of one sweep (or shard) and their decisions.
pub struct Rounds<'p> {
    plan: &'p Plan,
    /// This shard's cells, in plan order.
    cells: Vec<usize>,
    /// Every cell of the plan, by index (those of other shards stay empty).
    pub state: Vec<CellState>,
    /// The members of each decision group (one cell each but under difference stopping),
    /// all in this shard.
    groups: BTreeMap<usize, Vec<usize>>,
    ready: VecDeque<usize>,
    /// Cells that have stopped.
    pub closed: usize,
}

impl<'p> Rounds<'p> {
    /// `cells` with the replications already `recorded` (by cell), each ready for its first
    /// batch.
    pub fn new(plan: &'p Plan, cells: &[usize], recorded: Vec<BTreeMap<usize, RunRecord>>) -> Self {
        let target = first_target(plan);
        let mut state: Vec<CellState> = recorded
            .into_iter()
            .map(|recorded| CellState {
                recorded,
                target,
                ahead: target,
                ahead_limit: target,
                ..CellState::default()
            })
            .collect();
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &c in cells {
            state[c].queued = true;
            groups
                .entry(stopping::decision_group(plan, c))
                .or_default()
                .push(c);
        }
        Rounds {
            plan,
            cells: cells.to_vec(),
            state,
            groups,
            ready: cells.iter().copied().collect(),
            closed: 0,
        }
    }

    fn push_ready(&mut self, c: usize) {
        if !self.state[c].queued {
            self.state[c].queued = true;
            self.ready.push_back(c);
        }
    }

    /// Takes the ready cells: each hands out the replications of its batch not yet
    /// recorded, or, its batch in, decides with its group once every open member has its
    /// batch in. With `halt` (an error, or a cancel) nothing more is handed out.
    pub fn advance(&mut self, progress: &Progress, halt: &dyn Fn() -> bool) {
        while let Some(c) = self.ready.pop_front() {
            self.state[c].queued = false;
            if halt() || self.state[c].closed {
                continue;
            }
            let cell = &self.state[c];
            let missing: Vec<usize> = (0..cell.target)
                .filter(|r| !cell.recorded.contains_key(r))
                .collect();
            if missing.is_empty() {
                self.decide(c, progress);
            } else {
                progress.launched(c, missing.len());
                self.state[c].hand_out(missing.into_iter());
            }
        }
    }

    /// The decision of `c`'s group, if each open member has its batch (of the same target)
    /// in: each member stops, or goes on to its next batch.
    fn decide(&mut self, c: usize, progress: &Progress) {
        let members = self.groups[&stopping::decision_group(self.plan, c)].clone();
        let target = self.state[c].target;
        let batch_in = |m: &CellState| m.closed || (m.target == target && m.batch_in());
        if !members.iter().all(|&m| batch_in(&self.state[m])) {
            return;
        }
        let open: Vec<usize> = members.into_iter().filter(|&m| !self.state[m].closed).collect();
        let runs: Vec<Vec<RunRecord>> = open
            .iter()
            .map(|&m| {
                let s = &self.state[m];
                s.recorded.range(..s.target).map(|(_, r)| r.clone()).collect()
            })
            .collect();
        let group: Vec<(usize, &[RunRecord])> =
            open.iter().zip(&runs).map(|(&m, r)| (m, r.as_slice())).collect();
        for ((&m, runs), (stops, _)) in open
            .iter()
            .zip(&runs)
            .zip(stopping::group_status(self.plan, &group))
        {
            if stops {
                self.state[m].closed = true;
                self.closed += 1;
                progress.cell(m, 0, self.closed);
            } else {
                let s = &mut self.state[m];
                let projected = stopping::projected_replications(self.plan, runs, s.target);
                s.target = next_target(self.plan, s.target);
                s.ahead = s.ahead.max(s.target);
                s.ahead_limit = projected.max(s.target);
                progress.cell(m, projected.saturating_sub(runs.len()), self.closed);
                self.push_ready(m);
            }
        }
    }

    /// Whether no replication waits for the pool.
    pub fn nothing_waiting(&self) -> bool {
        self.cells.iter().all(|&c| self.state[c].waiting.is_empty())
    }

    /// Idle threads and no task waiting: runs ahead in the open cell that has run least far
    /// ahead of its batch (the costliest of those), one batch at a time, up to where its
    /// interval projects it may stop. Decisions still read `0..target` alone.
    pub fn run_ahead(&mut self, progress: &Progress) {
        let can = |s: &CellState| !s.closed && s.ahead < s.ahead_limit;
        let reach = |s: &CellState| s.ahead - s.target;
        let least = self
            .cells
            .iter()
            .map(|&c| &self.state[c])
            .filter(|s| can(s))
            .map(reach)
            .min();
        let pick = least.and_then(|least| {
            progress.costliest(
                self.cells
                    .iter()
                    .copied()
                    .filter(|&c| can(&self.state[c]) && reach(&self.state[c]) == least),
            )
        });
        if let Some(c) = pick {
            let s = &mut self.state[c];
            let to = next_target(self.plan, s.ahead).min(s.ahead_limit);
            let reps: Vec<usize> = (s.ahead..to).filter(|r| !s.recorded.contains_key(r)).collect();
            s.ahead = to;
            s.hand_out(reps.into_iter());
        }
    }

    /// The next task for the pool: a waiting replication of the cell whose tasks have cost
    /// most so far (`Progress::costliest`), so that long tasks do not start last.
    pub fn next_task(&mut self, progress: &Progress) -> Option<(usize, usize)> {
        let c = progress.costliest(
            self.cells
                .iter()
                .copied()
                .filter(|&c| !self.state[c].waiting.is_empty()),
        )?;
        let rep = self.state[c].waiting.pop_front().expect("a waiting task");
        Some((c, rep))
    }

    /// Replication `rep` of `c` reported: `record` when it ran. A cell whose batch is then
    /// in (a replication run ahead may be the last of it) becomes ready to decide.
    pub fn reported(&mut self, c: usize, rep: usize, record: Option<RunRecord>) {
        let s = &mut self.state[c];
        s.running.remove(&rep);
        if let Some(record) = record {
            s.recorded.insert(rep, record);
        }
        if !s.queued && !s.closed && s.batch_in() {
            self.push_ready(c);
        }
    }

    /// Whether a failure of replication `rep` of `c` fails the sweep: not for one run
    /// ahead, which runs again (and fails the sweep) only if its cell comes to need it.
    pub fn needed(&self, c: usize, rep: usize) -> bool {
        rep < self.state[c].target
    }
}
