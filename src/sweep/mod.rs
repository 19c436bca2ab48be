//! Sweeps: a TOML grid of experiments run in parallel, with replications to a target
//! confidence interval, resumable outputs, shards and merging.

pub mod compare;
pub mod figures;
pub mod lock;
pub mod merge;
pub mod output;
pub mod progress;
pub mod rounds;
pub mod runner;
pub mod runs;
pub mod scaling;
pub mod shard;
pub mod spec;
pub mod stats;
pub mod stopping;
pub mod task;

pub use runner::{RunOptions, capped_threads, run_sweep};
pub use shard::Shard;
pub use spec::Plan;
