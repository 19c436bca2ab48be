//! `schedlab trace info`: what a trace holds.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Subcommand;

use super::ReadArgs;
use schedlab::workload::info::TraceInfo;
use schedlab::workload::swf::read_swf;

#[derive(Subcommand)]
pub enum TraceCommand {
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

pub fn run(command: TraceCommand) -> Result<()> {
    let TraceCommand::Info { path, read, json } = command;
    let workload =
        read_swf(&path, &read.swf_options()).with_context(|| format!("reading {}", path.display()))?;
    let info = TraceInfo::of(&workload);
    let mut out = io::stdout().lock();
    if json {
        serde_json::to_writer(&mut out, &info)?;
        writeln!(out)?;
    } else {
        info.write_text(&mut out)?;
        for warning in info.warnings() {
            writeln!(out, "warning        {warning}")?;
        }
    }
    out.flush()?;
    Ok(())
}
