//! The chapter registry: chapters under `book-snapshots/` (a person's
//! chapter.yaml and the tool's snapshots.yaml), the snapshots stored, and the
//! checks that say whether what is stored is intact and current.

pub mod manifest;
pub mod normalize;
pub mod prose_diff;

use std::fs::File;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

pub use manifest::{ChapterManifest, Fingerprint, Scope, SnapshotEntry, SnapshotState};

use crate::atomic;
use crate::error::{Error, Result};
use crate::ids::{ChapterKey, Id};
use crate::layout::Layout;
use crate::yaml_io;

/// A loaded chapter: where it lives, what its person-written manifest says,
/// and what the tool keeps for it.
#[derive(Debug, Clone)]
pub struct Chapter {
    pub key: ChapterKey,
    pub manifest: ChapterManifest,
    pub state: SnapshotState,
    pub manifest_path: PathBuf,
    pub state_path: PathBuf,
    /// chapter.yaml is still in the first shape (schema v1), holding the
    /// snapshot list itself: readable, but not written to until migrated.
    pub legacy: bool,
}

impl Chapter {
    /// `book-id/chapter-id`.
    pub fn key_str(&self) -> String {
        self.key.to_string()
    }

    /// How the current snapshot compares with the published fingerprint.
    pub fn currency(&self) -> SnapshotCurrency {
        let current = self.state.current();
        match self.manifest.published_hex() {
            None => SnapshotCurrency::NotPublished,
            Some(p) if p == current.fingerprint.value => SnapshotCurrency::Matches,
            Some(_) if current.scope == Scope::Excerpt => SnapshotCurrency::ExcerptCannotMatch,
            Some(_) => SnapshotCurrency::Differs,
        }
    }
}

/// The chapters registered under one root.
pub struct Registry {
    layout: Layout,
    keys: Vec<ChapterKey>,
}

impl Registry {
    /// Lists `book-snapshots/<book>/<chapter>/chapter.yaml` without parsing.
    pub fn open(layout: &Layout) -> Result<Self> {
        let root = layout.snapshots_root();
        let mut keys = Vec::new();
        if root.is_dir() {
            for book in read_dir_sorted(&root)? {
                let Ok(book_id) = Id::parse(&book) else {
                    continue;
                };
                let book_dir = layout.book_dir(&book_id);
                if !book_dir.is_dir() {
                    continue;
                }
                for chapter in read_dir_sorted(&book_dir)? {
                    let Ok(chapter_id) = Id::parse(&chapter) else {
                        continue;
                    };
                    let key = ChapterKey {
                        book: book_id.clone(),
                        chapter: chapter_id,
                    };
                    if layout.chapter_manifest(&key).is_file() {
                        keys.push(key);
                    }
                }
            }
        }
        Ok(Registry {
            layout: layout.clone(),
            keys,
        })
    }

    /// Every registered chapter, sorted by book then chapter.
    pub fn keys(&self) -> &[ChapterKey] {
        &self.keys
    }

    /// Every registered chapter, or an error saying where none were found
    /// (for commands that have nothing to do without one).
    pub fn require_keys(&self) -> Result<&[ChapterKey]> {
        if self.keys.is_empty() {
            Err(self.empty())
        } else {
            Ok(&self.keys)
        }
    }

    fn empty(&self) -> Error {
        Error::NoChapters {
            dir: self.layout.snapshots_root(),
        }
    }

    /// Finds a chapter by stable id, `<book-id>/<chapter-id>`, or a bare
    /// chapter id that only one book uses.
    pub fn resolve(&self, query: &str) -> Result<ChapterKey> {
        if let Some(key) = ChapterKey::parse(query) {
            let key = key?;
            return match self.keys.contains(&key) {
                true => Ok(key),
                false => Err(self.unknown(query)),
            };
        }
        Id::parse(query)?;
        let bare: Vec<&ChapterKey> = self
            .keys
            .iter()
            .filter(|k| k.chapter.as_str() == query)
            .collect();
        match bare.as_slice() {
            [one] => return Ok((*one).clone()),
            [] => {}
            many => {
                return Err(Error::AmbiguousChapter {
                    id: query.to_string(),
                    candidates: many.iter().map(|k| k.to_string()).collect(),
                });
            }
        }
        // A broken chapter cannot be named by its stable id, but does not
        // stop the others from being found.
        for key in &self.keys {
            if self
                .load(key)
                .is_ok_and(|ch| ch.manifest.stable_id() == query)
            {
                return Ok(key.clone());
            }
        }
        Err(self.unknown(query))
    }

    /// Resolves and loads in one step.
    pub fn get(&self, query: &str) -> Result<Chapter> {
        let key = self.resolve(query)?;
        self.load(&key)
    }

    /// Loads and checks one chapter: its chapter.yaml and snapshots.yaml (or
    /// a chapter.yaml of the first shape, which held both).
    pub fn load(&self, key: &ChapterKey) -> Result<Chapter> {
        let path = self.layout.chapter_manifest(key);
        let state_path = self.layout.chapter_state(key);
        let folder = self.layout.snapshots_root();
        crate::text::check_owned(&path, &folder)?;
        let text = yaml_io::read_text(&path)?;
        #[derive(serde::Deserialize)]
        struct Head {
            schema: Option<String>,
        }
        let head: Head = yaml_io::from_str(&text, &path)?;
        let legacy = head.schema.as_deref() == Some(manifest::CHAPTER_SCHEMA_V1);
        let (manifest, state) = if legacy {
            if state_path.exists() {
                return Err(Error::invalid(
                    &path,
                    "lists snapshots (schema v1) although snapshots.yaml exists beside it; \
                     remove the list from chapter.yaml with `research_companion chapter migrate`",
                ));
            }
            yaml_io::from_str::<manifest::LegacyManifest>(&text, &path)?.split()
        } else {
            let manifest: ChapterManifest = yaml_io::from_str(&text, &path)?;
            manifest.check().map_err(|m| Error::invalid(&path, m))?;
            if !state_path.exists() {
                return Err(Error::invalid(
                    &state_path,
                    "missing: it lists the chapter's stored snapshots (create a chapter with `research_companion chapter new`)",
                ));
            }
            crate::text::check_owned(&state_path, &folder)?;
            let state: SnapshotState = yaml_io::read(&state_path)?;
            (manifest, state)
        };
        let checked = if legacy { &path } else { &state_path };
        state.check().map_err(|m| Error::invalid(checked, m))?;
        if manifest.book.id != key.book || manifest.chapter.id != key.chapter {
            return Err(Error::invalid(
                &path,
                format!(
                    "book.id/chapter.id say '{}/{}' but the file is stored under '{key}'",
                    manifest.book.id, manifest.chapter.id
                ),
            ));
        }
        Ok(Chapter {
            key: key.clone(),
            manifest,
            state,
            manifest_path: path,
            state_path,
            legacy,
        })
    }

    /// The layout this registry reads.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    fn unknown(&self, query: &str) -> Error {
        if self.keys.is_empty() {
            return self.empty();
        }
        let mut names: Vec<String> = Vec::new();
        for key in &self.keys {
            names.push(key.to_string());
            names.push(key.chapter.to_string());
            if let Ok(ch) = self.load(key) {
                names.push(ch.manifest.stable_id());
            }
        }
        let suggestion = names
            .into_iter()
            .map(|n| (strsim::normalized_levenshtein(query, &n), n))
            .filter(|(score, _)| *score >= 0.5)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, n)| n);
        Error::UnknownChapter {
            id: query.to_string(),
            suggestion,
        }
    }
}

fn read_dir_sorted(dir: &std::path::Path) -> Result<Vec<String>> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names)
}

/// Fingerprints a file with `prose-v1`, turning errors into ones that name it.
pub fn fingerprint_file(path: &std::path::Path) -> Result<Fingerprint> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    normalize::fingerprint_reader(std::io::BufReader::new(file))
        .map(Fingerprint::prose_v1)
        .map_err(|e| normalize_error(path, e))
}

/// Names the file a normalization error happened in.
pub fn normalize_error(path: &std::path::Path, e: normalize::NormalizeError) -> Error {
    match e {
        normalize::NormalizeError::InvalidUtf8 { offset } => Error::InvalidUtf8 {
            path: path.to_path_buf(),
            offset,
        },
        normalize::NormalizeError::Io(io) => Error::io(path, io),
        e @ normalize::NormalizeError::UnstableRun { .. } => Error::invalid(path, e.to_string()),
    }
}

/// What `snapshot add` did.
#[derive(Debug, Serialize)]
pub enum AddOutcome {
    /// A new file was stored and made current.
    Stored(SnapshotEntry),
    /// The text equals the current snapshot: nothing was written.
    Unchanged(SnapshotEntry),
    /// The text equals an older stored snapshot, which is current again.
    Reverted(SnapshotEntry),
}

/// A snapshot to store.
pub struct NewSnapshot<'a> {
    pub text: &'a str,
    pub source: String,
    pub scope: Scope,
    pub captured_at: DateTime<Utc>,
    /// Conditional-request state to keep, when the text was fetched.
    pub fetch: Option<manifest::FetchState>,
}

/// The error for writing to a chapter whose chapter.yaml still holds the
/// snapshot list.
pub fn needs_migration(chapter: &Chapter) -> Error {
    Error::invalid(
        &chapter.manifest_path,
        format!(
            "still lists the snapshots itself (schema v1); the tool does not rewrite a file \
             you edit, so move the list into snapshots.yaml once with \
             `research_companion chapter migrate {}`",
            chapter.key
        ),
    )
}

/// Stores `new` for `chapter` unless its prose is already current, then makes
/// it current. The snapshot file is written before snapshots.yaml, and never
/// over an existing file, so a failure at any point loses nothing already
/// stored; chapter.yaml is never written.
pub fn add_snapshot(
    layout: &Layout,
    chapter: &Chapter,
    new: NewSnapshot<'_>,
) -> Result<AddOutcome> {
    if chapter.legacy {
        return Err(needs_migration(chapter));
    }
    // The text is named by where it came from (a file, or a URL). A file
    // was read within the limit; a fetched body may have been allowed more.
    if new.text.len() as u64 > crate::text::MAX_FILE_BYTES {
        return Err(Error::invalid(
            &new.source,
            format!(
                "the chapter text is {} bytes, larger than the {}-byte limit for chapter text",
                new.text.len(),
                crate::text::MAX_FILE_BYTES
            ),
        ));
    }
    let fingerprint = Fingerprint::prose_v1(
        normalize::fingerprint_str(new.text)
            .map_err(|e| normalize_error(std::path::Path::new(&new.source), e))?,
    );
    let manifest = &chapter.state;
    if manifest.current().fingerprint == fingerprint && manifest.current().scope == new.scope {
        return Ok(AddOutcome::Unchanged(manifest.current().clone()));
    }
    let mut updated = manifest.clone();
    let mut written = None;
    let outcome = match manifest
        .snapshots
        .iter()
        .find(|s| s.fingerprint == fingerprint && s.scope == new.scope)
    {
        Some(older) => {
            updated.current_snapshot = older.file.clone();
            AddOutcome::Reverted(older.clone())
        }
        None => {
            let file = Layout::new_snapshot_name(manifest.snapshots.len() + 1, &fingerprint.value);
            let path = layout.snapshot_file(&chapter.key, &file);
            atomic::write_new(&path, new.text.as_bytes())?;
            written = Some(path);
            let entry = SnapshotEntry {
                file: file.clone(),
                fingerprint,
                captured_at: new.captured_at,
                source: new.source,
                scope: new.scope,
                bytes: new.text.len() as u64,
            };
            updated.snapshots.push(entry.clone());
            updated.current_snapshot = file;
            AddOutcome::Stored(entry)
        }
    };
    if let Some(state) = new.fetch {
        updated.fetch = state;
    }
    if let Err(e) = write_state(&chapter.state_path, &updated) {
        // snapshots.yaml does not list the new file: take it away again, so
        // a retry starts from the tree as it was.
        if let Some(path) = written {
            let _ = std::fs::remove_file(path);
        }
        return Err(e);
    }
    Ok(outcome)
}

/// Replaces a snapshots.yaml atomically (the tool's file; never chapter.yaml).
pub fn write_state(path: &std::path::Path, state: &SnapshotState) -> Result<()> {
    atomic::replace(path, state_text(state)?.as_bytes())
}

/// A snapshots.yaml's text: a note for the reader, then the state.
pub fn state_text(state: &SnapshotState) -> Result<String> {
    Ok(format!(
        "# Maintained by research_companion: the stored snapshots of this chapter.\n\
         # Edit chapter.yaml instead; this file is rewritten by snapshot add and fetch.\n{}",
        yaml_io::to_string(state)?
    ))
}

/// Integrity of one stored snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Integrity {
    Intact,
    Altered,
    Missing,
    Unreadable,
}

/// The check of one snapshot.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotCheck {
    pub file: String,
    pub scope: Scope,
    pub current: bool,
    pub integrity: Integrity,
    pub expected: String,
    pub actual: Option<String>,
    /// Why the file could not be read, when it could not.
    pub problem: Option<String>,
}

/// How the current snapshot compares with the published fingerprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SnapshotCurrency {
    /// Same hex digest as the published fingerprint.
    Matches,
    /// The current snapshot is an excerpt; the published fingerprint covers the
    /// whole chapter, so the two cannot match.
    ExcerptCannotMatch,
    /// A complete snapshot whose digest differs from the published one.
    Differs,
    /// chapter.yaml gives no published fingerprint: currency cannot be
    /// checked.
    NotPublished,
}

/// The outcome of verifying one chapter.
#[derive(Debug, Clone, Serialize)]
pub struct ChapterCheck {
    pub chapter: String,
    pub title: String,
    pub snapshots: Vec<SnapshotCheck>,
    pub current_snapshot: String,
    pub published_fingerprint: Option<String>,
    pub currency: SnapshotCurrency,
    /// Research runs that examined another revision (filled in by the
    /// caller that reads the records).
    #[serde(default)]
    pub stale_research: Vec<String>,
}

impl ChapterCheck {
    /// Whether every stored snapshot is intact.
    pub fn intact(&self) -> bool {
        self.snapshots
            .iter()
            .all(|s| s.integrity == Integrity::Intact)
    }

    /// The current snapshot's check.
    pub fn current(&self) -> Option<&SnapshotCheck> {
        self.snapshots.iter().find(|s| s.current)
    }
}

/// Recomputes every stored snapshot's fingerprint and compares the current one
/// with the published fingerprint.
pub fn verify(layout: &Layout, chapter: &Chapter) -> ChapterCheck {
    let m = &chapter.state;
    let snapshots = m
        .snapshots
        .iter()
        .map(|s| {
            let path = layout.snapshot_file(&chapter.key, &s.file);
            let (integrity, actual, problem) = if !path.exists() {
                (
                    Integrity::Missing,
                    None,
                    Some(format!("{} does not exist", path.display())),
                )
            } else {
                let checked = crate::text::check_owned(&path, &layout.snapshots_root());
                match checked.and_then(|()| fingerprint_file(&path)) {
                    Ok(fp) if fp == s.fingerprint => (Integrity::Intact, Some(fp.value), None),
                    Ok(fp) => (Integrity::Altered, Some(fp.value), None),
                    Err(e) => (Integrity::Unreadable, None, Some(e.to_string())),
                }
            };
            SnapshotCheck {
                file: s.file.clone(),
                scope: s.scope,
                current: s.file == m.current_snapshot,
                integrity,
                expected: s.fingerprint.value.clone(),
                actual,
                problem,
            }
        })
        .collect();
    let published = chapter.manifest.published_hex();
    let currency = chapter.currency();
    ChapterCheck {
        chapter: chapter.key_str(),
        title: chapter.manifest.chapter.title.clone(),
        snapshots,
        current_snapshot: m.current_snapshot.clone(),
        published_fingerprint: published.map(str::to_string),
        currency,
        stale_research: Vec::new(),
    }
}
