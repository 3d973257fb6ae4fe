//! A chapter's two files: `chapter.yaml`, what a person writes about the
//! chapter (identity, addresses, the published fingerprint, the research
//! objective, references), which the tool only reads; and `snapshots.yaml`,
//! what the tool maintains (the stored snapshots, the current one, the last
//! fetch's validators), like a manifest and its lock file.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::normalize::PROSE_V1;
use crate::ids::Id;

/// Schema of chapter.yaml.
pub const CHAPTER_SCHEMA: &str = "research_companion.chapter.v2";
/// The earlier chapter.yaml, which also held the snapshot list; still read.
pub const CHAPTER_SCHEMA_V1: &str = "research_companion.chapter.v1";
/// Schema of snapshots.yaml.
pub const SNAPSHOTS_SCHEMA: &str = "research_companion.snapshots.v1";

/// One chapter's manifest: what a person writes. Optional fields may be
/// missing or `null`; both mean absent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChapterManifest {
    /// Always [`CHAPTER_SCHEMA`].
    pub schema: String,
    /// The book the chapter belongs to.
    pub book: BookInfo,
    /// The chapter's identity and public addresses.
    pub chapter: ChapterInfo,
    /// The fingerprint the book's research page publishes, when it does.
    #[serde(default)]
    pub published_fingerprint: Option<PublishedFingerprint>,
    /// Material the page lists beside the chapter (notebooks and the like).
    #[serde(default)]
    pub associated_material: Vec<Material>,
    /// The research objective, when one is stated.
    #[serde(default)]
    pub research_objective: Option<String>,
    /// Research questions, when the page lists any beyond the objective.
    #[serde(default)]
    pub research_questions: Vec<String>,
    /// References recorded against the chapter.
    #[serde(default)]
    pub references: Vec<Reference>,
}

/// What the tool maintains for a chapter (`snapshots.yaml`): the stored
/// snapshots, the current one, and the last fetch's validators.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotState {
    /// Always [`SNAPSHOTS_SCHEMA`].
    pub schema: String,
    /// File (relative to the chapter folder) of the snapshot that is current.
    pub current_snapshot: String,
    /// Every stored snapshot, oldest first.
    pub snapshots: Vec<SnapshotEntry>,
    /// Conditional-request state of the last fetch.
    #[serde(default, skip_serializing_if = "FetchState::is_empty")]
    pub fetch: FetchState,
}

/// The first shape of chapter.yaml (schema v1), which held both parts. It is
/// still read, so an older project keeps working until it is migrated.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegacyManifest {
    pub schema: String,
    pub book: BookInfo,
    pub chapter: ChapterInfo,
    pub published_fingerprint: Option<PublishedFingerprint>,
    #[serde(default)]
    pub associated_material: Vec<Material>,
    #[serde(default)]
    pub research_objective: Option<String>,
    #[serde(default)]
    pub research_questions: Vec<String>,
    #[serde(default)]
    pub references: Vec<Reference>,
    pub current_snapshot: String,
    pub snapshots: Vec<SnapshotEntry>,
    #[serde(default)]
    pub fetch: FetchState,
}

impl LegacyManifest {
    /// The two parts it held.
    pub fn split(self) -> (ChapterManifest, SnapshotState) {
        (
            ChapterManifest {
                schema: CHAPTER_SCHEMA.into(),
                book: self.book,
                chapter: self.chapter,
                published_fingerprint: self.published_fingerprint,
                associated_material: self.associated_material,
                research_objective: self.research_objective,
                research_questions: self.research_questions,
                references: self.references,
            },
            SnapshotState {
                schema: SNAPSHOTS_SCHEMA.into(),
                current_snapshot: self.current_snapshot,
                snapshots: self.snapshots,
                fetch: self.fetch,
            },
        )
    }
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
    /// The site's stable id, e.g. `pytorch-from-first-principles-06-chapter`;
    /// `<book>-<chapter>-chapter` when none is given.
    #[serde(default)]
    pub stable_id: Option<String>,
    /// The chapter's public page.
    #[serde(default, serialize_with = "crate::text::redact::serialize_redacted")]
    pub url: Option<String>,
    /// The chapter's research page.
    #[serde(default, serialize_with = "crate::text::redact::serialize_redacted")]
    pub research_pack_url: Option<String>,
    /// Where `fetch` gets the chapter's text.
    #[serde(default, serialize_with = "crate::text::redact::serialize_redacted")]
    pub snapshot_url: Option<String>,
    /// Which redirects `fetch` follows from the snapshot URL [default:
    /// `same-origin`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_redirects: Option<SnapshotRedirects>,
}

/// Which redirects `fetch` follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum SnapshotRedirects {
    /// Only to the same scheme, host and port as the URL asked for.
    SameOrigin,
    /// To any http or https URL.
    Anywhere,
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
    #[serde(default)]
    pub note: Option<String>,
}

/// A resource listed beside the chapter.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Material {
    pub kind: String,
    #[serde(serialize_with = "crate::text::redact::serialize_redacted_str")]
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
    #[serde(default, serialize_with = "crate::text::redact::serialize_redacted")]
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
        crate::text::format::prefix(&self.value, 12)
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
    /// Where the text came from (a URL is written without its secrets).
    #[serde(serialize_with = "crate::text::redact::serialize_redacted_str")]
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
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::text::redact::serialize_redacted"
    )]
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
    /// Checks what serde cannot: the schema and the published fingerprint's
    /// shape. Returns the first problem.
    pub fn check(&self) -> Result<(), String> {
        if self.schema != CHAPTER_SCHEMA {
            return Err(format!(
                "field 'schema': expected '{CHAPTER_SCHEMA}', found '{}'",
                self.schema
            ));
        }
        if let Some(p) = &self.published_fingerprint
            && !is_sha256_hex(&p.value)
        {
            return Err("field 'published_fingerprint.value': not 64 lowercase hex digits".into());
        }
        Ok(())
    }

    /// The stable id, given or made from the ids.
    pub fn stable_id(&self) -> String {
        self.chapter
            .stable_id
            .clone()
            .unwrap_or_else(|| format!("{}-{}-chapter", self.book.id, self.chapter.id))
    }

    /// The published fingerprint's hex digest, when one is published.
    pub fn published_hex(&self) -> Option<&str> {
        self.published_fingerprint
            .as_ref()
            .map(|p| p.value.as_str())
    }
}

impl SnapshotState {
    /// Checks what serde cannot: schema, fingerprint shapes, file names and
    /// that the current snapshot is listed. Returns the first problem.
    pub fn check(&self) -> Result<(), String> {
        if self.schema != SNAPSHOTS_SCHEMA {
            return Err(format!(
                "field 'schema': expected '{SNAPSHOTS_SCHEMA}', found '{}'",
                self.schema
            ));
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
            .expect("checked when the state was loaded")
    }
}

/// A first-shape chapter.yaml's text without the tool's keys (top-level
/// `current_snapshot`, `snapshots`, `fetch`) and with the current schema;
/// every other line, comments included, stays as the author wrote it.
pub fn strip_tool_keys(text: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        let starts_key = line
            .chars()
            .next()
            .is_some_and(|c| !c.is_whitespace() && c != '#' && c != '-');
        if starts_key {
            let key = line.split(':').next().unwrap_or_default().trim();
            skipping = matches!(key, "current_snapshot" | "snapshots" | "fetch");
            if key == "schema" {
                out.push_str(&format!("schema: {CHAPTER_SCHEMA}\n"));
                continue;
            }
        }
        if !skipping {
            out.push_str(line);
        }
    }
    out
}

/// Whether `s` is a lowercase hex SHA-256.
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrating_keeps_every_line_the_author_wrote() {
        let old = "# my notes on the chapter\nschema: research_companion.chapter.v1\nbook:\n  id: b  # the book\n  title: B\nchapter:\n  id: '07'\n  number: 7\n  title: T\n# snapshots follow\ncurrent_snapshot: snapshots/0001-a.txt\nsnapshots:\n- file: snapshots/0001-a.txt\n  scope: excerpt\nfetch:\n  etag: x\nreferences: []  # none yet\n";
        let new = strip_tool_keys(old);
        assert_eq!(
            new,
            "# my notes on the chapter\nschema: research_companion.chapter.v2\nbook:\n  id: b  # the book\n  title: B\nchapter:\n  id: '07'\n  number: 7\n  title: T\n# snapshots follow\nreferences: []  # none yet\n"
        );
        let m: ChapterManifest = serde_yaml::from_str(&new).unwrap();
        assert!(m.chapter.url.is_none() && m.published_fingerprint.is_none());
    }

    #[test]
    fn null_or_missing_optional_fields_are_absent_not_text() {
        let m: ChapterManifest = serde_yaml::from_str(
            "schema: research_companion.chapter.v2\nbook: {id: b, title: B}\nchapter: {id: '07', number: 7, title: T, research_pack_url: null}\nresearch_objective: null\n",
        )
        .unwrap();
        assert_eq!(m.chapter.research_pack_url, None);
        assert_eq!(m.research_objective, None);
        assert_eq!(m.stable_id(), "b-07-chapter");
        assert_eq!(m.check(), Ok(()));
    }
}
