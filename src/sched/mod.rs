//! Scheduling policies, one file each, behind the [`crate::sim::Scheduler`] seam.
//!
//! A policy is chosen by [`SchedulerKind`] once per run; [`AnyScheduler::run`] then calls the
//! engine monomorphised for the concrete type, so the hot loop has no dynamic dispatch.

mod conservative;
mod easy;
mod fcfs;

pub use conservative::Conservative;
pub use easy::{BackfillOrder, Easy};
pub use fcfs::Fcfs;

use std::fmt;
use std::str::FromStr;

use crate::sim::{Engine, Outcome, Window};
use crate::workload::Jobs;

/// The schedulers `--scheduler` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SchedulerKind {
    Fcfs,
    Easy,
    Sjbf,
    Conservative,
}

impl SchedulerKind {
    pub const ALL: [SchedulerKind; 4] = [
        SchedulerKind::Fcfs,
        SchedulerKind::Easy,
        SchedulerKind::Sjbf,
        SchedulerKind::Conservative,
    ];

    pub const NAMES: [&'static str; 4] = ["fcfs", "easy", "sjbf", "conservative"];

    pub fn name(self) -> &'static str {
        match self {
            SchedulerKind::Fcfs => "fcfs",
            SchedulerKind::Easy => "easy",
            SchedulerKind::Sjbf => "sjbf",
            SchedulerKind::Conservative => "conservative",
        }
    }

    pub fn build(self) -> AnyScheduler {
        match self {
            SchedulerKind::Fcfs => AnyScheduler::Fcfs(Fcfs::default()),
            SchedulerKind::Easy => AnyScheduler::Easy(Easy::new(BackfillOrder::Arrival)),
            SchedulerKind::Sjbf => AnyScheduler::Easy(Easy::new(BackfillOrder::ShortestPrediction)),
            SchedulerKind::Conservative => AnyScheduler::Conservative(Conservative::default()),
        }
    }
}

impl fmt::Display for SchedulerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SchedulerKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SchedulerKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown scheduler '{s}'; known: {}",
                    SchedulerKind::NAMES.join(", ")
                )
            })
    }
}

/// A scheduler of any kind, kept between runs so its buffers are reused.
#[derive(Debug)]
pub enum AnyScheduler {
    Fcfs(Fcfs),
    Easy(Easy),
    Conservative(Conservative),
}

impl AnyScheduler {
    /// Runs one simulation with the engine specialised for this scheduler's type.
    pub fn run<'e>(&mut self, engine: &'e mut Engine, jobs: &Jobs, procs: u32) -> Outcome<'e> {
        self.run_window(engine, jobs, procs, None)
    }

    /// [`AnyScheduler::run`] measuring only a window of jobs (see [`Engine::run_window`]).
    pub fn run_window<'e>(
        &mut self,
        engine: &'e mut Engine,
        jobs: &Jobs,
        procs: u32,
        window: Option<&Window>,
    ) -> Outcome<'e> {
        match self {
            AnyScheduler::Fcfs(s) => engine.run_window(jobs, procs, s, window),
            AnyScheduler::Easy(s) => engine.run_window(jobs, procs, s, window),
            AnyScheduler::Conservative(s) => engine.run_window(jobs, procs, s, window),
        }
    }
}
