//! Entry point: parse arguments, run the command, and map what it concluded
//! to an exit status here and nowhere else (0 ok, 1 a check failed, 2 an
//! error, 130 Ctrl-C). Every error line has the same shape.

use std::process::ExitCode;

use research_companion::bench::pool::{WORKER_SUBCOMMAND, worker_main};
use research_companion::error::{EXIT_ERROR, EXIT_INTERRUPTED, Error};
use research_companion::text::escape::visible;

fn main() -> ExitCode {
    // A benchmark worker process: no argument parsing, no project lookup.
    // (args_os: an argument that is not UTF-8 is clap's to refuse, not a panic.)
    let mut args = std::env::args_os();
    if args.nth(1).is_some_and(|a| a == WORKER_SUBCOMMAND) {
        let spec = args
            .next()
            .and_then(|s| s.into_string().ok())
            .unwrap_or_default();
        return match worker_main(&spec) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("research_companion worker: {e}");
                ExitCode::from(EXIT_ERROR)
            }
        };
    }
    let cli = research_companion::cli::parse();
    match research_companion::commands::run(cli) {
        Ok(outcome) => {
            for problem in outcome.problems() {
                // A problem may quote a file (a title, a path): one line.
                eprintln!("research_companion: error: {}", visible(problem));
            }
            ExitCode::from(outcome.code())
        }
        Err(Error::Interrupted) => {
            eprintln!("research_companion: {}", Error::Interrupted);
            ExitCode::from(EXIT_INTERRUPTED)
        }
        Err(err) => {
            eprintln!("research_companion: error: {}", visible(&err.to_string()));
            ExitCode::from(EXIT_ERROR)
        }
    }
}
