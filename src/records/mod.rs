//! Research and experiment records: one YAML file per run under
//! `records/<book-id>/<chapter-id>/`, with the evidence (report, run file)
//! stored beside it. Records are only ever added, never edited.
//!
//! `store` owns the files, `report` checks reports, `status` says which
//! research is current, `publish` writes the site's schema.

pub mod create;
pub mod publish;
pub mod report;
pub mod status;
pub mod store;

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::chapter::{ChapterKey, Fingerprint, Scope};
use crate::env::Environment;
use crate::error::{Error, Result};
use crate::provenance::GitProvenance;

/// Schema name written in every record.
pub const RECORD_SCHEMA: &str = "research_companion.record.v1";

/// A run id in the site's shape: `<book-id>:<chapter-id>:<UTC
/// YYYYMMDDTHHMMSS>:<12 lowercase hex>`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RunId {
    pub book: String,
    pub chapter: String,
    /// `YYYYMMDDTHHMMSS`, UTC.
    pub stamp: String,
    /// 12 lowercase hex digits.
    pub hex: String,
}

impl RunId {
    /// Parses and checks a run id.
    pub fn parse(s: &str) -> Result<Self> {
        let bad = |why: &str| Error::Usage(format!("invalid run id '{s}': {why}"));
        let mut parts = s.rsplitn(4, ':');
        let (hex, stamp, chapter, book) =
            match (parts.next(), parts.next(), parts.next(), parts.next()) {
                (Some(h), Some(t), Some(c), Some(b)) => (h, t, c, b),
                _ => {
                    return Err(bad(
                        "expected <book-id>:<chapter-id>:<YYYYMMDDTHHMMSS>:<12 hex>",
                    ));
                }
            };
        if hex.len() != 12 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(bad("the last part must be 12 lowercase hex digits"));
        }
        if chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%S").is_err() {
            return Err(bad("the third part must be a UTC time YYYYMMDDTHHMMSS"));
        }
        crate::chapter::Id::parse(book)?;
        crate::chapter::Id::parse(chapter)?;
        Ok(RunId {
            book: book.into(),
            chapter: chapter.into(),
            stamp: stamp.into(),
            hex: hex.into(),
        })
    }

    /// The id for a chapter, a time and a content hash.
    pub fn new(key: &ChapterKey, at: DateTime<Utc>, content_sha256: &str) -> Self {
        RunId {
            book: key.book.to_string(),
            chapter: key.chapter.to_string(),
            stamp: at.format("%Y%m%dT%H%M%S").to_string(),
            hex: content_sha256[..12].to_string(),
        }
    }

    /// File-name stem: `<stamp>-<hex>`.
    pub fn stem(&self) -> String {
        format!("{}-{}", self.stamp, self.hex)
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}:{}",
            self.book, self.chapter, self.stamp, self.hex
        )
    }
}

impl TryFrom<String> for RunId {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        RunId::parse(&s).map_err(|e| e.to_string())
    }
}

impl From<RunId> for String {
    fn from(r: RunId) -> String {
        r.to_string()
    }
}

/// What kind of run a record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunKind {
    /// A research report reviewed against a chapter revision.
    Research,
    /// A benchmark run compared with the chapter's published tables.
    Experiment,
}

impl fmt::Display for RunKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RunKind::Research => "research",
            RunKind::Experiment => "experiment",
        })
    }
}

/// The chapter revision a run examined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    /// Snapshot file, relative to the chapter folder.
    pub snapshot: String,
    pub fingerprint: Fingerprint,
    pub scope: Scope,
}

/// The stored report and what checking it found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportInfo {
    /// The copy stored beside the record (file name in the same folder).
    pub file: String,
    /// Where the report was recorded from.
    pub source: String,
    pub sha256: String,
    pub bytes: u64,
    pub complete: bool,
    #[serde(flatten)]
    pub check: report::ReportCheck,
}

/// A claim's verdict as an experiment record keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredVerdict {
    pub claim: String,
    pub verdict: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The stored benchmark run and its one-line result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentInfo {
    /// The run file stored beside the record.
    pub file: String,
    pub source: String,
    pub sha256: String,
    /// One line: what the run showed.
    pub summary: String,
    /// Claim verdicts against the revision's published tables, when known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<StoredVerdict>,
}

/// One recorded run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub schema: String,
    pub run_id: RunId,
    pub kind: RunKind,
    /// When it was recorded, to the nanosecond.
    pub recorded_at: DateTime<Utc>,
    /// The chapter revision the run examined (for experiments: the revision
    /// whose published tables it is compared with).
    pub revision: Revision,
    #[serde(default)]
    pub previous_run_id: Option<RunId>,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<ReportInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<ExperimentInfo>,
    pub environment: Environment,
    pub git: GitProvenance,
    /// Random, so that two otherwise identical records get different ids.
    pub nonce: String,
}
