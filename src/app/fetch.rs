//! Fetching a chapter's snapshot over HTTP and storing it when its prose
//! changed, with the research runs the change makes stale.

use std::time::Duration;

use super::Project;
use crate::chapter::manifest::{FetchState, SnapshotRedirects};
use crate::chapter::normalize::fingerprint_str;
use crate::chapter::{self, AddOutcome, Chapter, Fingerprint, NewSnapshot, Scope, SnapshotEntry};
use crate::error::Result;
use crate::fetch::{self, Request, Response};
use crate::records::{Record, RunKind};

/// How to fetch.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// Fetch from here instead of the chapter's snapshot URL.
    pub url: Option<String>,
    pub connect_timeout: Duration,
    pub timeout: Duration,
    pub max_bytes: u64,
    /// Follow redirects to another origin (else chapter.yaml's
    /// `snapshot_redirects` decides, by default the same origin only).
    pub redirects_anywhere: bool,
}

/// What a fetch did.
#[derive(Debug)]
pub enum Fetched {
    /// The server answered 304 Not Modified; nothing was written.
    NotModified { url: String },
    /// The text has the current snapshot's fingerprint; nothing was written.
    SameProse { fingerprint: Fingerprint },
    /// A new snapshot was stored (or an older one with the same prose made
    /// current again) and is now current.
    Changed {
        outcome: AddOutcome,
        final_url: String,
        /// Whether the new current snapshot matches the published
        /// fingerprint; None when chapter.yaml publishes none.
        matches_published: Option<bool>,
        /// Research runs of the previous revision, now stale (newest first).
        stale: Vec<Record>,
    },
}

/// What a fetch did, where redirects took it, and what it could not keep
/// or use (a validator too long to store or send), one line each.
#[derive(Debug)]
pub struct FetchReport {
    pub fetched: Fetched,
    /// The URL asked for and the one that answered, when redirects led
    /// elsewhere (credentials removed).
    pub redirected: Option<(String, String)>,
    pub notes: Vec<String>,
}

/// A validator to send again or to store: None, with a note saying why,
/// when it cannot be (see [`fetch::validator_problem`]).
pub(super) fn bounded(
    name: &str,
    value: Option<String>,
    doing: &str,
    notes: &mut Vec<String>,
) -> Option<String> {
    let v = value?;
    match fetch::validator_problem(&v) {
        None => Some(v),
        Some(problem) => {
            notes.push(format!("the {name} ({problem}) was not {doing}"));
            None
        }
    }
}

/// Fetches the chapter's snapshot and stores it when it changed.
pub fn fetch(project: &Project, chapter: &Chapter, opts: &FetchOptions) -> Result<FetchReport> {
    let mut report = FetchReport {
        fetched: Fetched::NotModified { url: String::new() },
        redirected: None,
        notes: Vec::new(),
    };
    report.fetched = fetch_noting(project, chapter, opts, &mut report)?;
    Ok(report)
}

fn fetch_noting(
    project: &Project,
    chapter: &Chapter,
    opts: &FetchOptions,
    report: &mut FetchReport,
) -> Result<Fetched> {
    let notes = &mut report.notes;
    if chapter.legacy {
        return Err(crate::chapter::needs_migration(chapter));
    }
    let m = &chapter.state;
    let url = match (&opts.url, &chapter.manifest.chapter.snapshot_url) {
        (Some(u), _) | (None, Some(u)) => u.clone(),
        (None, None) => {
            return Err(crate::error::Error::Usage(format!(
                "{}: chapter.yaml gives no snapshot_url and no URL was named",
                chapter.key
            )));
        }
    };
    // Credentials in a URL are used for the request, never stored or shown.
    let shown = crate::text::redact::redact_url(&url);
    // Validators are only meaningful for the URL that issued them.
    let same_url = m.fetch.url.as_deref() == Some(shown.as_str());
    let sent = "sent (the whole text is fetched again)";
    let req = Request {
        url: url.clone(),
        connect_timeout: opts.connect_timeout,
        timeout: opts.timeout,
        max_bytes: opts.max_bytes,
        etag: bounded(
            "stored ETag",
            m.fetch.etag.clone().filter(|_| same_url),
            sent,
            notes,
        ),
        last_modified: bounded(
            "stored Last-Modified",
            m.fetch.last_modified.clone().filter(|_| same_url),
            sent,
            notes,
        ),
        redirects_anywhere: opts.redirects_anywhere
            || chapter.manifest.chapter.snapshot_redirects == Some(SnapshotRedirects::Anywhere),
        body: fetch::BodyKind::Text,
    };
    let (text, etag, last_modified, final_url, redirected_from) = match fetch::get(&req)? {
        Response::NotModified => return Ok(Fetched::NotModified { url: shown }),
        Response::Text {
            text,
            etag,
            last_modified,
            final_url,
            redirected_from,
        } => (text, etag, last_modified, final_url, redirected_from),
    };
    report.redirected = redirected_from.map(|from| (from, final_url.clone()));
    let notes = &mut report.notes;
    let stored = "stored (the next fetch downloads the whole text)";
    let etag = bounded("server's ETag", etag, stored, notes);
    let last_modified = bounded("server's Last-Modified", last_modified, stored, notes);
    let previous = m.current().fingerprint.clone();
    let fingerprint = fingerprint_str(&text)
        .map_err(|e| crate::chapter::normalize_error(std::path::Path::new(&final_url), e))?;
    // The same prose as the current snapshot: nothing to store, unless its
    // file was deleted, which storing the text again restores.
    if fingerprint == previous.value && !chapter::is_missing(project.layout(), chapter, m.current())
    {
        return Ok(Fetched::SameProse {
            fingerprint: previous,
        });
    }
    let now = chrono::Utc::now();
    let new = NewSnapshot {
        text: &text,
        source: final_url.clone(),
        scope: Scope::Complete,
        captured_at: now,
        fetch: Some(FetchState {
            url: Some(shown),
            etag,
            last_modified,
            fetched_at: Some(now),
        }),
    };
    let outcome = chapter::add_snapshot(project.layout(), chapter, new)?;
    let entry: &SnapshotEntry = match &outcome {
        AddOutcome::Stored(e) | AddOutcome::Reverted(e) | AddOutcome::Restored(e) => e,
        // The prose differs from the current snapshot's, so this cannot
        // happen; say so plainly if it ever does.
        AddOutcome::Unchanged(e) => {
            return Ok(Fetched::SameProse {
                fingerprint: e.fingerprint.clone(),
            });
        }
    };
    let matches_published = chapter
        .manifest
        .published_hex()
        .map(|hex| hex == entry.fingerprint.value.as_str());
    let (records, _) = project.records(chapter)?;
    let stale = records
        .into_iter()
        .filter(|r| r.kind == RunKind::Research && r.revision.fingerprint == previous)
        .filter(|_| entry.fingerprint != previous)
        .collect();
    Ok(Fetched::Changed {
        outcome,
        final_url,
        matches_published,
        stale,
    })
}
