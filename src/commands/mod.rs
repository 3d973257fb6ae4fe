//! Glue from the command line to the core: one file per subcommand.

mod bench;
mod chapters;
mod diff;
mod fetch;
mod fingerprint;
mod records;
mod render;
mod verify;

use crate::cli::{Cli, Command};
use crate::error::Result;
use crate::layout::Layout;
use crate::output::Out;

/// What every command gets: where the project lives and where to print.
pub struct Context {
    pub layout: Layout,
    pub out: Out,
}

/// Runs the parsed command; returns the exit status.
pub fn run(cli: Cli) -> Result<u8> {
    let mut ctx = Context {
        layout: Layout::discover(cli.root),
        out: Out::default(),
    };
    let code = match cli.command {
        Command::Fingerprint(args) => fingerprint::run(&mut ctx, args),
        Command::Chapters(args) => chapters::list(&mut ctx, args),
        Command::Chapter(cmd) => chapters::chapter(&mut ctx, cmd),
        Command::Snapshot(cmd) => chapters::snapshot(&mut ctx, cmd),
        Command::Verify(args) => verify::run(&mut ctx, args),
        Command::Bench(args) => bench::run(&mut ctx, args),
        Command::Env(args) => bench::env(&mut ctx, args),
        Command::Record(args) => records::record(&mut ctx, args),
        Command::History(args) => records::history(&mut ctx, args),
        Command::Status(args) => records::status(&mut ctx, args),
        Command::Publish(args) => records::publish(&mut ctx, args),
        Command::Diff(args) => diff::diff(&mut ctx, args),
        Command::Reproduce(args) => diff::reproduce(&mut ctx, args),
        Command::Fetch(args) => fetch::run(&mut ctx, args),
        Command::Prompt(args) => render::prompt(&mut ctx, args),
        Command::Report(args) => render::report(&mut ctx, args),
        Command::Completions(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut buf = Vec::new();
            clap_complete::generate(args.shell, &mut cmd, "research_companion", &mut buf);
            ctx.out.bytes(&buf).map(|_| 0)
        }
    }?;
    ctx.out.flush()?;
    Ok(code)
}
