//! The predictor registry: a runtime predictor by name and parameters, as written on the
//! command line and in sweeps (the grammar of [`crate::call`]), and the dispatch of a run's
//! predictor, generated from one line per predictor.

use std::fmt;
use std::str::FromStr;

use super::{Application, Constant, Estimate, Perfect, Ruh, Sbh, SbhParams, Statistic};
use crate::Time;
use crate::call::{Call, CallError};
use crate::sim::{PredictorView, RuntimePredictor};
use crate::workload::{JobId, Jobs};

/// What a predictor's file registers (`predictors!` below): the names `--predictor` takes
/// for it and how each is written, what it does, and how its kind is read, written and
/// built.
pub trait PredictorEntry {
    /// The predictor the engine calls.
    type Predictor: RuntimePredictor;
    /// Each name it is written with, and that name's syntax with its defaults.
    const NAMES: &'static [(&'static str, &'static str)];
    /// What it does, in a line.
    const HELP: &'static str;
    /// The kind `call` writes, `call` naming one of [`Self::NAMES`].
    fn parse(call: &mut Call) -> Result<PredictorKind, CallError>;
    /// Writes `kind` (of this entry) as `parse` reads it back.
    fn write(kind: &PredictorKind, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// A fresh predictor of `kind` (of this entry).
    fn build(kind: &PredictorKind) -> Self::Predictor;
}

/// The registry: one line per predictor, `Variant => PredictorEntry` (with the variant's fields as
/// the kind holds them), from which the kind, the predictor of a run, names, parsing,
/// printing and the dispatch of every engine hook are generated. Adding a predictor: a file
/// with its [`RuntimePredictor`] and [`PredictorEntry`], and a line here.
macro_rules! predictors {
    ($($(#[$doc:meta])* $variant:ident $(($($tuple:ty),*))? $({$($field:ident: $ty:ty),*})? => $entry:ty,)*) => {
        /// A predictor by name and parameters, as written on the command line and in
        /// sweeps; each variant is a registered [`PredictorEntry`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum PredictorKind {
            $($(#[$doc])* $variant $(($($tuple),*))? $({$($field: $ty),*})?,)*
        }

        /// The predictor of a run, chosen once by [`PredictorKind`], with the state it
        /// keeps; buffers are reused between runs. Every hook of [`RuntimePredictor`] is
        /// forwarded (`tests/it/predictors.rs` runs each through it and directly).
        // Made once per run and moved once: boxing the larger would buy nothing.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug)]
        pub enum AnyPredictor {
            $($variant(<$entry as PredictorEntry>::Predictor),)*
        }

        impl PredictorKind {
            /// Every name a predictor is written with, and its syntax, in registry order.
            pub fn names() -> Vec<(&'static str, &'static str)> {
                [$(<$entry as PredictorEntry>::NAMES,)*].concat()
            }

            /// Every registered predictor as `--help` lists it: a line each.
            pub fn help() -> String {
                let entries: &[(&[(&str, &str)], &str)] = &[$((<$entry as PredictorEntry>::NAMES, <$entry as PredictorEntry>::HELP),)*];
                entries
                    .iter()
                    .map(|(names, help)| {
                        let syntax: Vec<&str> = names.iter().map(|(_, s)| *s).collect();
                        format!("{}: {help}", syntax.join(" or "))
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            }
        }

        impl FromStr for PredictorKind {
            type Err = CallError;

            fn from_str(s: &str) -> Result<Self, CallError> {
                let mut call = Call::parse("predictor", s)?;
                let kind = match call.name() {
                    $(name if <$entry as PredictorEntry>::NAMES.iter().any(|(n, _)| *n == name) => <$entry as PredictorEntry>::parse(&mut call)?,)*
                    _ => {
                        let known: Vec<&str> = PredictorKind::names().iter().map(|(_, s)| *s).collect();
                        return Err(call.unknown_name(&known));
                    }
                };
                call.finish(kind)
            }
        }

        impl fmt::Display for PredictorKind {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(PredictorKind::$variant { .. } => <$entry as PredictorEntry>::write(self, f),)*
                }
            }
        }

        impl AnyPredictor {
            pub fn new(kind: PredictorKind) -> Self {
                match kind {
                    $(PredictorKind::$variant { .. } => AnyPredictor::$variant(<$entry as PredictorEntry>::build(&kind)),)*
                }
            }
        }

        impl RuntimePredictor for AnyPredictor {
            /// On when any registered predictor uses it (the engine then records starts
            /// for every run; only the chosen predictor acts on them).
            const USES_START_HOOK: bool = false $(|| <<$entry as PredictorEntry>::Predictor as RuntimePredictor>::USES_START_HOOK)*;

            fn reset(&mut self, jobs: &Jobs) {
                match self {
                    $(AnyPredictor::$variant(p) => p.reset(jobs),)*
                }
            }

            fn on_arrival(&mut self, job: JobId, view: &PredictorView) -> Time {
                match self {
                    $(AnyPredictor::$variant(p) => p.on_arrival(job, view),)*
                }
            }

            fn on_start(&mut self, job: JobId, view: &PredictorView) {
                match self {
                    $(AnyPredictor::$variant(p) => p.on_start(job, view),)*
                }
            }

            fn on_termination(&mut self, job: JobId, view: &PredictorView, updates: &mut Vec<(JobId, Time)>) {
                match self {
                    $(AnyPredictor::$variant(p) => p.on_termination(job, view, updates),)*
                }
            }

            fn on_deadline_missed(&mut self, job: JobId, misses: u32, view: &PredictorView) -> Time {
                match self {
                    $(AnyPredictor::$variant(p) => p.on_deadline_missed(job, misses, view),)*
                }
            }
        }
    };
}

predictors! {
    /// The actual runtime (an upper bound on what any predictor can achieve).
    Perfect => Perfect,
    /// The user estimate (what EASY uses).
    Estimate => Estimate,
    /// The information-less predictor: every job is predicted to run `c` seconds; misses
    /// are extended by the gradual increments.
    Constant { c: Time } => Constant,
    /// Recent User History: the median (or mean) runtime of the user's last `k` finished
    /// jobs, never above the job's estimate; the estimate while the user has fewer. With
    /// `prop`, each termination recomputes the predictions of the user's waiting and
    /// running jobs.
    Ruh { k: usize, stat: Statistic, prop: bool } => Ruh,
    /// Session-Based History, with the user estimates (`growth` none) or without.
    Sbh(SbhParams) => Sbh,
    /// Hanzich et al.'s Hybrid estimator (Algorithm 4) on a dedicated machine, where no
    /// task ever shares a node: the mean runtime of the finished jobs of the same
    /// application (executable and processors, any user), never above the estimate; the
    /// estimate for a job of an unknown executable or an application not seen yet.
    Application => Application,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        for s in [
            "perfect",
            "estimate",
            "constant(c=1)",
            "constant(c=600)",
            "ruh(k=3,stat=median,prop=false)",
            "ruh(k=4,stat=mean,prop=true)",
        ] {
            let k: PredictorKind = s.parse().unwrap();
            assert_eq!(k.to_string(), s);
        }
        assert_eq!("constant".parse(), Ok(PredictorKind::Constant { c: 1 }));
        assert_eq!(
            " constant( c = 5 ) ".parse(),
            Ok(PredictorKind::Constant { c: 5 })
        );
        assert_eq!(
            "ruh".parse(),
            Ok(PredictorKind::Ruh {
                k: 3,
                stat: Statistic::Median,
                prop: false
            })
        );
        for bad in [
            "ruhh",
            "constant(c=0)",
            "constant(k=3)",
            "perfect(x=1)",
            "constant(c=1",
            "ruh(k=0)",
            "ruh(stat=mode)",
            "ruh(prop=yes)",
        ] {
            assert!(bad.parse::<PredictorKind>().is_err(), "{bad}");
        }
    }
}
