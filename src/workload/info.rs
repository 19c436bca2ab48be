//! `trace info`: what a trace holds, before simulating it.

use std::collections::HashSet;

use serde::Serialize;

use super::{SkipCounts, Workload};
use crate::Time;

/// Facts about a workload. `offered_load` = sum(runtime x procs) / (procs x span), with
/// span = last submit - first submit (the load the arrivals offer, whatever the scheduler).
#[derive(Clone, Debug, Serialize)]
pub struct TraceInfo {
    pub name: String,
    pub jobs: u64,
    pub jobs_skipped: u64,
    pub skipped: SkipCounts,
    pub not_selected: u64,
    pub procs: u32,
    pub max_procs_header: Option<u32>,
    pub max_nodes_header: Option<u32>,
    pub first_submit: Time,
    pub last_submit: Time,
    pub span_seconds: Time,
    pub offered_load: f64,
    /// Fraction of jobs with a user estimate (field 9 > 0).
    pub with_estimate: f64,
    pub users: usize,
    pub executables: usize,
    /// Jobs that request GPUs, and the GPUs they request in all; not written for a trace
    /// that records none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_jobs: Option<(u64, u64)>,
}

/// How many distinct identifiers (not -1, unknown) `ids` holds: a bitmap over the small
/// numbers logs use, a set for larger ones.
fn distinct_ids(ids: &[i32]) -> usize {
    let max = ids.iter().copied().max().unwrap_or(-1);
    if max < 0 {
        return 0;
    }
    if max < 1 << 24 {
        let mut seen = vec![0u64; max as usize / 64 + 1];
        for &id in ids.iter().filter(|&&x| x >= 0) {
            seen[id as usize / 64] |= 1 << (id % 64);
        }
        return seen.iter().map(|w| w.count_ones() as usize).sum();
    }
    ids.iter().filter(|&&x| x >= 0).collect::<HashSet<_>>().len()
}

impl TraceInfo {
    pub fn of(w: &Workload) -> Self {
        let jobs = &w.jobs;
        let n = jobs.len();
        let first = jobs.submit.first().copied().unwrap_or(0);
        let last = jobs.submit.last().copied().unwrap_or(0);
        let span = last - first;
        let work: f64 = (0..n)
            .map(|j| jobs.runtime[j] as f64 * jobs.procs[j] as f64)
            .sum();
        let distinct = distinct_ids;
        TraceInfo {
            name: w.name.clone(),
            jobs: n as u64,
            jobs_skipped: w.skipped.total(),
            skipped: w.skipped.clone(),
            not_selected: w.not_selected,
            procs: w.procs,
            max_procs_header: w.header.max_procs,
            max_nodes_header: w.header.max_nodes,
            first_submit: first,
            last_submit: last,
            span_seconds: span,
            offered_load: if span > 0 {
                work / (w.procs as f64 * span as f64)
            } else {
                0.0
            },
            with_estimate: if n > 0 {
                jobs.requested_time.iter().filter(|&&t| t > 0).count() as f64 / n as f64
            } else {
                0.0
            },
            users: distinct(&jobs.user),
            executables: distinct(&jobs.executable),
            gpu_jobs: jobs.gpus.as_ref().map(|g| {
                let asking = g.iter().filter(|&&n| n > 0);
                (asking.clone().count() as u64, asking.map(|&n| n as u64).sum())
            }),
        }
    }
}

impl TraceInfo {
    /// What a researcher should know before trusting a simulation of this trace.
    pub fn warnings(&self, modelled_estimates: bool) -> Vec<String> {
        let mut out = Vec::new();
        if modelled_estimates {
            // Estimates from a model replace the logged ones: nothing to say about those.
        } else if self.jobs > 0 && self.with_estimate == 0.0 {
            out.push(format!(
                "{}: no job has a user estimate (field 9), so the estimates are the runtimes: \
                 backfilling sees exact runtimes, unlike on a real log (--estimates tsafrir, or \
                 estimates = \"tsafrir\" in a sweep, draws realistic ones)",
                self.name
            ));
        } else if self.jobs > 0 && self.with_estimate < 0.5 {
            out.push(format!(
                "{}: only {:.1}% of jobs have a user estimate (field 9); the others use their runtimes",
                self.name,
                100.0 * self.with_estimate
            ));
        }
        if self.offered_load >= 1.0 {
            out.push(format!(
                "{}: offered load {:.3} is at least 1: the queue grows without bound, so waits depend on \
                 how long the trace is",
                self.name, self.offered_load
            ));
        }
        out
    }

    /// The facts as `schedlab trace info` prints them.
    pub fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(out, "trace          {}", self.name)?;
        writeln!(out, "jobs           {}", self.jobs)?;
        writeln!(
            out,
            "skipped        {}{}",
            self.jobs_skipped,
            self.skipped.detail()
        )?;
        if self.not_selected > 0 {
            writeln!(out, "not selected   {}", self.not_selected)?;
        }
        let header = |v: Option<u32>| v.map_or("-".to_string(), |p| p.to_string());
        writeln!(
            out,
            "machine        {} procs (header MaxProcs {}, MaxNodes {})",
            self.procs,
            header(self.max_procs_header),
            header(self.max_nodes_header)
        )?;
        writeln!(
            out,
            "span           {:.1} days of submits ({} s)",
            self.span_seconds as f64 / 86_400.0,
            self.span_seconds
        )?;
        writeln!(out, "offered load   {:.4}", self.offered_load)?;
        writeln!(out, "with estimate  {:.1}% of jobs", self.with_estimate * 100.0)?;
        writeln!(out, "users          {}", self.users)?;
        writeln!(out, "executables    {}", self.executables)?;
        if let Some((jobs, gpus)) = self.gpu_jobs {
            writeln!(out, "gpu jobs       {jobs} ({gpus} GPUs requested in all)")?;
        }
        Ok(())
    }
}
