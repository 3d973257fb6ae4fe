//! Fetching a chapter's snapshot over HTTP and storing it when its prose
//! changed, with the research runs the change makes stale.

use std::time::Duration;

use super::Project;
use crate::chapter::manifest::FetchState;
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
        /// Whether the new current snapshot matches the published fingerprint.
        matches_published: bool,
        /// Research runs of the previous revision, now stale (newest first).
        stale: Vec<Record>,
    },
}

/// Fetches the chapter's snapshot and stores it when it changed.
pub fn fetch(project: &Project, chapter: &Chapter, opts: &FetchOptions) -> Result<Fetched> {
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
    let shown = crate::text::redact_url(&url);
    // Validators are only meaningful for the URL that issued them.
    let same_url = m.fetch.url.as_deref() == Some(shown.as_str());
    let req = Request {
        url: url.clone(),
        connect_timeout: opts.connect_timeout,
        timeout: opts.timeout,
        max_bytes: opts.max_bytes,
        etag: m.fetch.etag.clone().filter(|_| same_url),
        last_modified: m.fetch.last_modified.clone().filter(|_| same_url),
    };
    let (text, etag, last_modified, final_url) = match fetch::get(&req)? {
        Response::NotModified => return Ok(Fetched::NotModified { url: shown }),
        Response::Text {
            text,
            etag,
            last_modified,
            final_url,
        } => (text, etag, last_modified, final_url),
    };
    let previous = m.current().fingerprint.clone();
    let fingerprint = fingerprint_str(&text)
        .map_err(|e| crate::chapter::normalize_error(std::path::Path::new(&final_url), e))?;
    if fingerprint == previous.value {
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
        AddOutcome::Stored(e) | AddOutcome::Reverted(e) => e,
        // The prose differs from the current snapshot's, so this cannot
        // happen; say so plainly if it ever does.
        AddOutcome::Unchanged(e) => {
            return Ok(Fetched::SameProse {
                fingerprint: e.fingerprint.clone(),
            });
        }
    };
    let matches_published =
        chapter.manifest.published_hex() == Some(entry.fingerprint.value.as_str());
    let (records, _) = project.records(chapter)?;
    let stale = records
        .into_iter()
        .filter(|r| r.kind == RunKind::Research && r.revision.fingerprint == previous)
        .collect();
    Ok(Fetched::Changed {
        outcome,
        final_url,
        matches_published,
        stale,
    })
}
