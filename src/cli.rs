//! Command-line types only (clap derive), and the value enums that map onto
//! the core's own types; nothing below the command line knows about clap.
//! Commands turn these into the core's types before anything runs.
//!
//! One file under `cli/` per group of commands: `chapters` (the chapters,
//! their snapshots and claims, fetching), `bench` (running the engine),
//! `evidence` (a run against the chapter or another run: diff, compare,
//! reproduce), `records` (recording runs and what is made from them),
//! `notebook` (the chapter's notebook); and
//! `formats`, what several share. This file holds the parser itself, and
//! every type is reachable from here.

mod bench;
mod chapters;
mod evidence;
mod formats;
mod notebook;
mod records;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use bench::{
    BenchArgs, BenchFormat, Cpus, EngineArg, EnvArgs, ProducerArg, TransportArg, WorkerKindArg,
};
pub use chapters::{
    ChapterCommand, ChaptersArgs, ClaimsCommand, FetchArgs, FingerprintArgs, MAX_FETCH_BYTES,
    MAX_FETCH_SECONDS, NewChapterArgs, SnapshotCommand, VerifyArgs,
};
pub use evidence::{CompareArgs, DiffArgs, DiffFormat, ReproduceArgs, ReproduceEngineArg};
pub use formats::{BandArgs, DocFormat, ListFormat};
pub use notebook::{
    NotebookAddArgs, NotebookCheckArgs, NotebookCommand, NotebookReportArgs, NotebookRunArgs,
    ReportFormat,
};
pub use records::{
    HistoryArgs, PromptArgs, PublishArgs, RecordArgs, RecordCommand, ReportArgs, SiteArgs,
};

/// Parses the command line (exits with clap's usage error on bad arguments).
/// A usage error quotes the value it refuses: a URL in it is printed with
/// its credentials and secret parameters taken out, as every URL the tool
/// prints is.
pub fn parse() -> Cli {
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            let mut text = e.to_string();
            // A value clap quotes may be a URL no scanner can delimit (a
            // space in it): redacted whole.
            // and escaped, so a line break or an escape sequence in it can
            // neither split the line nor drive the terminal.
            if let Some(clap::error::ContextValue::String(value)) =
                e.get(clap::error::ContextKind::InvalidValue)
            {
                let shown = crate::text::redact::redact_url(value);
                text = text.replace(value.as_str(), &crate::text::escape::visible(&shown));
            }
            let text = crate::text::escape::visible(&one_line(&text)).into_owned();
            // Named as every other error of the tool is.
            eprintln!(
                "research_companion: {}",
                crate::text::redact::redact_urls_in(&text)
            );
            std::process::exit(e.exit_code());
        }
    }
}

/// A usage error of clap's, which spans several lines (the message, a list
/// of missing arguments, tips, the usage, a pointer to `--help`), as one
/// line: the message with its list, then its tips and the usage.
fn one_line(text: &str) -> String {
    let mut blocks = text.split("\n\n").map(str::trim).filter(|b| !b.is_empty());
    let mut message: Vec<&str> = blocks.next().unwrap_or("").lines().map(str::trim).collect();
    let head = if message.is_empty() {
        ""
    } else {
        message.remove(0)
    };
    let mut line = head.to_string();
    if !message.is_empty() {
        line.push(' ');
        line.push_str(&message.join(", "));
    }
    let mut tail = Vec::new();
    for block in blocks {
        for l in block.lines().map(str::trim) {
            if let Some(tip) = l.strip_prefix("tip: ") {
                tail.push(format!("tip: {tip}"));
            } else if let Some(usage) = l.strip_prefix("Usage: ") {
                tail.push(format!("usage: {usage}"));
            }
        }
    }
    tail.push("see --help".to_string());
    format!("{line} ({})", tail.join("; "))
}

/// Keep a technical book's chapter claims backed by evidence you can re-check.
#[derive(Debug, Parser)]
#[command(name = "research_companion", version, about, propagate_version = true)]
pub struct Cli {
    /// Project root holding book-snapshots/ and records/ [default: the nearest
    /// folder at or above the current one that has book-snapshots/]
    #[arg(
        long,
        global = true,
        env = "RESEARCH_COMPANION_ROOT",
        value_name = "DIR"
    )]
    pub root: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the prose-v1 SHA-256 of files (or standard input), like sha256sum
    Fingerprint(FingerprintArgs),
    /// List the registered chapters and the state of their current snapshot
    Chapters(ChaptersArgs),
    /// Show, register or migrate a chapter
    #[command(subcommand)]
    Chapter(ChapterCommand),
    /// Manage stored chapter snapshots
    #[command(subcommand)]
    Snapshot(SnapshotCommand),
    /// Check a chapter's claims.yaml against its current snapshot
    #[command(subcommand)]
    Claims(ClaimsCommand),
    /// Check stored snapshots against their fingerprints and the published one
    /// (exit 1 when a stored snapshot was altered, is missing or cannot be
    /// read, or a current one DIFFERS from the published fingerprint)
    Verify(VerifyArgs),
    /// Run the chapter's sleep/spin pipeline experiment and measure where the loop waits
    Bench(BenchArgs),
    /// Print the environment fingerprint recorded with every run
    Env(EnvArgs),
    /// Record a research run (a report) or an experiment run (a bench run file); `record retract` withdraws one
    Record(RecordArgs),
    /// List recorded runs, newest first, CURRENT or STALE against the chapter
    History(HistoryArgs),
    /// One line per chapter: CURRENT, STALE, NEVER_RESEARCHED or FAILED_LATEST, with its evidence
    Status(HistoryArgs),
    /// Write a chapter's research data in the book site's schema (--site: every chapter's, into the site's folder)
    Publish(PublishArgs),
    /// Compare a measured run with the chapter's published tables, claim by claim
    Diff(DiffArgs),
    /// Two measured runs side by side: every number beside its twin, with ratios
    Compare(CompareArgs),
    /// The main job: run the chapter's experiment, compare it, record it
    Reproduce(ReproduceArgs),
    /// Fetch the chapter's snapshot over HTTP and store it when it changed
    Fetch(FetchArgs),
    /// Render the research prompt for a chapter
    Prompt(PromptArgs),
    /// Render a review report draft with the seven required sections
    Report(ReportArgs),
    /// Write the whole book's evidence as a static HTML site
    Site(SiteArgs),
    /// The chapter's Jupyter notebook: store it, run it in fresh kernels, audit it, report on it
    #[command(subcommand)]
    Notebook(NotebookCommand),
    /// Print a shell completion script
    Completions(CompletionsArgs),
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to generate for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage_error(args: &[&str]) -> String {
        let argv = std::iter::once("research_companion").chain(args.iter().copied());
        one_line(&Cli::try_parse_from(argv).unwrap_err().to_string())
    }

    #[test]
    fn a_usage_error_is_one_line_with_its_list_tips_and_usage() {
        let missing = usage_error(&["snapshot", "add"]);
        assert_eq!(
            missing,
            "error: the following required arguments were not provided: <ID>, <FILE> \
             (usage: research_companion snapshot add <ID> <FILE>; see --help)"
        );
        let typo = usage_error(&["stauts"]);
        assert!(!typo.contains('\n'), "{typo}");
        assert!(
            typo.contains("unrecognized subcommand 'stauts'")
                && typo.contains("tip: a similar subcommand exists: 'status'"),
            "{typo}"
        );
        let range = usage_error(&["bench", "--rounds", "0"]);
        assert_eq!(
            range,
            "error: invalid value '0' for '--rounds <ROUNDS>': 0 is not in 1..=100 (see --help)"
        );
    }
}
