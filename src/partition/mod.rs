//! Adaptive partitioning of moldable jobs on a network of workstations (Anastasiadis &
//! Sevcik): the workload model so far; the policies (ASP, AP1, AEP, SDF, DIF, DYN-EQUI)
//! build on it.

pub mod workload;

pub use workload::{MoldableJob, Shape, Workload, generate};
