//! The one error type, the outcome a command reports when it ran, and the
//! exit codes both map to (decided in `main.rs` and nowhere else).
//!
//! Each error variant carries the path, field or value it is about, so the
//! message a user sees names what to fix in one line. Typed variants
//! ([`Error::Settings`], [`Error::NoChapters`], ...) let the command line add
//! the flag that fixes them; the core never names a flag.

use std::path::{Path, PathBuf};

use std::fmt;

use crate::ids::IdError;

/// Exit status: everything checked out.
pub const EXIT_OK: u8 = 0;
/// Exit status: the command ran, and what it checked failed (altered snapshot,
/// claim not reproduced, unreadable record).
pub const EXIT_CHECK_FAILED: u8 = 1;
/// Exit status: bad input or an operational error; nothing was changed.
pub const EXIT_ERROR: u8 = 2;
/// Exit status after Ctrl-C, as shells report SIGINT.
pub const EXIT_INTERRUPTED: u8 = 130;

/// What a command that ran to its end concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Everything checked out.
    Ok,
    /// The command ran and a check failed (its output says which); the
    /// problems listed here are reported on standard error.
    CheckFailed(Vec<String>),
    /// The command went on past errors (one broken chapter among good ones)
    /// and reports them on standard error.
    Errors(Vec<String>),
}

impl Outcome {
    /// Ok, or a failed check with no further problems to report.
    pub fn check(passed: bool) -> Self {
        if passed {
            Outcome::Ok
        } else {
            Outcome::CheckFailed(Vec::new())
        }
    }

    /// Ok when there are no problems, else a failed check reporting them.
    pub fn unless(problems: Vec<String>) -> Self {
        if problems.is_empty() {
            Outcome::Ok
        } else {
            Outcome::CheckFailed(problems)
        }
    }

    /// The exit status.
    pub fn code(&self) -> u8 {
        match self {
            Outcome::Ok => EXIT_OK,
            Outcome::CheckFailed(_) => EXIT_CHECK_FAILED,
            Outcome::Errors(_) => EXIT_ERROR,
        }
    }

    /// The problems to report.
    pub fn problems(&self) -> &[String] {
        match self {
            Outcome::Ok => &[],
            Outcome::CheckFailed(p) | Outcome::Errors(p) => p,
        }
    }
}

/// A knob of the benchmark's settings, for errors that name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::Display)]
#[strum(serialize_all = "snake_case")]
pub enum Knob {
    Producers,
    CostMs,
    BatchSize,
    ConsumerMs,
    ReceiveMs,
    SendMs,
    SwitchIntervalMs,
    Workers,
    Batches,
    WarmupBatches,
    Repeat,
    PrefetchFactor,
    Cpus,
    SampleFloats,
    TimerSlackNs,
}

/// A knob whose value cannot run. `problem` reads on from the knob's name:
/// "must be at least 1, got 0".
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{knob} {problem}")]
pub struct SettingsError {
    pub knob: Knob,
    pub problem: String,
}

impl SettingsError {
    /// The error for `knob`; `problem` reads on from its name.
    pub fn new(knob: Knob, problem: impl fmt::Display) -> Self {
        SettingsError {
            knob,
            problem: problem.to_string(),
        }
    }
}

/// Errors a user can act on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: invalid UTF-8 at byte offset {offset}")]
    InvalidUtf8 { path: PathBuf, offset: u64 },
    #[error("{path}: {message}")]
    Yaml { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("unknown chapter '{id}'{}", suggestion.as_ref().map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default())]
    UnknownChapter {
        id: String,
        suggestion: Option<String>,
    },
    #[error("{id} is ambiguous: {}", candidates.join(", "))]
    AmbiguousChapter { id: String, candidates: Vec<String> },
    /// No chapter is registered under the project root.
    #[error("no chapters under {}: run inside a project that has book-snapshots/", dir.display())]
    NoChapters { dir: PathBuf },
    /// A command that works on one chapter was not told which of several.
    #[error("several chapters are registered ({})", candidates.join(", "))]
    SeveralChapters { candidates: Vec<String> },
    #[error(transparent)]
    Id(#[from] IdError),
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// A research report that is still a draft.
    #[error("{}: still a draft: {reasons}", path.display())]
    Draft { path: PathBuf, reasons: String },
    /// Something larger than the limit set for it.
    #[error("{what} is larger than the {limit}-byte limit")]
    TooLarge { what: String, limit: u64 },
    #[error("{path}: already exists; refusing to overwrite it")]
    WouldOverwrite { path: PathBuf },
    #[error("{0}")]
    Usage(String),
    #[error("interrupted; workers stopped, nothing written")]
    Interrupted,
    #[error("{0}")]
    Other(String),
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// A value in a file that breaks a rule.
    pub fn invalid(path: impl AsRef<Path>, message: impl Into<String>) -> Self {
        Error::Invalid {
            path: path.as_ref().to_path_buf(),
            message: message.into(),
        }
    }

    /// Whether this is standard output closing under us (`| head`).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
