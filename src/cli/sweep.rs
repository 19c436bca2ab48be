//! `schedlab sweep` and `schedlab merge`: a grid of experiments, and the merge of its
//! shards.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use schedlab::sweep::shard::{shard_cells, shares};
use schedlab::sweep::{Plan, RunOptions, Shard, capped_threads, run_sweep};

#[derive(Args)]
pub struct SweepArgs {
    /// The sweep spec (TOML).
    spec: PathBuf,
    /// Worker threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Output folder (default: results/<name>/, or results/<name>/shard-K-of-N/ with --shard).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run shard K of N, counted from 0 (for job arrays): the cells spread over the N
    /// shards by estimated cost (docs/sweeps.md), whole groups of compared cells under
    /// difference stopping. With --list, that shard's cells.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Keep the replications already recorded in the output folder and run the rest.
    #[arg(long)]
    resume: bool,
    /// Print the cells and exit.
    #[arg(long)]
    list: bool,
    /// Validate the spec and print what would run, without running it.
    #[arg(long)]
    dry_run: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Overwrite an output folder that holds the results of another spec.
    #[arg(long)]
    force: bool,
    /// Run a grid larger than the spec's max_cells, or cells whose replications generate
    /// more than 20 million jobs each.
    #[arg(long)]
    yes: bool,
    /// Write what each replication and the serial phases took (phase,cell,rep,seconds),
    /// for --predict-scaling.
    #[arg(long, value_name = "FILE.csv", conflicts_with = "resume")]
    timings_out: Option<PathBuf>,
    /// Run nothing: predict the sweep's wall time and efficiency on 1 to 128 threads from a
    /// run's --timings-out file and the runs.csv of that run (in --out, or results/<name>),
    /// replaying the runner's decisions (docs/performance.md, "Predicting scaling").
    #[arg(long, value_name = "TIMINGS.csv", conflicts_with_all = ["timings_out", "resume", "shard"])]
    predict_scaling: Option<PathBuf>,
}

#[derive(Args)]
pub struct MergeArgs {
    /// Output folders of the shards (`sweep --shard K/N`).
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Where to write the merged outputs.
    #[arg(long)]
    out: PathBuf,
    /// Overwrite an output folder that holds the results of another spec.
    #[arg(long)]
    force: bool,
}

pub fn merge(args: MergeArgs) -> Result<()> {
    let plan = schedlab::sweep::merge::merge(&args.shards, &args.out, args.force)?;
    eprintln!(
        "merged {} shards of '{}' ({} cells) into {}",
        args.shards.len(),
        plan.name,
        plan.cells.len(),
        args.out.display()
    );
    Ok(())
}

/// On Ctrl-C: say how many replications the journal holds and the exact command that
/// finishes the sweep, then exit 130 (what a shell expects of an interrupt).
fn on_interrupt_say_how_to_resume(args: &SweepArgs, out: &std::path::Path) {
    let journal = out.join("runs.csv");
    let mut resume = format!("schedlab sweep {} --resume", args.spec.display());
    if args.out.is_some() {
        resume.push_str(&format!(" --out {}", out.display()));
    }
    if let Some(s) = args.shard {
        resume.push_str(&format!(" --shard {}/{}", s.index, s.count));
    }
    let handler = move || {
        let rows = std::fs::read(&journal)
            .map(|b| b.iter().filter(|&&c| c == b'\n').count().saturating_sub(1))
            .unwrap_or(0);
        eprintln!(
            "\nschedlab: interrupted; {rows} replications are recorded in {}; finish with:\n    {resume}",
            journal.display()
        );
        std::process::exit(130);
    };
    if let Err(e) = ctrlc::set_handler(handler) {
        eprintln!("schedlab: warning: Ctrl-C will not say how to resume: {e}");
    }
}

pub fn run(args: SweepArgs) -> Result<()> {
    let plan = Plan::from_file(&args.spec)?;
    let mut out = io::stdout().lock();
    if args.list {
        let names: Vec<&str> = plan.axes.iter().map(|a| a.name.as_str()).collect();
        writeln!(out, "cell\t{}", names.join("\t"))?;
        let mine = shard_cells(&plan, args.shard);
        for c in mine.iter().map(|&c| &plan.cells[c]) {
            let values: Vec<String> = c.values.iter().map(|v| v.to_string()).collect();
            writeln!(out, "{}\t{}", c.index, values.join("\t"))?;
        }
        return Ok(());
    }
    let reps = plan.replications.describe();
    let mut summary = format!(
        "sweep '{}': {} cells ({} in the full grid), {reps}",
        plan.name,
        plan.cells.len(),
        plan.grid_size
    );
    if let Some(s) = args.shard {
        summary.push_str(&format!(
            "; shard {}/{} runs {} of them, an estimated {:.1}% of the work",
            s.index,
            s.count,
            shard_cells(&plan, args.shard).len(),
            100.0 * shares(&plan, s.count)[s.index]
        ));
    }
    // What the run would refuse, the dry run refuses too.
    plan.check_size(args.yes)?;
    if args.dry_run {
        for warning in &plan.warnings {
            writeln!(out, "warning: {warning}")?;
        }
        writeln!(out, "{summary}")?;
        writeln!(out, "spec valid (hash {})", plan.spec_hash)?;
        return Ok(());
    }
    let out_dir = args.out.clone().unwrap_or_else(|| {
        let base = PathBuf::from("results").join(&plan.name);
        match args.shard {
            Some(s) => base.join(format!("shard-{}-of-{}", s.index, s.count)),
            None => base,
        }
    });
    if let Some(timings) = &args.predict_scaling {
        return predict_scaling(&plan, timings, &out_dir, &mut out);
    }
    if !args.quiet {
        eprintln!("{summary} -> {}", out_dir.display());
    }
    let options = RunOptions {
        threads: args.threads.map(|asked| {
            let (threads, capped) = capped_threads(asked);
            if let Some(message) = capped {
                eprintln!("schedlab: {message}");
            }
            threads
        }),
        force: args.force,
        out: out_dir.clone(),
        shard: args.shard,
        resume: args.resume,
        quiet: args.quiet,
        cancel: None,
    };
    for warning in &plan.warnings {
        eprintln!("schedlab: warning: {warning}");
    }
    on_interrupt_say_how_to_resume(&args, &out_dir);
    let report = run_sweep(&plan, &options)?;
    for warning in &report.warnings {
        eprintln!("schedlab: warning: {warning}");
    }
    if let Some(path) = &args.timings_out {
        report.timings.write(path)?;
    }
    let secs = report.elapsed.as_secs_f64();
    let unused = match report.tasks_unused {
        0 => String::new(),
        n => format!(", {n} run ahead and not needed"),
    };
    writeln!(
        out,
        "{} cells, {} replications run ({} resumed{unused}) in {:.1} s: {:.0} replications/s, {:.0} simulated jobs/s",
        report.cells,
        report.tasks_run,
        report.tasks_resumed,
        secs,
        report.tasks_run as f64 / secs.max(1e-9),
        report.jobs_simulated as f64 / secs.max(1e-9)
    )?;
    writeln!(out, "results in {}", out_dir.display())?;
    let md = out_dir.join("summary.md");
    if let Ok(text) = std::fs::read_to_string(&md) {
        writeln!(out)?;
        out.write_all(text.as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

/// `--predict-scaling`: the predicted wall time, efficiency and bound at 1 to 128 threads.
fn predict_scaling(
    plan: &Plan,
    timings: &std::path::Path,
    out_dir: &std::path::Path,
    out: &mut dyn Write,
) -> Result<()> {
    use schedlab::sweep::scaling::{Timings, predict};
    let timings = Timings::read(timings)?;
    let journal = out_dir.join("runs.csv");
    let records = schedlab::sweep::runs::read_runs(&journal, plan)?;
    if records.is_empty() {
        return Err(schedlab::Error::Invalid(format!(
            "{}: no replications recorded; give --out the folder of the run that wrote the timings",
            journal.display()
        ))
        .into());
    }
    let threads = [1, 2, 4, 8, 16, 32, 64, 128];
    writeln!(
        out,
        "sweep '{}': {} tasks timed ({:.2} s of tasks, {:.2} s preparing, {:.2} s writing)",
        plan.name,
        timings.tasks.len(),
        timings.tasks.values().sum::<f64>(),
        timings.prepare_s,
        timings.outputs_s
    )?;
    writeln!(out, "threads  predicted wall s  efficiency  bound s  tasks")?;
    for p in predict(plan, &records, &timings, &threads)? {
        writeln!(
            out,
            "{:>7}  {:>16.2}  {:>9.1}%  {:>7.2}  {:>5}",
            p.threads,
            p.wall_s,
            100.0 * p.efficiency,
            p.bound_s,
            p.tasks
        )?;
    }
    Ok(())
}
