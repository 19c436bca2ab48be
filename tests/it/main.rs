//! The integration tests, one binary (one link of the library) with a module per
//! subject. `tests/alloc.rs` stays apart: it counts allocations with its own global
//! allocator, which would count every other test's too.

mod cli;
mod cli_text;
#[path = "../common/mod.rs"]
mod common;
mod drawn_requests;
mod dyn_equi;
mod feedback;
mod golden;
mod grammar;
mod intervals;
mod layers;
mod ledgers;
mod lee_snavely;
mod lublin_model;
mod machine;
mod malformed;
mod malleable;
mod metrics;
mod mutation;
mod nondedicated;
mod power_cap;
mod predictors;
mod properties;
mod queue_time;
mod readme;
mod reference;
mod resampling;
mod spec_reader;
mod sweep;
mod traces;
mod utility;
