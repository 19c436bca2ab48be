//! Memory drawn for jobs that record none (`memory_pressure`): each replication gives each
//! job a memory request per processor, log-normal around a share of its partition's memory
//! per core, so that a log without memory (or a workload model) can be run on a machine of
//! nodes as memory grows scarce. docs/semantics.md, "The machine", states the rule and why.
//!
//! Job j in partition p asks m_j = pressure x r_p x exp(sigma x z_j) KB per processor, where
//! r_p is p's memory per core (the memory of its node groups that describe memory over
//! their cores) and z_j a standard normal draw. The median job asks `pressure` times the
//! nodes' share per core: at 1 the median job fills a node's memory as it fills its cores;
//! above 1, memory binds before cores. A job whose drawn memory no set of its partition's
//! empty nodes could hold asks the most they could: the draw is capped, never a reason to
//! skip a job, so that every pressure runs the same jobs.

use rand_distr::{Distribution, StandardNormal};
use rand_xoshiro::rand_core::SeedableRng;

use super::{Machine, Partition};
use crate::random::ModelRng;
use crate::seed::mix64;
use crate::workload::Jobs;

/// The stream of the memory draw, apart from the workload's other draws and the GPU draw.
const MEMORY_STREAM: u64 = 0x6d65_6d5f_7072_6573;

/// Most `memory_pressure` a description may give: the median job asking 64 times a core's
/// share of its node's memory.
pub const MAX_MEMORY_PRESSURE: f64 = 64.0;

/// Most `memory_sigma`: beyond it the draw is a few jobs asking whole nodes and the rest
/// nothing.
pub const MAX_MEMORY_SIGMA: f64 = 4.0;

/// The spread of memory per processor when none is given: the standard deviation of the
/// log of requested memory per processor (SWF field 10) over the 110,770 jobs of
/// LANL-CM5-1994-4.1-cln that record it (1.16; its median is 4,800 KB of a node's 32 MB).
/// It is the only log in `../shared/traces` with memory, so the default rests on one
/// machine of 1994.
pub const DEFAULT_MEMORY_SIGMA: f64 = 1.16;

/// Memory per processor to draw per replication.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryPressure {
    /// The median job's memory per processor over its partition's memory per core, from 0.
    pub pressure: f64,
    /// Standard deviation of the log of memory per processor.
    pub sigma: f64,
}

impl MemoryPressure {
    /// Draws replication `seed`'s memory per processor into `jobs.requested_memory` (KB,
    /// SWF field 10): one normal draw per job, whatever the pressure, so that cells that
    /// differ by the pressure are compared on the same jobs, each asking in proportion to it.
    /// A partition that describes no memory leaves its jobs asking none.
    pub fn apply(&self, jobs: &mut Jobs, machine: &Machine, seed: u64) {
        let mut rng = ModelRng::seed_from_u64(mix64(seed ^ MEMORY_STREAM));
        let per_core: Vec<Option<f64>> = machine.partitions.iter().map(memory_per_core_kb).collect();
        for j in 0..jobs.len() {
            let z: f64 = StandardNormal.sample(&mut rng);
            let Some(p) = machine.partition_of(jobs.partition[j]) else {
                continue;
            };
            let Some(r) = per_core[p] else {
                jobs.requested_memory[j] = -1;
                continue;
            };
            let drawn = (self.pressure * r * (self.sigma * z).exp()).round();
            jobs.requested_memory[j] = drawn.min(i32::MAX as f64) as i32;
            cap_to_partition(jobs, j, machine, &machine.partitions[p]);
        }
    }
}

/// KB of memory per core of `p`'s node groups that describe memory; `None` when none does.
fn memory_per_core_kb(p: &Partition) -> Option<f64> {
    let (kb, cores) = p
        .nodes
        .iter()
        .filter(|g| g.memory_gb > 0.0)
        .fold((0.0, 0u64), |(kb, cores), g| {
            (
                kb + g.count as f64 * g.memory_gb * super::pool::KB_PER_GB,
                cores + g.count as u64 * g.cores as u64,
            )
        });
    (cores > 0).then(|| kb / cores as f64)
}

/// Lowers job `j`'s memory per processor to the most `p`'s empty nodes hold for it, if they
/// do not hold what it asks: the largest whole KB at which they do (by bisection; holding is
/// monotone in the memory asked, and 0 always holds a job its partition's cores hold).
fn cap_to_partition(jobs: &mut Jobs, j: usize, machine: &Machine, p: &Partition) {
    let holds = |jobs: &mut Jobs, kb: i32| {
        jobs.requested_memory[j] = kb;
        p.holds_when_empty(&machine.request(jobs, j))
    };
    let asked = jobs.requested_memory[j];
    if asked <= 0 || holds(jobs, asked) {
        jobs.requested_memory[j] = asked;
        return;
    }
    // holds(low) and !holds(high) throughout.
    let (mut low, mut high) = (0i32, asked);
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if holds(jobs, mid) {
            low = mid;
        } else {
            high = mid;
        }
    }
    jobs.requested_memory[j] = low;
}
