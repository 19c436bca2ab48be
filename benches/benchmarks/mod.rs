//! One module per bench group.
pub mod cisne;
pub mod engine;
pub mod ga;
pub mod machine;
pub mod models;
pub mod predict;
pub mod queue_time;
pub mod sweep;
pub mod swf;
