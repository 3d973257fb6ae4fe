//! `site`: the book's evidence as a static HTML site: an index of every
//! chapter of every book (`index`), and a page per chapter with its claims,
//! tables, plots, history and reports (`chapter_page`). Rendered from the
//! site templates and written whole (`folder`), so a failed run leaves the
//! old site as it was. (The site data `publish` writes for the book's own
//! site is `app::publish`.)

mod chapter_page;
mod folder;
mod history;
mod index;
mod links;
mod paths;
mod verdicts;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::Project;
use crate::error::Result;
use crate::records::status;
use crate::render::{SITE_STYLE_TEMPLATE, Templates};
use folder::SiteFile;

pub use chapter_page::page_path;
pub use folder::SITE_MARKER;

/// What `build` wrote.
#[derive(Debug)]
pub struct HtmlSite {
    pub out: PathBuf,
    pub chapters: usize,
    pub broken: Vec<String>,
    pub files: usize,
}

/// How the site links a record's files (see `links`).
#[derive(Debug, Clone, Default)]
pub struct SiteOptions {
    /// Link them under this URL (`<url>/records/<book>/<chapter>/<file>`)
    /// instead of where they live in the project.
    pub base_url: Option<String>,
    /// Copy them into the site and link the copies.
    pub copy_records: bool,
}

/// Renders the whole site and writes it to `out`.
pub fn build(
    project: &Project,
    templates: &Templates,
    out: &Path,
    options: &SiteOptions,
    now: DateTime<Utc>,
) -> Result<HtmlSite> {
    folder::check_target(out)?;
    let links = links::FileLinks::new(
        project,
        out,
        options.base_url.as_deref(),
        options.copy_records,
    )?;
    let generated = now.format("%Y-%m-%d %H:%M UTC").to_string();
    let (chapters, broken) = project.all_chapters()?;
    let mut rows = Vec::new();
    let mut files: Vec<SiteFile> = Vec::new();
    let mut problems = broken.clone();
    for ch in &chapters {
        // The page's history lists retracted runs, marked; nothing else
        // on the site reads them.
        let (all, bad) = project.records_with_retracted(ch)?;
        // The live runs apart from the retracted ones, moved rather than
        // copied (10,000 records are not held twice), and put back in
        // their order for the page's history below.
        let (records, retracted): (Vec<crate::records::Record>, Vec<_>) =
            all.into_iter().partition(|r| r.retraction.is_none());
        // One status per chapter, for its index row and its page.
        let mut st = status::chapter_status(ch, &records);
        // The change said in words beside the stale reason, as publish
        // says it: how many words changed and which claims they touched.
        if let (Some(reason), Some(change)) = (
            st.stale_reasons.first_mut(),
            super::changes::since_research(project, ch, &records),
        ) {
            reason.push_str(&format!("; {}", change.summary()));
        }
        let mut errors: Vec<String> = bad
            .iter()
            .map(|b| format!("unreadable record: {}", b.error))
            .collect();
        // Evidence is read (and its hash checked) for the runs the pages
        // show in full; `chapter_files` says what of it could not be. Every
        // file is checked when every file is copied.
        if options.copy_records {
            errors.extend(super::status::evidence_problems(project, &records));
            errors.extend(super::status::evidence_problems(project, &retracted));
        }
        match super::notebook::status(project, ch, &records) {
            Ok(n) => st.notebook = n,
            Err(e) => errors.push(e.to_string()),
        }
        match super::claims::notebook_claims_evidence(project, ch, &records) {
            Ok(n) => st.notebook_claims = n,
            Err(e) => errors.push(e.to_string()),
        }
        let mut row = index::index_row(ch, &records, &st);
        let all = with_retracted(records, retracted);
        match chapter_page::chapter_files(project, templates, ch, &all, &st, &links, &generated) {
            Ok(built) => {
                files.extend(built.files);
                errors.extend(built.problems);
                if let Some((counts, engine)) = built.newest {
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
    files.push(index::index_file(
        project, templates, rows, &broken, &generated,
    )?);
    files.push((
        "style.css".into(),
        templates
            .render(SITE_STYLE_TEMPLATE, serde_json::json!({}))?
            .into_bytes(),
    ));
    let count = files.len();
    folder::write_folder(out, files)?;
    Ok(HtmlSite {
        out: out.to_path_buf(),
        chapters: chapters.len(),
        broken: problems,
        files: count,
    })
}

/// `live` and `retracted` runs (each newest first) as one history, in the
/// order the store lists them: newest first, by time and then run id.
fn with_retracted(
    mut live: Vec<crate::records::Record>,
    retracted: Vec<crate::records::Record>,
) -> Vec<crate::records::Record> {
    if retracted.is_empty() {
        return live;
    }
    live.extend(retracted);
    live.sort_by(|a, b| {
        b.recorded_at
            .cmp(&a.recorded_at)
            .then_with(|| b.run_id.cmp(&a.run_id))
    });
    live
}
