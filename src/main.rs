//! Entry point: parse arguments, run the command, map the outcome to an exit
//! status in one place (0 ok, 1 a check failed, 2 an error).

use std::process::ExitCode;

use clap::Parser;
use research_companion::cli::Cli;
use research_companion::error::{EXIT_ERROR, EXIT_OK, Error};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match research_companion::commands::run(cli) {
        Ok(code) => ExitCode::from(code),
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(EXIT_OK)
        }
        Err(err) => {
            eprintln!("research_companion: error: {err}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}
