//! A malleable run's report as text and JSON, the way `schedlab malleable` prints it.

use std::io::{self, Write};

use super::{ApplicationReport, MalleableOutcome};

impl MalleableOutcome {
    /// The system-centric report of `strategy` on `workload`.
    pub fn write_text(&self, out: &mut dyn Write, workload: &str, strategy: &str) -> io::Result<()> {
        writeln!(out, "workload     {workload}")?;
        writeln!(out, "strategy     {strategy}")?;
        writeln!(out, "jobs         {}", self.start.len())?;
        writeln!(
            out,
            "response     mean {:.1} s, median {:.1} s",
            self.mean_response, self.median_response
        )?;
        writeln!(
            out,
            "run time     mean {:.1} s, median {:.1} s",
            self.mean_run, self.median_run
        )?;
        writeln!(
            out,
            "utilization  {:.4} (mean efficiency S(n)/n over processors and time); {:.4} while jobs wait; \
             {:.4} of allocated processor time",
            self.utilization, self.utilization_while_waiting, self.allocated_efficiency
        )?;
        writeln!(out, "rebels       {}", self.rebels)?;
        if let Some(q) = self.quality {
            writeln!(
                out,
                "predictions  {} rebel predictions against outcomes (log space): correlation {:.3}, slope {:.3}, intercept {:.3}; \
                 bias ln(outcome/prediction) {:.3} under 10 min, {:.3} over",
                q.pairs, q.correlation, q.slope, q.intercept, q.short_bias, q.long_bias
            )?;
        }
        Ok(())
    }

    /// The report as one JSON object (the metric names of [`super::MALLEABLE_METRICS`]).
    pub fn to_json(&self, workload: &str, strategy: &str) -> serde_json::Value {
        serde_json::json!({
            "workload": workload,
            "strategy": strategy,
            "jobs": self.start.len(),
            "mean_response": self.mean_response,
            "median_response": self.median_response,
            "mean_run": self.mean_run,
            "median_run": self.median_run,
            "utilization": self.utilization,
            "utilization_while_waiting": self.utilization_while_waiting,
            "allocated_efficiency": self.allocated_efficiency,
            "rebels": self.rebels,
            "prediction_quality": self.quality,
        })
    }
}

impl ApplicationReport {
    /// The application-centric report (Downey's Table 1) of `strategy` on `workload`.
    pub fn write_text(&self, out: &mut dyn Write, workload: &str, strategy: &str) -> io::Result<()> {
        let percent = |k: u64| 100.0 * k as f64 / self.jobs.max(1) as f64;
        writeln!(out, "workload     {workload}")?;
        writeln!(out, "strategy     {strategy}, application-centric against AVG")?;
        writeln!(
            out,
            "jobs         {}: {} spoiled ({:.1}%), {} docile ({:.1}%), {} rebels ({:.1}%)",
            self.jobs,
            self.spoiled,
            percent(self.spoiled),
            self.docile,
            percent(self.docile),
            self.rebels,
            percent(self.rebels)
        )?;
        writeln!(out, "savings      {:.1} min per job", self.savings_per_job / 60.0)?;
        writeln!(
            out,
            "rebels       median saving {:.1} min, mean {:.1} min; {:.1}% lose, {:.1} min on average; \
             they live {:.2} times as long as docile jobs",
            self.median_savings_per_rebel / 60.0,
            self.mean_savings_per_rebel / 60.0,
            100.0 * self.losing_rebel_fraction,
            self.mean_loss_per_losing_rebel / 60.0,
            self.rebel_lifetime_ratio
        )
    }
}
