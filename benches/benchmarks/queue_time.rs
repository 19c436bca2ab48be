//! Cost of one queue-time prediction against the number of running jobs p (Downey 1997,
//! section 3): predictors A and B, the exact median by dynamic programming, and by the
//! paper's enumeration of 2^p outcomes for small p. Machine states are random but seeded:
//! ages uniform-log on [1 s, e^11 s], sizes 1 to 16, 4 processors free, and a request 8
//! beyond them (about half the jobs are benefactors). Then one whole PRED decision: the
//! cluster size up to A = 128 minimising predicted queue time plus run time, for a short and
//! a long job (sigma = 1), over 128 running jobs.

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

use schedlab::queue_time::{QueueMethod, RunningAges, UniformLog, choose_cluster_size};
use schedlab::speedup::downey_speedup;

fn machine(p: usize) -> RunningAges {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(p as u64);
    let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let ages: Vec<f64> = (0..p).map(|_| (11.0 * unit()).exp()).collect();
    let sizes: Vec<u32> = (0..p).map(|_| 1 + (16.0 * unit()) as u32).collect();
    let mut set = RunningAges::default();
    set.load(UniformLog::downey_model(), 4, &ages, &sizes);
    set
}

/// The request: 8 processors beyond the 4 free.
const REQUEST: u32 = 12;

fn queue_time(c: &mut Criterion) {
    let mut group = c.benchmark_group("queue-time");
    for p in [8, 32, 128, 512, 2048] {
        let mut set = machine(p);
        group.bench_function(BenchmarkId::new("a", p), |b| {
            b.iter(|| black_box(&mut set).a(REQUEST))
        });
        group.bench_function(BenchmarkId::new("b", p), |b| {
            b.iter(|| black_box(&mut set).b(REQUEST))
        });
        if p <= 512 {
            group.bench_function(BenchmarkId::new("exact-dp", p), |b| {
                b.iter(|| black_box(&mut set).exact(REQUEST))
            });
        }
    }
    for p in [8, 12, 16] {
        let set = machine(p);
        group.bench_function(BenchmarkId::new("exact-enumeration", p), |b| {
            b.iter(|| black_box(&set).exact_by_enumeration(REQUEST))
        });
    }
    for (label, lifetime) in [("short-e6", 6f64.exp()), ("long-e10", 10f64.exp())] {
        for method in [QueueMethod::Combined, QueueMethod::Exact, QueueMethod::Simulation] {
            let run = |n: u32| lifetime / downey_speedup(128.0, 1.0, n as f64);
            // Each decision on a fresh copy of the loaded state, so the simulation kernel
            // sorts its projection every time, as after every load in a run.
            let fresh = machine(128);
            group.bench_function(BenchmarkId::new(format!("decision-{method}"), label), |b| {
                b.iter_batched_ref(
                    || fresh.clone(),
                    |s| choose_cluster_size(black_box(s), method, 128, run),
                    BatchSize::SmallInput,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, queue_time);
