//! Queue-time prediction for a job at the head of the queue (Downey 1997, section 3): the
//! uniform-log lifetime model, its online fit, and predictors A, B, combined and exact.

pub mod decision;
pub mod kernel;
pub mod lifetime;
pub mod predictors;
pub mod solve;
pub mod state;

pub use decision::{Choice, QueueMethod, choose_cluster_size, choose_with};
pub use lifetime::{LifetimeFit, UniformLog};
pub use predictors::{QueuePrediction, RunningAges};
pub use state::{MachineState, PredictionRow, write_prediction_table};
