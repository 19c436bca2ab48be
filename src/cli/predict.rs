//! `schedlab predict`: Downey's queue-time predictions from a machine state in JSON.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::Result;

use schedlab::queue_time::{MachineState, write_prediction_table};

#[derive(clap::Args)]
pub struct PredictArgs {
    /// The machine state (JSON).
    state: PathBuf,
    /// Print one JSON array instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: PredictArgs) -> Result<()> {
    let rows = MachineState::read(&args.state)?.predict();
    let mut out = io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut out, &rows)?;
        writeln!(out)?;
    } else {
        write_prediction_table(&mut out, &rows)?;
    }
    out.flush()?;
    Ok(())
}
