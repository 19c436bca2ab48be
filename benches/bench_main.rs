//! Criterion benches: `cargo bench --bench bench_main [FILTER]`.

use criterion::criterion_main;

mod benchmarks;

criterion_main!(
    benchmarks::cisne::benches,
    benchmarks::engine::benches,
    benchmarks::ga::benches,
    benchmarks::machine::benches,
    benchmarks::models::benches,
    benchmarks::predict::benches,
    benchmarks::queue_time::benches,
    benchmarks::sweep::benches,
    benchmarks::swf::benches
);
