//! The allocation strategies of Downey 1997 (section 6), one file each, in one registry
//! (`plugins!` below): how the job at the head of the queue chooses its cluster size, and
//! when it decides. Adding a strategy: a file with its type, its
//! [`Entry`](crate::plugin::Entry) and its [`Allocating`], and a line in the registry.
//!
//! What the head carries between instants (what it holds out for, its prompt, its pending
//! predictions) and what it sees at one (the free processors, the running jobs, the
//! fitted lifetimes) are here, shared by the simulator (`malleable::sim`) and the
//! application-centric replay (`malleable::application`).

mod avg;
mod bias;
mod heur;
mod opt;
mod pred;
mod rebel;

pub use avg::Avg;
pub use bias::Bias;
pub use heur::Heur;
pub use opt::Opt;
pub use pred::Pred;
pub use rebel::{MIN_PROMPT_INTERVAL, Predicting, Rebel};

pub(crate) use rebel::Chooser;

use super::bias::BiasFit;
use crate::plugin::plugins;
use crate::queue_time::LifetimeFit;
use crate::speedup::downey_speedup;
use crate::workload::MalleableColumns;

/// What an allocation strategy decides for the job at the head of the queue.
pub trait Allocating {
    /// Start the head now on n processors (`Some(n)`, n <= the free processors and its
    /// largest cluster), or wait (`None`), updating what it holds out for, its prompt and
    /// its pending predictions in `d`.
    fn decide(&self, d: &mut Deciding) -> Option<u32>;
}

plugins! {
    /// An allocation strategy by name and parameters, as `--strategy` and sweeps write it.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Strategy: dyn Allocating, "strategy" {
        Avg(Avg),
        Opt(Opt),
        Pred(Pred),
        Bias(Bias),
        Heur(Heur),
    }
}

/// A running job's cluster, as the head sees it: when it started, when it ends, its size.
#[derive(Clone, Copy, Debug)]
pub struct RunningCluster {
    pub(crate) job: u32,
    pub(crate) start: f64,
    pub(crate) end: f64,
    pub(crate) size: u32,
}

/// A rebel's prediction waiting for its outcome: the processors it held out for free up.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    raw: f64,
    used: f64,
    target: u32,
    at: f64,
}

/// What the job at the head is doing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Head {
    /// Processors it holds out for.
    pub(crate) target: Option<u32>,
    /// When it reconsiders (PRED, BIAS) or gives in (HEUR).
    pub(crate) prompt: Option<f64>,
    /// It has decided at least once.
    seen: bool,
    pub(crate) rebelled: bool,
}

/// What the head sees when it decides.
pub struct Situation<'a> {
    pub(crate) now: f64,
    pub(crate) free: u32,
    /// A job arrived at this instant (a prompt for PRED and BIAS).
    pub(crate) arrived: bool,
    /// The head's own prompt fired at this instant.
    pub(crate) prompted: bool,
    pub(crate) running: &'a [RunningCluster],
    pub(crate) fit: &'a LifetimeFit,
    pub(crate) correction: &'a BiasFit,
}

/// One decision of head job `j` (at most `max` processors): what it sees, and what it
/// carries between instants.
pub struct Deciding<'a> {
    pub(crate) model: &'a MalleableColumns,
    pub(crate) j: usize,
    pub(crate) max: u32,
    pub(crate) situation: &'a Situation<'a>,
    pub(crate) head: &'a mut Head,
    pub(crate) chooser: &'a mut Chooser,
    pub(crate) pending: &'a mut Vec<Pending>,
}

/// Pairs the predictions whose processors are now free with their outcome: the raw one for
/// the bias correction, the one used for the quality report.
pub(crate) fn resolve_pending(
    pending: &mut Vec<Pending>,
    free: u32,
    now: f64,
    correction: &mut BiasFit,
    quality: &mut BiasFit,
    pairs: &mut Vec<(f64, f64)>,
) {
    pending.retain(|p| {
        if free >= p.target {
            correction.record(p.raw, now - p.at);
            quality.record(p.used, now - p.at);
            pairs.push((p.used, now - p.at));
            false
        } else {
            true
        }
    });
}

/// Job `j`'s run time on `size` processors: L / S(size).
pub(crate) fn run_time(model: &MalleableColumns, j: usize, size: u32) -> f64 {
    model.lifetime[j] / downey_speedup(model.avg_parallelism[j], model.sigma[j], size as f64)
}
