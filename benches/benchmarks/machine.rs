//! Simulation throughput on machines of nodes (`sched::nodes`: cores, memory and GPUs per
//! node, partitions), jobs/s, workload already in memory. Real traces come from
//! `../shared/traces` and are skipped when absent.

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};

use schedlab::experiment::rigid;
use schedlab::experiment::{Params, Shared, Value, Worker};
use schedlab::sim::Engine;

/// SDSC-Par's two partitions as its header gives them (48 interactive and 352 batch
/// one-core nodes), each node also describing memory and a GPU: the log's jobs ask for
/// neither, so cores bind, on a machine of three resources.
const SDSC_PAR_THREE_RESOURCES: &str = "\
[[partition]]\nname = \"interactive\"\nswf = [1]\n\
[[partition.nodes]]\ncount = 48\ncores = 1\nmemory_gb = 0.25\ngpus = 1\n\
[[partition]]\nname = \"batch\"\nswf = [2]\n\
[[partition.nodes]]\ncount = 352\ncores = 1\nmemory_gb = 0.25\ngpus = 1\n";

/// LANL's CM-5 as 1,024 one-core nodes of 32 MB: the log's memory requests bind.
const LANL_CM5_MEMORY: &str = "\
[[partition]]\nname = \"all\"\ndefault = true\n\
[[partition.nodes]]\ncount = 1024\ncores = 1\nmemory_gb = 0.03125\n";

/// A machine file written from `text`, for the experiment's parameters.
fn machine_file(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("schedlab-bench-{name}-{}.toml", std::process::id()));
    std::fs::write(&path, text).expect("a temporary machine file");
    path
}

fn simulate(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let traces = root.join("../shared/traces");
    let cases = [
        (
            "sdsc-par-2-partitions-3-resources",
            "SDSC-Par-1996-3.1-cln.swf.gz",
            machine_file("sdsc-par", SDSC_PAR_THREE_RESOURCES),
            None,
        ),
        (
            "sdsc-blue-gpus-0.1",
            "SDSC-BLUE-2000-4.2-cln.swf.gz",
            root.join("examples/machines/sdsc-blue-gpu.toml"),
            Some(0.1),
        ),
        (
            "lanl-cm5-memory",
            "LANL-CM5-1994-4.1-cln.swf.gz",
            machine_file("lanl-cm5", LANL_CM5_MEMORY),
            None,
        ),
    ];
    let mut group = c.benchmark_group("machine");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6))
        .sample_size(10);
    for (name, trace, machine, gpu_share) in &cases {
        let trace = traces.join(trace);
        if !trace.exists() {
            eprintln!("SKIPPED {name}: {} is absent", trace.display());
            continue;
        }
        for scheduler in ["easy", "sjbf"] {
            let mut params = Params::default();
            params.insert("trace", Value::Str(trace.display().to_string()));
            params.insert("machine", Value::Str(machine.display().to_string()));
            params.insert("scheduler", Value::Str(scheduler.into()));
            if let Some(share) = gpu_share {
                params.insert("gpu_share", Value::Float(*share));
            }
            let rigid = rigid::from_params(&params, schedlab::experiment::Sources::default(), None)
                .expect("a valid experiment");
            let prepared = rigid.prepare(&mut Shared::default(), None).expect("prepared");
            let workload = prepared.workload.draw(1).expect("a workload");
            let mut worker = Worker::with_engine(Engine::new().with_validation(false));
            group.throughput(Throughput::Elements(workload.jobs.len() as u64));
            group.bench_with_input(BenchmarkId::new(scheduler, *name), &workload, |b, w| {
                b.iter(|| prepared.simulate(&mut worker, w, 1).events)
            });
        }
    }
    group.finish();
    for (_, _, machine, _) in &cases {
        if machine.starts_with(std::env::temp_dir()) {
            std::fs::remove_file(machine).ok();
        }
    }
}

criterion_group!(benches, simulate);
