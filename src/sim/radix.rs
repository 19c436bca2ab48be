//! The completion queue of the event loop: a radix heap, which pops events in exactly the
//! order of a binary heap of (time, job) but compares far less.
//!
//! A simulation never schedules an event before the current time, and a radix heap rests
//! on that. Every event lies in one of 65 buckets by the highest bit in which its time
//! differs from the last popped time (bucket 0: the same time). A push is one bucket
//! computation and a vector push; a pop takes from bucket 0, and when that is empty, first
//! moves the lowest non-empty bucket's events down relative to their earliest time. An
//! event only ever moves to a lower bucket, so each moves a few times at most. On CTC-SP2
//! under EASY a binary heap's pop cost about 140 instructions, most of them comparisons
//! whose outcome the branch predictor cannot guess.
//!
//! Bucket 0 is kept sorted by job, descending, so events of one instant leave in the same
//! order as from a binary heap. Looking at the earliest time moves nothing: the engine looks
//! before it knows whether an arrival comes first, whose job may then end earlier still.

use crate::Time;

/// A scheduled event: (time, job), ordered in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Event {
    pub(crate) time: Time,
    pub(crate) job: u32,
}

/// The order-preserving map from times to unsigned keys whose bits choose the buckets.
#[inline]
fn key(t: Time) -> u64 {
    (t as u64) ^ (1 << 63)
}

/// A monotone priority queue of [`Event`]s (module docs). Buffers are kept across
/// [`RadixHeap::clear`], so a warm queue does not allocate.
#[derive(Debug)]
pub(crate) struct RadixHeap {
    /// Key of the last popped time (at first the floor given to `clear`): no event is
    /// before it, and bucket 0 holds the events at it.
    last: u64,
    buckets: Vec<Vec<Event>>,
    /// Bit `b` is set when bucket `b` is not empty.
    occupied: u128,
    len: usize,
    /// The earliest time in the lowest non-empty bucket, once computed while bucket 0 is
    /// empty; pushes keep it exact.
    earliest: Option<Time>,
}

impl Default for RadixHeap {
    fn default() -> Self {
        RadixHeap {
            last: key(Time::MIN),
            buckets: (0..65).map(|_| Vec::new()).collect(),
            occupied: 0,
            len: 0,
            earliest: None,
        }
    }
}

impl RadixHeap {
    /// Empties the queue; no event may be pushed before `floor` until the next clear.
    pub(crate) fn clear(&mut self, floor: Time) {
        for b in &mut self.buckets {
            b.clear();
        }
        self.last = key(floor);
        self.occupied = 0;
        self.len = 0;
        self.earliest = None;
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bucket of an event at key `k`.
    #[inline]
    fn bucket(&self, k: u64) -> usize {
        (u64::BITS - (k ^ self.last).leading_zeros()) as usize
    }

    /// Adds `e`, which must not be earlier than the last popped event.
    #[inline]
    pub(crate) fn push(&mut self, e: Event) {
        let k = key(e.time);
        debug_assert!(k >= self.last, "event at {} is before the last popped one", e.time);
        let b = self.bucket(k);
        if b == 0 {
            // Kept sorted descending, so the smallest job pops first.
            let zero = &mut self.buckets[0];
            let at = zero.partition_point(|x| x.job > e.job);
            zero.insert(at, e);
        } else {
            self.buckets[b].push(e);
            self.earliest = self.earliest.map(|t| t.min(e.time));
        }
        self.occupied |= 1 << b;
        self.len += 1;
    }

    /// The earliest time of any event. Moves nothing (module docs).
    #[inline]
    pub(crate) fn peek_time(&mut self) -> Option<Time> {
        if self.occupied & 1 != 0 {
            return Some((self.last ^ (1 << 63)) as Time);
        }
        if self.occupied == 0 {
            return None;
        }
        if self.earliest.is_none() {
            let b = self.occupied.trailing_zeros() as usize;
            self.earliest = self.buckets[b].iter().map(|e| e.time).min();
        }
        self.earliest
    }

    /// Removes and returns the earliest event (the smallest job among those at the
    /// earliest time). No event may be pushed before it afterwards.
    pub(crate) fn pop(&mut self) -> Option<Event> {
        if self.occupied & 1 == 0 {
            let earliest = self.peek_time()?;
            // Every event of the lowest bucket `b` agrees with the new last key above bit
            // b - 1, so each moves to a bucket below `b`.
            let b = self.occupied.trailing_zeros() as usize;
            let mut moving = std::mem::take(&mut self.buckets[b]);
            self.occupied &= !(1 << b);
            self.last = key(earliest);
            for &e in &moving {
                let to = self.bucket(key(e.time));
                self.buckets[to].push(e);
                self.occupied |= 1 << to;
            }
            self.buckets[0].sort_unstable_by(|x, y| y.job.cmp(&x.job));
            moving.clear();
            self.buckets[b] = moving;
            self.earliest = None;
        }
        let e = self.buckets[0].pop();
        if self.buckets[0].is_empty() {
            self.occupied &= !1;
        }
        self.len -= 1;
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// Driven as the engine drives it (time advances to the earliest event or less,
        /// events are pushed at or after the current time, those at the current time are
        /// popped), it gives exactly the events a binary heap gives, in the same order.
        #[test]
        fn pops_like_a_binary_heap(
            ops in prop::collection::vec((any::<bool>(), 0i64..5000, 0u32..40), 0..300),
            start in -1_000_000_000_000i64..1_000_000_000_000,
            wide in any::<bool>(),
        ) {
            let mut radix = RadixHeap::default();
            radix.clear(start);
            let mut heap = BinaryHeap::new();
            let mut now = start;
            for (advance, delay, job) in ops {
                // Short delays give many ties; wide ones exercise the high buckets.
                let delay = if wide { delay << 28 } else { delay % 8 };
                if advance {
                    let earliest = heap.peek().map(|Reverse(e): &Reverse<Event>| e.time);
                    prop_assert_eq!(radix.peek_time(), earliest);
                    now = earliest.map_or(now + delay, |t| t.min(now + delay));
                    while heap.peek().is_some_and(|Reverse(e)| e.time == now) {
                        let Reverse(e) = heap.pop().unwrap();
                        prop_assert_eq!(radix.pop(), Some(e));
                    }
                } else {
                    let e = Event { time: now + delay, job };
                    radix.push(e);
                    heap.push(Reverse(e));
                }
                prop_assert_eq!(radix.len(), heap.len());
            }
            while let Some(Reverse(e)) = heap.pop() {
                prop_assert_eq!(radix.pop(), Some(e));
            }
            prop_assert!(radix.is_empty());
            prop_assert_eq!(radix.pop(), None);
            prop_assert_eq!(radix.peek_time(), None);
        }
    }

    #[test]
    fn extreme_times_keep_their_order() {
        let mut radix = RadixHeap::default();
        radix.clear(Time::MIN);
        for t in [Time::MAX, 0, -1, Time::MIN, 1] {
            radix.push(Event { time: t, job: 0 });
        }
        let order: Vec<Time> = std::iter::from_fn(|| radix.pop().map(|e| e.time)).collect();
        assert_eq!(order, vec![Time::MIN, -1, 0, 1, Time::MAX]);
    }
}
