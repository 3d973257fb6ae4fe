//! A chapter under `book-snapshots/` (a person's chapter.yaml and the tool's
//! snapshots.yaml), the snapshots stored, and the checks that say whether
//! what is stored is intact and current. `registry` lists and loads the
//! chapters of a project.

pub mod manifest;
pub mod normalize;
pub mod prose_diff;
pub mod registry;

use std::fs::File;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

pub use manifest::{ChapterManifest, Fingerprint, Scope, SnapshotEntry, SnapshotState};

use crate::atomic;
use crate::error::{Error, Result};
use crate::ids::ChapterKey;
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

/// Fingerprints a file with `prose-v1`, turning errors into ones that name it.
pub fn fingerprint_file(path: &std::path::Path) -> Result<Fingerprint> {
    let file = crate::text::read::open_regular(path).map_err(|e| Error::io(path, e))?;
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
    /// The text equals a stored snapshot whose file was gone (deleted by
    /// hand): the file is written again, and that snapshot is current.
    Restored(SnapshotEntry),
}

/// The prose-v1 fingerprint of text that is empty once normalized.
const EMPTY_PROSE_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// Refuses a text with no prose (nothing but white space, zero-width
/// characters and the like): there is nothing to fingerprint or check.
pub fn refuse_empty(fingerprint: &Fingerprint, source: &str) -> Result<()> {
    if fingerprint.value == EMPTY_PROSE_SHA256 {
        return Err(Error::Other(format!(
            "{}: the chapter text is empty once normalized (white space or invisible characters only); nothing stored",
            crate::text::redact::redact_url(source)
        )));
    }
    Ok(())
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
    if new.text.len() as u64 > crate::text::read::MAX_FILE_BYTES {
        return Err(Error::invalid(
            &new.source,
            format!(
                "the chapter text is {} bytes, larger than the {}-byte limit for chapter text",
                new.text.len(),
                crate::text::read::MAX_FILE_BYTES
            ),
        ));
    }
    let fingerprint = Fingerprint::prose_v1(
        normalize::fingerprint_str(new.text)
            .map_err(|e| normalize_error(std::path::Path::new(&new.source), e))?,
    );
    refuse_empty(&fingerprint, &new.source)?;
    // One writer at a time per chapter, with the stored list read again
    // under the lock: two adds at once (a scheduled fetch and a hand-made
    // add) would otherwise both number their file from the same list, and
    // the later snapshots.yaml would drop the other's entry.
    let _lock = ChapterLock::take(&chapter.state_path)?;
    let fresh = read_state(&chapter.state_path)?;
    let manifest = &fresh;
    let missing = |s: &SnapshotEntry| is_missing(layout, chapter, s);
    let current = manifest.current();
    if current.fingerprint == fingerprint && current.scope == new.scope && !missing(current) {
        return Ok(AddOutcome::Unchanged(current.clone()));
    }
    let mut updated = manifest.clone();
    let mut written = None;
    let outcome = match manifest
        .snapshots
        .iter()
        .position(|s| s.fingerprint == fingerprint && s.scope == new.scope)
    {
        Some(i) if missing(&manifest.snapshots[i]) => {
            // The same prose, so the same fingerprint: verify finds the
            // file intact again. Its size is this text's.
            let path = layout.snapshot_file(&chapter.key, &manifest.snapshots[i].file);
            atomic::write_new(&path, new.text.as_bytes())?;
            written = Some(path);
            updated.snapshots[i].bytes = new.text.len() as u64;
            updated.current_snapshot = updated.snapshots[i].file.clone();
            AddOutcome::Restored(updated.snapshots[i].clone())
        }
        Some(i) => {
            let older = &manifest.snapshots[i];
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

/// An exclusive lock on a chapter's folder (`flock` on the folder itself,
/// so no lock file is left in it), released when dropped: what replaces
/// snapshots.yaml or notebooks.yaml takes it, and reads the file again.
pub struct ChapterLock(std::fs::File);

impl ChapterLock {
    /// Locks the folder holding `file_in_folder`, waiting for another
    /// writer of the chapter to finish.
    pub fn take(file_in_folder: &std::path::Path) -> Result<Self> {
        let dir = file_in_folder.parent().unwrap_or(std::path::Path::new("."));
        let folder = File::open(dir).map_err(|e| Error::io(dir, e))?;
        crate::sys::lock_exclusive(&folder).map_err(|e| Error::io(dir, e))?;
        Ok(ChapterLock(folder))
    }
}

impl Drop for ChapterLock {
    fn drop(&mut self) {
        let _ = crate::sys::unlock(&self.0);
    }
}

/// A chapter's snapshots.yaml as it is on disk now, checked.
fn read_state(path: &std::path::Path) -> Result<SnapshotState> {
    let state: SnapshotState = yaml_io::read(path)?;
    state.check().map_err(|m| Error::invalid(path, m))?;
    Ok(state)
}

/// Whether a stored snapshot's file is gone (`lstat` only: a file there of
/// any kind is not missing).
pub fn is_missing(layout: &Layout, chapter: &Chapter, entry: &SnapshotEntry) -> bool {
    std::fs::symlink_metadata(layout.snapshot_file(&chapter.key, &entry.file)).is_err()
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
                let checked = crate::text::owned::check_owned(&path, &layout.snapshots_root());
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
