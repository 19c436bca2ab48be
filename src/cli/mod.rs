//! Command-line front end (clap): one file per subcommand. Each turns its arguments into
//! the library's typed values (for simulations, the parameters of an
//! [`schedlab::experiment::Experiment`], validated exactly as a sweep cell's), calls the
//! library, and has the outcome write itself.

/// Refuses a command line whose flags do not go together: bad input, exit status 2 (an
/// `anyhow::ensure!` would exit 1, the status of a failure at run time).
macro_rules! usage {
    ($cond:expr, $($message:tt)+) => {
        if !$cond {
            return Err(schedlab::Error::Invalid(format!($($message)+)).into());
        }
    };
}

mod busy;
mod cluster;
mod compare;
mod malleable;
mod moldable;
mod predict;
mod run;
mod sweep;
mod trace;
mod utility;

use anyhow::Result;
use clap::{Parser, Subcommand};

use schedlab::experiment::{Params, Value};
use schedlab::workload::selection::JobRange;
use schedlab::workload::swf::SwfOptions;
use schedlab::workload::{Columns, Selection};

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
    Run(Box<run::RunArgs>),
    /// Inspect workload traces.
    #[command(subcommand)]
    Trace(trace::TraceCommand),
    /// Run a grid of experiments described by a TOML spec (see sweeps/).
    Sweep(sweep::SweepArgs),
    /// Predict queue times for a request from a machine state (Downey 1997: predictors A,
    /// B, combined and the exact median), read from a JSON file (see README).
    Predict(predict::PredictArgs),
    /// Schedule malleable jobs of the Downey model with an allocation strategy (Downey
    /// 1997: avg, opt, pred, bias, heur) and print response time, utilization and rebels.
    Malleable(malleable::MalleableArgs),
    /// Moldable jobs on a partitioned machine (Anastasiadis & Sevcik): one run of a
    /// partitioning policy on a workload wk1-wk4.
    Moldable(moldable::MoldableArgs),
    /// Parallel NAS jobs on a non-dedicated cluster whose nodes also serve local users
    /// (Hanzich et al.): FCFS or backfilling, Normal or Uniform node selection, MPL.
    Cluster(cluster::ClusterArgs),
    /// Utility functions (Lee & Snavely): augment a trace with synthetic ones.
    #[command(subcommand)]
    Utility(utility::UtilityCommand),
    /// Combine the outputs of sharded sweeps into the files a single run would write.
    Merge(sweep::MergeArgs),
    /// Compare two runs: their summaries (run --json) metric by metric, or their schedules
    /// (run --jobs-out) job by job.
    Compare(compare::CompareArgs),
}

pub fn run() -> Result<()> {
    match Cli::parse().command {
        Command::Run(args) => run::run(*args),
        Command::Trace(command) => trace::run(command),
        Command::Sweep(args) => sweep::run(args),
        Command::Predict(args) => predict::run(args),
        Command::Malleable(args) => malleable::run(args),
        Command::Moldable(args) => moldable::run(args),
        Command::Cluster(args) => cluster::run(args),
        Command::Utility(command) => utility::run(command),
        Command::Merge(args) => sweep::merge(args),
        Command::Compare(args) => compare::run(args),
    }
}

/// How to read a trace.
#[derive(clap::Args, Clone)]
struct ReadArgs {
    /// Machine size in processors (default: the header's MaxProcs, else MaxNodes).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(schedlab::workload::MAX_PROCS)))]
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

impl ReadArgs {
    /// The flags as run parameters.
    fn flags(&self) -> Vec<(&'static str, Option<Value>)> {
        vec![
            ("procs", self.procs.map(|p| Value::Int(p.into()))),
            ("jobs", self.jobs.as_ref().map(|r| Value::Str(r.to_string()))),
            ("first", self.first.map(|n| Value::Int(n as i64))),
            ("lenient", self.lenient.then_some(Value::Bool(true))),
        ]
    }

    fn swf_options(&self) -> SwfOptions {
        SwfOptions {
            procs: self.procs,
            selection: Selection {
                range: self.jobs.clone(),
                first: self.first,
            },
            lenient: self.lenient,
            columns: Columns::Every,
        }
    }
}

/// `KEY=VALUE` of `--param`.
fn parse_key_value(s: &str) -> Result<(String, String), schedlab::params::ParamError> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| schedlab::params::ParamError::BadValue {
            key: "param".into(),
            value: s.into(),
            expected: "KEY=VALUE".into(),
        })
}

/// A command-line value as a parameter value, typed as TOML would type it: an integer, a
/// number, true or false, or text.
fn value(text: &str) -> Value {
    if let Ok(i) = text.parse::<i64>() {
        Value::Int(i)
    } else if let Ok(x) = text.parse::<f64>() {
        Value::Float(x)
    } else if let Ok(b) = text.parse::<bool>() {
        Value::Bool(b)
    } else {
        Value::Str(text.to_string())
    }
}

/// Parameters from `--param KEY=VALUE` pairs and the named flags that were given.
fn params<'a>(
    pairs: &[(String, String)],
    flags: impl IntoIterator<Item = (&'a str, Option<Value>)>,
) -> Result<Params> {
    let mut params = Params::default();
    for (k, v) in pairs {
        usage!(!params.has(k), "--param {k} given twice");
        params.insert(k.clone(), value(v));
    }
    for (k, v) in flags {
        if let Some(v) = v {
            usage!(!params.has(k), "{k} given both as --param and as its own flag");
            params.insert(k, v);
        }
    }
    Ok(params)
}
