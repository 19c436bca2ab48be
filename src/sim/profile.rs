//! Availability profile: free processors over future time, as a step function.
//!
//! ```text
//!  free
//!   8 |      ┌────────┐              ┌──────────── (to infinity)
//!   5 |──────┘        │     ┌────────┘
//!   2 |               └─────┘
//!     +------+--------+-----+--------+-----------> time
//!     now    t1       t2    t3       t4
//!  steps: [(now,5), (t1,8), (t2,2), (t3,5), (t4,8)]
//! ```
//!
//! Each step `(t, free)` holds from `t` until the next step's time; the last holds forever.
//! Times are strictly increasing and neighbouring steps differ in `free` (redundant steps are
//! merged as they appear), so the size is at most twice the number of reservations plus one.
//! Every operation is O(steps): a binary search plus one shift of the vector.

use crate::Time;

/// The free processors of a machine over future time.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    steps: Vec<(Time, i64)>,
}

impl Profile {
    /// A machine with `procs` free processors from `now` on.
    pub fn reset(&mut self, now: Time, procs: u32) {
        self.steps.clear();
        self.steps.push((now, procs as i64));
    }

    /// A machine of `procs` processors at `now`, of which each of `releases` (time,
    /// processors; in time order, each after `now`) holds its processors until its time:
    /// the profile of a running set in one pass, where a reservation each would cost
    /// O(steps) apiece.
    pub fn reset_releasing(&mut self, now: Time, procs: u32, releases: &[(Time, u32)]) {
        self.steps.clear();
        let busy: i64 = releases.iter().map(|r| r.1 as i64).sum();
        let mut free = procs as i64 - busy;
        self.steps.push((now, free));
        for &(t, p) in releases.iter().filter(|r| r.1 > 0) {
            debug_assert!(t > now, "a release at {t}, not after {now}");
            free += p as i64;
            match self.steps.last_mut() {
                Some(last) if last.0 == t => last.1 = free,
                _ => self.steps.push((t, free)),
            }
        }
    }

    pub fn steps(&self) -> &[(Time, i64)] {
        &self.steps
    }

    /// Free processors at time `t` (t at or after the first step).
    pub fn free_at(&self, t: Time) -> i64 {
        let i = self.steps.partition_point(|&(s, _)| s <= t);
        debug_assert!(i > 0, "time {t} before the profile starts");
        self.steps[i - 1].1
    }

    /// Drops the past: the step covering `now` is moved to start at `now`.
    pub fn advance(&mut self, now: Time) {
        let i = self.steps.partition_point(|&(s, _)| s <= now);
        if i > 1 {
            self.steps.drain(..i - 1);
        }
        if let Some(first) = self.steps.first_mut() {
            first.0 = first.0.max(now);
        }
    }

    /// Index of a step starting exactly at `t`, splitting the covering step if needed.
    fn split_at(&mut self, t: Time) -> usize {
        let i = self.steps.partition_point(|&(s, _)| s < t);
        if i < self.steps.len() && self.steps[i].0 == t {
            return i;
        }
        debug_assert!(i > 0, "time {t} before the profile starts");
        let free = self.steps[i - 1].1;
        self.steps.insert(i, (t, free));
        i
    }

    /// Adds `delta` free processors over `[from, to)`: negative to reserve, positive to
    /// release. An empty interval changes nothing.
    pub fn add(&mut self, from: Time, to: Time, delta: i64) {
        if from >= to || delta == 0 {
            return;
        }
        let a = self.split_at(from);
        let b = self.split_at(to);
        for step in &mut self.steps[a..b] {
            step.1 += delta;
        }
        // Merge steps made redundant at the two edges (b first, so `a` stays valid).
        if b < self.steps.len() && self.steps[b].1 == self.steps[b - 1].1 {
            self.steps.remove(b);
        }
        if a > 0 && self.steps[a].1 == self.steps[a - 1].1 {
            self.steps.remove(a);
        }
    }

    /// Most processors free at any instant of `[from, to)` (from at or after the first step).
    pub fn max_free(&self, from: Time, to: Time) -> i64 {
        let first = self.steps.partition_point(|&(s, _)| s <= from).max(1) - 1;
        self.steps[first..]
            .iter()
            .take_while(|&&(s, _)| s < to)
            .map(|&(_, f)| f)
            .max()
            .unwrap_or(0)
    }

    /// Earliest time `t >= now` at which `procs` processors are free during all of
    /// `[t, t + duration)`; for `duration == 0`, at the instant `t`. Always exists as long as
    /// `procs` is at most the machine size, since the last step is the whole machine once
    /// every reservation has ended.
    pub fn earliest_fit(&self, now: Time, procs: u32, duration: Time) -> Time {
        self.earliest_fit_with(now, procs, duration, None, Time::MAX)
            .unwrap_or_else(|| panic!("no time at which {procs} processors are free: {:?}", self.steps))
    }

    /// Like [`Profile::earliest_fit`], as if `credit = (from, to, procs)` more processors
    /// were free over `[from, to)`, and only for starts before `limit`. With a job's own
    /// reservation as the credit and its start as the limit, this says whether the job could
    /// move earlier, without taking it out of the profile. O(steps before the answer).
    pub fn earliest_fit_with(
        &self,
        now: Time,
        procs: u32,
        duration: Time,
        credit: Option<(Time, Time, i64)>,
        limit: Time,
    ) -> Option<Time> {
        let need = procs as i64;
        let (credit_from, credit_to, credit_procs) = credit.unwrap_or((Time::MAX, Time::MAX, 0));
        // Starts are sought before the credit, so only a window's tail can use it.
        debug_assert!(credit.is_none() || limit <= credit_from);
        let steps = &self.steps[..];
        let n = steps.len();
        // The step covering `now`: nearly always the first (re-fits mostly search from now).
        let mut i = if n == 0 || now <= steps[0].0 {
            0
        } else {
            steps.partition_point(|&(s, _)| s <= now) - 1
        };
        'candidates: loop {
            // The next step where the job could start.
            while i < n && steps[i].1 < need {
                i += 1;
            }
            if i == n {
                return None;
            }
            let candidate = steps[i].0.max(now);
            if candidate >= limit {
                return None;
            }
            if duration == 0 {
                return Some(candidate);
            }
            // Does the window fit? Step i does; each later step it reaches needs `need`
            // free, the credit counting only where the step's part of the window lies
            // wholly inside the credited interval.
            let end = candidate.saturating_add(duration);
            let mut j = i + 1;
            while j < n && steps[j].0 < end {
                let free = steps[j].1;
                if free < need {
                    let to = if j + 1 < n { steps[j + 1].0.min(end) } else { end };
                    let credited = steps[j].0 >= credit_from && to <= credit_to;
                    if !credited || free + credit_procs < need {
                        // Every window that starts before step j ends overlaps it.
                        i = j + 1;
                        continue 'candidates;
                    }
                }
                j += 1;
            }
            return Some(candidate);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Reference model: free processors at every second of a short horizon.
    fn model_free(reservations: &[(Time, Time, i64)], procs: i64, t: Time) -> i64 {
        procs
            - reservations
                .iter()
                .filter(|r| r.0 <= t && t < r.1)
                .map(|r| r.2)
                .sum::<i64>()
    }

    proptest! {
        #[test]
        fn matches_a_per_second_model(
            ops in prop::collection::vec((0i64..40, 1i64..20, 1i64..5, any::<bool>()), 1..30),
            query_procs in 1u32..9,
            query_len in 0i64..15,
        ) {
            let procs = 8i64;
            let mut profile = Profile::default();
            profile.reset(0, procs as u32);
            let mut held: Vec<(Time, Time, i64)> = Vec::new();
            for (start, len, p, release) in ops {
                if release && !held.is_empty() {
                    let r = held.remove(start as usize % held.len());
                    profile.add(r.0, r.1, r.2);
                    continue;
                }
                let (s, e) = (start, start + len);
                if (s..e).all(|t| model_free(&held, procs, t) >= p) {
                    profile.add(s, e, -p);
                    held.push((s, e, p));
                }
            }
            for t in 0..80 {
                prop_assert_eq!(profile.free_at(t), model_free(&held, procs, t));
            }
            let (a, b) = (query_len, query_len + 7);
            prop_assert_eq!(profile.max_free(a, b), (a..b).map(|t| model_free(&held, procs, t)).max().unwrap());
            for w in profile.steps().windows(2) {
                prop_assert!(w[0].0 < w[1].0 && w[0].1 != w[1].1);
            }
            let fit = profile.earliest_fit(3, query_procs, query_len);
            let ok = |t: Time| {
                if query_len == 0 { model_free(&held, procs, t) >= query_procs as i64 }
                else { (t..t + query_len).all(|u| model_free(&held, procs, u) >= query_procs as i64) }
            };
            prop_assert!(ok(fit));
            prop_assert!((3..fit).all(|t| !ok(t)));
            // Crediting a held reservation equals taking it out of the profile, for starts
            // before the reservation (how re-fitting asks).
            if let Some(&(s, e, p)) = held.iter().find(|r| r.0 > 3) {
                let limit = s;
                let with_credit = profile.earliest_fit_with(3, query_procs, query_len, Some((s, e, p)), limit);
                let mut without = profile.clone();
                without.add(s, e, p);
                let expected = Some(without.earliest_fit(3, query_procs, query_len)).filter(|&t| t < limit);
                prop_assert_eq!(with_credit, expected);
            }
        }
    }

    /// Releasing a running set in one pass gives the profile its reservations, one at a
    /// time, would.
    #[test]
    fn releases_in_one_pass_are_the_reservations() {
        let releases = [(5, 2), (5, 1), (9, 3), (12, 0), (20, 4)];
        let mut one = Profile::default();
        one.reset_releasing(3, 16, &releases);
        let mut each = Profile::default();
        each.reset(3, 16);
        for &(t, p) in &releases {
            each.add(3, t, -(p as i64));
        }
        assert_eq!(one.steps(), each.steps());
        assert_eq!(one.steps(), &[(3, 6), (5, 9), (9, 12), (20, 16)]);
    }

    #[test]
    fn advance_drops_the_past() {
        let mut p = Profile::default();
        p.reset(0, 10);
        p.add(5, 10, -4);
        p.add(20, 30, -2);
        p.advance(7);
        assert_eq!(p.steps(), &[(7, 6), (10, 10), (20, 8), (30, 10)]);
        p.advance(25);
        assert_eq!(p.steps(), &[(25, 8), (30, 10)]);
    }
}
