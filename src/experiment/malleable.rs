//! Malleable jobs of the Downey model choosing their cluster size at the head of an FCFS
//! queue (Downey 1997): the parameters and the run; the strategies and the simulator are
//! in [`crate::malleable`].

use super::rigid::model;
use crate::malleable::{Allocation, MalleableReport, Strategy, application_centric, simulate};
use crate::params::{Key, ParamError, Params, policy};
use crate::sim::Window;
use crate::workload::synth::Model;

/// The strategy and the evaluation leave the workload alone; `model` and the Downey
/// model's keys (`DowneyParams::KEYS`) shape it.
pub const KEYS: [Key; 3] = [policy("strategy"), policy("evaluation"), policy("max_cluster")];

/// A malleable experiment.
#[derive(Clone, Debug)]
pub struct Malleable {
    pub allocation: Allocation,
    /// Evaluate application-centrically (Downey's Table 1) rather than system-centrically.
    pub application: bool,
    pub model: Model,
}

/// `strategy`, `evaluation` (`system` or `application`), `max_cluster` (`round`, `floor`
/// or `ceil` of A), and the Downey model's keys.
pub fn from_params(params: &Params, window: Option<&Window>) -> Result<Malleable, ParamError> {
    let evaluation = params.text("evaluation");
    let Some(strategy) = params.text("strategy") else {
        let e = evaluation.unwrap_or_default();
        return Err(ParamError::Invalid(format!(
            "evaluation = {e}: applies to malleable runs; set a strategy"
        )));
    };
    let application = match evaluation.as_deref() {
        None | Some("system") => false,
        Some("application") => true,
        Some(e) => {
            return Err(ParamError::Invalid(format!(
                "evaluation = {e}: expected system or application"
            )));
        }
    };
    let mut allocation: Allocation = strategy.parse()?;
    if let Some(rule) = params.text("max_cluster") {
        allocation.max_cluster = rule.parse()?;
    }
    if params.has("trace") {
        return Err(ParamError::Invalid(format!(
            "strategy = {strategy}: malleable strategies need model = \"downey\", not a trace"
        )));
    }
    if params.has("scheduler") || params.has("predictor") {
        return Err(ParamError::Invalid(format!(
            "strategy = {strategy}: a malleable run has its own FCFS queue; drop scheduler and predictor"
        )));
    }
    if window.is_some() {
        return Err(ParamError::Invalid(format!(
            "strategy = {strategy}: a malleable run simulates the whole workload; drop [measure]"
        )));
    }
    if matches!(allocation.strategy, Strategy::Avg(_)) && application {
        return Err(ParamError::Invalid(format!(
            "strategy = {strategy}: the application-centric evaluation compares a strategy with AVG; \
             drop avg from such cells with [[exclude]]"
        )));
    }
    if !params.is("model", "downey") {
        return Err(ParamError::Invalid(format!(
            "strategy = {strategy}: malleable strategies need model = \"downey\""
        )));
    }
    let model = model(params, &KEYS, None, None)?;
    Ok(Malleable {
        allocation,
        application,
        model,
    })
}

impl Malleable {
    /// One replication; with `versus_avg`, also AVG on the same workload, job by job.
    pub fn run(&self, seed: u64, versus_avg: bool) -> crate::Result<(MalleableReport, u64)> {
        let workload = self.model.generate(seed);
        let (jobs, procs) = (&workload.jobs, workload.procs);
        let report = if self.application {
            MalleableReport::Application(application_centric(jobs, procs, &self.allocation)?)
        } else {
            let mut outcome = simulate(jobs, procs, &self.allocation)?;
            if versus_avg {
                let avg = simulate(jobs, procs, &self.allocation.avg_beside())?;
                outcome.compare_with(jobs, &avg);
            }
            MalleableReport::System(outcome)
        };
        Ok((report, jobs.len() as u64))
    }
}
