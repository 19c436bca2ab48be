//! Predicting a sweep's wall time on P threads from one run's task costs: the runner's own
//! decisions (`Rounds` and the cost order of `Progress`) replayed on P simulated workers,
//! deterministically, so that scaling can be studied on a machine with fewer cores than
//! the one a sweep will run on (docs/performance.md, "Predicting scaling").
//!
//! The model: the serial phases (preparing the cells, writing the outputs) take what they
//! took; the runner keeps up to 2P tasks in the pool, which starts them in the order they
//! were handed to it on the first of P workers to be free; a task takes the seconds it took
//! in the timed run; decisions are the runner's, made when a task reports. What it leaves
//! out: contention between threads (memory bandwidth, the allocator), the runner's
//! thread's own time, and parallel work inside a task (the GA's fitness, a summary's two
//! halves), which on P threads may take more than one worker and was timed on one.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use super::progress::Progress;
use super::rounds::Rounds;
use super::shard::shard_cells;
use super::spec::Plan;
use super::task::RunRecord;
use crate::error::{Error, Result};

/// What one run of a sweep took: each task's seconds, and its serial phases'.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timings {
    /// Seconds of replication `rep` of cell `cell`, by (cell, rep).
    pub tasks: BTreeMap<(usize, usize), f64>,
    /// Preparing the cells (reading traces) before the first task.
    pub prepare_s: f64,
    /// Writing the outputs and figures after the last.
    pub outputs_s: f64,
}

/// The header of a timings file.
const HEADER: &str = "phase,cell,rep,seconds";

impl Timings {
    /// Writes `phase,cell,rep,seconds` rows: `prepare`, each `task`, `outputs`.
    pub fn write(&self, path: &Path) -> Result<()> {
        crate::atomic::write_atomically(path, |w| {
            writeln!(w, "{HEADER}")?;
            writeln!(w, "prepare,,,{:.6}", self.prepare_s)?;
            for ((cell, rep), s) in &self.tasks {
                writeln!(w, "task,{cell},{rep},{s:.6}")?;
            }
            writeln!(w, "outputs,,,{:.6}", self.outputs_s)
        })
    }

    /// Reads what [`Timings::write`] wrote; a bad row is named by line.
    pub fn read(path: &Path) -> Result<Timings> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let bad = |line: usize, message: String| Error::Swf {
            path: path.to_path_buf(),
            line,
            message,
        };
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return Err(bad(
                1,
                format!("not a timings file: expected the header {HEADER}"),
            ));
        }
        let mut t = Timings::default();
        for (i, line) in lines.enumerate() {
            let n = i + 2;
            let f: Vec<&str> = line.split(',').collect();
            let [phase, cell, rep, seconds] = f[..] else {
                return Err(bad(n, format!("{} fields, expected 4", f.len())));
            };
            let seconds: f64 = seconds
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| bad(n, format!("seconds '{seconds}': not a duration")))?;
            let index = |text: &str, name: &str| {
                text.parse::<usize>()
                    .map_err(|_| bad(n, format!("{name} '{text}': not a whole number")))
            };
            match phase {
                "prepare" => t.prepare_s = seconds,
                "outputs" => t.outputs_s = seconds,
                "task" => {
                    t.tasks
                        .insert((index(cell, "cell")?, index(rep, "rep")?), seconds);
                }
                other => {
                    return Err(bad(
                        n,
                        format!("phase '{other}': expected prepare, task or outputs"),
                    ));
                }
            }
        }
        Ok(t)
    }
}

/// A prediction for one thread count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Predicted {
    pub threads: usize,
    /// Serial phases plus the simulated tasks' span.
    pub wall_s: f64,
    /// The one-thread prediction over P times this one.
    pub efficiency: f64,
    /// What no schedule of these tasks on P workers can beat: the serial phases plus the
    /// larger of the tasks' seconds over P and the longest task.
    pub bound_s: f64,
    /// Tasks run, those run ahead and not needed included.
    pub tasks: usize,
}

/// Predicts the sweep `plan` (with the replications of its timed run, `records`, by cell
/// and rep) on each of `threads`, from `timings`. A task the timed run did not run (one run
/// ahead further on more threads) takes its cell's mean; its record is never read, since
/// decisions read only replications every thread count runs.
pub fn predict(
    plan: &Plan,
    records: &[RunRecord],
    timings: &Timings,
    threads: &[usize],
) -> Result<Vec<Predicted>> {
    if timings.tasks.is_empty() {
        return Err(Error::Invalid(
            "the timings hold no task: nothing to predict from".into(),
        ));
    }
    let mut by_cell: HashMap<usize, (f64, usize)> = HashMap::new();
    for (&(c, _), &s) in &timings.tasks {
        let e = by_cell.entry(c).or_default();
        e.0 += s;
        e.1 += 1;
    }
    let overall = timings.tasks.values().sum::<f64>() / timings.tasks.len().max(1) as f64;
    let cost = |c: usize, rep: usize| {
        timings
            .tasks
            .get(&(c, rep))
            .copied()
            .unwrap_or_else(|| by_cell.get(&c).map_or(overall, |&(s, n)| s / n as f64))
    };
    let records: HashMap<(usize, usize), &RunRecord> = records.iter().map(|r| ((r.cell, r.rep), r)).collect();
    let serial = timings.prepare_s + timings.outputs_s;
    let mut out = Vec::new();
    for &p in threads {
        let (span, work, longest, tasks) = simulate(plan, &records, &cost, p.max(1))?;
        out.push(Predicted {
            threads: p,
            wall_s: serial + span,
            efficiency: 0.0,
            bound_s: serial + (work / p.max(1) as f64).max(longest),
            tasks,
        });
    }
    let one = simulate(plan, &records, &cost, 1)?.0 + serial;
    for p in &mut out {
        p.efficiency = one / (p.threads as f64 * p.wall_s);
    }
    Ok(out)
}

/// The runner's loop (`runner::run_sweep`) on `p` simulated workers: the tasks' span, their
/// seconds in all, the longest, and how many ran.
fn simulate(
    plan: &Plan,
    records: &HashMap<(usize, usize), &RunRecord>,
    cost: &dyn Fn(usize, usize) -> f64,
    p: usize,
) -> Result<(f64, f64, f64, usize)> {
    let cells = shard_cells(plan, None);
    let mut rounds = Rounds::new(plan, &cells, vec![BTreeMap::new(); plan.cells.len()]);
    let progress = Progress::new(true, Instant::now(), cells.len(), plan.cells.len());
    let slots = 2 * p;
    let (mut now, mut work, mut longest, mut ran) = (0.0f64, 0.0f64, 0.0f64, 0usize);
    // Handed to the pool and not started, in order; running, with their end.
    let mut pool: VecDeque<(usize, usize)> = VecDeque::new();
    let mut running: Vec<(f64, usize, (usize, usize))> = Vec::new();
    let mut order = 0usize;
    loop {
        let in_flight = pool.len() + running.len();
        rounds.advance(&progress, &|| false);
        if in_flight < p && rounds.nothing_waiting() {
            rounds.run_ahead(&progress);
        }
        while pool.len() + running.len() < slots {
            let Some((c, rep)) = rounds.next_task(&progress) else {
                break;
            };
            progress.started(c);
            pool.push_back((c, rep));
        }
        while running.len() < p
            && let Some(task) = pool.pop_front()
        {
            let seconds = cost(task.0, task.1);
            running.push((now + seconds, order, task));
            order += 1;
        }
        if running.is_empty() {
            break;
        }
        // The first to end (ties: the first started) reports.
        let (i, _) = running
            .iter()
            .enumerate()
            .min_by(|(_, a), (_, b)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .expect("a running task");
        let (end, _, (c, rep)) = running.swap_remove(i);
        let seconds = cost(c, rep);
        (now, work, longest, ran) = (end, work + seconds, longest.max(seconds), ran + 1);
        progress.task_done(c, 0, seconds);
        let record = records.get(&(c, rep)).map(|&r| r.clone());
        if record.is_none() && rounds.needed(c, rep) {
            return Err(Error::Invalid(format!(
                "replication {rep} of cell {c} is needed but the timed run did not record it: \
                 the timings and runs.csv must come from the same run"
            )));
        }
        rounds.reported(c, rep, record);
    }
    Ok((now, work, longest, ran))
}
