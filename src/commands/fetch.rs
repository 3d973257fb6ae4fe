//! `fetch`: download the chapter's snapshot and store it when it changed.

use std::time::Duration;

use crate::app::Project;
use crate::app::fetch::{self, FetchOptions, Fetched};
use crate::chapter::AddOutcome;
use crate::cli::FetchArgs;
use crate::error::{Error, Outcome, Result};
use crate::output::Out;

/// `fetch`
pub fn run(out: &mut Out, project: &Project, args: FetchArgs) -> Result<Outcome> {
    let chapter = project.chapter(&args.chapter)?;
    let opts = FetchOptions {
        url: args.url.clone(),
        // clap checked both: above 0 and at most an hour.
        connect_timeout: Duration::from_secs_f64(args.connect_timeout),
        timeout: Duration::from_secs_f64(args.timeout),
        max_bytes: args.max_bytes,
        redirects_anywhere: args.follow_redirects_anywhere,
    };
    let report = fetch::fetch(project, &chapter, &opts).map_err(|e| match e {
        Error::TooLarge { .. } => Error::Usage(format!("{e} (raise it with --max-bytes)")),
        Error::CrossOriginRedirect { .. } => Error::Usage(format!(
            "{e}: follow it with --follow-redirects-anywhere (or `snapshot_redirects: anywhere` under `chapter:` in chapter.yaml), or fetch the new address with --url"
        )),
        other => other,
    })?;
    if let Some((from, to)) = &report.redirected {
        out.line(format!("redirected: {from} -> {to}"))?;
    }
    for note in &report.notes {
        crate::output::warn(note);
    }
    match report.fetched {
        Fetched::NotModified { url } => out.line(format!(
            "unchanged: {url} answered 304 Not Modified; nothing written"
        ))?,
        Fetched::SameProse { fingerprint } => out.line(format!(
            "unchanged: the fetched text has the current snapshot's fingerprint {fingerprint}; nothing written"
        ))?,
        Fetched::Changed {
            outcome,
            final_url,
            matches_published,
            stale,
        } => print_changed(out, &outcome, &final_url, matches_published, &stale)?,
    }
    Ok(Outcome::Ok)
}

/// What a fetch that changed the current snapshot did, and which research
/// runs it made stale.
fn print_changed(
    out: &mut Out,
    outcome: &AddOutcome,
    final_url: &str,
    matches_published: Option<bool>,
    stale: &[crate::records::Record],
) -> Result<()> {
    match outcome {
        AddOutcome::Stored(e) => out.line(format!(
            "stored {} ({}, complete) from {final_url}; it is now current",
            e.file, e.fingerprint
        ))?,
        AddOutcome::Restored(e) => out.line(format!(
            "restored {} from {final_url}: its file was missing, and the fetched text has its prose; it is current",
            e.file
        ))?,
        AddOutcome::Reverted(e) | AddOutcome::Unchanged(e) => out.line(format!(
            "the fetched text equals the older snapshot {}; it is current again",
            e.file
        ))?,
    }
    out.line(format!(
        "  published fingerprint: {}",
        match matches_published {
            Some(true) => "matches",
            Some(false) =>
                "differs (the chapter changed since, or the site normalizes differently)",
            None => "none published (chapter.yaml gives no published_fingerprint)",
        }
    ))?;
    if stale.is_empty() {
        return out.line("  no research run becomes STALE");
    }
    out.line(format!("  research runs now STALE ({}):", stale.len()))?;
    for r in stale {
        out.line(format!(
            "    {}  {}",
            r.run_id,
            r.recorded_at.format("%Y-%m-%d")
        ))?;
    }
    Ok(())
}
