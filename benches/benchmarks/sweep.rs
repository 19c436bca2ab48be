//! Sweep throughput (replications/s) on the synthetic model with 1 and 2 threads; the
//! ratio gives the parallel efficiency. Outputs go to a temporary folder.

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
        };
        group.bench_with_input(
            BenchmarkId::new("downey-64-replications", threads),
            &options,
            |b, o| b.iter(|| run_sweep(&plan, o).unwrap().tasks_run),
        );
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, sweep);
