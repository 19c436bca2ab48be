//! A power cap over time taken into a profile of free cores (`crate::sim::profile`) as far
//! ahead as a scheduler's questions reach: what FCFS and EASY under a cap over time
//! (`super::capped`) and conservative backfilling (`super::conservative`) ask the profile
//! through.

use crate::Time;
use crate::machine::cap::CapOverTime;
use crate::sim::profile::Profile;

/// A cap over time taken into a profile of free cores as far ahead as the questions asked
/// of it need: from the profile's start up to `horizon`, each step of the cap takes the
/// cores it does not leave. Beyond the horizon the profile still counts every core, so a fit
/// that reaches past it is asked again once the cap's steps up to its end are in. Steps are
/// only ever taken (never given back) beyond what was reserved, so a profile extended lazily
/// answers as one holding the whole cap would.
#[derive(Clone, Debug)]
pub struct CapInProfile {
    /// Cores that may be busy over time ([`crate::machine::Partition::capacity`]).
    capacity: CapOverTime,
    /// The profile holds the cap over `[its first step, horizon)`, and every core beyond.
    horizon: Time,
    /// The pool's cores: the cap takes `total` less its own at each step.
    total: u32,
}

impl CapInProfile {
    pub fn new(capacity: CapOverTime) -> CapInProfile {
        CapInProfile {
            capacity,
            horizon: Time::MIN,
            total: 0,
        }
    }

    /// A profile of `total` cores just reset at `from`: nothing of the cap taken yet.
    pub fn reset(&mut self, from: Time, total: u32) {
        (self.horizon, self.total) = (from, total);
    }

    /// The cores the cap leaves at `t`, and when that next changes.
    fn at(&self, t: Time) -> (u32, Time) {
        let (cores, next) = self.capacity.at(t);
        (cores as u32, next)
    }

    /// Takes the cap into `profile` from its horizon (at least `now`: the profile drops the
    /// past) up to `to` at least.
    fn extend(&mut self, profile: &mut Profile, now: Time, to: Time) {
        self.horizon = self.horizon.max(now);
        while self.horizon < to && self.horizon < Time::MAX {
            let (cores, end) = self.at(self.horizon);
            profile.add(self.horizon, end, -(self.total.saturating_sub(cores) as i64));
            self.horizon = end;
        }
    }

    /// The earliest time from `now` at which `procs` cores are free in `profile` for
    /// `duration`, the cap included.
    ///
    /// # Panics
    /// If the cap never holds the job for its duration: past the profile's last change
    /// (every running job ended, every reservation over) only the cap is left, and a cap
    /// read once holds the jobs placement keeps from its last row on, a repeating one
    /// within a period; the search gives up two periods and the duration past that change.
    /// Placement skips the jobs the cap never holds (`crate::machine::Partition::cap_holds`).
    pub fn earliest_fit(&mut self, profile: &mut Profile, now: Time, procs: u32, duration: Time) -> Time {
        let settled = profile
            .steps()
            .last()
            .map_or(now, |s| s.0)
            .max(self.horizon)
            .max(now);
        let bound = self.capacity.steps.period().map_or(Time::MAX, |p| {
            settled.saturating_add(2 * p).saturating_add(duration)
        });
        loop {
            let at = profile.earliest_fit(now, procs, duration);
            let end = at.saturating_add(duration.max(1));
            if end <= self.horizon || self.horizon == Time::MAX {
                return at;
            }
            assert!(
                at <= bound,
                "a job of {procs} cores for {duration} s never fits under the cap over time"
            );
            self.extend(profile, now, end);
        }
    }

    /// Whether `procs` cores are free in `profile` from `now` for `duration`, the cap
    /// included.
    pub fn fits_now(&mut self, profile: &mut Profile, now: Time, procs: u32, duration: Time) -> bool {
        self.extend(profile, now, now.saturating_add(duration.max(1)));
        profile
            .earliest_fit_with(now, procs, duration, None, now + 1)
            .is_some()
    }

    /// When the cap next changes after `now`.
    pub fn next_change(&self, now: Time) -> Time {
        self.at(now).1
    }
}
