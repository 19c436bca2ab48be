//! The GA's fitness on a partition of nodes: the projection of an ordering by EASY
//! backfilling with every job placed on nodes (best fit, [`NodePool::choose`]), as
//! `crate::sched::nodes` runs EASY. The head's shadow time is the first predicted end after
//! which it fits on the nodes then free; a job that would still run then backfills only if
//! the head still fits beside it, node by node. Where only cores bind (shared nodes whose
//! memory and GPUs hold every request), this is the one-pool projection's count of
//! processors and extra processors, start for start: the tests check both.

use crate::Time;
use crate::machine::pool::{NodePool, NodeRequest, Placement, Unfit};
use crate::workload::JobId;

use super::Snapshot;

/// A job running on the partition, as the projection reads it.
#[derive(Clone, Copy, Debug)]
pub struct RunningOnNodes {
    pub predicted_end: Time,
    pub request: NodeRequest,
    /// Its placement's index in [`NodesNow::held`].
    pub placement: u32,
}

/// The partition now, for one decision.
#[derive(Clone, Copy, Debug)]
pub struct NodesNow<'a> {
    /// Its nodes, with what is free now.
    pub pool: &'a NodePool,
    /// The running jobs, ascending by predicted end.
    pub running: &'a [RunningOnNodes],
    /// Where running jobs hold their nodes ([`RunningOnNodes::placement`]).
    pub held: &'a [Placement],
    /// Each waiting job's request, in the order of the snapshot's queue.
    pub requests: &'a [NodeRequest],
}

/// A projection's buffers on nodes, kept between evaluations.
#[derive(Debug, Default)]
pub(super) struct NodeScratch {
    /// The nodes free at the projection's instant, and at the blocked head's shadow time.
    free: NodePool,
    at_shadow: NodePool,
    /// Predicted ends still to come, ascending from `ends_from`: (end, who), `who` a
    /// running job's index below `running.len()`, else that plus a queue index.
    ends: Vec<(Time, u32)>,
    /// The ordering's jobs not yet started (queue indices), `u32::MAX` once started.
    pending: Vec<u32>,
    /// Per queue index: where the projection placed the job.
    placements: Vec<Placement>,
}

impl NodesNow<'_> {
    /// Aggregate utility of running `snapshot`'s queue in `order` by EASY on these nodes;
    /// the jobs that start at `snapshot.now` are appended to `started_now` if given, in
    /// the order they start (placing them in that order on the pool now, best fit, puts
    /// each where the projection put it).
    pub(super) fn project(
        &self,
        snapshot: &Snapshot,
        order: &[u32],
        s: &mut NodeScratch,
        mut started_now: Option<&mut Vec<JobId>>,
    ) -> f64 {
        const DONE: u32 = u32::MAX;
        let queue = snapshot.queue;
        if s.free.nodes() != self.pool.nodes() {
            // First use: a GA's decisions are all on one partition's nodes.
            s.free = self.pool.clone();
            s.at_shadow = self.pool.clone();
        }
        s.free.copy_free_from(self.pool);
        if s.placements.len() < queue.len() {
            s.placements.resize_with(queue.len(), Placement::new);
        }
        s.ends.clear();
        s.ends
            .extend((self.running.iter().enumerate()).map(|(k, r)| (r.predicted_end, k as u32)));
        s.pending.clear();
        s.pending.extend_from_slice(order);
        let first_queued = self.running.len() as u32;
        let (mut t, mut ends_from, mut front, mut total) = (snapshot.now, 0, 0, 0.0);
        let mut start = |i: u32, t: Time, ends: &mut Vec<(Time, u32)>, ends_from: usize| {
            total += snapshot.started(i, t, first_queued + i, ends, ends_from, &mut started_now);
        };
        loop {
            // Heads in order while they fit.
            while front < s.pending.len() {
                let i = s.pending[front];
                if i != DONE {
                    let (r, a) = (&self.requests[i as usize], &mut s.placements[i as usize]);
                    if !s.free.choose(r, a) {
                        break;
                    }
                    s.free.take(r, a);
                    start(i, t, &mut s.ends, ends_from);
                }
                front += 1;
            }
            if front == s.pending.len() {
                break;
            }
            // The blocked head's shadow time: the nodes free once each instant's ends are
            // given back, until it fits (it fits on empty nodes, so some instant does).
            let head = &self.requests[s.pending[front] as usize];
            s.at_shadow.copy_free_from(&s.free);
            let mut k = ends_from;
            let shadow = loop {
                let end = s.ends[k].0;
                while k < s.ends.len() && s.ends[k].0 == end {
                    let (r, a) = self.holder(s.ends[k].1, &s.placements);
                    s.at_shadow.give_back(r, a);
                    k += 1;
                }
                if s.at_shadow.fits(head) {
                    break end;
                }
            };
            // Backfill the rest in order; what is free only shrinks meanwhile.
            let mut unfit = Unfit::default();
            for p in front + 1..s.pending.len() {
                if s.free.free_cores() == 0 {
                    break;
                }
                let i = s.pending[p];
                if i == DONE {
                    continue;
                }
                let (r, a) = (&self.requests[i as usize], &mut s.placements[i as usize]);
                if unfit.rules_out(r) {
                    continue;
                }
                if !s.free.choose(r, a) {
                    unfit.add(*r);
                    continue;
                }
                if t + queue[i as usize].request > shadow {
                    // Still running at the shadow time: the head must fit beside it then.
                    s.at_shadow.take(r, a);
                    if !s.at_shadow.fits(head) {
                        s.at_shadow.give_back(r, a);
                        continue;
                    }
                }
                s.free.take(r, a);
                start(i, t, &mut s.ends, ends_from);
                s.pending[p] = DONE;
            }
            // The next instant at which something ends.
            t = t.max(s.ends[ends_from].0);
            while ends_from < s.ends.len() && s.ends[ends_from].0 <= t {
                let (r, a) = self.holder(s.ends[ends_from].1, &s.placements);
                s.free.give_back(r, a);
                ends_from += 1;
            }
        }
        total
    }

    /// The request and placement of `who` of [`NodeScratch::ends`].
    fn holder<'a>(&'a self, who: u32, placements: &'a [Placement]) -> (&'a NodeRequest, &'a Placement) {
        match self.running.get(who as usize) {
            Some(r) => (&r.request, &self.held[r.placement as usize]),
            None => {
                let i = who as usize - self.running.len();
                (&self.requests[i], &placements[i])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Candidate, MachineNow, Scratch};
    use super::*;
    use crate::machine::NodeGroup;
    use crate::workload::UtilityFunction;
    use proptest::prelude::*;

    fn pool(count: u32, cores: u32, memory_gb: f64) -> NodePool {
        let group = NodeGroup {
            name: "n".into(),
            count,
            cores,
            memory_gb,
            gpus: 0,
            power: None,
            switching: None,
        };
        NodePool::new(&[group], false)
    }

    /// The projection by hand on two nodes of 4 cores and 8 GB, where memory binds: a job
    /// of 2 tasks of 4 GB runs on node 0 until 100. Queue (tasks x GB, request): A (4 x 4,
    /// 50), B (2 x 1, 30), D (1 x 4, 200), C (1 x 0, 200), all submitted at 0, each
    /// earning 1000 less its turnaround.
    #[test]
    fn projection_on_nodes_by_hand() {
        let gb = 1_048_576;
        let mut nodes = pool(2, 4, 8.0);
        let running_request = NodeRequest::tasks(2, 4 * gb);
        let held = vec![vec![(0, 2)]];
        nodes.take(&running_request, &held[0]);
        let requests = [
            NodeRequest::tasks(4, 4 * gb),
            NodeRequest::tasks(2, gb),
            NodeRequest::tasks(1, 4 * gb),
            NodeRequest::tasks(1, 0),
        ];
        let queue: Vec<Candidate> = [(4, 50), (2, 30), (1, 200), (1, 200)]
            .iter()
            .enumerate()
            .map(|(i, &(procs, request))| Candidate {
                job: JobId(i as u32),
                procs,
                request,
                submit: 0,
            })
            .collect();
        let utility = vec![UtilityFunction::new(vec![(0.0, 1000.0), (1000.0, 0.0)]).unwrap(); 4];
        let running = [RunningOnNodes {
            predicted_end: 100,
            request: running_request,
            placement: 0,
        }];
        let snapshot = Snapshot {
            now: 0,
            machine: MachineNow::Nodes(NodesNow {
                pool: &nodes,
                running: &running,
                held: &held,
                requests: &requests,
            }),
            queue: &queue,
            utility: &utility,
        };
        // Order A, B, D, C. A has cores (6 free) but not memory: node 0 has none left and
        // node 1 holds 2 of its tasks. Its shadow time is 100, when node 0 frees 8 GB. B
        // (ends 30) backfills on node 1. D fits now on node 1 but would still run at 100,
        // and with it node 1 holds 1 of A's tasks: 3 of 4, so D waits. C asks no memory
        // and fits beside A at 100 wherever it goes: it backfills on node 0 (tightest).
        // At 100 A starts (ends 150), and D at 150 (ends 350). Utilities 850, 970, 650, 800.
        let mut started = Vec::new();
        let total = snapshot.project(&[0, 1, 2, 3], &mut Scratch::default(), Some(&mut started));
        assert_eq!(total, 850.0 + 970.0 + 650.0 + 800.0);
        assert_eq!(started, [JobId(1), JobId(3)]);
        // Counting processors alone, A would start now: the one-pool projection.
        let one_pool = Snapshot {
            machine: MachineNow::Pool {
                free: 6,
                running: &[(100, 2)],
            },
            ..snapshot
        };
        started.clear();
        one_pool.project(&[0, 1, 2, 3], &mut Scratch::default(), Some(&mut started));
        assert_eq!(started, [JobId(0), JobId(1)]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Where only cores bind (shared nodes of 1 to 4 cores, memory undescribed or
        /// ample), the projection on nodes is the one-pool projection: the same utility,
        /// bit for bit, and the same jobs started now, in the same order.
        #[test]
        fn on_nodes_where_only_cores_bind_the_projection_counts_processors(
            (count, cores) in (1u32..=6, 1u32..=4),
            memory_gb in prop::sample::select(vec![0.0, 1024.0]),
            running in prop::collection::vec((1u32..=8, 1i64..120), 0..6),
            queue in prop::collection::vec((1u32..=24, 1i64..150, 0i64..20, 1.0f64..3000.0), 1..12),
            shuffle in any::<u64>(),
        ) {
            let mut nodes = pool(count, cores, memory_gb);
            let total_cores = count * cores;
            let (mut on_nodes, mut held, mut on_pool) = (Vec::new(), Vec::new(), Vec::new());
            for &(units, end) in &running {
                let request = NodeRequest::tasks(units, 0);
                let mut a = Placement::new();
                if nodes.choose(&request, &mut a) {
                    nodes.take(&request, &a);
                    on_nodes.push(RunningOnNodes { predicted_end: end, request, placement: held.len() as u32 });
                    on_pool.push((end, units));
                    held.push(a);
                }
            }
            on_nodes.sort_by_key(|r| r.predicted_end);
            on_pool.sort_by_key(|r| r.0);
            let candidates: Vec<Candidate> = queue
                .iter()
                .enumerate()
                .map(|(i, &(procs, request, submit, _))| Candidate {
                    job: JobId(i as u32),
                    procs: 1 + (procs - 1) % total_cores,
                    request,
                    submit,
                })
                .collect();
            let requests: Vec<NodeRequest> = candidates.iter().map(|c| NodeRequest::tasks(c.procs, 0)).collect();
            let utility: Vec<UtilityFunction> = queue
                .iter()
                .map(|&(_, _, _, span)| UtilityFunction::new(vec![(0.0, 100.0), (span, 0.0)]).unwrap())
                .collect();
            // An ordering drawn from `shuffle`.
            let mut order: Vec<u32> = (0..candidates.len() as u32).collect();
            let mut bits = shuffle;
            for i in (1..order.len()).rev() {
                order.swap(i, (bits % (i as u64 + 1)) as usize);
                bits = bits.rotate_left(7) ^ 0x9e37_79b9_7f4a_7c15;
            }
            let node_snapshot = Snapshot {
                now: 0,
                machine: MachineNow::Nodes(NodesNow { pool: &nodes, running: &on_nodes, held: &held, requests: &requests }),
                queue: &candidates,
                utility: &utility,
            };
            let pool_snapshot = Snapshot {
                machine: MachineNow::Pool { free: nodes.free_cores() as u32, running: &on_pool },
                ..node_snapshot
            };
            let (mut on_nodes_started, mut on_pool_started) = (Vec::new(), Vec::new());
            // One scratch for two evaluations: what a team member does.
            let mut scratch = Scratch::default();
            node_snapshot.project(&order, &mut scratch, None);
            let got = node_snapshot.project(&order, &mut scratch, Some(&mut on_nodes_started));
            let expected = pool_snapshot.project(&order, &mut Scratch::default(), Some(&mut on_pool_started));
            prop_assert_eq!(got.to_bits(), expected.to_bits());
            prop_assert_eq!(on_nodes_started, on_pool_started);
        }
    }
}
