//! Non-dedicated clusters (Hanzich et al.): hand-checked cases of the CPU model, the
//! social contract in a run, work conservation and the policies' invariants on generated
//! workloads.

use schedlab::nondedicated::{
    ClusterRun, Hardware, JobSelection, LocalLoad, LocalSession, NodeSelection, ParallelApp, ParallelJob,
    ParallelWorkload, Setup, SocialContract, Truth, check_run, simulate,
};

fn app(tasks: u32, cpu: f64, memory_mb: f64, exec: f64) -> ParallelApp {
    ParallelApp {
        benchmark: None,
        tasks,
        cpu,
        memory_mb,
        network: 0.0,
        exec,
    }
}

fn setup(nodes: u32, mpl: u32, contract_cpu: f64) -> Setup {
    Setup {
        hardware: Hardware {
            nodes,
            mpl,
            contract: SocialContract {
                cpu: contract_cpu,
                memory: 1.0,
            },
            ..Hardware::default()
        },
        jsp: JobSelection::Fcfs,
        nsp: NodeSelection::Normal,
        truth: Truth::default(),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6 * b.abs().max(1.0)
}

#[test]
fn an_overloaded_node_slows_exactly_the_jobs_on_it() {
    // 3 nodes. A local user takes all of node 0's CPU from 0 to 50 s. Job A (2 tasks, 100 s
    // alone) goes to the idle nodes 1 and 2 and is not slowed: it ends at 100. Job B (1 task,
    // 100 s) then finds demand 1.0 on every node and takes node 0 (lowest index): demand 2.0,
    // half speed until the user leaves at 50 (25 s of progress), full speed after: 125.
    let local = LocalLoad::Fixed(vec![LocalSession {
        node: 0,
        start: 0.0,
        end: 50.0,
        cpu: 1.0,
        memory: 0.0,
    }]);
    let jobs = [
        ParallelJob {
            arrival: 0.0,
            app: app(2, 1.0, 10.0, 100.0),
        },
        ParallelJob {
            arrival: 0.0,
            app: app(1, 1.0, 10.0, 100.0),
        },
    ];
    let run = simulate(&setup(3, 4, 2.0), &jobs, &local).unwrap();
    assert_eq!(run.jobs[0].nodes, [1, 2]);
    assert_eq!(run.jobs[1].nodes, [0]);
    assert!(close(run.jobs[0].end, 100.0), "{}", run.jobs[0].end);
    assert!(close(run.jobs[1].end, 125.0), "{}", run.jobs[1].end);
}

#[test]
fn a_job_on_several_nodes_follows_the_most_loaded_one() {
    // 2 nodes, one job on both (0.5 CPU per task, 100 s). A local user loads node 1 with
    // 1.5 CPU from 20 to 60 s: demand 2.0 there, so the whole job runs at half speed in
    // that window (20 s of progress instead of 40) and ends at 120.
    let local = LocalLoad::Fixed(vec![LocalSession {
        node: 1,
        start: 20.0,
        end: 60.0,
        cpu: 1.5,
        memory: 0.0,
    }]);
    let jobs = [ParallelJob {
        arrival: 0.0,
        app: app(2, 0.5, 10.0, 100.0),
    }];
    let run = simulate(&setup(2, 4, 2.0), &jobs, &local).unwrap();
    assert!(close(run.jobs[0].end, 120.0), "{}", run.jobs[0].end);
    // CPU time: 2 tasks x 0.5 x 100 s of dedicated progress.
    assert!(close(run.jobs[0].cpu_time, 100.0));
}

#[test]
fn the_social_contract_holds_a_job_back_until_the_local_user_leaves() {
    // 1 node whose local user holds 700 MB until 300 s: a 400 MB task cannot run beside it
    // (no swapping) and starts when the user leaves.
    let local = LocalLoad::Fixed(vec![LocalSession {
        node: 0,
        start: 0.0,
        end: 300.0,
        cpu: 0.1,
        memory: 700.0 / 1024.0,
    }]);
    let jobs = [
        ParallelJob {
            arrival: 0.0,
            app: app(1, 0.5, 400.0, 10.0),
        },
        ParallelJob {
            arrival: 1.0,
            app: app(1, 0.5, 100.0, 10.0),
        },
    ];
    let run = simulate(&setup(1, 4, 1.0), &jobs, &local).unwrap();
    // FCFS: the small job waits behind the blocked one.
    assert!(close(run.jobs[0].start, 300.0) && close(run.jobs[1].start, 300.0));
    // Backfilling lets the small one through at once: it ends (1 + 10 / 1) long before the
    // head's shadow, the user's departure being unknown, so it cannot delay the head.
    let mut bf = setup(1, 4, 1.0);
    bf.jsp = JobSelection::Backfilling;
    let run = simulate(&bf, &jobs, &local).unwrap();
    assert!(close(run.jobs[1].start, 1.0), "{}", run.jobs[1].start);
    assert!(close(run.jobs[0].start, 300.0));
}

#[test]
fn generated_runs_conserve_work_and_keep_the_limits() {
    let workload = ParallelWorkload {
        jobs: 300,
        arrival_scale: 1.5,
        ..ParallelWorkload::default()
    };
    for seed in 1..=3 {
        let jobs = workload.generate(seed);
        let local = LocalLoad::Generated {
            share: 0.75,
            seed: seed + 100,
        };
        for (jsp, nsp, mpl) in [
            (JobSelection::Fcfs, NodeSelection::Normal, 1),
            (JobSelection::Fcfs, NodeSelection::Normal, 4),
            (JobSelection::Fcfs, NodeSelection::Uniform, 4),
            (JobSelection::Backfilling, NodeSelection::Normal, 4),
            (JobSelection::Backfilling, NodeSelection::Uniform, 4),
        ] {
            let s = Setup {
                hardware: Hardware {
                    mpl,
                    ..Hardware::default()
                },
                jsp,
                nsp,
                truth: Truth::default(),
            };
            let run = simulate(&s, &jobs, &local).unwrap();
            // In release builds too: the run keeps every limit and conserves work.
            check_run(&s, &jobs, &run);
            if jsp == JobSelection::Fcfs {
                // FCFS starts jobs in arrival order.
                assert!(run.jobs.windows(2).all(|w| w[0].start <= w[1].start));
            }
            assert_eq!(run, simulate(&s, &jobs, &local).unwrap(), "not deterministic");
        }
    }
}

/// The run's check (every run's in debug builds) names each fault planted in a real run:
/// a start before the arrival, a task count that is not the job's, CPU time lost, a node
/// above MPL_paral.
#[test]
fn the_run_check_catches_each_fault() {
    let workload = ParallelWorkload {
        jobs: 100,
        ..ParallelWorkload::default()
    };
    let jobs = workload.generate(4);
    let local = LocalLoad::Generated { share: 0.5, seed: 9 };
    let s = Setup {
        hardware: Hardware {
            mpl: 2,
            ..Hardware::default()
        },
        jsp: JobSelection::Fcfs,
        nsp: NodeSelection::Normal,
        truth: Truth::default(),
    };
    let run = simulate(&s, &jobs, &local).unwrap();
    check_run(&s, &jobs, &run);
    let last = run.jobs.iter().map(|o| o.start).fold(0.0, f64::max);
    type Plant = Box<dyn Fn(&mut ClusterRun)>;
    let faults: [(&str, Plant); 4] = [
        (
            "before it arrives",
            Box::new(|r| r.jobs[1].start = r.jobs[1].arrival - 1.0),
        ),
        (
            "distinct nodes",
            Box::new(|r| {
                let first = r.jobs[0].nodes[0];
                r.jobs[0].nodes.push(first);
            }),
        ),
        ("of CPU", Box::new(|r| r.jobs[0].cpu_time *= 0.5)),
        // Every job on node 0 and the following ones at the last start, for its own time.
        (
            "above MPL_paral",
            Box::new(move |r| {
                for o in &mut r.jobs {
                    let tasks = o.nodes.len() as u32;
                    o.nodes = (0..tasks).collect();
                    o.end += last - o.start;
                    o.start = last;
                }
            }),
        ),
    ];
    for (said, plant) in faults {
        let mut r = run.clone();
        plant(&mut r);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_run(&s, &jobs, &r)));
        let message = caught.expect_err(said);
        let text = message.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(text.contains(said), "{said}: {text}");
    }
}

#[test]
fn impossible_jobs_are_refused_with_a_reason() {
    let jobs = [ParallelJob {
        arrival: 0.0,
        app: app(8, 0.5, 10.0, 10.0),
    }];
    let err = simulate(&setup(4, 4, 1.0), &jobs, &LocalLoad::Fixed(vec![])).unwrap_err();
    assert!(err.to_string().contains("can never run"), "{err}");
    let unsorted = [
        ParallelJob {
            arrival: 5.0,
            app: app(1, 0.5, 10.0, 10.0),
        },
        ParallelJob {
            arrival: 1.0,
            app: app(1, 0.5, 10.0, 10.0),
        },
    ];
    let err = simulate(&setup(4, 4, 1.0), &unsorted, &LocalLoad::Fixed(vec![])).unwrap_err();
    assert!(err.to_string().contains("job 1 arrives before"), "{err}");
    // A contract no task meets, on a cluster whose nodes always carry a local user.
    let jobs = [ParallelJob {
        arrival: 0.0,
        app: app(1, 0.9, 10.0, 10.0),
    }];
    let local = LocalLoad::Generated { share: 1.0, seed: 1 };
    let err = simulate(&setup(2, 4, 0.5), &jobs, &local).unwrap_err();
    assert!(err.to_string().contains("no room"), "{err}");
}

mod estimators {
    use super::*;
    use schedlab::nondedicated::estimate::{
        Accuracy, Estimator, HistDb, Offline, Online, Record, TurnaroundPrediction,
    };
    use schedlab::nondedicated::{Benchmark, JobOutcome, simulate_observed};

    fn policies() -> Vec<Setup> {
        let mut all = Vec::new();
        for jsp in [JobSelection::Fcfs, JobSelection::Backfilling] {
            for nsp in [NodeSelection::Normal, NodeSelection::Uniform] {
                all.push(Setup {
                    hardware: Hardware::default(),
                    jsp,
                    nsp,
                    truth: Truth::default(),
                });
            }
        }
        all
    }

    fn assert_exact(predictions: &[Option<TurnaroundPrediction>], run: &ClusterRun) {
        for (i, (p, o)) in predictions.iter().zip(&run.jobs).enumerate() {
            let p = p.unwrap_or_else(|| panic!("job {i} has no prediction"));
            assert!(
                close(p.wait + o.arrival, o.start),
                "job {i}: start {} vs {}",
                p.wait + o.arrival,
                o.start
            );
            assert!(
                close(p.exec, o.exec()),
                "job {i}: exec {} vs {}",
                p.exec,
                o.exec()
            );
        }
    }

    #[test]
    fn the_cpu_kernel_replays_the_cluster_when_nothing_unknown_happens() {
        // Off-line, every arrival is known; with no local users, nothing else changes, so
        // Algorithm 3 with RemTime and CPUtime by the CPU model must reproduce the run
        // exactly, under every policy: a differential test of the kernel against the
        // simulator (their code paths share only the policy pass).
        let none = LocalLoad::Fixed(vec![]);
        let db = HistDb::default();
        for (seed, setup) in (1..=12).flat_map(|seed| policies().into_iter().map(move |p| (seed, p))) {
            let jobs = ParallelWorkload {
                jobs: 250,
                arrival_scale: 0.6,
                ..ParallelWorkload::default()
            }
            .generate(seed);
            let mut off = Offline::new("cpu-cpu".parse().unwrap(), &db, jobs.len()).unwrap();
            let run = simulate_observed(&setup, &jobs, &none, &mut off).unwrap();
            assert!(run.mean(|o| o.wait()) > 100.0, "the test needs waiting jobs");
            assert_exact(&off.predictions, &run);
        }
    }

    #[test]
    fn on_line_estimates_are_exact_when_later_arrivals_cannot_matter() {
        // FCFS with MPL 1 and no local users: no later job starts earlier or shares a node.
        let jobs = ParallelWorkload {
            jobs: 250,
            ..ParallelWorkload::default()
        }
        .generate(5);
        let setup = Setup::basic(64);
        for e in ["mpl-cpu", "cpu-cpu", "cpu-mpl", "mpl-mpl"] {
            let mut on = Online::new(e.parse().unwrap(), HistDb::default(), &jobs);
            let run = simulate_observed(&setup, &jobs, &LocalLoad::Fixed(vec![]), &mut on).unwrap();
            assert_exact(&on.predictions, &run);
        }
        // With local users coming and going, no estimator knows the future.
        let local = LocalLoad::Generated { share: 0.75, seed: 9 };
        let mut on = Online::new(Estimator::MPL_CPU, HistDb::default(), &jobs);
        let run = simulate_observed(
            &Setup {
                jsp: JobSelection::Backfilling,
                ..setup
            },
            &jobs,
            &local,
            &mut on,
        )
        .unwrap();
        let a = Accuracy::of(&on.predictions, &run.jobs);
        assert!(a.dv_response > 1.0, "{a:?}");
    }

    fn record(
        app: (Option<Benchmark>, u32),
        ahead: f64,
        backwards: f64,
        shared: u32,
        wait: f64,
        exec: f64,
    ) -> Record {
        Record {
            app,
            ahead,
            backwards,
            shared,
            wait,
            exec,
        }
    }

    #[test]
    fn historical_algorithms_by_hand() {
        let cg8 = Benchmark::Cg.application(8);
        let bt4 = Benchmark::Bt.application(4);
        let db = HistDb {
            records: vec![
                record(cg8.key(), 1000.0, 50.0, 0, 10.0, 400.0),
                record(cg8.key(), 1030.0, 90.0, 0, 20.0, 410.0),
                record(cg8.key(), 1040.0, 70.0, 0, 30.0, 420.0),
                record(cg8.key(), 5000.0, 70.0, 0, 900.0, 500.0),
                record(bt4.key(), 1020.0, 0.0, 0, 77.0, 800.0),
            ],
        };
        // Algorithm 1: the CG.8 record nearest in CPUtime_ahead (1030 for 1025).
        // Algorithm 2: within 5% of 1025 (|d| < 51.25): 1000, 1030, 1040; their mean
        // CPUtime_backwards is 70, matched exactly by the third: its execution time.
        let p = db.historical(&cg8, 1025.0).unwrap();
        assert_eq!((p.wait, p.exec), (20.0, 420.0));
        // Far from every record: the nearest (5000) for both.
        let p = db.historical(&cg8, 4000.0).unwrap();
        assert_eq!((p.wait, p.exec), (900.0, 500.0));
        // An application never seen: the nearest record of any.
        let p = db.historical(&Benchmark::Mg.application(16), 1019.0).unwrap();
        assert_eq!(p.wait, 77.0);
        assert!(HistDb::default().historical(&cg8, 1.0).is_none());
    }

    #[test]
    fn hybrid_remaining_time_averages_the_nearest_shared_count() {
        let is4 = Benchmark::Is.application(4);
        let db = HistDb {
            records: vec![
                record(is4.key(), 0.0, 0.0, 0, 0.0, 280.0),
                record(is4.key(), 0.0, 0.0, 3, 0.0, 400.0),
                record(is4.key(), 0.0, 0.0, 3, 0.0, 500.0),
                record(is4.key(), 0.0, 0.0, 6, 0.0, 900.0),
            ],
        };
        assert_eq!(db.execution(is4.key(), 0), Some(280.0));
        assert_eq!(db.execution(is4.key(), 3), Some(450.0));
        // 4 is nearest to 3.
        assert_eq!(db.execution(is4.key(), 4), Some(450.0));
        assert_eq!(db.execution(Benchmark::Bt.application(4).key(), 0), None);
    }

    #[test]
    fn accuracy_by_hand() {
        let o = |arrival: f64, start: f64, end: f64| JobOutcome {
            arrival,
            start,
            end,
            cpu_time: 0.0,
            nodes: vec![],
        };
        let outcomes = [o(0.0, 10.0, 110.0), o(0.0, 0.0, 50.0), o(5.0, 25.0, 125.0)];
        let predictions = [
            Some(TurnaroundPrediction {
                wait: 20.0,
                exec: 100.0,
            }),
            Some(TurnaroundPrediction {
                wait: 0.0,
                exec: 40.0,
            }),
            None,
        ];
        let a = Accuracy::of(&predictions, &outcomes);
        assert_eq!(a.jobs, 2);
        // Turnarounds observed 110, 50; predicted 120, 40: |10| + |10| over 160.
        assert!(close(a.dv_response, 100.0 * 20.0 / 160.0));
        assert!(close(a.bias_response, 0.0));
        assert!(close(a.dv_wait, 100.0 * 10.0 / 10.0));
        assert!(close(a.dv_run, 100.0 * 10.0 / 150.0));
        // Two points: the line through them, (50, 40) and (100, 100): slope 1.2, intercept -20.
        assert!(
            close(a.fit_run.0, 1.2) && close(a.fit_run.1, -20.0),
            "{:?}",
            a.fit_run
        );
        assert!(a.ra_run.is_nan(), "adjusted R^2 needs three points");
    }

    #[test]
    fn estimator_names() {
        for name in ["historical", "hybrid", "mpl-cpu", "prop-mpl", "cpu-cpu"] {
            let e: Estimator = name.parse().unwrap();
            assert_eq!(e.to_string(), name);
        }
        assert!(
            "mpl"
                .parse::<Estimator>()
                .unwrap_err()
                .to_string()
                .contains("REM-CPU")
        );
        assert!(Offline::new(Estimator::HISTORICAL, &HistDb::default(), 1).is_err());
    }
}

#[test]
fn a_local_user_who_never_leaves_is_reported_not_waited_for() {
    let local = LocalLoad::Fixed(vec![LocalSession {
        node: 0,
        start: 0.0,
        end: f64::INFINITY,
        cpu: 0.1,
        memory: 0.9,
    }]);
    let jobs = [ParallelJob {
        arrival: 0.0,
        app: app(1, 0.5, 400.0, 10.0),
    }];
    let err = simulate(&setup(1, 4, 1.0), &jobs, &local).unwrap_err();
    assert!(err.to_string().contains("no room"), "{err}");
}
