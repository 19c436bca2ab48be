//! Utility functions of job completion time (Lee & Snavely): their representation so far;
//! the synthetic generator, the aggregate-utility metric and the schedulers build on it.

pub mod function;

pub use function::{UtilityError, UtilityFunction};
