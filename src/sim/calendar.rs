//! The time buckets shared by the two calendars of the rigid engine, the running set
//! ([`super::running`]) and the completion events ([`super::completions`]): the near future,
//! `HORIZON` seconds from the bucket of the current instant, cut into `BUCKETS` buckets of
//! 64 s used circularly, and an overflow array (descending, earliest last) for times beyond
//! the horizon, which moves into the calendar as the horizon reaches it.
//!
//! ```text
//!   now's bucket                                   horizon_end(now)
//!   |<---------------- BUCKETS x 64 s = 72.8 h ---------------->|
//!   [b][b+1] ... [4095][0][1] ... [b-1]  |  overflow: ..., t2, t1 (t1 earliest, last)
//! ```

use crate::Time;

/// Buckets in the calendar (a power of two), words of the bitmap marking them, and the
/// buckets' width in seconds (a power of two).
pub(super) const BUCKETS: usize = 4096;
pub(super) const WORDS: usize = BUCKETS / 64;
const WIDTH_BITS: u32 = 6;
/// Seconds the calendar spans: 72.8 hours.
pub(super) const HORIZON: Time = (BUCKETS as Time) << WIDTH_BITS;

/// Calendar bucket of predicted end `t`.
#[inline]
pub(super) fn bucket(t: Time) -> usize {
    (t >> WIDTH_BITS) as usize & (BUCKETS - 1)
}

/// The end of the calendar's horizon at instant `now`: times before it have a bucket of
/// their own in the circular calendar that starts at `now`'s bucket.
#[inline]
pub(super) fn horizon_end(now: Time) -> Time {
    ((now >> WIDTH_BITS) << WIDTH_BITS).saturating_add(HORIZON)
}

/// Puts `x` in `beyond`, a calendar's overflow kept in descending order (earliest last).
pub(super) fn insert_descending<T: Ord>(beyond: &mut Vec<T>, x: T) {
    let at = beyond.partition_point(|b| *b > x);
    beyond.insert(at, x);
}

/// Takes the earliest of `beyond` (descending) if its time is before `limit`: the horizon
/// has reached it.
#[inline]
pub(super) fn pop_before<T: Copy>(beyond: &mut Vec<T>, limit: Time, time: impl Fn(&T) -> Time) -> Option<T> {
    let &x = beyond.last()?;
    (time(&x) < limit).then(|| beyond.pop().expect("not empty"))
}
