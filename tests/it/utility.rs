//! Utility functions (Lee & Snavely): the SWF extension round trip, and the generator's
//! statistics on a large sample.

use schedlab::utility::{
    Augmentation, DeadlineBasis, DecayMix, DecayType, PriorityMap, StartBin, UtilityModel,
};
use schedlab::workload::swf::{SwfOptions, parse_swf_str, recorded_starts, write_swf};
use schedlab::workload::{JobRecord, Jobs, UtilityFunction};
use statrs::distribution::{Continuous, ContinuousCDF, Normal};

const AUGMENTED: &str = "; MaxProcs: 8
; Note: two jobs with utility tuples, the second submitted first
1 10 5 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1 0 50 60 40.5 120 0
2 0 0 30 4 -1 -1 4 60 -1 1 2 1 1 2 -1 -1 -1 0 8 10 8 10.001 1 20 1e-3
";

#[test]
fn an_augmented_trace_round_trips() {
    let w = parse_swf_str(AUGMENTED, "aug.swf", &SwfOptions::default()).unwrap();
    let u = w.jobs.utility.as_ref().expect("functions read");
    // Sorted by submit: job 2 first, its function with it.
    assert_eq!(w.jobs.swf_id, [2, 1]);
    assert_eq!(w.jobs.recorded_wait, [0, 5]);
    assert_eq!(u[1].points(), &[(0.0, 50.0), (60.0, 40.5), (120.0, 0.0)]);
    assert!((u[0].value(10.0005) - 4.5).abs() < 1e-9);
    let mut text = Vec::new();
    write_swf(&mut text, &w, &recorded_starts(&w.jobs), "").unwrap();
    let again = parse_swf_str(
        std::str::from_utf8(&text).unwrap(),
        "again.swf",
        &SwfOptions::default(),
    )
    .unwrap();
    assert_eq!(again.jobs.utility, w.jobs.utility);
    assert_eq!(again.jobs.recorded_wait, w.jobs.recorded_wait);
    assert_eq!(again.jobs.submit, w.jobs.submit);
    assert_eq!(again.jobs.estimate, w.jobs.estimate);
}

#[test]
fn bad_tuples_name_the_line_and_the_rule() {
    let err = |body: &str| {
        parse_swf_str(
            &format!("; MaxProcs: 8\n{body}"),
            "bad.swf",
            &SwfOptions::default(),
        )
        .unwrap_err()
        .to_string()
    };
    let line = "1 0 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1";
    let e = err(&format!("{line} 0 5 10 6\n"));
    assert!(e.starts_with("bad.swf:2:"), "{e}");
    assert!(
        e.contains("point 1: values must not increase, but 6 follows 5"),
        "{e}"
    );
    let e = err(&format!("{line} 3 5\n"));
    assert!(e.contains("the first time must be 0"), "{e}");
    let e = err(&format!("{line} 0 5 9\n"));
    assert!(e.contains("missing value"), "{e}");
    let e = err(&format!("{line} 0 5\n{line}\n"));
    assert!(
        e.starts_with("bad.swf:3:") && e.contains("no utility tuples"),
        "{e}"
    );
    // Lenient reading skips and counts such lines.
    let lenient = SwfOptions {
        lenient: true,
        ..SwfOptions::default()
    };
    let text = format!("; MaxProcs: 8\n{line} 0 5\n{line} 0 5 1 6\n{line} 0 7\n");
    let w = parse_swf_str(&text, "x.swf", &lenient).unwrap();
    assert_eq!((w.jobs.len(), w.skipped.malformed), (2, 1));
}

/// `n` jobs cycling through queues 0, 1, 2, each on 4 processors requesting 60 s (4
/// processor-minutes), with recorded waits 0, 7, 100, 1000 and runtimes 30 s.
fn sample(n: usize) -> Jobs {
    let records: Vec<JobRecord> = (0..n)
        .map(|i| {
            let mut r = JobRecord::new(i as u64 + 1, i as i64, 30, 4, 60);
            r.queue = (i % 3) as i32;
            r.recorded_wait = [0, 7, 100, 1000][i % 4];
            r
        })
        .collect();
    Jobs::from_records(&records)
}

#[test]
fn generator_statistics_match_the_model() {
    let jobs = sample(60_000);
    let map: PriorityMap = "0:0,1:1,2:2".parse().unwrap();
    let priority = map.apply(&jobs).unwrap();
    let model = UtilityModel::default();
    let (functions, types) = model.generate(&jobs, &priority, map.levels(), 11);
    // Decay types: one third each (binomial sd ~ 0.002).
    for d in DecayType::ALL {
        let share = types.iter().filter(|&&t| t == d).count() as f64 / types.len() as f64;
        assert!((share - 1.0 / 3.0).abs() < 0.01, "{d:?}: {share}");
    }
    // Start value per processor-minute: a Normal truncated at 0, centred on the bin of the
    // priority counted from the top (the highest priority gets the highest bin).
    let bin = model.globmax / 3.0;
    check_start_values(&functions, &priority, &model, |p| (2.0 - p as f64 + 0.5) * bin);
    // The formula as printed, (p + 0.5) / N: the highest priority gets the lowest bin.
    let literal = UtilityModel {
        start_bin: StartBin::Literal,
        ..UtilityModel::default()
    };
    let (printed, _) = literal.generate(&jobs, &priority, map.levels(), 11);
    check_start_values(&printed, &priority, &literal, |p| (p as f64 + 0.5) * bin);
    deadlines_and_shapes(&functions, &types);
}

/// Start values per processor-minute (the sample's jobs request 4): a Normal truncated at
/// 0 around `centre(priority)`.
fn check_start_values(
    functions: &[UtilityFunction],
    priority: &[u16],
    model: &UtilityModel,
    centre: impl Fn(u16) -> f64,
) {
    let bin = model.globmax / 3.0;
    for p in 0..3u16 {
        let mean = centre(p);
        let sd = model.sd * bin;
        let normal = Normal::new(0.0, 1.0).unwrap();
        let alpha = -mean / sd;
        let expected = mean + sd * normal.pdf(alpha) / (1.0 - normal.cdf(alpha));
        let values: Vec<f64> = functions
            .iter()
            .zip(priority)
            .filter(|&(_, &q)| q == p)
            .map(|(f, _)| f.start_value() / 4.0)
            .collect();
        let got = values.iter().sum::<f64>() / values.len() as f64;
        assert!(values.iter().all(|&v| v >= 0.0));
        assert!(
            (got - expected).abs() < 0.01 * bin,
            "priority {p}: {got} vs {expected}"
        );
    }
}

/// Deadline: the last point's time is max(2 x (wait + runtime), 10 s); linear and
/// exponential end at value 0 there, step keeps its lower value until then.
fn deadlines_and_shapes(functions: &[UtilityFunction], types: &[DecayType]) {
    // Deadline: the last point's time is max(2 x (wait + runtime), 10 s); linear and
    // exponential end at value 0 there, step keeps its lower value until then.
    for (j, (f, t)) in functions.iter().zip(types).enumerate() {
        let wait = [0, 7, 100, 1000][j % 4] as f64;
        let deadline = (2.0 * (wait + 30.0)).max(10.0);
        let &(last_t, last_v) = f.points().last().unwrap();
        assert_eq!(last_t, deadline);
        assert_eq!(f.value(deadline + 1e-6), 0.0);
        match t {
            DecayType::Step => {
                assert_eq!(f.points().len(), 4);
                assert_eq!(f.points()[1].1, f.start_value());
                assert!(last_v <= f.start_value());
            }
            _ => {
                assert_eq!(last_v, 0.0);
                assert_eq!(f.points().len(), UtilityModel::default().points + 2);
            }
        }
    }
}

#[test]
fn deadline_rule_basis_and_factor() {
    let jobs = sample(8);
    let wait = UtilityModel {
        deadline_from: DeadlineBasis::Wait,
        deadline_factor: 3.0,
        ..UtilityModel::default()
    };
    // Waits 0, 7, 100, 1000: 3 x wait, at least 10 s.
    let got: Vec<f64> = (0..4).map(|j| wait.deadline(&jobs, j)).collect();
    assert_eq!(got, [10.0, 21.0, 300.0, 3000.0]);
    let turnaround = UtilityModel::default();
    let got: Vec<f64> = (0..4).map(|j| turnaround.deadline(&jobs, j)).collect();
    assert_eq!(got, [60.0, 74.0, 260.0, 2060.0]);
}

#[test]
fn decay_mix_and_single_types() {
    let jobs = sample(3000);
    let map: PriorityMap = "*:0".parse().unwrap();
    let priority = map.apply(&jobs).unwrap();
    for (text, want) in [("step", DecayType::Step), ("linear", DecayType::Linear)] {
        let model = UtilityModel {
            decay: text.parse().unwrap(),
            ..UtilityModel::default()
        };
        let (_, types) = model.generate(&jobs, &priority, 1, 3);
        assert!(types.iter().all(|&t| t == want));
    }
    let mix: DecayMix = "2:0:1".parse().unwrap();
    let model = UtilityModel {
        decay: mix,
        ..UtilityModel::default()
    };
    let (_, types) = model.generate(&jobs, &priority, 1, 3);
    let linear = types.iter().filter(|&&t| t == DecayType::Linear).count() as f64 / 3000.0;
    assert!((linear - 2.0 / 3.0).abs() < 0.03, "{linear}");
    assert!(!types.contains(&DecayType::Exponential));
    assert!(
        "1:x:1"
            .parse::<DecayMix>()
            .unwrap_err()
            .to_string()
            .contains("weights")
    );
    assert!("0:0:0".parse::<DecayMix>().is_err());
}

#[test]
fn generation_is_seeded_and_kept_when_the_trace_brings_functions() {
    let mut a = sample(500);
    let mut b = sample(500);
    let aug = Augmentation {
        priorities: "0:0,1:1,2:2".parse().unwrap(),
        model: UtilityModel::default(),
    };
    aug.apply(&mut a, 5).unwrap();
    aug.apply(&mut b, 5).unwrap();
    assert_eq!(a.utility, b.utility);
    let mut c = sample(500);
    aug.apply(&mut c, 6).unwrap();
    assert_ne!(a.utility, c.utility);
    // A trace with its own functions keeps them; only priorities are set.
    let own = vec![UtilityFunction::new(vec![(0.0, 1.0)]).unwrap(); 500];
    let mut d = sample(500);
    d.utility = Some(own.clone());
    aug.apply(&mut d, 5).unwrap();
    assert_eq!(d.utility.as_ref(), Some(&own));
    assert_eq!(d.priority.as_ref().unwrap()[..3], [0, 1, 2]);
}
