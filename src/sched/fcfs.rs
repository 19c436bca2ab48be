//! First come, first served: while the queue head fits in the free processors, start it.

use std::collections::VecDeque;

use crate::sim::{SchedCtx, Scheduler};
use crate::workload::{JobId, Jobs};

/// First come, first served, without backfilling.
#[derive(Debug, Default)]
pub struct Fcfs {
    queue: VecDeque<JobId>,
}

impl Scheduler for Fcfs {
    const USES_RUNNING_SET: bool = false;

    fn reset(&mut self, _jobs: &Jobs, _procs: u32) {
        self.queue.clear();
    }

    fn on_arrival(&mut self, job: JobId, _ctx: &SchedCtx) {
        self.queue.push_back(job);
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        while let Some(&head) = self.queue.front() {
            if ctx.procs(head) > ctx.free() {
                break;
            }
            ctx.start(head);
            self.queue.pop_front();
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }
}
