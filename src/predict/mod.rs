//! Predictors: runtime predictors for backfilling (Talby et al.).

mod live;
pub mod runtime;
pub mod sbh;

pub use runtime::{AnyPredictor, GRADUAL_INCREMENTS, PredictorKind, Statistic, gradual_increment};
pub use sbh::{Criteria, Growth, SbhParams, Search};
