//! A rigid run's summary as text, the way `schedlab run` prints it.

use std::io::{self, Write};

use super::{Percentiles, Summary};

impl Summary {
    /// The `utilization` line: the cores', and the memory's, the GPUs' and the cores idle on
    /// partly used nodes where the machine has them.
    fn utilization_line(&self) -> String {
        let mut line = format!("utilization  {:.4}", self.utilization);
        if self.memory_utilization.is_some() || self.gpu_utilization.is_some() {
            line.push_str(" of the cores");
        }
        if let Some(m) = self.memory_utilization {
            line.push_str(&format!(", {m:.4} of the memory"));
        }
        if let Some(g) = self.gpu_utilization {
            line.push_str(&format!(", {g:.4} of the GPUs"));
        }
        if let Some(f) = self.fragmentation {
            line.push_str(&format!("; {f:.4} of the cores idle on partly used nodes"));
        }
        line
    }

    /// Writes the summary of a run of `scheduler` on `workload` (`procs` processors;
    /// `not_selected` job lines outside the selection).
    pub fn write_text(
        &self,
        out: &mut dyn Write,
        workload: &str,
        scheduler: &str,
        not_selected: u64,
    ) -> io::Result<()> {
        writeln!(out, "workload     {workload} ({} procs)", self.procs)?;
        writeln!(out, "scheduler    {scheduler}")?;
        writeln!(
            out,
            "jobs         {} simulated, {} skipped{}",
            self.jobs,
            self.jobs_skipped,
            self.skipped.detail()
        )?;
        if not_selected > 0 {
            writeln!(out, "             {not_selected} outside the selection")?;
        }
        let row = |out: &mut dyn Write, name: &str, mean: f64, p: &Percentiles, unit: &str| {
            writeln!(
                out,
                "{name:<12} mean {mean:.2}{unit}  p25 {:.2}  p50 {:.2}  p75 {:.2}  p98 {:.2}  max {:.2}",
                p.p25, p.p50, p.p75, p.p98, p.p100
            )
        };
        row(out, "wait", self.mean_wait, &self.wait, " s")?;
        row(out, "response", self.mean_response, &self.response, " s")?;
        row(out, "bsld", self.mean_bsld, &self.bsld, "")?;
        row(out, "expansion", self.mean_expansion, &self.expansion, "")?;
        if let Some(u) = &self.utility {
            writeln!(
                out,
                "utility      aggregate {:.4e} of {:.4e} at once; % of start value earned, best first: \
                 p25 {:.2}  p50 {:.2}  p75 {:.2}  p98 {:.2}  p100 {:.2}",
                u.aggregate_utility,
                u.total_start_value,
                u.earned.p25,
                u.earned.p50,
                u.earned.p75,
                u.earned.p98,
                u.earned.p100
            )?;
        }
        let u = &self.users;
        if u.known {
            writeln!(
                out,
                "users        {}: mean over users of their mean wait {:.2} s, of their mean bsld {:.2}; Jain's index wait {:.4}, bsld {:.4}",
                u.users, u.mean_user_wait, u.mean_user_bsld, u.jain_wait, u.jain_bsld
            )?;
        } else {
            writeln!(
                out,
                "users        unknown: no job has a user number (SWF field 12), so there is no fairness between users to report"
            )?;
        }
        let classes: Vec<String> = self
            .size_classes
            .iter()
            .filter(|c| c.jobs > 0)
            .map(|c| {
                format!(
                    "{} {} jobs, wait {:.2} s, bsld {:.2}",
                    c.class, c.jobs, c.mean_wait, c.mean_bsld
                )
            })
            .collect();
        writeln!(out, "by size      {}", classes.join("; "))?;
        writeln!(out, "{}", self.utilization_line())?;
        writeln!(out, "makespan     {} s", self.makespan)?;
        if let Some(e) = &self.energy {
            writeln!(
                out,
                "energy       {:.2} kWh over {} s (jobs {:.2}, idle cores {:.2}); power mean {:.3} kW, peak {:.3} kW; \
                 {:.2} Wh per core-hour of work",
                e.energy_kwh,
                e.span,
                e.jobs_kwh,
                e.idle_kwh,
                e.mean_power_kw,
                e.peak_power_kw,
                e.wh_per_core_hour
            )?;
            if let Some(w) = &e.switching {
                writeln!(
                    out,
                    "switching    {} node switch-offs, {} boots; {} jobs waited for a boot, {} s in all",
                    w.switch_offs, w.boots, w.jobs_waiting_boot, w.boot_wait_s
                )?;
            }
            if let Some(over) = e.over_cap_s {
                writeln!(out, "power cap    drawn above it for {over} s")?;
            }
            if let Some(kg) = e.carbon_kg {
                writeln!(
                    out,
                    "carbon       {kg:.2} kg CO2 ({:.1} g per kWh on average)",
                    1e3 * kg / e.energy_kwh
                )?;
            }
        }
        writeln!(
            out,
            "percentiles  {}; bsld threshold {} s",
            self.percentile_method, self.bsld_threshold
        )
    }

    /// The line on predictions that `run` adds for a scheduler with a runtime predictor.
    pub fn write_prediction_text(&self, out: &mut dyn Write, predictor: &str) -> io::Result<()> {
        writeln!(
            out,
            "predictor    {predictor}: absolute inaccuracy {:.1} s, relative accuracy {:.4}, {} deadline misses, {} backfilled",
            self.absolute_inaccuracy, self.relative_accuracy, self.deadline_misses, self.backfilled
        )
    }
}
