//! `fetch`: download the chapter's snapshot and store it when it changed.

use std::time::Duration;

use super::Context;
use crate::chapter::manifest::FetchState;
use crate::chapter::normalize::fingerprint_str;
use crate::chapter::{self, AddOutcome, NewSnapshot, Registry, Scope};
use crate::cli::FetchArgs;
use crate::error::{EXIT_OK, Error, Result};
use crate::fetch::{self, Request, Response};
use crate::records::{RunKind, store};

fn seconds(name: &str, s: f64) -> Result<Duration> {
    if !s.is_finite() || s <= 0.0 {
        return Err(Error::Usage(format!(
            "--{name} must be a positive number of seconds, got {s}"
        )));
    }
    Ok(Duration::from_secs_f64(s))
}

pub fn run(ctx: &mut Context, args: FetchArgs) -> Result<u8> {
    let registry = Registry::open(&ctx.layout)?;
    let chapter = registry.get(&args.chapter)?;
    let m = &chapter.manifest;
    let url = args
        .url
        .clone()
        .unwrap_or_else(|| m.chapter.snapshot_url.clone());
    // Validators are only meaningful for the URL that issued them.
    let same_url = m.fetch.url.as_deref() == Some(url.as_str());
    let req = Request {
        url: url.clone(),
        connect_timeout: seconds("connect-timeout", args.connect_timeout)?,
        timeout: seconds("timeout", args.timeout)?,
        max_bytes: args.max_bytes,
        etag: m.fetch.etag.clone().filter(|_| same_url),
        last_modified: m.fetch.last_modified.clone().filter(|_| same_url),
    };
    let (text, etag, last_modified, final_url) = match fetch::get(&req)? {
        Response::NotModified => {
            ctx.out.line(format!(
                "unchanged: {url} answered 304 Not Modified; nothing written"
            ))?;
            return Ok(EXIT_OK);
        }
        Response::Text {
            text,
            etag,
            last_modified,
            final_url,
        } => (text, etag, last_modified, final_url),
    };
    let previous = m.current().fingerprint.clone();
    let fingerprint = fingerprint_str(&text);
    if fingerprint == previous.value {
        ctx.out.line(format!(
            "unchanged: the fetched text has the current snapshot's fingerprint {previous}; nothing written"
        ))?;
        return Ok(EXIT_OK);
    }
    let new = NewSnapshot {
        text: &text,
        source: final_url.clone(),
        scope: Scope::Complete,
        captured_at: chrono::Utc::now(),
        fetch: Some(FetchState {
            url: Some(url.clone()),
            etag,
            last_modified,
            fetched_at: Some(chrono::Utc::now()),
        }),
    };
    let entry = match chapter::add_snapshot(&ctx.layout, &chapter, new)? {
        AddOutcome::Stored(e) => {
            ctx.out.line(format!(
                "stored {} ({}, complete) from {final_url}; it is now current",
                e.file, e.fingerprint
            ))?;
            e
        }
        AddOutcome::Reverted(e) => {
            ctx.out.line(format!(
                "the fetched text equals the older snapshot {}; it is current again",
                e.file
            ))?;
            e
        }
        AddOutcome::Unchanged(e) => {
            ctx.out
                .line(format!("unchanged: {}; nothing written", e.file))?;
            return Ok(EXIT_OK);
        }
    };
    let matches_published = entry.fingerprint.value == m.published_fingerprint.value;
    ctx.out.line(format!(
        "  published fingerprint: {}",
        if matches_published {
            "matches"
        } else {
            "differs (the chapter changed since, or the site normalizes differently)"
        }
    ))?;
    let (records, _) = store::list(&ctx.layout, &chapter.key)?;
    let stale: Vec<_> = records
        .iter()
        .filter(|r| r.kind == RunKind::Research && r.revision.fingerprint == previous)
        .collect();
    if stale.is_empty() {
        ctx.out.line("  no research run becomes STALE")?;
    } else {
        ctx.out
            .line(format!("  research runs now STALE ({}):", stale.len()))?;
        for r in stale {
            ctx.out.line(format!(
                "    {}  {}",
                r.run_id,
                r.recorded_at.format("%Y-%m-%d")
            ))?;
        }
    }
    Ok(EXIT_OK)
}
