//! The book's evidence as a static HTML site: an index of every chapter of
//! every book, and a page per chapter with its claims, tables, plots,
//! history and reports. Rendered from the site templates, written into a
//! temporary folder and moved into place, so a failed run leaves the old
//! site as it was.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Project, changes, diff, runs};
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use crate::records::status::{self, ChapterStatus, ClaimsSummary, RunCurrency};
use crate::records::{Record, RunKind};
use crate::render::{
    SITE_CHAPTER_TEMPLATE, SITE_INDEX_TEMPLATE, SITE_STYLE_TEMPLATE, Templates, markdown,
};
use crate::text::number;

/// A file of the site: its path from the site's root, and its bytes.
type SiteFile = (String, Vec<u8>);

/// The newest experiment's claims counted, and the engine that measured it.
type Newest = Option<(ClaimsSummary, String)>;

/// The file that marks a folder as a site this tool wrote.
pub const SITE_MARKER: &str = ".research-companion-site";

#[derive(Debug, Serialize)]
struct LatestExperiment {
    date: String,
    run_id: String,
    revision: String,
    of_current_revision: bool,
    summary: String,
    engine: String,
    environments: Vec<String>,
}

#[derive(Debug, Serialize)]
struct IndexRow {
    key: String,
    book: String,
    chapter_id: String,
    title: String,
    page: Option<String>,
    state: String,
    state_label: String,
    claims: Option<ClaimsSummary>,
    latest: Option<LatestExperiment>,
    currency: String,
    error: Option<String>,
}

#[derive(Debug, Serialize)]
struct IndexPage {
    generated: String,
    tool_version: String,
    rows: Vec<IndexRow>,
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

/// What `build` wrote.
#[derive(Debug)]
pub struct HtmlSite {
    pub out: PathBuf,
    pub chapters: usize,
    pub broken: Vec<String>,
    pub files: usize,
}

fn currency(ch: &Chapter) -> String {
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
fn page_path(ch: &Chapter) -> String {
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

/// Files of one chapter: its page and plots (paths from the site's root),
/// and the newest experiment's claims counted.
fn chapter_files(
    project: &Project,
    templates: &Templates,
    ch: &Chapter,
    records: &[Record],
    st: &ChapterStatus,
    generated: &str,
) -> Result<(Vec<SiteFile>, Newest)> {
    let mut counts = None;
    let mut files = Vec::new();
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
    let current = ch.state.current();
    let mut history = Vec::new();
    for r in records {
        let stem = r.run_id.stem();
        let is_current = status::currency(ch, r) == RunCurrency::Current;
        let changed_since = if is_current {
            None
        } else {
            ch.state
                .snapshot(&r.revision.snapshot)
                .and_then(|from| changes::between(project, ch, from, current).ok())
                .map(|c| c.summary())
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
            let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            files.push((format!("{}/{name}", records_path(ch)), bytes));
        }
    }
    Ok((files, counts))
}

fn index_row(ch: &Chapter, records: &[Record], st: &ChapterStatus) -> IndexRow {
    let latest = records
        .iter()
        .find(|r| r.kind == RunKind::Experiment)
        .map(|r| LatestExperiment {
            date: r.recorded_at.format("%Y-%m-%d").to_string(),
            run_id: r.run_id.to_string(),
            revision: r.revision.fingerprint.short().to_string(),
            of_current_revision: status::currency(ch, r) == RunCurrency::Current,
            summary: r
                .experiment
                .as_ref()
                .map(|x| x.summary.clone())
                .unwrap_or_default(),
            engine: String::new(),
            environments: status::by_environment(records)
                .iter()
                .map(|e| e.label())
                .collect(),
        });
    IndexRow {
        key: ch.key.to_string(),
        book: ch.manifest.book.title.clone(),
        chapter_id: ch.key.chapter.to_string(),
        title: ch.manifest.chapter.title.clone(),
        page: Some(page_path(ch)),
        state: st.state.to_string(),
        state_label: st.label.clone(),
        claims: None,
        latest,
        currency: currency(ch),
        error: None,
    }
}

/// Renders the whole site and writes it to `out`.
pub fn build(
    project: &Project,
    templates: &Templates,
    out: &Path,
    now: DateTime<Utc>,
) -> Result<HtmlSite> {
    check_target(out)?;
    let generated = now.format("%Y-%m-%d %H:%M UTC").to_string();
    let (chapters, broken) = project.all_chapters()?;
    let mut rows = Vec::new();
    let mut files: Vec<SiteFile> = Vec::new();
    let mut problems = broken.clone();
    for ch in &chapters {
        let (records, bad) = project.records(ch)?;
        // One status per chapter, for its index row and its page.
        let st = status::chapter_status(ch, &records);
        let mut row = index_row(ch, &records, &st);
        let mut errors: Vec<String> = bad
            .iter()
            .map(|b| format!("unreadable record: {}", b.error))
            .collect();
        match chapter_files(project, templates, ch, &records, &st, &generated) {
            Ok((f, newest)) => {
                files.extend(f);
                if let Some((counts, engine)) = newest {
                    row.claims = Some(counts);
                    if let Some(latest) = &mut row.latest {
                        latest.engine = engine;
                    }
                }
            }
            Err(e) => {
                errors.push(e.to_string());
                row.page = None;
            }
        }
        if !errors.is_empty() {
            problems.extend(errors.iter().map(|e| format!("{}: {e}", ch.key)));
            row.error = Some(errors.join("; "));
        }
        rows.push(row);
    }
    // Errors name files; the site shows them from the project root, so a
    // published site carries no folder of the author's machine.
    let given = project.layout().root();
    let roots: Vec<String> = [Some(given.to_path_buf()), given.canonicalize().ok()]
        .into_iter()
        .flatten()
        .filter(|r| r.is_absolute())
        .map(|r| format!("{}/", r.display()))
        .collect();
    let local = |e: &str| {
        roots
            .iter()
            .fold(e.to_string(), |e, r| e.replace(r.as_str(), ""))
    };
    for row in &mut rows {
        row.error = row.error.as_deref().map(local);
    }
    for b in &broken {
        let key = b.split(' ').next().unwrap_or_default().to_string();
        rows.push(IndexRow {
            key: key.clone(),
            book: String::new(),
            chapter_id: key.rsplit('/').next().unwrap_or_default().to_string(),
            title: String::new(),
            page: None,
            state: "BROKEN".into(),
            state_label: "Cannot be read".into(),
            claims: None,
            latest: None,
            currency: String::new(),
            error: Some(local(b)),
        });
    }
    let index = IndexPage {
        generated: generated.clone(),
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        rows,
    };
    files.push((
        "index.html".into(),
        templates.render(SITE_INDEX_TEMPLATE, &index)?.into_bytes(),
    ));
    files.push((
        "style.css".into(),
        templates
            .render(SITE_STYLE_TEMPLATE, serde_json::json!({}))?
            .into_bytes(),
    ));
    let count = files.len();
    write_folder(out, files)?;
    Ok(HtmlSite {
        out: out.to_path_buf(),
        chapters: chapters.len(),
        broken: problems,
        files: count,
    })
}

/// Refuses a target that is a file, or a folder with something in it that
/// this tool did not write.
fn check_target(out: &Path) -> Result<()> {
    match std::fs::read_dir(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if out.exists() && !out.is_dir() => Err(Error::invalid(out, "is not a folder")),
        Err(e) => Err(Error::io(out, e)),
        Ok(mut entries) => {
            if entries.next().is_none() || out.join(SITE_MARKER).is_file() {
                Ok(())
            } else {
                Err(Error::invalid(
                    out,
                    format!(
                        "is not empty and holds no {SITE_MARKER}, so this tool did not write it; refusing to replace it"
                    ),
                ))
            }
        }
    }
}

/// Writes `files` (paths from the folder's root) into a new folder beside
/// `out`, then swaps it in; the old site is removed only once the new one
/// is in place.
fn write_folder(out: &Path, files: Vec<SiteFile>) -> Result<()> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
    let staging = tempfile::Builder::new()
        .prefix(".tmp-site-")
        .tempdir_in(&parent)
        .map_err(|e| Error::io(&parent, e))?;
    for (rel, bytes) in files.iter().chain(std::iter::once(&(
        SITE_MARKER.to_string(),
        b"written by research_companion site; this folder is replaced on the next run\n".to_vec(),
    ))) {
        let path = staging.path().join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        crate::atomic::injected(&path)?;
        std::fs::write(&path, bytes).map_err(|e| Error::io(&path, e))?;
    }
    let staged = staging.keep();
    let old = if out.exists() {
        let aside = tempfile::Builder::new()
            .prefix(".old-site-")
            .tempdir_in(&parent)
            .map_err(|e| Error::io(&parent, e))?
            .keep();
        let aside = aside.join("site");
        std::fs::rename(out, &aside).map_err(|e| Error::io(out, e))?;
        Some(aside)
    } else {
        None
    };
    if let Err(e) = std::fs::rename(&staged, out) {
        // Put the old site back before saying what failed.
        if let Some(aside) = &old {
            let _ = std::fs::rename(aside, out);
        }
        let _ = std::fs::remove_dir_all(&staged);
        return Err(Error::io(out, e));
    }
    if let Some(aside) = old.as_ref().and_then(|a| a.parent()) {
        let _ = std::fs::remove_dir_all(aside);
    }
    Ok(())
}
