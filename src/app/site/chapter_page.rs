//! A chapter's page of the HTML site: its claims and tables as each
//! environment's latest experiment found them, with plots, and its newest
//! runs with the latest research report rendered; the whole history is on
//! pages of its own (`history`), and a record's files are linked where
//! they live (`links`), or copied into the site when asked.

use serde::Serialize;

use super::folder::SiteFile;
use super::history::{self, HistoryRow};
use super::links::FileLinks;
use super::verdicts::{ClaimCounts, verdict_class};
use crate::app::{Project, diff, runs};
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use crate::records::Record;
use crate::records::status::ChapterStatus;
use crate::render::{SITE_CHAPTER_TEMPLATE, Templates};
use crate::text::format::number;

/// The newest experiment's claims counted as the page shows their
/// verdicts, and the engine that measured it.
pub type Newest = Option<(ClaimCounts, String)>;

/// What a chapter's page and its history pages are: the files, the newest
/// experiment's claims counted, and what could not be read.
pub struct ChapterFiles {
    pub files: Vec<SiteFile>,
    pub newest: Newest,
    pub problems: Vec<String>,
}

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
    /// The chapter's notebook claims, each value's source the cell.
    notebook_claims: Option<crate::render::notebook_claims_view::NotebookClaimsView>,
    /// The stored notebook's file, linked as the record files are.
    notebook_link: Option<String>,
    /// The newest runs, with the latest research run's report rendered.
    history: Vec<HistoryRow>,
    /// How many runs the chapter has, retracted ones included.
    history_total: usize,
    /// The pages of the whole history: number and link.
    history_pages: Vec<(usize, String)>,
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
    let (_, tone) = verdict_class(c);
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

/// The latest experiment of each environment and engine, newest first,
/// and the run files that could not be read (an experiment whose file
/// cannot be read gives way to the one before it). Only the run files
/// shown are read: an environment already shown skips its older runs
/// unread.
fn latest_per_environment(
    project: &Project,
    records: &[Record],
) -> (Vec<runs::RecordedRun>, Vec<String>) {
    let mut seen: Vec<(String, bool)> = Vec::new();
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for r in records.iter().filter(|r| r.is_evidence()) {
        // The record says what measured it. One stored before records
        // did (before windows) is read only while its environment shows
        // nothing yet: 10,000 old runs are not read to find an engine.
        let pytorch = r
            .experiment
            .as_ref()
            .and_then(|x| x.measured_by.as_ref())
            .map(|m| m.engine == "pytorch");
        let env = &r.environment.env_id;
        let shown = match pytorch {
            Some(p) => seen.iter().any(|(e, q)| e == env && *q == p),
            None => seen.iter().any(|(e, _)| e == env),
        };
        if shown {
            continue;
        }
        match runs::experiment(project, r.clone()) {
            Ok(e) => {
                let key = (r.environment.env_id.clone(), e.run.reference.is_some());
                if !seen.contains(&key) {
                    seen.push(key);
                    out.push(e);
                }
            }
            Err(e) => problems.push(format!("unreadable evidence: {e}")),
        }
    }
    (out, problems)
}

/// The latest experiment of each environment and engine, each with its
/// plot (added to `files`); and the newest one's claims counted.
fn evidence_blocks(
    project: &Project,
    ch: &Chapter,
    records: &[Record],
    answers: Option<(String, &crate::records::report_items::ReportItems)>,
    files: &mut Vec<SiteFile>,
    problems: &mut Vec<String>,
) -> Result<(Vec<EvidenceBlock>, Newest)> {
    let mut counts = None;
    let mut evidence = Vec::new();
    let (latest, unreadable) = latest_per_environment(project, records);
    problems.extend(unreadable);
    for e in latest {
        let diffed = diff::diff_recorded(project, ch, &e)?;
        if counts.is_none() {
            // Counted from the comparison made now (today's claims file),
            // as the page shows the claims and colours their verdicts.
            counts = Some((
                ClaimCounts::of(diffed.diff.claims.iter().map(verdict_class)),
                e.run.evidence(),
            ));
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
            environment: history::environment_label(&e.run.environment),
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

/// The research prompt and the current snapshot, as files of the site
/// beside the chapter's page, and what the page says about them. What
/// cannot be read is said on the page rather than failing it.
fn research_kit(
    project: &Project,
    templates: &Templates,
    ch: &Chapter,
    records: &[Record],
    files: &mut Vec<SiteFile>,
) -> ResearchKit {
    let folder = format!("{}/{}", ch.key.book.as_str(), ch.key.chapter.as_str());
    let mut errors = Vec::new();
    let current = ch.state.current();
    let snapshot_path = project.layout().snapshot_file(&ch.key, &current.file);
    let snapshot =
        crate::text::owned::check_owned(&snapshot_path, &project.layout().snapshots_root())
            .and_then(|()| {
                crate::text::read::read_at_most(&snapshot_path, crate::text::read::MAX_FILE_BYTES)
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
    // From the records the site read already (the page says what of them
    // could not be read).
    let prompt = match crate::app::documents::prompt_from(
        project,
        ch,
        templates,
        crate::render::DEFAULT_EXCERPT_CHARS,
        records,
        Vec::new(),
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
    let live = records
        .iter()
        .find(|r| r.retraction.is_none() && r.notebook.is_some());
    let latest =
        live.and_then(|r| crate::app::notebook::latest_run(project, std::slice::from_ref(r)));
    Some(crate::render::notebook_view::notebook_view(
        status,
        fingerprint,
        latest.as_ref().map(|(r, f)| (r, f)),
        crate::notebook::harness::RECORD_OUTPUT_CHARS,
    ))
}

/// The stored notebook's file, linked as the record files are (and
/// copied into the site with them).
fn notebook_link(
    project: &Project,
    ch: &Chapter,
    links: &FileLinks,
    view: Option<&crate::render::notebook_view::NotebookView>,
    files: &mut Vec<SiteFile>,
) -> Option<String> {
    let file = view?.file.as_deref()?;
    let path = project.layout().notebook_file(&ch.key, file);
    if links.copies() {
        let bytes = crate::text::owned::check_owned(&path, &project.layout().snapshots_root())
            .and_then(|()| {
                crate::text::read::read_at_most(&path, crate::text::read::MAX_FILE_BYTES)
                    .map_err(|e| Error::io(&path, e))
            })
            .ok()?;
        files.push((super::links::from_root(project, &path)?, bytes));
    }
    links.to(project, &path, 1)
}

/// Files of one chapter: its page, its history pages and plots (paths
/// from the site's root), and the newest experiment's claims counted.
/// `records`: every record, newest first, retracted ones included.
pub fn chapter_files(
    project: &Project,
    templates: &Templates,
    ch: &Chapter,
    records: &[Record],
    st: &ChapterStatus,
    links: &FileLinks,
    generated: &str,
) -> Result<ChapterFiles> {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let research_kit = research_kit(project, templates, ch, records, &mut files);
    let reports = history::inline_reports(project, records, &mut problems);
    // The latest complete research run's answers travel with the verdicts.
    let items = reports.answers();
    let answers = items.as_ref().map(|(id, i)| (id.clone(), i));
    // Evidence is a live experiment's (`Record::is_evidence`).
    let (evidence, counts) =
        evidence_blocks(project, ch, records, answers, &mut files, &mut problems)?;
    let shown: Vec<String> = evidence.iter().map(|e| e.run_id.clone()).collect();
    let history = history::chapter_runs(project, ch, records, links, &shown, &reports);
    let notebook = notebook_panel(project, ch, records, st);
    let notebook_link = notebook_link(project, ch, links, notebook.as_ref(), &mut files);
    let current = ch.state.current();
    let m = &ch.manifest;
    let page = ChapterPage {
        key: ch.key.to_string(),
        book_id: m.book.id.to_string(),
        book_title: m.book.title.clone(),
        chapter_id: m.chapter.id.to_string(),
        title: m.chapter.title.clone(),
        stable_id: m.stable_id(),
        url: m
            .chapter
            .url
            .as_deref()
            .map(crate::text::redact::redact_url),
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
        notebook,
        notebook_claims: st
            .notebook_claims
            .as_ref()
            .map(crate::render::notebook_claims_view::notebook_claims_view),
        notebook_link,
        history,
        history_total: records.len(),
        history_pages: (1..=history::page_count(records.len()))
            .map(|n| (n, history::page_link(ch, n)))
            .collect(),
        generated: generated.to_string(),
    };
    files.push((
        page_path(ch),
        templates.render(SITE_CHAPTER_TEMPLATE, &page)?.into_bytes(),
    ));
    files.extend(history::history_pages(
        project, templates, ch, records, links, generated,
    )?);
    if links.copies() {
        super::links::copy_records(project, records, &mut files)?;
    }
    Ok(ChapterFiles {
        files,
        newest: counts,
        problems,
    })
}
