//! Scheduling policies, one file each, behind the [`crate::sim::Scheduler`] seam.
//!
//! A policy is chosen by [`SchedulerKind`] once per run; [`AnyScheduler::run`] then calls the
//! engine monomorphised for the concrete type, so the hot loop has no dynamic dispatch.

mod conservative;
mod easy;
mod fcfs;
pub mod ga;
mod priority;
pub mod ranked;
mod waitlist;

pub use conservative::Conservative;
pub use easy::{BackfillOrder, Easy};
pub use fcfs::Fcfs;
pub use ga::{Ga, GaParams};
pub use priority::PriorityFifo;
pub use ranked::{Backfill, Ranked, Ranking};

use std::fmt;
use std::str::FromStr;

use crate::Time;
use crate::call::{Call, CallError};
use crate::sim::{Engine, Outcome, RuntimePredictor, SchedCtx, UserEstimates, Window};
use crate::workload::{JobId, Jobs};

/// EASY's test for starting `job` ahead of a reserved one, one job at a time: it fits in
/// the free processors now and either ends by the reservation's `shadow` time (by its
/// prediction) or uses only processors the reservation leaves free (`extra`, reduced by
/// it then). `Easy` applies the same rule to many jobs at once (`waitlist`).
pub fn easy_backfills(ctx: &SchedCtx, job: JobId, shadow: Time, extra: &mut u32) -> bool {
    let procs = ctx.procs(job);
    if procs > ctx.free() {
        return false;
    }
    if ctx.now() + ctx.prediction(job) <= shadow {
        return true;
    }
    if procs <= *extra {
        *extra -= procs;
        return true;
    }
    false
}

/// The schedulers `--scheduler` accepts. `easy` is the classic baseline and always uses
/// the user estimates; `sjbf` and `easy-pred` (EASY's arrival order with predictions for
/// the shadow time and the backfill test) use the chosen runtime predictor. `fcfs` and
/// `conservative` ignore predictions. `prio` (Priority-FIFO) needs job priorities and `ga`
/// (written `ga` or `ga(population=20,generations=100,mutation=10)`) utility functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SchedulerKind {
    Fcfs,
    Easy,
    Sjbf,
    Conservative,
    EasyPred,
    Prio,
    Ga(GaParams),
}

impl SchedulerKind {
    /// The schedulers that run on any job table; `prio` and `ga` also need priorities and
    /// utility functions (see [`crate::utility`]).
    pub const ALL: [SchedulerKind; 5] = [
        SchedulerKind::Fcfs,
        SchedulerKind::Easy,
        SchedulerKind::Sjbf,
        SchedulerKind::Conservative,
        SchedulerKind::EasyPred,
    ];

    pub const NAMES: [&'static str; 7] = ["fcfs", "easy", "sjbf", "conservative", "easy-pred", "prio", "ga"];

    pub fn name(self) -> &'static str {
        match self {
            SchedulerKind::Fcfs => "fcfs",
            SchedulerKind::Easy => "easy",
            SchedulerKind::Sjbf => "sjbf",
            SchedulerKind::Conservative => "conservative",
            SchedulerKind::EasyPred => "easy-pred",
            SchedulerKind::Prio => "prio",
            SchedulerKind::Ga(_) => "ga",
        }
    }

    /// Whether the scheduler reads runtime predictions (and so takes `--predictor`).
    pub fn uses_predictor(self) -> bool {
        matches!(
            self,
            SchedulerKind::Sjbf | SchedulerKind::EasyPred | SchedulerKind::Ga(_)
        )
    }

    pub fn build(self) -> AnyScheduler {
        match self {
            SchedulerKind::Fcfs => AnyScheduler::Fcfs(Fcfs::default()),
            SchedulerKind::Easy | SchedulerKind::EasyPred => {
                AnyScheduler::Easy(Easy::new(BackfillOrder::Arrival))
            }
            SchedulerKind::Sjbf => AnyScheduler::Easy(Easy::new(BackfillOrder::ShortestPrediction)),
            SchedulerKind::Conservative => AnyScheduler::Conservative(Conservative::default()),
            SchedulerKind::Prio => AnyScheduler::Prio(PriorityFifo::default()),
            SchedulerKind::Ga(p) => AnyScheduler::Ga(Box::new(Ga::new(p))),
        }
    }
}

impl fmt::Display for SchedulerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedulerKind::Ga(p) if *p != GaParams::default() => write!(
                f,
                "ga(population={},generations={},mutation={})",
                p.population, p.generations, p.mutation
            ),
            k => f.write_str(k.name()),
        }
    }
}

impl FromStr for SchedulerKind {
    type Err = CallError;
    fn from_str(s: &str) -> Result<Self, CallError> {
        let mut call = Call::parse("scheduler", s)?;
        let kind = match call.name() {
            "ga" => {
                let d = GaParams::default();
                SchedulerKind::Ga(GaParams {
                    population: call.take(
                        "population",
                        d.population,
                        "a whole number from 1 to 10000",
                        |&v| (1..=10_000).contains(&v),
                    )?,
                    generations: call.take(
                        "generations",
                        d.generations,
                        "a whole number up to 1000000",
                        |&v| v <= 1_000_000,
                    )?,
                    mutation: call.take("mutation", d.mutation, "a percentage from 0 to 100", |&v| {
                        v <= 100
                    })?,
                })
            }
            name => SchedulerKind::ALL
                .into_iter()
                .chain([SchedulerKind::Prio])
                .find(|k| k.name() == name)
                .ok_or_else(|| call.unknown_name(&SchedulerKind::NAMES))?,
        };
        call.finish(kind)
    }
}

/// A scheduler of any kind, kept between runs so its buffers are reused.
#[derive(Debug)]
pub enum AnyScheduler {
    Fcfs(Fcfs),
    Easy(Easy),
    Conservative(Conservative),
    Prio(PriorityFifo),
    Ga(Box<Ga>),
}

impl AnyScheduler {
    /// Runs one simulation with the engine specialised for this scheduler's type.
    /// Predictions come from the user estimates.
    pub fn run<'e>(&mut self, engine: &'e mut Engine, jobs: &Jobs, procs: u32) -> Outcome<'e> {
        self.run_with(engine, jobs, procs, &mut UserEstimates, None)
    }

    /// [`AnyScheduler::run`] with predictions from `predictor`, measuring only a window of
    /// jobs (see [`Engine::run_window`]). Schedulers that do not read predictions should be
    /// given [`UserEstimates`]; `crate::experiment::Simulate` chooses.
    pub fn run_with<'e, P: RuntimePredictor>(
        &mut self,
        engine: &'e mut Engine,
        jobs: &Jobs,
        procs: u32,
        predictor: &mut P,
        window: Option<&Window>,
    ) -> Outcome<'e> {
        match self {
            AnyScheduler::Fcfs(s) => engine.run_window(jobs, procs, s, predictor, window),
            AnyScheduler::Easy(s) => engine.run_window(jobs, procs, s, predictor, window),
            AnyScheduler::Conservative(s) => engine.run_window(jobs, procs, s, predictor, window),
            AnyScheduler::Prio(s) => engine.run_window(jobs, procs, s, predictor, window),
            AnyScheduler::Ga(s) => engine.run_window(jobs, procs, s.as_mut(), predictor, window),
        }
    }

    /// Seeds the scheduler's own random choices (only the GA has any).
    pub fn set_seed(&mut self, seed: u64) {
        if let AnyScheduler::Ga(g) = self {
            g.set_seed(seed);
        }
    }
}
