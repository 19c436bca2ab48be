//! First come, first served: while the queue head fits in the free processors, start it.

use super::{NodePolicy, SchedulerEntry, SchedulerKind};
use crate::sim::{SchedCtx, Scheduler};
use crate::workload::{JobId, Jobs};

/// First come, first served, without backfilling.
#[derive(Debug, Default)]
pub struct Fcfs {
    /// Jobs in arrival order; those before `front` have started. A plain vector with a
    /// cursor rather than a ring buffer: the head is one index away, and the started prefix
    /// is dropped in one move once it is half the vector (O(1) amortised per job).
    queue: Vec<JobId>,
    front: usize,
}

impl SchedulerEntry for Fcfs {
    type Scheduler = Fcfs;
    const NAME: &'static str = "fcfs";
    const COUNTS_BOOTS: bool = true;
    const SYNTAX: &'static str = "fcfs";
    const HELP: &'static str =
        "first come, first served: the queue's head starts when it fits, and no job passes it";
    const DEFAULT: SchedulerKind = SchedulerKind::Fcfs;
    fn build(_: &SchedulerKind) -> Fcfs {
        Fcfs::default()
    }
    fn on_nodes(_: &SchedulerKind) -> Option<NodePolicy> {
        Some(NodePolicy::Fcfs)
    }
}

impl Scheduler for Fcfs {
    const USES_RUNNING_SET: bool = false;

    fn reset(&mut self, _jobs: &Jobs, _procs: u32) {
        self.queue.clear();
        self.front = 0;
    }

    fn on_arrival(&mut self, job: JobId, _ctx: &SchedCtx) {
        self.queue.push(job);
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        while let Some(&head) = self.queue.get(self.front) {
            if ctx.procs(head) > ctx.free() {
                break;
            }
            ctx.start(head);
            self.front += 1;
        }
        if self.front == self.queue.len() {
            self.queue.clear();
            self.front = 0;
        } else if self.front > 64 && self.front * 2 > self.queue.len() {
            self.queue.drain(..self.front);
            self.front = 0;
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len() - self.front
    }
}
