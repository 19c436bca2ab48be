//! The library's top-level modules depend on each other without cycles (docs/architecture.md):
//! every `crate::module` a file of the library names is an arrow from its own module, and
//! no arrow may lead back to where it started.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Module -> the modules it names, for the library (the binary's `cli/` and `main.rs` are
/// outside it).
fn arrows() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let module = rel.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        if module == "cli" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (i, _) in line.match_indices("crate::") {
                let name: String = line[i + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if !name.is_empty() && name != module {
                    arrows.entry(module.clone()).or_default().insert(name);
                }
            }
        }
    }
    arrows
}

#[test]
fn no_module_depends_on_itself_through_others() {
    let arrows = arrows();
    assert!(
        arrows.contains_key("sweep") && arrows.contains_key("experiment"),
        "{arrows:?}"
    );
    for start in arrows.keys() {
        // Depth-first from `start`, recording a path back to it if there is one.
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((module, path)) = stack.pop() {
            for next in arrows.get(&module).into_iter().flatten() {
                let mut longer = path.clone();
                longer.push(next.clone());
                assert!(next != start, "import cycle: {}", longer.join(" -> "));
                if seen.insert(next.clone()) {
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
}

#[test]
fn the_engine_and_the_models_never_name_the_layers_above_them() {
    let arrows = arrows();
    let above = ["experiment", "sweep", "report"];
    for low in [
        "sim",
        "sched",
        "predict",
        "workload",
        "metrics",
        "malleable",
        "partition",
        "nondedicated",
    ] {
        for up in above {
            assert!(
                !arrows.get(low).is_some_and(|a| a.contains(up)),
                "{low} names {up}, a layer above it"
            );
        }
    }
}
