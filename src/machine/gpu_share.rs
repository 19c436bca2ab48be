//! GPU jobs drawn for a trace that records none (`gpu_share`): each replication makes each
//! job a GPU job with probability `share`, asking GPUs in its partition's ratio of cores to
//! GPUs, so that a CPU log can be replayed on a machine of CPU and GPU nodes as its GPU
//! work grows. docs/semantics.md, "The machine", states the rule and why.
//!
//! A GPU job of P processors, where c is the cores per GPU (`cores_per_gpu`, by default
//! its partition's GPU nodes' cores over their GPUs), asks G = P / d GPUs, d the largest
//! divisor of P that is at most c: P/d equal chunks of d cores and one GPU ([`super::Machine::request`]),
//! G = P / c exactly when c divides P, and one GPU per core for a prime wider than c. A
//! job whose GPU request no set of its partition's empty nodes could hold stays a CPU job:
//! whether it may become one is fixed by the machine, the same for every replication.

use rand_xoshiro::rand_core::SeedableRng;

use super::{Machine, Partition};
use crate::random::{ModelRng, unit};
use crate::seed::mix64;
use crate::workload::Jobs;

/// The stream of the GPU draw, apart from the workload's other draws.
const GPU_STREAM: u64 = 0x6770_755f_7368_6172;

/// Most cores per GPU a description may give.
pub const MAX_CORES_PER_GPU: u32 = 4096;

/// A share of GPU jobs to draw per replication.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuShare {
    /// Probability that a job is a GPU job, from 0 to 1.
    pub share: f64,
    /// Cores per GPU of a GPU job; `None`: each partition's GPU nodes' ratio.
    pub cores_per_gpu: Option<u32>,
}

impl GpuShare {
    /// Draws replication `seed`'s GPU jobs into `jobs.gpus`: each job is one with
    /// probability `share` (one uniform draw per job, whatever the share, so that a job
    /// that is a GPU job at one share is one at every higher share: cells differing by the
    /// share are compared on the same jobs), if its partition could hold its GPU request.
    pub fn apply(&self, jobs: &mut Jobs, machine: &Machine, seed: u64) {
        let mut rng = ModelRng::seed_from_u64(mix64(seed ^ GPU_STREAM));
        let ratios: Vec<Option<u32>> = machine.partitions.iter().map(|p| self.ratio(p)).collect();
        let gpus = (0..jobs.len())
            .map(|j| {
                let drawn = unit(&mut rng) < self.share;
                let Some(p) = machine.partition_of(jobs.partition[j]) else {
                    return 0;
                };
                match (drawn, ratios[p]) {
                    (true, Some(c)) => {
                        let g = gpus_for(jobs.procs[j], c);
                        let request =
                            super::request_of(jobs.procs[j], g, super::memory_per_processor(jobs, j));
                        if machine.partitions[p].holds_when_empty(&request) {
                            g
                        } else {
                            0
                        }
                    }
                    _ => 0,
                }
            })
            .collect();
        jobs.gpus = Some(gpus);
    }

    /// The cores per GPU of `p`'s GPU jobs: the given ratio, else its GPU nodes' cores over
    /// their GPUs (at least 1); `None` for a partition without GPUs.
    fn ratio(&self, p: &Partition) -> Option<u32> {
        let (cores, gpus) = p
            .nodes
            .iter()
            .filter(|g| g.gpus > 0)
            .fold((0u64, 0u64), |(c, n), g| {
                (
                    c + g.count as u64 * g.cores as u64,
                    n + g.count as u64 * g.gpus as u64,
                )
            });
        if gpus == 0 {
            return None;
        }
        Some(self.cores_per_gpu.unwrap_or((cores / gpus).max(1) as u32))
    }
}

/// GPUs of a GPU job of `procs` processors at `cores_per_gpu`: `procs / d`, `d` the largest
/// divisor of `procs` that is at most `cores_per_gpu`.
pub fn gpus_for(procs: u32, cores_per_gpu: u32) -> u32 {
    let d = (1..=cores_per_gpu.min(procs).max(1))
        .rev()
        .find(|&d| procs.is_multiple_of(d))
        .unwrap_or(1);
    procs / d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_jobs_ask_the_partitions_ratio_in_whole_chunks() {
        // 8 cores per GPU: a multiple of 8 asks exactly P/8.
        assert_eq!(gpus_for(64, 8), 8);
        assert_eq!(gpus_for(8, 8), 1);
        // Narrower than a GPU's share of cores: one GPU.
        assert_eq!(gpus_for(1, 8), 1);
        assert_eq!(gpus_for(6, 8), 1);
        // 12 = 2 chunks of 6 cores; 100 = 20 chunks of 5; a prime wider than 8, one per core.
        assert_eq!(gpus_for(12, 8), 2);
        assert_eq!(gpus_for(100, 8), 20);
        assert_eq!(gpus_for(13, 8), 13);
        assert_eq!(gpus_for(5, 1), 5);
    }
}
