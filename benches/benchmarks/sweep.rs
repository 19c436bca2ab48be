//! Sweep throughput (replications/s) on the synthetic models with 1 and 2 threads; the
//! ratio gives the parallel efficiency. `downey-64-replications`: equal cells, a fixed
//! count. `mixed-sequential`: cells of very different cost (FCFS, EASY and conservative
//! backfilling, one load far from saturation and one near it) under sequential stopping,
//! where a runner that waits for every cell's batch before deciding leaves cores idle.
//! Outputs go to a temporary folder.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};

use schedlab::sweep::{Plan, RunOptions, run_sweep};

const SPEC: &str = r#"
name = "bench"
metrics = ["mean_wait", "mean_bsld", "utilization"]
[run]
model = "downey"
procs = 128
days = 30
[axes]
load = [0.5, 0.8]
scheduler = ["easy", "sjbf"]
[replications]
count = 16
"#;

const MIXED: &str = r#"
name = "mixed"
metrics = ["mean_bsld"]
[run]
model = "lublin"
procs = 128
jobs = 30000
[axes]
load = [0.3, 0.7]
scheduler = ["fcfs", "easy", "conservative"]
[replications]
min = 4
max = 24
batch = 4
target = 0.2
metric = "mean_bsld"
"#;

fn sweep(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("schedlab-bench-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plan = Plan::from_str(SPEC, &dir.join("bench.toml"), &dir, "bench").unwrap();
    let replications = 4 * 16;
    let mut group = c.benchmark_group("sweep");
    group.sample_size(20).measurement_time(Duration::from_secs(8));
    group.throughput(Throughput::Elements(replications));
    for threads in [1usize, 2] {
        let options = RunOptions {
            threads: Some(threads),
            out: dir.join(format!("t{threads}")),
            shard: None,
            resume: false,
            force: false,
            quiet: true,
            cancel: None,
        };
        group.bench_with_input(
            BenchmarkId::new("downey-64-replications", threads),
            &options,
            |b, o| b.iter(|| run_sweep(&plan, o).unwrap().tasks_run),
        );
    }
    let mixed = Plan::from_str(MIXED, &dir.join("mixed.toml"), &dir, "mixed").unwrap();
    for threads in [1usize, 2] {
        let options = RunOptions {
            threads: Some(threads),
            out: dir.join(format!("m{threads}")),
            shard: None,
            resume: false,
            force: false,
            quiet: true,
            cancel: None,
        };
        group.bench_with_input(BenchmarkId::new("mixed-sequential", threads), &options, |b, o| {
            b.iter(|| run_sweep(&mixed, o).unwrap().tasks_run)
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, sweep);
