//! Simulation throughput of each scheduler, workload already in memory, reported as jobs/s.
//! Real traces come from `../shared/traces` and are skipped when absent.

use std::path::Path;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};

use schedlab::sched::SchedulerKind;
use schedlab::sim::Engine;
use schedlab::workload::Workload;
use schedlab::workload::swf::{SwfOptions, read_swf};
use schedlab::workload::synth::DowneyParams;
use schedlab::workload::synth::ModelEntry;

fn workloads() -> Vec<(String, Workload)> {
    let mut out = vec![(
        "downey-120d".to_string(),
        DowneyParams {
            days: 120,
            ..DowneyParams::default()
        }
        .generate(1),
    )];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
    for (name, file) in [
        ("ctc-sp2", "CTC-SP2-1996-3.1-cln.swf.gz"),
        ("kth-sp2", "KTH-SP2-1996-2.1-cln.swf.gz"),
    ] {
        let path = dir.join(file);
        match read_swf(&path, &SwfOptions::default()) {
            Ok(w) => out.push((name.to_string(), w)),
            Err(e) => eprintln!("SKIPPED {name}: {e}"),
        }
    }
    out
}

fn simulate(c: &mut Criterion) {
    let workloads = workloads();
    let mut group = c.benchmark_group("simulate");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, w) in &workloads {
        group.throughput(Throughput::Elements(w.jobs.len() as u64));
        for kind in SchedulerKind::on_any_jobs() {
            if kind == SchedulerKind::Conservative {
                group.sample_size(10);
            } else {
                group.sample_size(30);
            }
            let mut engine = Engine::new().with_validation(false);
            let mut scheduler = kind.build();
            group.bench_with_input(BenchmarkId::new(kind.name(), name), w, |b, w| {
                b.iter(|| scheduler.run(&mut engine, &w.jobs, w.procs).passes)
            });
        }
    }
    group.finish();
}

criterion_group!(benches, simulate);
