//! One pass of a job selection policy over a cluster state, shared by the simulator that
//! plays the real cluster and by the Simulation and Hybrid estimators, which replay the
//! same policy on their copy of the state (Hanzich et al., Algorithm 3, lines 8-13).
//!
//! - FCFS: start queue heads in arrival order while the node selection places them.
//! - Backfilling (EASY): if the head cannot be placed, release the running jobs in order of
//!   projected end on a copy of the nodes until the head can be placed: that instant is its
//!   shadow time, that copy the cluster it expects. A later job starts now if it can be
//!   placed now and either its projected end (now + dedicated time / its rate once started)
//!   comes by the shadow time, or the expected cluster with its tasks added still places
//!   the head (then they are added). Local users are taken to stay as they are.

use super::cluster::{Node, rate, select};
use super::model::{ParallelApp, ParallelJob};
use super::{JobSelection, Setup};

/// A running job as a pass sees it.
#[derive(Clone, Debug)]
pub struct Projected {
    /// When the caller expects it to end.
    pub end: f64,
    pub app: ParallelApp,
    pub nodes: Vec<u32>,
}

/// Buffers a pass reuses.
#[derive(Debug, Default)]
pub struct PassScratch {
    keys: Vec<(u32, u32, f64, u32)>,
    chosen: Vec<u32>,
    probe: Vec<u32>,
    /// Projected ends: (when, the job's application, its index among the running jobs
    /// and then those just started).
    ends: Vec<(f64, ParallelApp, usize)>,
    /// The cluster the blocked head expects at its shadow time, and copies tried on it.
    expected: Vec<Node>,
    after: Vec<Node>,
    with: Vec<Node>,
}

/// The jobs a pass started, in order, with the nodes of each (one column for all).
#[derive(Debug, Default)]
pub struct Started {
    jobs: Vec<(usize, std::ops::Range<usize>)>,
    nodes: Vec<u32>,
}

impl Started {
    pub fn clear(&mut self) {
        self.jobs.clear();
        self.nodes.clear();
    }

    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// The `i`-th job started, and its nodes.
    pub fn get(&self, i: usize) -> (usize, &[u32]) {
        let (job, ref on) = self.jobs[i];
        (job, &self.nodes[on.clone()])
    }

    pub fn iter(&self) -> impl Iterator<Item = (usize, &[u32])> {
        (0..self.len()).map(|i| self.get(i))
    }

    fn push(&mut self, job: usize, on: &[u32]) {
        let at = self.nodes.len();
        self.nodes.extend_from_slice(on);
        self.jobs.push((job, at..self.nodes.len()));
    }
}

/// Starts what `setup`'s policy starts at `now`: adds the tasks to `nodes`, removes the jobs
/// from `queue` (job indices, arrival order) and appends each job with its nodes to
/// `started`.
/// `running` holds the jobs running before the pass.
#[allow(clippy::too_many_arguments)]
pub fn pass(
    setup: &Setup,
    jobs: &[ParallelJob],
    nodes: &mut [Node],
    queue: &mut Vec<usize>,
    running: &[Projected],
    now: f64,
    s: &mut PassScratch,
    started: &mut Started,
) {
    let (hw, nsp) = (setup.hardware, setup.nsp);
    let first = started.len();
    while let Some(&head) = queue.first() {
        let app = jobs[head].app;
        if !select(&hw, nodes, &app, nsp, &mut s.keys, &mut s.chosen) {
            break;
        }
        for &n in &s.chosen {
            nodes[n as usize].add_task(&app);
        }
        started.push(head, &s.chosen);
        queue.remove(0);
    }
    if setup.jsp == JobSelection::Fcfs || queue.len() < 2 {
        return;
    }
    // Projected ends of the running jobs and of those just started, in order of end (the
    // earlier listed first among equal ends).
    s.ends.clear();
    s.ends
        .extend(running.iter().enumerate().map(|(i, r)| (r.end, r.app, i)));
    for i in 0..started.len() - first {
        let (job, on) = started.get(first + i);
        let app = jobs[job].app;
        s.ends
            .push((now + app.exec / rate(nodes, on), app, running.len() + i));
    }
    s.ends
        .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)));
    let on = |i: usize| -> &[u32] {
        match running.get(i) {
            Some(r) => &r.nodes,
            None => started.get(first + i - running.len()).1,
        }
    };
    let head = jobs[queue[0]].app;
    s.expected.clear();
    s.expected.extend_from_slice(nodes);
    let mut shadow = f64::INFINITY;
    for &(t, app, i) in &s.ends {
        for &n in on(i) {
            s.expected[n as usize].remove_task(&app);
        }
        if select(&hw, &s.expected, &head, nsp, &mut s.keys, &mut s.probe) {
            shadow = t;
            break;
        }
    }
    // Backfill the rest in order.
    let mut k = 1;
    while k < queue.len() {
        let job = queue[k];
        let app = jobs[job].app;
        if !select(&hw, nodes, &app, nsp, &mut s.keys, &mut s.chosen) {
            k += 1;
            continue;
        }
        s.after.clear();
        s.after.extend_from_slice(nodes);
        for &n in &s.chosen {
            s.after[n as usize].add_task(&app);
        }
        let fits = now + app.exec / rate(&s.after, &s.chosen) <= shadow || {
            s.with.clone_from(&s.expected);
            for &n in &s.chosen {
                s.with[n as usize].add_task(&app);
            }
            let ok = select(&hw, &s.with, &head, nsp, &mut s.keys, &mut s.probe);
            if ok {
                std::mem::swap(&mut s.expected, &mut s.with);
            }
            ok
        };
        if fits {
            for &n in &s.chosen {
                nodes[n as usize].add_task(&app);
            }
            started.push(job, &s.chosen);
            queue.remove(k);
        } else {
            k += 1;
        }
    }
}
