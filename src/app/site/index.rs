//! The index page of the HTML site: a row per chapter of every book, with
//! its research state, its claims counted, its latest experiment, and what
//! could not be read.

use serde::Serialize;

use super::chapter_page::{currency, page_path};
use super::folder::SiteFile;
use super::verdicts::ClaimCounts;
use crate::app::Project;
use crate::chapter::Chapter;
use crate::error::Result;
use crate::records::Record;
use crate::records::status::{self, ChapterStatus, RunCurrency};
use crate::render::{SITE_INDEX_TEMPLATE, Templates};

#[derive(Debug, Serialize)]
pub struct LatestExperiment {
    pub date: String,
    pub run_id: String,
    pub revision: String,
    pub of_current_revision: bool,
    pub summary: String,
    pub engine: String,
    pub environments: Vec<String>,
}

/// A chapter's row of the index.
#[derive(Debug, Serialize)]
pub struct IndexRow {
    pub key: String,
    pub book: String,
    pub chapter_id: String,
    pub title: String,
    pub page: Option<String>,
    pub state: String,
    pub state_label: String,
    pub claims: Option<ClaimCounts>,
    pub latest: Option<LatestExperiment>,
    pub currency: String,
    /// The notebook's state (PASS, FAIL, FLAKY, NEVER_RUN, STALE) and its
    /// stylesheet word, when the chapter has a notebook.
    pub notebook: Option<(String, &'static str)>,
    pub error: Option<String>,
}

#[derive(Debug, Serialize)]
struct IndexPage {
    generated: String,
    tool_version: String,
    rows: Vec<IndexRow>,
}

/// The row of a chapter that loaded (its claims and engine are filled in
/// once its page is built).
pub fn index_row(ch: &Chapter, records: &[Record], st: &ChapterStatus) -> IndexRow {
    let latest = crate::records::latest_evidence(records).map(|r| LatestExperiment {
        date: r.recorded_at.format("%Y-%m-%d").to_string(),
        run_id: r.run_id.to_string(),
        revision: r.revision.fingerprint.short().to_string(),
        of_current_revision: status::currency(ch, r) == RunCurrency::Current,
        summary: r
            .experiment
            .as_ref()
            .map(|x| match x.earlier_measurement() {
                Some(m) => format!("an earlier measurement ({m}): {}", x.summary),
                None => x.summary.clone(),
            })
            .unwrap_or_default(),
        engine: String::new(),
        environments: status::by_environment(records)
            .iter()
            .map(|e| {
                if e.current_measurement {
                    e.label()
                } else {
                    format!("{} ({})", e.label(), e.measurement)
                }
            })
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
        notebook: st.notebook.as_ref().map(|n| {
            (
                n.state.to_string(),
                crate::render::notebook_view::state_tone(n.state),
            )
        }),
        error: None,
    }
}

/// The index page: a row per chapter (`rows`, in order), then a row per
/// chapter that could not be read (`broken`). Errors name files from the
/// project root.
pub fn index_file(
    project: &Project,
    templates: &Templates,
    mut rows: Vec<IndexRow>,
    broken: &[String],
    generated: &str,
) -> Result<SiteFile> {
    // Errors name files; the site shows them from the project root.
    let local = |e: &str| super::paths::from_root(project, e);
    for row in &mut rows {
        row.error = row.error.as_deref().map(local);
    }
    for b in broken {
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
            notebook: None,
            error: Some(local(b)),
        });
    }
    let index = IndexPage {
        generated: generated.to_string(),
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        rows,
    };
    Ok((
        "index.html".into(),
        templates.render(SITE_INDEX_TEMPLATE, &index)?.into_bytes(),
    ))
}
