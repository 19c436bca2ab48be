//! The machine over time: busy processors, running and queued jobs at every instant where
//! one of them changes, from a schedule's per-job submit, start and end times.

use std::io::Write;

use crate::Time;
use crate::sim::state::UNSET;
use crate::workload::Jobs;

/// The state from `time` until the next step's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimelineStep {
    pub time: Time,
    pub busy: u64,
    pub running: u32,
    pub queued: u32,
}

/// Header of `--timeline-out` files.
pub const TIMELINE_CSV_HEADER: &str = "time,utilization,busy_procs,running,queued";

/// The steps of a schedule, one per instant at which something changes, in time order. A
/// job counts as queued from its submit to its start and running from its start to its
/// end; at one instant, ends and starts apply before the state is recorded. Jobs that never
/// started (a run stopped early) stay queued to the last step; jobs unfinished stay running.
pub fn timeline(jobs: &Jobs, start: &[Time], end: &[Time]) -> Vec<TimelineStep> {
    // (time, change in busy processors, in running, in queued)
    let mut events: Vec<(Time, i64, i32, i32)> = Vec::with_capacity(3 * jobs.len());
    for j in 0..jobs.len() {
        let p = jobs.procs[j] as i64;
        events.push((jobs.submit[j], 0, 0, 1));
        if start[j] != UNSET {
            events.push((start[j], p, 1, -1));
            if end[j] != UNSET {
                events.push((end[j], -p, -1, 0));
            }
        }
    }
    events.sort_unstable_by_key(|e| e.0);
    let mut steps: Vec<TimelineStep> = Vec::new();
    let (mut busy, mut running, mut queued) = (0i64, 0i32, 0i32);
    let mut i = 0;
    while i < events.len() {
        let now = events[i].0;
        while i < events.len() && events[i].0 == now {
            busy += events[i].1;
            running += events[i].2;
            queued += events[i].3;
            i += 1;
        }
        let step = TimelineStep {
            time: now,
            busy: busy as u64,
            running: running as u32,
            queued: queued as u32,
        };
        if steps
            .last()
            .is_none_or(|s| (s.busy, s.running, s.queued) != (step.busy, step.running, step.queued))
        {
            steps.push(step);
        }
    }
    steps
}

/// Writes `steps` as CSV ([`TIMELINE_CSV_HEADER`]; utilisation = busy / `procs`), and on
/// a machine with a power model its power at each step (`power_kw`, from
/// `crate::energy::power_over_time`).
pub fn write_timeline_csv<W: Write>(
    mut out: W,
    steps: &[TimelineStep],
    procs: u32,
    power: Option<&[(Time, f64)]>,
) -> std::io::Result<()> {
    match power {
        Some(_) => writeln!(out, "{TIMELINE_CSV_HEADER},power_kw")?,
        None => writeln!(out, "{TIMELINE_CSV_HEADER}")?,
    }
    // The power's steps fall on the timeline's instants (starts and ends): at each step,
    // the last power step at or before it.
    let mut at = 0;
    for s in steps {
        write!(
            out,
            "{},{:.6},{},{},{}",
            s.time,
            s.busy as f64 / procs as f64,
            s.busy,
            s.running,
            s.queued
        )?;
        match power {
            Some(power) => {
                while at + 1 < power.len() && power[at + 1].0 <= s.time {
                    at += 1;
                }
                writeln!(out, ",{:.6}", power[at].1 / 1e3)?;
            }
            None => writeln!(out)?,
        }
    }
    out.flush()
}

/// Time-weighted means over one bin of time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bin {
    /// The bin's centre.
    pub time: f64,
    pub busy: f64,
    pub running: f64,
    pub queued: f64,
}

/// Time-weighted means over `bins` equal bins from the first step to the last. Empty for
/// fewer than two steps.
pub fn binned(steps: &[TimelineStep], bins: usize) -> Vec<Bin> {
    let points: Vec<(Time, [f64; 3])> = steps
        .iter()
        .map(|s| (s.time, [s.busy as f64, s.running as f64, s.queued as f64]))
        .collect();
    time_weighted(&points, bins)
        .into_iter()
        .map(|(time, [busy, running, queued])| Bin {
            time,
            busy,
            running,
            queued,
        })
        .collect()
}

/// A step function's time-weighted means over `bins` equal bins from its first point to
/// its last, each bin as its centre and mean; each point's value holds until the next
/// point's time. Empty for fewer than two points.
pub fn binned_values(points: &[(Time, f64)], bins: usize) -> Vec<(f64, f64)> {
    let points: Vec<(Time, [f64; 1])> = points.iter().map(|&(t, v)| (t, [v])).collect();
    time_weighted(&points, bins)
        .into_iter()
        .map(|(time, [v])| (time, v))
        .collect()
}

/// Time-weighted means of `N` step functions sharing their steps (see [`binned_values`]).
fn time_weighted<const N: usize>(points: &[(Time, [f64; N])], bins: usize) -> Vec<(f64, [f64; N])> {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return Vec::new();
    };
    let (t0, t1) = (first.0 as f64, last.0 as f64);
    if t1 <= t0 || bins == 0 {
        return Vec::new();
    }
    let width = (t1 - t0) / bins as f64;
    let mut sums = vec![[0.0; N]; bins];
    for w in points.windows(2) {
        let ((time, values), next) = (&w[0], w[1].0 as f64);
        let mut a = *time as f64;
        // Spread the step over the bins it covers.
        while a < next {
            let mut b = (((a - t0) / width) as usize).min(bins - 1);
            // At a bin's edge, rounding may give the bin before: the bin `a` lies in is the
            // one whose end is past it (the last bin's end is the last step's time).
            while b + 1 < bins && t0 + (b + 1) as f64 * width <= a {
                b += 1;
            }
            let bin_end = if b + 1 == bins {
                next
            } else {
                (t0 + (b + 1) as f64 * width).min(next)
            };
            for (sum, v) in sums[b].iter_mut().zip(values) {
                *sum += (bin_end - a) * v;
            }
            a = bin_end;
        }
    }
    sums.iter()
        .enumerate()
        .map(|(b, s)| (t0 + (b as f64 + 0.5) * width, s.map(|v| v / width)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::JobRecord;

    /// A value that holds over the whole span has that mean in every bin, whatever the
    /// rounding of the bins' edges (400 bins of a span that is no multiple of 400: before,
    /// a step crossing an edge that rounding put in the bin before was dropped from there
    /// on, and bins read 0).
    #[test]
    fn a_constant_value_fills_every_bin() {
        for (t1, bins) in [(1_556_297, 400), (7, 3), (1_000, 7)] {
            let points = [(0, 9.5), (t1 / 3, 9.5), (t1, 9.5)];
            let binned = binned_values(&points, bins);
            assert_eq!(binned.len(), bins);
            for (t, v) in binned {
                assert!((v - 9.5).abs() < 1e-9, "{v} at {t} (span {t1}, {bins} bins)");
            }
        }
    }

    #[test]
    fn steps_by_hand() {
        // Job 1: 2 procs, submit 0, runs 0..10. Job 2: 3 procs, submit 5, waits to 10, runs
        // 10..20. Job 3: 1 proc, submit 10, runs 10..12.
        let records = [
            JobRecord::new(1, 0, 10, 2, 10),
            JobRecord::new(2, 5, 10, 3, 10),
            JobRecord::new(3, 10, 2, 1, 2),
        ];
        let jobs = Jobs::from_records(&records);
        let steps = timeline(&jobs, &[0, 10, 10], &[10, 20, 12]);
        let step = |time, busy, running, queued| TimelineStep {
            time,
            busy,
            running,
            queued,
        };
        assert_eq!(
            steps,
            [
                step(0, 2, 1, 0),
                step(5, 2, 1, 1),
                step(10, 4, 2, 0),
                step(12, 3, 1, 0),
                step(20, 0, 0, 0)
            ]
        );
        let mut csv = Vec::new();
        write_timeline_csv(&mut csv, &steps, 4, None).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        assert_eq!(csv.lines().nth(3).unwrap(), "10,1.000000,4,2,0");
        // Two bins over 0..20: busy 2 for 10 s, then 4 for 2 s and 3 for 8 s.
        let b = binned(&steps, 2);
        assert_eq!(b.len(), 2);
        assert!(
            (b[0].busy - 2.0).abs() < 1e-12 && (b[1].busy - 3.2).abs() < 1e-12,
            "{b:?}"
        );
        assert!((b[0].queued - 0.5).abs() < 1e-12, "queued 1 for 5 of 10 s: {b:?}");
    }
}
