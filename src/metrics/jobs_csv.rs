//! Per-job records as CSV: one row per simulated job, in arrival order.

use std::io::Write;

use super::bsld;
use crate::energy::PerJob;
use crate::sim::Outcome;
use crate::workload::Jobs;

/// How a per-job column is stored: its integer width, or a real written with `decimals`
/// digits in CSV.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ColumnType {
    I64,
    U64,
    U32,
    I32,
    F64 { decimals: usize },
}

/// One job's value in a column: an integer (of the column's type) or a real.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JobValue {
    Int(i64),
    Real(f64),
}

/// A per-job column of a rigid run, as `--jobs-out` writes it and the Python package
/// returns it.
pub struct JobColumn {
    pub name: &'static str,
    pub kind: ColumnType,
    /// Job `j`'s value, from the jobs as run and the run's outcome.
    pub value: fn(&Jobs, &Outcome, usize) -> JobValue,
}

use ColumnType::*;
use JobValue::{Int, Real};

/// Every per-job column, in file order: `job_id` is the SWF job number; `prediction` the
/// job's last prediction, and the accuracy columns weigh every prediction it had by how
/// long it held; `user` is SWF field 12 (-1 unknown).
pub const JOB_COLUMNS: [JobColumn; 15] = [
    JobColumn {
        name: "job_id",
        kind: U64,
        value: |jobs, _, j| Int(jobs.swf_id[j] as i64),
    },
    JobColumn {
        name: "submit",
        kind: I64,
        value: |jobs, _, j| Int(jobs.submit[j]),
    },
    JobColumn {
        name: "start",
        kind: I64,
        value: |_, o, j| Int(o.start[j]),
    },
    JobColumn {
        name: "end",
        kind: I64,
        value: |_, o, j| Int(o.end[j]),
    },
    JobColumn {
        name: "wait",
        kind: I64,
        value: |jobs, o, j| Int(o.start[j] - jobs.submit[j]),
    },
    JobColumn {
        name: "response",
        kind: I64,
        value: |jobs, o, j| Int(o.end[j] - jobs.submit[j]),
    },
    JobColumn {
        name: "bsld",
        kind: F64 { decimals: 6 },
        value: |jobs, o, j| Real(bsld(o.end[j] - jobs.submit[j], jobs.runtime[j])),
    },
    JobColumn {
        name: "procs",
        kind: U32,
        value: |jobs, _, j| Int(jobs.procs[j] as i64),
    },
    JobColumn {
        name: "runtime",
        kind: I64,
        value: |jobs, _, j| Int(jobs.runtime[j]),
    },
    JobColumn {
        name: "estimate",
        kind: I64,
        value: |jobs, _, j| Int(jobs.estimate[j]),
    },
    JobColumn {
        name: "prediction",
        kind: I64,
        value: |_, o, j| Int(o.prediction[j]),
    },
    JobColumn {
        name: "deadline_misses",
        kind: U32,
        value: |_, o, j| Int(o.misses(j) as i64),
    },
    JobColumn {
        name: "absolute_inaccuracy",
        kind: F64 { decimals: 3 },
        value: |jobs, o, j| Real(o.accuracy(jobs, j).0),
    },
    JobColumn {
        name: "relative_accuracy",
        kind: F64 { decimals: 6 },
        value: |jobs, o, j| Real(o.accuracy(jobs, j).1),
    },
    JobColumn {
        name: "user",
        kind: I32,
        value: |jobs, _, j| Int(jobs.user[j] as i64),
    },
];

/// The columns written between [`JOB_COLUMNS`] and `predictions` where a run has them,
/// in file order: `gpus` where the jobs request GPUs (the GPUs each requested); `energy_j`
/// on a machine that describes its power (the job's cores at their busy watts while it
/// ran, joules, as Batsim's `consumed_energy`); `carbon_g` with a carbon series too (that
/// power times the intensity over the job's run, grams of CO2).
pub const OPTIONAL_COLUMNS: [&str; 3] = ["gpus", "energy_j", "carbon_g"];

/// The header of `--jobs-out` files: [`JOB_COLUMNS`], those of `optional` (a subsequence
/// of [`OPTIONAL_COLUMNS`]), then `predictions`.
pub fn jobs_csv_header(optional: &[&str]) -> String {
    let names: Vec<&str> = JOB_COLUMNS
        .iter()
        .map(|c| c.name)
        .chain(optional.iter().copied())
        .collect();
    format!("{},predictions", names.join(","))
}

/// The optional columns a run of `jobs` with `costs` has ([`OPTIONAL_COLUMNS`]).
fn optional_columns(jobs: &Jobs, costs: Option<&PerJob>) -> Vec<&'static str> {
    let has = [
        jobs.gpus.is_some(),
        costs.is_some(),
        costs.is_some_and(|c| c.grams.is_some()),
    ];
    OPTIONAL_COLUMNS
        .iter()
        .zip(has)
        .filter(|(_, has)| *has)
        .map(|(name, _)| *name)
        .collect()
}

/// Writes one row per job: the [`JOB_COLUMNS`], the [`OPTIONAL_COLUMNS`] the run has
/// (`costs`: each job's energy and carbon, on a machine that describes its power), then
/// `predictions`, each prediction the
/// job had as `time:seconds`, separated by `;`, in time order, from the run's
/// [`Outcome::history`] (empty if the engine kept none).
pub fn write_jobs_csv<W: Write>(
    mut out: W,
    jobs: &Jobs,
    outcome: &Outcome,
    costs: Option<&PerJob>,
) -> std::io::Result<()> {
    // Group the time-ordered history by job (a counting sort keeps each job's order).
    let mut first = vec![0usize; jobs.len() + 1];
    for change in outcome.history {
        first[change.job.index() + 1] += 1;
    }
    for j in 0..jobs.len() {
        first[j + 1] += first[j];
    }
    let mut by_job = vec![(0, 0); outcome.history.len()];
    let mut fill = first.clone();
    for change in outcome.history {
        let slot = &mut fill[change.job.index()];
        by_job[*slot] = (change.at, change.prediction);
        *slot += 1;
    }
    writeln!(out, "{}", jobs_csv_header(&optional_columns(jobs, costs)))?;
    for j in 0..jobs.len() {
        for column in &JOB_COLUMNS {
            match ((column.value)(jobs, outcome, j), column.kind) {
                (Int(v), U64) => write!(out, "{},", v as u64)?,
                (Int(v), _) => write!(out, "{v},")?,
                (Real(v), F64 { decimals }) => write!(out, "{v:.decimals$},")?,
                (Real(v), _) => write!(out, "{v},")?,
            }
        }
        if let Some(gpus) = &jobs.gpus {
            write!(out, "{},", gpus[j])?;
        }
        if let Some(costs) = costs {
            write!(out, "{:.3},", costs.joules[j])?;
            if let Some(grams) = &costs.grams {
                write!(out, "{:.6},", grams[j])?;
            }
        }
        for (i, (at, prediction)) in by_job[first[j]..first[j + 1]].iter().enumerate() {
            let separator = if i == 0 { "" } else { ";" };
            write!(out, "{separator}{at}:{prediction}")?;
        }
        writeln!(out)?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file format `compare` reads and scripts parse: the registry must not reorder or
    /// rename a column without this test (and the readers) changing with it.
    #[test]
    fn the_header_is_the_documented_one() {
        assert_eq!(
            jobs_csv_header(&[]),
            "job_id,submit,start,end,wait,response,bsld,procs,runtime,estimate,prediction,\
             deadline_misses,absolute_inaccuracy,relative_accuracy,user,predictions"
        );
        assert!(jobs_csv_header(&OPTIONAL_COLUMNS).ends_with(",user,gpus,energy_j,carbon_g,predictions"));
    }
}
