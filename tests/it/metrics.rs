//! The metric registries: every row of every registry is walked, names are unique and
//! never a retired name, accessors give what the outcome holds, and a saturated run's
//! values follow each row's rule.

use crate::common;

use proptest::prelude::*;

use schedlab::malleable::{MALLEABLE_METRICS, MalleableReport, simulate};
use schedlab::metrics::registry::{Metric, RENAMED, Registry, Unit, WhenSaturated};
use schedlab::metrics::{RIGID_METRICS, Summary, UTILITY_METRICS, check_rigid_metric, saturated_metric};
use schedlab::nondedicated::CLUSTER_METRICS;
use schedlab::partition::{Measure, MoldableWorkload, PARTITION_METRICS, PartitionOutcome, Policy, generate};
use schedlab::sched::SchedulerKind;
use schedlab::sim::Engine;
use schedlab::workload::synth::Model;

/// Checks what holds for any registry and returns its rows.
fn check_rows<O>(registry: &Registry<O>) -> &'static [Metric<O>] {
    let mut seen: Vec<&str> = Vec::new();
    for m in registry.metrics {
        assert!(!seen.contains(&m.name), "{}: '{}' twice", registry.kind, m.name);
        seen.push(m.name);
        assert!(
            m.name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "{}",
            m.name
        );
        assert!(
            !RENAMED.iter().any(|(old, _)| *old == m.name),
            "{} is retired",
            m.name
        );
        assert!(
            m.label.chars().next().is_some_and(char::is_uppercase),
            "{}: label '{}'",
            m.name,
            m.label
        );
        assert!(std::ptr::eq(registry.get(m.name).unwrap(), m));
        let with_unit = m.label_with_unit();
        match m.unit {
            Unit::Seconds => assert!(with_unit.ends_with("(s)"), "{with_unit}"),
            Unit::Fraction | Unit::Ratio => assert_eq!(with_unit, m.label),
            _ => {}
        }
    }
    registry.metrics
}

#[test]
fn every_registry_is_well_formed_and_renames_point_somewhere() {
    let mut all: Vec<&str> = Vec::new();
    all.extend(check_rows(&RIGID_METRICS).iter().map(|m| m.name));
    all.extend(check_rows(&UTILITY_METRICS).iter().map(|m| m.name));
    all.extend(check_rows(&MALLEABLE_METRICS).iter().map(|m| m.name));
    all.extend(check_rows(&PARTITION_METRICS).iter().map(|m| m.name));
    all.extend(check_rows(&CLUSTER_METRICS).iter().map(|m| m.name));
    for (old, new) in RENAMED {
        assert!(
            all.contains(&new),
            "{old} renamed to {new}, which no registry has"
        );
        let err = CLUSTER_METRICS.get(old).unwrap_err();
        assert_eq!(
            err,
            schedlab::metrics::MetricError::Renamed {
                name: old.to_string(),
                new
            }
        );
        assert!(err.to_string().contains(new), "{err}");
    }
    // One vocabulary: a name means the same quantity in every registry that has it.
    for shared in ["mean_wait", "mean_response", "utilization", "jobs"] {
        assert!(RIGID_METRICS.get(shared).is_ok(), "{shared}");
    }
    assert!(check_rigid_metric("earned_p50").is_ok());
    // An unknown name lists the rigid metrics and the utility ones, as a value, not as text.
    match check_rigid_metric("mean_bsd").unwrap_err() {
        schedlab::metrics::MetricError::Unknown { allowed, .. } => {
            assert!(
                allowed.contains(&"mean_bsld") && allowed.contains(&"earned_p50"),
                "{allowed:?}"
            )
        }
        other => panic!("{other}"),
    }
}

#[test]
fn rigid_accessors_read_the_summary() {
    let workload = Model::from_name("downey", &[("days".into(), "3".into())])
        .unwrap()
        .generate(5);
    let mut engine = Engine::new();
    let mut scheduler = SchedulerKind::Easy.build();
    let outcome = scheduler.run(&mut engine, &workload.jobs, workload.procs);
    let s = Summary::of_outcome(
        &workload.jobs,
        workload.procs,
        &outcome,
        0..workload.jobs.len(),
        &workload.skipped,
    );
    let expected: Vec<(&str, f64)> = vec![
        ("jobs", s.jobs as f64),
        ("mean_wait", s.mean_wait),
        ("mean_response", s.mean_response),
        ("mean_bsld", s.mean_bsld),
        ("utilization", s.utilization),
        ("makespan", s.makespan as f64),
        ("p25_wait", s.wait.p25),
        ("max_wait", s.wait.p100),
        ("p98_bsld", s.bsld.p98),
        ("max_expansion", s.expansion.p100),
        ("backfilled", s.backfilled as f64),
    ];
    for (name, value) in expected {
        assert_eq!(s.metric(name), Some(value), "{name}");
    }
    for m in RIGID_METRICS.metrics {
        let v = (m.value)(&s);
        // A size class without jobs has no mean.
        let empty_class = s
            .size_classes
            .iter()
            .any(|c| c.jobs == 0 && m.name.ends_with(c.class));
        assert!(
            v.is_finite() && v >= 0.0 || empty_class && v.is_nan(),
            "{}: {v}",
            m.name
        );
    }
    // Without utility functions the utility metrics are NaN, not an error.
    for m in UTILITY_METRICS.metrics {
        assert!(s.metric(m.name).unwrap().is_nan(), "{}", m.name);
    }
    assert_eq!(s.metric("no_such_metric"), None);
}

#[test]
fn saturated_runs_follow_each_rows_rule() {
    for m in RIGID_METRICS.metrics {
        let v = saturated_metric(m.name, 42).unwrap();
        match m.saturated {
            WhenSaturated::Infinite => assert_eq!(v, f64::INFINITY, "{}", m.name),
            WhenSaturated::Undefined => assert!(v.is_nan(), "{}", m.name),
            WhenSaturated::Measured => assert_eq!(v, 42.0, "{}", m.name),
        }
    }
    // Waits and responses grow without bound; utilisation is not defined.
    assert_eq!(saturated_metric("mean_wait", 1), Some(f64::INFINITY));
    assert_eq!(saturated_metric("p98_bsld", 1), Some(f64::INFINITY));
    assert!(saturated_metric("utilization", 1).unwrap().is_nan());
    assert!(saturated_metric("earned_p50", 1).unwrap().is_nan());
    assert_eq!(saturated_metric("jobs", 7), Some(7.0));
    let queue = CLUSTER_METRICS.get("mean_queue").unwrap();
    assert_eq!(queue.saturated_value(0), f64::INFINITY);
}

#[test]
fn malleable_and_partition_accessors() {
    let workload = Model::from_name("downey", &[("days".into(), "2".into())])
        .unwrap()
        .generate(3);
    let outcome = simulate(&workload.jobs, workload.procs, &"avg".parse().unwrap()).unwrap();
    let mean_response = outcome.mean_response;
    let report = MalleableReport::System(outcome);
    for m in MALLEABLE_METRICS.metrics {
        let v = (m.value)(&report);
        let application_only = [
            "spoiled_fraction",
            "docile_fraction",
            "savings_per_job",
            "median_savings_per_rebel",
            "mean_savings_per_rebel",
            "losing_rebel_fraction",
            "mean_loss_per_losing_rebel",
            "rebel_lifetime_ratio",
        ];
        if application_only.contains(&m.name) {
            assert!(v.is_nan(), "{} is application-centric", m.name);
        }
    }
    assert_eq!(
        (MALLEABLE_METRICS.get("mean_response").unwrap().value)(&report),
        mean_response
    );

    let jobs = generate(MoldableWorkload::Wk1, 32, 0.5, 300, 9);
    let measure = Measure {
        warmup: 50,
        window: 200,
        saturation: None,
    };
    let run = schedlab::partition::simulate(&jobs, 32, "aep".parse::<Policy>().unwrap(), &measure);
    let reference = schedlab::partition::simulate(&jobs, 32, Policy::DYN_EQUI, &measure);
    let outcome = PartitionOutcome {
        run,
        reference: Some(reference),
    };
    let value = |name: &str| (PARTITION_METRICS.get(name).unwrap().value)(&outcome);
    assert_eq!(value("jobs"), 200.0);
    assert_eq!(value("mean_response"), run.response);
    assert_eq!(value("normalized_response"), run.response / reference.response);
    let alone = PartitionOutcome { run, reference: None };
    assert!((PARTITION_METRICS.get("normalized_response").unwrap().value)(&alone).is_nan());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Through the registry, under every scheduler: every rigid metric is finite and not
    /// negative, `jobs` counts the jobs, utilisation is a fraction, and the percentiles
    /// of each quantity are ordered and bounded by its maximum.
    #[test]
    fn rigid_registry_values_are_plausible((procs, jobs) in common::random_workload(16, 40)) {
        let mut engine = Engine::new();
        for kind in SchedulerKind::on_any_jobs() {
            let outcome = kind.build().run(&mut engine, &jobs, procs);
            let s = Summary::of_outcome(&jobs, procs, &outcome, 0..jobs.len(), &Default::default());
            let value = |name: &str| (RIGID_METRICS.get(name).unwrap().value)(&s);
            for m in RIGID_METRICS.metrics {
                let v = (m.value)(&s);
                let empty_class = s.size_classes.iter().any(|c| c.jobs == 0 && m.name.ends_with(c.class));
                prop_assert!(v.is_finite() && v >= 0.0 || empty_class && v.is_nan(), "{} under {}: {}", m.name, kind, v);
            }
            prop_assert_eq!(value("jobs"), jobs.len() as f64);
            // The size classes partition the jobs and their means recombine to the mean.
            let classes = &s.size_classes;
            prop_assert_eq!(classes.iter().map(|c| c.jobs).sum::<u64>(), s.jobs);
            let recombined: f64 = classes.iter().filter(|c| c.jobs > 0).map(|c| c.jobs as f64 * c.mean_wait).sum();
            prop_assert!((recombined - s.jobs as f64 * s.mean_wait).abs() <= 1e-6 * (1.0 + recombined.abs()));
            // Fairness: Jain's index between 1/users and 1; a user's mean lies within the jobs' range.
            let users = value("users");
            for j in ["jain_wait", "jain_bsld"] {
                prop_assert!(value(j) >= 1.0 / users - 1e-12 && value(j) <= 1.0 + 1e-12, "{}: {}", j, value(j));
            }
            prop_assert!(value("mean_user_wait") <= value("max_wait") + 1e-9);
            prop_assert!(value("mean_user_bsld") >= 1.0);
            prop_assert!(value("utilization") <= 1.0 + 1e-12);
            for q in ["wait", "expansion"] {
                let p = |x: &str| value(&format!("{x}_{q}"));
                prop_assert!(p("p25") <= p("p50") && p("p50") <= p("p75") && p("p75") <= p("p98"));
                prop_assert!(p("p98") <= p("max") * 1.001, "{}: p98 {} max {}", q, p("p98"), p("max"));
            }
            prop_assert!(value("mean_wait") <= value("max_wait"));
            prop_assert!(value("mean_bsld") >= 1.0);
        }
    }
}

/// Fairness over users and waits by size class on a schedule worked out by hand: a
/// 10-processor machine, five jobs of three known users and one unknown.
#[test]
fn per_user_fairness_and_size_classes_by_hand() {
    use schedlab::metrics::{jain, size_class};
    use schedlab::workload::{JobRecord, Jobs, SkipCounts};
    // (user, procs, submit, start, runtime): waits 0, 100, 50, 20, 0.
    let spec = [
        (1, 1, 0, 0, 100),
        (1, 1, 0, 100, 100),
        (2, 6, 10, 60, 40),
        (2, 2, 20, 40, 10),
        (-1, 10, 300, 300, 5),
    ];
    let records: Vec<JobRecord> = spec
        .iter()
        .enumerate()
        .map(|(i, &(user, procs, submit, _, runtime))| {
            let mut r = JobRecord::new(i as u64 + 1, submit, runtime, procs, runtime);
            r.user = user;
            r
        })
        .collect();
    let jobs = Jobs::from_records(&records);
    let start: Vec<i64> = spec.iter().map(|s| s.3).collect();
    let end: Vec<i64> = spec.iter().map(|s| s.3 + s.4).collect();
    let s = Summary::from_schedule(&jobs, 10, &start, &end, &SkipCounts::default());
    // bsld: max(1, response / max(runtime, 10)): 1, 2, 90/40, 30/10, 1.
    let bsld = [1.0, 2.0, 2.25, 3.0, 1.0];
    // Users: 1 -> waits {0, 100}, bslds {1, 2}; 2 -> {50, 20}, {2.25, 3}; unknown -> {0}, {1}.
    let user_waits = [50.0, 35.0, 0.0];
    let user_bslds = [1.5, 2.625, 1.0];
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert_eq!(s.users.users, 3);
    assert!(
        close(s.users.mean_user_wait, 85.0 / 3.0),
        "{}",
        s.users.mean_user_wait
    );
    assert!(close(s.users.mean_user_bsld, 5.125 / 3.0));
    let jain_of =
        |x: &[f64]| x.iter().sum::<f64>().powi(2) / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>());
    assert!(close(s.users.jain_wait, jain_of(&user_waits)));
    assert!(close(s.users.jain_bsld, jain_of(&user_bslds)));
    assert!(close(
        jain_of(&user_waits),
        85.0 * 85.0 / (3.0 * (2500.0 + 1225.0))
    ));
    assert!(close(s.mean_bsld, bsld.iter().sum::<f64>() / 5.0));
    // Classes on 10 processors: 1 serial; 2..=1 narrow (none: 10% of 10 is 1); 2..=5 medium; 6..=10 wide.
    assert_eq!(
        (
            size_class(1, 10),
            size_class(2, 10),
            size_class(5, 10),
            size_class(6, 10)
        ),
        (0, 2, 2, 3)
    );
    assert_eq!(
        (
            size_class(12, 128),
            size_class(13, 128),
            size_class(64, 128),
            size_class(65, 128)
        ),
        (1, 2, 2, 3)
    );
    let c = &s.size_classes;
    assert_eq!(c.iter().map(|c| c.jobs).collect::<Vec<_>>(), [2, 0, 1, 2]);
    assert!(close(c[0].mean_wait, 50.0) && close(c[0].mean_bsld, 1.5));
    assert!(c[1].mean_wait.is_nan() && s.metric("mean_wait_narrow").unwrap().is_nan());
    assert!(close(c[2].mean_wait, 20.0) && close(c[2].mean_bsld, 3.0));
    assert!(close(c[3].mean_wait, 25.0) && close(s.metric("mean_bsld_wide").unwrap(), 1.625));
    assert_eq!(s.metric("jobs_serial"), Some(2.0));
    // Jain's index: 1 when all alike (or all zero), 1/n when one bears it all.
    assert_eq!(jain([3.0, 3.0].into_iter()), 1.0);
    assert_eq!(jain([0.0, 0.0].into_iter()), 1.0);
    assert!(close(jain([5.0, 0.0, 0.0, 0.0].into_iter()), 0.25));
    assert!(jain(std::iter::empty()).is_nan());
}
