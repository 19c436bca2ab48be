//! Non-dedicated clusters (Hanzich et al., CISNE): workstations whose owners use them
//! while parallel jobs time-share them under a social contract.
//!
//! - `model`: the NAS parallel jobs of Table 3 with gamma inter-arrival times, the local
//!   user profiles of Table 2 and their sessions, the job and node selection policies.
//! - `cluster`: node state, the social contract, Normal and Uniform node selection, and
//!   the CPU model of equations 6-8 that sets each job's progress rate.
//! - `sim`: the off-line simulator that plays the real cluster: FCFS or EASY backfilling,
//!   rate-based progress with completions moved whenever a node's load changes.
//!
//! - `experiment`: one seeded run with its estimates scored, as the CLI and sweeps run it.
//! - `estimate`: the turnaround estimators (Historical, Simulation, Hybrid), on-line and
//!   off-line, and their accuracy (D_v, R_a).

pub mod cluster;
pub mod estimate;
pub mod experiment;
pub mod model;
pub mod policy;
mod report;
pub mod sim;

pub use cluster::{Hardware, Node, SocialContract, Truth};
pub use experiment::{CLUSTER_METRICS, ClusterExperiment, Report};
pub use model::{
    Benchmark, JobSelection, LocalLoad, LocalSession, NodeSelection, ParallelApp, ParallelJob,
    ParallelWorkload, UserProfile,
};
pub use sim::{
    ClusterRun, JobOutcome, NoObserver, Observer, RunningView, Setup, SimError, Snapshot, check_run,
    simulate, simulate_observed,
};
