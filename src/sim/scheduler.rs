//! The seam between the engine and the scheduling policies in `crate::sched`.

use super::SchedCtx;
use crate::Time;
use crate::workload::{JobId, Jobs};

/// A scheduling policy. The engine calls the hooks in the order of `crate::sim`'s module
/// docs; the scheduler keeps its own waiting queue and starts jobs with
/// [`SchedCtx::start`], which updates the machine at once, so the next decision in the same
/// pass sees the processors already taken.
///
/// Implementations keep their buffers between runs (`reset` clears, never shrinks), so a
/// replication allocates nothing once the buffers have grown to the workload's size.
pub trait Scheduler {
    /// Whether the scheduler reads the running set ([`SchedCtx::shadow`],
    /// [`SchedCtx::running_sorted`]). Filing each start and end in it costs a little, so
    /// schedulers that only count free processors opt out.
    const USES_RUNNING_SET: bool = true;

    /// Prepares for a run over `jobs` on a machine of `procs` processors.
    fn reset(&mut self, jobs: &Jobs, procs: u32);
    /// A job arrived at `ctx.now()`.
    fn on_arrival(&mut self, job: JobId, ctx: &SchedCtx);
    /// A running job ended at `ctx.now()`; its processors are already free.
    fn on_termination(&mut self, _job: JobId, _ctx: &SchedCtx) {}
    /// A job's prediction changed at `ctx.now()` from `old` to `ctx.prediction(job)`: a
    /// running job outlived its prediction, or the predictor propagated new information.
    /// For a running job the running set already holds the new predicted end.
    fn on_prediction_changed(&mut self, _job: JobId, _old: Time, _ctx: &SchedCtx) {}
    /// Jobs started ahead of the queue head so far in this run (0 if not tracked).
    fn backfilled(&self) -> u64 {
        0
    }
    /// Core-seconds idle on nodes that running jobs partly hold, so far in this run: the
    /// fragmentation of a partition whose jobs are placed on nodes; 0 where processors are
    /// one pool, whose free cores any job can take.
    fn stranded_core_seconds(&self) -> u64 {
        0
    }
    /// One scheduling pass at `ctx.now()`.
    fn schedule(&mut self, ctx: &mut SchedCtx);
    /// Jobs still waiting; the engine checks that none is left when the machine is idle.
    fn waiting(&self) -> usize;
}
