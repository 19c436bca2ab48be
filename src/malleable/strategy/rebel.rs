//! What OPT, PRED and BIAS share: the head chooses the cluster size n minimising
//! Q(n) + R(n), starts if n processors are free (or risk aversion finds waiting not worth
//! it), and otherwise holds out for n, a rebel when some processors are free.

use super::super::bias::BiasFit;
use super::{Deciding, Pending, RunningCluster};
use crate::call::{Call, CallError};
use crate::queue_time::{
    Choice, LifetimeFit, QueueMethod, RunningAges, UniformLog, choose_cluster_size, choose_with,
};

/// Shortest wait between a predictive rebel's prompts, in seconds.
pub const MIN_PROMPT_INTERVAL: f64 = 1.0;

/// The options of every strategy that holds out for its choice (OPT, PRED, BIAS).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rebel {
    /// A rebel declares the n it holds out for and never takes more.
    pub lock_in: bool,
    /// Rebel only if the predicted saving exceeds this fraction of the run time on the
    /// processors free now (Downey: 0.2); 0 rebels for any saving.
    pub risk_aversion: f64,
}

pub(super) const NUMBER: &str = "a number >= 0";

/// A number >= 0, as the strategies' parameters are.
pub(super) fn number(v: &str) -> Option<f64> {
    v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0)
}

impl Rebel {
    pub(super) fn parse(call: &mut Call) -> Result<Rebel, CallError> {
        let lock_in = call.flag("lock_in", false)?;
        let risk_aversion = call.take_with("risk", 0.0, NUMBER, number)?;
        Ok(Rebel {
            lock_in,
            risk_aversion,
        })
    }
}

/// The options of the strategies that predict Q(n) (PRED, BIAS).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Predicting {
    pub method: QueueMethod,
    /// Predict from the model's lifetime distribution (e^2 to e^12 s) instead of the one
    /// fitted online to finished jobs' run times.
    pub model_lifetimes: bool,
    /// A rebel reconsiders at every event (each arrival and completion) rather than only
    /// at Downey's prompts (`prompts=events` against `prompts=paper`).
    pub every_event: bool,
    pub rebel: Rebel,
}

impl Default for Predicting {
    fn default() -> Self {
        Predicting {
            method: QueueMethod::Combined,
            model_lifetimes: false,
            every_event: false,
            rebel: Rebel::default(),
        }
    }
}

impl Predicting {
    pub(super) fn parse(call: &mut Call) -> Result<Predicting, CallError> {
        let rebel = Rebel::parse(call)?;
        let methods = format!("one of {}", QueueMethod::NAMES.join(", "));
        let method = call.take_with("predictor", QueueMethod::Combined, &methods, |v| v.parse().ok())?;
        let model_lifetimes = call.choice("lifetimes", false, &[("fitted", false), ("model", true)])?;
        let every_event = call.choice("prompts", false, &[("paper", false), ("events", true)])?;
        Ok(Predicting {
            method,
            model_lifetimes,
            every_event,
            rebel,
        })
    }

    /// `name(...)` with every parameter, as [`Predicting::parse`] reads it back.
    pub(super) fn write(&self, name: &str, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lifetimes = if self.model_lifetimes { "model" } else { "fitted" };
        let prompts = if self.every_event { "events" } else { "paper" };
        let Rebel {
            lock_in,
            risk_aversion,
        } = self.rebel;
        write!(
            f,
            "{name}(predictor={},lifetimes={lifetimes},prompts={prompts},lock_in={lock_in},risk={risk_aversion})",
            self.method
        )
    }
}

/// How the head knows Q(n), the time until n processors are free.
#[derive(Clone, Copy, Debug)]
pub(super) enum Queue {
    /// Exactly, from the running jobs' ends (OPT's oracle).
    Known,
    /// Predicted from the running jobs' ages (PRED).
    Predicted(Predicting),
    /// Predicted, then bias-corrected by a least-squares fit of log outcome on log
    /// prediction, fitted online (BIAS).
    Corrected(Predicting),
}

impl Queue {
    fn predicting(self) -> Option<Predicting> {
        match self {
            Queue::Known => None,
            Queue::Predicted(p) | Queue::Corrected(p) => Some(p),
        }
    }
}

/// The decision of a head that holds out for its choice. It decides at every event (OPT)
/// or, predicting, when it becomes the head, at arrivals, at its prompts and when the
/// processors it holds out for are free (with `prompts=events`, at every event).
pub(super) fn decide(d: &mut Deciding, rebel: Rebel, queue: Queue) -> Option<u32> {
    let s = d.situation;
    let (now, free) = (s.now, s.free);
    let first = !d.head.seen;
    d.head.seen = true;
    let cap = if rebel.lock_in {
        d.head.target.unwrap_or(d.max)
    } else {
        d.max
    };
    let reached = d.head.target.is_some_and(|t| free >= t);
    let predicting = queue.predicting();
    let every_event = predicting.is_none_or(|p| p.every_event);
    if rebel.lock_in && reached {
        return Some(d.head.target.expect("target"));
    }
    if !(every_event || first || s.arrived || s.prompted || reached) {
        return None;
    }
    if free >= cap {
        return Some(cap);
    }
    let (model, j) = (d.model, d.j);
    let run = |size: u32| super::run_time(model, j, size);
    let (choice, raw) = d
        .chooser
        .choose(queue, s.fit, s.correction, now, free, cap, s.running, run);
    if let Some(n) = verdict(rebel, choice, free, cap, run) {
        return Some(n);
    }
    d.head.target = Some(choice.n);
    d.head.prompt = predicting.map(|_| now + choice.queue.max(MIN_PROMPT_INTERVAL));
    if free >= 1 {
        d.head.rebelled = true;
    }
    if predicting.is_some() {
        d.pending.push(Pending {
            raw,
            used: choice.queue,
            target: choice.n,
            at: now,
        });
    }
    None
}

/// The cluster-size choice of OPT, PRED and BIAS, with its buffers.
#[derive(Debug, Default)]
pub struct Chooser {
    set: RunningAges,
    ages: Vec<f64>,
    sizes: Vec<u32>,
    ends: Vec<(f64, u32)>,
    raw_of: Vec<(u32, f64)>,
}

impl Chooser {
    /// The n <= `cap` minimising Q(n) + R(n) for the head at `now`, and the raw (before
    /// bias correction) prediction for that n.
    #[allow(clippy::too_many_arguments)]
    fn choose(
        &mut self,
        queue: Queue,
        fit: &LifetimeFit,
        correction: &BiasFit,
        now: f64,
        free: u32,
        cap: u32,
        running: &[RunningCluster],
        run: impl Fn(u32) -> f64,
    ) -> (Choice, f64) {
        self.ages.clear();
        self.sizes.clear();
        for r in running {
            self.ages.push(now - r.start);
            self.sizes.push(r.size);
        }
        match queue {
            Queue::Known => {
                // The oracle: the running jobs' actual ends.
                self.ends.clear();
                self.ends.extend(running.iter().map(|r| (r.end, r.size)));
                self.ends.sort_by(|a, b| a.0.total_cmp(&b.0));
                let ends = &self.ends;
                let exact = |size: u32| {
                    let mut avail = free;
                    for &(t, s) in ends {
                        avail += s;
                        if avail >= size {
                            return t - now;
                        }
                    }
                    f64::INFINITY
                };
                let c = choose_with(cap, free, exact, run);
                (c, c.queue)
            }
            Queue::Predicted(p) => {
                let d = self.lifetimes(p, fit);
                self.set.load(d, free, &self.ages, &self.sizes);
                let c = choose_cluster_size(&mut self.set, p.method, cap, run);
                (c, c.queue)
            }
            Queue::Corrected(p) => {
                let d = self.lifetimes(p, fit);
                self.set.load(d, free, &self.ages, &self.sizes);
                self.raw_of.clear();
                let (set, raw_of) = (&mut self.set, &mut self.raw_of);
                let c = choose_with(
                    cap,
                    free,
                    |size| {
                        let raw = p.method.queue_time(set, size);
                        raw_of.push((size, raw));
                        correction.correct(raw)
                    },
                    run,
                );
                let raw = raw_of
                    .iter()
                    .find(|(s, _)| *s == c.n)
                    .map_or(c.queue, |&(_, r)| r);
                (c, raw)
            }
        }
    }

    /// The lifetime distribution to predict with. The fitted range knows only finished
    /// jobs; a running job may already be older than all of them. Its end then lies beyond
    /// the range, which is raised to twice the oldest age (else equation 5 would have that
    /// job end at once, and a rebel wait on it in 1 s prompts).
    fn lifetimes(&self, p: Predicting, fit: &LifetimeFit) -> UniformLog {
        if p.model_lifetimes {
            return UniformLog::downey_model();
        }
        let mut d = fit.distribution();
        let oldest = self.ages.iter().copied().fold(0.0, f64::max);
        if oldest > 0.0 {
            d.ln_max = d.ln_max.max((2.0 * oldest).ln());
        }
        d
    }
}

/// Whether a head holding out starts now, and on how many: its choice if that fits the
/// free processors; what is free if risk aversion finds the saving too small; else it
/// waits.
fn verdict(rebel: Rebel, choice: Choice, free: u32, cap: u32, run: impl Fn(u32) -> f64) -> Option<u32> {
    if choice.n <= free {
        return Some(choice.n);
    }
    if free == 0 {
        // Nothing to take now; the run time on no processor is not even defined.
        return None;
    }
    let now_option = free.min(cap);
    let timid = rebel.risk_aversion > 0.0
        && run(now_option) - choice.turnaround() <= rebel.risk_aversion * run(now_option);
    timid.then_some(now_option)
}
