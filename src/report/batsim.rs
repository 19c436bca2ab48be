//! Batsim's formats written: a run's jobs as Batsim's `_jobs.csv`, which evalys and the
//! rest of Batsim's ecosystem read (one row per job, its times, and the processors it held
//! as an interval set), and a workload as Batsim's workload JSON, which Batsim replays.
//! docs/semantics.md ("Batsim's formats") says how each field is filled.

use std::collections::BTreeSet;
use std::io::Write;

use super::gantt;
use crate::Time;
use crate::workload::{Jobs, Workload};

/// Batsim's columns, in its order.
pub const BATSIM_JOB_COLUMNS: [&str; 17] = [
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "consumed_energy",
    "allocated_resources",
    "metadata",
];

/// Writes the jobs of a finished run of `jobs` on `procs` processors (every job started
/// and ended) as Batsim's `_jobs.csv`; `workload` names the workload. `energy` gives each
/// job's joules (`crate::energy::per_job`) on a machine with a power model; without it
/// `consumed_energy` is -1, as Batsim writes it with energy off.
pub fn write_jobs(
    out: &mut dyn Write,
    workload: &str,
    jobs: &Jobs,
    procs: u32,
    (start, end): (&[Time], &[Time]),
    energy: Option<&[f64]>,
) -> std::io::Result<()> {
    let named = gantt::processors(jobs, procs, start, end, Time::MAX).map_err(std::io::Error::other)?;
    writeln!(out, "{}", BATSIM_JOB_COLUMNS.join(","))?;
    for j in 0..jobs.len() {
        let (submit, s, e) = (jobs.submit[j], start[j], end[j]);
        let (execution, waiting, turnaround) = (e - s, s - submit, e - submit);
        // Batsim's stretch: turnaround over execution time (infinite for an instant job).
        let stretch = if execution > 0 {
            format!("{}", turnaround as f64 / execution as f64)
        } else {
            "inf".to_string()
        };
        let resources: Vec<String> = gantt::runs(&named[j])
            .into_iter()
            .map(|(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
            .collect();
        let consumed = energy.map_or("-1".to_string(), |joules| joules[j].to_string());
        writeln!(
            out,
            "{},{workload},swf,{submit},{},{},1,COMPLETED_SUCCESSFULLY,{s},{execution},{e},{waiting},{turnaround},{stretch},{consumed},{},",
            jobs.swf_id[j],
            jobs.procs[j],
            jobs.estimate[j],
            resources.join(" ")
        )?;
    }
    Ok(())
}

/// Writes `workload`'s jobs as a Batsim workload: `nb_res` its processors, each job its
/// number, submit time, estimate as `walltime` (-1 for a trace's job that requested none),
/// processors as `res`, and a `delay` profile
/// of its runtime (one profile per distinct runtime, `delay_<seconds>`), and where the
/// jobs request GPUs, `gpus` (schedlab's; Batsim passes over it). Batsim reads no users,
/// queues or partitions: those fields are not written. Reading the file back
/// ([`crate::workload::batsim`]) gives the same simulated columns.
pub fn write_workload(out: &mut dyn Write, workload: &Workload) -> std::io::Result<()> {
    let jobs = &workload.jobs;
    writeln!(out, "{{")?;
    writeln!(out, "  \"nb_res\": {},", workload.procs)?;
    writeln!(
        out,
        "  \"description\": {},",
        serde_json::to_string(&format!(
            "written by schedlab {} from {}",
            env!("CARGO_PKG_VERSION"),
            workload.name
        ))?
    )?;
    writeln!(out, "  \"jobs\": [")?;
    for j in 0..jobs.len() {
        let comma = if j + 1 < jobs.len() { "," } else { "" };
        // A trace's job without a request (SWF field 9 unknown) has its runtime as its
        // estimate: written as Batsim's -1, no walltime, which reads back the same.
        let unrequested =
            jobs.requested_time.get(j).is_some_and(|&t| t <= 0) && jobs.estimate[j] == jobs.runtime[j];
        let walltime = if unrequested { -1 } else { jobs.estimate[j] };
        let gpus = match &jobs.gpus {
            Some(g) => format!(", \"gpus\": {}", g[j]),
            None => String::new(),
        };
        writeln!(
            out,
            "    {{\"id\": {}, \"subtime\": {}, \"walltime\": {walltime}, \"res\": {}, \"profile\": \"delay_{}\"{gpus}}}{comma}",
            jobs.swf_id[j], jobs.submit[j], jobs.procs[j], jobs.runtime[j]
        )?;
    }
    writeln!(out, "  ],")?;
    writeln!(out, "  \"profiles\": {{")?;
    let runtimes: BTreeSet<Time> = jobs.runtime.iter().copied().collect();
    for (i, runtime) in runtimes.iter().enumerate() {
        let comma = if i + 1 < runtimes.len() { "," } else { "" };
        writeln!(
            out,
            "    \"delay_{runtime}\": {{\"type\": \"delay\", \"delay\": {runtime}}}{comma}"
        )?;
    }
    writeln!(out, "  }}")?;
    writeln!(out, "}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::JobRecord;

    /// Three jobs on 4 processors, by hand: the first holds 0-1, the second 2-3 while the
    /// first runs, the third (waiting for both) the lowest free after them, 0-2.
    #[test]
    fn rows_by_hand() {
        let jobs = Jobs::from_records(&[
            JobRecord::new(7, 0, 100, 2, 120),
            JobRecord::new(8, 10, 40, 2, 50),
            JobRecord::new(9, 20, 0, 3, 10),
        ]);
        let mut out = Vec::new();
        write_jobs(&mut out, "w", &jobs, 4, (&[0, 10, 100], &[100, 50, 100]), None).unwrap();
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows[0], BATSIM_JOB_COLUMNS.join(","));
        assert_eq!(
            rows[1],
            "7,w,swf,0,2,120,1,COMPLETED_SUCCESSFULLY,0,100,100,0,100,1,-1,0-1,"
        );
        assert_eq!(
            rows[2],
            "8,w,swf,10,2,50,1,COMPLETED_SUCCESSFULLY,10,40,50,0,40,1,-1,2-3,"
        );
        assert_eq!(
            rows[3],
            "9,w,swf,20,3,10,1,COMPLETED_SUCCESSFULLY,100,0,100,80,80,inf,-1,0-2,"
        );
        // With a power model, each job's joules.
        let mut out = Vec::new();
        let energy = [20_000.0, 8_000.0, 0.0];
        write_jobs(
            &mut out,
            "w",
            &jobs,
            4,
            (&[0, 10, 100], &[100, 50, 100]),
            Some(&energy),
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        let consumed: Vec<&str> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(14).unwrap())
            .collect();
        assert_eq!(consumed, ["20000", "8000", "0"]);
    }

    /// A workload written as Batsim JSON reads back with the same simulated columns.
    #[test]
    fn a_workload_round_trips_through_batsim_json() {
        // Job 4 requested no time (SWF field 9 unknown): its estimate is its runtime.
        let asked = |r: JobRecord, t: i32| JobRecord {
            requested_time: t,
            ..r
        };
        let jobs = Jobs::from_records(&[
            asked(JobRecord::new(3, 0, 100, 2, 120), 120),
            asked(JobRecord::new(5, 10, 0, 4, 50), 50),
            JobRecord::new(4, 10, 100, 1, 100),
        ]);
        let workload = Workload::synthetic("w".into(), jobs, 4, Vec::new());
        let mut out = Vec::new();
        write_workload(&mut out, &workload).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(
            text.contains("{\"id\": 4, \"subtime\": 10, \"walltime\": -1,"),
            "{text}"
        );
        assert!(
            text.contains("{\"id\": 3, \"subtime\": 0, \"walltime\": 120,"),
            "{text}"
        );
        let dir = std::env::temp_dir().join(format!("schedlab-batsim-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.json");
        std::fs::write(&path, &out).unwrap();
        let back = crate::workload::read_trace(&path, &Default::default()).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(back.procs, 4);
        let (a, b) = (&workload.jobs, &back.jobs);
        assert_eq!(
            (&a.swf_id, &a.submit, &a.runtime),
            (&b.swf_id, &b.submit, &b.runtime)
        );
        assert_eq!((&a.procs, &a.estimate), (&b.procs, &b.estimate));
        assert_eq!(a.requested_time, b.requested_time);
    }

    /// On an EASY schedule of 300 jobs with ties and zero runtimes, every job holds as many
    /// processors as it asked, and no processor is held by two jobs at once.
    #[test]
    fn named_processors_never_overlap() {
        let mut x: u64 = 12345;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut t = 0;
        let records: Vec<JobRecord> = (0..300)
            .map(|i| {
                t += next(3) as i64 * 5;
                let runtime = next(50) as i64;
                JobRecord::new(i + 1, t, runtime, 1 + next(16) as u32, runtime + next(30) as i64)
            })
            .collect();
        let jobs = Jobs::from_records(&records);
        let mut engine = crate::sim::Engine::new().with_validation(true);
        let outcome = crate::sched::SchedulerKind::Easy
            .build()
            .run(&mut engine, &jobs, 16);
        let named = gantt::processors(&jobs, 16, outcome.start, outcome.end, Time::MAX).unwrap();
        for j in 0..jobs.len() {
            assert_eq!(named[j].len(), jobs.procs[j] as usize);
            for k in 0..j {
                let overlap = outcome.start[j] < outcome.end[k] && outcome.start[k] < outcome.end[j];
                if overlap {
                    assert!(named[j].iter().all(|q| !named[k].contains(q)), "jobs {j} and {k}");
                }
            }
        }
    }
}
