//! A cluster run's report as text, JSON and a per-job CSV, the way `schedlab cluster`
//! prints and writes it.

use std::io::{self, Write};

use super::experiment::{ClusterExperiment, Report};

impl Report {
    /// The per-job CSV: application, times, CPU time, nodes, and the estimate if any.
    pub fn write_jobs_csv(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(
            w,
            "job,application,arrival,start,end,wait,exec,turnaround,cpu_time,nodes,predicted_wait,predicted_exec"
        )?;
        for (i, (j, o)) in self.jobs.iter().zip(&self.run.jobs).enumerate() {
            let nodes: Vec<String> = o.nodes.iter().map(|n| n.to_string()).collect();
            let p = self.predictions.as_ref().and_then(|p| p[i]);
            let (pw, pe) = p.map_or((String::new(), String::new()), |p| {
                (p.wait.to_string(), p.exec.to_string())
            });
            writeln!(
                w,
                "{i},{},{},{},{},{},{},{},{},{},{pw},{pe}",
                j.app,
                o.arrival,
                o.start,
                o.end,
                o.wait(),
                o.exec(),
                o.turnaround(),
                o.cpu_time,
                nodes.join(";")
            )?;
        }
        Ok(())
    }

    /// The report of `experiment`'s run with `seed` as one JSON object.
    pub fn to_json(&self, experiment: &ClusterExperiment, seed: u64) -> serde_json::Value {
        let (setup, run) = (&experiment.setup, &self.run);
        serde_json::json!({
            "jsp": setup.jsp.to_string(), "nsp": setup.nsp.to_string(), "mpl": setup.hardware.mpl,
            "nodes": setup.hardware.nodes, "local_share": experiment.local_share, "jobs": run.jobs.len(),
            "seed": seed, "mean_wait": run.mean(|o| o.wait()), "mean_run": run.mean(|o| o.exec()),
            "mean_response": run.mean(|o| o.turnaround()), "makespan": run.makespan(),
            "local_sessions": run.local_sessions, "mean_queue": run.mean_queue,
            "arrival_scale": experiment.workload.arrival_scale,
            "estimator": experiment.estimator.map(|e| e.to_string()), "offline": experiment.offline,
            "accuracy": self.accuracy, "seconds_per_estimate": self.estimate_seconds,
            "history_records": self.history,
        })
    }

    /// The report of `experiment`'s run with `seed` as text.
    pub fn write_text(
        &self,
        out: &mut dyn Write,
        experiment: &ClusterExperiment,
        seed: u64,
    ) -> io::Result<()> {
        let (setup, run) = (&experiment.setup, &self.run);
        writeln!(
            out,
            "cluster      {} nodes, MPL {}, {} + {} with {:.0}% of nodes carrying a local user",
            setup.hardware.nodes,
            setup.hardware.mpl,
            setup.jsp,
            setup.nsp,
            100.0 * experiment.local_share
        )?;
        writeln!(out, "jobs         {} NAS jobs, seed {seed}", run.jobs.len())?;
        writeln!(
            out,
            "mean         wait {:.1} s, execution {:.1} s, turnaround {:.1} s",
            run.mean(|o| o.wait()),
            run.mean(|o| o.exec()),
            run.mean(|o| o.turnaround())
        )?;
        writeln!(
            out,
            "makespan     {:.0} s; mean queue {:.1} jobs; {} local sessions started",
            run.makespan(),
            run.mean_queue,
            run.local_sessions
        )?;
        let (Some(e), Some(a)) = (experiment.estimator, &self.accuracy) else {
            return Ok(());
        };
        let mode = if experiment.offline { "off-line" } else { "on-line" };
        writeln!(
            out,
            "estimator    {e} {mode}: D_v turnaround {:.1}%, execution {:.1}%, wait {:.1}%; bias {:+.1}%; \
             R_a turnaround {:.3}, execution {:.3}, wait {:.3}; {} jobs estimated",
            a.dv_response, a.dv_run, a.dv_wait, a.bias_response, a.ra_response, a.ra_run, a.ra_wait, a.jobs
        )?;
        let per = if experiment.offline {
            "whole projection"
        } else {
            "per estimate"
        };
        writeln!(
            out,
            "             {per} {:.1} us; history {} records at the start",
            self.estimate_seconds * 1e6,
            self.history
        )
    }
}
