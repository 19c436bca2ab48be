//! Criterion benches: `cargo bench --bench bench_main [FILTER]`.

use criterion::criterion_main;

mod benchmarks;

criterion_main!(
    benchmarks::engine::benches,
    benchmarks::predict::benches,
    benchmarks::sweep::benches
);
