//! The chapter's research record as the next research pass and the book's
//! site read it: every research run with its report read into items, and
//! what changed in the prose since each one. `documents` (the prompt and
//! the report draft) and `publish` (the site data) start from here, so the
//! three never disagree about what the last research found.

use super::{Project, changes};
use crate::chapter::Chapter;
use crate::records::report_items::{self, ReportItems};
use crate::records::{Record, RunKind};
use crate::render::record_view::{self, HistoryView};

/// A research run, with its report.
#[derive(Debug, Clone)]
pub struct ResearchRun {
    pub record: Record,
    /// The report's text; None when it could not be read.
    pub text: Option<String>,
    pub items: Option<ReportItems>,
}

impl ResearchRun {
    /// Whether it counts as research with every section: complete, not a
    /// draft, and not retracted.
    pub fn complete(&self) -> bool {
        Self::is_complete(&self.record)
    }

    /// [`complete`](Self::complete) from the record alone.
    pub fn is_complete(record: &Record) -> bool {
        record.retraction.is_none()
            && record
                .report
                .as_ref()
                .is_some_and(|p| p.complete && !p.draft)
    }
}

/// The research runs of a chapter whose reports were read, newest first,
/// drafts and retracted runs included (the history shows them; only
/// complete ones are read into items). A long history is not read whole:
/// see [`read`].
#[derive(Debug, Clone, Default)]
pub struct ResearchRecord {
    pub runs: Vec<ResearchRun>,
    /// Reports that could not be read, one line each.
    pub unreadable: Vec<String>,
    /// Research runs whose reports were not read (past what was asked).
    pub not_read: usize,
    /// Of them, complete ones: ledgers nothing here looked at.
    pub complete_not_read: usize,
}

impl ResearchRecord {
    /// The complete runs whose reports could be read, newest first.
    pub fn complete(&self) -> impl Iterator<Item = &ResearchRun> {
        self.runs
            .iter()
            .filter(|r| r.complete() && r.items.is_some())
    }

    /// The latest complete run, and its items.
    pub fn latest(&self) -> Option<(&ResearchRun, &ReportItems)> {
        self.complete()
            .next()
            .and_then(|r| r.items.as_ref().map(|i| (r, i)))
    }
}

/// Which reports [`read`] reads: those of the runs a document lists, and
/// the newest complete ones up to a number (a report that cannot be read
/// does not count, so the one before it is read instead).
#[derive(Debug, Clone, Copy)]
pub struct ReportsToRead<'a> {
    /// Runs whose reports are read whatever they are.
    pub listed: &'a [&'a crate::ids::RunId],
    /// How many complete reports that can be read are read, newest first.
    pub complete: usize,
}

impl ReportsToRead<'_> {
    /// Only the latest complete report.
    pub const LATEST: ReportsToRead<'static> = ReportsToRead {
        listed: &[],
        complete: 1,
    };
}

/// Reads the reports of the research runs among `records` (newest first)
/// that `reading` asks for; the others are counted, not read, so 3,000
/// research runs cost as much as the few a document shows.
pub fn read(project: &Project, records: &[Record], reading: ReportsToRead<'_>) -> ResearchRecord {
    let mut out = ResearchRecord::default();
    let mut complete_read = 0;
    for r in records.iter().filter(|r| r.kind == RunKind::Research) {
        let complete = ResearchRun::is_complete(r);
        let wanted =
            reading.listed.contains(&&r.run_id) || (complete && complete_read < reading.complete);
        if !wanted {
            out.not_read += 1;
            out.complete_not_read += usize::from(complete);
            continue;
        }
        let text = match super::runs::report_text(project, r) {
            Ok(t) => t,
            Err(e) => {
                out.unreadable
                    .push(format!("the report of {}: {e}", r.run_id));
                None
            }
        };
        complete_read += usize::from(complete && text.is_some());
        out.runs.push(ResearchRun {
            record: r.clone(),
            items: text.as_deref().map(report_items::read),
            text,
        });
    }
    out
}

/// What changed in the prose between the revisions two records examined;
/// None when they examined the same one (or one is not stored).
pub fn changed_between(
    project: &Project,
    chapter: &Chapter,
    from: &Record,
    to_snapshot: &str,
) -> Option<changes::ProseChange> {
    if from.revision.snapshot == to_snapshot {
        return None;
    }
    let a = chapter.state.snapshot(&from.revision.snapshot)?;
    let b = chapter.state.snapshot(to_snapshot)?;
    changes::between(project, chapter, a, b).ok()
}

/// The runs the prompt's history lists, from `records` (every run, newest
/// first, retracted ones included): a bounded selection
/// ([`PROMPT_HISTORY`](crate::records::selection::PROMPT_HISTORY)), each
/// with its result (a research run's from its report in `research`) and
/// what changed in the chapter since its revision; and the runs it leaves
/// out, counted.
pub fn history(
    project: &Project,
    chapter: &Chapter,
    records: &[Record],
    research: &ResearchRecord,
) -> (Vec<HistoryView>, crate::records::selection::LeftOut) {
    use crate::records::selection::{PROMPT_HISTORY, select};
    let current = &chapter.state.current_snapshot;
    let (kept, left_out) = select(chapter, records, PROMPT_HISTORY);
    let items: std::collections::HashMap<&crate::ids::RunId, Option<&ReportItems>> = research
        .runs
        .iter()
        .map(|r| (&r.record.run_id, r.items.as_ref()))
        .collect();
    // One prose comparison per revision, however many runs examined it.
    let mut changes: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let lines = kept
        .into_iter()
        .map(|r| {
            let changed = if r.revision.fingerprint == chapter.state.current().fingerprint {
                None
            } else {
                Some(
                    changes
                        .entry(r.revision.snapshot.clone())
                        .or_insert_with(|| {
                            changed_between(project, chapter, r, current)
                                .map(|c| c.summary())
                                .unwrap_or_else(|| {
                                    "its revision is no longer stored, so the change cannot be shown"
                                        .into()
                                })
                        })
                        .clone(),
                )
            };
            let report = items.get(&r.run_id).copied().flatten();
            record_view::history_view(chapter, r, report, changed)
        })
        .collect();
    (lines, left_out)
}
