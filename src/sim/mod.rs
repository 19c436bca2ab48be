//! The simulator: machine state, the event loop and the scheduler seam.
//!
//! Order within one instant (exact, tested): all terminations, then all arrivals in trace
//! order, then one scheduling pass. A job started with runtime 0 ends at the same instant;
//! its termination is processed in a further round at that instant, followed by another pass.
//! A pass may ask for one wake-up ([`SchedCtx::wake_at`]): an instant with no other event
//! then still gets its pass (conservative backfilling starts reservations that way). The
//! next pass, whenever it comes, forgets the request.

mod calendar;
mod completions;
mod engine;
pub mod feedback;
mod parts;
pub mod power_states;
mod predictor;
pub mod profile;
mod running;
mod scheduler;
pub(crate) mod state;
mod validator;

pub use engine::{Engine, Outcome, Run, Window};
pub use feedback::Dependencies;
pub use parts::Parts;
pub use power_states::{NodeSwitch, SwitchOffPolicy};
pub use predictor::{PredictorView, RuntimePredictor, UserEstimates};
pub use running::RunningJob;
pub use scheduler::Scheduler;
pub use state::{PredictionChange, SchedCtx, SimState};
