//! `schedlab malleable`: one run of a malleable allocation strategy on the Downey model.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use clap::Args;

use super::parse_key_value;
use schedlab::atomic::write_atomically;
use schedlab::experiment::{Value, check_size, malleable};
use schedlab::malleable::{Strategy, application_centric, simulate};

#[derive(Args)]
pub struct MalleableArgs {
    #[arg(
        long,
        help = format!("Allocation strategy: {} (--help lists what each does)", Strategy::NAMES.join(", ")),
        long_help = format!("Allocation strategy, one of:\n{}", Strategy::help())
    )]
    strategy: String,
    /// Model parameter KEY=VALUE (repeatable), as for `run --model downey`.
    #[arg(long = "param", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    params: Vec<(String, String)>,
    /// Seed of the workload.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Evaluate application-centrically (Downey's Table 1): the system runs AVG and each
    /// job AVG starts on fewer than its maximum is replayed alone under the strategy.
    #[arg(long)]
    application: bool,
    /// Write the rebels' queue-time predictions and outcomes (seconds) as CSV.
    #[arg(long, value_name = "FILE.csv")]
    pairs_out: Option<PathBuf>,
    /// Draw them as Downey's Figure 5: log-log scatter, per-column mean and median (SVG).
    #[arg(long, value_name = "FILE.svg")]
    scatter: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Run even if a replication would generate more than 20 million jobs.
    #[arg(long)]
    yes: bool,
}

/// Writes the prediction pairs where asked.
fn export(args: &MalleableArgs, pairs: &[(f64, f64)], title: &str) -> Result<()> {
    if let Some(path) = &args.pairs_out {
        write_atomically(path, |w| {
            writeln!(w, "prediction,outcome")?;
            for (p, o) in pairs {
                writeln!(w, "{p},{o}")?;
            }
            Ok(())
        })?;
    }
    if let Some(path) = &args.scatter {
        schedlab::report::scatter::write_prediction_scatter(path, pairs, title)?;
    }
    Ok(())
}

pub fn run(args: MalleableArgs) -> Result<()> {
    let flags = [
        ("model", Some(Value::Str("downey".into()))),
        ("strategy", Some(Value::Str(args.strategy.clone()))),
        (
            "evaluation",
            args.application.then(|| Value::Str("application".into())),
        ),
    ];
    let params = super::params(&args.params, flags)?;
    let experiment = malleable::from_params(&params, None).map_err(schedlab::Error::from)?;
    check_size(Some(experiment.model.expected_jobs()), args.yes).map_err(schedlab::Error::from)?;
    let busy = super::busy::Busy::start("simulating");
    let workload = experiment.model.generate(args.seed);
    let (jobs, procs) = (&workload.jobs, workload.procs);
    // The largest-cluster rule is not part of the strategy's text, but it changes the run.
    let allocation = &experiment.allocation;
    let strategy = format!("{allocation}, largest cluster {}(A)", allocation.max_cluster);
    let mut out = io::stdout().lock();
    if experiment.application {
        let r = application_centric(jobs, procs, &experiment.allocation)?;
        drop(busy);
        export(&args, &r.pairs, &format!("{strategy}, application-centric"))?;
        if args.json {
            serde_json::to_writer(&mut out, &r)?;
            writeln!(out)?;
        } else {
            r.write_text(&mut out, &workload.name, &strategy)?;
        }
    } else {
        let t0 = Instant::now();
        let o = simulate(jobs, procs, &experiment.allocation)?;
        let simulated = t0.elapsed();
        drop(busy);
        export(&args, &o.pairs, &strategy)?;
        if args.json {
            serde_json::to_writer(&mut out, &o.to_json(&workload.name, &strategy))?;
            writeln!(out)?;
        } else {
            o.write_text(&mut out, &workload.name, &strategy)?;
            writeln!(
                out,
                "timing       simulate {:.1} ms",
                simulated.as_secs_f64() * 1e3
            )?;
        }
    }
    out.flush()?;
    Ok(())
}
