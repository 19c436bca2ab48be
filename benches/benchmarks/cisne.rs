//! One turnaround estimate of Hanzich et al.'s estimators (Table 4, Figure 12) against the
//! length of the waiting queue and the size of the cluster. States are captured from seeded
//! runs (75% of nodes with local users, FCFS + Normal, MPL 4, inter-arrival times scaled
//! by 64 / nodes) at the first arrival that finds at least the wanted queue and jobs
//! running on an eighth of the nodes; the history holds an earlier run (1,000 records).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group};

use schedlab::nondedicated::estimate::{Estimator, HistDb, Online};
use schedlab::nondedicated::{
    ClusterExperiment, Hardware, JobSelection, Node, NodeSelection, Observer, ParallelJob, ParallelWorkload,
    RunningView, Setup, Snapshot, SocialContract, Truth, simulate_observed,
};

/// An owned copy of a snapshot, and the job that had just arrived.
struct State {
    job: usize,
    now: f64,
    nodes: Vec<Node>,
    running: Vec<RunningView>,
    queue: Vec<usize>,
}

/// Keeps the first busy state with at least `want` waiting jobs.
struct Captured {
    want: usize,
    state: Option<State>,
}

impl Observer for Captured {
    fn arrived(&mut self, job: usize, s: &Snapshot) {
        // A busy moment: the wanted queue, and jobs running on at least an eighth of the nodes.
        let busy = s.running.len() * 8 >= s.nodes.len();
        if self.state.is_none() && s.queue.len() >= self.want && busy {
            self.state = Some(State {
                job,
                now: s.now,
                nodes: s.nodes.to_vec(),
                running: s.running.clone(),
                queue: s.queue.to_vec(),
            });
        }
    }
}

fn experiment(nodes: u32) -> ClusterExperiment {
    ClusterExperiment {
        setup: Setup {
            hardware: Hardware {
                nodes,
                mpl: 4,
                contract: SocialContract::default(),
                ..Hardware::default()
            },
            jsp: JobSelection::Fcfs,
            nsp: NodeSelection::Normal,
            truth: Truth::default(),
        },
        workload: ParallelWorkload {
            // Keep the load per node about the same as the cluster grows.
            arrival_scale: 64.0 / nodes as f64,
            ..ParallelWorkload::default()
        },
        local_share: 0.75,
        history_jobs: ParallelWorkload::default().jobs,
        estimator: None,
        offline: false,
    }
}

fn cisne_estimate(c: &mut Criterion) {
    let mut group = c.benchmark_group("cisne-estimate");
    group.sample_size(20);
    let estimators: [Estimator; 3] = [
        "mpl-cpu".parse().unwrap(),
        Estimator::HISTORICAL,
        Estimator::HYBRID,
    ];
    for (nodes, queue) in [(64, 1), (64, 8), (64, 64), (128, 8), (256, 8), (512, 8)] {
        let e = experiment(nodes);
        let jobs: Vec<ParallelJob> = e.workload.generate(1);
        let mut capture = Captured {
            want: queue,
            state: None,
        };
        simulate_observed(&e.setup, &jobs, &e.local(1), &mut capture).unwrap();
        let Some(State {
            job,
            now,
            nodes: node_state,
            running,
            queue: waiting,
        }) = capture.state
        else {
            eprintln!("no state with {queue} waiting jobs on {nodes} nodes; skipped");
            continue;
        };
        // The history: an earlier run of the same environment.
        let warm_jobs = e.workload.generate(2);
        let mut warm = Online::new(Estimator::HISTORICAL, HistDb::default(), &warm_jobs);
        warm.estimate = false;
        simulate_observed(&e.setup, &warm_jobs, &e.local(2), &mut warm).unwrap();
        let snapshot = Snapshot {
            now,
            setup: &e.setup,
            jobs: &jobs,
            nodes: &node_state,
            running,
            queue: &waiting,
        };
        for estimator in estimators {
            let online = Online::new(estimator, warm.db.clone(), &jobs);
            let id = BenchmarkId::new(
                estimator.to_string(),
                format!(
                    "nodes-{nodes}-queue-{}-running-{}",
                    waiting.len(),
                    snapshot.running.len()
                ),
            );
            group.bench_function(id, |b| b.iter(|| online.predict(black_box(job), &snapshot)));
        }
    }
    group.finish();
}

criterion_group!(benches, cisne_estimate);
