//! The chapters themselves: listing them with the state of their current
//! snapshot, verifying stored snapshots, and storing a new one.

use std::path::Path;

use serde::Serialize;

use super::Project;
use crate::chapter::{
    self, AddOutcome, Chapter, ChapterCheck, Integrity, NewSnapshot, Scope, SnapshotCurrency,
};
use crate::error::{Error, Result};

/// One chapter in a listing.
#[derive(Debug, Clone, Serialize)]
pub struct ChapterLine {
    pub chapter: String,
    pub stable_id: String,
    pub title: String,
    pub current_snapshot: String,
    pub scope: Scope,
    pub integrity: Integrity,
    pub currency: SnapshotCurrency,
}

/// Every registered chapter that loads, and the errors of those that do not.
pub fn list(project: &Project) -> (Vec<ChapterLine>, Vec<Error>) {
    let mut lines = Vec::new();
    let mut broken = Vec::new();
    for key in project.registry().keys() {
        let ch = match project.registry().load(key) {
            Ok(ch) => ch,
            Err(e) => {
                broken.push(e);
                continue;
            }
        };
        let check = chapter::verify(project.layout(), &ch);
        let current = check.current().expect("the current snapshot is listed");
        lines.push(ChapterLine {
            chapter: ch.key_str(),
            stable_id: ch.manifest.stable_id(),
            title: ch.manifest.chapter.title.clone(),
            current_snapshot: current.file.clone(),
            scope: current.scope,
            integrity: current.integrity,
            currency: check.currency,
        });
    }
    (lines, broken)
}

/// Verifies the chapters named (every chapter when none is).
pub fn verify(project: &Project, ids: &[String]) -> Result<Vec<ChapterCheck>> {
    let chapters = if ids.is_empty() {
        project.chapters(None)?
    } else {
        ids.iter()
            .map(|id| project.chapter(id))
            .collect::<Result<Vec<_>>>()?
    };
    Ok(chapters
        .iter()
        .map(|ch| chapter::verify(project.layout(), ch))
        .collect())
}

/// Where a snapshot came from, as a record that travels: the file's path
/// relative to the project root when it is inside it, else its name only
/// (never a machine's absolute path).
fn portable_source(project: &Project, file: &Path) -> String {
    let root = project.layout().root().canonicalize().ok();
    let real = file.canonicalize().ok();
    if let (Some(root), Some(real)) = (root, real)
        && let Ok(rel) = real.strip_prefix(&root)
    {
        return rel.display().to_string();
    }
    file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Stores the text of `file` as a new snapshot of `chapter` and makes it
/// current (unless its prose is already current). `source` says where the
/// text came from (default: the file's path).
pub fn add_snapshot(
    project: &Project,
    chapter: &Chapter,
    file: &Path,
    source: Option<String>,
    scope: Scope,
) -> Result<AddOutcome> {
    let text = crate::text::read_utf8(file)?;
    let new = NewSnapshot {
        text: &text,
        source: source
            .map(|s| crate::text::redact_url(&s))
            .unwrap_or_else(|| portable_source(project, file)),
        scope,
        captured_at: chrono::Utc::now(),
        fetch: None,
    };
    chapter::add_snapshot(project.layout(), chapter, new)
}

/// Moves a first-shape chapter.yaml's snapshot list into snapshots.yaml, once,
/// at the author's request: snapshots.yaml is written first, then chapter.yaml
/// loses only the tool's keys (every other line and comment stays). Returns
/// false when the chapter was already in the current shape.
pub fn migrate(project: &Project, chapter: &Chapter) -> Result<bool> {
    if !chapter.legacy {
        return Ok(false);
    }
    let original = crate::yaml_io::read_text(&chapter.manifest_path)?;
    let migrated = crate::chapter::manifest::strip_tool_keys(&original);
    // The new text must read back as the same person-written manifest.
    let check: crate::chapter::ChapterManifest =
        crate::yaml_io::from_str(&migrated, &chapter.manifest_path)?;
    check
        .check()
        .map_err(|m| Error::invalid(&chapter.manifest_path, m))?;
    let _ = project;
    let state = crate::chapter::state_text(&chapter.state)?;
    crate::atomic::write_new(&chapter.state_path, state.as_bytes())?;
    if let Err(e) = crate::atomic::replace(&chapter.manifest_path, migrated.as_bytes()) {
        let _ = std::fs::remove_file(&chapter.state_path);
        return Err(e);
    }
    Ok(true)
}
