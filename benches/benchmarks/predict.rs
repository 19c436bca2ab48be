//! Cost of each runtime predictor per hook call, on a real trace (KTH-SP2, skipped when
//! absent; the Downey model otherwise): every job's arrival and termination hooks, called
//! in the order and with the times of an EASY schedule, outside the engine. The per-run
//! `reset` (SBH interns every job's similarity groups there) is left out of the timing.

use std::path::Path;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group};

use schedlab::Time;
use schedlab::predict::{AnyPredictor, PredictorKind};
use schedlab::sched::SchedulerKind;
use schedlab::sim::{Engine, PredictorView, RuntimePredictor};
use schedlab::workload::JobId;
use schedlab::workload::swf::{SwfOptions, read_swf};
use schedlab::workload::synth::DowneyParams;
use schedlab::workload::synth::ModelEntry;

fn predict(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz");
    let (name, w) = match read_swf(&path, &SwfOptions::default()) {
        Ok(w) => ("kth-sp2", w),
        Err(e) => {
            eprintln!("SKIPPED kth-sp2 ({e}): using the Downey model");
            ("downey-30d", DowneyParams::default().generate(1))
        }
    };
    let mut engine = Engine::new().with_validation(false);
    let o = SchedulerKind::Easy.build().run(&mut engine, &w.jobs, w.procs);
    let (start, end) = (o.start.to_vec(), o.end.to_vec());
    // Hook calls in time order: (time, is_arrival, job); terminations first at a tie.
    let mut calls: Vec<(Time, bool, u32)> = (0..w.jobs.len() as u32)
        .flat_map(|j| [(w.jobs.submit[j as usize], true, j), (end[j as usize], false, j)])
        .collect();
    calls.sort_by_key(|&(t, arrival, j)| (t, arrival, j));
    let prediction: Vec<Time> = w.jobs.estimate.clone();
    let mut group = c.benchmark_group("predictor-hooks");
    group.throughput(Throughput::Elements(calls.len() as u64));
    for spec in [
        "estimate",
        "perfect",
        "constant(c=1)",
        "ruh(k=3,stat=median,prop=false)",
        "ruh(k=3,stat=median,prop=true)",
        "sbh(criteria=PE|P|E|*,search=dfs,depth=unlimited,prop=true,think=1200)",
        "sbh(criteria=E|P|X,search=dfs,depth=unlimited,prop=true,think=1200)",
        "sbh(criteria=PE|P|E|*,search=bfs,depth=unlimited,prop=false,think=1200)",
        "sbh-noest(criteria=PX|P|X|*,search=dfs,depth=unlimited,prop=false,think=1200,growth=balanced,cap=100000)",
    ] {
        let kind: PredictorKind = spec.parse().unwrap();
        let mut updates = Vec::with_capacity(1024);
        let fresh = || {
            let mut predictor = AnyPredictor::new(kind);
            predictor.reset(&w.jobs);
            predictor
        };
        group.bench_function(BenchmarkId::new(spec.replace('|', "/"), name), |b| {
            b.iter_batched_ref(
                fresh,
                |predictor| {
                    let mut sum = 0;
                    for &(now, arrival, j) in &calls {
                        let view = PredictorView {
                            now,
                            jobs: &w.jobs,
                            start: &start,
                            prediction: &prediction,
                        };
                        if arrival {
                            sum += predictor.on_arrival(JobId(j), &view);
                        } else {
                            predictor.on_termination(JobId(j), &view, &mut updates);
                            updates.clear();
                        }
                    }
                    sum
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, predict);
