//! A chapter's page of the HTML site: its claims and tables as each
//! environment's latest experiment found them, with plots, and its history
//! with the reports rendered; the records are copied beside it.

use serde::Serialize;

use super::folder::SiteFile;
use crate::app::{Project, changes, diff, runs};
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use crate::records::Record;
use crate::records::RunKind;
use crate::records::status::{self, ChapterStatus, ClaimsSummary, RunCurrency};
use crate::render::{SITE_CHAPTER_TEMPLATE, Templates, markdown};
use crate::text::number;

/// The newest experiment's claims counted, and the engine that measured it.
pub type Newest = Option<(ClaimsSummary, String)>;

#[derive(Debug, Serialize)]
struct ClaimRow {
    id: String,
    quote: String,
    location: String,
    published_formula: String,
    measured_formula: Option<String>,
    published: String,
    measured: Option<String>,
    ratio: Option<String>,
    criterion: String,
    verdict: String,
    /// A word for the verdict's class, for the stylesheet: ok, warn, bad,
    /// none.
    tone: &'static str,
    reason: Option<String>,
    closest_sentence: Option<String>,
}

#[derive(Debug, Serialize)]
struct CellPair {
    column: String,
    published: String,
    measured: String,
    ratio: Option<String>,
}

#[derive(Debug, Serialize)]
struct RowPair {
    workers: usize,
    cells: Vec<CellPair>,
}

#[derive(Debug, Serialize)]
struct TablePair {
    header: String,
    same_settings: bool,
    rows: Vec<RowPair>,
    unmeasured_workers: Vec<usize>,
}

/// The latest experiment of one environment and engine.
#[derive(Debug, Serialize)]
struct EvidenceBlock {
    environment: String,
    engine: String,
    run_id: String,
    date: String,
    revision: String,
    of_current_revision: bool,
    claims: Vec<ClaimRow>,
    tables: Vec<TablePair>,
    plot: Option<String>,
}

#[derive(Debug, Serialize)]
struct HistoryRow {
    run_id: String,
    kind: String,
    date: String,
    revision: String,
    current: bool,
    environment: String,
    summary: String,
    changed_since: Option<String>,
    record_link: String,
    evidence_link: Option<String>,
    report_html: Option<String>,
}

#[derive(Debug, Serialize)]
struct ChapterPage {
    key: String,
    book_id: String,
    book_title: String,
    chapter_id: String,
    title: String,
    stable_id: String,
    url: Option<String>,
    snapshot_file: String,
    scope: String,
    fingerprint: String,
    normalization: String,
    published_fingerprint: Option<String>,
    currency: String,
    state: String,
    state_label: String,
    stale_reasons: Vec<String>,
    evidence: Vec<EvidenceBlock>,
    history: Vec<HistoryRow>,
    generated: String,
}

/// How the current snapshot compares with the published fingerprint.
pub fn currency(ch: &Chapter) -> String {
    use crate::chapter::SnapshotCurrency as C;
    match ch.currency() {
        C::NotPublished => "no published fingerprint",
        C::Matches => "matches the published fingerprint",
        C::ExcerptCannotMatch => "cannot match: the snapshot is an excerpt",
        C::Differs => "differs from the published fingerprint",
    }
    .into()
}

fn claim_row(c: &crate::published::diff::ClaimResult) -> ClaimRow {
    use crate::published::verdict::ClaimVerdict as V;
    let tone = match c.verdict {
        _ if !c.quote_found => "bad",
        V::NotReproduced => "bad",
        V::Reproduced
            if c.magnitude_differs.is_some() || c.model_limit.is_some() || !c.prose_consistent =>
        {
            "warn"
        }
        V::Reproduced => "ok",
        V::NotComparable => "warn",
        V::Unrun => "none",
    };
    ClaimRow {
        id: c.id.clone(),
        quote: c.quote.clone(),
        location: c.location.clone(),
        published_formula: c.published_formula.clone(),
        measured_formula: c.measured_formula.clone(),
        published: number(c.published),
        measured: c.measured.map(number),
        ratio: c.ratio.map(number),
        criterion: c.criterion.clone(),
        verdict: c.flagged().to_string(),
        tone,
        reason: c.reason.clone(),
        closest_sentence: c.closest_sentence.clone(),
    }
}

/// The path of a chapter's page in the site, from the site's root.
pub fn page_path(ch: &Chapter) -> String {
    format!("{}/{}.html", ch.key.book.as_str(), ch.key.chapter.as_str())
}

/// Where a chapter's raw records are copied in the site, from its root.
fn records_path(ch: &Chapter) -> String {
    format!(
        "records/{}/{}",
        ch.key.book.as_str(),
        ch.key.chapter.as_str()
    )
}

/// The latest experiment of each environment and engine, newest first.
fn latest_per_environment(project: &Project, records: &[Record]) -> Vec<runs::RecordedRun> {
    let mut seen: Vec<(String, bool)> = Vec::new();
    let mut out = Vec::new();
    for r in records.iter().filter(|r| r.kind == RunKind::Experiment) {
        let Ok(e) = runs::experiment(project, r.clone()) else {
            continue;
        };
        let key = (r.environment.env_id.clone(), e.run.reference.is_some());
        if !seen.contains(&key) {
            seen.push(key);
            out.push(e);
        }
    }
    out
}

fn environment_label(env: &crate::env::Environment) -> String {
    format!(
        "env {} ({} CPUs, {})",
        crate::env::short_id(&env.env_id),
        env.identity.logical_cpus,
        env.identity.cpu_model
    )
}

/// The latest experiment of each environment and engine, each with its
/// plot (added to `files`); and the newest one's claims counted.
fn evidence_blocks(
    project: &Project,
    ch: &Chapter,
    records: &[Record],
    files: &mut Vec<SiteFile>,
) -> Result<(Vec<EvidenceBlock>, Newest)> {
    let mut counts = None;
    let mut evidence = Vec::new();
    for e in latest_per_environment(project, records) {
        let diffed = diff::diff_recorded(project, ch, &e)?;
        if counts.is_none() {
            // Counted as `status` counts, but from the comparison made now
            // (today's claims file), as the page shows the claims.
            let verdicts = diff::stored_verdicts(&diffed.diff);
            counts = Some((ClaimsSummary::of(&verdicts), e.run.evidence()));
        }
        let plot = if diffed.tables.is_empty() {
            None
        } else {
            let name = format!("{}-{}.svg", ch.key.chapter.as_str(), e.record.run_id.stem());
            let svg = crate::published::plot::svg(&diffed.tables, &e.run)?;
            files.push((format!("{}/{name}", ch.key.book.as_str()), svg.into_bytes()));
            Some(name)
        };
        evidence.push(EvidenceBlock {
            environment: environment_label(&e.run.environment),
            engine: e.run.evidence(),
            run_id: e.record.run_id.to_string(),
            date: e
                .record
                .recorded_at
                .format("%Y-%m-%d %H:%M UTC")
                .to_string(),
            revision: e.record.revision.fingerprint.short().to_string(),
            of_current_revision: e.record.revision.fingerprint == ch.state.current().fingerprint,
            claims: diffed.diff.claims.iter().map(claim_row).collect(),
            tables: diffed
                .diff
                .tables
                .iter()
                .map(|t| TablePair {
                    header: t.header.clone(),
                    same_settings: t.same_settings,
                    rows: t
                        .rows
                        .iter()
                        .map(|r| RowPair {
                            workers: r.workers,
                            cells: r
                                .cells
                                .iter()
                                .map(|c| CellPair {
                                    column: c.column.clone(),
                                    published: number(c.published),
                                    measured: number(c.measured),
                                    ratio: c.ratio.map(number),
                                })
                                .collect(),
                        })
                        .collect(),
                    unmeasured_workers: t.unmeasured_workers.clone(),
                })
                .collect(),
            plot,
        });
    }
    Ok((evidence, counts))
}

/// Every record of the chapter, newest first, with what changed since it
/// and its report rendered.
fn history_rows(project: &Project, ch: &Chapter, records: &[Record]) -> Vec<HistoryRow> {
    let current = ch.state.current();
    let mut history = Vec::new();
    // Many records examined the same revision: diff each revision once.
    let mut since: std::collections::HashMap<&str, Option<String>> = Default::default();
    for r in records {
        let stem = r.run_id.stem();
        let is_current = status::currency(ch, r) == RunCurrency::Current;
        let changed_since = if is_current {
            None
        } else {
            since
                .entry(r.revision.snapshot.as_str())
                .or_insert_with(|| {
                    ch.state
                        .snapshot(&r.revision.snapshot)
                        .and_then(|from| changes::between(project, ch, from, current).ok())
                        .map(|c| c.summary())
                })
                .clone()
        };
        let (summary, evidence_file, report_html) = match (&r.report, &r.experiment) {
            (Some(p), _) => {
                // A report that cannot be read is shown as missing, not
                // fatal: the page still links the record.
                let html = runs::report_text(project, r)
                    .ok()
                    .flatten()
                    .map(|t| markdown::to_html(&t));
                let what = if p.draft {
                    "research report (draft, not counted as research)".to_string()
                } else if p.complete {
                    "research report, all seven sections".to_string()
                } else {
                    "research report with missing sections".to_string()
                };
                (what, Some(p.file.clone()), html)
            }
            (None, Some(x)) => (x.summary.clone(), Some(x.file.clone()), None),
            (None, None) => (String::new(), None, None),
        };
        let base = format!("../{}", records_path(ch));
        history.push(HistoryRow {
            run_id: r.run_id.to_string(),
            kind: r.kind.to_string(),
            date: r.recorded_at.format("%Y-%m-%d %H:%M UTC").to_string(),
            revision: r.revision.fingerprint.short().to_string(),
            current: is_current,
            environment: environment_label(&r.environment),
            summary,
            changed_since,
            record_link: format!("{base}/{}", crate::layout::Layout::record_name(&stem)),
            evidence_link: evidence_file.map(|f| format!("{base}/{f}")),
            report_html,
        });
    }
    history
}

/// Files of one chapter: its page and plots (paths from the site's root),
/// and the newest experiment's claims counted.
pub fn chapter_files(
    project: &Project,
    templates: &Templates,
    ch: &Chapter,
    records: &[Record],
    st: &ChapterStatus,
    generated: &str,
) -> Result<(Vec<SiteFile>, Newest)> {
    let mut files = Vec::new();
    let (evidence, counts) = evidence_blocks(project, ch, records, &mut files)?;
    let history = history_rows(project, ch, records);
    let current = ch.state.current();
    let m = &ch.manifest;
    let page = ChapterPage {
        key: ch.key.to_string(),
        book_id: m.book.id.to_string(),
        book_title: m.book.title.clone(),
        chapter_id: m.chapter.id.to_string(),
        title: m.chapter.title.clone(),
        stable_id: m.stable_id(),
        url: m.chapter.url.clone(),
        snapshot_file: current.file.clone(),
        scope: current.scope.to_string(),
        fingerprint: current.fingerprint.value.clone(),
        normalization: current.fingerprint.normalization.clone(),
        published_fingerprint: m.published_hex().map(str::to_string),
        currency: currency(ch),
        state: st.state.to_string(),
        state_label: st.label.clone(),
        stale_reasons: st.stale_reasons.clone(),
        evidence,
        history,
        generated: generated.to_string(),
    };
    files.push((
        page_path(ch),
        templates.render(SITE_CHAPTER_TEMPLATE, &page)?.into_bytes(),
    ));
    // The raw records, so the page's links open them from disk.
    for r in records {
        for path in crate::records::store::record_files(project.layout(), r) {
            let bytes = crate::text::read_at_most(&path, crate::text::MAX_FILE_BYTES)
                .map_err(|e| Error::io(&path, e))?;
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            files.push((format!("{}/{name}", records_path(ch)), bytes));
        }
    }
    Ok((files, counts))
}
