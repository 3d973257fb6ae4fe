//! `notebook report`: the book's execution report from the records, one row
//! per chapter that has a notebook: its state, the latest run's runtime and
//! counts, and what the audit of the stored notebook finds.

use serde::Serialize;

use super::{Project, current_notebook, status};
use crate::error::Result;
use crate::notebook::audit;
use crate::notebook::scrub::LocalFacts;
use crate::records::notebook_status::NotebookState;

/// One chapter's row.
#[derive(Debug, Clone, Serialize)]
pub struct ReportRow {
    pub chapter: String,
    /// The current stored notebook, or where chapter.yaml says it is.
    pub notebook: String,
    /// Where the current stored notebook came from: `published`, `local
    /// copy of ...` (None when none is stored).
    pub origin: Option<String>,
    pub status: NotebookState,
    /// The latest run's mean wall time per fresh kernel, in seconds.
    pub runtime_seconds: Option<f64>,
    pub code_cells: Option<usize>,
    pub assertion_cells: Option<usize>,
    pub flaky_cells: Option<usize>,
    /// Findings of `notebook check` on the stored notebook (None when none
    /// is stored, or it cannot be read).
    pub audit_findings: Option<usize>,
    pub run_id: Option<String>,
    /// Why the state is STALE or NEVER_RUN.
    pub reasons: Vec<String>,
}

/// The rows, and what could not be read (one line each).
#[derive(Debug, Clone, Serialize)]
pub struct BookReport {
    pub rows: Vec<ReportRow>,
    #[serde(skip)]
    pub problems: Vec<String>,
}

/// The execution report of every chapter with a notebook, of one book when
/// `book` is given.
pub fn report(project: &Project, book: Option<&str>) -> Result<BookReport> {
    let (chapters, mut problems) = project.all_chapters()?;
    let facts = LocalFacts::of_this_machine();
    let mut rows = Vec::new();
    for ch in chapters
        .iter()
        .filter(|c| book.is_none_or(|b| c.key.book.as_str() == b))
    {
        let (records, broken) = project.records(ch)?;
        problems.extend(
            broken
                .iter()
                .map(|b| format!("unreadable record: {}", b.error)),
        );
        let st = match status(project, ch, &records) {
            Ok(Some(st)) => st,
            Ok(None) => continue,
            Err(e) => {
                problems.push(format!("{}: {e}", ch.key));
                continue;
            }
        };
        let latest = records
            .iter()
            .find(|r| r.notebook.is_some())
            .and_then(|r| r.notebook.as_ref().map(|n| (r, n)));
        let audit_findings =
            match super::stored(project, ch).and_then(|s| current_notebook(project, ch, &s)) {
                Ok((_, nb)) => Some(audit::audit(&nb, &facts).len()),
                Err(e) => {
                    if st.notebook.is_some() {
                        problems.push(format!("{}: {e}", ch.key));
                    }
                    None
                }
            };
        rows.push(ReportRow {
            chapter: ch.key_str(),
            notebook: st
                .notebook
                .clone()
                .or_else(|| st.published_at.clone())
                .unwrap_or_default(),
            origin: st.provenance.as_ref().map(|p| p.short()),
            status: st.state,
            runtime_seconds: latest.map(|(_, n)| n.wall_seconds / n.repeat.max(1) as f64),
            code_cells: latest.map(|(_, n)| n.code_cells),
            assertion_cells: latest.map(|(_, n)| n.assertion_cells),
            flaky_cells: latest.map(|(_, n)| n.flaky),
            audit_findings,
            run_id: latest.map(|(r, _)| r.run_id.to_string()),
            reasons: st.reasons.clone(),
        });
    }
    Ok(BookReport { rows, problems })
}
