//! A chapter's runs on the site: the newest ones on its page (with the
//! latest research run's report rendered), and its whole history on pages
//! of their own beside it (`<chapter>/history-1.html`, newest first,
//! linked to each other and from the chapter's page). A run is shown from
//! what its record holds; only the reports rendered inline read evidence,
//! so paging through 10,000 runs reads no run file.

use std::collections::HashMap;

use serde::Serialize;

use super::folder::SiteFile;
use super::links::FileLinks;
use crate::app::{Project, changes};
use crate::chapter::Chapter;
use crate::error::Result;
use crate::records::Record;
use crate::records::status::{self, RunCurrency};
use crate::render::{SITE_HISTORY_TEMPLATE, Templates};

/// How many of the newest runs the chapter's page lists.
pub const LATEST_RUNS: usize = 20;
/// How many runs a page of the history lists.
pub const RUNS_PER_PAGE: usize = 100;

#[derive(Debug, Serialize)]
pub struct HistoryRow {
    run_id: String,
    /// The run's anchor on the page (`run-<stem>`), which the book site's
    /// data links to.
    anchor: String,
    kind: String,
    date: String,
    revision: String,
    current: bool,
    environment: String,
    summary: String,
    changed_since: Option<String>,
    record_link: Option<String>,
    evidence_link: Option<String>,
    /// What the evidence file is: `report (Markdown)`, `run file`.
    evidence_label: &'static str,
    report_html: Option<String>,
}

/// Makes rows, diffing each older revision against the current one once.
pub struct Rows<'a> {
    project: &'a Project,
    ch: &'a Chapter,
    links: &'a FileLinks,
    since: HashMap<String, Option<String>>,
    /// The chapter's stored notebooks, to say which one a notebook run used.
    stored: Option<crate::notebook::StoredNotebooks>,
}

impl<'a> Rows<'a> {
    pub fn new(project: &'a Project, ch: &'a Chapter, links: &'a FileLinks) -> Self {
        Rows {
            project,
            ch,
            links,
            since: HashMap::new(),
            stored: crate::notebook::store::load(project.layout(), &ch.key)
                .ok()
                .flatten(),
        }
    }

    /// `r`'s row for a page `depth` folders below the site's root, with
    /// its report rendered when `report_html` is given.
    pub fn row(&mut self, r: &Record, depth: usize, report_html: Option<String>) -> HistoryRow {
        let (project, ch) = (self.project, self.ch);
        let current = ch.state.current();
        let is_current = status::currency(ch, r) == RunCurrency::Current;
        let changed_since = if is_current {
            None
        } else {
            self.since
                .entry(r.revision.snapshot.clone())
                .or_insert_with(|| {
                    ch.state
                        .snapshot(&r.revision.snapshot)
                        .and_then(|from| changes::between(project, ch, from, current).ok())
                        .map(|c| c.summary())
                })
                .clone()
        };
        let (summary, evidence_file, evidence_label) = summary(r);
        // Which notebook a notebook run used, and where it came from.
        let summary = match &r.notebook {
            Some(n) => format!(
                "{summary}; ran {}",
                crate::records::notebook_status::notebook_label(
                    ch,
                    self.stored.as_ref(),
                    &n.notebook_file
                )
            ),
            None => summary,
        };
        let summary = match &r.retraction {
            Some(x) => format!("{} (no longer research or evidence). {summary}", x.label()),
            None => summary,
        };
        let layout = project.layout();
        let key = &r.run_id.chapter;
        HistoryRow {
            run_id: r.run_id.to_string(),
            anchor: format!("run-{}", r.run_id.stem()),
            kind: r.kind.to_string(),
            date: r.recorded_at.format("%Y-%m-%d %H:%M UTC").to_string(),
            revision: r.revision.fingerprint.short().to_string(),
            current: is_current,
            environment: environment_label(&r.environment),
            summary,
            changed_since,
            record_link: self
                .links
                .to(project, &layout.record_file(&r.run_id), depth),
            evidence_link: evidence_file.and_then(|f| {
                self.links
                    .to(project, &layout.evidence_file(key, &f), depth)
            }),
            evidence_label,
            report_html,
        }
    }
}

/// An environment in words: `env 0123456789ab (2 CPUs, <CPU model>)`.
pub fn environment_label(env: &crate::env::Environment) -> String {
    format!(
        "env {} ({} CPUs, {})",
        crate::env::short_id(&env.env_id),
        env.identity.logical_cpus,
        env.identity.cpu_model
    )
}

/// What a run found, in words from its record alone, its evidence file,
/// and what that file is.
fn summary(r: &Record) -> (String, Option<String>, &'static str) {
    match (&r.report, &r.experiment) {
        (Some(p), _) => {
            let what = if p.draft {
                "research report (draft, not counted as research)"
            } else if p.complete {
                "research report, all seven sections"
            } else {
                "research report with missing sections"
            };
            (what.to_string(), Some(p.file.clone()), "report (Markdown)")
        }
        (None, Some(x)) => {
            // A disturbed run says so, and why it holds nothing against
            // the chapter.
            let mark = status::disturbed_mark(r).map_or_else(String::new, |m| {
                format!(" ({m}; rounds without an undisturbed run did not count)")
            });
            // An earlier measurement says so before its result.
            let earlier = x
                .earlier_measurement()
                .map(|m| format!("An earlier measurement ({m}): "))
                .unwrap_or_default();
            (
                format!("{earlier}{}{mark}", x.summary),
                Some(x.file.clone()),
                "run file",
            )
        }
        (None, None) => match &r.notebook {
            Some(n) => (n.summary.clone(), Some(n.file.clone()), "run file"),
            None => (String::new(), None, ""),
        },
    }
}

/// The file of history page `n` (1: the newest runs), from the chapter's
/// page.
pub fn page_link(ch: &Chapter, n: usize) -> String {
    format!("{}/history-{n}.html", ch.key.chapter.as_str())
}

/// How many history pages `runs` runs take.
pub fn page_count(runs: usize) -> usize {
    runs.div_ceil(RUNS_PER_PAGE)
}

#[derive(Debug, Serialize)]
struct HistoryPage {
    key: String,
    title: String,
    book_title: String,
    chapter_id: String,
    chapter_page: String,
    page: usize,
    pages: usize,
    runs_total: usize,
    first: usize,
    last: usize,
    prev: Option<String>,
    next: Option<String>,
    runs: Vec<HistoryRow>,
    generated: String,
}

/// Every run of the chapter (`records`, newest first, retracted ones
/// included) on pages of [`RUNS_PER_PAGE`], linked to each other.
pub fn history_pages(
    project: &Project,
    templates: &Templates,
    ch: &Chapter,
    records: &[Record],
    links: &FileLinks,
    generated: &str,
) -> Result<Vec<SiteFile>> {
    let pages = page_count(records.len());
    let mut rows = Rows::new(project, ch, links);
    let name = |n: usize| format!("history-{n}.html");
    let mut files = Vec::new();
    for (i, chunk) in records.chunks(RUNS_PER_PAGE).enumerate() {
        let n = i + 1;
        let page = HistoryPage {
            key: ch.key.to_string(),
            title: ch.manifest.chapter.title.clone(),
            book_title: ch.manifest.book.title.clone(),
            chapter_id: ch.key.chapter.to_string(),
            chapter_page: format!("../{}.html", ch.key.chapter.as_str()),
            page: n,
            pages,
            runs_total: records.len(),
            first: i * RUNS_PER_PAGE + 1,
            last: i * RUNS_PER_PAGE + chunk.len(),
            prev: (n > 1).then(|| name(n - 1)),
            next: (n < pages).then(|| name(n + 1)),
            runs: chunk.iter().map(|r| rows.row(r, 2, None)).collect(),
            generated: generated.to_string(),
        };
        files.push((
            format!(
                "{}/{}/{}",
                ch.key.book.as_str(),
                ch.key.chapter.as_str(),
                name(n)
            ),
            templates.render(SITE_HISTORY_TEMPLATE, &page)?.into_bytes(),
        ));
    }
    Ok(files)
}

/// How much report Markdown one chapter page shows inline (4 MiB: two
/// reports at the 2 MiB a record holds, rendered, stay well inside the
/// page's 16 MiB). A report past what is left, as one an older version
/// stored may be, is linked and not shown.
const INLINE_REPORT_BYTES: usize = 4 << 20;

/// The reports the chapter's page renders: the latest research run's (the
/// newest live run with a report, and the newest complete one when that is
/// another), each with its text.
pub struct InlineReports {
    reports: Vec<(Record, String)>,
}

impl InlineReports {
    /// The newest complete report's run id and items, for the answers
    /// beside the verdicts.
    pub fn answers(&self) -> Option<(String, crate::records::report_items::ReportItems)> {
        self.reports
            .iter()
            .find(|(r, _)| complete(r))
            .map(|(r, text)| {
                (
                    r.run_id.to_string(),
                    crate::records::report_items::read(text),
                )
            })
    }

    fn text(&self, r: &Record) -> Option<&str> {
        self.reports
            .iter()
            .find(|(x, _)| x.run_id == r.run_id)
            .map(|(_, t)| t.as_str())
    }
}

/// Whether a record is complete research: a live report with every
/// section, not a draft.
fn complete(r: &Record) -> bool {
    r.retraction.is_none() && r.report.as_ref().is_some_and(|p| p.complete && !p.draft)
}

/// Reads the reports the chapter's page renders (`records` newest first);
/// a report that cannot be read is said in `problems`, and the one before
/// it is taken.
pub fn inline_reports(
    project: &Project,
    records: &[Record],
    problems: &mut Vec<String>,
) -> InlineReports {
    let mut reports: Vec<(Record, String)> = Vec::new();
    let mut read = |r: &Record| match crate::app::runs::report_text(project, r) {
        Ok(Some(text)) => Some(text),
        Ok(None) => None,
        Err(e) => {
            problems.push(format!("unreadable evidence: {e}"));
            None
        }
    };
    let live = || {
        records
            .iter()
            .filter(|r| r.retraction.is_none() && r.report.is_some())
    };
    if let Some(newest) = live().next()
        && let Some(text) = read(newest)
    {
        reports.push((newest.clone(), text));
    }
    if !reports.iter().any(|(r, _)| complete(r)) {
        for r in live().filter(|r| complete(r)) {
            if reports.iter().any(|(x, _)| x.run_id == r.run_id) {
                continue;
            }
            if let Some(text) = read(r) {
                reports.push((r.clone(), text));
                break;
            }
        }
    }
    InlineReports { reports }
}

/// The runs the chapter's page lists, newest first: the [`LATEST_RUNS`]
/// newest, and older ones the page shows: the experiments its claims come
/// from (`shown`, by run id), the reports it renders, and the latest
/// notebook run.
pub fn chapter_runs(
    project: &Project,
    ch: &Chapter,
    records: &[Record],
    links: &FileLinks,
    shown: &[String],
    reports: &InlineReports,
) -> Vec<HistoryRow> {
    let mut rows = Rows::new(project, ch, links);
    let latest_notebook = records
        .iter()
        .find(|r| r.retraction.is_none() && r.notebook.is_some())
        .map(|r| r.run_id.clone());
    let mut inline_left = INLINE_REPORT_BYTES;
    records
        .iter()
        .enumerate()
        .filter(|(i, r)| {
            *i < LATEST_RUNS
                || shown.contains(&r.run_id.to_string())
                || reports.text(r).is_some()
                || latest_notebook.as_ref() == Some(&r.run_id)
        })
        .map(|(_, r)| {
            let html = reports.text(r).map(|t| {
                if t.len() <= inline_left {
                    inline_left -= t.len();
                    crate::render::markdown::to_html(t)
                } else {
                    format!(
                        "<p>This report ({} bytes) is too large to show on this page; the Markdown file linked above holds it whole.</p>",
                        t.len()
                    )
                }
            });
            rows.row(r, 1, html)
        })
        .collect()
}
