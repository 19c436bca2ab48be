//! Property tests of the sweep spec reader: arbitrary text, and the demo spec with any of
//! its values replaced by arbitrary tokens, never panic the reader; whatever it accepts has
//! cells whose values come from its axes.

use std::path::Path;

use proptest::prelude::*;

use schedlab::sweep::Plan;

const QUICK: &str = include_str!("../../sweeps/quick.toml");

/// Tokens a careless edit may leave where a value was.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("-inf".to_string()),
        Just("0".to_string()),
        Just("-1".to_string()),
        Just("1e308".to_string()),
        Just("9223372036854775807".to_string()),
        Just("\"\"".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just("true".to_string()),
        Just("\"ga(population=0)\"".to_string()),
        Just("{ from = 1, to = 0, step = 0 }".to_string()),
        Just("{ from = 0, to = 1e9, step = 1e-9 }".to_string()),
        "\"[a-z(=,)|*]{0,12}\"",
        "-?[0-9]{1,20}(\\.[0-9]{0,3})?",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let _ = Plan::from_str(&text, Path::new("fuzz.toml"), Path::new("."), "fuzz");
    }

    #[test]
    fn edited_values_never_panic(edits in prop::collection::vec((any::<prop::sample::Index>(), token()), 1..4)) {
        let mut lines: Vec<String> = QUICK.lines().map(String::from).collect();
        for (at, token) in edits {
            let candidates: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].contains(" = ")).collect();
            let i = candidates[at.index(candidates.len())];
            let key = lines[i].split(" = ").next().unwrap_or_default().to_string();
            lines[i] = format!("{key} = {token}");
        }
        let text = lines.join("\n");
        if let Ok(plan) = Plan::from_str(&text, Path::new("edited.toml"), Path::new("."), "edited") {
            prop_assert!(!plan.cells.is_empty());
            for cell in &plan.cells {
                for (axis, v) in plan.axes.iter().zip(&cell.values) {
                    prop_assert!(axis.values.contains(v));
                }
            }
        }
    }
}

/// A required top-level key that is absent is named as such, not placed at line 1, column 1
/// (where the TOML reader puts a whole document's errors); a key missing inside a table
/// still gets that table's line.
#[test]
fn a_missing_key_is_named_where_it_belongs() {
    let message = |text: &str| {
        Plan::from_str(text, Path::new("s.toml"), Path::new("."), "s")
            .unwrap_err()
            .to_string()
    };
    let without = |key: &str| {
        QUICK
            .lines()
            .filter(|l| !l.starts_with(&format!("{key} =")))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let m = message(&without("metrics"));
    assert!(
        m.contains("no `metrics`: the spec must give it at the top level"),
        "{m}"
    );
    assert!(!m.contains("line 1"), "{m}");
    let m = message("metrics = [\"mean_wait\"]\n[run]\nmodel = \"lublin\"\n");
    assert!(m.contains("no `replications`"), "{m}");
    let m = message(&QUICK.replacen("metric = \"mean_wait\"\n", "", 1));
    assert!(
        m.contains("missing field `metric`") && m.contains("[[plot]]"),
        "{m}"
    );
}
