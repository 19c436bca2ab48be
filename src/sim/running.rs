//! The running set: running jobs filed by predicted end in a calendar of time buckets, so a
//! start or an end costs O(1) and EASY's shadow time adds whole buckets.
//!
//! A sorted array made every start search for its place and every end shift the entries
//! after it (on CTC-SP2 a started job lands 13 entries from the front and 22 from the back of
//! ~36, and an ending one 7 from the front). Here the near future, `HORIZON` seconds from the
//! bucket of the current instant, is cut into `BUCKETS` buckets of 64 s, used circularly.
//! Each bucket keeps its jobs in a doubly linked list sorted by (predicted end, job), mostly
//! of one job, and the sum of their sizes; a bitmap marks the buckets that hold jobs, and
//! each word of it has the sum of its buckets' sums. A start is filed from the end of its
//! bucket's list (where it mostly belongs); an end is unlinked through the job's recorded
//! slot, so many jobs sharing a bucket (a job array started at once) cost no search.
//! Predicted ends beyond the horizon (rare: CTC-SP2's longest estimate is 18 h) wait in a
//! sorted array and move into the calendar as the horizon reaches them
//! ([`RunningSet::advance`]), so every job in the calendar ends before every one outside.
//!
//! The shadow time adds whole words of buckets, then the buckets of the word where the size
//! is reached, then walks that bucket's list: on CTC-SP2 about 4 words and 8 buckets per
//! shadow time. The result equals the walk of the array sorted by (predicted end, job),
//! which the tests check against.

use super::calendar::{BUCKETS, WORDS, bucket, horizon_end, insert_descending, pop_before};
use crate::Time;
use crate::workload::JobId;

/// A running job as the schedulers see it; ordered by (predicted end, job, size).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RunningJob {
    /// Start plus the job's current runtime prediction.
    pub predicted_end: Time,
    pub job: JobId,
    pub procs: u32,
}

/// End of a list, and of the chain of free slots.
const NONE: u32 = u32::MAX;

/// A running job in the calendar and its neighbours in its bucket's list.
#[derive(Clone, Copy, Debug)]
struct Slot {
    job: RunningJob,
    prev: u32,
    next: u32,
}

#[derive(Debug)]
pub struct RunningSet {
    /// Storage for the calendar's jobs; free slots are chained through `next` from `vacant`.
    slots: Vec<Slot>,
    vacant: u32,
    /// Per job: its slot while it is in the calendar (`NONE` otherwise), so an end needs no
    /// search however many jobs share its bucket.
    slot_of: Vec<u32>,
    /// Per bucket: first and last slot of its list, and the sum of its jobs' sizes.
    first: Box<[u32; BUCKETS]>,
    last: Box<[u32; BUCKETS]>,
    procs: Box<[u32; BUCKETS]>,
    /// Bit b of word w: bucket 64 w + b holds a job. Per word, the sum of its buckets' sums.
    occupied: [u64; WORDS],
    word_procs: [u32; WORDS],
    /// Jobs whose predicted end is at or past `limit`, sorted by (predicted end, job)
    /// descending: the earliest is last.
    beyond: Vec<RunningJob>,
    /// Predicted ends before it are in the calendar: the horizon from the current bucket.
    limit: Time,
    /// The current instant.
    now: Time,
    len: usize,
    /// Scratch for [`RunningSet::sorted`].
    scratch: Vec<RunningJob>,
}

impl Default for RunningSet {
    fn default() -> Self {
        let mut set = RunningSet {
            slots: Vec::new(),
            vacant: NONE,
            slot_of: Vec::new(),
            first: Box::new([NONE; BUCKETS]),
            last: Box::new([NONE; BUCKETS]),
            procs: Box::new([0; BUCKETS]),
            occupied: [0; WORDS],
            word_procs: [0; WORDS],
            beyond: Vec::new(),
            limit: 0,
            now: 0,
            len: 0,
            scratch: Vec::new(),
        };
        set.reset(0, 0);
        set
    }
}

impl RunningSet {
    /// Empties the set for a run of `jobs` jobs starting at time 0 and makes room for `most`
    /// at a time, so that the run allocates nothing.
    pub fn reset(&mut self, jobs: usize, most: usize) {
        self.slots.clear();
        self.slots.reserve(most);
        self.vacant = NONE;
        self.slot_of.clear();
        self.slot_of.resize(jobs, NONE);
        self.first.fill(NONE);
        self.last.fill(NONE);
        self.procs.fill(0);
        self.occupied = [0; WORDS];
        self.word_procs = [0; WORDS];
        self.beyond.clear();
        self.beyond.reserve(most);
        self.scratch.clear();
        self.scratch.reserve(most);
        self.len = 0;
        self.now = Time::MIN;
        self.advance(0);
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Moves the set to instant `now` (never backwards): the horizon follows, and jobs it
    /// reaches move into the calendar. Every job in the set must end after `now`.
    #[inline]
    pub fn advance(&mut self, now: Time) {
        debug_assert!(now >= self.now, "time went back from {} to {now}", self.now);
        self.now = now;
        self.limit = horizon_end(now);
        while let Some(r) = pop_before(&mut self.beyond, self.limit, |r| r.predicted_end) {
            self.file(r);
        }
    }

    /// Adds a running job; its predicted end must be after the current instant.
    #[inline]
    pub fn insert(&mut self, r: RunningJob) {
        debug_assert!(r.predicted_end > self.now);
        self.len += 1;
        if r.predicted_end < self.limit {
            self.file(r);
        } else {
            insert_descending(&mut self.beyond, r);
        }
    }

    /// Puts `r` in its place in its bucket's list, found from the end: a job started now
    /// mostly comes last (as do many jobs started together with the same prediction).
    #[inline]
    fn file(&mut self, r: RunningJob) {
        let b = bucket(r.predicted_end);
        let key = (r.predicted_end, r.job);
        let (mut prev, mut next) = (self.last[b], NONE);
        while prev != NONE {
            let p = &self.slots[prev as usize].job;
            if (p.predicted_end, p.job) < key {
                break;
            }
            (prev, next) = (self.slots[prev as usize].prev, prev);
        }
        let filled = Slot { job: r, prev, next };
        let slot = if self.vacant == NONE {
            self.slots.push(filled);
            (self.slots.len() - 1) as u32
        } else {
            let s = self.vacant;
            self.vacant = self.slots[s as usize].next;
            self.slots[s as usize] = filled;
            s
        };
        match prev {
            NONE => self.first[b] = slot,
            p => self.slots[p as usize].next = slot,
        }
        match next {
            NONE => self.last[b] = slot,
            n => self.slots[n as usize].prev = slot,
        }
        self.slot_of[r.job.index()] = slot;
        self.procs[b] += r.procs;
        self.word_procs[b / 64] += r.procs;
        self.occupied[b / 64] |= 1 << (b % 64);
    }

    /// Removes `job`, whose predicted end in the set is `predicted_end`.
    ///
    /// # Panics
    /// If the job is not in the set.
    #[inline]
    pub fn remove(&mut self, job: JobId, predicted_end: Time) {
        self.len -= 1;
        let slot = self.slot_of[job.index()];
        if slot == NONE {
            debug_assert!(predicted_end >= self.limit);
            let at = self
                .beyond
                .iter()
                .position(|r| r.job == job)
                .expect("a running job is in the running set");
            self.beyond.remove(at);
            return;
        }
        self.slot_of[job.index()] = NONE;
        let Slot { job: r, prev, next } = self.slots[slot as usize];
        debug_assert!(r.job == job && r.predicted_end == predicted_end);
        let b = bucket(r.predicted_end);
        match prev {
            NONE => self.first[b] = next,
            p => self.slots[p as usize].next = next,
        }
        match next {
            NONE => self.last[b] = prev,
            n => self.slots[n as usize].prev = prev,
        }
        if self.first[b] == NONE {
            self.occupied[b / 64] &= !(1 << (b % 64));
        }
        self.procs[b] -= r.procs;
        self.word_procs[b / 64] -= r.procs;
        self.slots[slot as usize].next = self.vacant;
        self.vacant = slot;
    }

    /// EASY's shadow time for a job of `need` processors with `free` free: the earliest
    /// predicted end at which `free` plus the sizes of the jobs predicted to end by then
    /// reach `need`, and the processors beyond `need` then (every job predicted to end at
    /// that instant counted). `need` must exceed `free` and be at most `free` plus the
    /// sizes of all running jobs.
    pub fn shadow(&self, need: u32, free: u32) -> (Time, u32) {
        debug_assert!(need > free);
        let mut avail = free;
        // The calendar from the current bucket on, wrapping once: the rest of the current
        // word bucket by bucket, then whole words by their sums until one reaches `need`,
        // then that word's buckets; last the current word's buckets before the current one
        // (the horizon's end).
        let start = bucket(self.now);
        let (w0, before) = (start / 64, !(!0u64 << (start % 64)));
        if self.occupied[w0] & before == 0 && avail + self.word_procs[w0] < need {
            // The current word holds no bucket before the current one (the usual case), so
            // its sum is that of the buckets to walk, and it falls short: add it whole.
            avail += self.word_procs[w0];
        } else if let Some(b) = self.reach(w0, self.occupied[w0] & !before, need, &mut avail) {
            return self.shadow_in(b, need, avail);
        }
        for k in 1..WORDS {
            let w = (w0 + k) % WORDS;
            if avail + self.word_procs[w] >= need {
                let b = self.reach(w, self.occupied[w], need, &mut avail);
                return self.shadow_in(b.expect("the word's sum reaches need"), need, avail);
            }
            avail += self.word_procs[w];
        }
        if let Some(b) = self.reach(w0, self.occupied[w0] & before, need, &mut avail) {
            return self.shadow_in(b, need, avail);
        }
        // Beyond the horizon, in order.
        let mut i = self.beyond.len();
        while avail < need {
            i -= 1;
            avail += self.beyond[i].procs;
        }
        let shadow = self.beyond[i].predicted_end;
        while i > 0 && self.beyond[i - 1].predicted_end == shadow {
            i -= 1;
            avail += self.beyond[i].procs;
        }
        (shadow, avail - need)
    }

    /// Adds to `avail` the sums of word `w`'s buckets marked in `bits`, in order, up to the
    /// first at which it would reach `need`, which is returned (`avail` left before it).
    #[inline]
    fn reach(&self, w: usize, mut bits: u64, need: u32, avail: &mut u32) -> Option<usize> {
        while bits != 0 {
            let b = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if *avail + self.procs[b] >= need {
                return Some(b);
            }
            *avail += self.procs[b];
        }
        None
    }

    /// The shadow time within bucket `b`, where `need` is reached from `avail`: a walk of
    /// its sorted list.
    #[inline]
    fn shadow_in(&self, b: usize, need: u32, mut avail: u32) -> (Time, u32) {
        let mut link = self.first[b];
        loop {
            let Slot { job: r, next, .. } = self.slots[link as usize];
            avail += r.procs;
            link = next;
            if avail >= need {
                // Every job predicted to end at the same instant counts.
                while link != NONE && self.slots[link as usize].job.predicted_end == r.predicted_end {
                    avail += self.slots[link as usize].job.procs;
                    link = self.slots[link as usize].next;
                }
                return (r.predicted_end, avail - need);
            }
        }
    }

    /// The buckets whose bit is set, in index order.
    fn occupied_buckets(&self) -> impl Iterator<Item = usize> + '_ {
        self.occupied.iter().enumerate().flat_map(|(w, &word)| {
            std::iter::successors((word != 0).then_some(word), |&bits| {
                let rest = bits & (bits - 1);
                (rest != 0).then_some(rest)
            })
            .map(move |bits| w * 64 + bits.trailing_zeros() as usize)
        })
    }

    /// The list of bucket `b`, in order.
    fn list(&self, b: usize) -> impl Iterator<Item = RunningJob> + '_ {
        let first = self.first[b];
        std::iter::successors((first != NONE).then_some(first), |&link| {
            let next = self.slots[link as usize].next;
            (next != NONE).then_some(next)
        })
        .map(|link| self.slots[link as usize].job)
    }

    /// Every running job, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = RunningJob> + '_ {
        let calendar = self.occupied_buckets().flat_map(|b| self.list(b));
        calendar.chain(self.beyond.iter().copied())
    }

    /// Panics unless the calendar is consistent: each job in the bucket of its predicted
    /// end and before the horizon, each list sorted, each marked bucket's list not empty
    /// and its sum right, each word's sum right, the jobs beyond the horizon sorted, and the
    /// count right (so no job sits in an unmarked bucket). O(jobs + WORDS), for the
    /// validator.
    pub fn check(&self) {
        let mut count = 0;
        for b in self.occupied_buckets() {
            assert!(self.first[b] != NONE, "running set: bucket {b} marked but empty");
            let mut sum = 0;
            let mut last = None;
            let (mut link, mut prev) = (self.first[b], NONE);
            while link != NONE {
                let slot = &self.slots[link as usize];
                assert!(
                    slot.prev == prev && self.slot_of[slot.job.job.index()] == link,
                    "running set: bucket {b}'s links"
                );
                (prev, link) = (link, slot.next);
            }
            assert_eq!(prev, self.last[b], "running set: bucket {b}'s last job");
            for r in self.list(b) {
                assert!(
                    bucket(r.predicted_end) == b && r.predicted_end < self.limit,
                    "running set: job {} misfiled",
                    r.job.0
                );
                let key = (r.predicted_end, r.job);
                assert!(last < Some(key), "running set: bucket {b} out of order");
                last = Some(key);
                sum += r.procs;
                count += 1;
            }
            assert_eq!(sum, self.procs[b], "running set: bucket {b}'s size sum");
        }
        for (w, &word) in self.occupied.iter().enumerate() {
            let sum: u32 = (0..64)
                .filter(|i| word >> i & 1 == 1)
                .map(|i| self.procs[w * 64 + i])
                .sum();
            assert_eq!(sum, self.word_procs[w], "running set: word {w}'s size sum");
        }
        assert!(
            self.beyond
                .windows(2)
                .all(|w| (w[0].predicted_end, w[0].job) > (w[1].predicted_end, w[1].job))
                && self
                    .beyond
                    .iter()
                    .all(|r| r.predicted_end >= self.limit && self.slot_of[r.job.index()] == NONE),
            "running set: jobs beyond the horizon out of order"
        );
        assert_eq!(count + self.beyond.len(), self.len, "running set: count");
    }

    /// Every running job, in ascending order of (predicted end, job). O(n log n): for
    /// schedulers that need the whole order (the GA), not for EASY's passes.
    pub fn sorted(&mut self) -> &[RunningJob] {
        let mut all = std::mem::take(&mut self.scratch);
        all.clear();
        all.extend(self.iter());
        all.sort_unstable_by_key(|r| (r.predicted_end, r.job));
        self.scratch = all;
        &self.scratch
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::calendar::HORIZON;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::{Rng, SeedableRng};

    /// Uniform in `0..n` (the modulo bias is irrelevant here).
    fn below(rng: &mut Xoshiro256PlusPlus, n: u64) -> u64 {
        rng.next_u64() % n
    }

    /// The shadow time as a walk of the array sorted by (predicted end, job).
    fn reference_shadow(sorted: &[RunningJob], need: u32, free: u32) -> (Time, u32) {
        let mut avail = free;
        let mut i = 0;
        while avail < need {
            avail += sorted[i].procs;
            i += 1;
        }
        let shadow = sorted[i - 1].predicted_end;
        while i < sorted.len() && sorted[i].predicted_end == shadow {
            avail += sorted[i].procs;
            i += 1;
        }
        (shadow, avail - need)
    }

    /// Random starts, ends, new predictions and advancing time, with predicted ends from
    /// the same second to beyond the horizon and many ties: after every step the set, in
    /// order, equals a sorted array, and the shadow time for random sizes (and the least and
    /// largest) equals its walk.
    #[test]
    fn matches_a_sorted_array() {
        for seed in 0..20 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut set = RunningSet::default();
            set.reset(2_000, 8);
            let mut plain: Vec<RunningJob> = Vec::new();
            let mut now: Time = 0;
            let mut next_job = 0u32;
            for step in 0..2_000 {
                let end_after = |rng: &mut Xoshiro256PlusPlus| match below(rng, 10) {
                    0 => 1 + below(rng, 3) as Time,
                    1 => HORIZON - 64 + below(rng, 128) as Time,
                    2 => HORIZON * (1 + below(rng, 3) as Time),
                    3 => 64 * (1 + below(rng, 4) as Time),
                    _ => 1 + below(rng, 20_000) as Time,
                };
                match below(&mut rng, 8) {
                    0..=2 => {
                        let r = RunningJob {
                            predicted_end: now + end_after(&mut rng),
                            job: JobId(next_job),
                            procs: 1 + below(&mut rng, 16) as u32,
                        };
                        next_job += 1;
                        set.insert(r);
                        plain.push(r);
                    }
                    3 | 4 if !plain.is_empty() => {
                        let r = plain.swap_remove(below(&mut rng, plain.len() as u64) as usize);
                        set.remove(r.job, r.predicted_end);
                    }
                    5 if !plain.is_empty() => {
                        let i = below(&mut rng, plain.len() as u64) as usize;
                        set.remove(plain[i].job, plain[i].predicted_end);
                        plain[i].predicted_end = now + end_after(&mut rng);
                        set.insert(plain[i]);
                    }
                    _ => {
                        // Time moves on; jobs predicted to end by then end or get a new
                        // prediction, as the engine does before a pass.
                        now += match below(&mut rng, 4) {
                            0 => 1,
                            1 => HORIZON / 3,
                            _ => below(&mut rng, 5_000) as Time,
                        };
                        for r in plain.iter_mut() {
                            if r.predicted_end <= now {
                                set.remove(r.job, r.predicted_end);
                                r.predicted_end = now + end_after(&mut rng);
                                set.insert(*r);
                            }
                        }
                        set.advance(now);
                    }
                }
                plain.sort_unstable_by_key(|r| (r.predicted_end, r.job));
                set.check();
                assert_eq!(set.len(), plain.len());
                assert_eq!(set.sorted(), plain.as_slice(), "seed {seed} step {step}");
                let total: u32 = plain.iter().map(|r| r.procs).sum();
                let free = below(&mut rng, 4) as u32;
                let sizes = (0..16).map(|_| free + 1 + below(&mut rng, total.max(1) as u64) as u32);
                for need in sizes
                    .chain([free + 1, free + total])
                    .filter(|&n| n > free && n <= free + total)
                {
                    assert_eq!(
                        set.shadow(need, free),
                        reference_shadow(&plain, need, free),
                        "seed {seed} step {step} need {need}"
                    );
                }
            }
        }
    }

    /// A job array: hundreds of jobs in one bucket, most with the same predicted end,
    /// ending in random order; the set stays equal to a sorted array throughout.
    #[test]
    fn one_crowded_bucket() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut set = RunningSet::default();
        set.reset(600, 600);
        let mut plain: Vec<RunningJob> = (0..600)
            .map(|j| RunningJob {
                predicted_end: 3_600 + Time::from(j % 7 == 0) * below(&mut rng, 60) as Time,
                job: JobId(j),
                procs: 1 + below(&mut rng, 3) as u32,
            })
            .collect();
        for &r in &plain {
            set.insert(r);
        }
        while !plain.is_empty() {
            plain.sort_unstable_by_key(|r| (r.predicted_end, r.job));
            set.check();
            assert_eq!(set.sorted(), plain.as_slice());
            let total: u32 = plain.iter().map(|r| r.procs).sum();
            let need = 1 + below(&mut rng, total as u64) as u32;
            assert_eq!(set.shadow(need, 0), reference_shadow(&plain, need, 0));
            let r = plain.swap_remove(below(&mut rng, plain.len() as u64) as usize);
            set.remove(r.job, r.predicted_end);
        }
    }
}
