//! Command-line front end (clap): validates arguments into library calls and prints results.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

use schedlab::atomic::write_atomically;
use schedlab::experiment::Simulate;
use schedlab::metrics::{Summary, write_jobs_csv};
use schedlab::predict::PredictorKind;
use schedlab::sched::SchedulerKind;
use schedlab::sim::Engine;
use schedlab::sweep::{Plan, RunOptions, Shard, run_sweep};
use schedlab::workload::info::TraceInfo;
use schedlab::workload::selection::JobRange;
use schedlab::workload::swf::{SwfOptions, write_swf};
use schedlab::workload::synth::{MODEL_NAMES, Model};
use schedlab::workload::{Selection, Workload, WorkloadSpec};

#[derive(Parser)]
#[command(
    name = "schedlab",
    version,
    about = "Simulate parallel-job schedulers on SWF traces and synthetic workloads"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one simulation and print its summary.
    Run(RunArgs),
    /// Inspect workload traces.
    #[command(subcommand)]
    Trace(TraceCommand),
    /// Run a grid of experiments described by a TOML spec (see sweeps/).
    Sweep(SweepArgs),
    /// Predict queue times for a request from a machine state (Downey 1997: predictors A,
    /// B, combined and the exact median), read from a JSON file (see README).
    Predict {
        /// The machine state (JSON).
        state: PathBuf,
        /// Print one JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Schedule malleable jobs of the Downey model with an allocation strategy (Downey
    /// 1997: avg, opt, pred, bias, heur) and print turnaround, utilization and rebels.
    Malleable {
        /// Allocation strategy, e.g. avg, pred, bias(lock_in=true,risk=0.2), heur(k=0.2).
        #[arg(long)]
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
    },
    /// Parallel NAS jobs on a non-dedicated cluster whose nodes also serve local users
    /// (Hanzich et al.): FCFS or backfilling, Normal or Uniform node selection, MPL.
    Cluster(ClusterArgs),
    /// Utility functions (Lee & Snavely): augment a trace with synthetic ones.
    #[command(subcommand)]
    Utility(UtilityCommand),
    /// Combine the outputs of sharded sweeps into the files a single run would write.
    Merge {
        /// Output folders of the shards (`sweep --shard K/N`).
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// Where to write the merged outputs.
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Args)]
struct SweepArgs {
    /// The sweep spec (TOML).
    spec: PathBuf,
    /// Worker threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Output folder (default: results/<name>/, or results/<name>/shard-K-of-N/ with --shard).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run only the cells whose index is K modulo N (for job arrays).
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
    /// Run a grid larger than the spec's max_cells.
    #[arg(long)]
    yes: bool,
}

#[derive(Args)]
struct ClusterArgs {
    /// Job selection: fcfs or backfilling.
    #[arg(long, default_value = "fcfs")]
    jsp: String,
    /// Node selection: normal or uniform.
    #[arg(long, default_value = "normal")]
    nsp: String,
    /// Most parallel tasks per node (1 for the paper's Basic policy).
    #[arg(long, default_value_t = 4)]
    mpl: u32,
    #[arg(long, default_value_t = 64)]
    nodes: u32,
    /// Share of the nodes with a local user at any time.
    #[arg(long, default_value_t = 0.75)]
    local_share: f64,
    /// Parallel jobs.
    #[arg(long, default_value_t = 1000)]
    jobs: usize,
    /// Multiplies the Gamma(12, 2.55 s) inter-arrival times (above 1: less load).
    #[arg(long, default_value_t = 1.0)]
    arrival_scale: f64,
    /// Most CPU the parallel tasks on a node with a local user may ask for together.
    #[arg(long, default_value_t = 1.0)]
    contract_cpu: f64,
    /// Seed of the parallel workload; the local users get their own stream from it.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Turnaround estimator judged on the run: historical, hybrid, or a simulation kernel
    /// REM-CPU (prop-cpu, mpl-cpu, cpu-cpu, prop-mpl, mpl-mpl, cpu-mpl).
    #[arg(long)]
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
}

#[derive(Subcommand)]
enum UtilityCommand {
    /// Write the trace with a utility function appended to every job line (the paper's SWF
    /// extension) and its recorded wait times kept.
    Augment {
        /// SWF trace (.swf or .swf.gz).
        path: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        #[command(flatten)]
        utility: UtilityArgs,
        /// Seed of the generator.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where to write the augmented trace.
        #[arg(long, value_name = "FILE.swf")]
        out: PathBuf,
    },
}

/// Priorities and synthetic utility functions (see `schedlab::utility::generate`).
#[derive(Args, Clone)]
struct UtilityArgs {
    /// Queue-to-priority map, 0 the highest: sdsc-blue, or queue:priority pairs such as
    /// 1:0,2:1,*:2. Gives jobs priorities (for prio and ga) and, unless the trace carries
    /// utility functions, generates them.
    #[arg(long, value_name = "MAP")]
    priorities: Option<String>,
    /// Decay types: mixed, linear, exponential, step, or weights such as 2:1:1.
    #[arg(long, default_value = "mixed")]
    decay: String,
    /// Deadline = max(factor x basis, 10 s).
    #[arg(long, default_value_t = 2.0)]
    deadline_factor: f64,
    /// What the deadline multiplies: the recorded wait, or the recorded turnaround.
    #[arg(long, default_value = "turnaround", value_parser = ["wait", "turnaround"])]
    deadline_from: String,
    /// Intermediate points of linear and exponential functions.
    #[arg(long, default_value_t = 4)]
    utility_points: usize,
    /// Top of the start values, per processor-minute requested (60: one per
    /// processor-second, which gives aggregate utilities of the paper's magnitude).
    #[arg(long, default_value_t = 60.0)]
    globmax: f64,
    /// Standard deviation of the start values, in priority bins.
    #[arg(long, default_value_t = 0.5)]
    utility_sd: f64,
}

impl UtilityArgs {
    fn augmentation(&self) -> Result<Option<schedlab::utility::Augmentation>> {
        let Some(map) = &self.priorities else {
            return Ok(None);
        };
        let model = schedlab::utility::UtilityModel {
            globmax: self.globmax,
            sd: self.utility_sd,
            decay: self.decay.parse().map_err(anyhow::Error::msg)?,
            deadline_factor: self.deadline_factor,
            deadline_from: self.deadline_from.parse().map_err(anyhow::Error::msg)?,
            points: self.utility_points,
        };
        model.validate().map_err(anyhow::Error::msg)?;
        Ok(Some(schedlab::utility::Augmentation {
            priorities: map.parse().map_err(|e| anyhow::anyhow!("--priorities: {e}"))?,
            model,
        }))
    }
}

#[derive(Subcommand)]
enum TraceCommand {
    /// Jobs, skipped jobs by reason, machine size, span, offered load, estimates, users.
    Info {
        /// SWF trace (.swf or .swf.gz).
        path: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        /// Print the facts as one JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// How to read a trace.
#[derive(Args, Clone)]
struct ReadArgs {
    /// Machine size in processors (default: the header's MaxProcs, else MaxNodes).
    #[arg(long)]
    procs: Option<u32>,
    /// Only SWF job numbers in this range: A..=B, A..B, A.. or ..=B.
    #[arg(long, value_name = "RANGE")]
    jobs: Option<JobRange>,
    /// Only the first N jobs that pass the selection and skip rules.
    #[arg(long, value_name = "N")]
    first: Option<usize>,
    /// Skip malformed lines (counted and reported) instead of failing on the first.
    #[arg(long)]
    lenient: bool,
}

#[derive(Args)]
struct RunArgs {
    /// SWF trace to replay (.swf or .swf.gz).
    #[arg(long, conflicts_with = "model", required_unless_present = "model")]
    trace: Option<PathBuf>,
    /// Built-in synthetic workload model.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(MODEL_NAMES))]
    model: Option<String>,
    /// Model parameter KEY=VALUE (repeatable), e.g. --param load=0.9 --param days=60.
    #[arg(long = "param", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    params: Vec<(String, String)>,
    #[command(flatten)]
    read: ReadArgs,
    /// Scheduling policy: fcfs, easy, sjbf, conservative, easy-pred, prio (Priority-FIFO,
    /// needs --priorities) or ga (needs utility functions: --priorities or an augmented
    /// trace), also ga(population=20,generations=100,mutation=10).
    #[arg(long, value_parser = |s: &str| s.parse::<SchedulerKind>())]
    scheduler: SchedulerKind,
    /// Runtime predictor for sjbf, easy-pred and ga: perfect, estimate (default), constant(c=1),
    /// ruh(k=3,stat=median,prop=false), sbh(criteria=PE|P|E|*,search=dfs,depth=unlimited,prop=true,think=1200),
    /// sbh-noest(criteria=PX|P|X|*,...,growth=balanced|unbalanced,cap=100000), application.
    #[arg(long, value_name = "SPEC")]
    predictor: Option<String>,
    /// Seed of the synthetic model, the utility generator and the GA.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    utility: UtilityArgs,
    /// Requested times equal to the runtimes (Lee & Snavely's Table 2); the utility
    /// functions are generated from the original requests first.
    #[arg(long)]
    exact_estimates: bool,
    /// Write one CSV row per job: times, wait, bsld, predictions and their accuracy, and
    /// every prediction the job had (see README).
    #[arg(long, value_name = "FILE.csv")]
    jobs_out: Option<PathBuf>,
    /// Write the simulated schedule as SWF (wait time in field 3).
    #[arg(long, value_name = "FILE.swf")]
    swf_out: Option<PathBuf>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
    /// Check the simulator's invariants after every pass (slower; always on in debug builds).
    #[arg(long)]
    validate: bool,
}

fn parse_key_value(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| format!("expected KEY=VALUE, got '{s}'"))
}

impl ReadArgs {
    fn swf_options(&self) -> SwfOptions {
        SwfOptions {
            procs: self.procs,
            selection: Selection {
                range: self.jobs.clone(),
                first: self.first,
            },
            lenient: self.lenient,
        }
    }
}

pub fn run() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Run(args) => run_one(args),
        Command::Trace(TraceCommand::Info { path, read, json }) => trace_info(path, read, json),
        Command::Sweep(args) => sweep(args),
        Command::Predict { state, json } => predict_queue_times(state, json),
        Command::Malleable {
            strategy,
            params,
            seed,
            application,
            pairs_out,
            scatter,
            json,
        } => {
            let exports = PairExports { pairs_out, scatter };
            malleable(&strategy, &params, seed, application, &exports, json)
        }
        Command::Cluster(args) => cluster(args),
        Command::Utility(UtilityCommand::Augment {
            path,
            read,
            utility,
            seed,
            out,
        }) => augment(path, read, utility, seed, out),
        Command::Merge { shards, out } => {
            let plan = schedlab::sweep::merge::merge(&shards, &out)?;
            eprintln!(
                "merged {} shards of '{}' ({} cells) into {}",
                shards.len(),
                plan.name,
                plan.cells.len(),
                out.display()
            );
            Ok(())
        }
    }
}

fn workload_spec(args: &RunArgs) -> Result<WorkloadSpec> {
    if let Some(path) = &args.trace {
        anyhow::ensure!(args.params.is_empty(), "--param applies to --model, not --trace");
        return Ok(WorkloadSpec::Trace {
            path: path.clone(),
            options: args.read.swf_options(),
        });
    }
    let name = args.model.as_deref().expect("clap requires --trace or --model");
    anyhow::ensure!(
        args.read.jobs.is_none() && args.read.first.is_none() && !args.read.lenient,
        "--jobs, --first and --lenient apply to --trace"
    );
    let mut params = args.params.clone();
    if let Some(p) = args.read.procs {
        params.push(("procs".into(), p.to_string()));
    }
    Ok(WorkloadSpec::Model(Model::from_name(name, &params)?))
}

fn run_one(args: RunArgs) -> Result<()> {
    let kind = args.scheduler;
    let predictor: Option<PredictorKind> = match &args.predictor {
        None => None,
        Some(spec) => {
            let p: PredictorKind = spec.parse().map_err(schedlab::Error::from)?;
            schedlab::experiment::predictor_for(kind, p)
                .map_err(|e| schedlab::Error::Invalid(format!("--predictor: {e}")))?
        }
    };
    let t0 = Instant::now();
    let mut workload = workload_spec(&args)?.load(args.seed)?;
    if let Some(a) = args.utility.augmentation()? {
        a.apply(&mut workload.jobs, args.seed)
            .map_err(|e| anyhow::anyhow!("{}: {e}", workload.name))?;
    }
    if args.exact_estimates {
        schedlab::utility::exact_estimates(&mut workload.jobs);
    }
    anyhow::ensure!(
        kind != SchedulerKind::Prio || workload.jobs.priority.is_some(),
        "scheduler prio needs job priorities: give --priorities MAP (e.g. sdsc-blue)"
    );
    anyhow::ensure!(
        !matches!(kind, SchedulerKind::Ga(_)) || workload.jobs.utility.is_some(),
        "scheduler ga needs utility functions: give --priorities MAP to generate them, or an augmented trace"
    );
    let loaded = t0.elapsed();
    let mut engine = Engine::new()
        .with_validation(args.validate || cfg!(debug_assertions))
        .with_prediction_history(args.jobs_out.is_some());
    let mut scheduler = kind.build();
    scheduler.set_seed(args.seed);
    let t1 = Instant::now();
    // On a rayon worker, so that the GA's parallel fitness evaluations fork there instead of
    // entering the pool from outside once per generation.
    let (outcome, ()) = rayon::join(
        || scheduler.simulate(&mut engine, &workload.jobs, workload.procs, predictor, None),
        || (),
    );
    let simulated = t1.elapsed();
    let all = 0..workload.jobs.len();
    let summary = Summary::of_outcome(&workload.jobs, workload.procs, &outcome, all, &workload.skipped);
    if let Some(path) = &args.jobs_out {
        write_atomically(path, |w| write_jobs_csv(w, &workload.jobs, &outcome))?;
    }
    if let Some(path) = &args.swf_out {
        let note = format!("scheduler {kind}");
        write_atomically(path, |w| write_swf(w, &workload, outcome.start, &note))?;
    }
    let mut out = io::stdout().lock();
    if args.json {
        let value = serde_json::json!({
            "workload": workload.name,
            "scheduler": kind.name(),
            "predictor": predictor.map_or("estimate".to_string(), |p| p.to_string()),
            "seed": args.seed,
            "not_selected": workload.not_selected,
            "summary": &summary,
        });
        let mut object = value.as_object().cloned().unwrap_or_default();
        // Flatten the summary so the headline keys (jobs, mean_wait, ...) sit at the top.
        if let Some(serde_json::Value::Object(s)) = object.remove("summary") {
            object.extend(s);
        }
        serde_json::to_writer(&mut out, &object)?;
        writeln!(out)?;
    } else {
        print_summary(&mut out, &workload, kind, &summary)?;
        if let Some(p) = predictor {
            writeln!(
                out,
                "predictor    {p}: absolute inaccuracy {:.1} s, relative accuracy {:.4}, {} deadline misses, {} backfilled",
                summary.absolute_inaccuracy,
                summary.relative_accuracy,
                summary.deadline_misses,
                summary.backfilled
            )?;
        }
        let secs = simulated.as_secs_f64();
        writeln!(
            out,
            "timing       load {:.1} ms, simulate {:.1} ms ({:.0} jobs/s, {} passes)",
            loaded.as_secs_f64() * 1e3,
            secs * 1e3,
            summary.jobs as f64 / secs.max(1e-9),
            outcome.passes
        )?;
    }
    out.flush()?;
    Ok(())
}

fn cluster(args: ClusterArgs) -> Result<()> {
    use schedlab::nondedicated::estimate::Estimator;
    use schedlab::nondedicated::{Experiment, Hardware, ParallelWorkload, Setup, SocialContract};
    let estimator: Option<Estimator> = args
        .estimator
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(schedlab::Error::from)?;
    let experiment = Experiment {
        setup: Setup {
            hardware: Hardware {
                nodes: args.nodes,
                mpl: args.mpl,
                contract: SocialContract {
                    cpu: args.contract_cpu,
                    ..SocialContract::default()
                },
                ..Hardware::default()
            },
            jsp: args.jsp.parse().map_err(schedlab::Error::from)?,
            nsp: args.nsp.parse().map_err(schedlab::Error::from)?,
        },
        workload: ParallelWorkload {
            jobs: args.jobs,
            arrival_scale: args.arrival_scale,
            ..ParallelWorkload::default()
        },
        local_share: args.local_share,
        estimator,
        offline: args.offline,
    };
    experiment.validate().map_err(schedlab::Error::Invalid)?;
    let setup = experiment.setup;
    let t0 = Instant::now();
    let report = experiment.run(args.seed)?;
    let secs = t0.elapsed().as_secs_f64();
    let (jobs, run, predictions, accuracy) =
        (&report.jobs, &report.run, &report.predictions, &report.accuracy);
    let (history, cost) = (report.history, report.estimate_seconds);
    if let Some(path) = &args.jobs_out {
        write_atomically(path, |w| {
            writeln!(
                w,
                "job,application,arrival,start,end,wait,exec,turnaround,cpu_time,nodes,predicted_wait,predicted_exec"
            )?;
            for (i, (j, o)) in jobs.iter().zip(&run.jobs).enumerate() {
                let nodes: Vec<String> = o.nodes.iter().map(|n| n.to_string()).collect();
                let p = predictions.as_ref().and_then(|p| p[i]);
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
        })?;
    }
    let mut out = io::stdout().lock();
    let (wait, exec, turnaround) = (
        run.mean(|o| o.wait()),
        run.mean(|o| o.exec()),
        run.mean(|o| o.turnaround()),
    );
    if args.json {
        let value = serde_json::json!({
            "jsp": setup.jsp.to_string(), "nsp": setup.nsp.to_string(), "mpl": args.mpl,
            "nodes": args.nodes, "local_share": args.local_share, "jobs": run.jobs.len(),
            "seed": args.seed, "mean_wait": wait, "mean_run": exec,
            "mean_response": turnaround, "makespan": run.makespan(),
            "local_sessions": run.local_sessions, "mean_queue": run.mean_queue,
            "arrival_scale": args.arrival_scale,
            "estimator": estimator.map(|e| e.to_string()), "offline": args.offline,
            "accuracy": accuracy, "seconds_per_estimate": cost, "history_records": history,
        });
        serde_json::to_writer(&mut out, &value)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "cluster      {} nodes, MPL {}, {} with {:.0}% of nodes carrying a local user",
            args.nodes,
            args.mpl,
            format_args!("{} + {}", setup.jsp, setup.nsp),
            100.0 * args.local_share
        )?;
        writeln!(
            out,
            "jobs         {} NAS jobs, seed {}",
            run.jobs.len(),
            args.seed
        )?;
        writeln!(
            out,
            "mean         wait {wait:.1} s, execution {exec:.1} s, turnaround {turnaround:.1} s"
        )?;
        writeln!(
            out,
            "makespan     {:.0} s; mean queue {:.1} jobs; {} local sessions started",
            run.makespan(),
            run.mean_queue,
            run.local_sessions
        )?;
        if let (Some(e), Some(a)) = (estimator, &accuracy) {
            writeln!(
                out,
                "estimator    {e} {}: D_v turnaround {:.1}%, execution {:.1}%, wait {:.1}%; bias {:+.1}%; \
                 R_a turnaround {:.3}, execution {:.3}, wait {:.3}; {} jobs estimated",
                if args.offline { "off-line" } else { "on-line" },
                a.dv_turnaround,
                a.dv_exec,
                a.dv_wait,
                a.bias_turnaround,
                a.ra_turnaround,
                a.ra_exec,
                a.ra_wait,
                a.jobs
            )?;
            writeln!(
                out,
                "             {} {:.1} us; history {history} records at the start",
                if args.offline {
                    "whole projection"
                } else {
                    "per estimate"
                },
                cost * 1e6
            )?;
        }
        writeln!(
            out,
            "timing       simulate {:.1} ms ({} passes)",
            secs * 1e3,
            run.passes
        )?;
    }
    out.flush()?;
    Ok(())
}

fn augment(path: PathBuf, read: ReadArgs, utility: UtilityArgs, seed: u64, out: PathBuf) -> Result<()> {
    let augmentation = utility
        .augmentation()?
        .context("--priorities is required: the generator needs each job's priority")?;
    let mut workload = schedlab::workload::swf::read_swf(&path, &read.swf_options())?;
    anyhow::ensure!(
        workload.jobs.utility.is_none(),
        "{}: already carries utility functions",
        path.display()
    );
    augmentation
        .apply(&mut workload.jobs, seed)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let m = &augmentation.model;
    let note = format!(
        "utility functions by schedlab: priorities {}, decay {}, deadline max({} x recorded {}, 10 s), \
         {} intermediate points, globmax {}, sd {} bins, seed {seed}",
        augmentation.priorities, m.decay, m.deadline_factor, m.deadline_from, m.points, m.globmax, m.sd
    );
    let starts = schedlab::workload::swf::recorded_starts(&workload.jobs);
    write_atomically(&out, |w| write_swf(w, &workload, &starts, &note))?;
    eprintln!(
        "wrote {} jobs with utility functions to {} ({} skipped{})",
        workload.jobs.len(),
        out.display(),
        workload.skipped.total(),
        skip_detail(&workload.skipped)
    );
    Ok(())
}

fn print_summary(out: &mut impl Write, w: &Workload, kind: SchedulerKind, s: &Summary) -> io::Result<()> {
    writeln!(out, "workload     {} ({} procs)", w.name, w.procs)?;
    writeln!(out, "scheduler    {kind}")?;
    writeln!(
        out,
        "jobs         {} simulated, {} skipped{}",
        s.jobs,
        s.jobs_skipped,
        skip_detail(&s.skipped)
    )?;
    if w.not_selected > 0 {
        writeln!(out, "             {} outside the selection", w.not_selected)?;
    }
    let row = |out: &mut dyn Write, name: &str, mean: f64, p: &schedlab::metrics::Percentiles, unit: &str| {
        writeln!(
            out,
            "{name:<12} mean {mean:.2}{unit}  p25 {:.2}  p50 {:.2}  p75 {:.2}  p98 {:.2}  max {:.2}",
            p.p25, p.p50, p.p75, p.p98, p.p100
        )
    };
    row(out, "wait", s.mean_wait, &s.wait, " s")?;
    row(out, "response", s.mean_response, &s.response, " s")?;
    row(out, "bsld", s.mean_bsld, &s.bsld, "")?;
    row(out, "expansion", s.mean_expansion, &s.expansion, "")?;
    if let Some(u) = &s.utility {
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
    writeln!(out, "utilization  {:.4}", s.utilization)?;
    writeln!(out, "makespan     {} s", s.makespan)?;
    writeln!(
        out,
        "percentiles  {}; bsld threshold {} s",
        s.percentile_method, s.bsld_threshold
    )
}

fn skip_detail(skipped: &schedlab::workload::SkipCounts) -> String {
    let parts: Vec<String> = skipped
        .reasons()
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| format!("{r} {n}"))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// Where `schedlab malleable` writes its prediction pairs.
struct PairExports {
    pairs_out: Option<PathBuf>,
    scatter: Option<PathBuf>,
}

impl PairExports {
    fn write(&self, pairs: &[(f64, f64)], title: &str) -> Result<()> {
        if let Some(path) = &self.pairs_out {
            write_atomically(path, |w| {
                writeln!(w, "prediction,outcome")?;
                for (p, o) in pairs {
                    writeln!(w, "{p},{o}")?;
                }
                Ok(())
            })?;
        }
        if let Some(path) = &self.scatter {
            schedlab::report::scatter::write_prediction_scatter(path, pairs, title)?;
        }
        Ok(())
    }
}

fn malleable(
    strategy: &str,
    params: &[(String, String)],
    seed: u64,
    application: bool,
    exports: &PairExports,
    json: bool,
) -> Result<()> {
    let allocation: schedlab::malleable::Allocation = strategy.parse().map_err(schedlab::Error::from)?;
    let workload = Model::from_name("downey", params)?.generate(seed);
    if application {
        let r = schedlab::malleable::application_centric(&workload.jobs, workload.procs, &allocation)?;
        exports.write(&r.pairs, &format!("{allocation}, application-centric"))?;
        let mut out = io::stdout().lock();
        if json {
            serde_json::to_writer(&mut out, &r)?;
            writeln!(out)?;
        } else {
            let percent = |k: u64| 100.0 * k as f64 / r.jobs.max(1) as f64;
            writeln!(out, "workload     {}", workload.name)?;
            writeln!(out, "strategy     {allocation}, application-centric against AVG")?;
            writeln!(
                out,
                "jobs         {}: {} spoiled ({:.1}%), {} docile ({:.1}%), {} rebels ({:.1}%)",
                r.jobs,
                r.spoiled,
                percent(r.spoiled),
                r.docile,
                percent(r.docile),
                r.rebels,
                percent(r.rebels)
            )?;
            writeln!(out, "savings      {:.1} min per job", r.savings_per_job / 60.0)?;
            writeln!(
                out,
                "rebels       median saving {:.1} min, mean {:.1} min; {:.1}% lose",
                r.median_savings_per_rebel / 60.0,
                r.mean_savings_per_rebel / 60.0,
                100.0 * r.losing_rebel_fraction
            )?;
        }
        out.flush()?;
        return Ok(());
    }
    let t0 = Instant::now();
    let o = schedlab::malleable::simulate(&workload.jobs, workload.procs, &allocation)?;
    let simulated = t0.elapsed();
    exports.write(&o.pairs, &allocation.to_string())?;
    let mut out = io::stdout().lock();
    if json {
        let value = serde_json::json!({
            "workload": workload.name,
            "strategy": allocation.to_string(),
            "jobs": workload.jobs.len(),
            "mean_response": o.mean_response,
            "utilization": o.utilization,
            "utilization_while_waiting": o.utilization_while_waiting,
            "allocated_efficiency": o.allocated_efficiency,
            "rebels": o.rebels,
            "prediction_quality": o.quality,
        });
        serde_json::to_writer(&mut out, &value)?;
        writeln!(out)?;
    } else {
        writeln!(out, "workload     {}", workload.name)?;
        writeln!(out, "strategy     {allocation}")?;
        writeln!(out, "jobs         {}", workload.jobs.len())?;
        writeln!(out, "response     mean {:.1} s", o.mean_response)?;
        writeln!(
            out,
            "utilization  {:.4} (mean efficiency S(n)/n over processors and time); {:.4} while jobs wait; \
             {:.4} of allocated processor time",
            o.utilization, o.utilization_while_waiting, o.allocated_efficiency
        )?;
        writeln!(out, "rebels       {}", o.rebels)?;
        if let Some(q) = o.quality {
            writeln!(
                out,
                "predictions  {} rebel predictions against outcomes (log space): correlation {:.3}, slope {:.3}, intercept {:.3}",
                q.pairs, q.correlation, q.slope, q.intercept
            )?;
        }
        writeln!(
            out,
            "timing       simulate {:.1} ms",
            simulated.as_secs_f64() * 1e3
        )?;
    }
    out.flush()?;
    Ok(())
}

fn predict_queue_times(path: PathBuf, json: bool) -> Result<()> {
    let state = schedlab::queue_time::MachineState::read(&path)?;
    let rows = state.predict();
    let mut out = io::stdout().lock();
    if json {
        serde_json::to_writer(&mut out, &rows)?;
        writeln!(out)?;
    } else {
        let seconds = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.1}"));
        writeln!(
            out,
            "{:>6} {:>6} {:>11} {:>12} {:>12} {:>12} {:>12}",
            "n", "needed", "benefactors", "A", "B", "combined", "exact"
        )?;
        for r in &rows {
            writeln!(
                out,
                "{:>6} {:>6} {:>11} {:>12} {:>12} {:>12} {:>12}",
                r.n,
                r.needed,
                r.benefactors,
                seconds(r.a),
                seconds(r.b),
                seconds(r.combined),
                seconds(r.exact)
            )?;
        }
        writeln!(out, "queue times in seconds; '-': no benefactor (A) or never met")?;
    }
    out.flush()?;
    Ok(())
}

fn trace_info(path: PathBuf, read: ReadArgs, json: bool) -> Result<()> {
    let workload = schedlab::workload::swf::read_swf(&path, &read.swf_options())
        .with_context(|| format!("reading {}", path.display()))?;
    let info = TraceInfo::of(&workload);
    let mut out = io::stdout().lock();
    if json {
        serde_json::to_writer(&mut out, &info)?;
        writeln!(out)?;
    } else {
        writeln!(out, "trace          {}", info.name)?;
        writeln!(out, "jobs           {}", info.jobs)?;
        writeln!(
            out,
            "skipped        {}{}",
            info.jobs_skipped,
            skip_detail(&info.skipped)
        )?;
        if info.not_selected > 0 {
            writeln!(out, "not selected   {}", info.not_selected)?;
        }
        let header = |v: Option<u32>| v.map_or("-".to_string(), |p| p.to_string());
        writeln!(
            out,
            "machine        {} procs (header MaxProcs {}, MaxNodes {})",
            info.procs,
            header(info.max_procs_header),
            header(info.max_nodes_header)
        )?;
        writeln!(
            out,
            "span           {:.1} days of submits ({} s)",
            info.span_seconds as f64 / 86_400.0,
            info.span_seconds
        )?;
        writeln!(out, "offered load   {:.4}", info.offered_load)?;
        writeln!(out, "with estimate  {:.1}% of jobs", info.with_estimate * 100.0)?;
        writeln!(out, "users          {}", info.users)?;
        writeln!(out, "executables    {}", info.executables)?;
    }
    out.flush()?;
    Ok(())
}

fn sweep(args: SweepArgs) -> Result<()> {
    let plan = Plan::from_file(&args.spec)?;
    let mut out = io::stdout().lock();
    if args.list {
        let names: Vec<&str> = plan.axes.iter().map(|a| a.name.as_str()).collect();
        writeln!(out, "cell\t{}", names.join("\t"))?;
        for c in &plan.cells {
            let values: Vec<String> = c.values.iter().map(|v| v.to_string()).collect();
            writeln!(out, "{}\t{}", c.index, values.join("\t"))?;
        }
        return Ok(());
    }
    let reps = plan.replications.describe();
    let summary = format!(
        "sweep '{}': {} cells ({} in the full grid), {reps}",
        plan.name,
        plan.cells.len(),
        plan.grid_size
    );
    if args.dry_run {
        writeln!(out, "{summary}")?;
        writeln!(out, "spec valid (hash {})", plan.spec_hash)?;
        return Ok(());
    }
    if plan.cells.len() > plan.max_cells && !args.yes {
        return Err(schedlab::Error::Invalid(format!(
            "{} cells exceed max_cells = {}; pass --yes to run them anyway",
            plan.cells.len(),
            plan.max_cells
        ))
        .into());
    }
    let out_dir = args.out.clone().unwrap_or_else(|| {
        let base = PathBuf::from("results").join(&plan.name);
        match args.shard {
            Some(s) => base.join(format!("shard-{}-of-{}", s.index, s.count)),
            None => base,
        }
    });
    if !args.quiet {
        eprintln!("{summary} -> {}", out_dir.display());
    }
    let options = RunOptions {
        threads: args.threads,
        out: out_dir.clone(),
        shard: args.shard,
        resume: args.resume,
        quiet: args.quiet,
    };
    let report = run_sweep(&plan, &options)?;
    let secs = report.elapsed.as_secs_f64();
    writeln!(
        out,
        "{} cells, {} replications run ({} resumed) in {:.1} s: {:.0} replications/s, {:.0} simulated jobs/s",
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
