//! Waiting jobs in a scheduler's order, laid out so that the backfill test runs on many jobs
//! at a time without branches.
//!
//! After each termination EASY re-tests every waiting job behind the head, and almost every
//! test fails: on CTC-SP2 a run makes 134,000 scans that visit 4.1 M waiting jobs and start
//! 61,000. Testing one job at a time costs a branch the predictor cannot learn (about a
//! quarter of the jobs fit the free processors, in no pattern). So the list keeps the two
//! numbers the test reads, size and prediction, in `i32` lanes beside the entries; the scan
//! computes a mask of the jobs that may pass, 64 at a time (eight per instruction with AVX2
//! where the CPU has it, else four with SSE2), and tests only those again exactly. SJBF uses
//! the same list in arrival order: with AVX2 each of its rounds finds the least prediction
//! among the jobs that may pass in one pass over the lanes; without, it orders only the
//! candidates of one scan. docs/performance.md has the measurements.

use super::BackfillOrder;
use crate::Time;
use crate::workload::JobId;

/// A waiting job with what the exact backfill test reads (the vector test reads the lanes).
/// The prediction of a waiting job changes only through [`WaitList::set_prediction`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Waiting {
    pub(super) prediction: Time,
    pub(super) job: JobId,
    pub(super) procs: u32,
}

/// `Waiting::procs` of a job that has started: no free count is that large, so a marked
/// entry is never tried again, and compaction needs no lookup.
pub(super) const STARTED: u32 = u32::MAX;

/// The head's reservation: its shadow time and the processors left over then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Reservation {
    pub(super) head: JobId,
    pub(super) shadow: Time,
    pub(super) extra: u32,
}

/// A marked entry in the size lane: larger than any free count.
const LANE_STARTED: i32 = i32::MAX;

/// Jobs the vector test takes per step with AVX2 (SSE2 takes half), and the marked entries
/// that follow the last job in the lanes, so the test never needs a scalar tail.
const STEP: usize = 8;

/// Waiting jobs in the order a scheduler tries them. Beside the entries, two lanes hold what
/// the vector test reads as `i32`: the size (`LANE_STARTED` once marked) and the prediction
/// clamped to `i32::MAX`, followed by `STEP` marked entries. Every change goes through a
/// method that keeps them in step.
#[derive(Debug)]
pub(super) struct WaitList {
    jobs: Vec<Waiting>,
    procs_lane: Vec<i32>,
    prediction_lane: Vec<i32>,
    /// Scratch for SJBF's scan: the candidates, in list order.
    pending: Vec<Candidate>,
    kernel: Kernel,
}

impl Default for WaitList {
    fn default() -> Self {
        Self::with_kernel(Kernel::detect())
    }
}

/// The vector instructions the scans use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kernel {
    /// SSE2 on x86-64 (every such CPU has it), plain code elsewhere.
    Portable,
    /// AVX2: only ever chosen by [`Kernel::detect`] on a CPU that has it.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    /// The fastest kernel this CPU runs.
    pub(super) fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel::Avx2;
        }
        Kernel::Portable
    }
}

/// The largest size, free count or `extra` the lanes hold: below `LANE_STARTED`, so a
/// marked entry or the padding never passes. Clamping a size only lets more through.
const LANE_MAX: u32 = LANE_STARTED as u32 - 1;

/// The size lane's value for `w`.
#[inline]
fn procs_lane(w: &Waiting) -> i32 {
    if w.procs == STARTED {
        LANE_STARTED
    } else {
        w.procs.min(LANE_MAX) as i32
    }
}

/// A prediction or time span clamped into the prediction lane.
#[inline]
fn clamp(t: Time) -> i32 {
    t.clamp(0, i32::MAX as Time) as i32
}

impl WaitList {
    fn with_kernel(kernel: Kernel) -> Self {
        WaitList {
            jobs: Vec::new(),
            procs_lane: vec![LANE_STARTED; STEP],
            prediction_lane: vec![LANE_STARTED; STEP],
            pending: Vec::new(),
            kernel,
        }
    }

    pub(super) fn clear(&mut self) {
        self.jobs.clear();
        self.relane();
    }

    pub(super) fn len(&self) -> usize {
        self.jobs.len()
    }

    pub(super) fn jobs(&self) -> &[Waiting] {
        &self.jobs
    }

    /// Appends `w`.
    pub(super) fn push(&mut self, w: Waiting) {
        let at = self.jobs.len();
        self.jobs.push(w);
        // The first padding entry becomes the job's; a new one follows.
        self.procs_lane[at] = procs_lane(&w);
        self.prediction_lane[at] = clamp(w.prediction);
        self.procs_lane.push(LANE_STARTED);
        self.prediction_lane.push(LANE_STARTED);
    }

    /// Inserts `w` at `at`, shifting the jobs after it.
    pub(super) fn insert(&mut self, at: usize, w: Waiting) {
        self.jobs.insert(at, w);
        self.procs_lane.insert(at, procs_lane(&w));
        self.prediction_lane.insert(at, clamp(w.prediction));
    }

    /// Sets the prediction of the job at `i`.
    pub(super) fn set_prediction(&mut self, i: usize, prediction: Time) {
        self.jobs[i].prediction = prediction;
        self.prediction_lane[i] = clamp(prediction);
    }

    /// Drops the first `n` jobs, then keeps only those of the rest for which `keep` holds.
    pub(super) fn compact(&mut self, n: usize, keep: impl FnMut(&Waiting) -> bool) {
        self.jobs.drain(..n);
        self.jobs.retain(keep);
        self.relane();
    }

    fn relane(&mut self) {
        let padding = [LANE_STARTED; STEP];
        self.procs_lane.clear();
        self.procs_lane.extend(self.jobs.iter().map(procs_lane));
        self.procs_lane.extend(padding);
        self.prediction_lane.clear();
        self.prediction_lane
            .extend(self.jobs.iter().map(|w| clamp(w.prediction)));
        self.prediction_lane.extend(padding);
    }

    /// Tries the jobs from index `from` on against the reservation `r` with `free`
    /// processors free at `now`, in list order or, for SJBF, in ascending order of
    /// (prediction, job): a job passes if it fits in the free processors and either ends by
    /// the shadow time (`now + prediction <= shadow`) or fits in `extra`, which only the
    /// second case reduces. Each job that passes is given to `start` and marked `STARTED`.
    /// Stops when no processor is free. Returns how many started.
    ///
    /// The test runs on 64 jobs at a time without branches ([`candidates`]), on the lanes;
    /// only the jobs it lets through are tested again exactly, in order. Since `free` and
    /// `extra` only fall as the scan goes on, and clamping the predictions only lets more
    /// through, a job the first test rejects would fail at its turn too: this starts the
    /// same jobs in the same order as testing every job in turn. For SJBF it means looking
    /// for the least prediction only among the jobs the test lets through: with AVX2 by one
    /// pass over the lanes per start (`shortest_first_avx2`), otherwise among the
    /// candidates of the first test.
    pub(super) fn backfill(
        &mut self,
        from: usize,
        now: Time,
        mut free: u32,
        r: &mut Reservation,
        order: BackfillOrder,
        mut start: impl FnMut(JobId),
    ) -> usize {
        debug_assert!(r.shadow >= now, "the shadow time is never in the past");
        let until_shadow = r.shadow - now;
        let mut started = 0;
        #[cfg(target_arch = "x86_64")]
        if order == BackfillOrder::ShortestPrediction && self.kernel == Kernel::Avx2 {
            match self.shortest_first_avx2(from, &mut free, r, until_shadow, &mut start) {
                (n, true) => return n,
                // A prediction or size beyond the lanes' range: the rounds below finish.
                (n, false) => started = n,
            }
        }
        let mut base = from;
        let mut pending = std::mem::take(&mut self.pending);
        pending.clear();
        'scan: while base < self.jobs.len() && free > 0 {
            let end = (base + 64).min(self.jobs.len());
            // Whole steps: the padding after the last job never passes.
            let lanes = base..base + (end - base).next_multiple_of(STEP);
            let mut mask = candidates(
                self.kernel,
                &self.procs_lane[lanes.clone()],
                &self.prediction_lane[lanes],
                free,
                r.extra,
                clamp(until_shadow),
            );
            while mask != 0 {
                let i = base + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                match order {
                    BackfillOrder::Arrival => {
                        started += usize::from(self.try_start(i, &mut free, r, until_shadow, &mut start));
                        if free == 0 {
                            break 'scan;
                        }
                    }
                    BackfillOrder::ShortestPrediction => pending.push(Candidate {
                        key: (self.prediction_lane[i] as u64) << 32 | i as u64,
                        procs: self.jobs[i].procs,
                    }),
                }
            }
            base = end;
        }
        // SJBF: the candidates in order of (prediction, job); see `Candidate`. After each
        // start the rest are tested again and those that now fail dropped, in the same pass
        // that finds the least of those kept, so each round is one pass over few.
        let mut least = pending.iter().map(|c| c.key).min().unwrap_or(u64::MAX);
        while !pending.is_empty() {
            let taken = if least >> 32 < LANE_STARTED as u64 {
                least
            } else {
                // Every candidate left has a clamped prediction: compare exactly.
                let jobs = &self.jobs;
                let c = pending
                    .iter()
                    .min_by_key(|c| (jobs[c.index()].prediction, c.index()));
                c.expect("not empty").key
            };
            let i = (taken & u64::from(u32::MAX)) as usize;
            if self.try_start(i, &mut free, r, until_shadow, &mut start) {
                started += 1;
                if free == 0 {
                    break;
                }
            }
            least = keep_candidates(&mut pending, taken, free, r.extra, clamp(until_shadow));
        }
        self.pending = pending;
        started
    }

    /// SJBF's rounds with AVX2: each finds the first job of least prediction among those
    /// that may pass in one pass over the lanes ([`least_avx2`]) and starts it. Returns
    /// how many started and whether it finished the scan; it stops early, leaving the rest
    /// to the candidate rounds of [`WaitList::backfill`], only when that job's prediction is
    /// clamped in the lane or the exact test refuses it (sizes beyond the lanes' range).
    #[cfg(target_arch = "x86_64")]
    fn shortest_first_avx2(
        &mut self,
        from: usize,
        free: &mut u32,
        r: &mut Reservation,
        until_shadow: Time,
        start: &mut impl FnMut(JobId),
    ) -> (usize, bool) {
        let mut started = 0;
        // Whole steps from `from`: the padding after the last job never passes.
        let lanes = from..from + self.jobs.len().saturating_sub(from).next_multiple_of(STEP);
        while *free > 0 {
            // SAFETY: `Kernel::Avx2` is only chosen on a CPU with AVX2.
            let least = unsafe {
                least_avx2(
                    &self.procs_lane[lanes.clone()],
                    &self.prediction_lane[lanes.clone()],
                    *free,
                    r.extra,
                    clamp(until_shadow),
                )
            };
            match least {
                None => break,
                Some((k, prediction)) if prediction < LANE_STARTED => {
                    if !self.try_start(from + k, free, r, until_shadow, start) {
                        return (started, false);
                    }
                    started += 1;
                }
                Some(_) => return (started, false),
            }
        }
        (started, true)
    }

    /// Tests job `i` exactly (see [`WaitList::backfill`]) and starts it if it passes.
    #[inline]
    fn try_start(
        &mut self,
        i: usize,
        free: &mut u32,
        r: &mut Reservation,
        until_shadow: Time,
        start: &mut impl FnMut(JobId),
    ) -> bool {
        let w = &mut self.jobs[i];
        // The head never passes: it did not fit before the scan, which only takes
        // processors. Marked entries fail the size test like any job too wide.
        let ends_by_shadow = w.prediction <= until_shadow;
        if w.procs > *free || !(ends_by_shadow || w.procs <= r.extra) {
            return false;
        }
        debug_assert!(w.job != r.head);
        if !ends_by_shadow {
            r.extra -= w.procs;
        }
        *free -= w.procs;
        start(w.job);
        w.procs = STARTED;
        self.procs_lane[i] = LANE_STARTED;
        true
    }
}

/// An SJBF candidate: its clamped prediction and index in one key, so that the least key
/// is the least prediction, the earliest job among equals (exact while the prediction is
/// below the clamp), and its size, so that the test after a start reads no job.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    key: u64,
    procs: u32,
}

impl Candidate {
    fn index(&self) -> usize {
        (self.key & u64::from(u32::MAX)) as usize
    }
}

/// Keeps the candidates other than `taken` that may still pass with `free` and `extra`
/// (a superset, as [`candidates`]), without branches; returns the least key kept
/// (`u64::MAX` if none).
fn keep_candidates(
    pending: &mut Vec<Candidate>,
    taken: u64,
    free: u32,
    extra: u32,
    until_shadow: i32,
) -> u64 {
    let mut kept = 0;
    let mut least = u64::MAX;
    for k in 0..pending.len() {
        let c = pending[k];
        let prediction = (c.key >> 32) as i32;
        let passes =
            (c.procs <= free) & ((prediction <= until_shadow) | (c.procs <= extra)) & (c.key != taken);
        pending[kept] = c;
        kept += usize::from(passes);
        least = if passes { least.min(c.key) } else { least };
    }
    pending.truncate(kept);
    least
}

/// Bit k set when job k of the (at most 64, a whole number of steps) lanes may pass the
/// backfill test: its size is at most `free`, and at most `extra` or its clamped prediction
/// at most `until_shadow`. A superset of the jobs that pass (clamping only lets more
/// through).
#[inline]
fn candidates(
    kernel: Kernel,
    procs: &[i32],
    predictions: &[i32],
    free: u32,
    extra: u32,
    until_shadow: i32,
) -> u64 {
    debug_assert!(procs.len() == predictions.len() && procs.len() <= 64 && procs.len().is_multiple_of(STEP));
    let (free, extra) = (free.min(LANE_MAX) as i32, extra.min(LANE_MAX) as i32);
    let mut mask = 0u64;
    let mut k = 0;
    #[cfg(target_arch = "x86_64")]
    {
        const _: () = assert!(STEP.is_multiple_of(8));
        use std::arch::x86_64::*;
        if kernel == Kernel::Avx2 {
            // SAFETY: `Kernel::Avx2` is only chosen on a CPU with AVX2.
            return unsafe { candidates_avx2(procs, predictions, free, extra, until_shadow) };
        }
        // SSE2, part of every x86-64 CPU: four jobs per step.
        // SAFETY: SSE2 is always present on x86-64, and every load reads four i32 within
        // the slices (k + 4 <= len).
        unsafe {
            let (free, extra, shadow) = (
                _mm_set1_epi32(free),
                _mm_set1_epi32(extra),
                _mm_set1_epi32(until_shadow),
            );
            while k + 4 <= procs.len() {
                let p = _mm_loadu_si128(procs.as_ptr().add(k).cast());
                let q = _mm_loadu_si128(predictions.as_ptr().add(k).cast());
                // Fails if too wide, or both wider than `extra` and longer than the shadow.
                let fails = _mm_or_si128(
                    _mm_cmpgt_epi32(p, free),
                    _mm_and_si128(_mm_cmpgt_epi32(p, extra), _mm_cmpgt_epi32(q, shadow)),
                );
                let bits = !_mm_movemask_ps(_mm_castsi128_ps(fails)) & 0xF;
                mask |= (bits as u64) << k;
                k += 4;
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = kernel;
    while k < procs.len() {
        let (p, q) = (procs[k], predictions[k]);
        let passes = (p <= free) & ((p <= extra) | (q <= until_shadow));
        mask |= u64::from(passes) << k;
        k += 1;
    }
    mask
}

/// [`candidates`] with AVX2 (`free` and `extra` clamped): eight jobs per step.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn candidates_avx2(
    procs: &[i32],
    predictions: &[i32],
    free: i32,
    extra: i32,
    until_shadow: i32,
) -> u64 {
    use std::arch::x86_64::*;
    assert!(procs.len() == predictions.len() && procs.len().is_multiple_of(8));
    let mut mask = 0u64;
    for k in (0..procs.len()).step_by(8) {
        // SAFETY: AVX2 (the caller's promise); k + 8 <= len (asserted).
        let (fails, _) = unsafe { fails_avx2(procs, predictions, k, free, extra, until_shadow) };
        let passes = !_mm256_movemask_ps(_mm256_castsi256_ps(fails)) & 0xFF;
        mask |= (passes as u64) << k;
    }
    mask
}

/// The test of [`candidates`] on the eight jobs from `k` with AVX2: all ones in the lanes of
/// those that fail, and their prediction lanes.
///
/// # Safety
/// The CPU must have AVX2, and `k + 8` must not pass either slice's end.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn fails_avx2(
    procs: &[i32],
    predictions: &[i32],
    k: usize,
    free: i32,
    extra: i32,
    until_shadow: i32,
) -> (std::arch::x86_64::__m256i, std::arch::x86_64::__m256i) {
    use std::arch::x86_64::*;
    debug_assert!(k + 8 <= procs.len() && k + 8 <= predictions.len());
    // SAFETY: eight i32 from k lie within both slices (the caller's promise).
    let (p, q) = unsafe {
        (
            _mm256_loadu_si256(procs.as_ptr().add(k).cast()),
            _mm256_loadu_si256(predictions.as_ptr().add(k).cast()),
        )
    };
    let too_wide = _mm256_cmpgt_epi32(p, _mm256_set1_epi32(free));
    let beyond_extra = _mm256_cmpgt_epi32(p, _mm256_set1_epi32(extra));
    let beyond_shadow = _mm256_cmpgt_epi32(q, _mm256_set1_epi32(until_shadow));
    (
        _mm256_or_si256(too_wide, _mm256_and_si256(beyond_extra, beyond_shadow)),
        q,
    )
}

/// SJBF's next job with AVX2: among the jobs of the lanes (a whole number of steps) that may
/// pass the test of [`candidates`], the first of those with the least prediction lane, and
/// that lane; `None` if none may pass. Two passes over the lanes: the least, then the first
/// job with it.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn least_avx2(
    procs: &[i32],
    predictions: &[i32],
    free: u32,
    extra: u32,
    until_shadow: i32,
) -> Option<(usize, i32)> {
    use std::arch::x86_64::*;
    assert!(procs.len() == predictions.len() && procs.len().is_multiple_of(8));
    let (free, extra) = (free.min(LANE_MAX) as i32, extra.min(LANE_MAX) as i32);
    let steps = (0..procs.len()).step_by(8);
    let max = _mm256_set1_epi32(i32::MAX);
    let mut least = max;
    let mut all_fail = _mm256_set1_epi32(-1);
    for k in steps.clone() {
        // SAFETY: AVX2 (the caller's promise); k + 8 <= len (asserted).
        let (fails, q) = unsafe { fails_avx2(procs, predictions, k, free, extra, until_shadow) };
        all_fail = _mm256_and_si256(all_fail, fails);
        least = _mm256_min_epi32(least, _mm256_blendv_epi8(q, max, fails));
    }
    if _mm256_testc_si256(all_fail, _mm256_set1_epi32(-1)) != 0 {
        return None;
    }
    let half = _mm_min_epi32(_mm256_castsi256_si128(least), _mm256_extracti128_si256(least, 1));
    let quarter = _mm_min_epi32(half, _mm_shuffle_epi32(half, 0b01_00_11_10));
    let value = _mm_cvtsi128_si32(_mm_min_epi32(quarter, _mm_shuffle_epi32(quarter, 0b10_11_00_01)));
    for k in steps {
        // SAFETY: as above.
        let (fails, q) = unsafe { fails_avx2(procs, predictions, k, free, extra, until_shadow) };
        let hit = _mm256_andnot_si256(fails, _mm256_cmpeq_epi32(q, _mm256_set1_epi32(value)));
        let bits = _mm256_movemask_ps(_mm256_castsi256_ps(hit));
        if bits != 0 {
            return Some((k + bits.trailing_zeros() as usize, value));
        }
    }
    unreachable!("a job that may pass holds the least prediction")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn job(i: usize, procs: u32, prediction: Time) -> Waiting {
        Waiting {
            prediction,
            job: JobId(i as u32),
            procs,
        }
    }

    impl WaitList {
        /// Whether the lanes hold what the entries say, followed by `STEP` marked entries.
        fn lanes_hold(&self) -> bool {
            let n = self.jobs.len();
            self.procs_lane.len() == n + STEP
                && self.prediction_lane.len() == n + STEP
                && self.jobs.iter().enumerate().all(|(i, w)| {
                    self.procs_lane[i] == procs_lane(w) && self.prediction_lane[i] == clamp(w.prediction)
                })
                && self.procs_lane[n..].iter().all(|&p| p == LANE_STARTED)
        }
    }

    /// The kernels this CPU runs: the portable one, and AVX2 where present.
    fn kernels() -> Vec<Kernel> {
        let mut all = vec![Kernel::Portable];
        if Kernel::detect() != Kernel::Portable {
            all.push(Kernel::detect());
        }
        all
    }

    /// The reference: every job from `from` on tested in turn, in list order or in order
    /// of (prediction, job), as EASY's and SJBF's definitions read.
    fn plain_scan(
        jobs: &mut [Waiting],
        from: usize,
        now: Time,
        mut free: u32,
        r: &mut Reservation,
        order: BackfillOrder,
    ) -> Vec<JobId> {
        let mut turn: Vec<usize> = (from..jobs.len()).collect();
        if order == BackfillOrder::ShortestPrediction {
            turn.sort_by_key(|&i| (jobs[i].prediction, jobs[i].job));
        }
        let mut started = Vec::new();
        for i in turn {
            let w = &mut jobs[i];
            if free == 0 {
                break;
            }
            if w.procs > free {
                continue;
            }
            let ends_by_shadow = now + w.prediction <= r.shadow;
            if !ends_by_shadow && w.procs > r.extra {
                continue;
            }
            if !ends_by_shadow {
                r.extra -= w.procs;
            }
            free -= w.procs;
            started.push(w.job);
            w.procs = STARTED;
        }
        started
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The vector scan starts exactly the jobs the plain scan starts, in the same order,
        /// and leaves the same marks and the same `extra`, in both orders and with every
        /// kernel the CPU runs, including predictions and shadow times beyond the lanes'
        /// range.
        #[test]
        fn vector_scan_equals_plain_scan(
            spec in prop::collection::vec(
                (
                    prop_oneof![9 => 1u32..=12, 1 => Just(STARTED)],
                    prop_oneof![9 => 1i64..=60, 1 => (i32::MAX as i64 - 2)..(i32::MAX as i64 + 3)],
                ),
                0..150,
            ),
            from_frac in 0.0f64..1.0,
            free in 0u32..=40,
            until_shadow in prop_oneof![4 => 0i64..=60, 1 => (i32::MAX as i64 - 2)..(i32::MAX as i64 + 3)],
            extra in 0u32..=12,
            sjbf in any::<bool>(),
        ) {
            let order = if sjbf { BackfillOrder::ShortestPrediction } else { BackfillOrder::Arrival };
            let now = 1000;
            let plain_jobs: Vec<Waiting> =
                spec.iter().enumerate().map(|(i, &(procs, prediction))| job(i, procs, prediction)).collect();
            let from = (from_frac * spec.len() as f64) as usize;
            let head = JobId(u32::MAX);
            let r = Reservation { head, shadow: now + until_shadow, extra };
            let mut plain = plain_jobs.clone();
            let mut r_plain = r;
            let want = plain_scan(&mut plain, from, now, free, &mut r_plain, order);
            for kernel in kernels() {
                let mut list = WaitList::with_kernel(kernel);
                for &w in &plain_jobs {
                    list.push(w);
                }
                let mut r_vector = r;
                let mut got = Vec::new();
                let n = list.backfill(from, now, free, &mut r_vector, order, |j| got.push(j));
                prop_assert_eq!(n, got.len());
                prop_assert_eq!(&got, &want, "{:?}", kernel);
                prop_assert_eq!(r_vector, r_plain);
                prop_assert_eq!(list.jobs(), &plain[..]);
                prop_assert!(list.lanes_hold());
            }
        }

        /// Every edit keeps the lanes in step with the entries, and the entries where a
        /// plain vector has them.
        #[test]
        fn edits_keep_lanes(ops in prop::collection::vec((0u8..5, 0usize..100, 1u32..=12, 1i64..=60), 0..120)) {
            let mut list = WaitList::default();
            let mut plain: Vec<Waiting> = Vec::new();
            for (k, (op, at, procs, prediction)) in ops.into_iter().enumerate() {
                let w = job(k, procs, prediction);
                match op {
                    0 | 1 => {
                        list.push(w);
                        plain.push(w);
                    }
                    2 => {
                        let at = at % (plain.len() + 1);
                        list.insert(at, w);
                        plain.insert(at, w);
                    }
                    3 if !plain.is_empty() => {
                        let at = at % plain.len();
                        list.set_prediction(at, prediction);
                        plain[at].prediction = prediction;
                    }
                    4 => {
                        let n = at % (plain.len() + 1);
                        let keep = |w: &Waiting| !w.procs.is_multiple_of(3);
                        list.compact(n, keep);
                        plain.drain(..n);
                        plain.retain(keep);
                    }
                    _ => {}
                }
                prop_assert_eq!(list.jobs(), &plain[..]);
                prop_assert!(list.lanes_hold());
            }
            list.clear();
            prop_assert!(list.lanes_hold());
        }
    }

    #[test]
    fn sizes_and_free_counts_beyond_the_lanes_stay_exact() {
        for (kernel, order) in kernels().into_iter().flat_map(|k| {
            [
                (k, BackfillOrder::Arrival),
                (k, BackfillOrder::ShortestPrediction),
            ]
        }) {
            // A marked entry, a job wider than the lanes hold, a narrow one; then padding.
            let mut list = WaitList::with_kernel(kernel);
            list.push(job(0, STARTED, 1));
            list.push(job(1, LANE_STARTED as u32 + 5, 1));
            list.push(job(2, 3, 1));
            // A shadow time beyond the prediction lane's range too.
            let mut r = Reservation {
                head: JobId(99),
                shadow: Time::MAX / 2,
                extra: 0,
            };
            let mut got = Vec::new();
            let n = list.backfill(0, 0, u32::MAX - 1, &mut r, order, |j| got.push(j));
            assert_eq!(n, 2);
            assert_eq!(got, vec![JobId(1), JobId(2)], "{kernel:?} {order:?}");
            assert!(list.lanes_hold());

            // A job whose size and the free count both clamp to the lanes' largest value
            // passes the vector test but not the exact one; the next job still starts.
            let mut list = WaitList::with_kernel(kernel);
            list.push(job(0, LANE_MAX + 10, 1));
            list.push(job(1, 3, 2));
            let mut r = Reservation {
                head: JobId(99),
                shadow: 100,
                extra: 0,
            };
            let mut got = Vec::new();
            let n = list.backfill(0, 0, LANE_MAX + 5, &mut r, order, |j| got.push(j));
            assert_eq!((n, got), (1, vec![JobId(1)]), "{kernel:?} {order:?}");
            assert!(list.lanes_hold());

            // Predictions that all clamp to the lane's largest value are ordered exactly.
            let mut list = WaitList::with_kernel(kernel);
            let max = i32::MAX as Time;
            for (i, prediction) in [max + 2, max, max + 1, 5].into_iter().enumerate() {
                list.push(job(i, 1, prediction));
            }
            let mut r = Reservation {
                head: JobId(99),
                shadow: Time::MAX / 2,
                extra: 0,
            };
            let mut got = Vec::new();
            list.backfill(0, 0, 10, &mut r, order, |j| got.push(j.0));
            let want = match order {
                BackfillOrder::Arrival => vec![0, 1, 2, 3],
                BackfillOrder::ShortestPrediction => vec![3, 1, 2, 0],
            };
            assert_eq!(got, want, "{kernel:?} {order:?}");
        }
    }

    #[test]
    fn candidates_flags_exactly_the_jobs_that_may_pass() {
        // Sizes 1..=16 against free 5 and extra 2; predictions alternate short and long
        // against a shadow 10 away.
        let procs: Vec<i32> = (1..=16).collect();
        let predictions: Vec<i32> = (0..16).map(|i| if i % 2 == 0 { 5 } else { 50 }).collect();
        for kernel in kernels() {
            let mask = candidates(kernel, &procs, &predictions, 5, 2, 10);
            // Sizes 1 and 2 fit in extra; 3 (short) and 5 (short) end by the shadow; 4 is
            // long and too wide for extra; 6 and more are too wide.
            assert_eq!(mask, 0b1_0111, "{kernel:?}");
        }
    }
}
