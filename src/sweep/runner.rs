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

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs::{self, OpenOptions};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use super::output;
use super::runs::{self, HASH_FILE, RUNS_FILE, Results};
use super::spec::{Plan, Replications};
use super::stopping;
use super::task::{PreparedCells, RunRecord, run_replication};
use crate::error::{Error, Result};
use crate::experiment::Worker;

/// Which part of the cells this process runs: cells whose index is `index` mod `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let bad = || format!("invalid shard '{s}': expected K/N with 0 <= K < N, e.g. 0/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

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
    /// What to know about the traces the sweep read.
    pub warnings: Vec<String>,
}

/// The cells this process runs: those whose index is `shard.index` mod `shard.count`;
/// under difference stopping, whole decision groups instead (the groups numbered in the
/// order of their baselines), since a group's cells decide together.
pub fn shard_cells(plan: &Plan, shard: Option<Shard>) -> Vec<usize> {
    let roots: Vec<usize> = plan
        .cells
        .iter()
        .map(|c| stopping::decision_group(plan, c.index))
        .collect();
    let mut distinct = roots.clone();
    distinct.sort_unstable();
    distinct.dedup();
    // Group numbers are cell indices when every cell decides alone.
    let unit = |i: usize| distinct.binary_search(&roots[i]).expect("a root of some cell");
    plan.cells
        .iter()
        .map(|c| c.index)
        .filter(|&i| shard.is_none_or(|s| unit(i) % s.count == s.index))
        .collect()
}

fn first_target(plan: &Plan) -> usize {
    match &plan.replications {
        Replications::Fixed(n) => *n,
        Replications::Sequential { min, .. } => *min,
    }
}

fn next_target(plan: &Plan, current: usize) -> usize {
    match &plan.replications {
        Replications::Fixed(n) => *n,
        Replications::Sequential { max, batch, .. } => (current + batch).min(*max),
    }
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

/// The progress line (hidden when quiet or not on a terminal): cells closed, replications
/// done, simulated jobs per second, and an ETA from the work done and the work projected.
///
/// Work is measured in task seconds. Each time a cell decides to go on, it gets its
/// projected replications not yet run ([`stopping::projected_replications`]); the work left
/// is those replications, each costing its cell's mean task time so far (the sweep's mean
/// for a cell without one). The ETA is the elapsed time scaled by work left over work
/// done, so it accounts for the cores and for cells of different cost.
struct Progress {
    bar: ProgressBar,
    state: Mutex<ProgressState>,
    started: Instant,
}

#[derive(Default)]
struct ProgressState {
    jobs: u64,
    replications: usize,
    /// Per cell: task seconds and tasks so far, and projected tasks left.
    cost: Vec<(f64, usize)>,
    /// Per cell: tasks handed to the pool.
    started: Vec<usize>,
    left: Vec<usize>,
    done_work: f64,
    cells: usize,
    closed: usize,
    shown: Option<Instant>,
}

impl ProgressState {
    /// Mean task seconds over the whole sweep so far, once a task has finished.
    fn mean_task(&self) -> Option<f64> {
        (self.replications > 0).then(|| self.done_work / self.replications as f64)
    }

    /// Projected task seconds left.
    fn work_left(&self) -> f64 {
        let overall = self.mean_task().unwrap_or(0.0);
        self.left
            .iter()
            .zip(&self.cost)
            .filter(|(left, _)| **left > 0)
            .map(|(&left, &(secs, n))| left as f64 * if n > 0 { secs / n as f64 } else { overall })
            .sum()
    }
}

/// `1h02m`, `3m05s` or `42s`.
fn format_duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

impl Progress {
    fn new(quiet: bool, started: Instant, cells: usize, all_cells: usize) -> Progress {
        let bar = if quiet || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(1000)
        };
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        let state = ProgressState {
            cost: vec![(0.0, 0); all_cells],
            started: vec![0; all_cells],
            left: vec![0; all_cells],
            cells,
            ..ProgressState::default()
        };
        Progress {
            bar,
            state: Mutex::new(state),
            started,
        }
    }

    /// A cell decided: `left` replications projected but not yet run (0 once it stopped),
    /// `closed` cells stopped so far.
    fn cell(&self, cell: usize, left: usize, closed: usize) {
        let mut s = self.state.lock().expect("progress lock");
        s.closed = closed;
        s.left[cell] = left;
        self.show(&mut s);
    }

    /// `tasks` replications of `cell` start: at least that many are left.
    fn launched(&self, cell: usize, tasks: usize) {
        let mut s = self.state.lock().expect("progress lock");
        s.left[cell] = s.left[cell].max(tasks);
    }

    /// Of `cells`, the one the runner's next task comes from: a cell with no task started
    /// yet first (one probe each, so that every cell's cost is soon known), then the one
    /// whose tasks cost most so far (a cell with none finished counts at the sweep's mean,
    /// or first while none has finished anywhere), ties to the first.
    fn costliest(&self, cells: impl Iterator<Item = usize>) -> Option<usize> {
        let s = self.state.lock().expect("progress lock");
        let overall = s.mean_task().unwrap_or(f64::INFINITY);
        let key = |c: usize| {
            let mean = match s.cost[c] {
                (_, 0) => overall,
                (secs, n) => secs / n as f64,
            };
            (s.started[c] == 0, mean)
        };
        cells.fold(None, |best: Option<usize>, c| match best {
            Some(b) if key(b) >= key(c) => Some(b),
            _ => Some(c),
        })
    }

    /// A task of `cell` is handed to the pool.
    fn started(&self, cell: usize) {
        self.state.lock().expect("progress lock").started[cell] += 1;
    }

    fn task_done(&self, cell: usize, jobs: u64, secs: f64) {
        let mut s = self.state.lock().expect("progress lock");
        s.jobs += jobs;
        s.replications += 1;
        s.cost[cell].0 += secs;
        s.cost[cell].1 += 1;
        s.left[cell] = s.left[cell].saturating_sub(1);
        s.done_work += secs;
        self.show(&mut s);
    }

    /// Redraws at most ten times a second (the work left is a sum over the cells).
    fn show(&self, s: &mut ProgressState) {
        if self.bar.is_hidden() || s.shown.is_some_and(|t| t.elapsed() < Duration::from_millis(100)) {
            return;
        }
        s.shown = Some(Instant::now());
        let elapsed = self.started.elapsed().as_secs_f64();
        let left = s.work_left();
        let eta = if s.done_work > 0.0 {
            format_duration(elapsed * left / s.done_work)
        } else {
            "–".to_string()
        };
        if s.done_work + left > 0.0 {
            self.bar
                .set_position((1000.0 * s.done_work / (s.done_work + left)) as u64);
        }
        self.bar.set_message(format!(
            "{}/{} cells closed, {} replications, {:.2e} jobs/s, ETA {eta}",
            s.closed,
            s.cells,
            s.replications,
            s.jobs as f64 / elapsed.max(1e-9)
        ));
    }
}

/// What a finished task tells the deciding thread.
struct Report {
    cell: usize,
    rep: usize,
    result: Result<(RunRecord, u64)>,
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

/// Runs (or resumes) the sweep and writes its outputs into `options.out`.
pub fn run_sweep(plan: &Plan, options: &RunOptions) -> Result<SweepReport> {
    let started = Instant::now();
    let out = &options.out;
    fs::create_dir_all(out).map_err(|e| Error::Output {
        path: out.clone(),
        error: e,
    })?;
    let _lock = super::lock::FolderLock::take(out, &format!("sweep {}", plan.name))?;
    let cells = shard_cells(plan, options.shard);
    let cell_refs: Vec<_> = cells.iter().map(|&c| &plan.cells[c]).collect();
    let prepared = PreparedCells::new(plan, &cell_refs)?;
    let (mut recorded, resumed) = recorded_runs(plan, out, &cells, options.resume, options.force)?;
    let journal = Journal::open(plan, out)?;
    let (threads, capped) = capped_threads(options.threads.unwrap_or(0));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start worker threads: {e}")))?;
    let progress = Progress::new(options.quiet, started, cells.len(), plan.cells.len());

    let mut target: Vec<usize> = vec![first_target(plan); plan.cells.len()];
    let mut report = SweepReport {
        cells: cells.len(),
        tasks_resumed: resumed,
        warnings: prepared.warnings.iter().cloned().chain(capped).collect(),
        ..SweepReport::default()
    };
    // Each cell advances on its own: when the last replication of its batch is in, its
    // interval over 0..target decides whether it stops or runs the next batch, while the
    // other cells' tasks keep the cores busy. A decision reads only the cell's own complete
    // prefix, so every cell ends where the rounds of the module docs end it, whatever the
    // order in which tasks finish. Tasks report on a channel to this thread, the only one
    // that decides.
    let (finished, reports) = crossbeam_channel::unbounded::<Report>();
    // Replications handed out (waiting for the pool or running) and not yet reported, and
    // of those, the ones not yet handed to the pool.
    let mut running: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); plan.cells.len()];
    let mut waiting: Vec<VecDeque<usize>> = vec![VecDeque::new(); plan.cells.len()];
    // Running ahead: while threads would idle, a cell that has decided to go on may start
    // replications beyond its current batch, up to the count its interval projects
    // (`ahead_limit`); `ahead` is how far it has reached. A decision still reads only the
    // prefix `0..target`, so replications run ahead change no result: those past where the
    // cell stops are journaled but left out of the outputs.
    let mut ahead = target.clone();
    let mut ahead_limit = target.clone();
    let threads = pool.current_num_threads();
    let slots = 2 * threads;
    let mut in_flight = 0usize;
    let mut closed = 0usize;
    let mut errors: Vec<((usize, usize), Error)> = Vec::new();
    let mut ready: VecDeque<usize> = cells.iter().copied().collect();
    // Whether a cell is in `ready`, so that a group's decision does not queue it twice.
    let mut queued = vec![false; plan.cells.len()];
    let mut is_closed = vec![false; plan.cells.len()];
    for &c in &cells {
        queued[c] = true;
    }
    // The members of each decision group (one cell each but under difference stopping),
    // all in this shard (`shard_cells`).
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &c in &cells {
        groups
            .entry(stopping::decision_group(plan, c))
            .or_default()
            .push(c);
    }
    let cancelled = || options.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
    pool.in_place_scope(|scope| {
        loop {
            while let Some(c) = ready.pop_front() {
                queued[c] = false;
                if !errors.is_empty() || is_closed[c] || cancelled() {
                    continue;
                }
                let missing: Vec<usize> = (0..target[c]).filter(|r| !recorded[c].contains_key(r)).collect();
                if missing.is_empty() {
                    // A group decides once each of its open members has its batch in.
                    let members = &groups[&stopping::decision_group(plan, c)];
                    let batch_in = |m: usize| {
                        is_closed[m]
                            || (target[m] == target[c]
                                && (0..target[m]).all(|r| recorded[m].contains_key(&r)))
                    };
                    if !members.iter().all(|&m| batch_in(m)) {
                        continue;
                    }
                    let open: Vec<usize> = members.iter().copied().filter(|&m| !is_closed[m]).collect();
                    let runs: Vec<Vec<RunRecord>> = open
                        .iter()
                        .map(|&m| recorded[m].range(..target[m]).map(|(_, r)| r.clone()).collect())
                        .collect();
                    let group: Vec<(usize, &[RunRecord])> =
                        open.iter().zip(&runs).map(|(&m, r)| (m, r.as_slice())).collect();
                    for ((&m, runs), (stops, _)) in
                        open.iter().zip(&runs).zip(stopping::group_status(plan, &group))
                    {
                        if stops {
                            is_closed[m] = true;
                            closed += 1;
                            progress.cell(m, 0, closed);
                        } else {
                            let projected = stopping::projected_replications(plan, runs, target[m]);
                            target[m] = next_target(plan, target[m]);
                            ahead[m] = ahead[m].max(target[m]);
                            ahead_limit[m] = projected.max(target[m]);
                            progress.cell(m, projected.saturating_sub(runs.len()), closed);
                            if !queued[m] {
                                queued[m] = true;
                                ready.push_back(m);
                            }
                        }
                    }
                    continue;
                }
                progress.launched(c, missing.len());
                let new: Vec<usize> = missing.into_iter().filter(|r| !running[c].contains(r)).collect();
                running[c].extend(&new);
                waiting[c].extend(new);
            }
            // Idle threads and no task waiting: run ahead in the open cell that has run
            // least far ahead of its batch (the costliest of those), one batch at a time.
            if in_flight < threads
                && errors.is_empty()
                && !cancelled()
                && cells.iter().all(|&c| waiting[c].is_empty())
            {
                let can = |c: usize| !is_closed[c] && ahead[c] < ahead_limit[c];
                let least = cells
                    .iter()
                    .filter(|&&c| can(c))
                    .map(|&c| ahead[c] - target[c])
                    .min();
                let pick = least.and_then(|least| {
                    progress.costliest(
                        cells
                            .iter()
                            .copied()
                            .filter(|&c| can(c) && ahead[c] - target[c] == least),
                    )
                });
                if let Some(c) = pick {
                    let to = next_target(plan, ahead[c]).min(ahead_limit[c]);
                    let new: Vec<usize> = (ahead[c]..to)
                        .filter(|r| !recorded[c].contains_key(r) && !running[c].contains(r))
                        .collect();
                    ahead[c] = to;
                    running[c].extend(&new);
                    waiting[c].extend(new);
                }
            }
            // Longest first: the pool holds a few tasks per thread, and the next comes from
            // the cell whose tasks have cost most so far, after one probe of each cell to
            // learn it (`Progress::costliest`), so that long tasks do not start last and
            // leave the other threads idle at the end.
            while in_flight < slots && errors.is_empty() && !cancelled() {
                let Some(c) = progress.costliest(cells.iter().copied().filter(|&c| !waiting[c].is_empty()))
                else {
                    break;
                };
                let rep = waiting[c].pop_front().expect("a waiting task");
                progress.started(c);
                in_flight += 1;
                let (finished, journal, progress, prepared) =
                    (finished.clone(), &journal, &progress, &prepared);
                scope.spawn(move |_| {
                    // A fresh worker per task: one reused across tasks after a saturated run
                    // made quick.toml 7% slower on one thread (docs/performance.md).
                    let mut worker = Worker::new();
                    let task_started = Instant::now();
                    let result = run_replication(plan, &plan.cells[c], rep, prepared, &mut worker).and_then(
                        |(record, jobs)| {
                            journal.append(plan, &record)?;
                            Ok((record, jobs))
                        },
                    );
                    let secs = task_started.elapsed().as_secs_f64();
                    if let Ok((_, jobs)) = &result {
                        progress.task_done(c, *jobs, secs);
                    }
                    // The receiver outlives the scope.
                    let _ = finished.send(Report { cell: c, rep, result });
                });
            }
            if in_flight == 0 {
                break;
            }
            let Report { cell: c, rep, result } =
                reports.recv().expect("a task reports before the scope ends");
            in_flight -= 1;
            running[c].remove(&rep);
            match result {
                Ok((record, jobs)) => {
                    report.tasks_run += 1;
                    report.jobs_simulated += jobs;
                    recorded[c].insert(rep, record);
                }
                // A replication run ahead that fails is forgotten: it runs again, and fails
                // the sweep, only if its cell comes to need it, as without running ahead.
                Err(_) if rep >= target[c] => {}
                Err(e) => errors.push(((c, rep), e)),
            }
            // The cell decides once its whole batch is in; a replication run ahead may be
            // the last of it to report.
            if !queued[c] && !is_closed[c] && (0..target[c]).all(|r| recorded[c].contains_key(&r)) {
                queued[c] = true;
                ready.push_back(c);
            }
        }
    });
    // Of several failures, the first task's, whatever finished first.
    if let Some((_, e)) = errors.into_iter().min_by_key(|(task, _)| *task) {
        return Err(e);
    }
    progress.bar.finish_and_clear();
    if closed < cells.len() && cancelled() {
        return Err(Error::Interrupted(format!(
            "{} replications are recorded in {} ({} run now); resume to finish",
            recorded.iter().map(BTreeMap::len).sum::<usize>(),
            out.join(RUNS_FILE).display(),
            report.tasks_run
        )));
    }

    report.tasks_unused = cells
        .iter()
        .map(|&c| recorded[c].range(target[c]..).count())
        .sum();
    let mut results: Results = vec![Vec::new(); plan.cells.len()];
    for &c in &cells {
        results[c] = recorded[c].range(..target[c]).map(|(_, r)| r.clone()).collect();
    }
    drop(journal);
    output::write_outputs(out, plan, &results, &cells)?;
    report.elapsed = started.elapsed();
    Ok(report)
}
