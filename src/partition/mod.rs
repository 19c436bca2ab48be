//! Adaptive partitioning of moldable jobs on a network of workstations (Anastasiadis &
//! Sevcik): the workload model, the policies (ASP, AP1, AEP, SDF, DIF, DYN-EQUI) and their
//! simulator.

pub mod policy;
pub mod sim;
pub mod workload;

pub use policy::Policy;
pub use sim::{Measure, PARTITION_METRICS, PartitionOutcome, PartitionRun, Partitioner, simulate};
pub use workload::{MoldableJob, MoldableWorkload, Shape, generate};
