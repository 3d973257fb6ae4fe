//! The command-line layer's glue: one file per subcommand, each turning its
//! arguments into use-case calls (`app`) and their results into output.
//! This file only sends each parsed command to its file. No command file
//! imports another, nor this one: what several share lives in `output`
//! (which also holds the one table of which flag fixes a typed error,
//! `output::flags`).

mod bench;
mod chapters;
mod claims;
mod compare;
mod diff;
mod env;
mod fetch;
mod fingerprint;
mod history;
mod notebook;
mod prompt;
mod publish;
mod record;
mod report;
mod reproduce;
mod site;
mod snapshot;
mod status;
mod verify;

use crate::app::Project;
use crate::cli::{Cli, Command};
use crate::error::{Outcome, Result};
use crate::layout::Layout;
use crate::output::Out;

/// Runs the parsed command; returns what it concluded.
pub fn run(cli: Cli) -> Result<Outcome> {
    let layout = Layout::discover(cli.root);
    let project = || Project::open(layout.clone());
    let mut out = Out::default();
    let out = &mut out;
    let outcome = match cli.command {
        Command::Fingerprint(args) => fingerprint::run(out, args),
        Command::Env(args) => env::run(out, args),
        Command::Completions(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut buf = Vec::new();
            clap_complete::generate(args.shell, &mut cmd, "research_companion", &mut buf);
            out.bytes(&buf).map(|_| Outcome::Ok)
        }
        Command::Chapters(args) => chapters::list(out, &project()?, args),
        Command::Chapter(cmd) => chapters::show(out, &project()?, cmd),
        Command::Snapshot(cmd) => snapshot::run(out, &project()?, cmd),
        Command::Claims(cmd) => claims::run(out, &project()?, cmd),
        Command::Verify(args) => verify::run(out, &project()?, args),
        Command::Bench(args) => bench::run(out, &project()?, args),
        Command::Record(args) => record::run(out, &project()?, args),
        Command::History(args) => history::run(out, &project()?, args),
        Command::Status(args) => status::run(out, &project()?, args),
        Command::Publish(args) => publish::run(out, &project()?, args),
        Command::Diff(args) => diff::run(out, &project()?, args),
        Command::Compare(args) => compare::run(out, project, args),
        Command::Reproduce(args) => reproduce::run(out, &project()?, args),
        Command::Fetch(args) => fetch::run(out, &project()?, args),
        Command::Prompt(args) => prompt::run(out, &project()?, args),
        Command::Report(args) => report::run(out, &project()?, args),
        Command::Site(args) => site::run(&project()?, args),
        Command::Notebook(cmd) => notebook::run(out, &layout, cmd),
    }
    .map_err(crate::output::flags::name_common_flags)?;
    out.flush()?;
    Ok(outcome)
}
