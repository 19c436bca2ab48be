//! A non-dedicated cluster of Hanzich et al. (`model = "cisne"`): its parameters and its
//! run; the model itself is in [`crate::nondedicated`].

use crate::nondedicated::{
    ClusterExperiment, Hardware, ParallelWorkload, Report, Setup, SimError, SocialContract, Truth,
};
use crate::params::{Key, ParamError, Params, policy, workload};

/// `model`, `nodes`, `local_share`, `jobs` and `arrival_scale` shape the workload (the
/// parallel jobs and the local users); the policies, the contract, the estimator, its
/// history and the ground truth's departures from the CPU model do not, so cells that
/// differ only in those replay the same jobs and local users.
pub const KEYS: [Key; 14] = [
    workload("model"),
    policy("jsp"),
    policy("nsp"),
    policy("mpl"),
    workload("nodes"),
    workload("local_share"),
    workload("jobs"),
    workload("arrival_scale"),
    policy("contract_cpu"),
    policy("estimator"),
    policy("mode"),
    policy("history_jobs"),
    policy("speed_noise"),
    policy("interference"),
];

/// The factors `arrival_scale` may put on the workload's inter-arrival times: a thousandth
/// (every job arrives at once, in effect) to a thousand times (an idle cluster); past them
/// a run only takes longer to say the same.
pub const ARRIVAL_SCALE: std::ops::RangeInclusive<f64> = 0.001..=1000.0;

/// Tasks a node may run at once (the multiprogramming level): a bound on the memory and
/// time a node's task list takes, far above the few tasks a node of the model runs.
pub const MAX_MPL: u32 = 1024;

/// Builds the experiment: `jsp` (fcfs), `nsp` (normal), `mpl` (4), `nodes` (64),
/// `local_share` (0.75), `jobs` (1000), `arrival_scale` (1), `contract_cpu` (1),
/// `estimator` (none), `mode` (`online` or `offline`), `history_jobs` (the jobs of the run
/// that fills the Historical and Hybrid history; default `jobs`), `speed_noise` (0) and
/// `interference` (0).
pub fn from_params(params: &Params) -> Result<ClusterExperiment, ParamError> {
    params.only(&KEYS, "model cisne")?;
    let whole = |k: &str, default: u64| params.whole(k).map(|v| v.unwrap_or(default));
    let small = |k: &str, default: u32| -> Result<u32, ParamError> {
        let v = whole(k, default.into())?;
        u32::try_from(v).map_err(|_| ParamError::BadValue {
            key: k.into(),
            value: v.to_string(),
            expected: "a smaller whole number".into(),
        })
    };
    let offline = match params.text("mode").as_deref() {
        None | Some("online") => false,
        Some("offline") => true,
        Some(other) => {
            return Err(ParamError::BadValue {
                key: "mode".into(),
                value: other.into(),
                expected: "online or offline".into(),
            });
        }
    };
    let experiment = ClusterExperiment {
        setup: Setup {
            hardware: Hardware {
                nodes: small("nodes", 64)?,
                mpl: match small("mpl", 4)? {
                    m if m > MAX_MPL => {
                        return Err(ParamError::BadValue {
                            key: "mpl".into(),
                            value: m.to_string(),
                            expected: format!("a whole number from 1 to {MAX_MPL}"),
                        });
                    }
                    m => m,
                },
                contract: SocialContract {
                    cpu: params.number("contract_cpu", 1.0)?,
                    ..SocialContract::default()
                },
                ..Hardware::default()
            },
            jsp: params
                .parsed("jsp")?
                .unwrap_or(crate::nondedicated::JobSelection::Fcfs),
            nsp: params
                .parsed("nsp")?
                .unwrap_or(crate::nondedicated::NodeSelection::Normal),
            truth: Truth {
                speed_noise: params.number("speed_noise", 0.0)?,
                interference: params.number("interference", 0.0)?,
                seed: 0,
            },
        },
        workload: ParallelWorkload {
            jobs: whole("jobs", 1000)? as usize,
            arrival_scale: params.within("arrival_scale", &ARRIVAL_SCALE)?.unwrap_or(1.0),
            ..ParallelWorkload::default()
        },
        local_share: params.number("local_share", 0.75)?,
        history_jobs: whole("history_jobs", whole("jobs", 1000)?)? as usize,
        estimator: params.parsed("estimator")?,
        offline,
    };
    experiment.validate()?;
    Ok(experiment)
}

/// One replication. A run whose queue stops moving (a social contract that leaves no
/// room) is saturated (`Ok(None)`); any other failure is an error.
pub fn run(experiment: &ClusterExperiment, seed: u64) -> Result<Option<Report>, SimError> {
    match experiment.run(seed) {
        Ok(report) => Ok(Some(report)),
        Err(SimError::Stuck { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}
