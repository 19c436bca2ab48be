//! The `schedlab` binary: parse the command line, call the library, map errors to exit codes.

mod cli;

use std::process::ExitCode;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match cli::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (`schedlab ... | head`) is how the reader says it has enough.
            let broken_pipe = err.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            eprintln!("schedlab: {err:#}");
            // Library errors come from the user's input (files, parameters); anything else
            // (writing outputs) is a runtime failure.
            let bad_input = err.chain().any(|c| {
                c.downcast_ref::<schedlab::Error>()
                    .is_some_and(|e| e.is_bad_input())
            });
            ExitCode::from(if bad_input { 2 } else { 1 })
        }
    }
}
