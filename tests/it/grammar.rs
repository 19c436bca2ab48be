//! Property tests of the one parameter grammar (`schedlab::call`): for every kind that is
//! written `name(key=value,...)`, the canonical `Display` parses back to the same value,
//! whitespace around the tokens changes nothing, and no string makes a parser panic.

use std::fmt::{Debug, Display};
use std::str::FromStr;

use proptest::prelude::*;

use schedlab::malleable::{Allocation, Strategy as Allocate};
use schedlab::nondedicated::estimate::{CpuMethod, Estimator, RemMethod};
use schedlab::nondedicated::{JobSelection, NodeSelection};
use schedlab::partition::Policy;
use schedlab::partition::policy::Rule;
use schedlab::predict::{Growth, PredictorKind, SbhParams, Search, Statistic};
use schedlab::queue_time::QueueMethod;
use schedlab::sched::{GaParams, SchedulerKind};

fn scheduler() -> impl Strategy<Value = SchedulerKind> {
    prop_oneof![
        // Every registered scheduler at its defaults; the GA's parameters drawn below.
        prop::sample::select(SchedulerKind::EVERY.to_vec()),
        (1u32..=10_000, 0u32..=1_000_000, 0u32..=100, 0u32..=3).prop_map(
            |(population, generations, mutation, trial)| {
                SchedulerKind::Ga(GaParams {
                    population,
                    generations,
                    mutation,
                    trial,
                })
            }
        ),
    ]
}

fn criteria(no_estimate: bool) -> impl Strategy<Value = String> {
    let lists: &[&str] = if no_estimate {
        &["PX|P|X|*", "P|X", "*", "X|PX", "P"]
    } else {
        &["PE|P|E|*", "E|P|X", "PEX|*", "E", "P|*|X|PE"]
    };
    prop::sample::select(lists.to_vec()).prop_map(str::to_string)
}

fn sbh(no_estimate: bool) -> impl Strategy<Value = SbhParams> {
    (
        criteria(no_estimate),
        any::<bool>(),
        0u32..50,
        any::<bool>(),
        0i64..1_000_000,
        prop_oneof![Just(None), (1i64..10_000_000).prop_map(Some)],
    )
        .prop_map(move |(criteria, bfs, depth, prop, think, cap)| {
            let growth = match (no_estimate, cap) {
                (false, _) => None,
                (true, Some(cap)) => Some(Growth::Balanced { cap }),
                (true, None) => Some(Growth::Unbalanced),
            };
            SbhParams {
                criteria: criteria.parse().unwrap(),
                search: if bfs { Search::Bfs } else { Search::Dfs },
                depth,
                prop,
                think,
                growth,
            }
        })
}

fn predictor() -> impl Strategy<Value = PredictorKind> {
    prop_oneof![
        Just(PredictorKind::Perfect),
        Just(PredictorKind::Estimate),
        Just(PredictorKind::Application),
        (1i64..i64::MAX).prop_map(|c| PredictorKind::Constant { c }),
        (1usize..=1000, any::<bool>(), any::<bool>()).prop_map(|(k, mean, prop)| PredictorKind::Ruh {
            k,
            stat: if mean { Statistic::Mean } else { Statistic::Median },
            prop,
        }),
        sbh(false).prop_map(PredictorKind::Sbh),
        sbh(true).prop_map(PredictorKind::Sbh),
    ]
}

fn method() -> impl Strategy<Value = QueueMethod> {
    prop::sample::select(vec![
        QueueMethod::A,
        QueueMethod::B,
        QueueMethod::Combined,
        QueueMethod::Exact,
        QueueMethod::Simulation,
    ])
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), 0.0f64..1e6, (0u32..1000).prop_map(|n| n as f64 / 10.0)]
}

fn allocation() -> impl Strategy<Value = Allocation> {
    let strategy = prop_oneof![
        Just(Allocate::Avg),
        Just(Allocate::Opt),
        method().prop_map(|method| Allocate::Pred { method }),
        method().prop_map(|method| Allocate::Bias { method }),
        (number(), number(), number(), number()).prop_map(|(l_thresh, a_thresh, f, k)| Allocate::Heur {
            l_thresh,
            a_thresh,
            f,
            k,
        }),
    ];
    let options = (any::<bool>(), number(), any::<bool>(), any::<bool>());
    (strategy, options).prop_map(|(strategy, (lock_in, risk, model, every_event))| {
        // Each strategy carries only the options it takes.
        let takes_risk = matches!(
            strategy,
            Allocate::Opt | Allocate::Pred { .. } | Allocate::Bias { .. }
        );
        let takes_lifetimes = matches!(strategy, Allocate::Pred { .. } | Allocate::Bias { .. });
        Allocation {
            strategy,
            lock_in: lock_in && strategy != Allocate::Avg,
            risk_aversion: if takes_risk { risk } else { 0.0 },
            model_lifetimes: model && takes_lifetimes,
            every_event: every_event && takes_lifetimes,
            // Not part of the strategy's text: set by the max_cluster key.
            max_cluster: Default::default(),
        }
    })
}

fn policy() -> impl Strategy<Value = Policy> {
    prop_oneof![
        Just(Policy::DynEqui),
        (
            prop::sample::select(vec![Rule::Asp, Rule::Ap1, Rule::Aep]),
            0u8..=2,
            any::<bool>()
        )
            .prop_map(|(rule, knowledge, free)| Policy::Adaptive {
                rule,
                knowledge,
                dif_free: free && knowledge == 2
            }),
        Just(Policy::Adaptive {
            rule: Rule::Sdf { max: None },
            knowledge: 1,
            dif_free: false
        }),
        (1u32..100_000).prop_map(|m| Policy::Adaptive {
            rule: Rule::Sdf { max: Some(m) },
            knowledge: 1,
            dif_free: false
        }),
    ]
}

fn estimator() -> impl Strategy<Value = Estimator> {
    let rem = prop::sample::select(vec![RemMethod::Prop, RemMethod::Mpl, RemMethod::Cpu]);
    let cpu = prop::sample::select(vec![CpuMethod::Mpl, CpuMethod::Cpu]);
    prop_oneof![
        Just(Estimator::Historical),
        Just(Estimator::Hybrid),
        (rem, cpu).prop_map(|(rem, cpu)| Estimator::Simulation { rem, cpu }),
    ]
}

/// The canonical text with spaces (chosen by `spaces`) around the name, the parentheses,
/// commas and `=`, where the grammar ignores them.
fn spaced(canonical: &str, spaces: &[u8]) -> String {
    let mut out = String::new();
    let mut k = 0;
    let mut pad = |out: &mut String| {
        let n = spaces.get(k).copied().unwrap_or(0) % 3;
        k += 1;
        out.push_str(&" ".repeat(n as usize));
    };
    pad(&mut out);
    for c in canonical.chars() {
        if matches!(c, '(' | ')' | ',' | '=') {
            pad(&mut out);
            out.push(c);
            pad(&mut out);
        } else {
            out.push(c);
        }
    }
    pad(&mut out);
    out
}

fn round_trip<T>(value: &T, spaces: &[u8]) -> Result<(), TestCaseError>
where
    T: Display + FromStr + PartialEq + Debug,
    T::Err: Display,
{
    let canonical = value.to_string();
    let parsed = canonical
        .parse::<T>()
        .map_err(|e| TestCaseError::fail(format!("{canonical}: {e}")))?;
    prop_assert_eq!(&parsed, value, "{} parsed back differently", canonical);
    let loose = spaced(&canonical, spaces);
    let parsed = loose
        .parse::<T>()
        .map_err(|e| TestCaseError::fail(format!("'{loose}': {e}")))?;
    prop_assert_eq!(&parsed, value, "'{}' parsed differently", loose);
    prop_assert_eq!(parsed.to_string(), canonical);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn schedulers_round_trip(k in scheduler(), spaces in prop::collection::vec(any::<u8>(), 40)) {
        round_trip(&k, &spaces)?;
    }

    #[test]
    fn predictors_round_trip(k in predictor(), spaces in prop::collection::vec(any::<u8>(), 40)) {
        round_trip(&k, &spaces)?;
    }

    #[test]
    fn strategies_round_trip(a in allocation(), spaces in prop::collection::vec(any::<u8>(), 40)) {
        round_trip(&a, &spaces)?;
    }

    #[test]
    fn policies_round_trip(p in policy(), spaces in prop::collection::vec(any::<u8>(), 40)) {
        round_trip(&p, &spaces)?;
    }

    #[test]
    fn estimators_round_trip(e in estimator(), spaces in prop::collection::vec(any::<u8>(), 40)) {
        round_trip(&e, &spaces)?;
    }

    /// Arbitrary text, and text near the grammar (names, keys and punctuation), never
    /// panics any parser; whatever parses prints a canonical form that parses to it.
    #[test]
    fn no_text_panics(text in prop_oneof![
        any::<String>(),
        "[a-z-]{0,10}( ?\\(([a-z_]{0,6} ?= ?[a-zA-Z0-9.|*-]{0,6} ?,?){0,4}\\)?)?",
    ]) {
        fn check<T>(text: &str) -> Result<(), TestCaseError>
        where
            T: Display + FromStr + PartialEq + Debug,
            T::Err: Display,
        {
            if let Ok(v) = text.parse::<T>() {
                prop_assert_eq!(v.to_string().parse::<T>().ok(), Some(v));
            }
            Ok(())
        }
        check::<SchedulerKind>(&text)?;
        check::<PredictorKind>(&text)?;
        check::<Allocation>(&text)?;
        check::<Policy>(&text)?;
        check::<Estimator>(&text)?;
        check::<JobSelection>(&text)?;
        check::<NodeSelection>(&text)?;
    }
}

/// One rule for whitespace and unknown keys across kinds (the four parsers used to
/// disagree: `ga (population=20)` was refused while `constant (c=5)` parsed).
#[test]
fn every_kind_follows_the_same_rules() {
    assert!("ga (population = 20)".parse::<SchedulerKind>().is_ok());
    assert!("constant (c=5)".parse::<PredictorKind>().is_ok());
    assert!("heur (k=0.2)".parse::<Allocation>().is_ok());
    assert!("aep (2)".parse::<Policy>().is_ok());
    for (kind, message) in [
        (
            "ga(pop=20)",
            "ga(pop=20)".parse::<SchedulerKind>().unwrap_err().to_string(),
        ),
        (
            "constant(k=1)",
            "constant(k=1)".parse::<PredictorKind>().unwrap_err().to_string(),
        ),
        (
            "heur(risk=1)",
            "heur(risk=1)".parse::<Allocation>().unwrap_err().to_string(),
        ),
        (
            "sdf-max(min=1)",
            "sdf-max(min=1)".parse::<Policy>().unwrap_err().to_string(),
        ),
        (
            "easy(x=1)",
            "easy(x=1)".parse::<SchedulerKind>().unwrap_err().to_string(),
        ),
        (
            "hybrid(x=1)",
            "hybrid(x=1)".parse::<Estimator>().unwrap_err().to_string(),
        ),
    ] {
        assert!(message.contains("unknown parameter"), "{kind}: {message}");
        assert!(message.contains(kind), "{kind}: {message}");
    }
    assert_eq!(
        "ga(pop=20)".parse::<SchedulerKind>().unwrap_err().to_string(),
        "scheduler 'ga(pop=20)': unknown parameter 'pop'; ga takes population, generations, mutation, trial"
    );
    assert_eq!(
        "easy(x=1)".parse::<SchedulerKind>().unwrap_err().to_string(),
        "scheduler 'easy(x=1)': unknown parameter 'x'; easy takes no parameters"
    );
}

/// The lists a reader sees are the registry's: every registered scheduler and predictor is
/// named in docs/sweeps.md's table of keys and in `schedlab run --help`.
#[test]
fn the_docs_the_readme_and_the_help_list_every_registered_scheduler_predictor_and_model() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/sweeps.md")).unwrap();
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for name in SchedulerKind::NAMES {
        assert!(
            readme.contains(&format!("`{name}`")),
            "the README lacks scheduler {name}"
        );
    }
    for (name, _) in PredictorKind::names() {
        let listed = readme.contains(&format!("`{name}`")) || readme.contains(&format!("`{name}("));
        assert!(listed, "the README lacks predictor {name}");
    }
    for name in schedlab::workload::synth::MODEL_NAMES {
        assert!(
            readme.contains(&format!("--model {name}")),
            "the README lacks model {name}"
        );
    }
    let row = |key: &str| {
        docs.lines()
            .find(|l| l.starts_with(&format!("| `{key}` |")))
            .unwrap_or_else(|| panic!("docs/sweeps.md has no row for {key}"))
            .to_string()
    };
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["run", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let (schedulers, predictors) = (row("scheduler"), row("predictor"));
    for name in SchedulerKind::NAMES {
        assert!(
            schedulers.contains(&format!("`{name}`")),
            "docs/sweeps.md lacks scheduler {name}"
        );
        assert!(
            help.contains(&format!("\n          {name}")),
            "run --help lacks scheduler {name}"
        );
    }
    for (name, syntax) in PredictorKind::names() {
        assert!(
            predictors.contains(&format!("`{name}`")),
            "docs/sweeps.md lacks predictor {name}"
        );
        assert!(help.contains(syntax), "run --help lacks predictor {syntax}");
    }
}
