//! Entry point: parse arguments, run the command, map the outcome to an exit
//! status in one place (0 ok, 1 a check failed, 2 an error).

use std::process::ExitCode;

use clap::Parser;
use research_companion::bench::pool::{WORKER_SUBCOMMAND, worker_main};
use research_companion::cli::Cli;
use research_companion::error::{EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, Error};

fn main() -> ExitCode {
    // A benchmark worker process: no argument parsing, no project lookup.
    let mut args = std::env::args();
    if args.nth(1).as_deref() == Some(WORKER_SUBCOMMAND) {
        let spec = args.next().unwrap_or_default();
        return match worker_main(&spec) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("research_companion worker: {e}");
                ExitCode::from(EXIT_ERROR)
            }
        };
    }
    let cli = Cli::parse();
    match research_companion::commands::run(cli) {
        Ok(code) => ExitCode::from(code),
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(EXIT_OK)
        }
        Err(Error::Interrupted) => {
            eprintln!("research_companion: {}", Error::Interrupted);
            ExitCode::from(EXIT_INTERRUPTED)
        }
        Err(err) => {
            eprintln!("research_companion: error: {err}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}
