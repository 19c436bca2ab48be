//! `schedlab merge`: combine shard outputs into the files a single process would write.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::output;
use super::runs::{self, HASH_FILE, RUNS_FILE, Results, SPEC_FILE};
use super::spec::Plan;
use super::stopping;
use super::task::RunRecord;
use crate::error::{Error, Result};

/// Merges shard directories into `out`. Refuses shards of different specs, replications
/// recorded twice, and cells whose replications are missing or incomplete, naming them;
/// an `out` that is one of the shards, or holds another spec's results unless `force`.
/// Holds `out`'s lock while it writes there.
pub fn merge(shards: &[PathBuf], out: &Path, force: bool) -> Result<Plan> {
    let first = shards
        .first()
        .ok_or_else(|| Error::Merge("no shard directories given".into()))?;
    let read = |dir: &Path, file: &str| {
        fs::read_to_string(dir.join(file))
            .map_err(|e| Error::Merge(format!("{}: {e}", dir.join(file).display())))
    };
    let spec_text = read(first, SPEC_FILE)?;
    // The name and the spec's folder (trace paths are relative to it) as the run recorded.
    let meta: serde_json::Value = serde_json::from_str(&read(first, "summary.json")?)
        .map_err(|e| Error::Merge(format!("{}: {e}", first.join("summary.json").display())))?;
    let name = meta["name"].as_str().unwrap_or_default();
    let spec_dir = PathBuf::from(read(first, runs::SPEC_DIR_FILE)?.trim_end_matches('\n'));
    let plan = Plan::from_str(&spec_text, &first.join(SPEC_FILE), &spec_dir, name)?;
    if read(first, HASH_FILE)?.trim() != plan.spec_hash {
        return Err(Error::Merge(format!(
            "{} does not match {} (hash {}): the spec was edited after the run",
            first.join(SPEC_FILE).display(),
            first.join(HASH_FILE).display(),
            plan.spec_hash
        )));
    }
    for dir in shards {
        let hash = read(dir, HASH_FILE)?;
        if hash.trim() != plan.spec_hash {
            return Err(Error::Merge(format!(
                "{} was run from a different spec (hash {}, expected {} as in {})",
                dir.display(),
                hash.trim(),
                plan.spec_hash,
                first.display()
            )));
        }
    }
    if let Some(shard) = shards.iter().find(|d| same_folder(d, out)) {
        return Err(Error::Merge(format!(
            "--out {} is the shard {}: merging there would replace its runs; write elsewhere",
            out.display(),
            shard.display()
        )));
    }
    let mut seen: Vec<BTreeMap<usize, (PathBuf, RunRecord)>> = vec![BTreeMap::new(); plan.cells.len()];
    for dir in shards {
        for r in runs::read_runs(&dir.join(RUNS_FILE), &plan)? {
            if let Some((other, _)) = seen[r.cell].get(&r.rep) {
                return Err(Error::Merge(format!(
                    "replication {} of cell {} ({}) is in both {} and {}",
                    r.rep,
                    r.cell,
                    plan.cell_label(r.cell),
                    other.display(),
                    dir.display()
                )));
            }
            seen[r.cell].insert(r.rep, (dir.clone(), r));
        }
    }
    let results: Results = seen
        .iter()
        .map(|runs| runs.values().map(|(_, r)| r.clone()).collect())
        .collect();
    let all: Vec<usize> = (0..plan.cells.len()).collect();
    let status = stopping::statuses(&plan, &results, &all);
    let mut missing = Vec::new();
    for c in 0..plan.cells.len() {
        let runs = &results[c];
        let contiguous = runs.iter().enumerate().all(|(i, r)| r.rep == i);
        if runs.is_empty() || !contiguous || !status[&c].0 {
            let reps: Vec<usize> = runs.iter().map(|r| r.rep).collect();
            missing.push(format!(
                "cell {} ({}): replications {reps:?}",
                c,
                plan.cell_label(c)
            ));
        }
    }
    if !missing.is_empty() {
        return Err(Error::Merge(format!(
            "missing or incomplete replications (is a shard absent or unfinished?):\n  {}",
            missing.join("\n  ")
        )));
    }
    // Checked and written under the lock, so that no other writer comes between.
    fs::create_dir_all(out).map_err(|e| Error::Output {
        path: out.to_path_buf(),
        error: e,
    })?;
    let _lock = super::lock::FolderLock::take(out, &format!("merge of {}", plan.name))?;
    let held = fs::read_to_string(out.join(HASH_FILE)).unwrap_or_default();
    if !force && !held.trim().is_empty() && held.trim() != plan.spec_hash {
        return Err(Error::Merge(format!(
            "{}: holds the results of another spec (hash {}, these shards {}); pass --force to \
             overwrite them, or --out to write elsewhere",
            out.display(),
            held.trim(),
            plan.spec_hash
        )));
    }
    output::write_outputs(out, &plan, &results, &all)?;
    Ok(plan)
}

/// Whether `a` and `b` name one folder (through links too); a folder not yet there is no
/// other's.
fn same_folder(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
