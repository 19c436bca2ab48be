//! Workload generation: 100,000 jobs of the Lublin-Feitelson model (target under 20 ms),
//! with exact and with Tsafrir estimates, and the Downey model for comparison.

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group};

use schedlab::workload::estimates::EstimateModel;
use schedlab::workload::synth::{DowneyParams, LublinParams};

fn models(c: &mut Criterion) {
    const JOBS: usize = 100_000;
    let mut group = c.benchmark_group("models");
    group.sample_size(20).measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Elements(JOBS as u64));
    let lublin = LublinParams {
        jobs: JOBS,
        load: Some(0.8),
        ..LublinParams::default()
    };
    group.bench_function("lublin-100k", |b| b.iter(|| lublin.generate(7).jobs.len()));
    let tsafrir = LublinParams {
        estimates: EstimateModel::parse("tsafrir").unwrap(),
        ..lublin.clone()
    };
    group.bench_function("lublin-tsafrir-100k", |b| {
        b.iter(|| tsafrir.generate(7).jobs.len())
    });
    let downey = DowneyParams {
        jobs: Some(JOBS),
        ..DowneyParams::default()
    };
    group.bench_function("downey-100k", |b| b.iter(|| downey.generate(7).jobs.len()));
    group.finish();
}

criterion_group!(benches, models);
