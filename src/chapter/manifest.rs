//! `chapter.yaml`: what the book's research page says about one chapter, and
//! the list of snapshots this project stores for it.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::normalize::PROSE_V1;
use crate::ids::Id;

/// Schema name written at the top of every chapter.yaml.
pub const CHAPTER_SCHEMA: &str = "research_companion.chapter.v1";

/// One chapter's manifest.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChapterManifest {
    /// Always [`CHAPTER_SCHEMA`].
    pub schema: String,
    /// The book the chapter belongs to.
    pub book: BookInfo,
    /// The chapter's identity and public addresses.
    pub chapter: ChapterInfo,
    /// The fingerprint the book's research page publishes.
    pub published_fingerprint: PublishedFingerprint,
    /// Material the page lists beside the chapter (notebooks and the like).
    #[serde(default)]
    pub associated_material: Vec<Material>,
    /// The research objective the page states.
    pub research_objective: String,
    /// Research questions, when the page lists any beyond the objective.
    #[serde(default)]
    pub research_questions: Vec<String>,
    /// References recorded against the chapter (the page lists none yet).
    #[serde(default)]
    pub references: Vec<Reference>,
    /// File (relative to the chapter folder) of the snapshot that is current.
    pub current_snapshot: String,
    /// Every stored snapshot, oldest first.
    pub snapshots: Vec<SnapshotEntry>,
    /// Conditional-request state of the last fetch.
    #[serde(default, skip_serializing_if = "FetchState::is_empty")]
    pub fetch: FetchState,
}

/// A book's identity.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BookInfo {
    pub id: Id,
    pub title: String,
}

/// A chapter's identity and addresses.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChapterInfo {
    /// Zero-padded chapter id, e.g. `06`.
    pub id: Id,
    pub number: u32,
    pub title: String,
    /// The site's stable id, e.g. `pytorch-from-first-principles-06-chapter`.
    pub stable_id: String,
    pub url: String,
    pub research_pack_url: String,
    pub snapshot_url: String,
}

/// The fingerprint the research page publishes for the chapter's prose.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedFingerprint {
    pub algorithm: String,
    pub value: String,
    /// The site's normalization, when it is known; it is not published.
    #[serde(default)]
    pub normalization: Option<String>,
    pub note: String,
}

/// A resource listed beside the chapter.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Material {
    pub kind: String,
    pub url: String,
    /// What the page says about the resource's state.
    pub note: String,
    /// Why availability is not evidence.
    #[serde(default)]
    pub caveat: Option<String>,
}

/// A reference recorded against the chapter.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    pub title: String,
    #[serde(default)]
    pub authors: Vec<String>,
    #[serde(default)]
    pub year: Option<i32>,
    #[serde(default)]
    pub url: Option<String>,
}

/// Whether a snapshot holds the whole chapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Scope {
    Complete,
    Excerpt,
}

/// A fingerprint with the rules that produced it; never one without the other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fingerprint {
    pub algorithm: String,
    pub normalization: String,
    pub value: String,
}

impl Fingerprint {
    /// A `sha256` over `prose-v1` text.
    pub fn prose_v1(value: String) -> Self {
        Fingerprint {
            algorithm: "sha256".into(),
            normalization: PROSE_V1.into(),
            value,
        }
    }

    /// The first 12 hex digits, for listings.
    pub fn short(&self) -> &str {
        crate::text::prefix(&self.value, 12)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.normalization, self.value)
    }
}

/// One stored snapshot.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotEntry {
    /// Path relative to the chapter folder.
    pub file: String,
    pub fingerprint: Fingerprint,
    pub captured_at: DateTime<Utc>,
    /// Where the text came from.
    pub source: String,
    pub scope: Scope,
    /// Size of the stored file in bytes.
    pub bytes: u64,
}

/// Validators from the last successful fetch.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchState {
    /// The URL the validators belong to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetched_at: Option<DateTime<Utc>>,
}

impl FetchState {
    fn is_empty(&self) -> bool {
        self.url.is_none()
            && self.etag.is_none()
            && self.last_modified.is_none()
            && self.fetched_at.is_none()
    }
}

impl ChapterManifest {
    /// Checks what serde cannot: schema, fingerprint shapes, file names and
    /// that the current snapshot is listed. Returns the first problem.
    pub fn check(&self) -> Result<(), String> {
        if self.schema != CHAPTER_SCHEMA {
            return Err(format!(
                "field 'schema': expected '{CHAPTER_SCHEMA}', found '{}'",
                self.schema
            ));
        }
        if !is_sha256_hex(&self.published_fingerprint.value) {
            return Err("field 'published_fingerprint.value': not 64 lowercase hex digits".into());
        }
        for (i, s) in self.snapshots.iter().enumerate() {
            if !is_sha256_hex(&s.fingerprint.value) {
                return Err(format!(
                    "field 'snapshots[{i}].fingerprint.value': not 64 lowercase hex digits"
                ));
            }
            if s.fingerprint.normalization != PROSE_V1 {
                return Err(format!(
                    "field 'snapshots[{i}].fingerprint.normalization': unknown normalization '{}'",
                    s.fingerprint.normalization
                ));
            }
            let safe = s.file.split('/').all(|part| Id::parse(part).is_ok());
            if !safe {
                return Err(format!(
                    "field 'snapshots[{i}].file': '{}' is not a plain relative path",
                    s.file
                ));
            }
        }
        if self.snapshot(&self.current_snapshot).is_none() {
            return Err(format!(
                "field 'current_snapshot': '{}' is not among the listed snapshots",
                self.current_snapshot
            ));
        }
        Ok(())
    }

    /// The entry for `file`, if listed.
    pub fn snapshot(&self, file: &str) -> Option<&SnapshotEntry> {
        self.snapshots.iter().find(|s| s.file == file)
    }

    /// The current snapshot's entry (checked to exist when loaded).
    pub fn current(&self) -> &SnapshotEntry {
        self.snapshot(&self.current_snapshot)
            .expect("checked when the manifest was loaded")
    }
}

/// Whether `s` is a lowercase hex SHA-256.
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
