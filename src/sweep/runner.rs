//! Running a sweep: (cell, replication) tasks on a rayon pool, each cell in batches so that
//! sequential stopping decides from complete prefixes of replications; a journal for
//! resuming.
//!
//! Determinism: a task's result depends only on (plan, cell, rep), and the final files are
//! written in plan order. A cell's batch k runs the replications `0..T_k` that are missing,
//! where `T_1 = min` (or the fixed count) and each later target adds `batch` up to `max`;
//! when the last of them is in, the cell stops if its interval over `0..T_k` meets the
//! target. Cells advance independently (no round waits for the slowest cell), and since
//! each decision reads only its cell's complete prefix, the cells end as they would in
//! lockstep, whatever the thread count or the order tasks finish in. Under difference
//! stopping a decision reads a whole group's prefixes (a baseline and the cells compared
//! with it, `stopping::decision_group`), once every open member has its batch in. A resumed sweep replays
//! the same decisions with the recorded replications filled in, so it ends with the same
//! bytes as an uninterrupted one.
//!
//! Threads that would idle (the last cells of a sweep, each waiting for its batch) run
//! ahead: a cell that decided to go on may start replications past its batch, up to the
//! count its interval projects. Decisions still read `0..T_k` alone, so this moves no
//! result; replications past where a cell stops are journaled and left out.

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::output;
use super::progress::Progress;
use super::rounds::{CellState, Rounds};
use super::runs::{self, HASH_FILE, RUNS_FILE, Results};
use super::shard::{Shard, shard_cells};
use super::spec::Plan;
use super::task::{PreparedCells, RunRecord, run_replication};
use crate::error::{Error, Result};
use crate::experiment::Worker;

/// How to run a sweep.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Worker threads (default: every core).
    pub threads: Option<usize>,
    pub out: PathBuf,
    pub shard: Option<Shard>,
    pub resume: bool,
    /// Overwrite an output folder recorded for another spec.
    pub force: bool,
    pub quiet: bool,
    /// Set from elsewhere (the Python package's Ctrl-C) to stop the sweep: no task starts
    /// after it is set, those under way finish into the journal, and the sweep returns
    /// [`Error::Interrupted`]; `resume` later runs the rest.
    pub cancel: Option<Arc<AtomicBool>>,
}

/// What a sweep did.
#[derive(Clone, Debug, Default)]
pub struct SweepReport {
    pub cells: usize,
    pub tasks_run: usize,
    pub tasks_resumed: usize,
    /// Replications recorded past the point where their cell stopped (run ahead while
    /// threads would have idled): journaled, left out of the outputs.
    pub tasks_unused: usize,
    pub jobs_simulated: u64,
    pub elapsed: Duration,
    /// What each task run now and the serial phases took (`scaling` predicts other thread
    /// counts from them).
    pub timings: super::scaling::Timings,
    /// What to know about the traces the sweep read.
    pub warnings: Vec<String>,
}

/// `runs.csv` as the sweep's journal: each finished replication is appended at once.
struct Journal {
    path: PathBuf,
    file: Mutex<fs::File>,
}

impl Journal {
    /// Writes the spec and its hash beside the journal, and opens it for appending (with
    /// its header when new).
    fn open(plan: &Plan, out: &Path) -> Result<Journal> {
        let path = out.join(RUNS_FILE);
        let out_err = |e: std::io::Error| Error::Output {
            path: path.clone(),
            error: e,
        };
        crate::atomic::write_atomically(&out.join(runs::SPEC_FILE), |w| {
            w.write_all(plan.spec_text.as_bytes())
        })?;
        crate::atomic::write_atomically(&out.join(HASH_FILE), |w| writeln!(w, "{}", plan.spec_hash))?;
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(out_err)?;
        if file.metadata().map_err(out_err)?.len() == 0 {
            file.write_all(&runs::runs_line(&runs::runs_header(plan)))
                .map_err(out_err)?;
        }
        Ok(Journal {
            file: Mutex::new(file),
            path,
        })
    }

    fn append(&self, plan: &Plan, record: &RunRecord) -> Result<()> {
        let line = runs::runs_line(&runs::runs_row(plan, record));
        let mut file = self.file.lock().expect("journal lock");
        file.write_all(&line)
            .and_then(|_| file.flush())
            .map_err(|e| Error::Output {
                path: self.path.clone(),
                error: e,
            })
    }
}

/// With `--resume`, the replications already in `out`'s journal (which must be of this
/// spec and of `cells`), and their count; the journal is cut after its last whole line.
/// Without, the journal is removed, unless the folder holds another spec's results and
/// `force` is not given.
fn recorded_runs(
    plan: &Plan,
    out: &Path,
    cells: &[usize],
    resume: bool,
    force: bool,
) -> Result<(Vec<BTreeMap<usize, RunRecord>>, usize)> {
    let journal_path = out.join(RUNS_FILE);
    let mut recorded: Vec<BTreeMap<usize, RunRecord>> = vec![BTreeMap::new(); plan.cells.len()];
    let hash = fs::read_to_string(out.join(HASH_FILE)).unwrap_or_default();
    if !(resume && journal_path.exists()) {
        if !force && !hash.is_empty() && hash.trim() != plan.spec_hash {
            return Err(Error::Invalid(format!(
                "{}: holds the results of another spec (hash {}, this spec {}); pass --force to overwrite them, \
                 or --out to write elsewhere",
                out.display(),
                hash.trim(),
                plan.spec_hash
            )));
        }
        let _ = fs::remove_file(&journal_path);
        return Ok((recorded, 0));
    }
    if hash.trim() != plan.spec_hash {
        return Err(Error::Invalid(format!(
            "{}: recorded for a different spec (hash {}, this spec {}); run without --resume to start over",
            out.display(),
            hash.trim(),
            plan.spec_hash
        )));
    }
    let mut resumed = 0;
    for r in runs::read_runs(&journal_path, plan)? {
        if !cells.contains(&r.cell) {
            return Err(Error::Invalid(format!(
                "{}: holds replications of cell {} which this shard does not run",
                journal_path.display(),
                r.cell
            )));
        }
        if recorded[r.cell].insert(r.rep, r).is_none() {
            resumed += 1;
        }
    }
    // Drop a half-written last line so appended rows start on a line of their own.
    let out_err = |e: std::io::Error| Error::Output {
        path: journal_path.clone(),
        error: e,
    };
    let bytes = fs::read(&journal_path).map_err(out_err)?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    OpenOptions::new()
        .write(true)
        .open(&journal_path)
        .and_then(|f| f.set_len(complete as u64))
        .map_err(out_err)?;
    Ok((recorded, resumed))
}

/// What a finished task tells the deciding thread.
struct Report {
    cell: usize,
    rep: usize,
    result: Result<(RunRecord, u64)>,
    seconds: f64,
}

/// At most eight threads per core: more only adds memory and contention (a typo such as
/// `threads = 100000` would start that many). Returns the threads to start and, when it
/// capped them, what to tell the user.
pub fn capped_threads(asked: usize) -> (usize, Option<String>) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if asked > 8 * cores {
        let message = format!(
            "threads {asked} capped at {} (8 per core on {cores} cores)",
            8 * cores
        );
        (8 * cores, Some(message))
    } else {
        (asked, None)
    }
}

/// Replication `rep` of cell `c`, journaled once it ran; returns its record and the jobs
/// simulated.
fn run_task(
    plan: &Plan,
    c: usize,
    rep: usize,
    prepared: &PreparedCells,
    journal: &Journal,
    progress: &Progress,
    started: Instant,
) -> Result<(RunRecord, u64)> {
    // A fresh worker per task: one reused across tasks after a saturated run made
    // quick.toml 7% slower on one thread (docs/performance.md).
    let mut worker = Worker::new();
    let (record, jobs) = run_replication(plan, &plan.cells[c], rep, prepared, &mut worker)?;
    journal.append(plan, &record)?;
    progress.task_done(c, jobs, started.elapsed().as_secs_f64());
    Ok((record, jobs))
}

/// Runs (or resumes) the sweep and writes its outputs into `options.out`.
pub fn run_sweep(plan: &Plan, options: &RunOptions) -> Result<SweepReport> {
    let started = Instant::now();
    let out = &options.out;
    fs::create_dir_all(out).map_err(|e| Error::Output {
        path: out.clone(),
        error: e,
    })?;
    let (_lock, unlocked) = lock_folder(out, plan)?;
    let cells = shard_cells(plan, options.shard);
    let cell_refs: Vec<_> = cells.iter().map(|&c| &plan.cells[c]).collect();
    let prepared = PreparedCells::new(plan, &cell_refs)?;
    let (recorded, resumed) = recorded_runs(plan, out, &cells, options.resume, options.force)?;
    let journal = Journal::open(plan, out)?;
    let (pool, capped) = worker_pool(options.threads)?;
    let progress = Progress::new(options.quiet, started, cells.len(), plan.cells.len());

    let mut report = SweepReport {
        cells: cells.len(),
        tasks_resumed: resumed,
        warnings: prepared
            .warnings
            .iter()
            .cloned()
            .chain(capped)
            .chain(unlocked)
            .collect(),
        ..SweepReport::default()
    };
    // Each cell advances on its own (`Rounds`), while the other cells' tasks keep the cores
    // busy. Tasks report on a channel to this thread, the only one that decides.
    report.timings.prepare_s = started.elapsed().as_secs_f64();
    let mut rounds = Rounds::new(plan, &cells, recorded);
    let (finished, reports) = crossbeam_channel::unbounded::<Report>();
    let threads = pool.current_num_threads();
    let slots = 2 * threads;
    let mut in_flight = 0usize;
    let mut errors: Vec<((usize, usize), Error)> = Vec::new();
    let cancelled = || options.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
    pool.in_place_scope(|scope| {
        loop {
            let halted = !errors.is_empty() || cancelled();
            rounds.advance(&progress, &|| halted || cancelled());
            if in_flight < threads && !halted && rounds.nothing_waiting() {
                rounds.run_ahead(&progress);
            }
            // The pool holds a few tasks per thread.
            while in_flight < slots && errors.is_empty() && !cancelled() {
                let Some((c, rep)) = rounds.next_task(&progress) else {
                    break;
                };
                progress.started(c);
                in_flight += 1;
                let (finished, journal, progress, prepared) =
                    (finished.clone(), &journal, &progress, &prepared);
                scope.spawn(move |_| {
                    let started = Instant::now();
                    let result = run_task(plan, c, rep, prepared, journal, progress, started);
                    let seconds = started.elapsed().as_secs_f64();
                    // The receiver outlives the scope.
                    let _ = finished.send(Report {
                        cell: c,
                        rep,
                        result,
                        seconds,
                    });
                });
            }
            if in_flight == 0 {
                break;
            }
            let Report {
                cell: c,
                rep,
                result,
                seconds,
            } = reports.recv().expect("a task reports before the scope ends");
            in_flight -= 1;
            report.timings.tasks.insert((c, rep), seconds);
            let record = match result {
                Ok((record, jobs)) => {
                    report.tasks_run += 1;
                    report.jobs_simulated += jobs;
                    Some(record)
                }
                // A replication the cell no longer needs may fail unseen.
                Err(e) if rounds.needed(c, rep) => {
                    errors.push(((c, rep), e));
                    None
                }
                Err(_) => None,
            };
            rounds.reported(c, rep, record);
        }
    });
    // Of several failures, the first task's, whatever finished first.
    if let Some((_, e)) = errors.into_iter().min_by_key(|(task, _)| *task) {
        return Err(e);
    }
    progress.finish();
    if rounds.closed < cells.len() && cancelled() {
        return Err(Error::Interrupted(format!(
            "{} replications are recorded in {} ({} run now); resume to finish",
            rounds.state.iter().map(|s| s.recorded.len()).sum::<usize>(),
            out.join(RUNS_FILE).display(),
            report.tasks_run
        )));
    }

    let (results, unused) = kept_results(plan, &cells, &rounds.state);
    report.tasks_unused = unused;
    drop(journal);
    let writing = Instant::now();
    output::write_outputs(out, plan, &results, &cells)?;
    report.timings.outputs_s = writing.elapsed().as_secs_f64();
    report.elapsed = started.elapsed();
    Ok(report)
}

/// The results folder locked for this sweep, and a warning where its file system offers no
/// locks.
fn lock_folder(out: &Path, plan: &Plan) -> Result<(super::lock::FolderLock, Option<String>)> {
    let lock = super::lock::FolderLock::take(out, &format!("sweep {}", plan.name))?;
    let unlocked = (!lock.held()).then(|| {
        format!(
            "{}: the file system offers no file locks, so nothing stops a second writer here",
            out.display()
        )
    });
    Ok((lock, unlocked))
}

/// The sweep's worker threads (`None`: one per core), and a warning where too many were
/// asked for ([`capped_threads`]).
fn worker_pool(threads: Option<usize>) -> Result<(rayon::ThreadPool, Option<String>)> {
    let (threads, capped) = capped_threads(threads.unwrap_or(0));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start worker threads: {e}")))?;
    Ok((pool, capped))
}

/// Each of `cells`' replications up to its target, in rep order (other cells left empty),
/// and how many replications were run beyond the targets.
fn kept_results(plan: &Plan, cells: &[usize], state: &[CellState]) -> (Results, usize) {
    let mut results: Results = vec![Vec::new(); plan.cells.len()];
    let mut unused = 0;
    for &c in cells {
        let target = state[c].target;
        results[c] = state[c]
            .recorded
            .range(..target)
            .map(|(_, r)| r.clone())
            .collect();
        unused += state[c].recorded.range(target..).count();
    }
    (results, unused)
}
