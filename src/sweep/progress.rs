//! The progress line of a running sweep, and the cost of each cell's tasks that decides
//! which runs next.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// The progress line (hidden when quiet or not on a terminal): cells closed, replications
/// done, simulated jobs per second, and an ETA from the work done and the work projected.
///
/// Work is measured in task seconds. Each time a cell decides to go on, it gets its
/// projected replications not yet run ([`super::stopping::projected_replications`]); the work left
/// is those replications, each costing its cell's mean task time so far (the sweep's mean
/// for a cell without one). The ETA is the elapsed time scaled by work left over work
/// done, so it accounts for the cores and for cells of different cost.
pub struct Progress {
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
    pub fn new(quiet: bool, started: Instant, cells: usize, all_cells: usize) -> Progress {
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
    pub fn cell(&self, cell: usize, left: usize, closed: usize) {
        let mut s = self.state.lock().expect("progress lock");
        s.closed = closed;
        s.left[cell] = left;
        self.show(&mut s);
    }

    /// `tasks` replications of `cell` start: at least that many are left.
    pub fn launched(&self, cell: usize, tasks: usize) {
        let mut s = self.state.lock().expect("progress lock");
        s.left[cell] = s.left[cell].max(tasks);
    }

    /// Of `cells`, the one the runner's next task comes from: a cell with no task started
    /// yet first (one probe each, so that every cell's cost is soon known), then the one
    /// whose tasks cost most so far (a cell with none finished counts at the sweep's mean,
    /// or first while none has finished anywhere), ties to the first.
    pub fn costliest(&self, cells: impl Iterator<Item = usize>) -> Option<usize> {
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
    /// Clears the line once the sweep is done.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    pub fn started(&self, cell: usize) {
        self.state.lock().expect("progress lock").started[cell] += 1;
    }

    pub fn task_done(&self, cell: usize, jobs: u64, secs: f64) {
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
