//! The library's modules depend on each other without cycles (docs/architecture.md), at the
//! top level and within every folder: every module a file of the library names
//! (`crate::a::b`, `super::c`) is an arrow from its own module, and no arrow may lead back
//! to where it started. And one meaning per noun: no two public types share a name; errors
//! are typed, never bare strings; no function is over 120 lines but the figure renderer.

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

/// A module of the library by its path from `src` ("workload::synth::lublin"); a folder's
/// `mod.rs` is the folder's module.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    if last != "mod.rs" && last != "lib.rs" {
        parts.push(last.trim_end_matches(".rs").to_string());
    }
    parts
}

/// The paths a file names: `crate::a::b`, `super::x` (from the file's module), and each
/// item of `use super::{x, y::z}` groups, as module paths from `src`.
fn named_paths(module: &[String], text: &str) -> Vec<Vec<String>> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    // Segments after a prefix: `a::b::c`, or the items of a `{...}` group (one level).
    fn segments(rest: &str, ident: &dyn Fn(&str) -> String) -> Vec<Vec<String>> {
        let mut path = Vec::new();
        let mut rest = rest;
        loop {
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                return group[..end]
                    .split(',')
                    .map(|item| {
                        let mut p = path.clone();
                        p.extend(item.trim().split("::").map(ident).filter(|s| !s.is_empty()));
                        p
                    })
                    .collect();
            }
            let name = ident(rest);
            if name.is_empty() {
                return vec![path];
            }
            rest = &rest[name.len()..];
            path.push(name);
            match rest.strip_prefix("::") {
                Some(r) => rest = r,
                None => return vec![path],
            }
        }
    }
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        if code[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        out.extend(segments(&code[i + 7..], &ident));
    }
    // `super` is the parent of the file's module: a folder's mod.rs climbs from the folder.
    for (i, _) in code.match_indices("super::") {
        if code[..i].ends_with("super::")
            || code[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        {
            continue;
        }
        let mut rest = &code[i..];
        let mut base: Vec<String> = module.to_vec();
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        for p in segments(rest, &ident) {
            out.push(base.iter().cloned().chain(p).collect());
        }
    }
    out
}

/// No import circle anywhere: within each folder, the modules in it (a subfolder counted
/// as one, with everything inside it; the folder's own `mod.rs` left out, as the folder's
/// face) depend on each other without a cycle.
#[test]
fn no_import_circle_within_any_folder() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .map(|f| module_of(f.strip_prefix(&src).unwrap()))
        .collect();
    // The longest module that is a prefix of `path`.
    let resolve = |path: &[String]| -> Option<Vec<String>> {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| modules.contains(p))
    };
    let mut edges: BTreeSet<(Vec<String>, Vec<String>)> = BTreeSet::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let module = module_of(rel);
        if module.first().is_some_and(|m| m == "cli" || m == "main") {
            continue;
        }
        for path in named_paths(&module, &std::fs::read_to_string(file).unwrap()) {
            if let Some(target) = resolve(&path)
                && target != module
            {
                edges.insert((module.clone(), target));
            }
        }
    }
    let folders: BTreeSet<Vec<String>> = modules
        .iter()
        .map(|m| m[..m.len().saturating_sub(1)].to_vec())
        .collect();
    let mut cycles = Vec::new();
    for folder in &folders {
        // The child of `folder` that `m` is in, unless `m` is the folder itself.
        let child = |m: &[String]| {
            (m.len() > folder.len() && m[..folder.len()] == folder[..]).then(|| m[folder.len()].clone())
        };
        let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in &edges {
            if let (Some(a), Some(b)) = (child(from), child(to))
                && a != b
                && !(folder.is_empty() && (a == "cli" || a == "main"))
            {
                arrows.entry(a).or_default().insert(b);
            }
        }
        for start in arrows.keys() {
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            let mut seen = BTreeSet::new();
            while let Some((m, path)) = stack.pop() {
                for next in arrows.get(&m).into_iter().flatten() {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    if next == start {
                        cycles.push(format!("{}: {}", folder.join("::"), longer.join(" -> ")));
                    } else if seen.insert(next.clone()) {
                        stack.push((next.clone(), longer));
                    }
                }
            }
        }
    }
    assert!(cycles.is_empty(), "import circles:\n{}", cycles.join("\n"));
}

/// One meaning per noun: no two public types of the library share a name (a reader who
/// meets `Outcome` or `Workload` knows which one it is).
#[test]
fn no_two_public_types_share_a_name() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut twice = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            let line = line.trim_start();
            for kind in ["pub struct ", "pub enum ", "pub type ", "pub trait "] {
                if let Some(rest) = line.strip_prefix(kind) {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if let Some(first) = seen.insert(name.clone(), file.clone()) {
                        twice.push(format!("{name}: {} and {}", first.display(), file.display()));
                    }
                }
            }
        }
    }
    assert!(
        twice.is_empty(),
        "public types named twice:\n{}",
        twice.join("\n")
    );
}

/// Every `.rs` file of the library and of the Python package, with its text.
fn sources() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("python/src"), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            (f, text)
        })
        .collect()
}

/// The type arguments of each `Result<...>` in `text` (nested brackets kept whole).
fn result_arguments(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("Result<") {
        let (mut depth, mut args, mut current) = (1, Vec::new(), String::new());
        for c in text[i + 7..].chars() {
            match c {
                '<' | '(' => depth += 1,
                '>' | ')' => depth -= 1,
                ',' if depth == 1 => {
                    args.push(std::mem::take(&mut current).trim().to_string());
                    continue;
                }
                _ => {}
            }
            if depth == 0 {
                break;
            }
            current.push(c);
        }
        args.push(current.trim().to_string());
        out.push(args);
    }
    out
}

/// Errors are typed (`crate::error`, `ParamError`, ...): no function answers a bare
/// message, which callers could only print or match as text.
#[test]
fn no_error_is_a_bare_string() {
    assert_eq!(
        result_arguments("fn f() -> Result<Vec<(u8, u8)>, String> { x }"),
        [["Vec<(u8, u8)>", "String"]]
    );
    let mut found = Vec::new();
    for (file, text) in sources() {
        let bare = result_arguments(&text)
            .iter()
            .any(|args| args.len() == 2 && ["String", "&str", "&'static str"].contains(&args[1].as_str()));
        if bare || text.contains("type Err = String") {
            found.push(file.display().to_string());
        }
    }
    assert!(found.is_empty(), "errors as bare strings in: {found:?}");
}

/// Functions stay short enough to read at once: none over 120 lines, but the figure
/// renderer, which draws one element after another. A function ends at the first line
/// that closes it at its own indentation (rustfmt's layout).
#[test]
fn no_function_is_longer_than_120_lines() {
    let mut long = Vec::new();
    for (file, text) in sources() {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.trim_start();
            let indent = line.len() - code.len();
            let words: Vec<&str> = code.split_whitespace().collect();
            let Some(at) = words.iter().position(|w| *w == "fn") else {
                continue;
            };
            let qualifiers = ["pub", "pub(crate)", "pub(super)", "const", "unsafe", "async"];
            if !words[..at].iter().all(|w| qualifiers.contains(w)) || code.ends_with(';') {
                continue;
            }
            let name: String = words[at + 1]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            // A function on one line closes where it opens.
            if code.contains('{') && code.matches('{').count() <= code.matches('}').count() {
                continue;
            }
            let end = lines[i + 1..]
                .iter()
                .position(|l| l.len() - l.trim_start().len() == indent && l.trim_start().starts_with('}'))
                .map_or(lines.len(), |n| i + 1 + n);
            if end - i + 1 > 120 && name != "render_svg" {
                long.push(format!(
                    "{}:{} {name}: {} lines",
                    file.display(),
                    i + 1,
                    end - i + 1
                ));
            }
        }
    }
    assert!(long.is_empty(), "functions over 120 lines:\n{}", long.join("\n"));
}
