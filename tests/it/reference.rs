//! Differential tests: the engine against a naive, obviously-correct implementation of the
//! reference semantics (docs/semantics.md), written with none of the engine's shortcuts
//! (no incremental backfill scan, no skipped re-fits, no availability profile).

use crate::common;

use proptest::prelude::*;

use schedlab::Time;
use schedlab::experiment::Simulate;
use schedlab::predict::{PredictorKind, gradual_increment};
use schedlab::sched::SchedulerKind;
use schedlab::sim::Engine;
use schedlab::workload::Jobs;

fn begin(
    jobs: &Jobs,
    j: usize,
    now: Time,
    free: &mut i64,
    running: &mut Vec<usize>,
    start: &mut [Option<Time>],
) {
    assert!(jobs.procs[j] as i64 <= *free);
    *free -= jobs.procs[j] as i64;
    start[j] = Some(now);
    running.push(j);
}

/// Naive simulation; returns each job's start. EASY-family schedulers see user estimates,
/// or with `constant` Some(c) (sjbf and easy-pred only) Talby's constant predictor: c at
/// arrival, and on each miss the gradual increments.
fn naive(jobs: &Jobs, procs: u32, kind: SchedulerKind, constant: Option<Time>) -> Vec<Time> {
    let n = jobs.len();
    let mut prediction: Vec<Time> = (0..n)
        .map(|j| constant.unwrap_or(jobs.estimate[j]).max(1))
        .collect();
    let mut misses = vec![0u32; n];
    let mut start: Vec<Option<Time>> = vec![None; n];
    let mut running: Vec<usize> = Vec::new();
    let mut queue: Vec<usize> = Vec::new();
    let mut reservation: Vec<Time> = vec![0; n];
    let mut arrived = 0;
    let mut free = procs as i64;
    let mut last_now = Time::MIN;
    loop {
        let next_arrival = (arrived < n).then(|| jobs.submit[arrived]);
        let next_end = running.iter().map(|&j| start[j].unwrap() + jobs.runtime[j]).min();
        let next_miss = running
            .iter()
            .filter(|&&j| prediction[j] < jobs.runtime[j])
            .map(|&j| start[j].unwrap() + prediction[j])
            .min();
        let next_reservation = match kind {
            SchedulerKind::Conservative => queue
                .iter()
                .map(|&j| reservation[j])
                .filter(|&r| r > last_now)
                .min(),
            _ => None,
        };
        let Some(now) = [next_arrival, next_end, next_miss, next_reservation]
            .into_iter()
            .flatten()
            .min()
        else {
            break;
        };
        last_now = now;
        running.retain(|&j| {
            let ends = start[j].unwrap() + jobs.runtime[j] == now;
            if ends {
                free += jobs.procs[j] as i64;
            }
            !ends
        });
        for &j in &running {
            let elapsed = now - start[j].unwrap();
            if elapsed == prediction[j] {
                prediction[j] = match constant {
                    Some(_) => prediction[j] + gradual_increment(misses[j] + 1),
                    None => jobs.estimate[j].max(prediction[j] + 1),
                };
                misses[j] += 1;
            }
        }
        let first_new = queue.len();
        while arrived < n && jobs.submit[arrived] == now {
            queue.push(arrived);
            arrived += 1;
        }
        if kind == SchedulerKind::Prio {
            // Priority-FIFO: EASY over the queue in (priority, arrival) order.
            let priority = jobs.priority.as_ref().expect("prio needs priorities");
            queue.sort_by_key(|&j| (priority[j], j));
        }
        match kind {
            SchedulerKind::Ga(_) => unreachable!("the GA is checked against EASY in tests/it/lee_snavely.rs"),
            SchedulerKind::Fcfs
            | SchedulerKind::Easy
            | SchedulerKind::EasyPred
            | SchedulerKind::Sjbf
            | SchedulerKind::Prio => {
                while let Some(&h) = queue.first() {
                    if jobs.procs[h] as i64 > free {
                        break;
                    }
                    begin(jobs, h, now, &mut free, &mut running, &mut start);
                    queue.remove(0);
                }
                if kind == SchedulerKind::Fcfs || queue.is_empty() {
                    continue;
                }
                let head = queue[0];
                let mut ends: Vec<(Time, usize)> = running
                    .iter()
                    .map(|&j| (start[j].unwrap() + prediction[j], j))
                    .collect();
                ends.sort();
                let need = jobs.procs[head] as i64;
                let shadow = {
                    let mut avail = free;
                    ends.iter()
                        .find(|&&(_, j)| {
                            avail += jobs.procs[j] as i64;
                            avail >= need
                        })
                        .unwrap()
                        .0
                };
                let at_shadow: i64 = ends
                    .iter()
                    .filter(|e| e.0 <= shadow)
                    .map(|e| jobs.procs[e.1] as i64)
                    .sum();
                let mut extra = free + at_shadow - need;
                let mut candidates: Vec<usize> = queue[1..].to_vec();
                if kind == SchedulerKind::Sjbf {
                    candidates.sort_by_key(|&j| (prediction[j], j));
                }
                for j in candidates {
                    let p = jobs.procs[j] as i64;
                    if p > free {
                        continue;
                    }
                    if now + prediction[j] <= shadow {
                        begin(jobs, j, now, &mut free, &mut running, &mut start);
                    } else if p <= extra {
                        extra -= p;
                        begin(jobs, j, now, &mut free, &mut running, &mut start);
                    }
                }
                queue.retain(|&j| start[j].is_none());
            }
            SchedulerKind::Conservative => {
                // Free processors at instant t, leaving job `skip`'s reservation out.
                let free_at =
                    |t: Time, skip: usize, queue: &[usize], reservation: &[Time], running: &[usize]| {
                        let busy_running: i64 = running
                            .iter()
                            .filter(|&&j| start[j].unwrap() <= t && t < start[j].unwrap() + jobs.estimate[j])
                            .map(|&j| jobs.procs[j] as i64)
                            .sum();
                        let busy_reserved: i64 = queue
                            .iter()
                            .filter(|&&j| {
                                j != skip && reservation[j] <= t && t < reservation[j] + jobs.estimate[j]
                            })
                            .map(|&j| jobs.procs[j] as i64)
                            .sum();
                        procs as i64 - busy_running - busy_reserved
                    };
                let fit = |j: usize, queue: &[usize], reservation: &[Time], running: &[usize]| -> Time {
                    let (p, d) = (jobs.procs[j] as i64, jobs.estimate[j]);
                    let mut t = now;
                    loop {
                        let ok = if d == 0 {
                            free_at(t, j, queue, reservation, running) >= p
                        } else {
                            (t..t + d).all(|u| free_at(u, j, queue, reservation, running) >= p)
                        };
                        if ok {
                            return t;
                        }
                        t += 1;
                    }
                };
                // Re-fit every waiting job at every pass, in arrival order.
                for i in 0..first_new {
                    let j = queue[i];
                    reservation[j] = fit(j, &queue[..first_new], &reservation, &running);
                }
                for i in first_new..queue.len() {
                    let j = queue[i];
                    reservation[j] = fit(j, &queue[..i], &reservation, &running);
                }
                for zero in [true, false] {
                    for &j in &queue {
                        if reservation[j] == now
                            && (jobs.estimate[j] == 0) == zero
                            && jobs.procs[j] as i64 <= free
                        {
                            begin(jobs, j, now, &mut free, &mut running, &mut start);
                        }
                    }
                }
                queue.retain(|&j| start[j].is_none());
            }
        }
    }
    start.into_iter().map(|s| s.expect("every job started")).collect()
}

fn workload() -> impl Strategy<Value = (u32, Jobs)> {
    common::random_workload(12, 60)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn engine_matches_the_naive_reference((procs, jobs) in workload()) {
        let mut engine = Engine::new().with_validation(true);
        for kind in SchedulerKind::on_any_jobs() {
            let expected = naive(&jobs, procs, kind, None);
            let got = kind.build().run(&mut engine, &jobs, procs).start.to_vec();
            prop_assert_eq!(got, expected, "{}", kind);
        }
    }

    /// Priority-FIFO with random priorities: the reference's EASY over the queue sorted by
    /// (priority, arrival).
    #[test]
    fn prio_matches_the_naive_reference((procs, mut jobs) in workload(), seed in 0u64..1_000_000) {
        let priority: Vec<u16> = (0..jobs.len() as u64)
            .map(|j| (schedlab::seed::mix64(seed ^ j) % 3) as u16)
            .collect();
        jobs.priority = Some(priority);
        let expected = naive(&jobs, procs, SchedulerKind::Prio, None);
        let got = SchedulerKind::Prio.build().run(&mut Engine::new().with_validation(true), &jobs, procs).start.to_vec();
        prop_assert_eq!(got, expected);
    }

    /// Predictions that change while jobs run (each deadline miss moves a shadow and may
    /// reorder SJBF's candidates): the constant predictor, whose answers the reference can
    /// compute on its own.
    #[test]
    fn engine_matches_the_naive_reference_with_deadline_misses((procs, jobs) in workload(), c in 1i64..40) {
        let mut engine = Engine::new().with_validation(true);
        for kind in [SchedulerKind::Sjbf, SchedulerKind::EasyPred] {
            let expected = naive(&jobs, procs, kind, Some(c));
            let got = kind
                .build()
                .simulate(&mut engine, &jobs, procs, Some(PredictorKind::Constant { c }), None)
                .start
                .to_vec();
            prop_assert_eq!(got, expected, "{}", kind);
        }
    }
}
