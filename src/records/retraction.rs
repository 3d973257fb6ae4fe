//! Retractions: a run withdrawn by its author, with the reason. A record is
//! never edited, so a retraction is a file of its own beside the records
//! (`<stamp>-<hex>.retraction.yaml`, named by time and content hash like a
//! record, so retractions from several machines merge in git too). Every
//! reader honours it: the run is no longer research, evidence or anything a
//! page shows as the chapter's state; the histories still list it, marked.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::ids::RunId;

/// Schema name written in every retraction.
pub const RETRACTION_SCHEMA: &str = "research_companion.retraction.v1";

/// The longest reason a retraction keeps, in characters.
pub const MAX_REASON_CHARS: usize = 2000;

/// One retraction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Retraction {
    /// Always [`RETRACTION_SCHEMA`].
    pub schema: String,
    /// The retraction's own id, in the shape of a run id (its time and
    /// content hash name its file).
    pub id: RunId,
    /// The run withdrawn: a run of the same chapter.
    pub retracts: RunId,
    /// Why, in the author's words.
    pub reason: String,
    /// UTC, to the nanosecond.
    pub retracted_at: DateTime<Utc>,
    /// Random, so that the content hash is unique.
    pub nonce: String,
}

impl Retraction {
    /// `RETRACTED on 2026-12-01: <reason>`, as histories show it.
    pub fn label(&self) -> String {
        format!(
            "RETRACTED on {}: {}",
            self.retracted_at.format("%Y-%m-%d"),
            self.reason
        )
    }
}

/// Checks a reason before it is stored: not empty, at most
/// [`MAX_REASON_CHARS`] characters.
pub fn check_reason(reason: &str) -> Result<(), String> {
    if reason.trim().is_empty() {
        return Err("a retraction needs a reason".into());
    }
    let n = reason.chars().count();
    if n > MAX_REASON_CHARS {
        return Err(format!(
            "the reason is {n} characters long; at most {MAX_REASON_CHARS} are kept"
        ));
    }
    Ok(())
}
