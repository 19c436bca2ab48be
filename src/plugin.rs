//! The registry of a kind of plug-in chosen by name in the one parameter grammar
//! ([`crate::call`]): allocation strategies, partitioning policies and turnaround
//! estimators. Each entry is a type in its own file that says its name, syntax and help,
//! reads and writes its parameters ([`Entry`]) and does its work (the kind's own trait);
//! one line in the kind's `plugins!` list registers it, and the kind's enum, its names,
//! help, parsing, printing and dispatch are generated from that list. Schedulers and
//! runtime predictors have registries of their own (`sched::schedulers!`,
//! `predict::kind`), which also generate the engine's monomorphised dispatch, and so do
//! workload models (`workload::synth::models!`), whose parameters are keys of a run.

use std::fmt;

use crate::call::{Call, CallError};

/// What an entry of a registry says about itself, and how its parameters are read and
/// written.
pub trait Entry: Sized {
    /// The name it is chosen by.
    const NAME: &'static str;
    /// How it is written with its parameters and their defaults, for help texts and
    /// refusals of unknown names.
    const SYNTAX: &'static str;
    /// What it does, in a line.
    const HELP: &'static str;
    /// Whether `name` chooses this entry: its [`Entry::NAME`], unless the entry is a family
    /// whose name carries its parameters (the estimators' `mpl-cpu`).
    fn chosen_by(name: &str) -> bool {
        name == Self::NAME
    }
    /// The entry `call` (which names it) writes, its parameters read from it.
    fn parse(call: &mut Call) -> Result<Self, CallError>;
    /// Writes the entry as [`Entry::parse`] reads it back: its name, for an entry without
    /// parameters.
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Self::NAME)
    }
}

/// A registry: `plugins! { #[derive(...)] pub enum Kind: dyn Behaviour, "what" { Variant(Entry), ... } }`
/// generates `enum Kind { Variant(Entry), ... }` with `NAMES`, `SYNTAXES`, `name()`,
/// `help()`, `FromStr` (through [`Call`], refusing unknown names with the syntaxes and a
/// "did you mean"), `Display`, and `behaviour()`, the entry as the kind's trait object.
/// Adding an entry: a file with its type, its [`Entry`] and its behaviour, and a line in
/// the list.
macro_rules! plugins {
    (
        $(#[$meta:meta])*
        $vis:vis enum $kind:ident: dyn $behaviour:path, $what:literal {
            $($variant:ident($entry:ty),)*
        }
    ) => {
        $(#[$meta])*
        $vis enum $kind {
            $($variant($entry),)*
        }

        impl $kind {
            /// Every registered name, in registry order.
            pub const NAMES: &'static [&'static str] = &[$(<$entry as $crate::plugin::Entry>::NAME,)*];
            /// Every registered entry as it is written with its parameters, in registry
            /// order.
            pub const SYNTAXES: &'static [&'static str] =
                &[$(<$entry as $crate::plugin::Entry>::SYNTAX,)*];

            /// The registered name of this entry.
            pub fn name(&self) -> &'static str {
                match self {
                    $($kind::$variant(_) => <$entry as $crate::plugin::Entry>::NAME,)*
                }
            }

            /// Every registered entry as help texts list it: a line each, its syntax and
            /// what it does.
            pub fn help() -> String {
                let lines: &[(&str, &str)] = &[$((
                    <$entry as $crate::plugin::Entry>::SYNTAX,
                    <$entry as $crate::plugin::Entry>::HELP,
                ),)*];
                lines.iter().map(|(syntax, help)| format!("{syntax}: {help}")).collect::<Vec<_>>().join("\n")
            }

            /// The entry, as what it does.
            pub fn behaviour(&self) -> &dyn $behaviour {
                match self {
                    $($kind::$variant(entry) => entry,)*
                }
            }
        }

        impl std::str::FromStr for $kind {
            type Err = $crate::call::CallError;
            fn from_str(s: &str) -> Result<Self, $crate::call::CallError> {
                let mut call = $crate::call::Call::parse($what, s)?;
                let name = call.name();
                $(if <$entry as $crate::plugin::Entry>::chosen_by(name) {
                    let entry = <$entry as $crate::plugin::Entry>::parse(&mut call)?;
                    return call.finish($kind::$variant(entry));
                })*
                Err(call.unknown_name($kind::SYNTAXES))
            }
        }

        impl std::fmt::Display for $kind {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $($kind::$variant(entry) => $crate::plugin::Entry::write(entry, f),)*
                }
            }
        }
    };
}

pub(crate) use plugins;
