//! Non-dedicated clusters (Hanzich et al.): hand-checked cases of the CPU model, the
//! social contract in a run, work conservation and the policies' invariants on generated
//! workloads.

use schedlab::nondedicated::{
    Application, Hardware, JobSelection, LocalLoad, LocalSession, NodeSelection, ParallelJob,
    ParallelWorkload, Run, Setup, SocialContract, simulate,
};

fn app(tasks: u32, cpu: f64, memory_mb: f64, exec: f64) -> Application {
    Application {
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

fn check_run(setup: &Setup, jobs: &[ParallelJob], run: &Run) {
    let mpl = setup.hardware.mpl;
    for (j, o) in jobs.iter().zip(&run.jobs) {
        assert!(o.start >= j.arrival && o.end > o.start);
        assert_eq!(o.nodes.len(), j.app.tasks as usize);
        // Work conservation: the CPU time received over the whole life, through every change
        // of load, is what the job needs alone.
        assert!(
            close(o.cpu_time, j.app.cpu_time()),
            "{}: CPU time {} of {}",
            j.app,
            o.cpu_time,
            j.app.cpu_time()
        );
        // Never faster than alone.
        assert!(o.exec() >= j.app.exec * (1.0 - 1e-9));
    }
    // No node above MPL_paral at any start.
    for o in &run.jobs {
        let t = o.start;
        let mut tasks = vec![0u32; setup.hardware.nodes as usize];
        for p in run.jobs.iter().filter(|p| p.start <= t && t < p.end) {
            for &n in &p.nodes {
                tasks[n as usize] += 1;
            }
        }
        assert!(tasks.iter().all(|&k| k <= mpl), "MPL exceeded at {t}");
    }
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
            };
            let run = simulate(&s, &jobs, &local).unwrap();
            check_run(&s, &jobs, &run);
            if jsp == JobSelection::Fcfs {
                // FCFS starts jobs in arrival order.
                assert!(run.jobs.windows(2).all(|w| w[0].start <= w[1].start));
            }
            assert_eq!(run, simulate(&s, &jobs, &local).unwrap(), "not deterministic");
        }
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
    // A contract no task meets, on a cluster whose nodes always carry a local user.
    let jobs = [ParallelJob {
        arrival: 0.0,
        app: app(1, 0.9, 10.0, 10.0),
    }];
    let local = LocalLoad::Generated { share: 1.0, seed: 1 };
    let err = simulate(&setup(2, 4, 0.5), &jobs, &local).unwrap_err();
    assert!(err.to_string().contains("no room"), "{err}");
}
