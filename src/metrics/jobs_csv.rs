//! Per-job records as CSV: one row per simulated job, in arrival order.

use std::io::Write;

use super::bsld;
use crate::sim::Outcome;
use crate::workload::Jobs;

/// The header of `--jobs-out` files.
pub const JOBS_CSV_HEADER: &str = "job_id,submit,start,end,wait,response,bsld,procs,runtime,estimate,\
prediction,deadline_misses,absolute_inaccuracy,relative_accuracy,user,predictions";

/// Writes one row per job: `job_id` is the SWF job number; `prediction` is the job's last
/// prediction, and the accuracy columns weigh every prediction it had by how long it held;
/// `user` is SWF field 12 (-1 unknown).
/// `predictions` lists each prediction the job had as `time:seconds`, separated by `;`, in
/// time order, from the run's [`Outcome::history`] (empty if the engine kept none).
pub fn write_jobs_csv<W: Write>(mut out: W, jobs: &Jobs, outcome: &Outcome) -> std::io::Result<()> {
    let (start, end) = (outcome.start, outcome.end);
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
    writeln!(out, "{JOBS_CSV_HEADER}")?;
    for j in 0..jobs.len() {
        let response = end[j] - jobs.submit[j];
        let (inaccuracy, accuracy) = outcome.accuracy(jobs, j);
        write!(
            out,
            "{},{},{},{},{},{},{:.6},{},{},{},{},{},{:.3},{:.6},{},",
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
            outcome.misses(j),
            inaccuracy,
            accuracy,
            jobs.user[j],
        )?;
        for (i, (at, prediction)) in by_job[first[j]..first[j + 1]].iter().enumerate() {
            let separator = if i == 0 { "" } else { ";" };
            write!(out, "{separator}{at}:{prediction}")?;
        }
        writeln!(out)?;
    }
    out.flush()
}
