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
//!
//! User-based resampling (after Zakay & Feitelson, "Workload resampling for performance
//! evaluation of parallel job schedulers", ICPE 2013 and CCPE 2014): the trace is cut into
//! its users' sub-traces, weeks counted from the first submit, and a new workload of
//! `weeks` weeks is built from them:
//! - a long-term user (first and last submit at least `long_term_weeks` weeks apart) is
//!   kept as recorded, its weeks repeating from the trace's start when the new workload is
//!   longer than the trace; a random phase per user was tried and rejected: it lines up
//!   heavy weeks of different users that the log kept apart (on SDSC-SP2 EASY's mean wait
//!   rose from 20,573 s in the log to 76,128-237,351 s over 5 seeds; docs/semantics.md);
//! - `users_scale` (the load by users) scales the number of users of both kinds: each
//!   long-term user appears `floor(s)` times plus once more with probability `frac(s)`
//!   (so 0.8 drops a fifth of them at random; copies beyond the first start at a random
//!   week of the trace, wrapping around);
//! - temporary users arrive week by week: in each new week, as many as began in a random
//!   week of the trace (times `users_scale`, randomly rounded), each a copy of a random
//!   temporary user's whole sub-trace, started that week with its weeks, days and times;
//!   jobs that would fall after the last week are left out of that workload;
//! - jobs of an unknown user (field 12 = -1) are each a temporary user of their own.
//!
//! Every job keeps its size, runtime and estimate; copies get new user numbers (above the
//! trace's), and `preceding_job`/`think_time` become unknown. What the papers do not fix
//! and schedlab chose: the long-term threshold (12 weeks by default), long-term users in
//! place, and drawing weekly arrivals from the trace's own weeks (which keeps
//! their variability). The submit times are static, as in the trace; feedback (submits
//! that wait for the user's previous job) is added on top, from the resampled workload's
//! own sessions (`crate::workload::sessions`, `crate::sim::feedback`).

use rand_xoshiro::rand_core::{Rng, SeedableRng};

use super::Jobs;
use crate::Time;
use crate::random::{ModelRng, below, unit};

/// The default jitter of input shaking, seconds.
pub const DEFAULT_SHAKE_JITTER: Time = 60;

const WEEK: Time = 7 * 86_400;

/// How a replication draws its workload from a trace.
#[derive(Clone, Debug, PartialEq)]
pub enum Resample {
    /// Input shaking with this jitter (seconds).
    Shake(Time),
    /// User-based resampling.
    Users(UserResampling),
}

/// How user-based resampling builds a workload (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct UserResampling {
    /// Weeks of the new workload; `None`: as many as the trace spans.
    pub weeks: Option<u32>,
    /// A user whose first and last submit are at least this many weeks apart is long-term.
    pub long_term_weeks: u32,
    /// Users relative to the trace's: long-term users kept or copied, new temporary users
    /// per week (the load by users).
    pub users_scale: f64,
}

impl Default for UserResampling {
    fn default() -> Self {
        UserResampling {
            weeks: None,
            long_term_weeks: 12,
            users_scale: 1.0,
        }
    }
}

/// One user's jobs: row indices, and each job's week (from the user's first) and second
/// within its week.
struct SubTrace {
    rows: Vec<u32>,
    week: Vec<u32>,
    offset: Vec<Time>,
    /// Weeks from its first job's week to its last's, inclusive.
    span: u32,
}

impl UserResampling {
    /// A new workload drawn from `jobs` for `seed` (module docs); deterministic for a seed.
    pub fn resample(&self, jobs: &Jobs, seed: u64) -> Jobs {
        let Some(&start) = jobs.submit.first() else {
            return jobs.clone();
        };
        let mut rng = ModelRng::seed_from_u64(crate::seed::mix64(seed ^ 0x7573_6572_7300));
        let trace_weeks = ((jobs.submit[jobs.len() - 1] - start) / WEEK + 1) as u32;
        let weeks = self.weeks.unwrap_or(trace_weeks);
        // Sub-traces by user, in order of first appearance; unknown users one job each.
        let mut index = std::collections::HashMap::new();
        let mut users: Vec<(i32, Vec<u32>)> = Vec::new();
        for j in 0..jobs.len() {
            let user = jobs.user[j];
            if user < 0 {
                users.push((user, vec![j as u32]));
                continue;
            }
            let k = *index.entry(user).or_insert_with(|| {
                users.push((user, Vec::new()));
                users.len() - 1
            });
            users[k].1.push(j as u32);
        }
        let (mut long_term, mut temporary) = (Vec::new(), Vec::new());
        // Temporary users that began in each week of the trace.
        let mut began = vec![0u32; trace_weeks as usize];
        for (user, rows) in users {
            let first_week = (jobs.submit[rows[0] as usize] - start) / WEEK;
            let mut sub = SubTrace {
                week: Vec::with_capacity(rows.len()),
                offset: Vec::with_capacity(rows.len()),
                span: 0,
                rows,
            };
            for &r in &sub.rows {
                let t = jobs.submit[r as usize] - start;
                sub.week.push((t / WEEK - first_week) as u32);
                sub.offset.push(t % WEEK);
            }
            sub.span = sub.week[sub.week.len() - 1] + 1;
            if user >= 0 && sub.span > self.long_term_weeks {
                long_term.push((user, sub));
            } else {
                began[first_week as usize] += 1;
                temporary.push(sub);
            }
        }
        let mut picks: Vec<(Time, u32, i32)> = Vec::with_capacity(jobs.len());
        let mut next_user = jobs.user.iter().copied().max().unwrap_or(0).max(0) + 1;
        let scale = |rng: &mut ModelRng, n: f64| -> u64 {
            let expected = n * self.users_scale;
            expected.floor() as u64 + u64::from(unit(rng) < expected.fract())
        };
        for (user, sub) in &long_term {
            // Week w of the new workload plays the trace's week (w + phase) mod its length:
            // the first copy with phase 0 (as recorded), further copies (users_scale above
            // 1) with a random phase each.
            let first_week = ((jobs.submit[sub.rows[0] as usize] - start) / WEEK) as u32;
            let mut by_week: Vec<Vec<usize>> = vec![Vec::new(); trace_weeks as usize];
            for (i, &w) in sub.week.iter().enumerate() {
                by_week[(first_week + w) as usize].push(i);
            }
            for copy in 0..scale(&mut rng, 1.0) {
                let (phase, id) = match copy {
                    0 => (0, *user),
                    _ => {
                        next_user += 1;
                        (below(&mut rng, trace_weeks as u64) as u32, next_user - 1)
                    }
                };
                for w in 0..weeks {
                    for &i in &by_week[((w + phase) % trace_weeks) as usize] {
                        picks.push((start + w as Time * WEEK + sub.offset[i], sub.rows[i], id));
                    }
                }
            }
        }
        if !temporary.is_empty() {
            for w in 0..weeks {
                let like = began[below(&mut rng, trace_weeks as u64) as usize];
                let arrivals = scale(&mut rng, like as f64);
                for _ in 0..arrivals {
                    let sub = &temporary[below(&mut rng, temporary.len() as u64) as usize];
                    for i in 0..sub.rows.len() {
                        let week = w + sub.week[i];
                        if week < weeks {
                            picks.push((
                                start + week as Time * WEEK + sub.offset[i],
                                sub.rows[i],
                                next_user,
                            ));
                        }
                    }
                    next_user += 1;
                }
            }
        }
        // Stable in construction order for equal submits: deterministic for a seed.
        picks.sort_by_key(|p| p.0);
        let order: Vec<u32> = picks.iter().map(|p| p.1).collect();
        let mut out = jobs.gather(&order);
        for (j, (submit, _, user)) in picks.into_iter().enumerate() {
            out.swf_id[j] = j as u64 + 1;
            out.submit[j] = submit;
            out.user[j] = user;
        }
        // Sessions are unknown in the new workload (a table read for a simulation alone
        // keeps none).
        out.preceding_job.fill(-1);
        out.think_time.fill(-1);
        out
    }
}

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

    /// 40 weeks: users 1-3 long-term (a job every day of the trace), users 10.. temporary
    /// (3 jobs over 2 weeks each, two new ones a week), and unknown-user jobs.
    fn users_trace() -> Jobs {
        let mut records = Vec::new();
        let mut id = 0;
        let mut push = |submit: i64, user: i32, runtime: i64| {
            id += 1;
            let mut r = JobRecord::new(id, submit, runtime, 1 + (id % 5) as u32, runtime * 2);
            r.user = user;
            r.think_time = 5;
            records.push(r);
        };
        for day in 0..280 {
            for user in 1..=3 {
                push(day * 86_400 + 3600 * user as i64, user, 100 + user as i64);
            }
        }
        for week in 0..40 {
            for k in 0..2 {
                let user = 10 + week * 2 + k;
                let base = week as i64 * WEEK + 10_000 * (k as i64 + 1);
                for (i, gap) in [0, 50_000, WEEK + 7].iter().enumerate() {
                    push(base + gap, user, 1000 * user as i64 + i as i64);
                }
            }
            push(week as i64 * WEEK + 77, -1, 5);
        }
        Jobs::from_records(&records)
    }

    /// A trace read for a simulation alone (its simulated columns) resamples to the same
    /// simulated columns as the trace read whole: sweeps read resampled traces so.
    #[test]
    fn user_resampling_of_the_simulated_columns_alone_draws_the_same_jobs() {
        let whole = users_trace();
        let simulated = whole.gather_simulated(&(0..whole.len() as u32).collect::<Vec<_>>());
        assert!(simulated.preceding_job.is_empty() && !whole.preceding_job.is_empty());
        let r = UserResampling::default();
        for seed in [1, 3, 8] {
            let (a, b) = (r.resample(&whole, seed), r.resample(&simulated, seed));
            assert!(!a.is_empty());
            assert_eq!(a.submit, b.submit, "seed {seed}");
            for (x, y) in [(&a.runtime, &b.runtime), (&a.estimate, &b.estimate)] {
                assert_eq!(x, y, "seed {seed}");
            }
            assert_eq!((&a.swf_id, &a.user, &a.procs), (&b.swf_id, &b.user, &b.procs));
            assert!(b.preceding_job.is_empty() && b.think_time.is_empty());
            assert!(a.preceding_job.iter().all(|&p| p == -1));
        }
    }

    #[test]
    fn user_resampling_keeps_long_term_users_and_whole_temporary_sub_traces() {
        let trace = users_trace();
        let r = UserResampling::default();
        let a = r.resample(&trace, 3);
        assert!(a.submit.windows(2).all(|w| w[0] <= w[1]));
        assert!((1..=a.len() as u64).eq(a.swf_id.iter().copied()), "renumbered");
        assert!(a.think_time.iter().all(|&t| t == -1));
        // Long-term users are the trace's, job for job.
        let long = |j: &Jobs| -> Vec<(i64, i32, i64)> {
            (0..j.len())
                .filter(|&i| (1..=3).contains(&j.user[i]))
                .map(|i| (j.submit[i], j.user[i], j.runtime[i]))
                .collect()
        };
        assert!(long(&a) == long(&trace));
        // Every temporary copy is one user's jobs at the trace's gaps, ids above the trace's.
        let mut copies: std::collections::BTreeMap<i32, Vec<(i64, i64)>> = Default::default();
        for i in 0..a.len() {
            if a.user[i] > 3 {
                assert!(a.user[i] >= 90, "a fresh user number");
                copies
                    .entry(a.user[i])
                    .or_default()
                    .push((a.submit[i], a.runtime[i]));
            }
        }
        assert!(copies.len() > 40, "{} copies", copies.len());
        for jobs in copies.values() {
            let user = jobs[0].1 / 1000;
            let unknown = jobs[0].1 == 5;
            if unknown {
                assert_eq!(jobs.len(), 1);
                assert_eq!(jobs[0].0 % WEEK, 77, "the week's time kept");
                continue;
            }
            let expected: Vec<i64> = (0..jobs.len() as i64).map(|i| 1000 * user + i).collect();
            assert!(jobs.iter().map(|j| j.1).eq(expected), "{jobs:?}");
            if jobs.len() == 3 {
                assert_eq!(jobs[1].0 - jobs[0].0, 50_000);
                assert_eq!(jobs[2].0 - jobs[0].0, WEEK + 7);
            }
            // Started on a week boundary plus the user's own offset in the week.
            assert!([10_000, 20_000].contains(&(jobs[0].0 % WEEK)), "{jobs:?}");
        }
        // Deterministic for a seed; another seed differs.
        assert!(r.resample(&trace, 3).submit == a.submit);
        assert!(r.resample(&trace, 4).user != a.user);
    }

    #[test]
    fn users_scale_and_weeks_set_the_temporary_load_and_the_length() {
        let trace = users_trace();
        let temporary = |j: &Jobs| (0..j.len()).filter(|&i| j.user[i] > 3).count() as f64;
        let users = |j: &Jobs| j.user.iter().collect::<std::collections::BTreeSet<_>>().len();
        let mean =
            |r: &UserResampling| (1..=20).map(|s| temporary(&r.resample(&trace, s))).sum::<f64>() / 20.0;
        let one = mean(&UserResampling::default());
        let two = mean(&UserResampling {
            users_scale: 2.0,
            ..UserResampling::default()
        });
        // The trace has 280 temporary jobs (two users of 3 jobs and one unknown-user job a
        // week), of which the last week's users lose their third: 278 expected.
        assert!((one - 278.0).abs() < 10.0, "{one}");
        // Temporary jobs twice as many; each long-term user twice (once in place), so the
        // copies' 840 jobs count as temporary here.
        assert!(((two - 840.0) / one - 2.0).abs() < 0.1, "{two} against {one}");
        let doubled = UserResampling {
            users_scale: 2.0,
            ..UserResampling::default()
        }
        .resample(&trace, 5);
        assert!(
            (0..doubled.len())
                .filter(|&i| (1..=3).contains(&doubled.user[i]))
                .count()
                == 840
        );
        assert!(users(&doubled) > 6, "long-term copies have users of their own");
        let long = UserResampling {
            weeks: Some(80),
            ..UserResampling::default()
        }
        .resample(&trace, 1);
        let span = long.submit[long.len() - 1] - long.submit[0];
        assert!(span > 79 * WEEK && span < 80 * WEEK, "{span}");
        // Long-term users repeat the trace's weeks: it spans 41 (the last temporary users'
        // third jobs fall in week 40), so weeks 41-79 replay weeks 0-38, 7 jobs each.
        let days = (0..long.len()).filter(|&i| long.user[i] == 1).count();
        assert_eq!(days, 280 + 39 * 7);
    }

    #[test]
    fn an_empty_trace_shakes_to_itself() {
        let mut empty = jobs(0);
        shake(&mut empty, 60, 1);
        assert_eq!(empty.len(), 0);
    }
}
