//! schedlab: a laboratory for parallel-job-scheduling research.
//!
//! The library replays SWF workload logs and synthetic workload models on a simulated
//! space-shared parallel machine. Dependencies point one way: [`workload`] and [`speedup`] at
//! the bottom, [`sim`] (engine, event queue, machine state and the [`sim::Scheduler`] trait)
//! above them, [`sched`] implementing that trait, and [`metrics`] reading the outcome.

// Struct-of-arrays code walks several columns with one index; iterators over one column
// would hide that they move together.
#![allow(clippy::needless_range_loop)]

pub mod agent;
pub mod atomic;
pub mod call;
pub mod carbon;
pub mod energy;
pub mod error;
pub mod experiment;
pub mod machine;
pub mod malleable;
pub mod metrics;
pub mod nondedicated;
pub mod occupancy;
pub mod params;
pub mod partition;
pub mod plugin;
pub mod predict;
pub mod queue_time;
pub mod random;
pub mod report;
pub mod sched;
pub mod seed;
pub mod series;
pub mod sim;
pub mod speedup;
pub mod suggest;
pub mod sweep;
pub mod utility;
pub mod workload;

/// Simulated time in whole ticks. For SWF traces and the built-in models a tick is one
/// second; event keys are integers so the order of events is exact.
pub type Time = i64;

pub use error::{Error, Result};
