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
}

/// Starts what `setup`'s policy starts at `now`: adds the tasks to `nodes`, removes the jobs
/// from `queue` (job indices, arrival order) and appends (job, nodes) to `started`.
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
    started: &mut Vec<(usize, Vec<u32>)>,
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
        started.push((head, s.chosen.clone()));
        queue.remove(0);
    }
    if setup.jsp == JobSelection::Fcfs || queue.len() < 2 {
        return;
    }
    // Projected ends of the running jobs and of those just started.
    let mut ends: Vec<(f64, ParallelApp, &[u32])> = running
        .iter()
        .map(|r| (r.end, r.app, r.nodes.as_slice()))
        .collect();
    for (job, on) in &started[first..] {
        let app = jobs[*job].app;
        ends.push((now + app.exec / rate(nodes, on), app, on.as_slice()));
    }
    ends.sort_by(|a, b| a.0.total_cmp(&b.0));
    let head = jobs[queue[0]].app;
    let mut expected = nodes.to_vec();
    let mut shadow = f64::INFINITY;
    for (t, app, on) in &ends {
        for &n in *on {
            expected[n as usize].remove_task(app);
        }
        if select(&hw, &expected, &head, nsp, &mut s.keys, &mut s.probe) {
            shadow = *t;
            break;
        }
    }
    drop(ends);
    // Backfill the rest in order.
    let mut k = 1;
    while k < queue.len() {
        let job = queue[k];
        let app = jobs[job].app;
        if !select(&hw, nodes, &app, nsp, &mut s.keys, &mut s.chosen) {
            k += 1;
            continue;
        }
        let mut after = nodes.to_vec();
        for &n in &s.chosen {
            after[n as usize].add_task(&app);
        }
        let fits = now + app.exec / rate(&after, &s.chosen) <= shadow || {
            let mut with = expected.clone();
            for &n in &s.chosen {
                with[n as usize].add_task(&app);
            }
            let ok = select(&hw, &with, &head, nsp, &mut s.keys, &mut s.probe);
            if ok {
                expected = with;
            }
            ok
        };
        if fits {
            for &n in &s.chosen {
                nodes[n as usize].add_task(&app);
            }
            started.push((job, s.chosen.clone()));
            queue.remove(k);
        } else {
            k += 1;
        }
    }
}
