//! The one error type every command returns, and the exit codes it maps to.
//!
//! Each variant carries the path, field or value it is about, so the message a
//! user sees names what to fix in one line.

use std::path::{Path, PathBuf};

/// Exit status: everything checked out.
pub const EXIT_OK: u8 = 0;
/// Exit status: the command ran, and what it checked failed (altered snapshot,
/// claim not reproduced, unreadable record).
pub const EXIT_CHECK_FAILED: u8 = 1;
/// Exit status: bad input or an operational error; nothing was changed.
pub const EXIT_ERROR: u8 = 2;
/// Exit status after Ctrl-C, as shells report SIGINT.
pub const EXIT_INTERRUPTED: u8 = 130;

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
    #[error("chapter id '{id}' is ambiguous: {}", candidates.join(", "))]
    AmbiguousChapter { id: String, candidates: Vec<String> },
    #[error("invalid id '{id}': {reason}")]
    InvalidId { id: String, reason: &'static str },
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
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
