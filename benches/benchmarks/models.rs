//! Workload generation: 100,000 jobs of the Lublin-Feitelson model (target under 20 ms),
//! with exact and with Tsafrir estimates, the Downey model for comparison, and user-based
//! resampling of a 100,000-job trace (target under 50 ms).

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group};

use schedlab::workload::estimates::EstimateModel;
use schedlab::workload::resample::UserResampling;
use schedlab::workload::synth::ModelEntry;
use schedlab::workload::synth::{DowneyParams, LublinParams};
use schedlab::workload::{JobRecord, Jobs};

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
    // A year of 100,000 jobs from 1,000 users: user u submits from week u % 52 for
    // 1 + u % 40 weeks, so about a third are long-term.
    let trace = {
        let mut records = Vec::with_capacity(JOBS);
        for i in 0..JOBS {
            let user = (i * 7919) % 1000;
            let first = (user % 52) as i64;
            let weeks = 1 + (user % 40) as i64;
            let t = (first + (i as i64 * 31) % weeks).min(51) * 604_800 + (i as i64 * 104_729) % 604_800;
            let mut r = JobRecord::new(i as u64 + 1, t, 60 + (i % 5000) as i64, 1 + (i % 64) as u32, 7200);
            r.user = user as i32;
            records.push(r);
        }
        Jobs::from_records(&records)
    };
    let users = UserResampling::default();
    group.bench_function("resample-users-100k", |b| {
        b.iter(|| users.resample(&trace, 7).len())
    });
    group.finish();
}

criterion_group!(benches, models);
