//! `schedlab run`: one rigid simulation of a trace or a model, its summary, and optionally
//! the per-job CSV and the schedule as SWF.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use clap::Args;

use super::trace::ResampleArgs;
use super::utility::UtilityArgs;
use super::{ReadArgs, parse_key_value};
use schedlab::atomic::write_atomically;
use schedlab::energy::PowerOverTime;
use schedlab::experiment::rigid::{self, Rigid, Source};
use schedlab::experiment::{Shared, Sources, Value, Worker, check_size};
use schedlab::metrics::timeline::{self, Bin, binned, write_timeline_csv};
use schedlab::metrics::write_jobs_csv;
use schedlab::params::ParamError;
use schedlab::predict::PredictorKind;
use schedlab::report::gantt;
use schedlab::report::plot::{self, Figure, Format, Legend, Point, Series};
use schedlab::sched::SchedulerKind;
use schedlab::sim::Engine;
use schedlab::workload::swf::write_swf;
use schedlab::workload::synth::MODEL_NAMES;

#[derive(Args)]
#[command(group(clap::ArgGroup::new("workload").required(true).args(["trace", "model"])))]
pub struct RunArgs {
    /// Trace to replay: SWF (.swf, .swf.gz), a Batsim workload (JSON) or Slurm accounting (sacct --parsable2).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Built-in synthetic workload model.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(MODEL_NAMES))]
    model: Option<String>,
    /// Model parameter KEY=VALUE (repeatable), e.g. --param load=0.9 --param days=60.
    #[arg(long = "param", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    params: Vec<(String, String)>,
    #[command(flatten)]
    read: ReadArgs,
    /// The machine of partitions the jobs run on, a TOML description (docs/semantics.md, "The
    /// machine"); each partition is a pool of its own with its own queue. A trace's job runs
    /// in the partition its SWF partition number (field 16) names; a model's jobs run in the
    /// default partition, whose cores are the model's size.
    #[arg(long, value_name = "FILE.toml", conflicts_with = "procs")]
    machine: Option<PathBuf>,
    /// Jobs recording no GPUs, on a machine with GPUs: the share of jobs drawn as GPU jobs
    /// (each with probability SHARE, per --seed), asking GPUs in their partition's ratio of
    /// cores to GPUs (docs/semantics.md, "The machine").
    #[arg(long, value_name = "SHARE", requires = "machine")]
    gpu_share: Option<f64>,
    /// With --gpu-share: cores per GPU of a GPU job, instead of its partition's GPU nodes'
    /// ratio.
    #[arg(long, value_name = "CORES", requires = "gpu_share")]
    cores_per_gpu: Option<i64>,
    /// Jobs recording no memory, on a machine whose nodes describe memory: draw each job's
    /// memory per processor (per --seed), log-normal with median PRESSURE times its
    /// partition's memory per core (docs/semantics.md, "The machine").
    #[arg(long, value_name = "PRESSURE", requires = "machine")]
    memory_pressure: Option<f64>,
    /// With --memory-pressure: the standard deviation of the log of memory per processor
    /// (1.16, LANL-CM5's requests, when not given).
    #[arg(long, value_name = "SIGMA", requires = "memory_pressure")]
    memory_sigma: Option<f64>,
    /// On a machine with a power model: cap every partition at FRACTION of its peak
    /// power (all its nodes busy); a job starts only if the power with it stays under the
    /// cap (docs/semantics.md, "Energy").
    #[arg(long, value_name = "FRACTION", requires = "machine")]
    power_cap: Option<f64>,
    /// On a machine with a power model: a cap that changes over time (CSV: a header, then
    /// time,fraction rows, the workload's clock; .gz too), each fraction of every
    /// partition's peak holding until the next row; a job starts only if the power with it
    /// stays under the cap until its predicted end (docs/semantics.md, "Energy").
    #[arg(long, value_name = "FILE", requires = "machine", conflicts_with = "power_cap")]
    power_cap_series: Option<PathBuf>,
    /// With --power-cap-series: repeat its rows every SECONDS from its first row (86400: a
    /// day).
    #[arg(long, value_name = "SECONDS", requires = "power_cap_series")]
    power_cap_period: Option<i64>,
    /// With --power-cap-series: seconds added to the workload's clock to read it.
    #[arg(
        long,
        value_name = "SECONDS",
        requires = "power_cap_series",
        allow_hyphen_values = true
    )]
    power_cap_offset: Option<i64>,
    /// On a machine whose nodes describe their switching: switch a node off once it
    /// has been idle SECONDS, and boot it when a job needs it (docs/semantics.md, "Power
    /// states").
    #[arg(long, value_name = "SECONDS", requires = "machine")]
    switch_off_after: Option<i64>,
    /// With --switch-off-after: keep at least NODES nodes of every partition on.
    #[arg(long, value_name = "NODES", requires = "switch_off_after")]
    keep_on: Option<i64>,
    /// Traces, on a machine with a power model: a carbon-intensity series (CSV: a header,
    /// then time,gco2_per_kwh rows; .gz too) for the run's carbon (docs/semantics.md,
    /// "Energy").
    #[arg(long, value_name = "FILE.csv", requires = "machine")]
    carbon: Option<PathBuf>,
    /// With --carbon: seconds added to the trace's clock to read the series.
    #[arg(long, value_name = "SECONDS", requires = "carbon", allow_hyphen_values = true)]
    carbon_offset: Option<i64>,
    /// With --carbon: repeat the series every SECONDS from its first row (86400: a day).
    #[arg(long, value_name = "SECONDS", requires = "carbon")]
    carbon_period: Option<i64>,
    /// With --carbon: hold each job back while the intensity is above G g/kWh, for at most
    /// --carbon-slack seconds (docs/semantics.md, "Energy").
    #[arg(long, value_name = "G", requires_all = ["carbon", "carbon_slack"])]
    carbon_hold: Option<f64>,
    /// With --carbon-hold: the most seconds a job is held.
    #[arg(long, value_name = "SECONDS", requires = "carbon_hold")]
    carbon_slack: Option<i64>,
    /// Traces: scale inter-arrival times so that the offered load is this (as in sweeps).
    #[arg(long, conflicts_with = "load_scale")]
    load: Option<f64>,
    /// Traces: multiply inter-arrival times by this.
    #[arg(long)]
    load_scale: Option<f64>,
    #[command(flatten)]
    resample: ResampleArgs,
    /// Traces: user estimates as logged, or from Tsafrir's model drawn with the seed
    /// (models take --param estimates=tsafrir).
    #[arg(long, value_parser = ["logged", "tsafrir"])]
    estimates: Option<String>,
    /// Traces, with --estimates tsafrir: the largest estimate, seconds [default: the
    /// longest runtime rounded up to an hour].
    #[arg(long, requires = "estimates")]
    max_estimate: Option<u64>,
    #[arg(
        long,
        value_parser = |s: &str| s.parse::<SchedulerKind>(),
        help = format!("Scheduling policy: {} (--help lists what each does)", SchedulerKind::NAMES.join(", ")),
        long_help = format!("Scheduling policy, one of:\n{}", SchedulerKind::help())
    )]
    scheduler: SchedulerKind,
    #[arg(
        long,
        value_name = "SPEC",
        help = format!(
            "Runtime predictor for {}: {} (--help lists what each does)",
            SchedulerKind::predicting().join(", "),
            PredictorKind::names().iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        ),
        long_help = format!(
            "Runtime predictor for {}, one of:\n{}",
            SchedulerKind::predicting().join(", "),
            PredictorKind::help()
        )
    )]
    predictor: Option<String>,
    /// Seed of the synthetic model, the trace's resampling, the utility generator and the GA.
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
    /// Write one row per job in Batsim's `_jobs.csv` format, for evalys and Batsim's tools:
    /// times, and the processors each job held as an interval set, named as --gantt-out
    /// names them (docs/semantics.md, "Batsim's formats").
    #[arg(long, value_name = "FILE.csv")]
    batsim_jobs_out: Option<PathBuf>,
    /// Write the machine over time as CSV (time, utilization, busy_procs, running, queued:
    /// a row per instant where one changes), and beside it two figures: FILE_utilization.svg
    /// and FILE_jobs.svg (running and queued jobs), in 400 time-weighted bins.
    #[arg(long, value_name = "FILE.csv")]
    timeline_out: Option<PathBuf>,
    /// Draw the schedule within --window as SVG: each job a box over the processors it held
    /// (numbered by the picture: lowest free first), coloured by user.
    #[arg(long, value_name = "FILE.svg", requires = "window")]
    gantt_out: Option<PathBuf>,
    /// With --gantt-out: the window of simulated time, seconds, A..B (e.g. 86400..172800).
    #[arg(long, value_name = "A..B", value_parser = parse_window, requires = "gantt_out")]
    window: Option<(i64, i64)>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
    /// Check the simulator's invariants after every pass (slower; always on in debug builds).
    #[arg(long)]
    validate: bool,
    /// Run even if a replication would generate more than 20 million jobs.
    #[arg(long)]
    yes: bool,
}

/// The experiment the arguments describe, validated as a sweep cell would be.
fn experiment(args: &RunArgs) -> Result<Rigid> {
    let read = &args.read;
    if args.model.is_some() {
        usage!(
            read.jobs.is_none() && read.first.is_none() && !read.lenient,
            "--jobs, --first and --lenient apply to --trace"
        );
        usage!(
            args.load.is_none() && args.load_scale.is_none(),
            "--load and --load-scale apply to --trace; give a model its load with --param load=X"
        );
        usage!(args.resample.method.is_none(), "--resample applies to --trace");
        usage!(args.carbon.is_none(), "--carbon applies to --trace");
        usage!(
            args.estimates.is_none(),
            "--estimates applies to --trace; give a model its estimates with --param estimates=tsafrir"
        );
    } else {
        usage!(args.params.is_empty(), "--param applies to --model, not --trace");
    }
    let mut flags = vec![
        (
            "trace",
            args.trace.as_ref().map(|p| Value::Str(p.display().to_string())),
        ),
        ("model", args.model.clone().map(Value::Str)),
        (
            "machine",
            args.machine.as_ref().map(|p| Value::Str(p.display().to_string())),
        ),
        (
            "carbon",
            args.carbon.as_ref().map(|p| Value::Str(p.display().to_string())),
        ),
        ("carbon_offset", args.carbon_offset.map(Value::Int)),
        ("carbon_period", args.carbon_period.map(Value::Int)),
        ("carbon_hold", args.carbon_hold.map(Value::Float)),
        ("carbon_slack", args.carbon_slack.map(Value::Int)),
        ("power_cap", args.power_cap.map(Value::Float)),
        (
            "power_cap_series",
            args.power_cap_series
                .as_ref()
                .map(|p| Value::Str(p.display().to_string())),
        ),
        ("power_cap_period", args.power_cap_period.map(Value::Int)),
        ("power_cap_offset", args.power_cap_offset.map(Value::Int)),
        ("switch_off_after", args.switch_off_after.map(Value::Int)),
        ("keep_on", args.keep_on.map(Value::Int)),
        ("gpu_share", args.gpu_share.map(Value::Float)),
        ("cores_per_gpu", args.cores_per_gpu.map(Value::Int)),
        ("memory_pressure", args.memory_pressure.map(Value::Float)),
        ("memory_sigma", args.memory_sigma.map(Value::Float)),
        ("load", args.load.map(Value::Float)),
        ("load_scale", args.load_scale.map(Value::Float)),
        ("estimates", args.estimates.clone().map(Value::Str)),
        (
            "max_estimate",
            args.max_estimate
                .map(|m| Value::Int(m.min(i64::MAX as u64) as i64)),
        ),
        ("scheduler", Some(Value::Str(args.scheduler.to_string()))),
        ("predictor", args.predictor.clone().map(Value::Str)),
        (
            "exact_estimates",
            args.exact_estimates.then_some(Value::Bool(true)),
        ),
    ];
    flags.extend(args.utility.flags());
    flags.extend(read.flags());
    flags.extend(args.resample.flags());
    let params = super::params(&args.params, flags)?;
    let mut rigid = rigid::from_params(&params, Sources::default(), None).map_err(schedlab::Error::from)?;
    if let (Source::Trace(t), Some(path)) = (&mut rigid.workload.source, &args.trace) {
        // The path as given, whatever its bytes.
        t.path = path.clone();
    }
    Ok(rigid)
}

/// The files a run writes beside its summary: per-job CSV, Batsim's jobs, SWF, the
/// timeline and its figures, the Gantt chart.
fn write_outputs(
    args: &RunArgs,
    rigid: &Rigid,
    prepared: &schedlab::experiment::prepare::PreparedRigid,
    workload: &schedlab::workload::Workload,
    outcome: &schedlab::sim::Outcome,
) -> Result<()> {
    // Each job's energy and carbon, for the files that carry them, computed once.
    let costs = (args.jobs_out.is_some() || args.batsim_jobs_out.is_some())
        .then(|| prepared.job_costs(&workload.jobs, outcome.start, outcome.end))
        .flatten();
    if let Some(path) = &args.jobs_out {
        write_atomically(path, |w| {
            write_jobs_csv(w, &workload.jobs, outcome, costs.as_ref())
        })?;
    }
    if let Some(path) = &args.batsim_jobs_out {
        if outcome.saturated || outcome.end.contains(&i64::MIN) {
            return Err(schedlab::Error::Invalid(
                "--batsim-jobs-out: some jobs never ended, and Batsim's format has no row for them".into(),
            )
            .into());
        }
        write_atomically(path, |w| {
            schedlab::report::batsim::write_jobs(
                w,
                &workload.name,
                &workload.jobs,
                workload.procs,
                (outcome.start, outcome.end),
                costs.as_ref().map(|c| c.joules.as_slice()),
            )
        })?;
    }
    if let Some(path) = &args.swf_out {
        let note = format!("scheduler {}", rigid.scheduler);
        write_atomically(path, |w| write_swf(w, workload, outcome.start, &note))?;
    }
    let what = format!("{}, {}", workload.name, rigid.scheduler);
    if let Some(path) = &args.timeline_out {
        let power = prepared.power_over_time(&workload.jobs, outcome);
        write_timeline(path, &what, workload, outcome, power)?;
    }
    if let (Some(path), Some(window)) = (&args.gantt_out, args.window) {
        let boxes = gantt::boxes(&workload.jobs, workload.procs, outcome.start, outcome.end, window)
            .map_err(|e| schedlab::Error::Invalid(e.to_string()))?;
        let title = format!(
            "{what}: schedule from {} s to {} s, {} jobs",
            window.0,
            window.1,
            {
                let mut jobs: Vec<usize> = boxes.iter().map(|b| b.job).collect();
                jobs.dedup();
                jobs.len()
            }
        );
        gantt::write_gantt_svg(path, &title, &workload.jobs, workload.procs, &boxes, window)?;
    }
    Ok(())
}

/// `A..B`, whole seconds with A < B.
fn parse_window(s: &str) -> std::result::Result<(i64, i64), ParamError> {
    let bad = || ParamError::BadValue {
        key: "window".into(),
        value: s.into(),
        expected: "A..B in seconds with A < B, e.g. 86400..172800".into(),
    };
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let (a, b): (i64, i64) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if a >= b {
        return Err(bad());
    }
    Ok((a, b))
}

/// The timeline as CSV at `path`, and its figures beside it: utilisation, jobs, and on a
/// machine with a power model its power (`power`, watts over time), with the cap where
/// every partition has one.
fn write_timeline(
    path: &Path,
    what: &str,
    workload: &schedlab::workload::Workload,
    outcome: &schedlab::sim::Outcome,
    power: Option<PowerOverTime>,
) -> Result<()> {
    let steps = timeline::timeline(&workload.jobs, outcome.start, outcome.end);
    let watts = power.as_ref().map(|p| p.steps.as_slice());
    write_atomically(path, |w| write_timeline_csv(w, &steps, workload.procs, watts))?;
    let bins = binned(&steps, 400);
    let stem = path.with_extension("");
    let figure = |title: String, y_label: &str, series: Vec<Series>| Figure {
        title: Some(title),
        x_label: "Time (days since the workload's start)".into(),
        y_label: y_label.into(),
        categories: None,
        log_x: false,
        log_y: false,
        legend: Legend::Right,
        legend_title: None,
        size: (900, 450),
        markers: false,
        series,
    };
    let series = |label: Option<&str>, style: usize, value: &dyn Fn(&Bin) -> f64| Series {
        label: label.map(str::to_string),
        style,
        points: bins
            .iter()
            .map(|b| {
                let y = value(b);
                Point {
                    x: b.time / 86_400.0,
                    mean: y,
                    low: y,
                    high: y,
                }
            })
            .collect(),
    };
    let procs = workload.procs as f64;
    plot::write(
        &PathBuf::from(format!("{}_utilization.svg", stem.display())),
        &figure(
            format!("{what}: utilisation"),
            "Utilisation (%)",
            vec![series(None, 0, &|b| 100.0 * b.busy / procs)],
        ),
        Format::Svg,
    )?;
    plot::write(
        &PathBuf::from(format!("{}_jobs.svg", stem.display())),
        &figure(
            format!("{what}: jobs running and queued"),
            "Jobs",
            vec![
                series(Some("running"), 0, &|b| b.running),
                series(Some("queued"), 1, &|b| b.queued),
            ],
        ),
        Format::Svg,
    )?;
    if let Some(PowerOverTime { steps: watts, cap }) = &power {
        let kw = |points: Vec<(f64, f64)>| -> Vec<Point> {
            points
                .into_iter()
                .map(|(t, w)| Point {
                    x: t / 86_400.0,
                    mean: w / 1e3,
                    low: w / 1e3,
                    high: w / 1e3,
                })
                .collect()
        };
        let drawn = kw(timeline::binned_values(watts, 400));
        let mut lines = vec![Series {
            label: Some("power".into()),
            style: 0,
            points: drawn.clone(),
        }];
        if let (Some(&(last, _)), false) = (watts.last(), cap.is_empty()) {
            // The cap's mean over the same bins as the power's: steps closed at the power's
            // last instant, so that both span the run.
            let mut closed: Vec<(schedlab::Time, f64)> = cap.iter().copied().filter(|c| c.0 < last).collect();
            closed.push((last, schedlab::series::value_at(cap, last)));
            lines.push(Series {
                label: Some("cap".into()),
                style: 1,
                points: kw(timeline::binned_values(&closed, 400)),
            });
        }
        plot::write(
            &PathBuf::from(format!("{}_power.svg", stem.display())),
            &figure(
                format!("{what}: power (mean over each 1/400 of the span)"),
                "Power (kW)",
                lines,
            ),
            Format::Svg,
        )?;
    }
    Ok(())
}

pub fn run(args: RunArgs) -> Result<()> {
    let t0 = Instant::now();
    let rigid = experiment(&args)?;
    let outputs: Vec<(&str, &std::path::Path)> = [
        ("--jobs-out", &args.jobs_out),
        ("--swf-out", &args.swf_out),
        ("--batsim-jobs-out", &args.batsim_jobs_out),
        ("--timeline-out", &args.timeline_out),
        ("--gantt-out", &args.gantt_out),
    ]
    .into_iter()
    .filter_map(|(what, path)| Some((what, path.as_deref()?)))
    .collect();
    let inputs: Vec<(&str, &std::path::Path)> = match &rigid.workload.source {
        Source::Trace(t) => vec![("trace", t.path.as_path())],
        Source::Model(_) => vec![],
    };
    schedlab::atomic::check_outputs(&inputs, &outputs)?;
    if let Source::Model(m) = &rigid.workload.source {
        check_size(Some(m.expected_jobs()), args.yes).map_err(schedlab::Error::from)?;
    }
    // --swf-out writes every field back; without it a plain run keeps half the columns
    // (docs/performance.md, memory per job).
    let mut shared = Shared::new([&rigid.workload], args.swf_out.is_some());
    let prepared = rigid.prepare(&mut shared, None)?;
    for warning in prepared.workload.warnings() {
        eprintln!("schedlab: warning: {warning}");
    }
    if let (Some(target), Some(trace)) = (args.load, prepared.workload.trace())
        && target >= 1.0
    {
        eprintln!(
            "schedlab: warning: --load {target}: an offered load of at least 1 grows the queue without bound \
             (the trace offers {:.3})",
            trace.info.offered_load
        );
    }
    let busy = super::busy::Busy::start("simulating");
    let workload = prepared.workload.draw_some(args.seed)?;
    let loaded = t0.elapsed();
    let mut worker = Worker::with_engine(
        Engine::new()
            .with_validation(args.validate || cfg!(debug_assertions))
            .with_prediction_history(args.jobs_out.is_some()),
    );
    let t1 = Instant::now();
    // On a rayon worker, so that the GA's parallel fitness evaluations fork there instead of
    // entering the pool from outside once per generation.
    let (outcome, ()) = rayon::join(|| prepared.simulate(&mut worker, &workload, args.seed), || ());
    let simulated = t1.elapsed();
    drop(busy);
    // Under feedback jobs arrive when their predecessors let them: report those times.
    let as_run;
    let workload: &schedlab::workload::Workload = match outcome.arrivals {
        Some(_) => {
            as_run = schedlab::workload::Workload {
                jobs: outcome.jobs_as_run(&workload.jobs).into_owned(),
                ..(*workload).clone()
            };
            &as_run
        }
        None => &workload,
    };
    if let Some(warning) = schedlab::metrics::saturation_warning(&workload.jobs, outcome.end) {
        eprintln!("schedlab: warning: {warning}");
    }
    let partitions = prepared.by_partition(workload, outcome.start, outcome.end);
    let all = 0..workload.jobs.len();
    let summary = prepared.summarise(&workload.jobs, workload.procs, &outcome, all, &workload.skipped);
    write_outputs(&args, &rigid, &prepared, workload, &outcome)?;
    let predictor = rigid.predictor.map_or("estimate".to_string(), |p| p.to_string());
    let mut out = io::stdout().lock();
    if args.json {
        let object = prepared.summary_json(workload, args.seed, &summary, &partitions);
        serde_json::to_writer(&mut out, &object)?;
        writeln!(out)?;
    } else {
        summary.write_text(
            &mut out,
            &workload.name,
            &rigid.scheduler.to_string(),
            workload.not_selected,
        )?;
        if rigid.predictor.is_some() {
            summary.write_prediction_text(&mut out, &predictor)?;
        }
        if let (Some(path), Some(machine)) = (&args.machine, rigid.workload.machine()) {
            writeln!(
                out,
                "machine      {}: {}",
                path.display(),
                machine_text(machine, &rigid.workload)
            )?;
        }
        for p in &partitions {
            p.write_text(&mut out)?;
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

/// What a run's machine is, and what is drawn for its jobs: "1 partition, 32 nodes, 256
/// cores, 1024 GB; memory per processor drawn at pressure 0.5 (sigma 1.16)".
fn machine_text(
    machine: &schedlab::machine::Machine,
    spec: &schedlab::experiment::rigid::WorkloadSpec,
) -> String {
    let partitions = machine.partitions.len();
    let nodes: u64 = machine
        .partitions
        .iter()
        .flat_map(|p| &p.nodes)
        .map(|g| g.count as u64)
        .sum();
    let mut text = format!(
        "{partitions} partition{}, {nodes} nodes, {} cores",
        if partitions == 1 { "" } else { "s" },
        machine.cores()
    );
    if let Some(kb) = machine.memory_kb() {
        text += &format!(", {} GB", kb / schedlab::machine::pool::KB_PER_GB);
    }
    if machine.gpus() > 0 {
        text += &format!(", {} GPUs", machine.gpus());
    }
    if let Some(m) = &spec.memory_pressure {
        text += &format!(
            "; memory per processor drawn at pressure {} (sigma {})",
            m.pressure, m.sigma
        );
    }
    if let Some(g) = &spec.gpu_share {
        text += &format!("; GPU jobs drawn at share {}", g.share);
    }
    text
}
