//! The chapter's notebook as its records judge it: the latest notebook run
//! against the notebook and the chapter as they are now (PASS, FAIL,
//! FLAKY, NEVER_RUN, or STALE when either changed since), as `status`, the
//! prompt, the report, `publish` and the site show it.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::Record;
use crate::chapter::Chapter;
use crate::ids::RunId;
use crate::notebook::provenance::{NotebookProvenance, provenance};
use crate::notebook::{NotebookInfo, NotebookVerdict, StoredNotebooks};

/// A chapter's notebook state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::Display)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
pub enum NotebookState {
    /// The latest run, of the current notebook and chapter, passed.
    Pass,
    /// ... failed.
    Fail,
    /// ... had a cell that failed in some runs only.
    Flaky,
    /// No run is recorded (or no notebook is stored yet).
    NeverRun,
    /// The notebook or the chapter changed since the latest run.
    Stale,
}

/// The latest notebook run, in a line.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookRunLine {
    pub run_id: RunId,
    pub recorded_at: DateTime<Utc>,
    pub verdict: NotebookVerdict,
    pub summary: String,
    /// The stored notebook it ran.
    pub notebook_file: String,
    /// Where that notebook came from: the published one or a local copy.
    pub provenance: NotebookProvenance,
    /// The environment's id (12 hex digits) and its CPUs.
    pub env_id: String,
    pub logical_cpus: usize,
}

/// The chapter's notebook, as its records judge it.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookStatus {
    /// The chapter, `book/chapter`.
    pub chapter: String,
    pub state: NotebookState,
    /// The current stored notebook, when one is stored.
    pub notebook: Option<String>,
    /// Where chapter.yaml says it is published, when it says.
    pub published_at: Option<String>,
    /// Where the current stored notebook came from, when one is stored.
    pub provenance: Option<NotebookProvenance>,
    /// The latest run ran another notebook than the current one.
    pub notebook_changed: bool,
    /// The latest run examined another revision of the chapter.
    pub chapter_changed: bool,
    /// Why the latest run is STALE, or why there is none.
    pub reasons: Vec<String>,
    pub latest: Option<NotebookRunLine>,
    pub notebook_runs: usize,
}

/// The chapter's notebook state, or None when the chapter has no notebook
/// (none stored and none listed in chapter.yaml). `records` newest first.
pub fn notebook_status(
    chapter: &Chapter,
    stored: Option<&StoredNotebooks>,
    records: &[Record],
) -> Option<NotebookStatus> {
    // Only a notebook chapter.yaml names by URL is published (issue 52); a
    // file name there is where a local copy came from.
    let published_url = crate::notebook::store::published_notebook(&chapter.manifest)
        .map(|m| m.url.as_str())
        .filter(|u| u.contains("://"));
    let published_at = published_url.map(crate::text::redact::redact_url);
    let origin = |file: &str| {
        stored.map_or(NotebookProvenance::Unlisted, |s| {
            provenance(s, published_url, file)
        })
    };
    if stored.is_none() && published_at.is_none() {
        return None;
    }
    let runs: Vec<(&Record, &NotebookInfo)> = records
        .iter()
        // A retracted run is no evidence of the notebook. A notebook run is
        // any record with one: a notebook record, or an experiment that
        // `reproduce` made with the chapter's notebook run beside it.
        .filter(|r| r.notebook.is_some() && r.retraction.is_none())
        .filter_map(|r| r.notebook.as_ref().map(|n| (r, n)))
        .collect();
    let latest = runs.first().map(|(r, n)| NotebookRunLine {
        run_id: r.run_id.clone(),
        recorded_at: r.recorded_at,
        verdict: n.verdict,
        summary: n.summary.clone(),
        notebook_file: n.notebook_file.clone(),
        provenance: origin(&n.notebook_file),
        env_id: crate::env::short_id(&r.environment.env_id),
        logical_cpus: r.environment.identity.logical_cpus,
    });
    let mut reasons = Vec::new();
    let (mut notebook_changed, mut chapter_changed) = (false, false);
    let state = match (stored, runs.first()) {
        (None, _) => {
            reasons.push("no notebook is stored for the chapter yet".to_string());
            NotebookState::NeverRun
        }
        (Some(_), None) => {
            reasons.push("no notebook run is recorded".to_string());
            NotebookState::NeverRun
        }
        (Some(s), Some((r, n))) => {
            let current = s.current();
            if n.fingerprint != current.fingerprint {
                notebook_changed = true;
                reasons.push(format!(
                    "the notebook changed since the run: it ran {}, the current one is {} (nb-v1 {} to {})",
                    origin(&n.notebook_file).label(&n.notebook_file),
                    origin(&current.file).label(&current.file),
                    n.fingerprint.short(),
                    current.fingerprint.short()
                ));
            }
            if r.revision.fingerprint != chapter.state.current().fingerprint {
                chapter_changed = true;
                reasons.push(format!(
                    "the chapter changed since the run: {}",
                    revision_change(chapter, &r.revision)
                ));
            }
            match n.verdict {
                _ if !reasons.is_empty() => NotebookState::Stale,
                NotebookVerdict::Pass => NotebookState::Pass,
                NotebookVerdict::Flaky => NotebookState::Flaky,
                NotebookVerdict::Fail | NotebookVerdict::NotReached => NotebookState::Fail,
            }
        }
    };
    Some(NotebookStatus {
        chapter: chapter.key_str(),
        state,
        notebook: stored.map(|s| s.current_notebook.clone()),
        published_at,
        provenance: stored.map(|s| origin(&s.current_notebook)),
        notebook_changed,
        chapter_changed,
        reasons,
        latest,
        notebook_runs: runs.len(),
    })
}

/// How the chapter's current snapshot differs from the revision a run
/// examined, in words: `snapshot snapshots/0002-....txt, added on
/// 2026-12-05, replaced snapshots/0001-....txt (prose-v1 a7d34947a6b4 to
/// 0c1d2e3f4a5b)`.
pub fn revision_change(chapter: &Chapter, examined: &super::Revision) -> String {
    let current = chapter.state.current();
    format!(
        "snapshot {}, added on {}, replaced {} (prose-v1 {} to {})",
        current.file,
        current.captured_at.format("%Y-%m-%d"),
        examined.snapshot,
        examined.fingerprint.short(),
        current.fingerprint.short()
    )
}

/// A stored notebook's file with where it came from.
pub fn notebook_label(
    chapter: &Chapter,
    stored: Option<&crate::notebook::StoredNotebooks>,
    file: &str,
) -> String {
    let url = crate::notebook::store::published_notebook(&chapter.manifest)
        .map(|m| m.url.as_str())
        .filter(|u| u.contains("://"));
    stored
        .map_or(
            crate::notebook::provenance::NotebookProvenance::Unlisted,
            |s| crate::notebook::provenance::provenance(s, url, file),
        )
        .label(file)
}

impl NotebookStatus {
    /// One line: `PASS (run ..., 2026-12-01, env ...): <summary>`, or the
    /// reason there is no run.
    pub fn line(&self) -> String {
        let mut s = format!("notebook {}", self.state);
        if let Some(file) = &self.notebook {
            s.push_str(&format!(" {file}"));
            if let Some(p) = &self.provenance {
                s.push_str(&format!(" ({})", p.short()));
            }
        }
        if let Some(l) = &self.latest {
            s.push_str(&format!(
                ": latest run {} on {}, env {} ({} CPUs): {}",
                l.run_id,
                l.recorded_at.format("%Y-%m-%d"),
                l.env_id,
                l.logical_cpus,
                l.summary
            ));
        }
        for r in &self.reasons {
            s.push_str(&format!(" ({r})"));
        }
        s
    }
}
