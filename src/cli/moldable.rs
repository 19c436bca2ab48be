//! `schedlab moldable`: one run of a partitioning policy of Anastasiadis & Sevcik on one of
//! their workloads, with the measurement window of the sweeps.

use std::io::{self, Write};

use anyhow::Result;
use clap::Args;

use schedlab::experiment::{Value, check_size, moldable};
use schedlab::metrics::registry::Unit;
use schedlab::partition::{PARTITION_METRICS, Policy};
use schedlab::sim::Window;

#[derive(Args)]
pub struct MoldableArgs {
    #[arg(
        long,
        help = format!("Partitioning policy: {} (--help lists what each does)", Policy::NAMES.join(", ")),
        long_help = format!("Partitioning policy, one of:\n{}", Policy::help())
    )]
    policy: String,
    /// Workload: wk1 (good speedup) to wk4.
    #[arg(long, default_value = "wk1")]
    workload: String,
    /// Offered load.
    #[arg(long)]
    load: f64,
    /// Processors.
    #[arg(long, default_value_t = 32)]
    procs: u32,
    /// Jobs before the measured ones.
    #[arg(long, default_value_t = 500)]
    warmup: usize,
    /// Jobs measured.
    #[arg(long, default_value_t = 19_500)]
    window: usize,
    /// Saturated once this many jobs arrive after the window with measured jobs unfinished.
    #[arg(long, default_value_t = 10_000)]
    saturation: usize,
    /// Seed of the workload.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object of every metric.
    #[arg(long)]
    json: bool,
    /// Run even if a replication would generate more than 20 million jobs.
    #[arg(long)]
    yes: bool,
}

pub fn run(args: MoldableArgs) -> Result<()> {
    let flags = [
        ("model", Some(Value::Str("sevcik".into()))),
        ("policy", Some(Value::Str(args.policy.clone()))),
        ("workload", Some(Value::Str(args.workload.clone()))),
        ("load", Some(Value::Float(args.load))),
        ("procs", Some(Value::Int(args.procs.into()))),
    ];
    let params = super::params(&[], flags)?;
    usage!(args.window > 0, "--window: must be at least 1");
    let window = Window {
        measured: args.warmup..args.warmup + args.window,
        saturation: Some(args.saturation),
    };
    let experiment = moldable::from_params(&params, Some(&window)).map_err(schedlab::Error::from)?;
    check_size(Some(experiment.jobs() as u64), args.yes).map_err(schedlab::Error::from)?;
    let busy = super::busy::Busy::start("simulating");
    let outcome = experiment.run(args.seed, true);
    drop(busy);
    let mut out = io::stdout().lock();
    if args.json {
        let mut object = serde_json::json!({
            "policy": experiment.policy.to_string(),
            "workload": experiment.workload.to_string(),
            "load": experiment.load,
            "procs": experiment.procs,
            "seed": args.seed,
            "saturated": outcome.run.saturated,
        });
        for m in PARTITION_METRICS.metrics {
            object[m.name] = m.json(&outcome);
        }
        serde_json::to_writer(&mut out, &object)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "moldable     {} on {} at load {}, {} processors, seed {}{}",
            experiment.policy,
            experiment.workload,
            experiment.load,
            experiment.procs,
            args.seed,
            if outcome.run.saturated { " (saturated)" } else { "" }
        )?;
        for m in PARTITION_METRICS.metrics {
            let digits = if m.unit == Unit::Jobs { 0 } else { 4 };
            writeln!(
                out,
                "{:<36} {:.digits$}",
                m.label_with_unit(),
                (m.value)(&outcome)
            )?;
        }
    }
    out.flush()?;
    Ok(())
}
