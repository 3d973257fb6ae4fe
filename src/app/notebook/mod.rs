//! The chapter's notebook: storing a snapshot of it (`notebook add`, from a
//! file or a URL fetched as `fetch` fetches), auditing a saved notebook
//! without running it (`notebook check`), running it in fresh kernels and
//! recording what it printed (`run`), the book's execution report
//! (`report`), a new chapter with its notebook (`new_chapter`), what
//! `claims check` finds through the notebook (`claims_check`), and the
//! notebook's state for everything that shows a chapter's evidence.

pub mod claims_check;
pub mod new_chapter;
pub mod report;
pub mod run;

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use super::Project;
use crate::chapter::Chapter;
use crate::chapter::manifest::{FetchState, Material};
use crate::error::{Error, Result};
use crate::fetch::{self, BodyKind, Request, Response};
use crate::notebook::audit::{self, Finding};
use crate::notebook::format::{self, MAX_NOTEBOOK_BYTES, Notebook};
use crate::notebook::scrub::LocalFacts;
use crate::notebook::store::{self, NewNotebook, NotebookAdded, StoredNotebooks};
use crate::records::Record;
use crate::records::notebook_status::{self, NotebookStatus};

/// Where a notebook to store comes from.
#[derive(Debug, Clone)]
pub enum NotebookSource {
    /// A file.
    File(std::path::PathBuf),
    /// A URL (a Colab or GitHub page's notebook is downloaded from GitHub).
    Url(String),
    /// The URL chapter.yaml's notebook entry gives.
    Published,
}

/// How to download.
#[derive(Debug, Clone, Copy)]
pub struct Download {
    pub connect_timeout: Duration,
    pub timeout: Duration,
}

/// What `notebook add` did.
#[derive(Debug, Serialize)]
pub struct Added {
    pub chapter: String,
    pub outcome: NotebookAdded,
    /// Where it was downloaded from, for a URL.
    pub downloaded_from: Option<String>,
    /// The server said the notebook is unchanged since the last download.
    pub not_modified: bool,
    /// What of the download was not kept (a validator too long to send
    /// again), one line each.
    pub notes: Vec<String>,
}

/// The chapter's stored notebooks, or an error saying none is stored.
pub fn stored(project: &Project, chapter: &Chapter) -> Result<StoredNotebooks> {
    store::load(project.layout(), &chapter.key)?.ok_or_else(|| {
        Error::Usage(format!(
            "{} has no stored notebook; store one with `research_companion notebook add {} FILE|URL`",
            chapter.key, chapter.key
        ))
    })
}

/// The chapter's current stored notebook, read and checked against the
/// digest notebooks.yaml gives it.
pub fn current_notebook(
    project: &Project,
    chapter: &Chapter,
    state: &StoredNotebooks,
) -> Result<(std::path::PathBuf, Notebook)> {
    let entry = state.current();
    let path = project.layout().notebook_file(&chapter.key, &entry.file);
    crate::text::owned::check_owned(&path, &project.layout().snapshots_root())?;
    let bytes = format::read_bytes(&path)?;
    let sha = crate::text::format::hex(&<sha2::Sha256 as sha2::Digest>::digest(&bytes));
    if sha != entry.sha256 {
        return Err(Error::invalid(
            &path,
            format!(
                "was altered since it was stored (sha256 {} found, {} recorded in notebooks.yaml)",
                crate::text::format::prefix(&sha, 12),
                crate::text::format::prefix(&entry.sha256, 12)
            ),
        ));
    }
    let nb = format::parse(&bytes, &path)?;
    Ok((path, nb))
}

/// A notebook read or downloaded, not stored yet.
#[derive(Debug, Clone)]
pub struct Obtained {
    pub bytes: Vec<u8>,
    pub notebook: Notebook,
    /// Where it came from, as notebooks.yaml will say.
    pub source: String,
    /// The URL it was downloaded from, when it was.
    pub downloaded_from: Option<String>,
    /// The validators of the download.
    pub fetch: Option<FetchState>,
    /// What of the download was not kept, one line each.
    pub notes: Vec<String>,
}

/// Reads or downloads the notebook `source` names; None when the server
/// answered 304 Not Modified to the validators of `state`'s last download.
/// `given_source` says where it came from (default: the URL, or the
/// file's path from the project root).
pub fn obtain(
    project: &Project,
    chapter: Option<&Chapter>,
    source: &NotebookSource,
    state: Option<&StoredNotebooks>,
    given_source: Option<&str>,
    download: Download,
) -> Result<Option<Obtained>> {
    let layout = project.layout();
    let url = match source {
        NotebookSource::File(path) => {
            let (bytes, notebook) = format::read_file(path)?;
            return Ok(Some(Obtained {
                bytes,
                notebook,
                source: given_source
                    .map(crate::text::redact::redact_url)
                    .unwrap_or_else(|| layout.portable_source(path)),
                downloaded_from: None,
                fetch: None,
                notes: Vec::new(),
            }));
        }
        NotebookSource::Url(u) => u.clone(),
        NotebookSource::Published => {
            let key = chapter.map(|c| c.key_str()).unwrap_or_default();
            let url = chapter
                .and_then(|c| store::published_notebook(&c.manifest))
                .map(|m| m.url.clone())
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "{key}: chapter.yaml lists no notebook (an associated_material entry of kind `notebook` or `colab-notebook`) and no FILE or URL was given"
                    ))
                })?;
            if !url.contains("://") {
                return Err(Error::Usage(format!(
                    "{key}: chapter.yaml's notebook entry names '{url}', which is not a URL to download; give the notebook's FILE"
                )));
            }
            url
        }
    };
    download_notebook(state, &url, given_source, download)
}

/// Whether a validator may be stored and sent again (a bounded one).
fn sendable(v: &str) -> bool {
    fetch::validator_problem(v).is_none()
}

fn download_notebook(
    state: Option<&StoredNotebooks>,
    url: &str,
    given_source: Option<&str>,
    download: Download,
) -> Result<Option<Obtained>> {
    let shown = crate::text::redact::redact_url(url);
    let target = crate::notebook::source::download_url(url)
        .map_err(|why| Error::Usage(format!("{shown}: {why}")))?;
    let shown_target = crate::text::redact::redact_url(&target);
    let last = state
        .map(|s| &s.fetch)
        .filter(|f| f.url.as_deref() == Some(shown_target.as_str()));
    let req = Request {
        url: target.clone(),
        connect_timeout: download.connect_timeout,
        timeout: download.timeout,
        max_bytes: MAX_NOTEBOOK_BYTES,
        etag: last.and_then(|f| f.etag.clone()).filter(|v| sendable(v)),
        last_modified: last
            .and_then(|f| f.last_modified.clone())
            .filter(|v| sendable(v)),
        // A notebook's URL is followed within its origin only, as a
        // snapshot's is by default.
        redirects_anywhere: false,
        body: BodyKind::Notebook,
    };
    let (text, etag, last_modified, final_url) = match fetch::get(&req)? {
        Response::NotModified => return Ok(None),
        Response::Text {
            text,
            etag,
            last_modified,
            final_url,
            ..
        } => (text, etag, last_modified, final_url),
    };
    // A validator too long (or not a header value) is dropped, and said.
    let mut notes = Vec::new();
    let stored = "stored (the next download fetches the whole notebook)";
    let etag = super::fetch::bounded("server's ETag", etag, stored, &mut notes);
    let last_modified =
        super::fetch::bounded("server's Last-Modified", last_modified, stored, &mut notes);
    let notebook = format::parse(text.as_bytes(), Path::new(&final_url))?;
    Ok(Some(Obtained {
        bytes: text.into_bytes(),
        notebook,
        source: given_source.map_or_else(|| shown.clone(), crate::text::redact::redact_url),
        downloaded_from: Some(final_url),
        fetch: Some(FetchState {
            url: Some(shown_target),
            etag,
            last_modified,
            fetched_at: Some(chrono::Utc::now()),
        }),
        notes,
    }))
}

/// Stores a notebook for the chapter from `source` (see [`obtain`]).
pub fn add(
    project: &Project,
    chapter: &Chapter,
    source: &NotebookSource,
    given_source: Option<&str>,
    download: Download,
) -> Result<Added> {
    let state = store::load(project.layout(), &chapter.key)?;
    let Some(obtained) = obtain(
        project,
        Some(chapter),
        source,
        state.as_ref(),
        given_source,
        download,
    )?
    else {
        let current = state.map(|s| s.current().clone()).ok_or_else(|| {
            Error::Other("the server answered 304 Not Modified, but no notebook is stored".into())
        })?;
        return Ok(Added {
            chapter: chapter.key_str(),
            outcome: NotebookAdded::Unchanged(current),
            downloaded_from: None,
            not_modified: true,
            notes: Vec::new(),
        });
    };
    let downloaded_from = obtained.downloaded_from.clone();
    let notes = obtained.notes.clone();
    let outcome = store_obtained(project, &chapter.key, obtained)?;
    Ok(Added {
        chapter: chapter.key_str(),
        outcome,
        downloaded_from,
        not_modified: false,
        notes,
    })
}

/// Stores what [`obtain`] got.
pub(super) fn store_obtained(
    project: &Project,
    key: &crate::ids::ChapterKey,
    o: Obtained,
) -> Result<NotebookAdded> {
    let new = NewNotebook {
        bytes: &o.bytes,
        notebook: &o.notebook,
        source: o.source,
        captured_at: chrono::Utc::now(),
        obtained_by: if o.downloaded_from.is_some() {
            store::ObtainedBy::Download
        } else {
            store::ObtainedBy::File
        },
        fetch: o.fetch,
    };
    store::add(project.layout(), key, new)
}

/// chapter.yaml's entry for a notebook given to `chapter new`: a Colab URL
/// is a `colab-notebook`, anything else a `notebook`.
pub fn material(given: &str, o: &Obtained) -> Material {
    let colab = given.contains("://colab.research.google.com/");
    Material {
        kind: if colab { "colab-notebook" } else { "notebook" }.into(),
        url: o.source.clone(),
        note: "Stored as the chapter's first notebook snapshot. Whether it runs, and what it prints, is what a recorded `research_companion notebook run` says.".into(),
        caveat: Some("Availability is not evidence: a notebook shows something only through a recorded run.".into()),
    }
}

/// What `notebook check` found in one notebook.
#[derive(Debug, Serialize)]
pub struct Checked {
    /// The file checked, as given or from the project root.
    pub notebook: String,
    pub cells: usize,
    pub findings: Vec<Finding>,
}

/// What `notebook check` is given.
#[derive(Debug, Clone)]
pub enum CheckTarget<'a> {
    File(&'a Path),
    Chapter(&'a str),
}

/// Audits a saved notebook without running it: a file, or a chapter's
/// current stored notebook.
pub fn check(project: Option<&Project>, target: CheckTarget<'_>) -> Result<Checked> {
    let (name, nb) = match target {
        CheckTarget::File(path) => {
            let (_, nb) = format::read_file(path)?;
            (path.display().to_string(), nb)
        }
        CheckTarget::Chapter(query) => {
            let project = project.ok_or_else(|| {
                Error::Usage(format!(
                    "'{query}' is neither a notebook file nor a chapter of a project"
                ))
            })?;
            let chapter = project.chapter(query)?;
            let state = stored(project, &chapter)?;
            let (path, nb) = current_notebook(project, &chapter, &state)?;
            (project.layout().portable_source(&path), nb)
        }
    };
    Ok(Checked {
        notebook: name,
        cells: nb.cells.len(),
        findings: audit::audit(&nb, &LocalFacts::of_this_machine()),
    })
}

/// The chapter's notebook state from its records, or None when it has no
/// notebook; a notebooks.yaml that cannot be read is an error.
pub fn status(
    project: &Project,
    chapter: &Chapter,
    records: &[Record],
) -> Result<Option<NotebookStatus>> {
    let state = store::load(project.layout(), &chapter.key)?;
    Ok(notebook_status::notebook_status(
        chapter,
        state.as_ref(),
        records,
    ))
}

/// A recorded notebook run's run file, read back from inside the records
/// folder, its texts put through the run redaction again (a run stored
/// before a rule was added keeps no secret that rule finds).
pub fn run_file(
    project: &Project,
    record: &Record,
) -> Result<Option<crate::notebook::NotebookRunFile>> {
    let Some(info) = &record.notebook else {
        return Ok(None);
    };
    let layout = project.layout();
    let path = layout.evidence_file(&record.run_id.chapter, &info.file);
    let text = crate::records::store::read_evidence_text(layout, record, &info.file, &info.sha256)?;
    crate::yaml_io::from_str::<crate::notebook::NotebookRunFile>(&text, &path)
        .map(|run| Some(run.redacted()))
}

/// The chapter's latest notebook run (not retracted) with its run file,
/// when there is one that can be read.
pub fn latest_run(
    project: &Project,
    records: &[Record],
) -> Option<(Record, crate::notebook::NotebookRunFile)> {
    let record = records
        .iter()
        .find(|r| r.notebook.is_some() && r.retraction.is_none())?;
    let file = run_file(project, record).ok().flatten()?;
    Some((record.clone(), file))
}
