//! Experiments: what one run of each model needs, built and validated in one place, for
//! the sweep runner and every command alike.

pub mod wiring;

pub use wiring::{Simulate, predictor_for};
