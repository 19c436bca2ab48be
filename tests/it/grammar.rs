//! Property tests of the one parameter grammar (`schedlab::call`): for every kind that is
//! written `name(key=value,...)`, the canonical `Display` parses back to the same value,
//! whitespace around the tokens changes nothing, and no string makes a parser panic.

use std::fmt::{Debug, Display};
use std::str::FromStr;

use proptest::prelude::*;

use schedlab::malleable::Allocation;
use schedlab::malleable::strategy::{Avg, Bias, Heur, Opt, Pred, Predicting, Rebel, Strategy as Allocate};
use schedlab::nondedicated::estimate::{CpuMethod, Estimator, RemMethod, Simulation};
use schedlab::nondedicated::{JobSelection, NodeSelection};
use schedlab::partition::Policy;
use schedlab::partition::policy::{Aep, Ap1, Asp, Knowledge, Sdf, SdfMax};
use schedlab::predict::{Growth, PredictorKind, SbhParams, Search, Statistic};
use schedlab::queue_time::QueueMethod;
use schedlab::sched::{GaParams, SchedulerKind};

fn scheduler() -> impl Strategy<Value = SchedulerKind> {
    prop_oneof![
        // Every registered scheduler at its defaults; the GA's parameters drawn below.
        prop::sample::select(SchedulerKind::EVERY.to_vec()),
        (
            1u32..=10_000,
            0u32..=1_000_000,
            0u32..=100,
            0u32..=3,
            prop_oneof![Just(1u32), 2u32..=8],
            0u32..=50
        )
            .prop_map(|(population, generations, mutation, trial, islands, migration)| {
                SchedulerKind::Ga(GaParams {
                    population: population.min(10_000 / islands),
                    generations,
                    mutation,
                    trial,
                    islands,
                    // Taken only with islands.
                    migration: if islands == 1 {
                        GaParams::DEFAULT.migration
                    } else {
                        migration
                    },
                })
            }),
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

fn rebel() -> impl Strategy<Value = Rebel> {
    (any::<bool>(), number()).prop_map(|(lock_in, risk_aversion)| Rebel {
        lock_in,
        risk_aversion,
    })
}

fn predicting() -> impl Strategy<Value = Predicting> {
    (method(), any::<bool>(), any::<bool>(), rebel()).prop_map(
        |(method, model_lifetimes, every_event, rebel)| Predicting {
            method,
            model_lifetimes,
            every_event,
            rebel,
        },
    )
}

fn allocation() -> impl Strategy<Value = Allocation> {
    let strategy = prop_oneof![
        Just(Allocate::Avg(Avg)),
        rebel().prop_map(|r| Allocate::Opt(Opt(r))),
        predicting().prop_map(|p| Allocate::Pred(Pred(p))),
        predicting().prop_map(|p| Allocate::Bias(Bias(p))),
        (number(), number(), number(), number(), any::<bool>()).prop_map(
            |(l_thresh, a_thresh, f, k, lock_in)| {
                Allocate::Heur(Heur {
                    l_thresh,
                    a_thresh,
                    f,
                    k,
                    lock_in,
                })
            }
        ),
    ];
    // The largest clusters are not part of the strategy's text: set by the max_cluster key.
    strategy.prop_map(|strategy| Allocation {
        strategy,
        max_cluster: Default::default(),
    })
}

fn policy() -> impl Strategy<Value = Policy> {
    let knowledge = (0u8..=2, any::<bool>()).prop_map(|(level, free)| Knowledge {
        level,
        dif_free: free && level == 2,
    });
    prop_oneof![
        Just(Policy::DYN_EQUI),
        knowledge.clone().prop_map(|k| Policy::Asp(Asp(k))),
        knowledge.clone().prop_map(|k| Policy::Ap1(Ap1(k))),
        knowledge.prop_map(|k| Policy::Aep(Aep(k))),
        Just(Policy::Sdf(Sdf)),
        (1u32..100_000).prop_map(|max| Policy::SdfMax(SdfMax { max })),
    ]
}

fn estimator() -> impl Strategy<Value = Estimator> {
    let rem = prop::sample::select(vec![RemMethod::Prop, RemMethod::Mpl, RemMethod::Cpu]);
    let cpu = prop::sample::select(vec![CpuMethod::Mpl, CpuMethod::Cpu]);
    prop_oneof![
        Just(Estimator::HISTORICAL),
        Just(Estimator::HYBRID),
        (rem, cpu).prop_map(|(rem, cpu)| Estimator::Simulation(Simulation { rem, cpu })),
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
        "scheduler 'ga(pop=20)': unknown parameter 'pop'; ga takes population, generations, mutation, trial, islands, migration"
    );
    // The GA's islands: migration alone means nothing (its default is accepted, as the
    // syntax spells it out), and the rows a generation holds are bounded as the population
    // alone is.
    assert_eq!(
        "ga(migration=5)"
            .parse::<SchedulerKind>()
            .unwrap_err()
            .to_string(),
        "scheduler 'ga(migration=5)': migration is taken only with islands above 1"
    );
    assert!(
        "ga(islands=2,population=5001)"
            .parse::<SchedulerKind>()
            .unwrap_err()
            .to_string()
            .contains("islands x population must be at most 10000")
    );
    let islands: SchedulerKind = "ga(islands=4,generations=25)".parse().unwrap();
    assert_eq!(
        islands.to_string(),
        "ga(population=20,generations=25,mutation=10,islands=4,migration=10)"
    );
    assert_eq!(
        "easy(x=1)".parse::<SchedulerKind>().unwrap_err().to_string(),
        "scheduler 'easy(x=1)': unknown parameter 'x'; easy takes no parameters"
    );
}

/// Every scheduler's syntax as `--help` writes it, its defaults spelt out, parses back to
/// the scheduler at its defaults.
#[test]
fn every_scheduler_syntax_parses_at_its_defaults() {
    let help = SchedulerKind::help();
    for line in help.lines() {
        let syntax = line.split(": ").next().unwrap();
        let kind: SchedulerKind = syntax.parse().unwrap_or_else(|e| panic!("{syntax}: {e}"));
        assert_eq!(
            kind.to_string(),
            kind.name(),
            "{syntax} does not spell out the defaults"
        );
    }
    assert_eq!(help.lines().count(), SchedulerKind::NAMES.len());
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

/// The allocation strategies, partitioning policies and estimators a reader sees are their
/// registries': each registered name in docs/sweeps.md's row of its key, and each entry's
/// syntax in its command's `--help`; and each entry's syntax written out with its
/// defaults parses to that entry (syntaxes with alternatives or placeholders: the bare
/// name, where it parses alone).
#[test]
fn the_docs_and_the_help_list_every_strategy_policy_and_estimator() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/sweeps.md")).unwrap();
    let help = |command: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_schedlab"))
            .args([command, "--help"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let kinds: [(&str, &str, &[&str], &[&str]); 3] = [
        ("strategy", "malleable", Allocate::NAMES, Allocate::SYNTAXES),
        ("policy", "moldable", Policy::NAMES, Policy::SYNTAXES),
        ("estimator", "cluster", Estimator::NAMES, Estimator::SYNTAXES),
    ];
    for (key, command, names, syntaxes) in kinds {
        let row = docs
            .lines()
            .find(|l| {
                l.starts_with('|')
                    && l.split('|')
                        .nth(1)
                        .is_some_and(|keys| keys.contains(&format!("`{key}`")))
            })
            .unwrap_or_else(|| panic!("docs/sweeps.md has no row for {key}"));
        for name in names {
            assert!(
                row.contains(&format!("`{name}")),
                "docs/sweeps.md lacks {key} {name}"
            );
        }
        let help = help(command);
        for syntax in syntaxes {
            assert!(
                help.contains(&format!("{syntax}: ")),
                "{command} --help lacks {key} {syntax}"
            );
        }
    }
    for (names, syntaxes, parse) in [
        (
            Allocate::NAMES,
            Allocate::SYNTAXES,
            (|s: &str| s.parse::<Allocate>().map(|k| k.name())) as fn(&str) -> _,
        ),
        (Policy::NAMES, Policy::SYNTAXES, |s: &str| {
            s.parse::<Policy>().map(|k| k.name())
        }),
        (Estimator::NAMES, Estimator::SYNTAXES, |s: &str| {
            s.parse::<Estimator>().map(|k| k.name())
        }),
    ] {
        for (name, syntax) in names.iter().zip(syntaxes) {
            if syntax.contains('|') || syntax.contains(|c: char| c.is_ascii_uppercase()) {
                // Alternatives or a placeholder (`aep(1|2,...)`, `sdf-max(max=N)`): the bare
                // name, where it parses alone.
                if let Ok(parsed) = parse(name) {
                    assert_eq!(parsed, *name);
                }
                continue;
            }
            assert_eq!(parse(syntax).ok(), Some(*name), "{syntax}");
        }
    }
}
