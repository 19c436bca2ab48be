//! Malleable jobs choosing their cluster size (Downey 1997): a hand-checked schedule per
//! strategy, the rigid engine's FCFS where the two must agree, and invariants on random
//! workloads of the model.

use proptest::prelude::*;

use schedlab::malleable::{
    Allocation, MALLEABLE_METRICS, MalleableReport, MaxCluster, application_centric, simulate,
};
use schedlab::sched::SchedulerKind;
use schedlab::sim::Engine;
use schedlab::speedup::downey_speedup;
use schedlab::workload::synth::DowneyParams;
use schedlab::workload::synth::ModelEntry;
use schedlab::workload::{JobRecord, Jobs, MalleableColumns};

/// Jobs (submit, L, A, sigma); the rigid columns say n = round(A), runtime L / S(n).
fn model_jobs(specs: &[(i64, f64, f64, f64)]) -> Jobs {
    let records: Vec<JobRecord> = specs
        .iter()
        .enumerate()
        .map(|(i, &(submit, l, a, sigma))| {
            let n = a.round().max(1.0);
            let runtime = (l / downey_speedup(a, sigma, n)).round() as i64;
            JobRecord::new(i as u64 + 1, submit, runtime, n as u32, runtime)
        })
        .collect();
    let mut jobs = Jobs::from_records(&records);
    jobs.malleable = Some(MalleableColumns {
        lifetime: specs.iter().map(|s| s.1).collect(),
        avg_parallelism: specs.iter().map(|s| s.2).collect(),
        sigma: specs.iter().map(|s| s.3).collect(),
    });
    jobs
}

fn run(jobs: &Jobs, procs: u32, strategy: &str) -> (Vec<f64>, Vec<u32>) {
    let o = simulate(jobs, procs, &strategy.parse::<Allocation>().unwrap()).unwrap();
    (o.start, o.size)
}

#[test]
fn avg_opt_and_heur_on_a_hand_checked_schedule() {
    // 4 processors, linear speedup up to A (sigma 0).
    // Job 1 at 0: L 100, A 4: runs 25 s on 4 (every strategy: 4 are free).
    // Job 2 at 10: L 40, A 2: nothing free until 25, then 2 for 20 s (ends 45).
    // Job 3 at 30: L 300, A 3, 2 free (job 2 holds the others until 45).
    //   AVG takes the 2 now: starts 30, runs 150 s.
    //   OPT: 2 now ends at 180; 3 at 45 ends at 45 + 100 = 145: waits, starts 45 on 3.
    //   HEUR (f 1, k 0.2): holds out for 3; t_save = R(2) - R(3) = 50, so it gives in at
    //   30 + 0.2 * 50 = 40 and starts on the 2 free.
    let jobs = model_jobs(&[(0, 100.0, 4.0, 0.0), (10, 40.0, 2.0, 0.0), (30, 300.0, 3.0, 0.0)]);
    assert_eq!(run(&jobs, 4, "avg"), (vec![0.0, 25.0, 30.0], vec![4, 2, 2]));
    assert_eq!(run(&jobs, 4, "opt"), (vec![0.0, 25.0, 45.0], vec![4, 2, 3]));
    let (start, size) = run(&jobs, 4, "heur");
    assert_eq!(size, [4, 2, 2]);
    assert!((start[2] - 40.0).abs() < 1e-9, "{start:?}");
    // With k = 0 HEUR gives in at once: AVG's schedule.
    assert_eq!(run(&jobs, 4, "heur(k=0)"), run(&jobs, 4, "avg"));
    // A strongly risk-averse OPT does not wait for a 35 s saving on a 150 s run.
    assert_eq!(run(&jobs, 4, "opt(risk=0.5)").1, [4, 2, 2]);
}

#[test]
fn avg_is_the_rigid_engines_fcfs_for_sequential_jobs() {
    // A = 1: every job runs L seconds on one processor, as the rigid model says; AVG is
    // then FCFS on the same jobs.
    let w = DowneyParams {
        parallelism_max: 1.0 + 1e-12,
        procs: 3,
        days: 30,
        rho: Some(1.0),
        ..DowneyParams::default()
    }
    .generate(5);
    let model = w.jobs.malleable.as_ref().unwrap();
    let specs: Vec<(i64, f64, f64, f64)> = (0..w.jobs.len())
        .map(|j| {
            (
                w.jobs.submit[j],
                model.lifetime[j].round().max(1.0),
                1.0,
                model.sigma[j],
            )
        })
        .collect();
    let jobs = model_jobs(&specs);
    let (start, size) = run(&jobs, 3, "avg");
    assert!(size.iter().all(|&s| s == 1));
    let mut engine = Engine::new().with_validation(true);
    let rigid = SchedulerKind::Fcfs
        .build()
        .run(&mut engine, &jobs, 3)
        .start
        .to_vec();
    let malleable: Vec<i64> = start.iter().map(|&s| s as i64).collect();
    assert_eq!(malleable, rigid);
    assert!(jobs.len() > 50, "{} jobs", jobs.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Every strategy: no job starts before it arrives or before an earlier one (FCFS, no
    /// passing), sizes stay within 1..=A rounded by the rule, runs last L / S(n), and no
    /// instant has more processors busy than the machine.
    #[test]
    fn strategies_keep_the_invariants(seed in 0u64..1000, procs in 4u32..40, load in 0.3f64..1.2) {
        let w = DowneyParams { procs, rho: Some(load), days: 1, parallelism_max: 64.0, ..DowneyParams::default() }.generate(seed);
        let model = w.jobs.malleable.as_ref().unwrap();
        let strategies = ["avg", "opt", "pred", "bias(lock_in=true)", "pred(predictor=exact,risk=0.2)", "heur",
            "pred(lifetimes=model,lock_in=true)", "pred(prompts=events)", "bias(prompts=events,lock_in=true)"];
        let rules = [(MaxCluster::Floor, f64::floor as fn(f64) -> f64), (MaxCluster::Round, f64::round), (MaxCluster::Ceil, f64::ceil)];
        for (strategy, (rule, bound)) in strategies.iter().zip(rules.iter().cycle()) {
            let allocation = Allocation { max_cluster: *rule, ..strategy.parse::<Allocation>().unwrap() };
            let o = simulate(&w.jobs, procs, &allocation).unwrap();
            let mut events: Vec<(f64, i64)> = Vec::new();
            for j in 0..w.jobs.len() {
                let max = (bound(model.avg_parallelism[j]).max(1.0) as u32).min(procs);
                prop_assert!(o.start[j] >= w.jobs.submit[j] as f64, "{strategy}: job {j} early");
                prop_assert!(j == 0 || o.start[j] >= o.start[j - 1], "{strategy}: job {j} passed");
                prop_assert!((1..=max).contains(&o.size[j]), "{strategy}: size {}", o.size[j]);
                let r = model.lifetime[j] / downey_speedup(model.avg_parallelism[j], model.sigma[j], o.size[j] as f64);
                prop_assert!((o.end[j] - o.start[j] - r).abs() <= 1e-9 * r.max(1.0));
                events.push((o.start[j], o.size[j] as i64));
                events.push((o.end[j], -(o.size[j] as i64)));
            }
            // Ends before starts at a tie.
            events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let mut busy = 0;
            for (_, d) in events {
                busy += d;
                prop_assert!(busy <= procs as i64, "{strategy}: {busy} busy");
            }
        }
    }
}

#[test]
fn application_centric_replays_only_the_jobs_avg_shortchanges() {
    // The schedule of the first test: AVG gives jobs 1 and 2 their maximum (spoiled) and
    // job 3 two of its three processors at 30 (150 s). Alone under OPT, job 3 waits 15 s
    // for three and runs 100 s: a saving of 35 s. Under HEUR it gives in at 40 on two
    // (10 + 150 s): a loss of 10 s.
    let jobs = model_jobs(&[(0, 100.0, 4.0, 0.0), (10, 40.0, 2.0, 0.0), (30, 300.0, 3.0, 0.0)]);
    let report = |s: &str| application_centric(&jobs, 4, &s.parse::<Allocation>().unwrap()).unwrap();
    let opt = report("opt");
    assert_eq!((opt.spoiled, opt.docile, opt.rebels), (2, 0, 1));
    assert!((opt.savings_per_job - 35.0 / 3.0).abs() < 1e-9, "{opt:?}");
    assert_eq!(opt.losing_rebel_fraction, 0.0);
    // No rebel loses, and no job is docile: both undefined.
    assert!(opt.mean_loss_per_losing_rebel.is_nan() && opt.rebel_lifetime_ratio.is_nan());
    let heur = report("heur");
    assert!((heur.median_savings_per_rebel + 10.0).abs() < 1e-9, "{heur:?}");
    assert_eq!(heur.losing_rebel_fraction, 1.0);
    assert!((heur.mean_loss_per_losing_rebel - 10.0).abs() < 1e-9, "{heur:?}");
    assert!(application_centric(&jobs, 4, &"avg".parse().unwrap()).is_err());
}

#[test]
fn opt_never_loses_for_the_deciding_job() {
    // The oracle knows when processors free up, so a job it makes wait always gains.
    for seed in 0..4 {
        let w = DowneyParams {
            days: 10,
            ..DowneyParams::default()
        }
        .generate(seed);
        let r = application_centric(&w.jobs, w.procs, &"opt".parse().unwrap()).unwrap();
        assert!(r.rebels > 0);
        assert_eq!(r.losing_rebel_fraction, 0.0, "seed {seed}");
        assert!(r.mean_loss_per_losing_rebel.is_nan(), "seed {seed}");
        assert_eq!(r.spoiled + r.docile + r.rebels, r.jobs);
        // The ratio of two means of positive lifetimes, both groups present.
        assert!(r.docile > 0 && r.rebel_lifetime_ratio.is_finite() && r.rebel_lifetime_ratio > 0.0);
    }
}

#[test]
fn job_by_job_comparison_with_avg() {
    // OPT ends job 3 at 145 instead of AVG's 180; the other two end as under AVG.
    let jobs = model_jobs(&[(0, 100.0, 4.0, 0.0), (10, 40.0, 2.0, 0.0), (30, 300.0, 3.0, 0.0)]);
    let outcome = |s: &str| simulate(&jobs, 4, &s.parse::<Allocation>().unwrap()).unwrap();
    let avg = outcome("avg");
    let mut opt = outcome("opt");
    opt.compare_with(&jobs, &avg);
    let c = opt.vs_avg.unwrap();
    assert_eq!((c.faster, c.slower, c.median_change), (1.0 / 3.0, 0.0, 0.0));
    let faster = MALLEABLE_METRICS.get("faster_than_avg").unwrap().value;
    assert_eq!(faster(&MalleableReport::System(opt)), 1.0 / 3.0);
    assert!(faster(&MalleableReport::System(avg)).is_nan(), "not compared yet");
}

/// A = 2.6 on 4 free processors: AVG gives floor(A) = 2 by default (the paper's "no more
/// than A"), 3 when rounding or taking the ceiling; A = 2.4 rounds down to 2 but its
/// ceiling is 3. Each run time is L / S(n) on that n.
#[test]
fn max_cluster_rules_on_a_hand_checked_pair() {
    let jobs = model_jobs(&[(0, 1000.0, 2.6, 0.0), (10_000, 1000.0, 2.4, 0.0)]);
    for (rule, sizes) in [
        (MaxCluster::Floor, [2, 2]),
        (MaxCluster::Round, [3, 2]),
        (MaxCluster::Ceil, [3, 3]),
    ] {
        let allocation = Allocation {
            max_cluster: rule,
            ..Allocation::AVG
        };
        let o = simulate(&jobs, 4, &allocation).unwrap();
        assert_eq!(o.size, sizes, "{rule:?}");
        for (j, a) in [(0, 2.6), (1, 2.4)] {
            let expected = 1000.0 / downey_speedup(a, 0.0, sizes[j] as f64);
            assert!(
                (o.end[j] - o.start[j] - expected).abs() < 1e-9,
                "{rule:?} job {j}"
            );
        }
    }
    assert_eq!(Allocation::AVG.max_cluster, MaxCluster::Floor);
    assert!("half".parse::<MaxCluster>().is_err());
}
