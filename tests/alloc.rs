//! The event loop does not allocate in steady state: a global allocator counts allocations
//! while an engine that has already run a workload replays it again. Only the threads that
//! run the workloads are counted (the test's own and its rayon pool's): the test harness
//! allocates on its own thread, for one to print that a test has run over 60 seconds, as
//! this one did on a loaded machine (3 allocations counted against a warm GA run).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use schedlab::predict::AnyPredictor;
use schedlab::sched::{BackfillOrder, Easy, Ga, GaParams, SchedulerKind};
use schedlab::sim::{Engine, SwitchOffPolicy};
use schedlab::utility::{Augmentation, UtilityModel};
use schedlab::workload::Workload;
use schedlab::workload::swf::{SwfOptions, read_swf};
use schedlab::workload::synth::{DowneyParams, ModelEntry};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Whether this thread's allocations are counted (no destructor, so readable at any
    /// point of a thread's life).
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

/// Counts this thread's allocations from now on.
fn count_this_thread() {
    COUNTED.with(|c| c.set(true));
}

fn count() {
    if COUNTED.try_with(Cell::get).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations during a second run of each scheduler on `w` with a warm engine, then of
/// SJBF with each history-based predictor, warm too. The validator is off: it allocates
/// to sort the whole schedule, outside the event loop.
fn steady_state_allocations(w: &Workload) -> Vec<(String, u64, u64)> {
    let mut engine = Engine::new().with_validation(false);
    let mut counts: Vec<(String, u64, u64)> = SchedulerKind::on_any_jobs()
        .into_iter()
        .map(|kind| {
            let mut scheduler = kind.build();
            scheduler.run(&mut engine, &w.jobs, w.procs);
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            let events = scheduler.run(&mut engine, &w.jobs, w.procs).events;
            let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
            (kind.to_string(), allocations, events)
        })
        .collect();
    for spec in [
        "ruh(k=3,prop=true)",
        "sbh(criteria=PE|P|E|*,prop=true)",
        "sbh(criteria=E|P|X,search=bfs,depth=3)",
        "sbh-noest(criteria=PX|P|X|*,growth=unbalanced)",
        "application",
    ] {
        let mut predictor = AnyPredictor::new(spec.parse().unwrap());
        let mut sjbf = Easy::new(BackfillOrder::ShortestPrediction);
        engine.run_window(&w.jobs, w.procs, &mut sjbf, &mut predictor, None);
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        let events = engine
            .run_window(&w.jobs, w.procs, &mut sjbf, &mut predictor, None)
            .events;
        let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
        counts.push((format!("sjbf + {spec}"), allocations, events));
    }
    // EASY with idle nodes switched off after a minute: the nodes' states are kept in
    // buffers sized once per run.
    engine.set_switch_off(
        Some(SwitchOffPolicy {
            after: 60,
            keep_on: 0,
            shutdown_s: 6,
            boot_s: 152,
        }),
        None,
    );
    let mut easy = Easy::new(BackfillOrder::Arrival);
    engine.run(&w.jobs, w.procs, &mut easy);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let outcome = engine.run(&w.jobs, w.procs, &mut easy);
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert!(!outcome.switches.is_empty(), "no node was switched off");
    counts.push(("easy, nodes switched off".into(), allocations, outcome.events));
    engine.set_switch_off(None, None);
    counts
}

fn engine_run(ga: &mut Ga, w: &Workload) {
    thread_local! {
        static ENGINE: std::cell::RefCell<Engine> = std::cell::RefCell::new(Engine::new().with_validation(false));
    }
    ENGINE.with(|e| {
        e.borrow_mut().run(&w.jobs, w.procs, ga);
    });
}

// One test function: the counter is global, and tests in one binary run on several threads.
#[test]
fn the_event_loop_does_not_allocate_in_steady_state() {
    count_this_thread();
    let mut workloads = vec![DowneyParams::default().generate(3)];
    match common::trace("CTC-SP2-1996-3.1-cln.swf.gz") {
        Some(path) => workloads.push(read_swf(&path, &SwfOptions::default()).unwrap()),
        None => eprintln!("SKIPPED the CTC-SP2 part: only the synthetic workload is replayed"),
    }
    // The GA: a warm run's decisions, with the generations of the larger ones on a team of
    // two threads.
    let mut w = DowneyParams::default().generate(5);
    w.jobs.queue.fill(0);
    let augmentation = Augmentation {
        priorities: "*:0".parse().unwrap(),
        model: UtilityModel::default(),
    };
    augmentation.apply(&mut w.jobs, 5).unwrap();
    let params = GaParams {
        population: 10,
        generations: 5,
        mutation: 10,
        ..GaParams::DEFAULT
    };
    // On a rayon worker, as in sweeps: entering the pool from outside it costs rayon's
    // injector one block per 63 entries (738 allocations in this run on the main thread).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .start_handler(|_| count_this_thread())
        .build()
        .unwrap();
    let mut ga = Ga::new(params);
    let allocations = pool.install(|| {
        engine_run(&mut ga, &w);
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        engine_run(&mut ga, &w);
        ALLOCATIONS.load(Ordering::Relaxed) - before
    });
    let evaluations = ga.decisions * params.evaluations();
    eprintln!(
        "ga: {allocations} allocations in {} decisions ({} by a team of threads), {evaluations} fitness evaluations",
        ga.decisions, ga.team_decisions
    );
    assert!(ga.decisions > 100);
    assert!(
        ga.team_decisions > 0,
        "no decision was evolved by a team of threads"
    );
    assert_eq!(allocations, 0, "a warm GA run allocated");
    for w in &workloads {
        for (kind, allocations, events) in steady_state_allocations(w) {
            eprintln!("{}: {kind}: {allocations} allocations in {events} events", w.name);
            assert!(events as usize >= 2 * w.jobs.len());
            assert_eq!(allocations, 0, "{}: {kind} allocated in steady state", w.name);
        }
    }
    nondedicated_warm_runs_do_not_allocate();
    warm_model_simulators_do_not_allocate();
}

/// The malleable simulator (Downey) under each strategy, and the partitioning simulator
/// (Anastasiadis & Sevcik) under each policy, allocate nothing on a warm run: their
/// buffers are kept between runs, and a malleable outcome's columns are given back.
fn warm_model_simulators_do_not_allocate() {
    use schedlab::malleable::{Allocation, MalleableSimulator, Strategy};
    use schedlab::partition::{Measure, MoldableWorkload, Partitioner, Policy, generate};
    let w = DowneyParams::default().generate(7);
    let mut malleable = MalleableSimulator::new().with_validation(false);
    // Every registered strategy at its defaults, and the queue-time predictors' other ways.
    let defaults = Strategy::SYNTAXES.iter().map(|s| {
        s.replace("|a|b|exact|simulation", "")
            .replace("|model", "")
            .replace("|events", "")
    });
    let others = [
        "pred(predictor=a)",
        "pred(predictor=b,lifetimes=model)",
        "bias(predictor=exact,prompts=events)",
        "pred(predictor=simulation)",
    ];
    for syntax in defaults.chain(others.map(String::from)) {
        let allocation: Allocation = syntax.parse().unwrap();
        let outcome = malleable.run(&w.jobs, w.procs, &allocation).unwrap();
        malleable.recycle(outcome);
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        let outcome = malleable.run(&w.jobs, w.procs, &allocation).unwrap();
        let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
        eprintln!(
            "malleable {allocation}: {allocations} allocations, {} rebels",
            outcome.rebels
        );
        assert_eq!(allocations, 0, "a warm malleable run of {allocation} allocated");
        malleable.recycle(outcome);
    }
    let jobs = generate(MoldableWorkload::Wk4, 32, 0.7, 3_000, 11);
    let measure = Measure {
        warmup: 100,
        window: 2_000,
        saturation: Some(900),
    };
    let mut partitioner = Partitioner::new().with_validation(false);
    for policy in [
        "dyn-equi",
        "asp",
        "ap1(1)",
        "aep(2)",
        "aep(2,dif=free)",
        "sdf",
        "sdf-max(max=4)",
    ] {
        let policy: Policy = policy.parse().unwrap();
        partitioner.run(&jobs, 32, policy, &measure);
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        let run = partitioner.run(&jobs, 32, policy, &measure);
        let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
        eprintln!(
            "partitioning {policy}: {allocations} allocations, mean response {}",
            run.response
        );
        assert_eq!(run.measured, 2_000);
        assert_eq!(allocations, 0, "a warm partitioning run of {policy} allocated");
    }
}

/// The non-dedicated cluster (Hanzich et al.), under FCFS and under backfilling with two
/// tasks a node, allocates nothing on a warm run once the last run's outcomes are given
/// back, with 1,000 and 4,000 jobs (about 2.6 passes a job). A cold run allocates two node
/// lists per job (while it runs, and in its outcome) and its buffers.
fn nondedicated_warm_runs_do_not_allocate() {
    use schedlab::nondedicated::sim::{ClusterSimulator, NoObserver};
    use schedlab::nondedicated::{JobSelection, LocalLoad, ParallelWorkload, Setup};
    let backfilling = Setup {
        jsp: JobSelection::Backfilling,
        hardware: schedlab::nondedicated::Hardware {
            mpl: 2,
            ..Setup::basic(16).hardware
        },
        ..Setup::basic(16)
    };
    for setup in [Setup::basic(16), backfilling] {
        for n in [1000, 4000] {
            let jobs = ParallelWorkload {
                jobs: n,
                ..Default::default()
            }
            .generate(3);
            let local = LocalLoad::Generated { share: 0.3, seed: 4 };
            let mut sim = ClusterSimulator::new().with_validation(false);
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            let run = sim.run(&setup, &jobs, &local, &mut NoObserver).unwrap();
            let cold = ALLOCATIONS.load(Ordering::Relaxed) - before;
            sim.recycle(run);
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            let run = sim.run(&setup, &jobs, &local, &mut NoObserver).unwrap();
            let warm = ALLOCATIONS.load(Ordering::Relaxed) - before;
            eprintln!(
                "non-dedicated, {:?}, {n} jobs: {cold} allocations cold, {warm} warm, in {} passes",
                setup.jsp, run.passes
            );
            assert!(run.passes as usize >= 2 * n);
            assert!(cold as usize <= 2 * n + 200, "{cold} allocations for {n} jobs");
            assert_eq!(warm, 0, "a warm non-dedicated run allocated");
        }
    }
}
