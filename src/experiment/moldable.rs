//! Moldable jobs on a partitioned machine (Anastasiadis & Sevcik, `model = "sevcik"`): the
//! parameters and the run; the model and the policies are in [`crate::partition`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::params::{Key, ParamError, Params, policy, workload};
use crate::partition::{
    Measure, MoldableWorkload, PartitionOutcome, PartitionRun, Partitioner, Policy, generate,
};
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
    pub workload: MoldableWorkload,
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
        return Err(ParamError::Invalid(
            "policy: partitioning policies need model = \"sevcik\"".to_string(),
        ));
    }
    let policy = params.parsed("policy")?.ok_or_else(|| {
        ParamError::Invalid(format!("policy: not set; one of {}", Policy::NAMES.join(", ")))
    })?;
    let workload = params
        .parsed::<MoldableWorkload>("workload")?
        .ok_or_else(|| ParamError::Invalid("workload: not set; one of wk1, wk2, wk3, wk4".to_string()))?;
    let load = params
        .within("load", &crate::workload::LOAD_RANGE)?
        .ok_or_else(|| ParamError::Invalid("load: set a positive offered load".to_string()))?;
    let procs = match params.whole("procs")? {
        None => 32,
        Some(p) if p <= crate::workload::MAX_PROCS as u64 => p as u32,
        Some(p) => {
            return Err(ParamError::Invalid(format!(
                "procs = {p}: at most {} processors",
                crate::workload::MAX_PROCS
            )));
        }
    };
    let window = window.ok_or_else(|| {
        ParamError::Invalid(
            "model sevcik: set [measure] (the paper: warmup = 500, window = 19500, saturation = 10000)"
                .to_string(),
        )
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
        self.run_with(
            seed,
            normalize.then_some(&References::default()),
            &mut Partitioner::new(),
        )
    }

    /// [`Moldable::run`], taking DYN-EQUI's run from `references` when another cell on the
    /// same workload has simulated it (and leaving it there for the others).
    pub fn run_with(
        &self,
        seed: u64,
        references: Option<&References>,
        sim: &mut Partitioner,
    ) -> PartitionOutcome {
        let jobs = generate(self.workload, self.procs, self.load, self.jobs(), seed);
        let reference = references.map(|r| {
            r.get_or_run(self, seed, || {
                sim.run(&jobs, self.procs, Policy::DYN_EQUI, &self.measure)
            })
        });
        let run = match (self.policy, reference) {
            (Policy::DYN_EQUI, Some(r)) => r,
            _ => sim.run(&jobs, self.procs, self.policy, &self.measure),
        };
        PartitionOutcome { run, reference }
    }
}

/// DYN-EQUI's runs by workload and seed, shared by the cells of a sweep: every policy's
/// normalised response divides by DYN-EQUI's on the same jobs, so without this each of a
/// grid's 14 policies simulated DYN-EQUI again, most of the grid's time. A run is a pure
/// function of its key, so whichever cell simulates it first, the bytes are the same.
#[derive(Debug, Default)]
pub struct References {
    runs: Mutex<HashMap<ReferenceKey, Arc<OnceLock<PartitionRun>>>>,
}

/// What DYN-EQUI's run depends on: the workload, machine, load, window and seed.
type ReferenceKey = (MoldableWorkload, u32, u64, Measure, u64);

impl References {
    fn get_or_run(&self, m: &Moldable, seed: u64, run: impl FnOnce() -> PartitionRun) -> PartitionRun {
        let key = (m.workload, m.procs, m.load.to_bits(), m.measure, seed);
        let slot = self
            .runs
            .lock()
            .expect("no panic while holding the lock")
            .entry(key)
            .or_default()
            .clone();
        // Outside the lock: another cell asking for the same run waits for this one.
        *slot.get_or_init(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells sharing DYN-EQUI's run through [`References`] report what each would alone,
    /// and the run is simulated once per workload and seed.
    #[test]
    fn shared_references_change_no_outcome() {
        let references = References::default();
        for policy in ["dyn-equi", "asp", "sdf", "aep(2)"] {
            let m = Moldable {
                policy: policy.parse().unwrap(),
                workload: MoldableWorkload::Wk2,
                procs: 16,
                load: 0.6,
                measure: Measure {
                    warmup: 50,
                    window: 2000,
                    saturation: Some(1000),
                },
            };
            for seed in [3, 4] {
                let alone = m.run(seed, true);
                let shared = m.run_with(seed, Some(&references), &mut Partitioner::new());
                // As text: a saturated run's NaN fields are equal there.
                assert_eq!(format!("{alone:?}"), format!("{shared:?}"), "{policy}");
            }
        }
        assert_eq!(
            references.runs.lock().unwrap().len(),
            2,
            "one DYN-EQUI run per seed"
        );
    }
}
