//! A chapter's stored notebooks: `notebooks/NNNN-<12 hex>.ipynb`, each byte
//! for byte as captured and never written again, and `notebooks.yaml`, the
//! tool's list of them with the current one (as snapshots.yaml is for the
//! text). chapter.yaml is never written here: its associated material says
//! where the notebook is published.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::fingerprint::{NB_V1, fingerprint};
use super::format::Notebook;
use crate::atomic;
use crate::chapter::Fingerprint;
use crate::chapter::manifest::{ChapterManifest, FetchState, Material, is_sha256_hex};
use crate::error::{Error, Result};
use crate::ids::{ChapterKey, Id};
use crate::layout::Layout;
use crate::text::format::hex;
use crate::yaml_io;

/// Schema of notebooks.yaml.
pub const NOTEBOOKS_SCHEMA: &str = "research_companion.notebooks.v1";

/// notebooks.yaml: the chapter's stored notebooks, oldest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredNotebooks {
    /// Always [`NOTEBOOKS_SCHEMA`].
    pub schema: String,
    /// File (relative to the chapter folder) of the notebook that is current.
    pub current_notebook: String,
    pub notebooks: Vec<NotebookEntry>,
    /// Conditional-request state of the last download.
    #[serde(default, skip_serializing_if = "fetch_is_empty")]
    pub fetch: FetchState,
}

fn fetch_is_empty(f: &FetchState) -> bool {
    f.url.is_none() && f.etag.is_none() && f.last_modified.is_none() && f.fetched_at.is_none()
}

/// One stored notebook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotebookEntry {
    /// Path relative to the chapter folder.
    pub file: String,
    /// `nb-v1`: what the cells say, not what running them left.
    pub fingerprint: Fingerprint,
    /// SHA-256 of the file's bytes, outputs and all.
    pub sha256: String,
    pub captured_at: DateTime<Utc>,
    /// Where it came from: a URL (credentials removed), a path relative to
    /// the project root, or a file name.
    pub source: String,
    pub bytes: u64,
    pub cells: usize,
    pub code_cells: usize,
    /// How `notebook add` got it: downloaded, or read from a file. Absent
    /// in entries stored before it was kept (judged by `source` alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obtained_by: Option<ObtainedBy>,
}

/// How a stored notebook was got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObtainedBy {
    /// Downloaded from the URL its `source` gives.
    Download,
    /// Read from a file (its `source` says which, or what the user gave).
    File,
}

impl StoredNotebooks {
    /// Checks what serde cannot; returns the first problem.
    pub fn check(&self) -> std::result::Result<(), String> {
        if self.schema != NOTEBOOKS_SCHEMA {
            return Err(format!(
                "field 'schema': expected '{NOTEBOOKS_SCHEMA}', found '{}'",
                self.schema
            ));
        }
        for (i, n) in self.notebooks.iter().enumerate() {
            if !is_sha256_hex(&n.fingerprint.value) || !is_sha256_hex(&n.sha256) {
                return Err(format!(
                    "field 'notebooks[{i}]': fingerprint and sha256 must be 64 lowercase hex digits"
                ));
            }
            if n.fingerprint.normalization != NB_V1 {
                return Err(format!(
                    "field 'notebooks[{i}].fingerprint.normalization': unknown rules '{}'",
                    n.fingerprint.normalization
                ));
            }
            if !n.file.split('/').all(|part| Id::parse(part).is_ok()) {
                return Err(format!(
                    "field 'notebooks[{i}].file': '{}' is not a plain relative path",
                    n.file
                ));
            }
        }
        if self.entry(&self.current_notebook).is_none() {
            return Err(format!(
                "field 'current_notebook': '{}' is not among the listed notebooks",
                self.current_notebook
            ));
        }
        Ok(())
    }

    /// The entry for `file`, if listed.
    pub fn entry(&self, file: &str) -> Option<&NotebookEntry> {
        self.notebooks.iter().find(|n| n.file == file)
    }

    /// The current notebook's entry (checked to exist when loaded).
    pub fn current(&self) -> &NotebookEntry {
        self.entry(&self.current_notebook)
            .expect("checked when the state was loaded")
    }
}

/// The chapter's notebook entry in chapter.yaml: the first associated
/// material whose kind is `notebook` or ends in `-notebook`
/// (`colab-notebook`).
pub fn published_notebook(manifest: &ChapterManifest) -> Option<&Material> {
    manifest
        .associated_material
        .iter()
        .find(|m| m.kind == "notebook" || m.kind.ends_with("-notebook"))
}

/// The chapter's notebooks.yaml, or None when it has no stored notebook.
pub fn load(layout: &Layout, key: &ChapterKey) -> Result<Option<StoredNotebooks>> {
    let path = layout.notebook_state(key);
    if !path.exists() {
        return Ok(None);
    }
    crate::text::owned::check_owned(&path, &layout.snapshots_root())?;
    let state: StoredNotebooks = yaml_io::read(&path)?;
    state.check().map_err(|m| Error::invalid(&path, m))?;
    Ok(Some(state))
}

/// A notebook to store.
pub struct NewNotebook<'a> {
    pub bytes: &'a [u8],
    pub notebook: &'a Notebook,
    pub source: String,
    pub captured_at: DateTime<Utc>,
    /// Validators to keep, when it was downloaded.
    pub fetch: Option<FetchState>,
    pub obtained_by: ObtainedBy,
}

/// What storing a notebook did.
#[derive(Debug, Clone, Serialize)]
pub enum NotebookAdded {
    /// A new file was stored and made current.
    Stored(NotebookEntry),
    /// Its fingerprint is the current notebook's: nothing was written (a
    /// notebook saved after a run has the fingerprint it had).
    Unchanged(NotebookEntry),
    /// Its fingerprint is an older stored notebook's, which is current again.
    Reverted(NotebookEntry),
}

/// Stores `new` for the chapter `key` unless its fingerprint is already
/// current (as notebooks.yaml says under the chapter's lock). The notebook file is written before notebooks.yaml, never over
/// an existing file, and removed again if notebooks.yaml cannot be replaced.
pub fn add(layout: &Layout, key: &ChapterKey, new: NewNotebook<'_>) -> Result<NotebookAdded> {
    let fp = fingerprint(new.notebook);
    // One writer at a time, with notebooks.yaml read again under the lock
    // (see `ChapterLock`), not as the caller saw it before.
    let _lock = crate::chapter::ChapterLock::take(&layout.notebook_state(key))?;
    let fresh = load(layout, key)?;
    let state = fresh.as_ref();
    if let Some(s) = state
        && s.current().fingerprint == fp
    {
        return Ok(NotebookAdded::Unchanged(s.current().clone()));
    }
    let mut updated = state.cloned().unwrap_or_else(|| StoredNotebooks {
        schema: NOTEBOOKS_SCHEMA.into(),
        current_notebook: String::new(),
        notebooks: Vec::new(),
        fetch: FetchState::default(),
    });
    let mut written = None;
    let outcome = match updated.notebooks.iter().find(|n| n.fingerprint == fp) {
        Some(older) => {
            updated.current_notebook = older.file.clone();
            NotebookAdded::Reverted(older.clone())
        }
        None => {
            let file = Layout::new_notebook_name(updated.notebooks.len() + 1, &fp.value);
            let path = layout.notebook_file(key, &file);
            atomic::write_new(&path, new.bytes)?;
            written = Some(path);
            let entry = NotebookEntry {
                file: file.clone(),
                fingerprint: fp,
                sha256: hex(&Sha256::digest(new.bytes)),
                captured_at: new.captured_at,
                source: new.source,
                bytes: new.bytes.len() as u64,
                cells: new.notebook.cells.len(),
                code_cells: new.notebook.cells.iter().filter(|c| c.is_code()).count(),
                obtained_by: Some(new.obtained_by),
            };
            updated.notebooks.push(entry.clone());
            updated.current_notebook = file;
            NotebookAdded::Stored(entry)
        }
    };
    if let Some(f) = new.fetch {
        updated.fetch = f;
    }
    if let Err(e) = write_state(&layout.notebook_state(key), &updated) {
        if let Some(path) = written {
            let _ = std::fs::remove_file(path);
        }
        return Err(e);
    }
    Ok(outcome)
}

/// Replaces (or creates) a notebooks.yaml atomically.
fn write_state(path: &Path, state: &StoredNotebooks) -> Result<()> {
    let text = format!(
        "# Maintained by research_companion: the stored notebooks of this chapter.\n\
         # Edit chapter.yaml instead; this file is rewritten by `notebook add`.\n{}",
        yaml_io::to_string(state)?
    );
    atomic::replace(path, text.as_bytes())
}
