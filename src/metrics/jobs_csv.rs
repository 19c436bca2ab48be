//! Per-job records as CSV: one row per simulated job, in arrival order.

use std::io::Write;

use super::bsld;
use crate::Time;
use crate::workload::Jobs;

/// The header of `--jobs-out` files.
pub const JOBS_CSV_HEADER: &str = "job_id,submit,start,end,wait,response,bsld,procs,runtime,estimate";

/// Writes one row per job: `job_id` is the SWF job number.
pub fn write_jobs_csv<W: Write>(
    mut out: W,
    jobs: &Jobs,
    start: &[Time],
    end: &[Time],
) -> std::io::Result<()> {
    writeln!(out, "{JOBS_CSV_HEADER}")?;
    for j in 0..jobs.len() {
        let response = end[j] - jobs.submit[j];
        writeln!(
            out,
            "{},{},{},{},{},{},{:.6},{},{},{}",
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
        )?;
    }
    out.flush()
}
