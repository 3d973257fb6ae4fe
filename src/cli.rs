//! Command-line types only (clap derive). Commands turn these into the core's
//! own types before anything runs.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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
    /// Show one chapter's manifest
    #[command(subcommand)]
    Chapter(ChapterCommand),
    /// Manage stored chapter snapshots
    #[command(subcommand)]
    Snapshot(SnapshotCommand),
    /// Check stored snapshots against their fingerprints and the published one
    Verify(VerifyArgs),
    /// Print a shell completion script
    Completions(CompletionsArgs),
}

#[derive(Debug, Args)]
pub struct FingerprintArgs {
    /// Files to fingerprint; `-` or nothing reads standard input
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Hash the bytes as they are, without normalizing (same as sha256sum)
    #[arg(long, conflicts_with = "show_normalized")]
    pub raw: bool,
    /// Print the normalized text instead of its fingerprint
    #[arg(long)]
    pub show_normalized: bool,
}

/// Output format for listings and checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Text,
    Json,
    Yaml,
}

#[derive(Debug, Args)]
pub struct ChaptersArgs {
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

#[derive(Debug, Subcommand)]
pub enum ChapterCommand {
    /// Everything chapter.yaml says about a chapter, readable
    Show {
        /// Stable id, book-id/chapter-id, or a chapter id only one book uses
        id: String,
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
}

#[derive(Debug, Subcommand)]
pub enum SnapshotCommand {
    /// Store a new snapshot of a chapter's text and make it current
    Add {
        /// Stable id, book-id/chapter-id, or a chapter id only one book uses
        id: String,
        /// The text file to store (kept byte for byte)
        file: PathBuf,
        /// Where the text came from [default: the file's path]
        #[arg(long, value_name = "URL")]
        source: Option<String>,
        /// The file is the complete chapter rather than an excerpt
        #[arg(long)]
        complete: bool,
    },
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Chapters to verify [default: all]
    pub ids: Vec<String>,
    /// Also fail when the current snapshot differs from the published fingerprint
    #[arg(long)]
    pub strict: bool,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to generate for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
