//! `verify`: integrity of every stored snapshot, currency of the current one.

use crate::app::{Project, chapters};
use crate::chapter::{ChapterCheck, SnapshotCurrency};
use crate::cli::VerifyArgs;
use crate::error::{Outcome, Result};
use crate::output::{Out, Render, currency_phrase, integrity_word};
use crate::text::escape::visible;

/// The checks of every chapter verified, and what they add up to.
#[derive(serde::Serialize)]
#[serde(transparent)]
struct Verified {
    checks: Vec<ChapterCheck>,
    #[serde(skip)]
    strict: bool,
}

impl Verified {
    fn altered(&self) -> bool {
        self.checks.iter().any(|c| !c.intact())
    }

    /// A current snapshot that differs from the published fingerprint
    /// fails `verify` with or without `--strict`: the text stored is not
    /// the text published (an excerpt, or no fingerprint to match, fails
    /// only `--strict`).
    fn differs(&self) -> bool {
        self.checks
            .iter()
            .any(|c| c.currency == SnapshotCurrency::Differs)
    }

    fn failed(&self) -> bool {
        let not_current = self
            .checks
            .iter()
            .any(|c| c.currency != SnapshotCurrency::Matches);
        self.altered() || self.differs() || (self.strict && not_current)
    }
}

impl Verified {
    /// The failure line: each chapter whose current snapshot does not
    /// match the published fingerprint, and why not (without `--strict`,
    /// only those that differ).
    fn strict_failure(&self) -> String {
        let strict = self.strict;
        let why: Vec<String> = self
            .checks
            .iter()
            .filter_map(|c| {
                let reason = match c.currency {
                    SnapshotCurrency::Matches => return None,
                    SnapshotCurrency::ExcerptCannotMatch if strict => {
                        "an excerpt, which cannot match the published fingerprint"
                    }
                    SnapshotCurrency::NotPublished if strict => "no published fingerprint to match",
                    SnapshotCurrency::ExcerptCannotMatch | SnapshotCurrency::NotPublished => {
                        return None;
                    }
                    SnapshotCurrency::Differs => "differs from the published fingerprint",
                };
                Some(format!("{}: {reason}", c.chapter))
            })
            .collect();
        if strict {
            format!(
                "FAILED (--strict): not every current snapshot matches its published fingerprint: {}",
                why.join("; ")
            )
        } else {
            format!(
                "FAILED: a current snapshot DIFFERS from its published fingerprint: {}",
                why.join("; ")
            )
        }
    }
}

impl Render for Verified {
    fn text(&self) -> Result<String> {
        let mut lines: Vec<String> = self.checks.iter().flat_map(check_lines).collect();
        lines.push(
            if self.altered() {
                "FAILED: a stored snapshot no longer matches its manifest"
            } else if self.failed() {
                return Ok(lines
                    .iter()
                    .map(|l| format!("{l}\n"))
                    .chain([format!("{}\n", self.strict_failure())])
                    .collect());
            } else if self.checks.iter().any(|c| !c.stale_research.is_empty()) {
                "ok: every stored snapshot is intact; research runs above are STALE (the chapter changed since)"
            } else {
                "ok: every stored snapshot is intact"
            }
            .to_string(),
        );
        Ok(lines.iter().map(|l| format!("{l}\n")).collect())
    }
}

/// `verify`
pub fn run(out: &mut Out, project: &Project, args: VerifyArgs) -> Result<Outcome> {
    let (checks, broken) = chapters::verify(project, &args.ids)?;
    let verified = Verified {
        checks,
        strict: args.strict,
    };
    out.emit(&verified, args.format.into())?;
    Ok(if broken.is_empty() {
        Outcome::check(!verified.failed())
    } else {
        Outcome::CheckFailed(broken)
    })
}

/// One chapter's lines: each stored snapshot's integrity, the current
/// snapshot's currency (and why it may differ), and the stale research.
fn check_lines(c: &ChapterCheck) -> Vec<String> {
    let mut lines = Vec::new();
    lines.push(format!("{}  {}", c.chapter, visible(&c.title)));
    for s in &c.snapshots {
        let mut line = format!(
            "  {:<10} {}  {}{}",
            integrity_word(s.integrity),
            visible(&s.file),
            s.scope,
            if s.current { ", current" } else { "" }
        );
        if let Some(actual) = s.actual.as_ref().filter(|a| **a != s.expected) {
            line.push_str(&format!(
                "\n             manifest prose-v1:{}\n             file     prose-v1:{actual}",
                s.expected
            ));
        }
        if let Some(p) = &s.problem {
            line.push_str(&format!("\n             {}", visible(p)));
        }
        lines.push(line);
    }
    lines.push(format!(
        "  current snapshot: {}",
        currency_phrase(c.currency)
    ));
    let why = match c.currency {
        SnapshotCurrency::Matches | SnapshotCurrency::NotPublished => None,
        SnapshotCurrency::ExcerptCannotMatch => Some(
            "the published fingerprint covers the complete chapter; store the full text \
                 with `snapshot add --complete` (or `fetch`) to check currency",
        ),
        SnapshotCurrency::Differs => Some(
            "either the chapter changed since it was published, or the site normalizes \
                 differently from prose-v1 (its rules are not published)",
        ),
    };
    if let Some(why) = why {
        lines.push(format!("    {why}"));
    }
    if let Some(p) = &c.published_fingerprint {
        lines.push(format!("    published sha256 {p}"));
    }
    if !c.stale_research.is_empty() {
        lines.push(format!(
            "  research runs STALE against the current snapshot ({}): {}",
            c.stale_research.len(),
            crate::text::format::list(&c.stale_research)
        ));
    }
    lines
}
