//! `schedlab cluster`: one run of the non-dedicated cluster of Hanzich et al., with an
//! estimator judged on it if asked.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use clap::Args;

use schedlab::atomic::write_atomically;
use schedlab::experiment::{Value, check_size, cluster};
use schedlab::nondedicated::estimate::Estimator;

#[derive(Args)]
pub struct ClusterArgs {
    /// Job selection: fcfs or backfilling.
    #[arg(long, default_value = "fcfs")]
    jsp: String,
    /// Node selection: normal or uniform.
    #[arg(long, default_value = "normal")]
    nsp: String,
    /// Most parallel tasks per node, 1 to 1024 (1 for the paper's Basic policy).
    #[arg(long, default_value_t = 4)]
    mpl: u32,
    /// Nodes of the cluster, 16 to 65536 (the NAS jobs run on up to 16 tasks).
    #[arg(long, default_value_t = 64)]
    nodes: u32,
    /// Share of the nodes with a local user at any time.
    #[arg(long, default_value_t = 0.75)]
    local_share: f64,
    /// Parallel jobs.
    #[arg(long, default_value_t = 1000)]
    jobs: usize,
    /// Multiplies the Gamma(12, 2.55 s) inter-arrival times, 0.001 to 1000 (above 1: less load).
    #[arg(long, default_value_t = 1.0)]
    arrival_scale: f64,
    /// Most CPU the parallel tasks on a node with a local user may ask for together.
    #[arg(long, default_value_t = 1.0)]
    contract_cpu: f64,
    /// Jobs of the run that fills the Historical and Hybrid history (default: --jobs).
    #[arg(long)]
    history_jobs: Option<usize>,
    /// Ground truth: each node's speed is exp(N(0, s^2)) times nominal, unknown to the
    /// estimators and the scheduler.
    #[arg(long, default_value_t = 0.0)]
    speed_noise: f64,
    /// Ground truth: with k parallel tasks on a node each runs 1 + c (k - 1) times slower
    /// than its CPU share gives.
    #[arg(long, default_value_t = 0.0)]
    interference: f64,
    /// Seed of the parallel workload; the local users get their own stream from it.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(
        long,
        help = format!("Turnaround estimator judged on the run: {} (--help lists what each does)", Estimator::NAMES.join(", ")),
        long_help = format!("Turnaround estimator judged on the run, one of:\n{}", Estimator::help())
    )]
    estimator: Option<String>,
    /// Estimate the whole workload once from the initial state instead of at each arrival.
    #[arg(long, requires = "estimator")]
    offline: bool,
    /// One CSV row per job: application, arrival, start, end, wait, exec, turnaround, CPU
    /// time, nodes (and the estimate, with --estimator).
    #[arg(long, value_name = "FILE.csv")]
    jobs_out: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Run even if a replication would generate more than 20 million jobs.
    #[arg(long)]
    yes: bool,
}

pub fn run(args: ClusterArgs) -> Result<()> {
    let flags = [
        ("model", Some(Value::Str("cisne".into()))),
        ("jsp", Some(Value::Str(args.jsp.clone()))),
        ("nsp", Some(Value::Str(args.nsp.clone()))),
        ("mpl", Some(Value::Int(args.mpl.into()))),
        ("nodes", Some(Value::Int(args.nodes.into()))),
        ("local_share", Some(Value::Float(args.local_share))),
        ("jobs", Some(Value::Int(args.jobs as i64))),
        ("arrival_scale", Some(Value::Float(args.arrival_scale))),
        ("contract_cpu", Some(Value::Float(args.contract_cpu))),
        ("history_jobs", args.history_jobs.map(|n| Value::Int(n as i64))),
        ("speed_noise", Some(Value::Float(args.speed_noise))),
        ("interference", Some(Value::Float(args.interference))),
        ("estimator", args.estimator.clone().map(Value::Str)),
        ("mode", args.offline.then(|| Value::Str("offline".into()))),
    ];
    let params = super::params(&[], flags)?;
    let experiment = cluster::from_params(&params).map_err(schedlab::Error::from)?;
    check_size(Some(experiment.simulated_jobs()), args.yes).map_err(schedlab::Error::from)?;
    let t0 = Instant::now();
    let busy = super::busy::Busy::start("simulating");
    let report = experiment.run(args.seed)?;
    drop(busy);
    let secs = t0.elapsed().as_secs_f64();
    if let Some(path) = &args.jobs_out {
        write_atomically(path, |w| report.write_jobs_csv(w))?;
    }
    let mut out = io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut out, &report.to_json(&experiment, args.seed))?;
        writeln!(out)?;
    } else {
        report.write_text(&mut out, &experiment, args.seed)?;
        writeln!(
            out,
            "timing       simulate {:.1} ms ({} passes)",
            secs * 1e3,
            report.run.passes
        )?;
    }
    out.flush()?;
    Ok(())
}
