//! Reports of sweep results: readable tables and plots.

pub mod markdown;
pub mod plot;
pub mod scatter;
