//! New workloads drawn from a trace, so that a trace-driven experiment has replications
//! that differ and its results intervals (issue #21).
//!
//! Input shaking (after Tsafrir, Ouaknine & Feitelson, "Reducing performance evaluation
//! sensitivity and variability by input shaking", MASCOTS 2007): every job's submit time
//! moves by an independent whole number of seconds drawn uniformly from [-jitter, +jitter],
//! at the earliest to the trace's first submit; the jobs are then put back in submit order
//! (ties in trace order). Everything else about a job stays as recorded. The paper perturbs
//! the input "slightly" without fixing one recipe; this one, with jitter 60 s by default,
//! is schedlab's: small against the logs' mean inter-arrival times (minutes), large enough
//! to reorder the jobs of a burst, which is where single replays are fragile.

use rand_xoshiro::rand_core::{Rng, SeedableRng};

use super::Jobs;
use crate::Time;
use crate::workload::synth::ModelRng;

/// The default jitter of input shaking, seconds.
pub const DEFAULT_SHAKE_JITTER: Time = 60;

/// Shakes `jobs` in place (module docs); deterministic for a seed.
pub fn shake(jobs: &mut Jobs, jitter: Time, seed: u64) {
    let Some(&first) = jobs.submit.first() else {
        return;
    };
    let mut rng = ModelRng::seed_from_u64(crate::seed::mix64(seed ^ 0x7368_616b_6500));
    // Exact and unbiased: one draw below a multiple of the range's width.
    let width = 2 * jitter as u64 + 1;
    let zone = u64::MAX - u64::MAX % width;
    for s in &mut jobs.submit {
        let draw = loop {
            let x = rng.next_u64();
            if x < zone {
                break x % width;
            }
        };
        *s = (*s + draw as Time - jitter).max(first);
    }
    jobs.sort_by_submit();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::JobRecord;

    fn jobs(n: usize) -> Jobs {
        let records: Vec<JobRecord> = (0..n)
            .map(|i| {
                JobRecord::new(
                    i as u64 + 1,
                    1000 + 30 * i as i64,
                    10 + i as i64,
                    1 + (i % 7) as u32,
                    100,
                )
            })
            .collect();
        Jobs::from_records(&records)
    }

    #[test]
    fn shaking_moves_submits_within_the_jitter_and_keeps_everything_else() {
        let original = jobs(2000);
        let mut shaken = original.clone();
        shake(&mut shaken, 60, 7);
        assert!(
            shaken.submit.windows(2).all(|w| w[0] <= w[1]),
            "back in submit order"
        );
        // Match jobs by SWF id: the same jobs, each moved by at most 60 s, not before the
        // first submit, and unchanged in every other column.
        let mut moved = 0;
        for j in 0..shaken.len() {
            let i = (shaken.swf_id[j] - 1) as usize;
            let d = shaken.submit[j] - original.submit[i];
            assert!(d.abs() <= 60, "job {i} moved {d}");
            assert!(shaken.submit[j] >= original.submit[0]);
            assert_eq!(
                (shaken.runtime[j], shaken.procs[j], shaken.estimate[j]),
                (original.runtime[i], original.procs[i], original.estimate[i])
            );
            moved += (d != 0) as usize;
        }
        assert!(moved > 1900, "{moved} of 2000 moved");
        // Deterministic for a seed; another seed gives another workload.
        let mut again = original.clone();
        shake(&mut again, 60, 7);
        assert_eq!(again.submit, shaken.submit);
        let mut other = original.clone();
        shake(&mut other, 60, 8);
        assert_ne!(other.submit, shaken.submit);
        // Offsets are uniform on [-60, 60]: their mean is near 0 (sd of the mean ~ 0.8 s).
        let mut other_ids = shaken.swf_id.clone();
        other_ids.sort_unstable();
        assert_eq!(other_ids, original.swf_id);
        let mean: f64 = (0..shaken.len())
            .map(|j| (shaken.submit[j] - original.submit[(shaken.swf_id[j] - 1) as usize]) as f64)
            .sum::<f64>()
            / shaken.len() as f64;
        assert!(mean.abs() < 4.0, "mean offset {mean}");
    }

    #[test]
    fn an_empty_trace_shakes_to_itself() {
        let mut empty = jobs(0);
        shake(&mut empty, 60, 1);
        assert_eq!(empty.len(), 0);
    }
}
