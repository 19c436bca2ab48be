//! One module per bench group.
pub mod engine;
pub mod predict;
pub mod sweep;
