//! Per-job records as CSV: one row per simulated job, in arrival order.

use std::io::Write;

use super::bsld;
use crate::sim::Outcome;
use crate::workload::Jobs;

/// The header of `--jobs-out` files.
pub const JOBS_CSV_HEADER: &str = "job_id,submit,start,end,wait,response,bsld,procs,runtime,estimate,\
prediction,deadline_misses,absolute_inaccuracy,relative_accuracy";

/// Writes one row per job: `job_id` is the SWF job number; `prediction` is the job's last
/// prediction, and the accuracy columns weigh every prediction it had by how long it held.
pub fn write_jobs_csv<W: Write>(mut out: W, jobs: &Jobs, outcome: &Outcome) -> std::io::Result<()> {
    let (start, end) = (outcome.start, outcome.end);
    writeln!(out, "{JOBS_CSV_HEADER}")?;
    for j in 0..jobs.len() {
        let response = end[j] - jobs.submit[j];
        let (inaccuracy, accuracy) = outcome.accuracy(jobs, j);
        writeln!(
            out,
            "{},{},{},{},{},{},{:.6},{},{},{},{},{},{:.3},{:.6}",
            jobs.swf_id[j],
            jobs.submit[j],
            start[j],
            end[j],
            start[j] - jobs.submit[j],
            response,
            bsld(response, jobs.runtime[j]),
            jobs.procs[j],
            jobs.runtime[j],
            jobs.estimate[j],
            outcome.prediction[j],
            outcome.misses[j],
            inaccuracy,
            accuracy,
        )?;
    }
    out.flush()
}
