//! A chapter's page of the HTML site: its claims and tables as each
//! environment's latest experiment found them, with plots, and its history
//! with the reports rendered; the records are copied beside it.

use serde::Serialize;

use super::folder::SiteFile;
use crate::app::{Project, changes, diff, runs};
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use crate::records::Record;
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
    /// The claim's rounds and interval, in words; absent for a single run.
    rounds: Option<String>,
    closest_sentence: Option<String>,
    /// What the latest complete research run answered for the claim, with
    /// its id.
    answered: Option<String>,
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
    /// Set when the run took ex/s over another window than the table's:
    /// the two in words.
    other_window: Option<String>,
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
    /// What measured it, when that is not what this tool measures today:
    /// `engine model 2026-12-04, whole-run window`.
    earlier_measurement: Option<String>,
    claims: Vec<ClaimRow>,
    tables: Vec<TablePair>,
    plot: Option<String>,
}

#[derive(Debug, Serialize)]
struct HistoryRow {
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
    record_link: String,
    evidence_link: Option<String>,
    report_html: Option<String>,
}

/// What the page offers a research assistant: the research prompt, shown
/// in full and as a download with the bytes `prompt` prints, and the
/// current snapshot as a download.
#[derive(Debug, Serialize)]
struct ResearchKit {
    /// The prompt's text; None when it cannot be assembled (`error` says why).
    prompt: Option<String>,
    error: Option<String>,
    /// Links from the page.
    prompt_link: String,
    snapshot_link: String,
    /// Characters of the snapshot; None when it cannot be read.
    snapshot_chars: Option<usize>,
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
    research_kit: ResearchKit,
    evidence: Vec<EvidenceBlock>,
    notebook: Option<crate::render::notebook_view::NotebookView>,
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

fn claim_row(
    c: &crate::published::diff::ClaimResult,
    answers: Option<(&str, &crate::records::report_items::ReportItems)>,
) -> ClaimRow {
    use crate::published::verdict::ClaimVerdict as V;
    let tone = match c.verdict {
        _ if !c.quote_found => "bad",
        V::NotReproduced => "bad",
        V::Reproduced
            if c.magnitude_differs.is_some()
                || c.magnitude_uncertain.is_some()
                || c.model_limit.is_some()
                || c.start_in_window.is_some()
                || !c.prose_consistent =>
        {
            "warn"
        }
        V::Reproduced => "ok",
        // Undecided, never against the chapter: the reason shows beside it.
        V::Inconclusive | V::NotComparable => "warn",
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
        rounds: c.rounds.as_ref().map(|e| match &e.interval {
            Some(i) => format!(
                "{} of {} rounds undisturbed; 95% interval {} to {} ({})",
                e.values.len(),
                e.rounds,
                number(i.low),
                number(i.high),
                e.method
            ),
            None => format!(
                "{} of {} rounds undisturbed: too few for an interval",
                e.values.len(),
                e.rounds
            ),
        }),
        closest_sentence: c.closest_sentence.clone(),
        answered: answers.and_then(|(run, items)| {
            items
                .response_to(&c.id)
                .map(|a| format!("{a} (research run {run})"))
        }),
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
    for r in records.iter().filter(|r| r.is_evidence()) {
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
    // The latest complete research run's answers travel with the verdicts.
    let research = crate::app::research_record::read(project, records);
    let answers = research
        .latest()
        .map(|(run, items)| (run.record.run_id.to_string(), items));
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
            earlier_measurement: e
                .record
                .experiment
                .as_ref()
                .and_then(|x| x.earlier_measurement()),
            claims: diffed
                .diff
                .claims
                .iter()
                .map(|c| claim_row(c, answers.as_ref().map(|(r, i)| (r.as_str(), *i))))
                .collect(),
            tables: diffed
                .diff
                .tables
                .iter()
                .map(|t| TablePair {
                    header: t.header.clone(),
                    same_settings: t.same_settings,
                    other_window: (t.window != t.run_window).then(|| {
                        format!(
                            "The run took ex/s over a {}, this table over a {}: not the same quantity.",
                            t.run_window.label(),
                            t.window.label()
                        )
                    }),
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

/// How much report Markdown one chapter page shows inline, newest report
/// first (4 MiB: two reports at the 2 MiB a record holds, rendered, stay
/// well inside the page's 16 MiB). A report past what is left, as one an
/// older version stored may be, is linked and not shown.
const INLINE_REPORT_BYTES: usize = 4 << 20;

/// Every record of the chapter, newest first, with what changed since it
/// and its report rendered (while [`INLINE_REPORT_BYTES`] allow).
fn history_rows(project: &Project, ch: &Chapter, records: &[Record]) -> Vec<HistoryRow> {
    let current = ch.state.current();
    let mut history = Vec::new();
    let mut inline_left = INLINE_REPORT_BYTES;
    // Many records examined the same revision: diff each revision once.
    let mut since: std::collections::HashMap<&str, Option<String>> = Default::default();
    let stored = crate::notebook::store::load(project.layout(), &ch.key)
        .ok()
        .flatten();
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
                    .map(|t| {
                        if t.len() <= inline_left {
                            inline_left -= t.len();
                            markdown::to_html(&t)
                        } else {
                            format!(
                                "<p>This report ({} bytes) is too large to show on this page; the Markdown copy linked above holds it whole.</p>",
                                t.len()
                            )
                        }
                    });
                let what = if p.draft {
                    "research report (draft, not counted as research)".to_string()
                } else if p.complete {
                    "research report, all seven sections".to_string()
                } else {
                    "research report with missing sections".to_string()
                };
                (what, Some(p.file.clone()), html)
            }
            (None, Some(x)) => {
                // A disturbed run says so, and why it holds nothing against
                // the chapter.
                let mark = crate::records::status::disturbed_mark(r)
                    .map_or_else(String::new, |m| {
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
                    None,
                )
            }
            (None, None) => match &r.notebook {
                // Which notebook the run used, and where it came from.
                Some(n) => (
                    format!(
                        "{}; ran {}",
                        n.summary,
                        crate::records::notebook_status::notebook_label(
                            ch,
                            stored.as_ref(),
                            &n.notebook_file
                        )
                    ),
                    Some(n.file.clone()),
                    None,
                ),
                None => (String::new(), None, None),
            },
        };
        let summary = match &r.retraction {
            Some(x) => format!("{} (no longer research or evidence). {summary}", x.label()),
            None => summary,
        };
        let base = format!("../{}", records_path(ch));
        history.push(HistoryRow {
            run_id: r.run_id.to_string(),
            anchor: format!("run-{stem}"),
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

/// The research prompt and the current snapshot, as files of the site
/// beside the chapter's page, and what the page says about them. What
/// cannot be read is said on the page rather than failing it.
fn research_kit(
    project: &Project,
    templates: &Templates,
    ch: &Chapter,
    files: &mut Vec<SiteFile>,
) -> ResearchKit {
    let folder = format!("{}/{}", ch.key.book.as_str(), ch.key.chapter.as_str());
    let mut errors = Vec::new();
    let current = ch.state.current();
    let snapshot_path = project.layout().snapshot_file(&ch.key, &current.file);
    let snapshot = crate::text::check_owned(&snapshot_path, &project.layout().snapshots_root())
        .and_then(|()| {
            crate::text::read_at_most(&snapshot_path, crate::text::MAX_FILE_BYTES)
                .map_err(|e| Error::io(&snapshot_path, e))
        });
    // Only the bytes the fingerprint vouches for are offered.
    let snapshot = snapshot.and_then(|bytes| {
        let found = crate::chapter::normalize::fingerprint_str(&String::from_utf8_lossy(&bytes))
            .map_err(|e| crate::chapter::normalize_error(&snapshot_path, e))?;
        if found == current.fingerprint.value {
            Ok(bytes)
        } else {
            Err(Error::invalid(
                &snapshot_path,
                "does not match its fingerprint; run `verify`",
            ))
        }
    });
    let snapshot_chars = match snapshot {
        Ok(bytes) => {
            let chars = String::from_utf8_lossy(&bytes).chars().count();
            files.push((format!("{folder}/{SNAPSHOT_DOWNLOAD}"), bytes));
            Some(chars)
        }
        Err(e) => {
            errors.push(e.to_string());
            None
        }
    };
    let prompt = match crate::app::documents::prompt(
        project,
        ch,
        templates,
        crate::render::DEFAULT_EXCERPT_CHARS,
    ) {
        Ok(doc) => {
            files.push((
                format!("{folder}/{PROMPT_DOWNLOAD}"),
                doc.text.clone().into_bytes(),
            ));
            Some(doc.text)
        }
        // An altered snapshot fails the prompt too: say it once.
        Err(e) if errors.is_empty() => {
            errors.push(e.to_string());
            None
        }
        Err(_) => None,
    };
    ResearchKit {
        prompt,
        error: (!errors.is_empty()).then(|| super::paths::from_root(project, &errors.join("; "))),
        prompt_link: format!("{}/{PROMPT_DOWNLOAD}", ch.key.chapter.as_str()),
        snapshot_link: format!("{}/{SNAPSHOT_DOWNLOAD}", ch.key.chapter.as_str()),
        snapshot_chars,
    }
}

/// The file names of the downloads beside a chapter's page, in a folder
/// named after the chapter.
pub const PROMPT_DOWNLOAD: &str = "prompt.txt";
pub const SNAPSHOT_DOWNLOAD: &str = "chapter-snapshot.txt";

/// The notebook panel: its state and the latest run, each cell's output as
/// the record keeps it.
fn notebook_panel(
    project: &Project,
    ch: &Chapter,
    records: &[Record],
    st: &ChapterStatus,
) -> Option<crate::render::notebook_view::NotebookView> {
    let status = st.notebook.as_ref()?;
    let fingerprint = crate::notebook::store::load(project.layout(), &ch.key)
        .ok()
        .flatten()
        .map(|s| s.current().fingerprint.to_string());
    // The page's records include retracted runs, for its history; the
    // panel shows a live one.
    let live: Vec<Record> = records
        .iter()
        .filter(|r| r.retraction.is_none())
        .cloned()
        .collect();
    let latest = crate::app::notebook::latest_run(project, &live);
    Some(crate::render::notebook_view::notebook_view(
        status,
        fingerprint,
        latest.as_ref().map(|(r, f)| (r, f)),
        crate::notebook::harness::RECORD_OUTPUT_CHARS,
    ))
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
    let research_kit = research_kit(project, templates, ch, &mut files);
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
        url: m.chapter.url.as_deref().map(crate::text::redact_url),
        snapshot_file: current.file.clone(),
        scope: current.scope.to_string(),
        fingerprint: current.fingerprint.value.clone(),
        normalization: current.fingerprint.normalization.clone(),
        published_fingerprint: m.published_hex().map(str::to_string),
        currency: currency(ch),
        state: st.state.to_string(),
        state_label: st.label.clone(),
        stale_reasons: st.stale_reasons.clone(),
        research_kit,
        evidence,
        notebook: notebook_panel(project, ch, records, st),
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
            // Checked first (a FIFO would hang the read); and the copy is
            // published, so no URL in it keeps a secret, and a notebook
            // run's files (stored, maybe, before a redaction rule was
            // added) go through the run redaction again.
            crate::text::check_owned(&path, &project.layout().records_root())?;
            let bytes = crate::text::read_at_most(&path, crate::text::MAX_FILE_BYTES)
                .map_err(|e| Error::io(&path, e))?;
            let bytes = match String::from_utf8(bytes) {
                Ok(text) if r.notebook.is_some() => {
                    crate::notebook::run::redact_run_text(&text).into_bytes()
                }
                Ok(text) => crate::text::redact_urls_in(&text).into_owned().into_bytes(),
                Err(e) => e.into_bytes(),
            };
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            files.push((format!("{}/{name}", records_path(ch)), bytes));
        }
    }
    Ok((files, counts))
}
