//! Workloads that record no memory or GPUs on a machine of nodes: a workload model on a
//! machine runs in its default partition, sized by it, and where nothing binds it is the
//! model on a pool of those cores, job for job; memory drawn per job (`memory_pressure`)
//! follows its log-normal rule, grows in proportion to the pressure on the same jobs, is
//! capped at what the nodes hold, and where it binds exactly as a smaller pool would, gives
//! that pool's schedule.

use crate::common;

use std::path::{Path, PathBuf};

use schedlab::experiment::rigid::{self, Rigid};
use schedlab::experiment::{Params, Shared, Value, Worker};
use schedlab::sim::Engine;
use schedlab::workload::Workload;

/// The rigid experiment of `params`, or why it is refused.
fn built(params: &[(&str, Value)]) -> Result<Rigid, String> {
    let mut p = Params::default();
    for (k, v) in params {
        p.insert(*k, v.clone());
    }
    rigid::from_params(&p, schedlab::experiment::Sources::default(), None).map_err(|e| e.to_string())
}

/// Replication `seed`'s jobs of `params`.
fn drawn(params: &[(&str, Value)], seed: u64) -> Workload {
    let rigid = built(params).unwrap_or_else(|e| panic!("{e}"));
    let prepared = rigid
        .prepare(&mut Shared::new([&rigid.workload], false), None)
        .unwrap();
    prepared.workload.draw(seed).unwrap().into_owned()
}

/// Replication `seed` of `params`: each job's SWF number, start and end, and the run's
/// core and memory utilisation.
fn schedule(params: &[(&str, Value)], seed: u64) -> (Vec<(u64, i64, i64)>, f64, Option<f64>) {
    let rigid = built(params).unwrap_or_else(|e| panic!("{e}"));
    let prepared = rigid
        .prepare(&mut Shared::new([&rigid.workload], false), None)
        .unwrap();
    let workload = prepared.workload.draw(seed).unwrap();
    let mut worker = Worker::with_engine(Engine::new().with_validation(true));
    let outcome = prepared.simulate(&mut worker, &workload, seed);
    let jobs = &workload.jobs;
    let summary = prepared.summarise(jobs, workload.procs, &outcome, 0..jobs.len(), &workload.skipped);
    let times = (0..jobs.len())
        .map(|j| (jobs.swf_id[j], outcome.start[j], outcome.end[j]))
        .collect();
    (times, summary.utilization, summary.memory_utilization)
}

/// A machine file of one default partition of `count` nodes of `cores` cores and
/// `memory_gb` each, as the value of `machine`.
fn machine(dir: &Path, count: u32, cores: u32, memory_gb: f64) -> Value {
    Value::Str(machine_file(dir, count, cores, memory_gb).display().to_string())
}

/// The file [`machine`] names.
fn machine_file(dir: &Path, count: u32, cores: u32, memory_gb: f64) -> PathBuf {
    let path = dir.join(format!("nodes-{count}-{cores}-{memory_gb}.toml"));
    std::fs::write(
        &path,
        format!(
            "[[partition]]\nname = \"all\"\ndefault = true\n\
             [[partition.nodes]]\ncount = {count}\ncores = {cores}\nmemory_gb = {memory_gb}\n"
        ),
    )
    .unwrap();
    path
}

/// KB per GB, as machine files count memory.
const KB_PER_GB: f64 = 1024.0 * 1024.0;

/// A model on a machine of nodes whose memory nothing asks for runs as the model on a pool
/// of the machine's cores: the same jobs (the model sized by the machine), the same
/// schedules, under every scheduler the two share job for job.
#[test]
fn a_model_on_a_machine_is_the_model_on_its_cores() {
    let dir = common::scratch("drawn-model-pool");
    let nodes = machine(&dir, 32, 8, 32.0);
    for model in ["lublin", "downey"] {
        for scheduler in ["fcfs", "easy", "sjbf"] {
            let common = [
                ("model", Value::Str(model.into())),
                ("scheduler", Value::Str(scheduler.into())),
                ("jobs", Value::Int(2000)),
            ];
            let on = |extra: (&'static str, Value)| {
                let mut params = common.to_vec();
                params.push(extra);
                schedule(&params, 3)
            };
            let pool = on(("procs", Value::Int(256)));
            let on_nodes = on(("machine", nodes.clone()));
            assert_eq!(on_nodes.0, pool.0, "{model} {scheduler}");
            assert!(on_nodes.0.len() > 1000, "{model}: {} jobs", on_nodes.0.len());
            // Pressure 0: every job asks no memory, so nothing changes.
            let mut none = common.to_vec();
            none.extend([("machine", nodes.clone()), ("memory_pressure", Value::Float(0.0))]);
            assert_eq!(schedule(&none, 3).0, pool.0, "{model} {scheduler} at pressure 0");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Memory per processor is log-normal around the pressure times the nodes' memory per
/// core, drawn once per job and seed: twice the pressure, twice each job's memory; another
/// seed, other draws.
#[test]
fn memory_is_drawn_log_normal_in_proportion_to_the_pressure() {
    let dir = common::scratch("drawn-memory-rule");
    // 4 GB per core; at pressure 0.05 and sigma 0.5 no processor asks near a node's 32 GB.
    let nodes = machine(&dir, 32, 8, 32.0);
    let at = |pressure: f64, seed: u64| -> Vec<i32> {
        let params = [
            ("model", Value::Str("lublin".into())),
            ("scheduler", Value::Str("easy".into())),
            ("machine", nodes.clone()),
            ("memory_pressure", Value::Float(pressure)),
            ("memory_sigma", Value::Float(0.5)),
        ];
        drawn(&params, seed).jobs.requested_memory
    };
    let low = at(0.05, 1);
    let per_core = 4.0 * KB_PER_GB;
    let mut logs: Vec<f64> = low.iter().map(|&m| (m as f64 / (0.05 * per_core)).ln()).collect();
    logs.sort_by(f64::total_cmp);
    let n = logs.len() as f64;
    let median = logs[logs.len() / 2];
    let mean = logs.iter().sum::<f64>() / n;
    let sd = (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    assert!(median.abs() < 0.03, "log of the median over its target: {median}");
    assert!((sd - 0.5).abs() < 0.02, "sigma {sd}");
    // The same jobs at twice the pressure: each asks twice (rounded to whole KB).
    let high = at(0.1, 1);
    for (l, h) in low.iter().zip(&high) {
        assert!((*h as i64 - 2 * *l as i64).abs() <= 1, "{l} {h}");
    }
    assert_eq!(low, at(0.05, 1), "the same seed draws the same memory");
    assert_ne!(low, at(0.05, 2), "another seed draws other memory");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// At a pressure where many jobs ask more than the nodes hold, each such job asks the most
/// they hold: its request fits the empty partition, and one KB more per processor would
/// not. Jobs are never skipped for their drawn memory.
#[test]
fn drawn_memory_is_capped_at_what_the_nodes_hold() {
    let dir = common::scratch("drawn-memory-cap");
    let nodes = machine(&dir, 16, 8, 16.0);
    let m = schedlab::machine::Machine::read(&machine_file(&dir, 16, 8, 16.0)).unwrap();
    let at = |pressure: f64| {
        let params = [
            ("model", Value::Str("lublin".into())),
            ("scheduler", Value::Str("easy".into())),
            ("machine", nodes.clone()),
            ("memory_pressure", Value::Float(pressure)),
        ];
        drawn(&params, 5)
    };
    let (light, heavy) = (at(0.01), at(8.0));
    assert_eq!(heavy.jobs.len(), light.jobs.len(), "no job skipped");
    assert_eq!(heavy.skipped.request_exceeds_nodes, 0);
    let mut capped = 0;
    let mut jobs = heavy.jobs.clone();
    for j in 0..jobs.len() {
        let asked = jobs.requested_memory[j];
        let holds = |jobs: &mut schedlab::workload::Jobs, kb: i32| {
            jobs.requested_memory[j] = kb;
            m.partitions[0].holds_when_empty(&m.request(jobs, j))
        };
        assert!(holds(&mut jobs, asked), "job {j} asks {asked} KB it cannot hold");
        // Uncapped, it would ask 800 times its memory at 0.01 (to rounding).
        if (asked as f64) < 800.0 * light.jobs.requested_memory[j] as f64 - 1000.0 {
            capped += 1;
            assert!(
                !holds(&mut jobs, asked + 1),
                "job {j}: capped at {asked} KB, below the most"
            );
        }
        jobs.requested_memory[j] = asked;
    }
    assert!(capped > 100, "{capped} jobs capped");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Memory that binds exactly as a smaller pool: KTH's log (100 processors) on 25 nodes of 8
/// cores and 16 GB, every processor asking 4 GB (pressure 2 of the nodes' 2 GB per core,
/// sigma 0), so that each node holds 4 tasks: 100 task slots, the log's own pool of 100
/// processors. The schedules are that pool's, job for job; memory is then twice as used
/// as the cores, by hand: each task holds 4 GB of its node's 16 GB and 1 of its 8 cores.
#[test]
fn memory_that_halves_the_nodes_is_the_pool_of_half_the_cores() {
    let Some(trace) = common::trace("KTH-SP2-1996-2.1-cln.swf.gz") else {
        return;
    };
    let dir = common::scratch("drawn-memory-halves");
    let nodes = machine(&dir, 25, 8, 16.0);
    let first = if cfg!(debug_assertions) { 2_000 } else { 30_000 };
    for scheduler in ["fcfs", "easy", "sjbf"] {
        let common = [
            ("trace", Value::Str(trace.display().to_string())),
            ("scheduler", Value::Str(scheduler.into())),
            ("first", Value::Int(first)),
        ];
        let pool = schedule(&common, 1);
        let mut bound = common.to_vec();
        bound.extend([
            ("machine", nodes.clone()),
            ("memory_pressure", Value::Float(2.0)),
            ("memory_sigma", Value::Float(0.0)),
        ]);
        let on_nodes = schedule(&bound, 1);
        assert_eq!(on_nodes.0, pool.0, "{scheduler}");
        // The pool's utilisation is over its 100 processors, the machine's over its 200 cores.
        assert!(
            (on_nodes.1 - pool.1 / 2.0).abs() < 1e-9,
            "{} {}",
            on_nodes.1,
            pool.1
        );
        let memory = on_nodes.2.expect("memory described");
        assert!(
            (memory - 2.0 * on_nodes.1).abs() < 1e-9,
            "{memory} {}",
            on_nodes.1
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Memory drawn where it cannot mean anything, or over memory the jobs record, and models
/// on machines that cannot take them, are refused, naming the key.
#[test]
fn drawn_memory_and_models_on_machines_are_refused_where_they_cannot_hold() {
    let dir = common::scratch("drawn-refused");
    let nodes = machine(&dir, 4, 8, 32.0);
    let cores_only = dir.join("cores.toml");
    std::fs::write(
        &cores_only,
        "[[partition]]\nname = \"all\"\ndefault = true\n[[partition.nodes]]\ncount = 4\ncores = 8\n",
    )
    .unwrap();
    let listed = dir.join("listed.toml");
    std::fs::write(
        &listed,
        "[[partition]]\nname = \"all\"\nswf = [1]\n[[partition.nodes]]\ncount = 4\ncores = 8\n",
    )
    .unwrap();
    let lublin = |extra: &[(&'static str, Value)]| {
        let mut params = vec![
            ("model", Value::Str("lublin".into())),
            ("scheduler", Value::Str("easy".into())),
        ];
        params.extend_from_slice(extra);
        built(&params)
            .err()
            .unwrap_or_else(|| panic!("accepted: {extra:?}"))
    };
    let cases: [(Vec<(&'static str, Value)>, &str); 6] = [
        (
            vec![("memory_pressure", Value::Float(1.0))],
            "memory_pressure: needs a machine whose nodes describe their memory",
        ),
        (
            vec![
                ("machine", Value::Str(cores_only.display().to_string())),
                ("memory_pressure", Value::Float(1.0)),
            ],
            "memory_pressure: needs a machine whose nodes describe their memory",
        ),
        (
            vec![("machine", nodes.clone()), ("memory_sigma", Value::Float(1.0))],
            "memory_sigma: applies with memory_pressure",
        ),
        (
            vec![
                ("machine", nodes.clone()),
                ("memory_pressure", Value::Float(65.0)),
            ],
            "memory_pressure = 65",
        ),
        (
            vec![("machine", nodes.clone()), ("procs", Value::Int(32))],
            "machine and procs both size the machine",
        ),
        (
            vec![("machine", Value::Str(listed.display().to_string()))],
            "a model's jobs name no partition",
        ),
    ];
    for (extra, expected) in cases {
        let e = lublin(&extra);
        assert!(e.contains(expected), "{extra:?}: {e}");
    }
    // A trace that records its memory keeps it.
    if let Some(trace) = common::trace("LANL-CM5-1994-4.1-cln.swf.gz") {
        let params = [
            ("trace", Value::Str(trace.display().to_string())),
            ("scheduler", Value::Str("easy".into())),
            ("machine", nodes.clone()),
            ("first", Value::Int(500)),
            ("memory_pressure", Value::Float(1.0)),
        ];
        let rigid = built(&params).unwrap();
        let e = rigid
            .prepare(&mut Shared::new([&rigid.workload], false), None)
            .expect_err("refused")
            .to_string();
        assert!(e.contains("its jobs record their memory"), "{e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
