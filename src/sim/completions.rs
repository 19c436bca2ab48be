//! Completion events in a calendar of time buckets: a push or a pop costs O(1), where a
//! binary heap pays a few unpredictable comparisons per level.
//!
//! The same calendar as the running set's (`sim::running`): the `HORIZON` seconds from the
//! current instant's bucket are cut into `BUCKETS` buckets of 64 s used circularly, each a
//! list of events sorted by (time, job, generation), a bitmap marks the buckets that hold
//! events, and events beyond the horizon wait in a sorted array until it reaches them. The
//! earliest event and its bucket are kept, so the engine's look at the next event, at every
//! instant, reads one field; when that bucket empties, the bitmap finds the next one, 64
//! buckets per step, and over a run that search crosses each bucket about once per horizon
//! of simulated time. On CTC-SP2 this took FCFS from 4.4 to 3.7 ms and EASY from 10.3 to
//! 9.5 ms (docs/performance.md); the same calendar without the kept event was no faster
//! than the heap, its look-ups chasing three dependent loads.

use super::calendar::{BUCKETS, WORDS, bucket, horizon_end, insert_descending, pop_before};
use crate::Time;

/// End of a list, of the chain of free slots, and "no bucket".
const NONE: u32 = u32::MAX;

/// A completion: the job ends at `time` if its generation is still `generation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Completion {
    pub time: Time,
    pub job: u32,
    pub generation: u32,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    event: Completion,
    next: u32,
}

#[derive(Debug)]
pub struct Completions {
    /// Storage for the calendar's events; free slots are chained through `next`.
    slots: Vec<Slot>,
    vacant: u32,
    /// Per bucket: first and last slot of its list, side by side (one cache line).
    ends: Box<[[u32; 2]; BUCKETS]>,
    /// Bit b of word w: bucket 64 w + b holds an event.
    occupied: [u64; WORDS],
    /// The bucket of the earliest event in the calendar, `NONE` when it is empty, and a
    /// copy of that event (read at every instant).
    earliest: u32,
    first_event: Completion,
    /// Events at or past `limit`, sorted descending: the earliest is last.
    beyond: Vec<Completion>,
    /// Event times before it are in the calendar: the horizon from the current bucket.
    limit: Time,
    now: Time,
}

impl Default for Completions {
    fn default() -> Self {
        let mut c = Completions {
            slots: Vec::new(),
            vacant: NONE,
            ends: Box::new([[NONE; 2]; BUCKETS]),
            occupied: [0; WORDS],
            earliest: NONE,
            first_event: Completion {
                time: 0,
                job: 0,
                generation: 0,
            },
            beyond: Vec::new(),
            limit: 0,
            now: 0,
        };
        c.reset(0);
        c
    }
}

impl Completions {
    /// Empties the queue for a run starting at time 0, with room for `most` events at a
    /// time so that the run allocates nothing.
    pub fn reset(&mut self, most: usize) {
        self.slots.clear();
        self.slots.reserve(most);
        self.vacant = NONE;
        self.ends.fill([NONE; 2]);
        self.occupied = [0; WORDS];
        self.earliest = NONE;
        self.beyond.clear();
        self.beyond.reserve(most);
        self.now = Time::MIN;
        self.advance(0);
    }

    pub fn is_empty(&self) -> bool {
        self.earliest == NONE && self.beyond.is_empty()
    }

    /// Moves to instant `now` (never backwards, never past an event): the horizon follows,
    /// and events it reaches move into the calendar.
    #[inline]
    pub fn advance(&mut self, now: Time) {
        debug_assert!(now >= self.now, "time went back from {} to {now}", self.now);
        self.now = now;
        self.limit = horizon_end(now);
        while let Some(e) = pop_before(&mut self.beyond, self.limit, |e| e.time) {
            self.file(e);
        }
    }

    /// Adds an event at or after the current instant.
    #[inline]
    pub fn push(&mut self, e: Completion) {
        debug_assert!(e.time >= self.now);
        if e.time < self.limit {
            self.file(e);
        } else {
            insert_descending(&mut self.beyond, e);
        }
    }

    /// Puts `e` in its place in its bucket's list (at the end without a walk when it comes
    /// last, as events of jobs started together with equal runtimes do).
    #[inline]
    fn file(&mut self, e: Completion) {
        let b = bucket(e.time);
        let [head, tail] = self.ends[b];
        let (mut before, mut next) = (NONE, head);
        if tail != NONE && self.slots[tail as usize].event < e {
            (before, next) = (tail, NONE);
        }
        while next != NONE && self.slots[next as usize].event < e {
            (before, next) = (next, self.slots[next as usize].next);
        }
        let filled = Slot { event: e, next };
        let slot = if self.vacant == NONE {
            self.slots.push(filled);
            (self.slots.len() - 1) as u32
        } else {
            let s = self.vacant;
            self.vacant = self.slots[s as usize].next;
            self.slots[s as usize] = filled;
            s
        };
        match before {
            NONE => self.ends[b][0] = slot,
            p => self.slots[p as usize].next = slot,
        }
        if next == NONE {
            self.ends[b][1] = slot;
        }
        self.occupied[b / 64] |= 1 << (b % 64);
        // Earlier events are in buckets no later in the calendar's order.
        if self.earliest == NONE || e < self.first_event {
            (self.earliest, self.first_event) = (b as u32, e);
        }
    }

    /// The earliest event.
    #[inline]
    pub fn peek(&self) -> Option<Completion> {
        match self.earliest {
            NONE => self.beyond.last().copied(),
            _ => Some(self.first_event),
        }
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<Completion> {
        if self.earliest == NONE {
            return self.beyond.pop();
        }
        let b = self.earliest as usize;
        let slot = self.ends[b][0];
        let Slot { event, next } = self.slots[slot as usize];
        self.ends[b][0] = next;
        self.slots[slot as usize].next = self.vacant;
        self.vacant = slot;
        let next = if next == NONE {
            self.ends[b][1] = NONE;
            self.occupied[b / 64] &= !(1 << (b % 64));
            self.earliest = self.next_occupied(b);
            match self.earliest {
                NONE => return Some(event),
                nb => self.ends[nb as usize][0],
            }
        } else {
            next
        };
        self.first_event = self.slots[next as usize].event;
        Some(event)
    }

    /// The first bucket holding events after `b`, which was the earliest and is now empty,
    /// in the calendar's order; `NONE` if none. Every other bucket with events comes after
    /// `b`, so the first marked one found going on from it, wrapping once, is the earliest.
    fn next_occupied(&self, b: usize) -> u32 {
        let mut w = b / 64;
        let mut bits = self.occupied[w] & (!0u64 << (b % 64));
        for _ in 0..=WORDS {
            if bits != 0 {
                return (w * 64 + bits.trailing_zeros() as usize) as u32;
            }
            w = (w + 1) % WORDS;
            bits = self.occupied[w];
        }
        NONE
    }
}

#[cfg(test)]
mod tests {
    use super::super::calendar::HORIZON;
    use super::*;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::{Rng, SeedableRng};
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// Uniform in `0..n` (the modulo bias is irrelevant here).
    fn below(rng: &mut Xoshiro256PlusPlus, n: u64) -> u64 {
        rng.next_u64() % n
    }

    /// Random pushes (now, soon, in the same bucket, at and past the horizon, far beyond)
    /// and pops, with time moving to the next event or short of it as the engine moves it:
    /// the events come out exactly as from a binary heap.
    #[test]
    fn matches_a_binary_heap() {
        for seed in 0..20 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut queue = Completions::default();
            queue.reset(4);
            let mut heap = BinaryHeap::new();
            let mut now: Time = 0;
            for step in 0..5_000u32 {
                match below(&mut rng, 10) {
                    0..=4 => {
                        let after = match below(&mut rng, 8) {
                            0 => 0,
                            1 => below(&mut rng, 64) as Time,
                            2 => HORIZON - 100 + below(&mut rng, 200) as Time,
                            3 => HORIZON * (1 + below(&mut rng, 4) as Time),
                            _ => below(&mut rng, 30_000) as Time,
                        };
                        let e = Completion {
                            time: now + after,
                            job: below(&mut rng, 50) as u32,
                            generation: below(&mut rng, 3) as u32,
                        };
                        queue.push(e);
                        heap.push(Reverse(e));
                    }
                    5..=7 => {
                        // Time moves on, never past the next event.
                        if let Some(&Reverse(next)) = heap.peek() {
                            now += below(&mut rng, (next.time - now + 1) as u64) as Time;
                            queue.advance(now);
                        }
                    }
                    _ => {
                        if let Some(&Reverse(next)) = heap.peek() {
                            now = next.time;
                            queue.advance(now);
                        }
                        assert_eq!(
                            queue.pop(),
                            heap.pop().map(|Reverse(e)| e),
                            "seed {seed} step {step}"
                        );
                    }
                }
                assert_eq!(
                    queue.peek(),
                    heap.peek().map(|&Reverse(e)| e),
                    "seed {seed} step {step}"
                );
                assert_eq!(queue.is_empty(), heap.is_empty());
            }
        }
    }

    /// A job array: thousands of events in one bucket, pushed in and out of order.
    #[test]
    fn one_crowded_bucket() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut queue = Completions::default();
        queue.reset(16);
        let mut heap = BinaryHeap::new();
        for job in 0..3_000 {
            let e = Completion {
                time: 500 + below(&mut rng, 3) as Time * Time::from(job % 5 == 0),
                job,
                generation: 0,
            };
            queue.push(e);
            heap.push(Reverse(e));
        }
        while let Some(Reverse(e)) = heap.pop() {
            queue.advance(e.time);
            assert_eq!(queue.pop(), Some(e));
        }
        assert!(queue.is_empty());
    }
}
