//! The chapters, their snapshots and claims: `fingerprint`, `chapters`,
//! `chapter`, `snapshot`, `claims`, `verify`, `fetch`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::formats::{ListFormat, http_url, ranged, title_text};

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
    /// Register a chapter: its folder, chapter.yaml, the first snapshot and
    /// a claims.yaml skeleton listing the tables the text publishes
    New(Box<NewChapterArgs>),
    /// Move an old chapter.yaml's snapshot list into snapshots.yaml, once
    /// (every other line and comment of chapter.yaml stays)
    Migrate {
        /// Stable id, book-id/chapter-id, or a chapter id only one book uses
        id: String,
    },
}

#[derive(Debug, Args)]
pub struct NewChapterArgs {
    /// The chapter to create, as book-id/chapter-id (e.g. my-book/07)
    #[arg(value_name = "BOOK/CHAPTER")]
    pub key: String,
    /// The chapter's text (an excerpt unless --complete), stored byte for byte
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The chapter's title
    #[arg(long, value_parser = title_text)]
    pub title: String,
    /// The chapter's number [default: the digits of its id]
    #[arg(long)]
    pub number: Option<u32>,
    /// The book's title, needed for a book's first chapter
    #[arg(long, value_name = "TITLE", value_parser = title_text)]
    pub book_title: Option<String>,
    /// The site's stable id [default: BOOK-CHAPTER-chapter]
    #[arg(long)]
    pub stable_id: Option<String>,
    /// The chapter's public page
    #[arg(long, value_name = "URL", value_parser = http_url)]
    pub url: Option<String>,
    /// The chapter's research page
    #[arg(long, value_name = "URL", value_parser = http_url)]
    pub research_pack_url: Option<String>,
    /// Where `fetch` gets the chapter's text
    #[arg(long, value_name = "URL", value_parser = http_url)]
    pub snapshot_url: Option<String>,
    /// The prose fingerprint the book publishes (64 hex digits)
    #[arg(long, value_name = "HEX")]
    pub published_fingerprint: Option<String>,
    /// What research on this chapter should decide
    #[arg(long, value_name = "TEXT")]
    pub objective: Option<String>,
    /// FILE is the complete chapter rather than an excerpt
    #[arg(long)]
    pub complete: bool,
    /// The chapter's notebook (a file or a URL): named in chapter.yaml and
    /// stored as its first notebook snapshot
    #[arg(long, value_name = "FILE|URL")]
    pub notebook: Option<String>,
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
    /// What changed in the prose between two snapshots, word by word, and
    /// which claims' sentences the change touched
    Diff {
        /// Stable id, book-id/chapter-id, or a chapter id only one book uses
        id: String,
        /// The older snapshot: a fingerprint, a prefix of one, or a snapshot
        /// file [default: the one before the current]
        from: Option<String>,
        /// The newer snapshot [default: the current]
        to: Option<String>,
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
}

#[derive(Debug, Subcommand)]
pub enum ClaimsCommand {
    /// List the sentences that state numbers no claim quotes, the claims
    /// whose quote is gone, and the metrics that fail (exit 1 if any)
    Check {
        /// Stable id, book-id/chapter-id, or a chapter id only one book uses
        id: String,
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Chapters to verify [default: all]
    pub ids: Vec<String>,
    /// Also fail when a current snapshot cannot be matched with the published fingerprint (it is an excerpt, or none is published); one that DIFFERS from it fails without --strict too
    #[arg(long)]
    pub strict: bool,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

/// Longest time a fetch may be given, in seconds (an hour).
pub const MAX_FETCH_SECONDS: f64 = 3600.0;

/// Largest body a fetch may be allowed, in bytes (1 GiB).
pub const MAX_FETCH_BYTES: u64 = 1 << 30;

/// A number of seconds above 0 and at most an hour.
pub(super) fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() || v <= 0.0 || v > MAX_FETCH_SECONDS {
        return Err(format!(
            "must be a number of seconds above 0 and at most {MAX_FETCH_SECONDS}, got {s}"
        ));
    }
    Ok(v)
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    pub chapter: String,
    /// Fetch from URL instead of the chapter's snapshot URL
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Seconds to wait for the connection
    #[arg(long, value_name = "SECS", default_value_t = 10.0, allow_negative_numbers = true, value_parser = seconds)]
    pub connect_timeout: f64,
    /// Seconds the whole request may take, body included
    #[arg(long, value_name = "SECS", default_value_t = 60.0, allow_negative_numbers = true, value_parser = seconds)]
    pub timeout: f64,
    /// Largest body accepted, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = crate::fetch::DEFAULT_MAX_BYTES, value_parser = ranged::<u64>(1, MAX_FETCH_BYTES))]
    pub max_bytes: u64,
    /// Follow redirects to another scheme, host or port [default: only
    /// within the origin of the URL asked for, unless chapter.yaml says
    /// `snapshot_redirects: anywhere`]
    #[arg(long)]
    pub follow_redirects_anywhere: bool,
}
