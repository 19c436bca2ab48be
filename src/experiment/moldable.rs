//! Moldable jobs on a partitioned machine (Anastasiadis & Sevcik, `model = "sevcik"`): the
//! parameters and the run; the model and the policies are in [`crate::partition`].

use crate::params::{Key, ParamError, Params, policy, workload};
use crate::partition::{Measure, PartitionOutcome, Policy, Workload, generate, simulate};
use crate::sim::Window;

pub const KEYS: [Key; 5] = [
    workload("model"),
    policy("policy"),
    workload("workload"),
    workload("load"),
    workload("procs"),
];

/// A partitioning experiment.
#[derive(Clone, Debug)]
pub struct Moldable {
    pub policy: Policy,
    pub workload: Workload,
    pub procs: u32,
    /// Offered load.
    pub load: f64,
    pub measure: Measure,
}

/// `policy`, `workload` (wk1-wk4), `load`, `procs` (32); the `[measure]` window is
/// required.
pub fn from_params(params: &Params, window: Option<&Window>) -> Result<Moldable, ParamError> {
    params.only(&KEYS, "model sevcik")?;
    if !params.is("model", "sevcik") {
        return Err("policy: partitioning policies need model = \"sevcik\""
            .to_string()
            .into());
    }
    let policy = params
        .parsed("policy")?
        .ok_or_else(|| format!("policy: not set; one of {}", Policy::NAMES.join(", ")))?;
    let workload = params
        .parsed::<Workload>("workload")?
        .ok_or_else(|| "workload: not set; one of wk1, wk2, wk3, wk4".to_string())?;
    let load = params
        .positive("load")?
        .ok_or_else(|| "load: set a positive offered load".to_string())?;
    let procs = match params.whole("procs")? {
        None => 32,
        Some(p) if p <= crate::workload::MAX_PROCS as u64 => p as u32,
        Some(p) => {
            return Err(format!("procs = {p}: at most {} processors", crate::workload::MAX_PROCS).into());
        }
    };
    let window = window.ok_or_else(|| {
        "model sevcik: set [measure] (the paper: warmup = 500, window = 19500, saturation = 10000)"
            .to_string()
    })?;
    Ok(Moldable {
        policy,
        workload,
        procs,
        load,
        measure: Measure {
            warmup: window.measured.start,
            window: window.measured.len(),
            saturation: window.saturation,
        },
    })
}

impl Moldable {
    /// Jobs generated: the warm-up, the window and the saturation bound.
    pub fn jobs(&self) -> usize {
        self.measure.warmup + self.measure.window + self.measure.saturation.unwrap_or(0)
    }

    /// One replication; with `normalize`, DYN-EQUI on the same jobs as the reference.
    pub fn run(&self, seed: u64, normalize: bool) -> PartitionOutcome {
        let jobs = generate(self.workload, self.procs, self.load, self.jobs(), seed);
        let run = simulate(&jobs, self.procs, self.policy, &self.measure);
        let reference = normalize.then(|| simulate(&jobs, self.procs, Policy::DynEqui, &self.measure));
        PartitionOutcome { run, reference }
    }
}
