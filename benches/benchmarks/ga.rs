//! One GA decision (Lee & Snavely; population 20, 100 generations: 1,920 fitness
//! evaluations) against the queue length, on 1 and 2 threads; and, for a queue of 50, the
//! island variant of about the same evaluations (4 islands of 20 over 25 generations: 1,980),
//! whose generations are 4 times wider. The machine is a snapshot of
//! SDSC-BLUE-like work, seeded: 1152 processors, running jobs of 8-128 processors ending
//! within 10 h on all but 100; waiting jobs of 8-256 processors requesting 5 min to
//! 18 h, with generated utility functions.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

use schedlab::Time;
use schedlab::sched::{Ga, GaParams};
use schedlab::utility::UtilityModel;
use schedlab::workload::{JobId, JobRecord, Jobs};

const PROCS: u32 = 1152;

/// `q` waiting jobs with utility functions, and the running set.
fn snapshot(q: usize) -> (Jobs, Vec<(Time, u32)>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(q as u64);
    let mut below = |n: u64| rng.next_u64() % n;
    let records: Vec<JobRecord> = (0..q)
        .map(|i| {
            let request = 300 + below(18 * 3600) as Time;
            let mut r = JobRecord::new(
                i as u64 + 1,
                below(3600) as Time,
                request / 2,
                8 << below(6),
                request,
            );
            r.recorded_wait = below(7200) as i32;
            r
        })
        .collect();
    let mut jobs = Jobs::from_records(&records);
    let priority: Vec<u16> = (0..q).map(|i| (i % 6) as u16).collect();
    let (u, _) = UtilityModel::default().generate(&jobs, &priority, 6, 1);
    jobs.priority = Some(priority);
    jobs.utility = Some(u);
    // Running jobs fill all but 100 processors.
    let mut running: Vec<(Time, u32)> = Vec::new();
    let mut used = 0;
    while used < PROCS - 100 {
        let size = (8u32 << below(5)).min(PROCS - 100 - used);
        running.push((3600 + below(36_000) as Time, size));
        used += size;
    }
    running.sort_unstable();
    (jobs, running)
}

fn ga_decision(c: &mut Criterion) {
    let mut group = c.benchmark_group("ga-decision");
    group.sample_size(20);
    let islands = GaParams {
        islands: 4,
        generations: 25,
        ..GaParams::DEFAULT
    };
    for (q, name, params) in [
        (10, "queue-10", GaParams::DEFAULT),
        (50, "queue-50", GaParams::DEFAULT),
        (50, "queue-50-islands-4x25", islands),
        (200, "queue-200", GaParams::DEFAULT),
    ] {
        let (jobs, running) = snapshot(q);
        let waiting: Vec<JobId> = jobs.ids().collect();
        let free = PROCS - running.iter().map(|r| r.1).sum::<u32>();
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut ga = Ga::new(params);
            group.bench_function(BenchmarkId::new(name, format!("{threads}-threads")), |b| {
                pool.install(|| b.iter(|| ga.decide(&jobs, 3600, free, black_box(&running), &waiting).len()))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, ga_decision);
