//! Predictors: runtime predictors for backfilling (Talby et al.).

pub mod runtime;

pub use runtime::{AnyPredictor, GRADUAL_INCREMENTS, PredictorKind, Statistic, gradual_increment};
