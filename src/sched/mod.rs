//! Scheduling policies, one file each, behind the [`crate::sim::Scheduler`] seam.
//!
//! A policy is chosen by [`SchedulerKind`] once per run; [`AnyScheduler::run`] then calls the
//! engine monomorphised for the concrete type, so the hot loop has no dynamic dispatch.

mod cap_profile;
pub mod capped;
mod conservative;
mod easy;
mod fcfs;
pub mod ga;
pub mod nodes;
mod priority;
pub mod ranked;
mod waitlist;

pub use capped::CappedScheduler;
pub use conservative::Conservative;
pub use easy::{BackfillOrder, Easy, EasyPred, Sjbf};
pub use fcfs::Fcfs;
pub use ga::{Ga, GaParams};
pub use nodes::{NodePolicy, NodeScheduler};
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

/// What a scheduler's file registers (`schedulers!` below): its name, how it is written and
/// what it does, what it reads and needs, and how it is built. The type that implements it
/// is the registry's entry: the scheduler itself, or a marker when several entries run one
/// policy with different settings (`sjbf` and `easy-pred` run [`Easy`]).
pub trait SchedulerEntry {
    /// The policy the engine runs.
    type Scheduler: crate::sim::Scheduler;
    /// The name `--scheduler` and sweeps take.
    const NAME: &'static str;
    /// How it is written with its parameters and their defaults, for help texts.
    const SYNTAX: &'static str;
    /// What it does, in a line.
    const HELP: &'static str;
    /// Whether it reads runtime predictions (and so takes `--predictor`).
    const USES_PREDICTIONS: bool = false;
    /// What the jobs must carry beyond a trace's fields ("priorities"), if anything.
    const NEEDS: Option<&'static str> = None;
    /// Whether its promises hold where idle nodes are switched off and a start may wait
    /// for a boot ([`crate::sim::SchedCtx::boot_margin`]): it keeps no reservation, or its
    /// reservations leave room for the boot.
    const COUNTS_BOOTS: bool = false;
    /// The kind with its default parameters.
    const DEFAULT: SchedulerKind;
    /// The kind `call` (which names this entry) writes, its parameters read from it.
    fn parse(_call: &mut Call) -> Result<SchedulerKind, CallError> {
        Ok(Self::DEFAULT)
    }
    /// Writes `kind` (of this entry) as `call` reads it back.
    fn write(_kind: &SchedulerKind, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Self::NAME)
    }
    /// A fresh scheduler of `kind` (of this entry).
    fn build(kind: &SchedulerKind) -> Self::Scheduler;
    /// Seeds the scheduler's own random choices; most make none.
    fn seed(_scheduler: &mut Self::Scheduler, _seed: u64) {}
    /// How `kind` (of this entry) runs on a partition of nodes ([`nodes`]), if it does: a
    /// partition whose nodes describe memory or GPUs (or are whole-node) refuses a
    /// scheduler without one.
    fn on_nodes(_kind: &SchedulerKind) -> Option<NodePolicy> {
        None
    }
    /// Roughly what a run of `kind` costs against FCFS on the same jobs (measured; the
    /// sweep's shards are balanced by it, `sweep::shard`). Most cost about as much.
    fn relative_cost(_kind: &SchedulerKind) -> f64 {
        1.0
    }
}

/// The registry: one line per scheduler, `Variant => SchedulerEntry` (`Variant(Params) => SchedulerEntry`
/// for one with parameters), from which the kind, the scheduler of a run, their names,
/// parsing, printing and the engine's dispatch (monomorphised per policy) are generated.
/// Adding a scheduler: a file with its policy and [`SchedulerEntry`], and a line here.
macro_rules! schedulers {
    ($($variant:ident $(($params:ty))? => $entry:ty,)*) => {
        /// A scheduler by name and parameters, as `--scheduler` and sweeps write it; each
        /// variant is a registered [`SchedulerEntry`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum SchedulerKind {
            $($variant $(($params))?,)*
        }

        /// A scheduler of any kind, kept between runs so its buffers are reused.
        // One per kind and thread, moved rarely: boxing the GA would buy nothing.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug)]
        pub enum AnyScheduler {
            $($variant(<$entry as SchedulerEntry>::Scheduler),)*
        }

        impl SchedulerKind {
            /// Every registered scheduler with its default parameters, in registry order.
            pub const EVERY: &'static [SchedulerKind] = &[$(<$entry as SchedulerEntry>::DEFAULT,)*];
            /// Every registered name, in registry order.
            pub const NAMES: &'static [&'static str] = &[$(<$entry as SchedulerEntry>::NAME,)*];

            pub fn name(self) -> &'static str {
                match self {
                    $(SchedulerKind::$variant { .. } => <$entry as SchedulerEntry>::NAME,)*
                }
            }

            /// Whether the scheduler reads runtime predictions (and so takes `--predictor`).
            pub fn uses_predictor(self) -> bool {
                match self {
                    $(SchedulerKind::$variant { .. } => <$entry as SchedulerEntry>::USES_PREDICTIONS,)*
                }
            }

            /// What the jobs must carry for it beyond a trace's fields, if anything.
            pub fn needs(self) -> Option<&'static str> {
                match self {
                    $(SchedulerKind::$variant { .. } => <$entry as SchedulerEntry>::NEEDS,)*
                }
            }

            /// Whether it may run where idle nodes are switched off ([`SchedulerEntry::COUNTS_BOOTS`]).
            pub fn counts_boots(self) -> bool {
                match self {
                    $(SchedulerKind::$variant { .. } => <$entry as SchedulerEntry>::COUNTS_BOOTS,)*
                }
            }

            /// Every registered name that may run where idle nodes are switched off.
            pub fn names_counting_boots() -> Vec<&'static str> {
                Self::EVERY.iter().filter(|k| k.counts_boots()).map(|k| k.name()).collect()
            }

            /// How it runs on a partition of nodes, if it does ([`SchedulerEntry::on_nodes`]).
            pub fn node_policy(self) -> Option<NodePolicy> {
                match self {
                    $(SchedulerKind::$variant { .. } => <$entry as SchedulerEntry>::on_nodes(&self),)*
                }
            }

            /// Every registered name whose policy on nodes passes `test`, for messages.
            pub fn names_on_nodes(test: impl Fn(NodePolicy) -> bool) -> Vec<&'static str> {
                Self::EVERY.iter().filter(|k| k.node_policy().is_some_and(&test)).map(|k| k.name()).collect()
            }

            /// Roughly what a run costs against FCFS on the same jobs ([`SchedulerEntry::relative_cost`]).
            pub fn relative_cost(self) -> f64 {
                match self {
                    $(SchedulerKind::$variant { .. } => <$entry as SchedulerEntry>::relative_cost(&self),)*
                }
            }

            pub fn build(self) -> AnyScheduler {
                match self {
                    $(SchedulerKind::$variant { .. } => AnyScheduler::$variant(<$entry as SchedulerEntry>::build(&self)),)*
                }
            }

            /// Every registered scheduler as `--help` lists it: a line each, its syntax and
            /// what it does.
            pub fn help() -> String {
                let lines: &[(&str, &str)] = &[$((<$entry as SchedulerEntry>::SYNTAX, <$entry as SchedulerEntry>::HELP),)*];
                lines.iter().map(|(syntax, help)| format!("{syntax}: {help}")).collect::<Vec<_>>().join("\n")
            }
        }

        impl fmt::Display for SchedulerKind {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(SchedulerKind::$variant { .. } => <$entry as SchedulerEntry>::write(self, f),)*
                }
            }
        }

        impl FromStr for SchedulerKind {
            type Err = CallError;
            fn from_str(s: &str) -> Result<Self, CallError> {
                let mut call = Call::parse("scheduler", s)?;
                let kind = match call.name() {
                    $(name if name == <$entry as SchedulerEntry>::NAME => <$entry as SchedulerEntry>::parse(&mut call)?,)*
                    _ => return Err(call.unknown_name(SchedulerKind::NAMES)),
                };
                call.finish(kind)
            }
        }

        impl AnyScheduler {
            /// [`AnyScheduler::run`] with predictions from `predictor`, measuring only a
            /// window of jobs (see [`Engine::run_window`]). Schedulers that do not read
            /// predictions should be given [`UserEstimates`]; `crate::experiment::Simulate`
            /// chooses.
            pub fn run_with<'e, P: RuntimePredictor>(
                &mut self,
                engine: &'e mut Engine,
                jobs: &Jobs,
                procs: u32,
                predictor: &mut P,
                window: Option<&Window>,
            ) -> Outcome<'e> {
                match self {
                    $(AnyScheduler::$variant(s) => engine.run_window(jobs, procs, s, predictor, window),)*
                }
            }

            /// Seeds the scheduler's own random choices (only the GA makes any).
            pub fn set_seed(&mut self, seed: u64) {
                match self {
                    $(AnyScheduler::$variant(s) => <$entry as SchedulerEntry>::seed(s, seed),)*
                }
            }
        }
    };
}

schedulers! {
    Fcfs => Fcfs,
    Easy => Easy,
    Sjbf => easy::Sjbf,
    Conservative => Conservative,
    EasyPred => easy::EasyPred,
    Prio => PriorityFifo,
    Ga(GaParams) => Ga,
}

impl SchedulerKind {
    /// The registered schedulers that run on any job table (those that need nothing more).
    pub fn on_any_jobs() -> Vec<SchedulerKind> {
        SchedulerKind::EVERY
            .iter()
            .copied()
            .filter(|k| k.needs().is_none())
            .collect()
    }

    /// The names of the registered schedulers that read runtime predictions, for messages.
    pub fn predicting() -> Vec<&'static str> {
        SchedulerKind::EVERY
            .iter()
            .filter(|k| k.uses_predictor())
            .map(|k| k.name())
            .collect()
    }
}

impl AnyScheduler {
    /// Runs one simulation with the engine specialised for this scheduler's type.
    /// Predictions come from the user estimates.
    pub fn run<'e>(&mut self, engine: &'e mut Engine, jobs: &Jobs, procs: u32) -> Outcome<'e> {
        self.run_with(engine, jobs, procs, &mut UserEstimates, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every registered scheduler runs on nodes; all but Priority-FIFO and the GA under a
    /// power cap over time too. A new entry without [`SchedulerEntry::on_nodes`] is refused
    /// on nodes, its name left out of these lists.
    #[test]
    fn which_schedulers_run_on_nodes() {
        assert_eq!(
            SchedulerKind::names_on_nodes(|_| true),
            ["fcfs", "easy", "sjbf", "conservative", "easy-pred", "prio", "ga"]
        );
        assert_eq!(
            SchedulerKind::names_on_nodes(NodePolicy::runs_capped),
            ["fcfs", "easy", "sjbf", "conservative", "easy-pred"]
        );
        let ga = "ga(population=3,generations=4)".parse::<SchedulerKind>().unwrap();
        let GaParams {
            population,
            generations,
            ..
        } = match ga.node_policy() {
            Some(NodePolicy::Ga(p)) => p,
            other => panic!("{other:?}"),
        };
        assert_eq!((population, generations), (3, 4));
    }
}
